#!/bin/bash
# keyward(5) against the server the agent is forwarded to: the
# user's real ssh -A (readable by keyward-peer: nocaps) logs in to the
# loopback sshd "hostile", whose session runs tests/tools/fwd_attack.py
# on the forwarded socket: a raw agent client that asks for SSHSIG
# signatures in every namespace, other data, plain and hostbound logins
# with session ids of its choosing, after session-binds it adds for hosts
# whose host keys it holds (prod, bastion: a server may bind any host it
# holds a session with). Once through git: git ls-remote with ssh -A,
# whose forced command is the attack. For every example of keyward(5)
# and each rule kind (caller, ancestor, origin, via, purpose login /
# sshsig / other, remember=), the attack is refused while the user's own
# requests the rules allow still sign. The principle: an allow, a confirm
# or a remembered yes rests only on what the server cannot choose; a deny
# on anything. Each attack below is a case that signed before the rules
# knew forwarded requests. Stock ssh-agent has no rules: its baseline is that
# every attack signs (the refusals are asserted for keyward alone).
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-rules.sh"

"$PY3" -c 'import paramiko' 2>/dev/null || bail "python3-paramiko is not installed (make deps)"
command -v git >/dev/null || bail "git is not installed (make deps)"
ATTACK=$REPO/tests/tools/fwd_attack.py
CTL=$KEYWARD_BUILD/keyward-ctl
ME=$(id -un)

for k in k x prod y z g; do gen_key "$k" ed25519 || bail "ssh-keygen $k"; done
cat "$T/keys/k.pub" "$T/keys/x.pub" "$T/keys/prod.pub" "$T/keys/y.pub" \
	"$T/keys/z.pub" >>"$T/authorized_keys"
# key g logs in only to run the attack (git's forced command)
printf 'command="/bin/sh %s/forced.sh" %s\n' "$T" "$(cat "$T/keys/g.pub")" >>"$T/authorized_keys"
cat >"$T/forced.sh" <<EOF
#!/bin/sh
$PY3 $ATTACK \$(cat "$T/forced.ops") >"$T/forced.out" 2>&1
EOF
for h in hostile prod bastion; do start_sshd "$h" || bail "sshd $h did not start"; done
XFP=$(fp "$T/keys/x.pub") PRODFP=$(fp "$T/hostile/../prod/host_ed25519.pub")
BASTIONFP=$(fp "$T/bastion/host_ed25519.pub")
HK_PROD=$T/prod/host_ed25519 HK_BASTION=$T/bastion/host_ed25519
PUB() { echo "$T/keys/$1.pub"; }

rules_askpass
rules_agent ""
for k in k x prod y z g; do
	run ssh-add "$T/keys/$k"
	[ "$RC" = 0 ] || bail "ssh-add $k"
	hide_key "$k"
done
run ssh-add -l
is "$RC:$(grep -c . <<<"$OUT")" "0:6" "the agent lists the six keys added (k x prod y z g)"

NCASE=0
load() { # LINE...: these rules in force from now on (keyward-ctl policy load)
	local f
	NCASE=$((NCASE + 1))
	f=$(rules_file "case$NCASE" "$@")
	is_keyward || return 0
	run "$CTL" policy load "$f"
	[ "$RC" = 0 ] || bail "keyward-ctl policy load: $ERR"
}
# attack HOST OP...: ssh -A HOST (key k), whose session runs fwd_attack.py
attack() {
	local host=$1; shift
	run nocaps ssh -A -F "$T/ssh_config" -o IdentityFile="$(PUB k)" "$host" \
		"$PY3 $ATTACK $(printf '%q ' "$@")" </dev/null
}
# got NAME: the rest of the first line of $OUT whose first field is NAME,
# its fields one space apart (awk's '$1 == n { $1 = ""; ... }', by the shell)
got() {
	local l w IFS=$' \t\n'
	while IFS= read -r l; do
		read -r -a w <<<"$l"
		[ "${w[0]-}" = "$1" ] || continue
		IFS=' '
		printf '%s\n' "${w[*]:1}"
		return 0
	done <<<"$OUT"
}
refused() { # NAME WHAT: keyward refused; stock ssh-agent (no rules) signed
	if is_keyward; then
		is "$(got "$1")" refused "$2: refused"
	else
		is "$(got "$1")" ok "baseline, stock ssh-agent: $2: signed"
	fi
}
signed() { is "$(got "$1")" ok "$2: signed"; }
SEEN=0
asked() { # N WHAT: askpass ran N times since the last asked (keyward only)
	local now
	now=$(prompts)
	if is_keyward; then is "$((now - SEEN))" "$1" "$2"; else skip "not keyward: no prompt"; fi
	SEEN=$now
}
login() { # KEY HOST: a real local ssh login
	run nocaps ssh -F "$T/ssh_config" -o IdentityFile="$(PUB "$1")" "$2" 'echo in-kw' </dev/null
	[ "$RC" = 0 ] && [ "$OUT" = in-kw ]
}
# every namespace and data a server might want signed with key K
everything() { # PREFIX K
	local p=$1 k; k=$(PUB "$2")
	for ns in git file ssh-sk login file@x ""; do printf '%s ' "$p-ns-${ns//[^a-z]/_}=sshsig:$k:$ns"; done
	printf '%s ' "$p-other=other:$k:arbitrary-bytes" "$p-plain=login:$k:$ME:sid-chosen" \
		"$p-hb=hlogin:$k:$ME:sid-chosen:$T/prod/host_ed25519.pub" \
		"$p-bind=bind:$HK_PROD:sid-prod" "$p-afterbind=hlogin:$k:$ME:sid-prod:$T/prod/host_ed25519.pub"
}
# the SSHSIG ops with an empty namespace are not SSHSIG to an agent (a
# namespace is never empty): they are "other" data, refused all the same.

# ---------------------------------------------------------------- item 1
# keyward(5) example 1 as main had it (no origin local), then as it is.
for variant in "" "origin local "; do
	load "allow key $XFP ancestor /usr/bin/git ${variant}purpose sshsig namespace git" \
		"deny  key $XFP"
	v=${variant:+with origin local}; v=${v:-as main had it}
	# the user's own: git runs ssh-keygen -Y sign -n git (local, under git)
	echo data >"$T/gitdata"; rm -f "$T/gitdata.sig"
	run nocaps git -c alias.s="!ssh-keygen -Y sign -f '$(PUB x)' -n git '$T/gitdata'" s
	ok "$([ "$RC" = 0 ] && [ -s "$T/gitdata.sig" ] && echo 0 || echo 1)" \
		"git example ($v): ssh-keygen -Y sign -n git under git, locally: signed"
	# git ls-remote with ssh -A: the git host's forced command attacks
	# through the ssh git started
	everything git x >"$T/forced.ops"
	rm -f "$T/forced.out"
	run nocaps env GIT_SSH_COMMAND="ssh -A -F $T/ssh_config -o IdentityFile=$(PUB g)" \
		git ls-remote hostile:repo
	OUT=$(cat "$T/forced.out" 2>/dev/null)
	is "$(printf '%s\n' "$OUT" | grep -c ' ok$\| refused$')" 11 "git ls-remote ran the git host's forced command: 11 answers"
	for ns in git file ssh_sk login file_x; do
		refused "git-ns-$ns" "git example ($v): git host, SSHSIG namespace '$ns' with X through git's ssh"
	done
	refused git-ns- "git example ($v): git host, empty namespace (other data)"
	refused git-other "git example ($v): git host, other data with X"
	refused git-plain "git example ($v): git host, an unverified login with X"
	refused git-hb "git example ($v): git host, a hostbound login naming prod, unverified"
	signed git-bind "git host: a session-bind for prod (the server holds a session with it)"
	refused git-afterbind "git example ($v): git host, a verified login to prod with X"
done
if is_keyward; then
	rec=$(audit_sel "select(.event == \"sign\" and .key.fingerprint == \"$XFP\" and .namespace == \"git\" and .origin == \"forwarded\")" | tail -n 1)
	is "$(jq -r '"\(.decision) \(.rule.line) \(.peer) \(.relay.exe)"' <<<"$rec")" "refuse 2 null /usr/bin/ssh" \
		"the record: refused by line 2; no peer; the relay is /usr/bin/ssh"
	is "$(jq -r '[.relay.ancestors[].exe] | index("/usr/bin/git") != null' <<<"$rec")" true \
		"... with git among the relay's ancestors"
	rec=$(audit_sel "select(.event == \"sign\" and .key.fingerprint == \"$XFP\" and .origin == \"local\" and .decision == \"allow\")" | tail -n 1)
	is "$(jq -r '"\(.peer.exe) \(.relay)"' <<<"$rec")" "/usr/bin/ssh-keygen null" "a local record names its peer and no relay"
else
	skip_n 3 "not keyward: audit trail"
fi

# a deny on ancestor holds on the relay: what git's ssh relays is refused
load "deny key $XFP ancestor /usr/bin/git"
printf '%s\n' "deny-git=sshsig:$(PUB x):file" >"$T/forced.ops"
run nocaps env GIT_SSH_COMMAND="ssh -A -F $T/ssh_config -o IdentityFile=$(PUB g)" git ls-remote hostile:repo
OUT=$(cat "$T/forced.out" 2>/dev/null)
refused deny-git "deny ancestor git: the git host through git's ssh"
attack hostile "deny-nogit=sshsig:$(PUB x):file"
signed deny-nogit "deny ancestor git: the same through an ssh not under git"

# caller: allow caller ssh never lets a forwarded request through
load "allow key $XFP caller /usr/bin/ssh" "deny key $XFP"
attack hostile $(everything caller x)
for n in caller-ns-file caller-other caller-plain caller-afterbind; do
	refused "$n" "allow caller /usr/bin/ssh: hostile's $n with X, relayed by ssh"
done
login x prod
ok $? "allow caller /usr/bin/ssh: the user's own ssh login with X"

# ---------------------------------------------------------------- item 2
# keyward(5) example 2: only ssh, confirmed, remembered
load "confirm remember=10m key comment prod* caller /usr/bin/ssh" "deny    key comment prod*"
SEEN=$(prompts)
login prod prod
ok $? "prod example: the user's ssh login to prod"
asked 1 "... asked once (yes)"
echo no >"$T/askpass.mode"
login prod prod
ok $? "prod example: again, remembered"
asked 0 "... not asked"
attack hostile $(everything prod prod)
for n in prod-ns-file prod-ns-git prod-other prod-plain prod-hb prod-afterbind; do
	refused "$n" "prod example: hostile's $n with the prod key after the user's yes"
done
asked 0 "... never asked: the confirm rule does not match a relayed request"

# remember= without caller: a forwarded request never reuses a local yes
load "confirm remember=10m key comment prod*" "deny key comment prod*"
echo yes >"$T/askpass.mode"
SEEN=$(prompts)
login prod prod
ok $? "confirm remember=10m: the user's ssh login to prod"
asked 1 "... asked once (yes)"
echo no >"$T/askpass.mode"
attack hostile "p-bind=bind:$HK_PROD:sid-prod" "p-login=hlogin:$(PUB prod):$ME:sid-prod:$T/prod/host_ed25519.pub"
signed p-bind "hostile binds prod"
refused p-login "remember=: hostile's verified login to prod as $ME after the user's local yes (asked, and the user says no)"
asked 1 "... asked, not remembered"
if is_keyward; then
	contains "$(last_prompt)" "Relayed by ssh -A -F" "the prompt says the user's ssh relays it"
	contains "$(last_prompt)" "for a program on the forwarded host, unnamed." "... for a program it cannot name"
	contains "$(last_prompt)" "forwarded agent" "and that it comes through a forwarded agent"
else
	skip_n 3 "not keyward: prompt"
fi

# purpose other: a yes for bastion's data is not hostile's, nor other data
load "confirm remember=10m key comment prod* purpose other" "deny key comment prod*"
echo yes >"$T/askpass.mode"
SEEN=$(prompts)
attack bastion "o1=other:$(PUB prod):data-one"
signed o1 "remember= purpose other: bastion's data, the user says yes"
asked 1 "... asked"
echo no >"$T/askpass.mode"
attack bastion "o2=other:$(PUB prod):data-one"
signed o2 "the same bytes from bastion again: remembered"
asked 0 "... not asked"
attack hostile "o3=other:$(PUB prod):data-one" "o4=other:$(PUB prod):data-two"
refused o3 "hostile, the same bytes: the yes was bastion's"
refused o4 "hostile, other bytes"
attack bastion "o5=other:$(PUB prod):data-two"
refused o5 "bastion, other bytes: the yes was for data-one only"
asked 3 "... each of those three asked (no)"

# ---------------------------------------------------------------- item 3
# a login to prod is allowed; one policy cannot verify names no host
load "allow key $(fp "$(PUB y)") purpose login host $PRODFP" "deny key $(fp "$(PUB y)")"
login y prod
ok $? "allow login host prod: the user's ssh login to prod with Y"
attack hostile "b=bind:$HK_PROD:sid-p" "plain=login:$(PUB y):$ME:sid-p" \
	"good=hlogin:$(PUB y):$ME:sid-p:$T/prod/host_ed25519.pub"
signed b "hostile binds prod"
refused plain "allow login host prod: hostile's plain publickey login after its prod binding (unverified)"
signed good "allow login host prod: hostile's verified hostbound login to prod (what the rule allows)"
attack hostile "hb=hlogin:$(PUB y):$ME:sid-other:$T/prod/host_ed25519.pub" "pl=login:$(PUB y):$ME:sid-other"
refused hb "allow login host prod: a hostbound login naming prod in a session not bound"
refused pl "allow login host prod: a plain login in a session not bound"
if is_keyward; then
	rec=$(audit_sel "select(.event == \"sign\" and .purpose == \"login\" and .login_verified == false and .decision == \"refuse\")" | tail -n 1)
	is "$(jq -r '"\(.origin) \(.rule.line)"' <<<"$rec")" "forwarded 2" "the unverified login's record: forwarded, refused by line 2"
else
	skip "not keyward: audit trail"
fi
load "deny key $(fp "$(PUB y)") purpose login host $PRODFP"
attack hostile "dpl=login:$(PUB y):$ME:sid-other" "dhb=hlogin:$(PUB y):$ME:sid-other:$T/prod/host_ed25519.pub" \
	"dsig=sshsig:$(PUB y):file"
refused dpl "deny login host prod: an unverified plain login may be to prod"
refused dhb "deny login host prod: an unverified hostbound login naming prod"
signed dsig "deny login host prod: an SSHSIG signature is no login"
load "confirm purpose login user $ME" "deny purpose login"
echo yes >"$T/askpass.mode"
SEEN=$(prompts)
attack hostile "u=login:$(PUB y):$ME:sid-other"
refused u "confirm login user $ME: an unverified login is by an unknown user: refused by the deny"
asked 1 "... one prompt: the user's own ssh login to hostile as $ME, none for the server's login"

# ---------------------------------------------------------------- item 4
ZFP=$(fp "$(PUB z)")
load "allow key $ZFP origin forwarded via $BASTIONFP" "deny key $ZFP"
attack bastion "v1=sshsig:$(PUB z):file"
signed v1 "allow via bastion: bastion itself"
attack hostile "vb=bind:$HK_BASTION:sid-b:fwd" "v2=sshsig:$(PUB z):file"
signed vb "hostile adds a forwarding binding for bastion"
refused v2 "allow via bastion: hostile claiming bastion after its own binding"
attack hostile "v3=sshsig:$(PUB z):file"
is "$(got v3)" "$(is_keyward && echo refused || echo ok)" "allow via bastion: hostile without the claim"
load "deny key $ZFP origin forwarded via $BASTIONFP"
attack hostile "dvb=bind:$HK_BASTION:sid-b:fwd" "dv=sshsig:$(PUB z):file"
refused dv "deny via bastion: hostile claiming bastion"
attack hostile "dv2=sshsig:$(PUB z):file"
signed dv2 "deny via bastion: hostile without the claim"
attack bastion "dv3=sshsig:$(PUB z):file"
refused dv3 "deny via bastion: bastion itself"

# ---------------------------------------------------------------- example 3, 4
load "deny key $(fp "$(PUB y)") origin forwarded"
attack hostile $(everything fwd y)
for n in fwd-ns-git fwd-ns-file fwd-other fwd-plain fwd-hb fwd-afterbind; do
	refused "$n" "deny Y origin forwarded: hostile's $n"
done
login y prod
ok $? "deny Y origin forwarded: the user's own login with Y"

load "deny    origin forwarded via *,!$BASTIONFP" "deny    caller /usr/bin/python3*" \
	"confirm remember=1h key comment prod* caller /usr/bin/ssh" "deny    key comment prod*" \
	"confirm purpose login user root"
attack hostile "w1=bind:$HK_BASTION:sid-b:fwd" "w2=sshsig:$(PUB z):file"
refused w2 "whole file: hostile claiming bastion after its own binding"
echo local >"$T/askpass.mode"   # yes to the user's own root logins, no to forwarded
SEEN=$(prompts)
attack bastion $(everything wp prod)
for n in wp-ns-file wp-other wp-plain wp-afterbind; do
	refused "$n" "whole file: bastion's $n with the prod key"
done
asked 1 "... refused unasked (one prompt: the user's own root login to bastion)"
SEEN=$(prompts)
attack bastion "wz=sshsig:$(PUB z):file" "wr=hlogin:$(PUB z):root:sid-prod:$T/prod/host_ed25519.pub"
signed wz "whole file: bastion's SSHSIG with z (not a python caller: the relay is ssh)"
refused wr "whole file: bastion's unverified root login (confirm, the user says no)"
asked 2 "... asked: the user's own root login to bastion and the server's unverified login"
if is_keyward; then
	contains "$(last_prompt)" "Rules take it as a login by an unknown user to an unknown host" \
		"the prompt says the login is taken as by an unknown user to an unknown host"
else
	skip "not keyward: prompt"
fi

done_testing
