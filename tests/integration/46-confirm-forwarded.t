#!/bin/bash
# Confirm prompts through a forwarded agent, with the real ssh -A: on hopA
# six ssh-keygen -Y sign run at once with a -c key. Each of their agent
# connections is one ssh opened for the forwarded channel and bound first
# to hopA with the forwarding flag, before any byte of the remote client:
# keyward shows at most PROMPT_MAX_PER_HOP (2) of that host's prompts at
# once and the others wait their turn; every signature is made, none
# refused. The askpass holds each prompt until that many are open (or
# 10 s), then a second, and says yes.
# Baseline, stock ssh-agent: the six signatures are made too (one prompt
# at a time: it serves nobody while a prompt is open). Then, keyward
# only, a rule's remembered yes serves the requests that waited.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

NPAR=6
PROMPT_MAX_PER_HOP=2
# A prompt stays open until PROMPT_MAX_PER_HOP have started (at most
# 10 s; stock ssh-agent shows one at a time), then a second more. On a
# loaded machine the six requests can come more than a second apart: a
# prompt closed before the next request came made the prompts look one
# at a time, and below, the rule's remembered yes would answer the second
# request without its prompt.
OPEN_TOGETHER=1
is_keyward && OPEN_TOGETHER=$PROMPT_MAX_PER_HOP
cat >"$T/askpass.sh" <<EOF
#!/bin/sh
kind=other
case "\$1" in *"forwarded agent"*) kind=fwd ;; esac
echo "start \$(date +%s%N) \$kind \$\$" >>"$T/askpass.log"
i=0
while [ \$(grep -c '^start' "$T/askpass.log") -lt $OPEN_TOGETHER ] && [ \$i -lt 100 ]; do
	sleep 0.1
	i=\$((i + 1))
done
sleep 1
echo "end \$(date +%s%N) \$kind \$\$" >>"$T/askpass.log"
echo yes
exit 0
EOF
chmod 755 "$T/askpass.sh"
: >"$T/askpass.log"

dest_hosts hopA
dest_key k
dest_key c
SSH_ASKPASS=$T/askpass.sh DISPLAY=:0 SSH_ASKPASS_REQUIRE=force dest_agent
dest_add_ok k
dest_add_ok c -c

par="i=1; while [ \$i -le $NPAR ]; do ssh-keygen -Y sign -f $(printf %q "$T/keys/c.pub") -n file $(printf %q "$T/par")\$i >/dev/null 2>&1 & i=\$((i + 1)); done; wait"
for i in $(seq "$NPAR"); do echo "data $i" >"$T/par$i"; done
dest_ssh -A -c "$par" k hopA
ok $? "ssh -A hopA, where $NPAR ssh-keygen -Y sign with the -c key run at once"
n=$(ls "$T"/par*.sig 2>/dev/null | wc -l)
is "$n" "$NPAR" "all $NPAR signatures were made, none refused"
for i in $(seq "$NPAR"); do
	ssh-keygen -Y check-novalidate -n file -s "$T/par$i.sig" <"$T/par$i" >/dev/null 2>&1 || n=-1
done
is "$n" "$NPAR" "and each verifies"
diag_file "$T/askpass.log" "askpass log"
is "$(grep -c '^start' "$T/askpass.log")" "$NPAR" "one prompt for each"

if is_keyward; then
	most=$(awk '$3 == "fwd" { print $2, ($1 == "start" ? 1 : -1) }' "$T/askpass.log" |
		sort -n | awk '{ n += $2; if (n > m) m = n } END { print m + 0 }')
	is "$(grep -c '^start [0-9]* fwd' "$T/askpass.log")" "$NPAR" "each prompt says the request comes through a forwarded agent"
	is "$most" "$PROMPT_MAX_PER_HOP" "at most PROMPT_MAX_PER_HOP prompts for hopA were open at once, and that many were"
else
	skip_n 2 "keyward only: the prompt's text and how many are open at once"
fi
stop_agent
ok $? "agent stopped"

# A rule's remember= and the prompts that wait: key r has no -c, a rule
# asks for it and remembers a yes for a minute. Of six signatures at once
# from hopA the first two are asked; the yes they get is remembered, and
# the four that waited find it and sign without a prompt.
if ! is_keyward; then
	skip_n 7 "not keyward: rules"
	done_testing
fi
. "$LIBDIR/lib-rules.sh"
dest_key r
POL=$(rules_file remember "confirm remember=60s key comment r@*")
: >"$T/askpass.log"
rm -f "$T"/par*.sig
SSH_ASKPASS=$T/askpass.sh DISPLAY=:0 SSH_ASKPASS_REQUIRE=force start_agent -O "policy=$POL"
ok $? "keyward started with the rule" || bail "agent did not start"
dest_add_ok k
dest_add_ok r
dest_ssh -A -c "${par//c.pub/r.pub}" k hopA
ok $? "ssh -A hopA, where $NPAR ssh-keygen -Y sign with r run at once"
is "$(ls "$T"/par*.sig 2>/dev/null | wc -l)" "$NPAR" "all $NPAR signatures were made"
diag_file "$T/askpass.log" "askpass log"
is "$(grep -c '^start' "$T/askpass.log")" "$PROMPT_MAX_PER_HOP" \
	"only the first PROMPT_MAX_PER_HOP were asked: the others found the remembered yes"
stop_agent
ok $? "agent stopped"
done_testing
