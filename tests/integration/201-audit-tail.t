#!/bin/bash
# keyward-ctl audit tail: the trail for a person (time, event, decision,
# key, caller, purpose, reason), --json for the records whole, -f to follow
# the file as the agent writes it, like journalctl -f. A key comment full
# of terminal escapes comes out inert. (keyward only.)
. "$(dirname "$0")/lib.sh"

NTESTS=14
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
CTL=$KEYWARD_BUILD/keyward-ctl
A=$T/trail

gen_key k ed25519
ssh-keygen -q -c -C "$(printf 'evil\033]0;owned\007\033[2Jcomment')" -f "$T/keys/k" >/dev/null
start_agent -O audit="$A"
ok $? "agent started" || bail "agent did not start"
"$CTL" audit tail -f "$A" >"$T/follow" 2>&1 &
TAIL_PID=$!
EXTRA_PIDS+=("$TAIL_PID")
run ssh-add "$T/keys/k"
ok $RC "key added"
run ssh-add -T "$T/keys/k.pub"
ok $RC "a signature"
run "$CTL" audit tail "$A"
ok $RC "keyward-ctl audit tail"
like "$OUT" "event=sign decision=allow key=SHA256:[^ ]+ comment=" "a signature's line: event, decision, key, comment"
like "$(printf '%s\n' "$OUT" | grep 'event=sign')" "purpose=other .*seq=[0-9]+" "its purpose and sequence number"
ok "$(printf '%s' "$OUT" | grep -q "$(printf '\033')"; [ $? = 1 ] && echo 0 || echo 1)" \
	"no escape character reaches the terminal (the comment's are shown inert)"
run "$CTL" audit tail --json "$A"
ok $RC "tail --json"
is "$(printf '%s\n' "$OUT" | jq -c 'select(.event == "sign")' | wc -l)" 1 "the records whole, as JSON"
following() { grep -q 'event=sign decision=allow' "$T/follow"; }
poll_until 10 following
ok $? "tail -f printed the signature as it was written"
kill "$TAIL_PID"
# moved away (logrotate's default): the trail is opened once, before the
# sandboxes close, and goes on where it moved, as keyward(1) says
mv "$A" "$A.1"
run ssh-add -T "$T/keys/k.pub"
ok $RC "a signature after the trail was moved"
poll_until 5 prints 2 grep -c '"event":"sign"' "$A.1"
ok $? "its record is in the moved file"
ok "$([ -e "$A" ] && echo 1 || echo 0)" "and no new file was made at the old name"
stop_agent
ok $? "agent stopped"
done_testing
