#!/bin/bash
# The confirm prompt's askpass holds only 0, 1 and 2: started through the
# one spawn routine (ipc/spawn.c), it gets /dev/null, the answer pipe and
# stderr, and nothing of the prompter's (its channel to policy would let
# askpass, or anything it leaves running, answer other prompts). The
# askpass lists its descriptors from inside with ls -l /proc/self/fd; ls
# adds one of its own, the directory it reads, which is left out.
# Stock ssh-agent: its askpass's descriptors are listed and shown only.
. "$(dirname "$0")/lib.sh"

cat >"$T/askpass.sh" <<EOF
#!/bin/sh
ls -l /proc/self/fd >"$T/fds.ls"
echo yes
exit 0
EOF
chmod 755 "$T/askpass.sh"
echo "data to sign" >"$T/data"

gen_key conf ed25519 || bail "ssh-keygen conf"
SSH_ASKPASS=$T/askpass.sh DISPLAY=:0 SSH_ASKPASS_REQUIRE=force start_agent
ok $? "agent started" || bail "agent did not start"
run ssh-add -c "$T/keys/conf"
ok $RC "ssh-add -c conf"
hide_key conf

run ssh-keygen -Y sign -f "$T/keys/conf.pub" -n file "$T/data"
ok $RC "the confirm key signs: askpass ran and said yes"
diag_file "$T/fds.ls" "ls -l /proc/self/fd from inside askpass"
# "lrwx------ 1 root root 64 ... 3 -> /proc/1234/fd": the fd number is the
# field before "->"; ls's own directory is the one pointing at a /proc fd dir.
fds=$(awk '$(NF-1) == "->" && $NF !~ /^\/proc\/[0-9]+\/fd$/ { print $(NF-2) }' \
	"$T/fds.ls" | sort -n | tr '\n' ' ')
if is_keyward; then
	is "$fds" "0 1 2 " "askpass holds fds 0, 1 and 2 only"
	stdin=$(awk '$(NF-2) == "0" { print $NF }' "$T/fds.ls")
	is "$stdin" /dev/null "its stdin is /dev/null"
else
	diag "stock ssh-agent's askpass holds: $fds"
	skip_n 2 "keyward only: the descriptors askpass holds"
fi
stop_agent
ok $? "agent stopped"
done_testing
