#!/bin/bash
# The Debian package, as a new user gets it: "make deb" builds it, lintian
# finds no error, dpkg -i installs it, the installed /usr/bin/keyward (with
# its helpers in /usr/libexec/keyward) serves one real login, man finds
# keyward(1), the systemd user units are in place; then dpkg -r removes it
# (and dpkg -P purges what is left).
# It installs a package on the machine, so it runs only as root with
# KEYWARD_TEST_DEB=1 (.ci/run sets it); otherwise the whole file is skipped.
# check: early (one of the longest files, building the tree's .deb)
# Not serial, though it installs a package on the machine: no other file
# runs the installed programs or reads /usr/libexec/keyward (they run
# $KEYWARD_BUILD's, whose helpers are found beside keyward or in
# /usr/local/libexec/keyward), and nothing else builds the package.
. "$(dirname "$0")/lib.sh"

skip_all() { printf '1..0 # SKIP %s\n' "$*"; exit 0; }

[ "$(id -u)" = 0 ] || skip_all "installs a package: needs root"
[ "${KEYWARD_TEST_DEB:-}" = 1 ] || skip_all "set KEYWARD_TEST_DEB=1 to build, install and remove the .deb"
# The package is built from the tree without SANITIZE, whatever the pass:
# make check's sanitized pass would build and test the same package again.
case $KEYWARD_BUILD in
*asan*) skip_all "the package is built without ASan: the normal pass (build/) tests it" ;;
esac
if dpkg-query -W -f='${Status}\n' keyward 2>/dev/null | grep -q 'install ok installed'; then
	skip_all "a keyward package is already installed; not replacing it"
fi
for tool in dpkg-buildpackage dh lintian man; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done

# man-db's dpkg trigger runs mandb after each of dpkg -i, -r and -P, to
# add the page to the index of manual pages and take it out again: CPU
# taken from the files running beside this one, for an index the test
# never reads (man finds a page missing from the index in the manpath's
# directories; whatis and apropos, which read only the index, are not
# checked). The test turns it off for its run as man-db's debconf answer
# man-db/auto-update=false does (man-db keeps that answer as the file
# below) and puts the file back after, the index left as it was.
MANDB_FLAG=/var/lib/man-db/auto-update
MANDB_OFF=0
# Whatever happens, the package does not outlive the test, nor the
# trigger's switch.
INSTALLED=0
deb_cleanup() {
	local rc=$?
	[ "$INSTALLED" = 1 ] && dpkg -P keyward >/dev/null 2>&1
	[ "$MANDB_OFF" = 1 ] && mv -f "$MANDB_FLAG.keyward-test" "$MANDB_FLAG"
	(exit $rc)
	cleanup
}
trap deb_cleanup EXIT

version=$(sed -n 's/^#define KEYWARD_VERSION "\(.*\)"$/\1/p' "$REPO/monitor/options.h")
arch=$(dpkg --print-architecture)
DEB=$REPO/build/keyward_${version}_${arch}.deb

# --- build. make check passes its variables (SANITIZE=1 ...) down through
# MAKEFLAGS; the package is built without them.
rm -f "$DEB"
LAST_CMD="make -C $REPO deb" RUN_SHOWN=0
(cd "$REPO" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make deb) >"$T/deb.log" 2>&1
RC=$? OUT=$(tail -n 30 "$T/deb.log") ERR=
is "$RC" 0 "make deb" || bail "make deb failed"
[ -f "$DEB" ]
ok $? "the package is build/$(basename "$DEB")"
run dpkg-deb -f "$DEB" Version
is "$OUT" "$version" "package version is KEYWARD_VERSION"
[ ! -e "$REPO/debian/build" ] && [ ! -e "$REPO/debian/keyward" ]
ok $? "make deb leaves debian/ clean"

run lintian "$DEB"
lint=$(printf '%s\n' "$OUT" | grep '^E: ')
is "$lint" "" "lintian reports no errors"
printf '%s\n' "$OUT" | grep -E '^[WIP]: ' | sed 's/^/# lintian: /'

run dpkg-deb -c "$DEB"
for f in ./usr/bin/keyward ./usr/libexec/keyward/keyward-policy \
	./usr/libexec/keyward/keyward-keyholder ./usr/libexec/keyward/keyward-sk \
	./usr/libexec/keyward/keyward-pkcs11 ./usr/libexec/keyward/keyward-peer \
	./usr/libexec/keyward/keyward-broker ./usr/libexec/keyward/keyward-prompter \
	./usr/libexec/keyward/keyward-auditor \
	./usr/share/man/man1/keyward.1.gz \
	./usr/lib/systemd/user/keyward.socket ./usr/lib/systemd/user/keyward.service; do
	printf '%s\n' "$OUT" | grep -qE " $f\$"
	ok $? "the package holds ${f#.}"
done

# --- install
if [ -e "$MANDB_FLAG" ] && mv "$MANDB_FLAG" "$MANDB_FLAG.keyward-test"; then
	MANDB_OFF=1
fi
run dpkg -i "$DEB"
is "$RC" 0 "dpkg -i" || bail "dpkg -i failed"
INSTALLED=1
if [ "$MANDB_OFF" = 1 ]; then
	contains "$OUT$ERR" "Not building database" "man-db's trigger left the index alone"
fi
[ -x /usr/bin/keyward ] && [ ! -e /usr/bin/keyward-policy ] && [ ! -e /usr/bin/keyward-keyholder ]
ok $? "/usr/bin has keyward alone; its helpers are in /usr/libexec/keyward"
run ldd /usr/bin/keyward /usr/libexec/keyward/keyward-policy /usr/libexec/keyward/keyward-keyholder \
	/usr/libexec/keyward/keyward-broker /usr/libexec/keyward/keyward-prompter /usr/libexec/keyward/keyward-auditor
unlike "$OUT" 'lib(a|ub)san' "the packaged programs are not sanitizer builds"
unlike "$(ldd /usr/bin/keyward)" 'libcrypto' "the packaged monitor does not link libcrypto"
run /usr/bin/keyward -V
is "$ERR" "keyward $version" "installed keyward -V prints the version"
# Slim Docker images tell dpkg not to install man pages at all.
if grep -qs '^path-exclude=* */usr/share/man' /etc/dpkg/dpkg.cfg /etc/dpkg/dpkg.cfg.d/*; then
	skip_n 2 "dpkg is configured not to install man pages (path-exclude in /etc/dpkg)"
else
	run man -w keyward
	is "$RC:$OUT" "0:/usr/share/man/man1/keyward.1.gz" "man -w keyward finds the installed page"
	LAST_CMD="man --warnings keyward" RUN_SHOWN=0
	ERR=$(MANWIDTH=80 man --warnings keyward 2>&1 >/dev/null)
	RC=$? OUT=
	is "$RC:$ERR" "0:" "man --warnings keyward: formats without warnings"
fi
[ -f /usr/lib/systemd/user/keyward.socket ]
ok $? "/usr/lib/systemd/user/keyward.socket exists"
run grep '^ExecStart=' /usr/lib/systemd/user/keyward.service
is "$OUT" "ExecStart=/usr/bin/keyward -D" "the installed service runs /usr/bin/keyward -D"
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$T/xdg" && chmod 700 "$T/xdg"
	XDG_RUNTIME_DIR=$T/xdg run systemd-analyze verify --user \
		/usr/lib/systemd/user/keyward.socket /usr/lib/systemd/user/keyward.service
	is "$RC:$ERR" "0:" "systemd-analyze verify --user: the installed units are valid"
else
	skip "no systemd-analyze"
fi

# --- one real login through the installed agent
AGENT=/usr/bin/keyward
start_agent
ok $? "installed keyward started" || bail "installed keyward did not start"
# The socket exists before the helpers are started: wait for them (and
# look again if a scan of /proc missed them while other processes came
# and went).
helpers_up() {
	local p
	exes=""
	for p in $(descendants "$SSH_AGENT_PID"); do exes+="$(readlink "/proc/$p/exe")"$'\n'; done
	for p in keyward-policy keyward-keyholder keyward-broker keyward-prompter; do
		printf '%s' "$exes" | grep -qx "/usr/libexec/keyward/$p" || return 1
	done
}
for ((i = 0; i < 50; i++)); do helpers_up && break; sleep 0.2; done
contains "$exes" /usr/libexec/keyward/keyward-policy "it runs /usr/libexec/keyward/keyward-policy"
contains "$exes" /usr/libexec/keyward/keyward-keyholder "it runs /usr/libexec/keyward/keyward-keyholder"
contains "$exes" /usr/libexec/keyward/keyward-broker "it runs /usr/libexec/keyward/keyward-broker"
contains "$exes" /usr/libexec/keyward/keyward-prompter "it runs /usr/libexec/keyward/keyward-prompter"
gen_key login ed25519 || bail "ssh-keygen"
cat "$T/keys/login.pub" >>"$T/authorized_keys"
run ssh-add "$T/keys/login"
is "$RC" 0 "ssh-add to the installed agent"
hide_key login
start_sshd hostA
ok $? "sshd hostA started"
run ssh_as hostA "$T/keys/login.pub" -- 'echo logged-in'
is "$RC:$OUT" "0:logged-in" "a real login through the installed keyward" || diag_file "$(sshd_log hostA)"
sshd_accepted hostA "$T/keys/login.pub"
ok $? "sshd accepted the key the installed agent signed with"
stop_agent
ok $? "installed keyward stopped with -k"

# --- remove
run dpkg -r keyward
is "$RC" 0 "dpkg -r keyward"
INSTALLED=0
# The postrm (dh_installsystemduser) keeps the package in "config-files"
# state until it is purged; purge it so nothing is left in dpkg's database.
run dpkg -P keyward
is "$RC" 0 "dpkg -P keyward"
run dpkg-query -W keyward
is "$RC" 1 "dpkg no longer knows the package"
[ ! -e /usr/bin/keyward ] && [ ! -e /usr/libexec/keyward ] &&
	[ ! -e /usr/lib/systemd/user/keyward.socket ] && [ ! -e /usr/share/man/man1/keyward.1.gz ]
ok $? "the package's files are gone"
if [ "$MANDB_OFF" = 1 ]; then
	mv -f "$MANDB_FLAG.keyward-test" "$MANDB_FLAG"
	ok $? "man-db's auto-update switch is back" && MANDB_OFF=0
fi

done_testing
