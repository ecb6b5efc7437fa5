#!/bin/bash
# A sign request's data is parsed once: policy decides its
# purpose on arrival (policy/purpose.c, purpose_decide) and every decider
# reads what it kept. Read from the sources: the parsers of a sign
# request's data are called from purpose.c alone, and purpose_decide from
# one place, the sign request's arrival (policy/sign.c). A second call
# site added anywhere in the product fails here. keyward only.
. "$(dirname "$0")/lib.sh"

NTESTS=4
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi

# calls NAME: "file:line" of every call of NAME( in the product's C files,
# not its definition (a line that starts with the name) nor a comment line.
calls() {
	(cd "$REPO" && grep -n "\b$1(" -- */*.c */*/*.c 2>/dev/null) |
		grep -v '^tests/' | grep -v ":$1(" |
		grep -Ev ':[0-9]+:[[:space:]]*(/?\*|//)' | cut -d: -f1,2
}

for f in userauth_parse sshsig_parse; do
	got=$(calls $f | cut -d: -f1 | sort -u | tr '\n' ' ')
	is "$got" "policy/purpose.c " "$f is called from policy/purpose.c alone"
done
got=$(calls purpose_decide)
diag "purpose_decide called at: $got"
is "$(printf '%s\n' "$got" | grep -c .)" 1 "purpose_decide is called from one place"
like "$got" '^policy/sign\.c:' "that place is the sign request's arrival, policy/sign.c"

done_testing
