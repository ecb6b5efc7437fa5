#!/bin/bash
# Untrusted text: a key whose comment holds bytes that
# are not UTF-8, an ESC [ sequence, a C1 control and bidi controls, added
# by the real ssh-add, and a signature (rawclient.pl) whose user name holds
# the same kind of bytes. The agent's log (-d) holds no control, C1, bidi
# or invalid byte, for ssh-agent too; keyward's audit trail parses with jq
# line by line and carries each string escaped; keyward-ctl's text holds
# none of them and its --json parses. (ipc/text.h says the two forms.)
. "$(dirname "$0")/lib.sh"

RAW=$RAWCLIENT
A=$T/audit.log
CTL=${KEYWARD_BUILD:-$LIBDIR/../../build}/keyward-ctl
comment=$'evil\xff\xc0\xaf \e[31mred\e[0m \xc2\x9b1m \xe2\x80\xaetxt\xe2\x81\xa6 end'
user=$'medea\xed\xa0\x80\e[2J\xc2\x85\xe2\x80\xae'
# What each form must show (ipc/text.h).
comment_term='evil\xff\xc0\xaf \x1b[31mred\x1b[0m \xc2\x9b1m \xe2\x80\xaetxt\xe2\x81\xa6 end'
comment_json='evil\\xff\\xc0\\xaf \u001b[31mred\u001b[0m \u009b1m \u202etxt\u2066 end'
user_json='medea\\xed\\xa0\\x80\u001b[2J\u0085\u202e'

# clean FILE: 0 when FILE is UTF-8 with no control but newline, no C1 and
# no bidi control; else says which rule it broke. CR LF counts as a line
# end: ssh-agent -d ends its lines so.
cat >"$T/clean.pl" <<'EOF'
use strict; use warnings; use Encode ();
local $/; my $d = <>; $d = '' unless defined $d; $d =~ s/\r\n/\n/g;
if ($d =~ /([\x00-\x09\x0b-\x1f\x7f])/) { printf "control byte 0x%02x\n", ord $1; exit 1 }
if ($d =~ /\xc2[\x80-\x9f]/) { print "a C1 control\n"; exit 1 }
if ($d =~ /\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\xd8\x9c/) { print "a bidi control\n"; exit 1 }
eval { Encode::decode('UTF-8', $d, Encode::FB_CROAK); 1 } or do { print "not UTF-8\n"; exit 1 };
exit 0;
EOF
clean() { run perl "$T/clean.pl" "$1"; }
hexs() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }
strh() { printf '%08x%s' $((${#1} / 2)) "$1"; }     # an SSH string of hex bytes
str() { strh "$(hexs "$1")"; }

ssh-keygen -q -N '' -t ed25519 -C "$comment" -f "$T/keys/kC" </dev/null >/dev/null ||
	bail "ssh-keygen kC"
blob=$(cut -d' ' -f2 "$T/keys/kC.pub" | base64 -d | od -An -tx1 -v | tr -d ' \n')
clean "$T/keys/kC.pub"
is "$RC" 1 "the checker refuses the comment as it is (it is not vacuous): $OUT"

if is_keyward; then
	AGENT_FG_FLAG=-d start_agent_fg "$T/agent.sock" -O audit="$A" -O audit-sync=yes
else
	AGENT_FG_FLAG=-d start_agent_fg "$T/agent.sock"
fi
ok $? "agent started in the foreground with -d" || bail "agent did not start"

run ssh-add "$T/keys/kC"
ok "$RC" "ssh-add a key whose comment holds invalid UTF-8, ESC [, C1 and bidi"
run ssh-add -l
contains "$OUT" "$comment" "ssh-add -l gets the comment back byte for byte (the agent kept it)"

# A userauth request (RFC 4252 §7) as the data to sign, its user hostile.
data=$(strh "$(printf '%064x' 7)")32$(str "$user")$(str ssh-connection)$(str publickey)01$(str ssh-ed25519)$(strh "$blob")
run perl "$RAW" "$SSH_AUTH_SOCK" "0d$(strh "$blob")$(strh "$data")00000000"
like "$OUT" '^0e' "a signature over a login as that user: SSH_AGENT_SIGN_RESPONSE"

# --- the agent's log
poll_until 5 grep -q . "$T/agent.log"
clean "$T/agent.log"
is "$RC:$OUT" "0:" "the agent's log (-d): UTF-8, no control, no C1, no bidi control"

if ! is_keyward; then
	skip_n 9 "keyward only: its log lines, audit trail and keyward-ctl"
	stop_pid "$AGENT_FG_PID"
	done_testing
fi
contains "$(cat "$T/agent.log")" "\"$comment_term\"" \
	"keyward logs the comment in its terminal-safe form (\\xHH for each byte)"

# --- the audit trail
run jq -e . "$A"
ok "$RC" "every line of the audit trail is JSON (jq)"
is "$(wc -l <"$A" | tr -d ' ')" "$(jq -c . "$A" | wc -l | tr -d ' ')" "one object per line"
clean "$A"
is "$RC:$OUT" "0:" "the trail itself: UTF-8, no raw control, C1 or bidi control"
# the records as written (jq -c would print C1 and bidi raw again)
contains "$(grep '"event":"add"' "$A")" "\"comment\":\"$comment_json\"" \
	"the add record: invalid bytes as \\\\xHH, controls and bidi as \\u escapes"
contains "$(grep '"event":"sign"' "$A")" "\"user\":\"$user_json\"" \
	"the sign record: the user name escaped the same way"

# --- keyward-ctl
run "$CTL"
ok "$RC" "keyward-ctl lists the key"
printf '%s\n' "$OUT" >"$T/ctl.out"
clean "$T/ctl.out"
is "$RC:$OUT" "0:" "keyward-ctl's text: UTF-8, no control, no C1, no bidi control"
run "$CTL" --json
is "$(printf '%s\n' "$OUT" | jq -r '.[0].comment')" \
	$'evil\\xff\\xc0\\xaf \e[31mred\e[0m \xc2\x9b1m \xe2\x80\xaetxt\xe2\x81\xa6 end' \
	"keyward-ctl --json parses with jq; the comment decodes to itself, each invalid byte as the text \\xHH"

stop_pid "$AGENT_FG_PID"
done_testing
