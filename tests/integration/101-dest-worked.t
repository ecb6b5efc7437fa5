#!/bin/bash
# Destination constraints: the worked example of doc/protocol.md §8.11 with the real
# tools, user root in place of perseus/medea (users: 103-dest-users.t):
#   ssh-add -H kh -h scylla -h "scylla>charybdis" KEY
# perseus plays "elsewhere".
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

dest_agent
dest_hosts scylla charybdis perseus
dest_key k

dest_add_ok k -h scylla -h "scylla>charybdis"
is "$(count_ids)" 1 "the key is listed locally (local, unbound connection)"

dest_ssh k scylla
dest_row "origin>scylla" ALLOW ok
sshd_accepted scylla "$T/keys/k.pub"
ok $? "scylla's sshd logged the accepted publickey login with k"

dest_ssh -o PubkeyAuthentication=unbound k scylla
dest_row "origin>scylla(plain publickey)" ALLOW ok

dest_ssh k charybdis
dest_row "origin>charybdis" DENY not-offered

dest_ssh k perseus
dest_row "origin>perseus" DENY not-offered

dest_ssh -m list k scylla
dest_row "list@scylla" ALLOW listed

dest_ssh k scylla charybdis
dest_row "scylla>charybdis" ALLOW ok
sshd_accepted charybdis "$T/keys/k.pub"
ok $? "charybdis' sshd logged the accepted publickey login with k"

dest_ssh k scylla perseus
dest_row "scylla>perseus(elsewhere)" DENY not-offered

dest_ssh -m list k scylla charybdis
dest_row "list@scylla>charybdis" DENY empty

dest_ssh -o PubkeyAuthentication=unbound k scylla charybdis
dest_row "scylla>charybdis(plain publickey)" DENY refused-sign

dest_ssh -m sshsig k scylla
dest_row "sshsig@scylla" DENY refused

dest_ssh -m sshsig k
dest_row "sshsig@local" DENY refused

dest_ssh -m test k
dest_row "ssh-add-T@local" DENY refused

done_testing
