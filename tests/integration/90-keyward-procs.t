#!/bin/bash
# keyward's process set (keyward only; every test skips for another agent):
# the monitor ($SSH_AGENT_PID, binary keyward) and its children
# keyward-policy, keyward-keyholder and keyward-peer, and policy's children
# keyward-broker, keyward-prompter, keyward-auditor and keyward-session (each a program of
# its own, exec'd by policy; keyward-session ends at once when there is
# no bus to watch, as here: 180-session-logind.t checks its sandbox
# while it watches), are each sandboxed (seccomp filter,
# no_new_privs, no capabilities); the monitor maps no
# libcrypto; keyward-policy links no signing or private-key code and
# keyward and keyward-ctl no policy object (nm); killing any one of
# monitor, policy, keyholder, one of the two reapers, the broker or the
# prompter takes the whole set down and removes the socket; killing keyward-peer, which reads what
# hostile processes write, does not: the agent serves on, callers
# unavailable.
. "$(dirname "$0")/lib.sh"

NTESTS=103
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi

exe_of() { # PID: basename of the executable (falls back to argv[0])
	local e
	e=$(readlink "/proc/$1/exe" 2>/dev/null) && { basename "${e% (deleted)}"; return; }
	e=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | head -n 1)
	[ -n "$e" ] && basename "$e"
}

# find_procs: sets MONITOR POLICY KEYHOLDER PEER REAPER (one of the two; empty
# when not found), policy's children BROKER PROMPTER AUDITOR (the last with
# an audit trail only) and ALL
# (the monitor and every descendant) for the agent in $SSH_AGENT_PID.
find_procs() {
	local c n
	MONITOR=${SSH_AGENT_PID:-} POLICY="" KEYHOLDER="" PEER="" REAPER=""
	BROKER="" PROMPTER="" AUDITOR="" SESSION=""
	for c in $(children "$MONITOR"); do
		n=$(exe_of "$c")
		case $n in
		keyward-policy) [ -z "$POLICY" ] && POLICY=$c ;;
		keyward-keyholder) [ -z "$KEYHOLDER" ] && KEYHOLDER=$c ;;
		keyward-peer) [ -z "$PEER" ] && PEER=$c ;;
		keyward) [ -z "$REAPER" ] && REAPER=$c ;;       # forked, not exec'd
		esac
	done
	for c in $(children "${POLICY:-0}"); do
		n=$(exe_of "$c")
		case $n in
		keyward-broker) [ -z "$BROKER" ] && BROKER=$c ;;
		keyward-prompter) [ -z "$PROMPTER" ] && PROMPTER=$c ;;
		keyward-auditor) [ -z "$AUDITOR" ] && AUDITOR=$c ;;
		keyward-session) [ -z "$SESSION" ] && SESSION=$c ;;
		esac
	done
	ALL="$MONITOR $(descendants "$MONITOR" | tr '\n' ' ')"
}

status_field() { # PID FIELD
	awk -v f="$2:" '$1 == f {print $2; exit}' "/proc/$1/status" 2>/dev/null
}

# ------------------------------------------------------------ binary
run ldd "$AGENT"
unlike "$OUT" 'libcrypto' "ldd $AGENT lists no libcrypto"

# Policy sees public keys only: it links no signing and no private-key
# reading (keyholder/privkey.c, keys/sshkey_private.c), and calls none of
# libcrypto's (doc/threat-model.md). nm lists the defined and the imported
# symbols; that it lists sig_verify shows it could read the binary.
BIN=$(dirname "$AGENT")
PSYMS=$(nm "$BIN/keyward-policy" 2>&1; nm -D "$BIN/keyward-policy" 2>&1)
like "$PSYMS" ' T sig_verify$' "nm keyward-policy: its symbols are readable (sig_verify)"
unlike "$PSYMS" ' (sig_make|pkey_private|pkey_private_trusted|key_parse_private|key_write_private_plain)$' \
	"nm keyward-policy: no sig_make, pkey_private*, key_parse_private, key_write_private_plain"
unlike "$PSYMS" ' U (EVP_DigestSign|EVP_PKEY_sign|PEM_read|d2i_PrivateKey|d2i_AutoPrivateKey|OSSL_DECODER)' \
	"nm keyward-policy: imports no EVP_DigestSign*, EVP_PKEY_sign*, PEM_read*, d2i_*PrivateKey, OSSL_DECODER*"
# Policy never builds libcrypto's DRBG (about 250 KiB of heap): the lock's
# salt comes from getrandom(2).
unlike "$PSYMS" ' U RAND_' "nm keyward-policy: imports no RAND_* (no DRBG in policy)"
# ... and the keyholder does have them, so the patterns can match.
KSYMS=$(nm "$BIN/keyward-keyholder" 2>&1)
like "$KSYMS" ' T sig_make$' "nm keyward-keyholder: sig_make is there (the patterns above can match)"
like "$(nm -D "$BIN/keyward-keyholder" 2>&1)" ' U RAND_bytes' "nm -D keyward-keyholder: RAND_bytes is imported (the RAND_ pattern can match)"

# No policy object in keyward or keyward-ctl: no global symbol defined by
# an object of a policy/*.c (but main) is defined in either.
OBJ=$KEYWARD_BUILD/obj/policy
if [ -f "$OBJ/main.o" ]; then
	POLSYMS=$(for c in "$REPO"/policy/*.c; do
		nm --defined-only -g "$OBJ/$(basename "${c%.c}").o"
	done 2>&1 | awk 'NF == 3 && $3 != "main" {print $3}' | sort -u)
	like "$POLSYMS" '^h_add$' "policy objects' symbols read (h_add among them)"
	for prog in keyward keyward-ctl; do
		GOT=$(nm --defined-only -g "$BIN/$prog" 2>&1 | awk 'NF == 3 {print $3}' |
		    sort -u | comm -12 - <(printf '%s\n' "$POLSYMS"))
		is "$GOT" "" "nm $prog: defines no symbol of a policy object"
	done
else
	skip_n 3 "no policy objects in $OBJ"
fi

# ML-DSA-44: key generation and signing (crypto/mldsa44_sign.c,
# crypto/composite_sign.c) are the keyholder's; policy links verification
# (crypto/mldsa44.c, composite.c) and nothing of those two files, and the
# monitor no object of crypto/ at all. The names are read from the
# objects themselves, so that a function added there is checked too; the
# keyholder must define every one (the lists are right and can match).
# By name as well, for a build whose objects are elsewhere.
like "$PSYMS" ' T mldsa44_verify$' "nm keyward-policy: ML-DSA-44 verification is there (mldsa44_verify)"
is "$(printf '%s\n' "$PSYMS" | grep -E ' [TtDdBbRr] (mldsa44_keygen|mldsa44_sign[a-z_]*|composite_sign|composite_public|sign_core|rej_bounded_poly|expand_mask|sk_decode|sk_encode|power2round)$')" "" \
	"nm keyward-policy: no ML-DSA-44 key generation or signing by name"
MSYMS=$(nm "$BIN/keyward" 2>&1)
like "$MSYMS" ' T main$' "nm keyward: its symbols are readable (main)"
is "$(printf '%s\n' "$MSYMS" | grep -E ' [TtDdBbRr] [a-z_]*(mldsa|composite_|keccak|sig_verify)')" "" \
	"nm keyward: no ML-DSA, Keccak, composite or signature code by name"
COBJ=$KEYWARD_BUILD/obj/crypto
if [ -f "$COBJ/mldsa44_sign.o" ]; then
	gsyms() { nm --defined-only -g "$@" 2>&1 | awk 'NF == 3 {print $3}' | sort -u; }
	SIGNSYMS=$(gsyms "$COBJ/mldsa44_sign.o" "$COBJ/composite_sign.o")
	like "$SIGNSYMS" '^mldsa44_keygen$' "the signing objects' symbols read (mldsa44_keygen among them)"
	like "$SIGNSYMS" '^composite_sign$' "... and composite_sign"
	is "$(gsyms "$BIN/keyward-keyholder" | comm -13 - <(printf '%s\n' "$SIGNSYMS"))" "" \
		"nm keyward-keyholder: defines every symbol of the signing objects"
	is "$(gsyms "$BIN/keyward-policy" | comm -12 - <(printf '%s\n' "$SIGNSYMS"))" "" \
		"nm keyward-policy: defines no symbol of crypto/mldsa44_sign.o or composite_sign.o"
	CRYSYMS=$(gsyms "$COBJ"/*.o)
	like "$CRYSYMS" '^mldsa_ntt$' "crypto objects' symbols read (mldsa_ntt among them)"
	is "$(gsyms "$BIN/keyward" | comm -12 - <(printf '%s\n' "$CRYSYMS"))" "" \
		"nm keyward: defines no symbol of any crypto/ object"
else
	skip_n 6 "no crypto objects in $COBJ"
fi

# ------------------------------------------------------------ sandbox state
gen_key k ed25519 || bail "ssh-keygen k"
# with an audit trail, so that policy starts all of its helpers; with no
# bus at all, whatever the machine has
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/no-system-bus \
	DBUS_SESSION_BUS_ADDRESS=unix:path=$T/no-session-bus \
	start_agent -O audit="$T/audit.log"
ok $? "keyward started" || bail "keyward did not start"
ssh-add "$T/keys/k" 2>/dev/null
watcher_ended() { find_procs; [ -z "$SESSION" ]; }
poll_until 5 watcher_ended
diag "monitor=$MONITOR policy=$POLICY keyholder=$KEYHOLDER peer=$PEER broker=$BROKER prompter=$PROMPTER auditor=$AUDITOR all=$ALL"
is "$(exe_of "$MONITOR")" keyward "SSH_AGENT_PID $MONITOR runs the keyward binary"
like "$POLICY" '^[0-9]+$' "a keyward-policy child of the monitor exists"
like "$KEYHOLDER" '^[0-9]+$' "a keyward-keyholder child of the monitor exists"
like "$PEER" '^[0-9]+$' "a keyward-peer child of the monitor exists"
# policy's helpers are programs of their own (exec'd, not forks of
# policy): each one's executable is its own binary
like "$BROKER" '^[0-9]+$' "a keyward-broker child of policy exists"
like "$PROMPTER" '^[0-9]+$' "a keyward-prompter child of policy exists"
like "$AUDITOR" '^[0-9]+$' "a keyward-auditor child of policy exists"
# no system bus and no session bus here: the session watcher told policy
# so and ended, and the kernel reaped it (no zombie left under policy)
is "$SESSION" "" "no keyward-session child of policy (no bus: it ended)"
is "$(children "${POLICY:-0}" | wc -l)" 3 "policy has exactly those three children"
is "$(ps -o stat= --ppid "${POLICY:-0}" | grep -c '^Z')" 0 \
	"no zombie child of policy (the ended watcher was reaped)"

for role in MONITOR POLICY KEYHOLDER PEER BROKER PROMPTER AUDITOR; do
	pid=${!role}
	is "$(status_field "${pid:-0}" Seccomp)" 2 "$role ($pid): Seccomp: 2 (filter mode)"
	is "$(status_field "${pid:-0}" NoNewPrivs)" 1 "$role ($pid): NoNewPrivs: 1"
	for cap in CapEff CapPrm CapInh CapBnd CapAmb; do
		is "$(status_field "${pid:-0}" $cap)" 0000000000000000 "$role ($pid): $cap all zero"
	done
done

# any further helper (e.g. the reapers) must be just as locked down
others="" bad=""
for p in $ALL; do
	case " $MONITOR $POLICY $KEYHOLDER $PEER $BROKER $PROMPTER $AUDITOR $SESSION " in *" $p "*) continue ;; esac
	others="$others $p"
	[ "$(status_field "$p" Seccomp)" = 2 ] && [ "$(status_field "$p" NoNewPrivs)" = 1 ] || bad="$bad $p"
	for cap in CapEff CapPrm CapInh CapBnd CapAmb; do
		[ "$(status_field "$p" $cap)" = 0000000000000000 ] || bad="$bad $p:$cap"
	done
done
is "${bad# }" "" "other processes of the tree ($(echo $others)) are sandboxed too"

maps=$(cat "/proc/${MONITOR:-0}/maps" 2>/dev/null)
like "$maps" 'r-xp' "monitor's /proc/PID/maps is readable (so the next check means something)"
unlike "$maps" 'libcrypto' "monitor maps no libcrypto"
grep -q libcrypto "/proc/${KEYHOLDER:-0}/maps" 2>/dev/null
ok $? "keyholder does map libcrypto (the maps check can see it)"
stop_agent

# ------------------------------------------------------------ fail closed
n=0
# A reaper too: the other one still removes the socket. And policy's
# broker and prompter: policy ends when either is gone, and so the agent.
for victim in MONITOR POLICY KEYHOLDER REAPER BROKER PROMPTER; do
	n=$((n + 1))
	sock=$T/kill$n.sock
	AGENT_SOCK=$sock start_agent
	ssh-add "$T/keys/k" 2>/dev/null
	find_procs
	pid=${!victim}
	like "$pid" '^[0-9]+$' "kill $victim: found it in a fresh keyward (all: $ALL)"
	[ -n "$pid" ] && kill -9 "$pid"
	all_gone() { local p; for p in $ALL; do pid_alive "$p" && return 1; done; return 0; }
	poll_until 10 all_gone
	ok $? "kill -9 $victim: no keyward process left within 10 s"
	poll_until 10 not test -e "$sock"
	ok $? "kill -9 $victim: socket removed"
	for p in $ALL; do pid_alive "$p" && { diag "still running: $p $(exe_of "$p")"; kill -9 "$p"; }; done
	unset SSH_AUTH_SOCK SSH_AGENT_PID
done

# ------------------------------------------------------------ the inspector
AGENT_SOCK=$T/peer.sock start_agent
ssh-add "$T/keys/k" 2>/dev/null
find_procs
like "$PEER" '^[0-9]+$' "kill PEER: found it in a fresh keyward"
[ -n "$PEER" ] && kill -9 "$PEER"
poll_until 10 not pid_alive "${PEER:-0}"
ok $? "kill -9 PEER: keyward-peer is gone"
run ssh-add -l
ok $RC "kill -9 PEER: the agent still serves (callers unavailable)"
stop_agent

[ "$TESTNUM" = "$NTESTS" ] || diag "test count $TESTNUM != NTESTS $NTESTS: fix NTESTS"
done_testing
