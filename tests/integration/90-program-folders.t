#!/bin/bash
# Every program is one folder, every library a folder, and no program's
# folder is linked into another program (issue 26). A program folder is
# one with a C file defining main (monitor/, policy/, ctl/, token/...);
# the others (ipc/, rules/, audit/, crypto/, seccomp/) are libraries.
#
# Read from the programs as built ($KEYWARD_BUILD, with -g): the DWARF
# compile units name every source file linked in, so each program must
# name exactly one program folder, its own. Then with nm: keyward (the
# monitor) and keyward-ctl define none of the global symbols of policy/'s
# objects, while keyward-policy does (the check can see them), and the
# rules language and the audit chain they need come from rules/ and
# audit/. keyward only: skipped for another agent.
. "$(dirname "$0")/lib.sh"

PROGS="keyward keyward-policy keyward-keyholder keyward-ctl keyward-sk keyward-pkcs11 keyward-peer"
NTESTS=$((2 * 7 + 8))
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
if ! command -v nm >/dev/null || ! command -v readelf >/dev/null; then
	skip_n $NTESTS "no nm or readelf (binutils)"
	done_testing
fi

# The program folders: a top-level folder with a C file defining main.
PFOLDERS=$(cd "$REPO" && grep -l '^main(' -- */*.c | cut -d/ -f1 | sort -u | tr '\n' ' ')
diag "program folders: $PFOLDERS"

# units PROG: the top-level folders of the sources linked into PROG.
units() {
	readelf --debug-dump=info --dwarf-depth=1 "$KEYWARD_BUILD/$1" 2>/dev/null |
		grep -A8 'DW_TAG_compile_unit' | grep 'DW_AT_name' |
		sed 's/.*: //' | grep -v '^/' | grep / | cut -d/ -f1 | sort -u
}

for p in $PROGS; do
	f=$(units "$p" | tr '\n' ' ')
	if [ -z "$f" ]; then
		skip_n 2 "$p: no debug information (stripped?)"
		continue
	fi
	diag "$p links: $f"
	mine=""
	for d in $f; do
		case " $PFOLDERS " in *" $d "*) mine="$mine $d" ;; esac
	done
	mine=${mine# }
	like "$mine" '^[a-z]+$' "$p links one program folder (${mine:-none})"
	case $p in
	keyward) own=monitor ;;
	keyward-sk | keyward-pkcs11) own=token ;;
	*) own=${p#keyward-} ;;
	esac
	is "$mine" "$own" "$p: that folder is its own, $own/"
done

# The global symbols policy/'s objects define (its archive and main),
# the compiler's own (__*) and main aside.
syms_of() { nm -g --defined-only "$@" 2>/dev/null | awk 'NF == 3 { print $3 }' |
	grep -v '^__' | grep -vx main | sort -u; }
defines() { nm --defined-only "$KEYWARD_BUILD/$1" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u; }

syms_of "$KEYWARD_BUILD/libkwpolicy.a" "$KEYWARD_BUILD/obj/policy/main.o" >"$T/policy.syms"
n=$(wc -l <"$T/policy.syms")
ok $(( n >= 50 ? 0 : 1 )) "policy/ defines $n global symbols (at least 50)"
for p in keyward-policy keyward keyward-ctl; do
	defines "$p" >"$T/$p.syms"
	comm -12 "$T/policy.syms" "$T/$p.syms" >"$T/$p.common"
done
c=$(wc -l <"$T/keyward-policy.common")
ok $(( c >= 50 ? 0 : 1 )) "keyward-policy defines $c of them: nm sees policy's objects"
for p in keyward keyward-ctl; do
	if [ -s "$T/$p.common" ]; then
		diag "$p defines policy symbols: $(head -n 20 "$T/$p.common" | tr '\n' ' ')"
	fi
	is "$(wc -l <"$T/$p.common")" 0 "$p defines no symbol of policy/"
done

# What they need of the rules language and the audit chain is theirs by
# rules/ and audit/, not by a copy.
grep -qx rules_parse "$T/keyward.syms"
ok $? "keyward has rules_parse (rules/)"
grep -qx rules_read_file "$T/keyward-ctl.syms" && grep -qx audit_verify "$T/keyward-ctl.syms"
ok $? "keyward-ctl has rules_read_file (rules/) and audit_verify (audit/)"
grep -qx match_list "$T/keyward-policy.syms" && ! grep -qx pattern_list_match "$T/keyward-policy.syms"
ok $? "keyward-policy matches option lists with rules/'s match_list, no matcher of its own"
! grep -qE '^(audit_verify|auditchain_hash)$' "$T/keyward.syms"
ok $? "keyward (the monitor) links no audit chain"

done_testing
