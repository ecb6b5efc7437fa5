#!/bin/bash
# keyward's audit trail (-O audit=PATH): one JSON object per line for every
# decision, parsed here line by line with jq; with the hop chain, user and
# server of each signature; never a passphrase; and fail closed: if the
# trail cannot be written, nothing is signed. (keyward only.)
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

NTESTS=40
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
A=$T/audit.log
jqa() { jq -c "$@" "$A"; }

start_agent -O audit="$A" -O audit-sync=yes
ok $? "agent started with -O audit=$A -O audit-sync=yes" || bail "agent did not start"
dest_hosts perseus scylla
dest_key k
dest_key plain
dest_add_ok k -h perseus -h "perseus>scylla"
dest_add_ok plain
run ssh-add -l
ok $RC "ssh-add -l"
dest_ssh k perseus scylla
dest_row "audited perseus>scylla" ALLOW ok
dest_ssh -o User=nobody k perseus
ok "$([ "$DEST_RESULT" != ALLOW ] && echo 0 || echo 1)" "a login as another user is refused"
run ssh-add -T "$T/keys/plain.pub"
ok $RC "a local test signature with the plain key"
run ssh-add -T "$T/keys/k.pub"
ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "the constrained key does not sign locally"
printf '#!/bin/sh\necho s3cret-passphrase\n' >"$T/pass.sh"; chmod 755 "$T/pass.sh"
run env SSH_ASKPASS="$T/pass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -x
ok $RC "lock"
run env SSH_ASKPASS="$T/pass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -X
ok $RC "unlock"
unhide_key plain
run ssh-add -d "$T/keys/plain"
hide_key plain
ok $RC "remove"

# Only a signature waits for its record: the others (the remove, the
# lock, the unlock) can reach the trail after the client has its answer.
# The auditor writes them in order: the remove's is the last.
poll_until 10 file_has "$A" '"event":"remove"'
run jq -e . "$A"
ok $RC "every line of the trail is JSON (jq)"
is "$(wc -l <"$A" | tr -d ' ')" "$(jqa . | wc -l | tr -d ' ')" "one object per line"
is "$(jqa 'select(.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$") | not)' | wc -l | tr -d ' ')" 0 \
	"every time is RFC 3339 UTC"
for e in add list sign bind lock unlock remove; do
	contains "$(jqa -r .event | sort -u | tr '\n' ' ')" "$e " "event $e is recorded"
done
kfp=$(dest_fp k)
signed=$(jqa --arg fp "$kfp" 'select(.event=="sign" and .decision=="allow" and .key.fingerprint==$fp)')
contains "$signed" '"name":"perseus"' "the permitted signature's path names perseus"
contains "$signed" '"forwarding":true' "with its forwarding binding"
contains "$signed" '"name":"scylla"' "and ends at scylla"
contains "$signed" '"user":"root"' "for user root"
like "$signed" '"data_sha256":"[0-9a-f]{64}"' "with the SHA-256 of the signed data, not the data"
contains "$signed" '"purpose":"login"' "its purpose: a login"
contains "$signed" '"login_verified":true' "whose session id and host key match the last binding"
plainsig=$(jqa --arg fp "$(dest_fp plain)" 'select(.event=="sign" and .key.fingerprint==$fp)')
contains "$plainsig" '"purpose":"other"' "a test signature (ssh-add -T) is other data"
unlike "$plainsig" '"user"' "and names no user"
refused=$(jqa 'select(.event=="sign" and .decision=="refuse")' | tr '\n' ' ')
contains "$refused" "not bound to any host" "the local use of the constrained key is recorded as refused, with why"
ok "$(grep -c 's3cret-passphrase' "$A" | grep -qx 0; echo $?)" "the passphrase never appears in the trail"
stop_agent

# -O audit=-: the same records on standard error (with -D), among the log.
start_agent_fg "$T/fg.sock" -O audit=-
ok $? "agent started in the foreground with -O audit=-"
run ssh-add -l
stop_pid "$AGENT_FG_PID"
ok $? "foreground agent stopped"
grep '^{' "$T/agent.log" >"$T/stderr-trail"
run jq -e 'select(.event == "list")' "$T/stderr-trail"
ok $RC "stderr carries the list record as JSON"
is "$(grep -c '^{' "$T/agent.log")" "$(jq -c . "$T/stderr-trail" | wc -l | tr -d ' ')" \
	"every record line on stderr is whole JSON"

# Fail closed: a trail that cannot be written means no signature.
start_agent -O audit=/dev/full
ok $? "agent started with a trail that cannot be written (/dev/full)"
dest_add_ok plain
run ssh-add -T "$T/keys/plain.pub"
ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "no signature is made when it cannot be recorded"
stop_agent
done_testing
