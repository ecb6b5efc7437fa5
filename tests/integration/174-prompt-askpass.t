#!/bin/bash
# The confirm prompt in Debian's default askpass, x11-ssh-askpass (package
# ssh-askpass, not a UTF-8 reader), on a 1024x600 Xvfb screen: a local
# ssh-keygen -Y sign with a confirm key. The dialog is at most 640 px
# wide, measured twice (xwininfo's geometry, and the grey box in a
# screenshot, ImageMagick); the text askpass was given (read back by a
# wrapper that then runs the real askpass) is 2 to 5 lines, plain ASCII,
# asks first what to decide, and does not alarm about a local tool that
# never binds. The dialog is closed unanswered: the signature is refused.
# check: early (one of the longest files: make check starts it first)
. "$(dirname "$0")/lib.sh"

NTESTS=9
ASKPASS_BIN=/usr/libexec/ssh-askpass/x11-ssh-askpass
[ -x "$ASKPASS_BIN" ] || ASKPASS_BIN=/usr/lib/ssh/x11-ssh-askpass
for c in Xvfb xwininfo import convert; do
	command -v "$c" >/dev/null || bail "$c is needed (make deps: xvfb x11-utils imagemagick)"
done
[ -x "$ASKPASS_BIN" ] || bail "x11-ssh-askpass is needed (make deps: ssh-askpass)"
if ! is_keyward; then
	skip_n $NTESTS "keyward's prompt wording"
	done_testing
fi

Xvfb -displayfd 5 -screen 0 1024x600x24 -nolisten tcp 5>"$T/display" 2>"$T/xvfb.log" &
EXTRA_PIDS+=($!)
poll_until 10 test -s "$T/display" || bail "Xvfb did not start"
export DISPLAY=:$(head -1 "$T/display")

# As an ordinary user when run as root: root's processes are closed to
# the inspector, and the caller's line (its command line) is the long one.
U=$T/u
as=()
mkdir -m 777 "$U"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
	chmod 711 "$T"
fi
cat >"$U/askpass.sh" <<EOF
#!/bin/sh
echo \$\$ >"$U/askpass.pid"
printf '%s' "\$1" >"$U/prompt.txt"
exec "$ASKPASS_BIN" "\$1"
EOF
chmod 755 "$U/askpass.sh"
export SSH_ASKPASS=$U/askpass.sh SSH_ASKPASS_REQUIRE=force HOME=$U

"${as[@]}" ssh-keygen -q -N '' -t ed25519 -C k@kwtest -f "$U/k" </dev/null >/dev/null
"${as[@]}" "$AGENT" -D -a "$U/agent.sock" >/dev/null 2>"$T/agent.log" &
AGENT_PIDS+=($!)
wait_for_socket "$U/agent.sock" 10 || bail "agent did not start"
export SSH_AUTH_SOCK=$U/agent.sock
run "${as[@]}" ssh-add -c "$U/k"
ok $RC "a confirm key is added"
echo data >"$U/data"
chmod 644 "$U/data"
"${as[@]}" ssh-keygen -Y sign -f "$U/k.pub" -n file "$U/data" >/dev/null 2>&1 &
SIGNER=$!
EXTRA_PIDS+=("$SIGNER")
dialog() { xwininfo -root -tree 2>/dev/null | grep '"x11-ssh-askpass"'; }
poll_until 15 dialog
ok $? "the askpass dialog is on the screen" || diag "$(cat "$T/xvfb.log")"
sleep 0.5 # drawn
geom=$(dialog | grep -oE '[0-9]+x[0-9]+\+-?[0-9]+\+-?[0-9]+' | head -1)
width=${geom%%x*}
diag "xwininfo: $geom"
ok "$([ -n "$width" ] && [ "$width" -le 640 ] && echo 0 || echo 1)" "the dialog is at most 640 px wide (xwininfo: ${width:-none})"
import -window root "$T/shot.png" 2>/dev/null
# the screen is black; what trim leaves is the dialog
shotw=$(convert "$T/shot.png" -trim -format '%w' info: 2>/dev/null)
diag "screenshot: the dialog is $shotw px wide"
ok "$([ -n "$shotw" ] && [ "$shotw" -le 640 ] && echo 0 || echo 1)" "in the screenshot too (${shotw:-none} px)"
text=$(cat "$U/prompt.txt")
diag "$text"
lines=$(printf '%s\n' "$text" | wc -l)
ok "$([ "$lines" -ge 2 ] && [ "$lines" -le 5 ] && echo 0 || echo 1)" "2 to 5 lines ($lines)"
like "$(printf '%s\n' "$text" | head -1)" '^Allow use of key .*\?$' "the first line asks what to decide"
ok "$(LC_ALL=C grep -q '[^ -~]' "$U/prompt.txt"; [ $? = 1 ] && echo 0 || echo 1)" "plain ASCII: nothing the askpass would show as mojibake"
unlike "$text" "cannot tell where" "a local ssh-keygen is not announced as a mystery"
kill "$(cat "$U/askpass.pid")"
wait "$SIGNER"
ok "$([ $? != 0 ] && echo 0 || echo 1)" "the dialog closed unanswered: the signature is refused"
done_testing
