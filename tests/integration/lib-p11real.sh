# shellcheck shell=bash
# tests/integration/lib-p11real.sh - the PKCS#11 modules Debian ships, for
# the 21N-p11-real-*.t tests: tpm2-pkcs11 on a software TPM,
# p11-kit-proxy, OpenSC and ykcs11 with a private pcscd. Source it after
# lib.sh and lib-p11.sh (p11_askpass, P11_PIN). Each function skips
# (never passes) what it cannot set up: it returns 1 with $P11R_WHY set.
#
#   p11r_module NAME     the path of an installed module (a symlink a user
#                        would give ssh-add -s), or "" and $P11R_WHY
#   p11r_allow PATH      the -P pattern allowing PATH's realpath
#   p11r_port            a free TCP port on 127.0.0.1
#   p11r_swtpm DIR       swtpm on loopback (state in DIR), a tpm2-pkcs11
#                        store in DIR/store (tpm2_ptool init), a token
#                        "kwtpm" (SO PIN 12345678, user PIN $P11_PIN) with
#                        an ECDSA P-256 key "tpm-p256" and an RSA-2048 key
#                        "tpm-rsa2048" made on the TPM; exports
#                        TPM2_PKCS11_STORE and TPM2_PKCS11_TCTI
#                        (swtpm:port=N) for the agent
#   p11r_pcscd DIR       a private pcscd whose socket is DIR/pcscd.comm: in
#                        a private mount and network namespace DIR is
#                        bound over
#                        /run/pcscd (pcscd's socket path is fixed), so the
#                        socket is there whether or not a system pcscd
#                        runs; exports PCSCLITE_CSOCK_NAME (libpcsclite's
#                        own variable) for the agent and the modules
#   p11r_pubs MODULE PREFIX  each public key of the module's tokens
#                        (ssh-keygen -D), as $T/keys/PREFIX<n>.pub; sets
#                        P11R_PUBS (the names)
#   p11r_vcard DIR [iso7816|piv]
#                        a private pcscd (as p11r_pcscd) whose one reader
#                        is vsmartcard's vpcd, with a card inserted:
#                        iso7816 (default) is vicc's ISO 7816 card (no
#                        application on it); piv is pivcard.py, a PIV
#                        card answering as a YubiKey 5, with an ECDSA
#                        P-256 key in slot 9A (certificate DIR/piv.der,
#                        PIN $P11_PIN) and the reader named "Yubico
#                        YubiKey" for ykcs11. pcscd and the card run in a
#                        private mount and network namespace, so vpcd's
#                        fixed port (35963, which it binds on every
#                        address) exists only on that namespace's
#                        loopback; logs in DIR/pcscd.log, DIR/card.log,
#                        the card's pid in DIR/card.pid
#   p11r_no_filter_stop  the agent's log ($T/agent.log) holds no line of a
#                        process stopped by its filter and no SIGSYS death
#   p11r_allow_mods NAME...  P11_ALLOW set to allow each installed module
#                        of NAME... (a pattern that allows nothing if none)
#   p11r_mods_agent NAME...  a key file $T/keys/plain made, p11_askpass,
#                        and the agent started in the foreground
#                        (p11_agent_fg) allowing the installed modules of
#                        NAME... (p11r_allow_mods)
#   p11r_add_refused NAME MODULE WHAT  2 tests: ssh-add -s MODULE (NAME)
#                        is refused ("NAME: WHAT: ...") and says it could
#                        not add the card
#   p11r_no_token NAME MODULE  4 tests, after MODULE (NAME) added no key:
#                        the agent still serves (no identities);
#                        keyward-pkcs11 was not stopped by its filter, did
#                        not die, and the log says in one line that no
#                        token is present (skips beside ssh-agent)
#   p11r_key_file_after WHAT  2 tests: a key file ($T/keys/plain, made by
#                        the caller) is added and listed after WHAT
#   p11r_piv NAME        the test of 21N-p11-real-piv-*.t with the module
#                        NAME: pivcard.py's PIV card (p11r_vcard DIR piv),
#                        its key read by ssh-keygen -D, p11r_scenario, and
#                        the card's own signatures in its log

P11R_WHY=""

p11r_module() {
	local m
	for m in "/usr/lib/x86_64-linux-gnu/pkcs11/$1" "/usr/lib/x86_64-linux-gnu/$1" \
		"/usr/lib/$1" "/usr/lib/pkcs11/$1"; do
		if [ -e "$m" ]; then printf '%s' "$m"; return 0; fi
	done
	P11R_WHY="$1 is not installed"
	return 1
}

p11r_allow() { printf '%s/*' "$(dirname "$(realpath "$1")")"; }

p11r_port() {
	local p tries=0
	while [ $tries -lt 50 ]; do
		p=$((20000 + RANDOM % 20000))
		_port_in_use "$p" || _port_in_use $((p + 1)) || { echo "$p"; return 0; }
		tries=$((tries + 1))
	done
	return 1
}

p11r_swtpm() {
	local dir=$1 port mod i
	for c in swtpm tpm2_ptool tpm2_flushcontext pkcs11-tool; do
		command -v "$c" >/dev/null || { P11R_WHY="$c missing (swtpm swtpm-tools tpm2-tools libtpm2-pkcs11-tools opensc)"; return 1; }
	done
	mod=$(p11r_module libtpm2_pkcs11.so) || return 1
	mkdir -p "$dir/state" "$dir/store" && chmod 700 "$dir" "$dir/store" || return 1
	port=$(p11r_port) || { P11R_WHY="no free port"; return 1; }
	swtpm socket --tpm2 --tpmstate "dir=$dir/state" \
		--server "type=tcp,port=$port,bindaddr=127.0.0.1" \
		--ctrl "type=tcp,port=$((port + 1)),bindaddr=127.0.0.1" \
		--flags startup-clear >"$dir/swtpm.log" 2>&1 &
	EXTRA_PIDS+=("$!")
	poll_until 10 _port_in_use "$port" || { diag_file "$dir/swtpm.log"; P11R_WHY="swtpm did not start"; return 1; }
	export TPM2_PKCS11_STORE=$dir/store TPM2_PKCS11_TCTI=swtpm:port=$port
	export TPM2TOOLS_TCTI=$TPM2_PKCS11_TCTI
	{
		tpm2_ptool init &&
		# tpm2-tools leaves its transient objects loaded (no resource
		# manager on swtpm): flushed, or the next command runs out
		tpm2_flushcontext -t &&
		pkcs11-tool --module "$mod" --init-token --label kwtpm --so-pin 12345678 &&
		pkcs11-tool --module "$mod" --token-label kwtpm --login --login-type so \
			--so-pin 12345678 --init-pin --pin "$P11_PIN" &&
		pkcs11-tool --module "$mod" --token-label kwtpm --login --pin "$P11_PIN" \
			--keypairgen --key-type EC:prime256v1 --label tpm-p256 --id 01 &&
		pkcs11-tool --module "$mod" --token-label kwtpm --login --pin "$P11_PIN" \
			--keypairgen --key-type rsa:2048 --label tpm-rsa2048 --id 02
	} >"$dir/init.log" 2>&1 || { diag_file "$dir/init.log"; P11R_WHY="cannot make the TPM token"; return 1; }
	return 0
}

p11r_pcscd() {
	local dir=$1 pid
	command -v pcscd >/dev/null || { P11R_WHY="pcscd missing (apt-get install pcscd)"; return 1; }
	command -v unshare >/dev/null || { P11R_WHY="unshare missing"; return 1; }
	mkdir -p "$dir" || return 1
	# a private network namespace too: a reader driver of the system's
	# reader.conf.d may listen on TCP (vsmartcard's vpcd binds port
	# 35963 on every address)
	unshare -mn sh -c 'mount --make-rprivate / && mkdir -p /run/pcscd &&
		mount --bind "$1" /run/pcscd && exec pcscd --foreground --debug' sh "$dir" \
		>"$dir/pcscd.log" 2>&1 &
	pid=$!
	EXTRA_PIDS+=("$pid")
	poll_until 10 test -S "$dir/pcscd.comm" ||
		{ diag_file "$dir/pcscd.log"; P11R_WHY="private pcscd did not start (mount namespace?)"; return 1; }
	export PCSCLITE_CSOCK_NAME=$dir/pcscd.comm
}

p11r_vcard() {
	local dir=$1 card=${2:-iso7816} c lib py cryptodome name="Virtual PCD" cmd
	for c in pcscd unshare ip; do
		command -v "$c" >/dev/null ||
			{ P11R_WHY="$c missing (pcscd util-linux iproute2)"; return 1; }
	done
	for lib in /usr/lib/pcsc/drivers/serial/libifdvpcd.so /usr/lib/pcsc/drivers/serial/libifdvpcd.so.*; do
		[ -e "$lib" ] && break
	done
	[ -e "$lib" ] || { P11R_WHY="vpcd missing (vsmartcard-vpcd)"; return 1; }
	mkdir -p "$dir/conf" "$dir/py" || return 1
	if [ "$card" = piv ]; then
		command -v openssl >/dev/null || { P11R_WHY="openssl missing"; return 1; }
		/usr/bin/python3 -c 'import cryptography' 2>/dev/null ||
			{ P11R_WHY="python3-cryptography missing"; return 1; }
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
			-keyout "$dir/piv.key" -out "$dir/piv.der" -outform DER \
			-subj /CN=kwpiv -days 3650 >"$dir/openssl.log" 2>&1 ||
			{ diag_file "$dir/openssl.log"; P11R_WHY="openssl cannot make the card's key"; return 1; }
		# The card is part of the tree: missing, it is a fault, not a skip.
		[ -f "$REPO/tests/p11/pivcard.py" ] || bail "tests/p11/pivcard.py is not there"
		# ykcs11 only opens readers named like a YubiKey's
		name="Yubico YubiKey"
		cmd="/usr/bin/python3 $REPO/tests/p11/pivcard.py 35963 $dir/piv.key $dir/piv.der $P11_PIN"
	else
		command -v vicc >/dev/null || { P11R_WHY="vicc missing (vsmartcard-vpicc)"; return 1; }
		# Debian 12's vicc imports the module "virtualsmartcard" from a
		# directory not on python3's path and PyCrypto's "Crypto", which
		# Debian ships as pycryptodome's "Cryptodome": both given by
		# path (to vicc's own interpreter, not a python3 first in PATH)
		py=$(sed -n '1s/^#! *//p' "$(command -v vicc)")
		cryptodome=$($py -c 'import Cryptodome, os; print(os.path.dirname(Cryptodome.__file__))' 2>/dev/null) ||
			{ P11R_WHY="pycryptodome missing (python3-pycryptodome)"; return 1; }
		ln -sfn "$cryptodome" "$dir/py/Crypto"
		cmd="env PYTHONPATH=$dir/py:/usr/lib/python3/site-packages/virtualsmartcard vicc -t iso7816 -H 127.0.0.1 -P 35963 -v"
	fi
	printf '%s\n' "FRIENDLYNAME \"$name\"" 'DEVICENAME /dev/null:0x8C7B' \
		"LIBPATH $lib" 'CHANNELID 0x8C7B' >"$dir/conf/vpcd"
	# the card gives up at once if vpcd is not listening yet: started
	# once /proc/net/tcp of the namespace shows port 0x8C7B listening
	unshare -mn sh -c 'mount --make-rprivate / && mkdir -p /run/pcscd &&
		mount --bind "$1" /run/pcscd && ip link set lo up || exit 1
		# vpcd writes each APDU in two pieces and vicc reads them
		# apart: without quick ACKs on loopback each APDU waits for a
		# delayed ACK (40 ms; OpenSC probing a card sends hundreds)
		ip route replace local 127.0.0.1 dev lo proto kernel scope host \
			src 127.0.0.1 table local quickack 1 || exit 1
		pcscd --foreground --debug --config "$1/conf" >"$1/pcscd.log" 2>&1 &
		i=0
		until grep -q ":8C7B 00000000:0000 0A" /proc/net/tcp; do
			i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1
		done
		$2 >"$1/card.log" 2>&1 &
		echo $! >"$1/card.pid"
		wait' sh "$dir" "$cmd" &
	EXTRA_PIDS+=("$!")
	poll_until 10 grep -q "Card inserted into $name" "$dir/pcscd.log" ||
		{ diag_file "$dir/pcscd.log"; diag_file "$dir/card.log"; P11R_WHY="the virtual card did not reach the private pcscd"; return 1; }
	export PCSCLITE_CSOCK_NAME=$dir/pcscd.comm
}

p11r_pubs() {
	local mod=$1 prefix=$2 i=0 line
	P11R_PUBS=""
	while read -r line; do
		[ -n "$line" ] || continue
		i=$((i + 1))
		printf '%s %s%d\n' "$(printf '%s' "$line" | cut -d' ' -f1,2)" "$prefix" "$i" \
			>"$T/keys/$prefix$i.pub"
		P11R_PUBS="$P11R_PUBS $prefix$i"
	done < <(ssh-keygen -D "$mod" 2>/dev/null)
	[ -n "$P11R_PUBS" ]
}

p11r_no_filter_stop() {
	! grep -qE "stopped by its filter|killed by signal 31" "$T/agent.log" 2>/dev/null
}

#   p11r_scenario MODULE NAME...
#                        the agent under test, in the foreground with
#                        -P p11r_allow(MODULE), driven as a user would:
#                        ssh-add -s with a wrong PIN ($P11R_WRONG_PIN,
#                        default 0000: refused, nothing
#                        listed), with the right one (added), -l and -L
#                        list each NAME (keys from p11r_pubs), ssh-keygen
#                        -Y sign with each verifies, a login to sshd
#                        "hostA" (started by the caller) with each, -e
#                        (nothing listed), -s again (listed again); for
#                        keyward its helper is sandboxed and nothing was
#                        stopped by a filter. p11r_scenario_count NKEYS
#                        tests (keyward-only ones skipped for others);
#                        p11_askpass must have been called (PIN answers).
p11r_scenario_count() { echo $((16 + 6 * $1)); }
p11r_scenario() {
	local mod=$1 k pid st L; shift
	P11_ALLOW=$(p11r_allow "$mod")
	p11_agent_fg
	echo "${P11R_WRONG_PIN:-0000}" >"$T/pin"
	p11_add "$mod"
	[ "$RC" != 0 ]
	ok $? "$(basename "$mod"): ssh-add -s with a wrong PIN is refused"
	agent_empty
	ok $? "$(basename "$mod"): after the wrong PIN nothing is listed"
	if is_keyward; then
		contains "$(cat "$T/agent.log")" "refused add: PKCS#11 provider $(realpath "$mod"): wrong PIN (CKR_PIN_INCORRECT)" \
			"$(basename "$mod"): keyward's log says why, in one line: wrong PIN"
	else
		skip "keyward's log only"
	fi
	echo "$P11_PIN" >"$T/pin"
	p11_add "$mod"
	ok $RC "$(basename "$mod"): ssh-add -s with the PIN (askpass) adds the token's keys"
	contains "$ERR" "Card added: $mod" "$(basename "$mod"): ssh-add says the card was added"
	run ssh-add -L
	L=$OUT
	for k in "$@"; do
		contains "$L" "$(cut -d' ' -f1,2 "$(p11_pub "$k")")" "$k: ssh-add -L prints its public key"
		p11_listed "$k"
		ok $? "$k: ssh-add -l lists it"
		printf 'signed by %s\n' "$k" >"$T/msg.$k"
		rm -f "$T/msg.$k.sig"
		run ssh-keygen -Y sign -f "$(p11_pub "$k")" -n file "$T/msg.$k"
		ok $RC "$k: ssh-keygen -Y sign through the agent"
		printf 'kw@test %s\n' "$(cut -d' ' -f1,2 "$(p11_pub "$k")")" >"$T/allowed.$k"
		run ssh-keygen -Y verify -f "$T/allowed.$k" -I kw@test -n file -s "$T/msg.$k.sig" <"$T/msg.$k"
		ok $RC "$k: the signature verifies"
		run ssh_as hostA "$(p11_pub "$k")" -- 'echo logged-in'
		is "$RC:$OUT" "0:logged-in" "$k: login to sshd through the agent"
		sshd_accepted hostA "$(p11_pub "$k")"
		ok $? "$k: sshd accepted that key"
	done
	if is_keyward; then
		pid=$(pgrep -f "keyward-pkcs11 .*$(realpath "$mod")" | head -n 1)
		st=$(cat "/proc/${pid:-x}/status" 2>/dev/null)
		like "$st" $'Seccomp:\t2' "keyward-pkcs11 for $(basename "$mod") runs under its filter"
		like "$st" $'NoNewPrivs:\t1' "... with no_new_privs"
		like "$st" $'CapEff:\t0000000000000000' "... and no capability"
		run "$KEYWARD_BUILD/keyward-ctl"
		is "$(printf '%s\n' "$OUT" | grep -cxF "    provider: $(realpath "$mod")")" "$#" \
			"keyward-ctl shows the provider of each of the $# keys"
	else
		skip_n 4 "keyward's helper only"
	fi
	p11_remove "$mod"
	ok $RC "$(basename "$mod"): ssh-add -e removes the card"
	agent_empty
	ok $? "$(basename "$mod"): nothing listed after -e"
	p11_add "$mod"
	ok $RC "$(basename "$mod"): ssh-add -s again adds it again"
	st=0
	for k in "$@"; do p11_listed "$k" || st=1; done
	ok $st "$(basename "$mod"): every key listed again"
	if is_keyward; then
		p11r_no_filter_stop
		ok $? "no process of the agent was stopped by its filter" || diag_file "$T/agent.log"
	else
		skip "keyward's log only"
	fi
	p11_remove "$mod"
	ok $RC "$(basename "$mod"): ssh-add -e at the end"
}

p11r_allow_mods() {
	local m mod
	P11_ALLOW=""
	for m in "$@"; do
		mod=$(p11r_module "$m") && P11_ALLOW="$P11_ALLOW${P11_ALLOW:+,}$(p11r_allow "$mod")"
	done
	[ -n "$P11_ALLOW" ] || P11_ALLOW=/nonexistent/*
}

p11r_mods_agent() {
	gen_key plain ed25519 >/dev/null || bail "ssh-keygen failed"
	p11_askpass
	p11r_allow_mods "$@"
	p11_agent_fg
}

p11r_add_refused() {
	p11_add "$2"
	[ "$RC" != 0 ]
	ok $? "$1: $3: ssh-add -s is refused"
	contains "$ERR" "Could not add card" "$1: ssh-add says it could not add the card"
}

p11r_no_token() {
	run ssh-add -l
	is "$RC" 1 "$1: the agent still serves (no identities)"
	if is_keyward; then
		p11r_no_filter_stop
		ok $? "$1: keyward-pkcs11 was not stopped by its filter" || diag_file "$T/agent.log"
		unlike "$(cat "$T/agent.log")" "keyward-pkcs11 .*(ended|killed)" "$1: nor did it die"
		contains "$(cat "$T/agent.log")" "provider $(realpath "$2") lists no new key (no token present" \
			"$1: keyward's log says why, in one line"
	else
		skip_n 3 "keyward's log only"
	fi
}

p11r_key_file_after() {
	run ssh-add "$T/keys/plain" </dev/null
	ok $RC "after $1: a key file is added"
	agent_has "$T/keys/plain.pub"
	ok $? "and listed"
}

p11r_piv() {
	local n
	n=$((2 + $(p11r_scenario_count 1)))
	mkdir -p "$T/keys"
	if ! MOD=$(p11r_module "$1") || ! p11r_vcard "$T/pcsc" piv; then
		skip_n "$n" "$P11R_WHY"
		return 0
	fi
	p11r_pubs "$MOD" piv- || bail "ssh-keygen -D $MOD lists no key"
	is "$(cut -d' ' -f1,2 "$T/keys/piv-1.pub")" \
		"$(openssl x509 -inform DER -in "$T/pcsc/piv.der" -pubkey -noout | ssh-keygen -i -m PKCS8 -f /dev/stdin)" \
		"ssh-keygen -D reads the card's key (the one of its 9A certificate)"
	cat "$T"/keys/*.pub >>"$T/authorized_keys"
	start_sshd hostA || bail "sshd did not start"
	p11_askpass
	p11r_scenario "$MOD" $P11R_PUBS
	# the signatures were made by the card: GENERAL AUTHENTICATE with the
	# P-256 key of slot 9A (one for -Y sign, one for the login)
	[ "$(grep -c '^> [01]087119a' "$T/pcsc/card.log")" -ge 2 ]
	ok $? "the card signed (GENERAL AUTHENTICATE, slot 9A)" || diag_file "$T/pcsc/card.log"
}
