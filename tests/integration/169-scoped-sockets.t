#!/bin/bash
# keyward(5) named sockets: forward only the keys a host needs. Two keys,
# "personal" and "deploy-web"; the rules
#   socket deploy
#   allow socket deploy key comment deploy-*
# make keyward listen on a second socket ($KEYWARD_SOCK_DEPLOY) that lists
# and signs with the deploy key alone. Through ssh -o
# ForwardAgent=$KEYWARD_SOCK_DEPLOY to hopA: ssh-add -l there lists the
# deploy key only, ssh on to hopB logs in with it and never offers the
# personal key (hopB's sshd log names one key), and ssh-add -D, -d, -x
# and adding a key from hopA are refused; the main socket still lists
# both. Baseline for both agents: the main socket forwarded forwards both
# keys, and ssh on hopA offers the personal one first (hopB's log names
# two keys). Also: the audit trail and keyward-ctl name the socket, a
# confirm prompt says "through the deploy socket", a signature with a
# key out of scope is refused, and the declarations print as rules.
# A rule that cannot tell never weakens the socket's default deny: under
# "confirm caller /usr/bin/ssh socket deploy" alone, what hopA asks
# through the deploy socket comes through the user's ssh (the relay, which
# names nobody on hopA) and is refused without a prompt; the same ssh
# logging in from here on the deploy socket is asked.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-rules.sh"

gen_key personal ed25519 || bail "ssh-keygen personal"
gen_key deploy-web ed25519 || bail "ssh-keygen deploy-web"
PFP=$(fp "$T/keys/personal.pub")
DFP=$(fp "$T/keys/deploy-web.pub")
# hopB takes only the deploy key: an offer of the personal one is a
# "Failed publickey" line in its log.
cat "$T/keys/deploy-web.pub" >>"$T/authorized_keys"
start_sshd hopA || bail "sshd hopA"
start_sshd hopB || bail "sshd hopB"

# on hopA: list, then log in to hopB with whatever the forwarded agent offers
ON_A="ssh-add -l; echo rc=\$?; ssh -F $T/ssh_config -o IdentitiesOnly=no -o IdentityFile=none hopB echo at-hopB"
# keys hopB's sshd was offered (one fingerprint a line, sorted, unique)
offered_b() {
	grep -E '(Accepted|Failed|Postponed) publickey for' "$(sshd_log hopB)" |
		grep -oE 'SHA256:[A-Za-z0-9+/]{43}' | sort -u
}

POL=$(rules_file scoped "socket deploy" "allow socket deploy key comment deploy-*")
if is_keyward; then
	rules_agent "$POL"
else
	rules_agent ""
fi
run ssh-add "$T/keys/personal" "$T/keys/deploy-web"
is "$RC" 0 "both keys added on the main socket"
MAIN=$SSH_AUTH_SOCK

# --- baseline: the main socket forwarded forwards both keys
: >"$(sshd_log hopB)"
run ssh_as hopA "$T/keys/deploy-web.pub" -o ForwardAgent=yes -- "$ON_A"
is "$OUT" "$(fp_line "$T/keys/personal.pub")"$'\n'"$(fp_line "$T/keys/deploy-web.pub")"$'\nrc=0\nat-hopB' \
	"main socket forwarded: hopA lists both keys, and reaches hopB"
is "$(offered_b | tr '\n' ' ')" "$(printf '%s\n' "$PFP" "$DFP" | sort | tr '\n' ' ')" \
	"hopB was offered both keys (the personal one first, refused)"

if ! is_keyward; then
	skip_n 62 "not keyward: named sockets"
	done_testing
fi

# --- the scoped socket
DEPLOY=${KEYWARD_SOCK_DEPLOY:-}
is "$DEPLOY" "$MAIN.deploy" "keyward -s printed KEYWARD_SOCK_DEPLOY, beside the main socket"
[ -S "$DEPLOY" ] && [ "$(stat -c %a "$DEPLOY")" = 600 ]
ok $? "the deploy socket exists with mode 0600, like the main one"

: >"$(sshd_log hopB)"
run ssh_as hopA "$T/keys/deploy-web.pub" -o "ForwardAgent=$DEPLOY" -- "$ON_A"
is "$OUT" "$(fp_line "$T/keys/deploy-web.pub")"$'\nrc=0\nat-hopB' \
	"deploy socket forwarded: hopA lists the deploy key alone, and reaches hopB with it"
is "$(offered_b)" "$DFP" "hopB was offered one key, the deploy key (the personal one never)"
sshd_accepted hopB "$T/keys/deploy-web.pub"
ok $? "hopB accepted the deploy key"

# management from hopA, through the deploy socket: refused
printf '#!/bin/sh\necho lock-pass-kw\n' >"$T/lockpass.sh"
chmod 755 "$T/lockpass.sh"
run ssh_as hopA "$T/keys/deploy-web.pub" -o "ForwardAgent=$DEPLOY" -- \
	"ssh-add -D; echo D=\$?; ssh-add -d $T/keys/deploy-web.pub; echo d=\$?;" \
	"SSH_ASKPASS=$T/lockpass.sh SSH_ASKPASS_REQUIRE=force DISPLAY=:0 ssh-add -x; echo x=\$?;" \
	"ssh-add $T/keys/personal; echo add=\$?; $KEYWARD_BUILD/keyward-ctl connections >/dev/null; echo ctl=\$?;" \
	"ssh-add -l; echo l=\$?"
contains "$OUT" "D=1" "ssh-add -D from hopA: refused"
contains "$OUT" "d=1" "ssh-add -d from hopA: refused"
contains "$OUT" "x=1" "ssh-add -x from hopA: refused"
contains "$OUT" "add=1" "ssh-add KEY from hopA: refused"
unlike "$OUT" "ctl=0" "keyward-ctl connections from hopA: refused"
[[ $OUT == *"$(fp_line "$T/keys/deploy-web.pub")"$'\nl=0'* ]]
ok $? "hopA still lists the deploy key (not locked, not removed)"
run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/personal.pub")"$'\n'"$(fp_line "$T/keys/deploy-web.pub")" \
	"the main socket still lists both keys"

# locally on the deploy socket: the same scope (private halves hidden:
# every signature is the agent's)
hide_key personal
hide_key deploy-web
SSH_AUTH_SOCK=$DEPLOY run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/deploy-web.pub")" "ssh-add -l on the deploy socket: the deploy key"
echo data >"$T/data"
SSH_AUTH_SOCK=$DEPLOY run ssh-keygen -Y sign -n file -f "$T/keys/personal.pub" "$T/data"
ok $((RC == 0)) "ssh-keygen -Y sign with the personal key on the deploy socket: refused"
SSH_AUTH_SOCK=$DEPLOY run ssh-keygen -Y sign -n file -f "$T/keys/deploy-web.pub" "$T/data"
is "$RC" 0 "ssh-keygen -Y sign with the deploy key on the deploy socket"

# the trail and the log name the socket
is "$(audit_sel 'select(.event == "sign" and .decision == "allow" and .socket == "deploy")' | jq -r .key.fingerprint | sort -u)" \
	"$DFP" "audit: the deploy socket's signatures are the deploy key's, marked socket deploy"
REFUSED=$(audit_sel 'select(.decision == "refuse" and .socket == "deploy" and .event != "sign") | .event' | jq -r . | sort -u | tr '\n' ' ')
contains "$REFUSED" "add " "audit: an add refused on the deploy socket"
contains "$REFUSED" "remove-all " "audit: a remove-all refused on the deploy socket"
is "$(audit_count 'select(.event == "sign" and .socket == "main")')" \
	"$(audit_count 'select(.event == "sign" and .socket == "main" and .decision == "allow")')" \
	"audit: the main socket's signatures were all allowed"

# --- a raw client on the deploy socket tries every request type
blob() { perl -MMIME::Base64 -ane 'print unpack("H*", decode_base64($F[1]))' "$1"; }
str() { printf '%08x%s' $((${#1} / 2)) "$1"; }          # hex -> SSH string
# ADD_IDENTITY's body for an unencrypted Ed25519 key file: the private
# section's type, public, private and comment strings, as they are
addbody() {
	perl -MMIME::Base64 -e 'local $/; open(my $f, "<", $ARGV[0]) or die; my $t = <$f>;
		$t =~ s/-----[^-]+-----//g; my $b = decode_base64($t);
		my $p = length("openssh-key-v1\0");
		my $s = sub { my $n = unpack("N", substr($b, $p, 4)); my $r = substr($b, $p + 4, $n); $p += 4 + $n; $r };
		$s->() for 1 .. 3; $p += 4; $s->(); my $priv = $s->();
		my $q = 8; my $start = $q;
		for (1 .. 4) { my $n = unpack("N", substr($priv, $q, 4)); $q += 4 + $n }
		print unpack("H*", substr($priv, $start, $q - $start));' "$1"
}
PB=$(blob "$T/keys/personal.pub")
DB=$(blob "$T/keys/deploy-web.pub")
ext() { printf '1b%s%s' "$(str "$(printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n')")" "${2:-}"; }
DATA=$(str 68656c6c6f)
unhide_key personal
ADD=$(addbody "$T/keys/personal")
hide_key personal
[ -n "$ADD" ] && [ -n "$PB" ] && [ -n "$DB" ]
ok $? "raw requests built (key blobs, an ADD body)"
rawreq() { # NAME HEX WANT-ERE
	run raw -t 10 "$DEPLOY" "$2"
	like "$OUT" "$3" "raw on the deploy socket: $1"
}
rawreq "REQUEST_IDENTITIES lists the deploy key alone" 0b "^0c00000001$(str "$DB")"
rawreq "SIGN_REQUEST with the personal key: FAILURE" "0d$(str "$PB")${DATA}00000000" '^05$'
rawreq "SIGN_REQUEST with the deploy key: a signature" "0d$(str "$DB")${DATA}00000000" '^0e'
rawreq "ADD_IDENTITY: FAILURE" "11$ADD" '^05$'
rawreq "ADD_ID_CONSTRAINED (confirm): FAILURE" "19${ADD}02" '^05$'
rawreq "REMOVE_IDENTITY of the deploy key: FAILURE" "12$(str "$DB")" '^05$'
rawreq "REMOVE_ALL_IDENTITIES: FAILURE" 13 '^05$'
rawreq "LOCK: FAILURE" "16$(str 78)" '^05$'
rawreq "UNLOCK: FAILURE" "17$(str 78)" '^05$'
rawreq "ADD_SMARTCARD_KEY: FAILURE" "14$(str "$(printf /usr/lib/x.so | od -An -tx1 -v | tr -d ' \n')")$(str 31)" '^05$'
rawreq "REMOVE_SMARTCARD_KEY: FAILURE" "15$(str "$(printf /usr/lib/x.so | od -An -tx1 -v | tr -d ' \n')")$(str 31)" '^05$'
rawreq "EXTENSION query: answered" "$(ext query)" '^(06|1d)'
rawreq "EXTENSION policy show: EXTENSION_FAILURE" "$(ext policy@keyward.dev "$(str 73686f77)")" '^1c$'
rawreq "EXTENSION policy load: EXTENSION_FAILURE" "$(ext policy@keyward.dev "$(str 6c6f6164)$(str 616c6c6f77)")" '^1c$'
rawreq "EXTENSION connections: EXTENSION_FAILURE" "$(ext connections@keyward.dev)" '^1c$'
rawreq "EXTENSION constraints: EXTENSION_FAILURE" "$(ext constraints@keyward.dev)" '^1c$'
rawreq "a type nobody knows: FAILURE" ff '^05$'
run raw -t 10 "$MAIN" "11$ADD"
is "$OUT" 06 "the same ADD_IDENTITY on the main socket: SUCCESS (the body is good)"
run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/personal.pub")"$'\n'"$(fp_line "$T/keys/deploy-web.pub")" \
	"after all that, the main socket lists both keys (nothing removed, added or locked)"
REF=$(audit_sel 'select(.event == "sign" and .decision == "refuse" and .socket == "deploy")')
is "$(printf '%s\n' "$REF" | jq -r .key.fingerprint)" "$PFP" \
	"audit: the refused signature is the personal key's, marked socket deploy"
contains "$(printf '%s\n' "$REF" | jq -r .reason)" "not in the deploy socket's scope" \
	"and its reason says the key is out of the socket's scope"

# keyward-ctl: the declarations in policy show, the socket of a connection
run "$KEYWARD_BUILD/keyward-ctl" policy show
is "$OUT" $'socket deploy\nallow key comment deploy-* socket deploy' "keyward-ctl policy show: the declaration, then the rule"
perl -e 'use IO::Socket::UNIX; my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or exit 2; sleep 30' "$DEPLOY" &
HOLD=$!
EXTRA_PIDS+=("$HOLD")
poll_until 5 sh -c '"$0" connections --json | jq -e "select(.socket == \"deploy\")" >/dev/null' "$KEYWARD_BUILD/keyward-ctl"
ok $? "keyward-ctl connections: a connection on the deploy socket says socket deploy"
run "$KEYWARD_BUILD/keyward-ctl" connections
contains "$OUT" "    socket: deploy" "and the text listing says so"
kill "$HOLD" 2>/dev/null

# --- the socket's default deny against a confirm that cannot tell
# (caller /usr/bin/ssh is the relay of a forwarded request). ssh runs
# without capabilities (nocaps) so that keyward-peer reads it.
RELAY=$(rules_file relay "socket deploy" "confirm caller /usr/bin/ssh socket deploy")
run "$KEYWARD_BUILD/keyward-ctl" policy load "$RELAY"
is "$RC" 0 "policy load: confirm caller /usr/bin/ssh socket deploy (the same sockets)"
echo yes >"$T/askpass.mode"
N0=$(prompts)
FWDREF='select(.event == "sign" and .decision == "refuse" and .socket == "deploy" and .origin == "forwarded")'
NREF=$(audit_count "$FWDREF")
run nocaps /usr/bin/ssh -F "$T/ssh_config" -o "IdentityFile=$T/keys/deploy-web.pub" \
	-o "ForwardAgent=$DEPLOY" hopA \
	"ssh-add -l; echo l=\$?; ssh-keygen -Y sign -n file -f $T/keys/deploy-web.pub <$T/data >/dev/null; echo sign=\$?" </dev/null
contains "$OUT" "$(fp_line "$T/keys/deploy-web.pub")" \
	"hopA, through the deploy socket: the confirm rule lists the deploy key (it may ask)"
like "$OUT" 'sign=[1-9]' "ssh-keygen -Y sign on hopA through the deploy socket: refused"
is "$(prompts)" "$N0" "... without a prompt: the confirm cannot tell who asks on hopA, the socket's default deny stands"
audit_await "$NREF" "$FWDREF"
REF=$(audit_sel "$FWDREF" | tail -n +$((NREF + 1)))
is "$(printf '%s\n' "$REF" | jq -r .key.fingerprint | sort -u)" "$DFP" \
	"audit: the deploy key's forwarded signature refused on the deploy socket"
contains "$(printf '%s\n' "$REF" | jq -r .reason)" "not in the deploy socket's scope" \
	"... as out of the socket's scope (no rule decided)"
SSH_AUTH_SOCK=$DEPLOY run nocaps /usr/bin/ssh -F "$T/ssh_config" \
	-o "IdentityFile=$T/keys/deploy-web.pub" hopA 'echo in-kw' </dev/null
is "$OUT" in-kw "the same ssh logging in from here on the deploy socket: asked, said yes, logged in"
is "$(prompts)" "$((N0 + 1))" "... after one prompt"
contains "$(last_prompt)" "through the deploy socket" "... which names the deploy socket"
run "$KEYWARD_BUILD/keyward-ctl" policy load "$POL"
is "$RC" 0 "the scoped rules loaded again"

# the key's own destination constraints still apply on the scoped socket:
# added for logins to hopA alone, it is not offered from hopA onwards
unhide_key deploy-web
run ssh-add -H "$T/known_hosts" -h hopA "$T/keys/deploy-web"
is "$RC" 0 "deploy key added again, for hopA alone (ssh-add -h hopA)"
: >"$(sshd_log hopB)"
run ssh_as hopA "$T/keys/deploy-web.pub" -o "ForwardAgent=$DEPLOY" -- "$ON_A"
is "$(printf '%s\n' "$OUT" | head -2 | tr '\n' ' ')" "The agent has no identities. rc=1 " \
	"through the deploy socket, hopA lists nothing: the key's constraint says hopA is its last hop"
is "$(offered_b)" "" "and hopB was offered no key"

# a key with confirm: the prompt names the socket
run ssh-add -c "$T/keys/deploy-web"
hide_key deploy-web
is "$RC" 0 "deploy key added again, with confirm"
SSH_AUTH_SOCK=$DEPLOY run ssh-keygen -Y sign -n file -f "$T/keys/deploy-web.pub" "$T/data"
is "$RC" 0 "signed after the confirm prompt said yes"
contains "$(last_prompt)" "through the deploy socket" "the confirm prompt says 'through the deploy socket'"

# the socket goes when keyward does
stop_agent
ok $? "agent stopped"
poll_until 5 not test -e "$DEPLOY"
ok $? "the deploy socket was removed with the main one"
done_testing
