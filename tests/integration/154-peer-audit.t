#!/bin/bash
# With keyward-peer asked at every accept (monitor/whois.c), an audit record
# (-O audit=FILE) of a real signature names the real program: ssh-keygen
# -Y sign and ssh-add -T each appear as "peer" with status "ok", their own
# exe and command line, and this shell among their ancestors. keyward only.
#
# As root the agent and its clients run as a uid of their own (nobody, 65534: the ssh tools want a passwd entry): the
# inspector has no capabilities, so root's processes are "unreadable" to
# it, as another user's are to a user's agent.
. "$(dirname "$0")/lib.sh"

NTESTS=14
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi

U=$T/u
mkdir -p "$U"
if [ "$(id -u)" = 0 ]; then
	chmod 0711 "$T"
	chown 65534:65534 "$U"
	AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
	AS=()
fi
as() { "${AS[@]}" env HOME="$U" SSH_AUTH_SOCK="$U/sock" "$@"; }
as ssh-keygen -q -t ed25519 -N '' -C k154 -f "$U/k" || bail "ssh-keygen"
echo data >"$U/data"
[ "$(id -u)" = 0 ] && chown 65534:65534 "$U/data"
KEYGEN=$(readlink -f "$(command -v ssh-keygen)")
SSHADD=$(readlink -f "$(command -v ssh-add)")

as "$AGENT" -d -a "$U/sock" -O audit="$U/audit.json" -O audit-sync=yes \
	>"$T/agent.out" 2>"$T/agent.log" &
AGENT_PIDS+=("$!")
wait_for_socket "$U/sock" 10
ok $? "keyward runs as uid $("${AS[@]}" id -u)" || bail "keyward did not start"
as ssh-add "$U/k" 2>/dev/null
ok $? "key added"

# ---------------------------------------------------------- ssh-keygen -Y sign
run as ssh-keygen -Y sign -f "$U/k.pub" -n file "$U/data"
ok $RC "ssh-keygen -Y sign through the agent"
rec=$(grep '"peer"' "$U/audit.json" | tail -n 1)
run jq -r '.peer.status' <<<"$rec"
is "$OUT" ok "ssh-keygen's record: peer status ok"
run jq -r '.peer.exe' <<<"$rec"
is "$OUT" "$KEYGEN" "ssh-keygen's record: peer exe is $KEYGEN"
run jq -r '.peer.cmdline' <<<"$rec"
like "$OUT" "ssh-keygen -Y sign -f $U/k.pub -n file" "ssh-keygen's record: its command line"
jq -r '.peer.ancestors[].pid' <<<"$rec" | grep -qx "$$"
ok $? "ssh-keygen's record: this shell ($$) is among its ancestors"

# ---------------------------------------------------------- ssh-add -T
n0=$(grep -c '"peer"' "$U/audit.json")
run as ssh-add -T "$U/k.pub"
ok $RC "ssh-add -T: the agent signs"
n1=$(grep -c '"peer"' "$U/audit.json")
[ "$n1" -gt "$n0" ]
ok $? "ssh-add -T left a record ($n0 -> $n1)"
rec=$(grep '"peer"' "$U/audit.json" | tail -n 1)
run jq -r '.peer.status' <<<"$rec"
is "$OUT" ok "ssh-add's record: peer status ok"
run jq -r '.peer.exe' <<<"$rec"
is "$OUT" "$SSHADD" "ssh-add's record: peer exe is $SSHADD"
run jq -r '.peer.pid' <<<"$rec"
like "$OUT" '^[1-9][0-9]*$' "ssh-add's record: its pid"

# ---------------------------------------------------------- the log
contains "$(cat "$T/agent.log")" "peer sandbox active" "keyward-peer started sandboxed beside the agent"
unlike "$(cat "$T/agent.log")" "callers are unavailable" "the inspector was never given up on"

[ "$TESTNUM" = "$NTESTS" ] || diag "test count $TESTNUM != NTESTS $NTESTS: fix NTESTS"
done_testing
