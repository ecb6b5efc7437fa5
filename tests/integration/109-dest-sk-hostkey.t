#!/bin/bash
# A server whose host key is one keyward once could not read. The host
# "hostile" is a real sshd whose only host key is a FIDO key
# (sk-ssh-ed25519) with a 1,100-byte application; sshd signs with it
# through HostKeyAgent, a stock ssh-agent holding the key on the test
# token. OpenSSH's ssh accepts it (the user's known_hosts has it); keyward
# capped such applications at 1,024 bytes, so the user's own session-bind
# failed, and hostile's next bind (its own "ssh prod") became the
# connection's first binding: a key added with "ssh-add -h prod" then
# logged hostile in to prod, and the prod example of keyward(5) signed
# there without a prompt after the user's yes.
#
# Here, through the user's real ssh -A and hostile's real ssh:
#   - the user's bind to hostile is taken, with hostile's host key as the
#     first binding (the audit trail's bind record);
#   - "ssh-add -h prod": hostile's ssh to prod is not let in; the user's
#     own ssh to prod is (the constraint works, it is not merely broken);
#   - keyward(5)'s prod example: the user's own login to prod is asked
#     once and remembered; hostile's ssh prod is refused and never asked.
# The -h part is the same against stock ssh-agent (the baseline: it reads
# the host key and refuses hostile); the rules part is keyward's alone.
# With the 1,024-byte cap put back in keys/sshkey.c the bind is refused and
# the audit checks here fail while hostile still gets nothing (the failed
# bind counts as forwarded from an unknown host); with the cap back and a
# refused bind no longer marking the connection, hostile logs in to prod.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-sk.sh"
. "$LIBDIR/lib-rules.sh"

CTL=$KEYWARD_BUILD/keyward-ctl
APP_LEN=1100

gen_key login ed25519 || bail "ssh-keygen login"
gen_key prod ed25519 || bail "ssh-keygen prod"
ssh-keygen -q -c -C "prod-key" -f "$T/keys/prod" >/dev/null 2>&1 || bail "comment prod"
cat "$T/keys/login.pub" "$T/keys/prod.pub" >>"$T/authorized_keys"
PRODFP=$(fp "$T/keys/prod.pub")

# hostile's host key: on the test token, application "ssh:aaa...a"
app="ssh:$(head -c $((APP_LEN - 4)) /dev/zero | tr '\0' a)"
sk_key hostsk ed25519-sk -O "application=$app"
app_got=$(ssh-keygen -lf "$T/keys/hostsk.pub" >/dev/null && perl -MMIME::Base64 -ne '
	my $b = decode_base64((split)[1]); my $o = 0;
	my $s = sub { my $n = unpack("N", substr($b, $o, 4)); my $v = substr($b, $o + 4, $n); $o += 4 + $n; $v };
	$s->(); $s->(); print length($s->())' "$T/keys/hostsk.pub")
is "$app_got" "$APP_LEN" "hostile's FIDO host key has a $APP_LEN-byte application"
HOSTSKFP=$(fp "$T/keys/hostsk.pub")

# sshd signs with it through a stock ssh-agent of its own (HostKeyAgent)
HA=$T/hostkey-agent.sock
/usr/bin/ssh-agent -D -a "$HA" -P "$ALLOW" >/dev/null 2>"$T/hostkey-agent.log" &
EXTRA_PIDS+=("$!")
wait_for_socket "$HA" 10 || bail "the host key agent did not start"
SSH_AUTH_SOCK=$HA ssh-add -S "$SO" "$T/keys/hostsk" </dev/null >/dev/null 2>&1 ||
	bail "the host key agent did not take hostile's FIDO key"
chmod 600 "$T/keys/hostsk.pub"   # sshd reads HostKey files as it reads private ones
SSHD_HOSTKEYS="" start_sshd hostile "HostKey $T/keys/hostsk.pub" "HostKeyAgent $HA" ||
	bail "sshd hostile did not start"
echo "hostile $(cut -d' ' -f1,2 "$T/keys/hostsk.pub")" >>"$T/known_hosts"
start_sshd prod || bail "sshd prod did not start"

# via_hostile [KEY]: the user's ssh -A hostile, whose session runs ssh prod
# with KEY (default prod) through the forwarded agent
via_hostile() {
	local key=$T/keys/${1:-prod}.pub
	: >"$(sshd_log prod)"
	run nocaps timeout 60 ssh -n -A -F "$T/ssh_config" -o "IdentityFile=$T/keys/login.pub" \
		hostile "ssh -n -F $(printf %q "$T/ssh_config") -o IdentityFile=$(printf %q "$key") prod echo reached-prod"
}
from_user() { # the user's own ssh to prod with key prod
	: >"$(sshd_log prod)"
	run nocaps timeout 60 ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/prod.pub" prod echo reached-prod
}
prod_accepted() { sshd_accepted prod "$T/keys/prod.pub"; }

# ------------------------------------------------------------ ssh-add -h prod
rules_askpass
rules_agent ""
run ssh-add "$T/keys/login"
ok "$RC" "the user adds the login key"
DEST_KH=$T/known_hosts
run ssh-add -H "$T/known_hosts" -h prod "$T/keys/prod"
ok "$RC" "the user adds the prod key with -h prod"
hide_key login
hide_key prod

run nocaps timeout 60 ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/login.pub" hostile echo on-hostile
is "$RC:$OUT" "0:on-hostile" "the user's ssh logs in to hostile (the FIDO host key is accepted)"
via_hostile login
is "$RC:$OUT" "0:reached-prod" "hostile's ssh prod with the unconstrained login key gets in (the path works)"
via_hostile
unlike "$OUT" reached-prod "-h prod: hostile's ssh prod through the forwarded agent does not get in"
prod_accepted
is "$?" 1 "-h prod: prod's sshd accepted no login with the prod key from hostile"
from_user
is "$RC:$OUT" "0:reached-prod" "-h prod: the user's own ssh to prod gets in"
if is_keyward; then
	binds=$(audit_sel 'select(.event == "bind" and .decision == "allow") | .path[0].host_key' | sort -u)
	contains "$binds" "$HOSTSKFP" "the user's session-bind to hostile is taken: hostile's FIDO key is a first binding"
	is "$(audit_count 'select(.event == "bind" and .decision == "refuse")')" 0 \
		"no session-bind was refused"
	is "$(audit_count 'select(.bind_failed == true)')" 0 "no record of a connection whose bind failed"
else
	skip_n 3 "keyward's audit trail"
fi
stop_agent

# ------------------------------------------------------ keyward(5)'s prod example
if is_keyward; then
	POL=$(rules_file prod "confirm remember=10m key comment prod* caller /usr/bin/ssh" \
		"deny    key comment prod*")
	rules_askpass
	: >"$AUDIT"
	rules_agent "$POL"
	unhide_key login; unhide_key prod
	run ssh-add "$T/keys/login" "$T/keys/prod"
	ok "$RC" "the user adds the login and prod keys (no constraint)"
	hide_key login; hide_key prod
	from_user
	is "$RC:$OUT" "0:reached-prod" "prod example: the user's own ssh to prod, asked"
	is "$(prompts)" 1 "... asked once (yes)"
	echo no >"$T/askpass.mode"
	from_user
	is "$RC:$OUT" "0:reached-prod" "prod example: again, the yes remembered"
	is "$(prompts)" 1 "... not asked again"
	NOTALLOWED='select(.event == "sign" and .decision != "allow")'
	n=$(audit_count "$NOTALLOWED")
	via_hostile
	unlike "$OUT" reached-prod "prod example: hostile's ssh prod after the user's yes does not get in"
	prod_accepted
	is "$?" 1 "prod example: prod's sshd accepted no login with the prod key from hostile"
	is "$(prompts)" 1 "... and the user was never asked for it"
	audit_await "$n" "$NOTALLOWED"
	refused=$(audit_sel "$NOTALLOWED | .path[0].host_key" | sort -u)
	contains "$refused" "$HOSTSKFP" "the refusal is recorded on a connection bound first to hostile"
	stop_agent
else
	skip_n 11 "keyward's rules"
fi
done_testing
