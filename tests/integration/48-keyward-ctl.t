#!/bin/bash
# keyward-ctl (inspectable constraints): against keys added by the
# real ssh-add with -t, -c and -h (host keys from real sshds), it lists what
# ssh-add -l lists, in the same order, with each key's lifetime, confirm
# flag and destination hops (fingerprints as ssh-keygen -l prints them);
# --json says the same to jq; a forwarded agent refuses; the exit statuses
# are ssh-add -l's. A fake agent then serves it replies that are refused,
# cut short or too long, and strings that need escaping.
#   kP  ed25519, no constraint (also the login key)
#   kT  ed25519, -t 600
#   kE  ecdsa-384, -c
#   kR  rsa-3072, no constraint
#   kD  ed25519, -h perseus -h "perseus>scylla"
#   kM  ed25519, -h "perseus>medea@scylla", scylla known by a CA only
#   kX  ed25519 with a user certificate, -t 600 (key and certificate)
#   kQ  ed25519, a comment with quotes and backslashes
# perseus has two host keys (ed25519, ecdsa), scylla one.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

NTESTS=113
if ! is_keyward; then
	skip_n $NTESTS "keyward-ctl asks keyward's own extension; $(basename "$AGENT") has none"
	done_testing
fi
CTL=$KEYWARD_BUILD/keyward-ctl
[ -x "$CTL" ] || bail "no $CTL (make)"
command -v jq >/dev/null || bail "jq is not installed (make deps)"

ctl() { run "$CTL" "$@"; }
# block FP: keyward-ctl's lines for the key with fingerprint FP, header
# first (from $OUT of a text listing)
block() {
	printf '%s\n' "$OUT" | awk -v fp="$1" '
		/^[^ ]/ { on = (index($0, " " fp " ") > 0) } on'
}
# jkey FP FILTER: jq FILTER on the JSON object of the key FP (from $JSON)
jkey() { printf '%s\n' "$JSON" | jq -c --arg fp "$1" ".[] | select(.fingerprint == \$fp) | $2"; }
hfp() { fp "$T/$1/host_$2.pub"; }
heads() { printf '%s\n' "$1" | grep -v '^ '; }     # the ssh-add -l lines
nocert() { printf '%s\n' "$1" | grep -v -- '-CERT)$'; }
# ssh-add -l's lines as keyward-ctl shows them: its terminal-safe form
# (ipc/text.h) doubles a backslash, so that no comment can pass for an escape.
shown() { printf '%s\n' "$1" | sed 's/\\/\\\\/g'; }
# The agent fingerprints a certificate over the whole certificate blob;
# ssh-add -l and ssh-keygen -l over its plain key. Until policy does the
# same, the rows that compare a certificate's fingerprint are TODO.

# --- an empty agent, before anything is added
dest_agent
ctl
is "$RC:$OUT" "1:The agent has no identities." "empty agent: 'The agent has no identities.', exit 1 (as ssh-add -l)"
ctl --json
is "$RC:$OUT" "1:[]" "empty agent, --json: [] and exit 1"

# --- hosts, keys, constraints, all through the real ssh-add
SSHD_HOSTKEYS="ed25519 ecdsa" dest_hosts perseus
dest_hosts scylla
for k in kP kT kD kM; do dest_key "$k"; done
gen_key kE ecdsa 384 && hide_key kE || bail "ssh-keygen kE"
gen_key kR rsa 3072 && hide_key kR || bail "ssh-keygen kR"
qcomment='say "hi" \ to C:\path\'
ssh-keygen -q -N '' -t ed25519 -C "$qcomment" -f "$T/keys/kQ" </dev/null >/dev/null || bail "ssh-keygen kQ"
hide_key kQ
gen_key kX ed25519 || bail "ssh-keygen kX"
ssh-keygen -q -N '' -t ed25519 -C user-ca -f "$T/user_ca" </dev/null >/dev/null &&
	ssh-keygen -q -s "$T/user_ca" -I kX-cert -n "$(id -un)" "$T/keys/kX.pub" >/dev/null 2>&1 ||
	bail "ssh-keygen -s kX"
hide_key kX
# scylla known only through a host CA, for kM's "perseus>medea@scylla"
ssh-keygen -q -N '' -t ed25519 -C host-ca -f "$T/host_ca" </dev/null >/dev/null || bail "ssh-keygen host_ca"
grep '^perseus ' "$T/known_hosts" >"$T/known_hosts.ca"
echo "@cert-authority scylla $(cut -d' ' -f1,2 "$T/host_ca.pub")" >>"$T/known_hosts.ca"

dest_add_ok kP
dest_add_ok kT -t 600
dest_add_ok kE -c
dest_add_ok kR
dest_add_ok kD -h perseus -h "perseus>scylla"
DEST_KH=$T/known_hosts.ca dest_add_ok kM -h "perseus>medea@scylla"
dest_add_ok kX -t 600
dest_add_ok kQ

# --- the text listing
run ssh-add -l
SSHADD_RAW=$OUT                 # as it is, for the JSON, which jq decodes
SSHADD=$(shown "$OUT")
is "$(printf '%s\n' "$SSHADD" | grep -c ' SHA256:')" 9 "ssh-add -l lists 9 identities (kX twice: key and certificate)"
ctl
TEXT=$OUT
is "$RC" 0 "keyward-ctl exits 0"
is "$ERR" "" "keyward-ctl writes nothing on stderr"
is "$(nocert "$(heads "$TEXT")")" "$(nocert "$SSHADD")" \
	"its key lines are ssh-add -l's: the same keys, in the same order (certificates aside)"
is "$(heads "$TEXT")" "$SSHADD" "its key lines are ssh-add -l's, certificates included"
for k in kP kT kE kR kD kM kX kQ; do
	is "$(block "$(dest_fp "$k")" | head -n 1)" "$(shown "$(fp_line "$T/keys/$k.pub")")" \
		"$k: its line is ssh-keygen -lf's (bits, fingerprint, comment, type)"
done
xcert=$(fp_line "$T/keys/kX-cert.pub")
like "$xcert" ' \(ED25519-CERT\)$' "ssh-keygen -lf names the certificate ED25519-CERT"
cline=$(heads "$TEXT" | grep -- '-CERT)$')
like "$cline" '^256 SHA256:[A-Za-z0-9+/]{43} kX@kwtest \(ED25519-CERT\)$' \
	"kX's certificate is listed: 256 bits, its comment, ED25519-CERT"
is "$cline" "$xcert" "kX's certificate is listed as ssh-keygen -lf prints it"

# one key at a time: lifetime, confirm, destinations
is "$(block "$(dest_fp kP)" | tail -n +2)" "    added by: local
    lifetime: none
    confirm: no
    destination: none (usable everywhere)" "kP: no lifetime, no confirm, usable everywhere"

tb=$(block "$(dest_fp kT)")
left=$(printf '%s\n' "$tb" | sed -n 's/^    lifetime: \([0-9]*\) s left$/\1/p')
like "$left" '^[0-9]+$' "kT: 'lifetime: N s left' ($left)"
[ -n "$left" ] && [ "$left" -le 600 ] && [ "$left" -ge 540 ]
ok $? "kT: the seconds left are at most 600 and close to it ($left)"
is "$(printf '%s\n' "$tb" | tail -n +4)" "    confirm: no
    destination: none (usable everywhere)" "kT: no confirm, no destination"

is "$(block "$(dest_fp kE)" | tail -n +2)" "    added by: local
    lifetime: none
    confirm: yes
    destination: none (usable everywhere)" "kE (ssh-add -c): confirm: yes"
is "$(block "$(dest_fp kR)" | head -n 1 | cut -d' ' -f1)" 3072 "kR: 3072 bits, as ssh-keygen -l says"

pe=$(hfp perseus ed25519) pc=$(hfp perseus ecdsa) se=$(hfp scylla ed25519)
cafp=$(fp "$T/host_ca.pub")
like "$pe $pc $se $cafp" '^SHA256:[^ ]+ SHA256:[^ ]+ SHA256:[^ ]+ SHA256:[^ ]+$' \
	"ssh-keygen -lf gives the host keys' fingerprints"
is "$(block "$(dest_fp kD)" | tail -n +2)" "    added by: local
    lifetime: none
    confirm: no
    hop: origin -> perseus [$pe, $pc] user any
    hop: perseus [$pe, $pc] -> scylla [$se] user any" \
	"kD: both hops, perseus and scylla by name with their host keys' fingerprints"
is "$(block "$(dest_fp kM)" | tail -n 1)" \
	"    hop: perseus [$pe, $pc] -> scylla [CA $cafp] user medea" \
	"kM: the user medea, scylla's CA marked CA"
cb=$(printf '%s\n' "$TEXT" | awk '/^[^ ]/ { on = /-CERT\)$/ } on')
is "$(block "$(dest_fp kX)" | sed -n 3p | sed 's/[0-9][0-9]*/N/')$(printf '%s\n' "$cb" | sed -n 3p | sed 's/[0-9][0-9]*/N/')" \
	"    lifetime: N s left    lifetime: N s left" "kX: key and certificate both have their lifetime (-t 600)"
is "$(block "$(dest_fp kQ)" | head -n 1)" "256 $(dest_fp kQ) say \"hi\" \\\\ to C:\\\\path\\\\ (ED25519)" \
	"kQ: quotes shown as they are, backslashes doubled"

# --- JSON
ctl --json
JSON=$OUT
is "$RC:$ERR" "0:" "--json exits 0, nothing on stderr"
printf '%s\n' "$JSON" | jq -e 'type == "array" and length == 9' >/dev/null
ok $? "jq parses it: an array of 9 objects"
jlines=$(printf '%s\n' "$JSON" | jq -r '.[] | "\(.bits) \(.fingerprint) \(.comment) (\(.type))"')
is "$(nocert "$jlines")" "$(nocert "$SSHADD_RAW")" \
	"bits, fingerprint, comment and type give ssh-add -l's lines, in its order (certificates aside)"
is "$jlines" "$SSHADD_RAW" "the same, certificates included"
is "$(printf '%s\n' "$JSON" | jq -r '[.[] | keys_unsorted | join(",")] | unique | .[]')" \
	"bits,type,fingerprint,comment,added_over,added_by,added_by_name,lifetime_left,confirm,destinations" "every object has the same fields, in order"
is "$(jkey "$(dest_fp kP)" '[.lifetime_left, .confirm, .destinations]')" '[null,false,[]]' \
	"kP: lifetime_left null, confirm false, no destinations"
jleft=$(jkey "$(dest_fp kT)" .lifetime_left)
like "$jleft" '^[0-9]+$' "kT: lifetime_left is a number ($jleft)"
[ "$jleft" -le 600 ] 2>/dev/null && [ "$jleft" -le "$left" ] && [ "$jleft" -ge 540 ]
ok $? "kT: lifetime_left at most 600 and no more than the text said ($jleft <= $left)"
is "$(jkey "$(dest_fp kE)" '[.type, .bits, .confirm]')" '["ECDSA",384,true]' "kE: ECDSA, 384 bits, confirm true"
is "$(jkey "$(dest_fp kR)" '[.type, .bits]')" '["RSA",3072]' "kR: RSA, 3072 bits"
is "$(jkey "$(dest_fp kD)" .destinations)" \
	"[{\"from\":{\"host\":null,\"keys\":[]},\"to\":{\"host\":\"perseus\",\"user\":null,\"keys\":[{\"fingerprint\":\"$pe\",\"ca\":false},{\"fingerprint\":\"$pc\",\"ca\":false}]}},{\"from\":{\"host\":\"perseus\",\"keys\":[{\"fingerprint\":\"$pe\",\"ca\":false},{\"fingerprint\":\"$pc\",\"ca\":false}]},\"to\":{\"host\":\"scylla\",\"user\":null,\"keys\":[{\"fingerprint\":\"$se\",\"ca\":false}]}}]" \
	"kD: destinations from the origin to perseus and from perseus to scylla, with the host keys"
is "$(jkey "$(dest_fp kM)" '.destinations[0].to')" \
	"{\"host\":\"scylla\",\"user\":\"medea\",\"keys\":[{\"fingerprint\":\"$cafp\",\"ca\":true}]}" \
	"kM: to scylla as medea, the CA key with ca true"
is "$(printf '%s\n' "$JSON" | jq -c '[.[] | select(.comment == "kX@kwtest") | [.type, .bits, (.lifetime_left <= 600)]]')" \
	'[["ED25519",256,true],["ED25519-CERT",256,true]]' "kX: ED25519 and ED25519-CERT, 256 bits, their lifetime"
is "$(printf '%s\n' "$JSON" | jq -r --arg fp "$(dest_fp kQ)" '.[] | select(.fingerprint == $fp) | .comment')" \
	"$qcomment" "kQ: the comment with quotes and backslashes comes back unchanged through jq"

# --- through a forwarded agent: refused
fwd() { run ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/kP" -A perseus "$@"; }
fwd ssh-add -l
contains "$OUT" " $(dest_fp kP) " "on perseus (ssh -A) the forwarded agent works: ssh-add -l lists kP"
fwd "$CTL"
is "$RC" 1 "on perseus keyward-ctl is refused: exit 1"
is "$OUT" "" "and prints nothing on stdout"
is "$ERR" "keyward-ctl: the agent refused to show constraints: the connection is forwarded, or the socket is a named one not declared \"manage\" (keyward(5)); the agent's log says which" \
	"and says the forwarded agent refused"
fwd "$CTL" --json
is "$RC:$OUT" "1:" "--json on perseus: exit 1, nothing on stdout"
run ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/kP" perseus "SSH_AUTH_SOCK=$SSH_AUTH_SOCK $CTL"
is "$RC" 0 "on perseus, keyward-ctl given the agent's own socket (not forwarded) lists"
ctl
is "$RC:$(printf '%s\n' "$OUT" | grep -c ' SHA256:.*)$')" "0:9" "locally it still lists all 9 after the refusals"

# --- the same keys as ssh-add -l after a removal in the middle
unhide_key kE; ssh-add -d "$T/keys/kE.pub" >/dev/null 2>&1; hide_key kE
ctl
is "$(nocert "$(heads "$OUT")")" "$(nocert "$(shown "$(ssh-add -l)")")" "after ssh-add -d kE: still ssh-add -l's list and order"
printf '%s\n' "$OUT" | grep -qF "$(dest_fp kE)"
is $? 1 "kE is gone from keyward-ctl"

# --- a locked agent refuses; -a names the socket
printf '%s\n' pw >"$T/pass"
mk_script "$T/pass.sh" "cat $T/pass"
SSH_ASKPASS=$T/pass.sh SSH_ASKPASS_REQUIRE=force ssh-add -x </dev/null >/dev/null 2>&1
ok $? "ssh-add -x locks the agent"
ctl
is "$RC:$OUT" "1:" "a locked agent: exit 1, nothing on stdout"
is "$ERR" "keyward-ctl: the agent is locked (ssh-add -X unlocks it)" \
	"and it says the agent is locked"
ctl policy show
is "$RC:$OUT:$ERR" "1::keyward-ctl: the agent is locked (ssh-add -X unlocks it)" \
	"policy show on a locked agent: exit 1, it says the agent is locked"
SSH_ASKPASS=$T/pass.sh SSH_ASKPASS_REQUIRE=force ssh-add -X </dev/null >/dev/null 2>&1
ok $? "ssh-add -X unlocks it"
sock=$SSH_AUTH_SOCK
run env -u SSH_AUTH_SOCK "$CTL" -a "$sock"
is "$RC" 0 "unlocked, -a SOCKET without SSH_AUTH_SOCK: exit 0"
is "$(nocert "$(heads "$OUT")")" "$(nocert "$(shown "$(ssh-add -l)")")" "-a SOCKET lists the same"

# --- OpenSSH's agent has no such extension
/usr/bin/ssh-agent -D -a "$T/openssh.sock" >/dev/null 2>&1 &
EXTRA_PIDS+=($!)
wait_for_socket "$T/openssh.sock" 5
ctl -a "$T/openssh.sock"
is "$RC:$OUT" "1:" "OpenSSH's ssh-agent: exit 1, nothing on stdout"
is "$ERR" "keyward-ctl: the agent does not support constraints@keyward.dev: it is not keyward, or it is locked" \
	"and it says the agent does not support the extension (empty: it may be locked)"
gen_key kO ed25519 && SSH_AUTH_SOCK=$T/openssh.sock ssh-add "$T/keys/kO" >/dev/null 2>&1
ctl -a "$T/openssh.sock"
is "$RC:$OUT:$ERR" "1::keyward-ctl: the agent does not support constraints@keyward.dev: it is not keyward" \
	"OpenSSH's ssh-agent holding a key: exit 1, it is not keyward"

# --- every line and member keyward-ctl prints is in keyward-ctl(1)
for label in $(grep -o '"    [a-z]*: ' "$REPO/ctl/print.c" | tr -d '" :' | sort -u); do
	grep -q "^\.B $label:" "$REPO/doc/keyward-ctl.1"
	ok $? "the text line $label: is described in keyward-ctl(1)"
done
for member in $(grep -o '\\"[a-z_]*\\":' "$REPO/ctl/print.c" | tr -d '\\":' | sort -u); do
	grep -q "\"$member\"\|^\.BR\? $member\b" "$REPO/doc/keyward-ctl.1"
	ok $? "the JSON member $member is in keyward-ctl(1)"
done

# --- usage
ctl extra
is "$RC:$OUT" "255:" "an operand: exit 255"
ctl --no-such-option
is "$RC" 255 "an unknown option: exit 255"
like "$ERR" 'usage: keyward-ctl \[--json\] \[-a socket\]' "and the usage line"
ctl --help
is "$RC:$OUT" "0:usage: keyward-ctl [--json] [-a socket]
       keyward-ctl [-a socket] policy load FILE
       keyward-ctl [-a socket] policy show
       keyward-ctl [--json] [-a socket] connections
       keyward-ctl [--json] [-a socket] session
       keyward-ctl audit keygen KEYFILE
       keyward-ctl audit verify [--state KEYFILE] [--tag TAG] TRAIL [VERIFYKEY]
       keyward-ctl audit tail [-f] [--json] TRAIL" "--help: the usage lines, exit 0"
for item in '.B \-\-json' '.BI \-a " socket"' '.B \-\-help'; do
	grep -qxF -- "$item" "$REPO/doc/keyward-ctl.1"
	ok $? "keyward-ctl(1) has an item '$item'"
done

# --- no agent: 2
ctl -a "$T/no-such.sock"
is "$RC:$OUT" "2:" "a socket nobody listens on: exit 2"
like "$ERR" "^keyward-ctl: cannot connect to the agent at $T/no-such.sock" "and says it cannot connect"
run env -u SSH_AUTH_SOCK "$CTL"
is "$RC" 2 "SSH_AUTH_SOCK unset: exit 2"
run env SSH_AUTH_SOCK= "$CTL"
is "$RC" 2 "SSH_AUTH_SOCK empty: exit 2"
stop_agent
ok $? "agent stopped"
run env SSH_AUTH_SOCK="$sock" "$CTL"
is "$RC:$OUT" "2:" "the stopped agent's socket: exit 2"

# --- a fake agent: replies we must refuse, and strings to escape. It
# records each request (hex) and answers with the bytes of $T/fake.reply
# (hex, frame included), then closes.
cat >"$T/fake.pl" <<'EOF'
use strict; use warnings; use IO::Socket::UNIX;
my ($path, $reply, $log) = @ARGV;
unlink $path;
my $l = IO::Socket::UNIX->new(Type => SOCK_STREAM, Local => $path, Listen => 5) or die "$!";
$SIG{PIPE} = 'IGNORE';
while (my $c = $l->accept) {
	my ($h, $b) = ('', '');
	read($c, $h, 4) == 4 or next;
	read($c, $b, unpack('N', $h));
	open(my $lf, '>>', $log); print $lf unpack('H*', $h . $b), "\n"; close $lf;
	open(my $rf, '<', $reply); my $x = <$rf>; close $rf;
	chomp $x;
	print $c pack('H*', $x);
	close $c;
}
EOF
: >"$T/fake.reply"
perl "$T/fake.pl" "$T/fake.sock" "$T/fake.reply" "$T/fake.log" 2>"$T/fake.err" &
EXTRA_PIDS+=($!)
wait_for_socket "$T/fake.sock" 5 || bail "fake agent did not start"

hexb() { printf '%08x%s' $((${#1} / 2)) "$1"; }   # an SSH string of hex bytes
u32() { printf '%08x' "$1"; }
frame() { hexb "$1"; }                              # a frame of hex payload
fake() { printf '%s\n' "$1" >"$T/fake.reply"; ctl -a "$T/fake.sock" "${@:2}"; }
ext=$(hexstr constraints@keyward.dev)
blob=$(cut -d' ' -f2 "$T/keys/kP.pub" | base64 -d | od -An -tx1 -v | tr -d ' \n')
kfp=$(dest_fp kP)
# an identity: comment (hex), seconds_left, confirm, rules (hex: count +
# rules); the provider string between confirm and rules is empty (none),
# then the add's origin: local (00), no host key, no name
ident() { printf '%s%s%s%s%s%s%s' "$(hexb "$blob")" "$(hexb "$1")" "$(hexstr "$kfp")" "$2" "$3" 00000000000000000000000000 "$4"; }
hex() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }
hop() { printf '%s%s%s' "$(hexstr "$1")" "$(hexstr "$2")" "$3"; }   # user host keys
hkey() { printf '%s%s' "$(hexstr "$1")" "$2"; }                       # fp is_ca

one=$(ident "$(hex plain)" ffffffff 00 00000000)
fake "$(frame "1d${ext}00000001${one}")"
is "$RC:$OUT" "0:256 $kfp plain (ED25519)
    added by: local
    lifetime: none
    confirm: no
    destination: none (usable everywhere)" "fake agent, a well-formed reply: listed"
is "$(sed -n 1p "$T/fake.log")" "0000001c1b${ext}" \
	"the request: uint32 28; byte 27; string \"constraints@keyward.dev\""

# a key a forwarded host added (01: its host key's fingerprint, a name
# from a destination constraint), and one from a host keyward cannot name
fwd=$(printf '%s%s%s%s%s%s%s%s' "$(hexb "$blob")" "$(hexb "$(hex planted)")" "$(hexstr "$kfp")" \
	ffffffff 00 00000000 "01$(hexstr SHA256:hostkey)$(hexstr "$(printf 'sc\tylla')")" 00000000)
unk=$(printf '%s%s%s%s%s%s%s%s' "$(hexb "$blob")" "$(hexb "$(hex planted)")" "$(hexstr "$kfp")" \
	ffffffff 00 00000000 020000000000000000 00000000)
fake "$(frame "1d${ext}00000002${fwd}${unk}")"
is "$RC:$(printf '%s\n' "$OUT" | grep 'added by')" "0:    added by: forwarded host SHA256:hostkey (sc\\tylla)
    added by: a forwarded host keyward cannot name" \
	"text: who added each key, the host's name escaped"
fake "$(frame "1d${ext}00000002${fwd}${unk}")" --json
is "$(printf '%s\n' "$OUT" | jq -c '[.[] | [.added_over, .added_by, .added_by_name]]')" \
	'[["forwarded","SHA256:hostkey","sc\tylla"],["unknown",null,null]]' "JSON: the same"

# control bytes, quotes, backslashes, UTF-8 and bytes that are not UTF-8
cm=$(hex 'a"b\c')01097fc29b$(hex 'é')ff$(hex z)c0af
rules=00000001$(hop "" "" 00000000)$(hop "" "$(printf 'sc\tylla')" 00000001$(hkey SHA256:x 01))
fake "$(frame "1d${ext}00000001$(ident "$cm" 0000000a 01 "$rules")")" --json
is "$RC" 0 "fake agent, odd strings, --json: exit 0"
printf '%s\n' "$OUT" | jq -e . >/dev/null 2>&1
ok $? "jq parses it"
contains "$OUT" '"comment":"a\"b\\c\u0001\u0009\u007f\u009bé\\xffz\\xc0\\xaf"' \
	"quotes and backslashes escaped, control bytes as \\u00XX, bad UTF-8 as the text \\xHH"
is "$(printf '%s\n' "$OUT" | jq -c '.[0] | [.lifetime_left, .confirm, .destinations[0].from.host, .destinations[0].to.host, .destinations[0].to.keys[0].ca]')" \
	'[10,true,null,"sc\tylla",true]' "and the fields are what was sent"
fake "$(frame "1d${ext}00000001$(ident "$cm" 0000000a 01 "$rules")")"
is "$(printf '%s\n' "$OUT" | head -n 1)" "256 $kfp a\"b\\\\c\\x01\\t\\x7f\\xc2\\x9bé\\xffz\\xc0\\xaf (ED25519)" \
	"text: backslash doubled, tab as \\t, other controls (C0, DEL, C1) and bytes that are not UTF-8 as \\xNN, UTF-8 as it is"
contains "$OUT" '    hop: origin -> sc\tylla [CA SHA256:x] user any' "text: the hop, the host escaped, the CA key"

fake "$(frame 05)"
is "$RC:$OUT" "1:" "reply SSH_AGENT_FAILURE: exit 1"
contains "$ERR" "does not support constraints@keyward.dev" "and 'does not support'"
fake "$(frame 1c)"
is "$RC:$OUT" "1:" "reply SSH_AGENT_EXTENSION_FAILURE: exit 1"
contains "$ERR" "the connection is forwarded" "and the forwarded agent's refusal"
fake "$(frame "1d${ext}00000000")"
is "$RC:$OUT" "1:The agent has no identities." "an empty well-formed list: exit 1"
fake ""
is "$RC:$OUT" "1:" "a connection closed without an answer: exit 1"

# every one of these: exit 255 and nothing on stdout
while IFS='|' read -r name reply; do
	fake "$reply"
	is "$RC:$OUT" "255:" "malformed: $name: exit 255, nothing printed"
done <<EOF
a trailing byte after the list|$(frame "1d${ext}00000001${one}00")
a trailing byte after SSH_AGENT_FAILURE|$(frame 0500)
one identity announced, two sent|$(frame "1d${ext}00000001${one}${one}")
two identities announced, one sent|$(frame "1d${ext}00000002${one}")
a count of 2^32-1 identities|$(frame "1d${ext}ffffffff${one}")
another extension's name|$(frame "1d$(hexstr query)00000000")
an unexpected reply type (SSH_AGENT_SUCCESS)|$(frame 06)
an empty frame|00000000
a frame of 256 KiB + 1|00040001$(printf '%02x' 29)
a frame cut short|00000064${ext}
a key blob that does not parse|$(frame "1d${ext}00000001$(hexb 0000000b$(hex ssh-ed25519)00000001ff)$(hexb 00)$(hexstr "$kfp")ffffffff0000000000")
a from-hop that names a user|$(frame "1d${ext}00000001$(ident 78 ffffffff 00 00000001$(hop medea "" 00000000)$(hop "" scylla 00000000))")
a to-hop without a host|$(frame "1d${ext}00000001$(ident 78 ffffffff 00 00000001$(hop "" "" 00000000)$(hop "" "" 00000000))")
a NUL inside a comment|$(frame "1d${ext}00000001$(ident 610062 ffffffff 00 00000000)")
EOF
fake "00040000$(printf '%0524288d' 0)"
is "$RC:$OUT" "255:" "a frame of exactly 256 KiB is read (and refused for its content)"
contains "$ERR" "malformed reply: unexpected reply type" "for its content, not its length"

done_testing
