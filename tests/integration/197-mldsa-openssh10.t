#!/bin/bash
# ssh-mldsa44-ed25519@openssh.com with OpenSSH 10.5's own tools, beside
# 10.5's ssh-agent: ssh-keygen -t mldsa44-ed25519; ssh-add with -t and
# -c; ssh-keygen -Y sign verified by 10.5's -Y verify; ssh -A logins to a
# 10.5 sshd whose host key is of that type (the session-bind carries its
# signature, which keyward must verify) with a user key of that type;
# ssh-add -h naming that host (a destination constraint with such a host
# key), which lets the key log in there and not to another host.
# Runs only when KEYWARD_OPENSSH_10=PREFIX names an OpenSSH >= 10.4 build
# (PREFIX/bin/ssh-keygen, PREFIX/sbin/sshd); skipped otherwise.
. "$(dirname "$0")/lib.sh"

NCASES=36   # 4, then 16 for each agent
O=${KEYWARD_OPENSSH_10:-}
if [ -z "$O" ] || [ ! -x "$O/bin/ssh-keygen" ] || [ ! -x "$O/sbin/sshd" ] ||
	! "$O/bin/ssh-keygen" -q -t mldsa44-ed25519 -N '' -f "$T/probe" </dev/null >/dev/null 2>&1; then
	skip_n $NCASES "KEYWARD_OPENSSH_10 names no OpenSSH >= 10.4 build"
	done_testing
	exit
fi
export PATH=$O/bin:$PATH
SSHD=$O/sbin/sshd
SSHD_HOSTKEYS=mldsa44-ed25519
mkdir -p "$T/keys"
KEYWARD=$AGENT

gen_key u mldsa44-ed25519
ok $? "10.5 ssh-keygen -t mldsa44-ed25519"
cp "$T/keys/u.pub" "$T/authorized_keys"
gen_key ca mldsa44-ed25519 &&
	ssh-keygen -q -s "$T/keys/ca" -I u-cert -n u@kwtest "$T/keys/u.pub" </dev/null
ok $? "a certificate of the type, signed by a CA of the type"
# 10.5 knows the type but offers and accepts it only when asked.
ALG=ssh-mldsa44-ed25519@openssh.com
start_sshd h1 "HostKeyAlgorithms +$ALG" "PubkeyAcceptedAlgorithms +$ALG" &&
	start_sshd h2 "HostKeyAlgorithms +$ALG" "PubkeyAcceptedAlgorithms +$ALG"
ok $? "two 10.5 sshds with mldsa44-ed25519 host keys"
like "$(cut -d' ' -f2 "$T/known_hosts" | sort -u)" "^ssh-mldsa44-ed25519@openssh.com$" \
	"their known_hosts entries are of that type"
COPT=(-o "HostKeyAlgorithms=+$ALG" -o "PubkeyAcceptedAlgorithms=+$ALG")
# The agent asks for -c confirmations with its own SSH_ASKPASS.
mk_script "$T/askpass.sh" "echo confirm >>'$T/askpass.log'; exit 0"
export SSH_ASKPASS=$T/askpass.sh SSH_ASKPASS_REQUIRE=force DISPLAY=:0

for AGENT in "$KEYWARD" "$O/bin/ssh-agent"; do
	who=$(basename "$AGENT")
	: >"$T/askpass.log"
	start_agent
	ok $? "$who: started"
	run ssh-add -t 600 "$T/keys/u"
	ok "$RC" "$who: 10.5 ssh-add -t 600 of the key"
	run ssh-add -l
	contains "$OUT" "$(fp "$T/keys/u.pub") u@kwtest (MLDSA44-ED25519)" "$who: ssh-add -l lists it"

	echo "data for SSHSIG" >"$T/msg"
	rm -f "$T/msg.sig"
	run ssh-keygen -Y sign -f "$T/keys/u.pub" -n file "$T/msg"
	ok "$RC" "$who: ssh-keygen -Y sign through the agent"
	echo "u@kwtest $(cut -d' ' -f1,2 "$T/keys/u.pub")" >"$T/allowed"
	run ssh-keygen -Y verify -f "$T/allowed" -I u@kwtest -n file -s "$T/msg.sig" <"$T/msg"
	ok "$RC" "$who: 10.5 ssh-keygen -Y verify accepts it"

	# A login with the agent forwarded: ssh binds the agent to h1's
	# mldsa44-ed25519 host key; the remote side lists through it.
	run ssh_as h1 "$T/keys/u.pub" "${COPT[@]}" -A -- "$O/bin/ssh-add -l"
	ok "$RC" "$who: ssh -A login to h1 with the key from the agent"
	contains "$OUT" "(MLDSA44-ED25519)" "$who: the forwarded agent lists the key on h1"

	run ssh-add -D
	# Destination constraint naming h1 by its mldsa44-ed25519 host key.
	run ssh-add -H "$T/known_hosts" -h h1 "$T/keys/u"
	ok "$RC" "$who: ssh-add -h h1 (host key from known_hosts, mldsa44-ed25519)"
	run ssh_as h1 "$T/keys/u.pub" "${COPT[@]}" -- true
	ok "$RC" "$who: constrained key logs in to h1"
	run ssh_as h2 "$T/keys/u.pub" "${COPT[@]}" -- true
	isnt_rc=$([ "$RC" != 0 ] && echo refused || echo allowed)
	is "$isnt_rc" refused "$who: constrained key does not log in to h2"

	run ssh-add -D
	: >"$T/askpass.log"
	run ssh-add -c "$T/keys/u"
	ok "$RC" "$who: ssh-add -c"
	rm -f "$T/msg.sig"
	run ssh-keygen -Y sign -f "$T/keys/u.pub" -n file "$T/msg"
	ok "$RC" "$who: confirmed key signs"
	is "$(grep -c confirm "$T/askpass.log")" 1 "$who: the agent asked once for the confirmation"

	run ssh-add -d "$T/keys/u.pub"
	ok "$RC" "$who: ssh-add -d removes it"

	# A certificate of the type, from a CA of the type.
	run ssh-add "$T/keys/u"
	run ssh-add -l
	contains "$OUT" "(MLDSA44-ED25519-CERT)" "$who: the certificate is listed beside its key"
	rm -f "$T/msg.sig"
	run ssh-keygen -Y sign -f "$T/keys/u-cert.pub" -n file "$T/msg"
	echo "u@kwtest cert-authority $(cut -d' ' -f1,2 "$T/keys/ca.pub")" >"$T/allowed-ca"
	run ssh-keygen -Y verify -f "$T/allowed-ca" -I u@kwtest -n file -s "$T/msg.sig" <"$T/msg"
	ok "$RC" "$who: SSHSIG with the certificate verifies against its CA"
	run ssh-add -D
	stop_agent
done

done_testing
