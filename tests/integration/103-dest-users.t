#!/bin/bash
# Destination constraints with user names (doc/protocol.md §8.11 with real users):
#   ssh-add -h "kwperseusN@scylla" -h "scylla>kwmedeaN@charybdis" KEY
# The right user works; another user (root) is refused at signing time while
# the key is still listed (user patterns are ignored when listing). Needs
# root to create the users; otherwise visible skips.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

NROWS=17
UP=kwperseus$$ UM=kwmedea$$
if ! dest_users_setup "$UP" "$UM"; then
	skip_n $NROWS "user-restricted hops need root and useradd (uid $(id -u))"
	done_testing
fi
ok 0 "local test users $UP and $UM created"

dest_agent
dest_hosts scylla charybdis
dest_key k

dest_add_ok k -h "$UP@scylla" -h "scylla>$UM@charybdis"

dest_ssh k "$UP@scylla"
dest_row "origin>perseus@scylla" ALLOW ok
grep -F "Accepted publickey for $UP " "$(sshd_log scylla)" | grep -qF "$(dest_fp k)"
ok $? "scylla's sshd logged the accepted login of $UP with k"

dest_ssh k "root@scylla"
dest_row "origin>root@scylla" DENY refused-sign

dest_ssh k "$UP@charybdis"
dest_row "origin>perseus@charybdis" DENY not-offered

dest_ssh -m list k "$UP@scylla"
dest_row "list@perseus@scylla" ALLOW listed

dest_ssh k "$UP@scylla" "$UM@charybdis"
dest_row "perseus@scylla>medea@charybdis" ALLOW ok
grep -F "Accepted publickey for $UM " "$(sshd_log charybdis)" | grep -qF "$(dest_fp k)"
ok $? "charybdis' sshd logged the accepted login of $UM with k"

dest_ssh k "$UP@scylla" "root@charybdis"
dest_row "perseus@scylla>root@charybdis" DENY refused-sign

dest_ssh k "$UP@scylla" "$UP@charybdis"
dest_row "perseus@scylla>perseus@charybdis" DENY refused-sign

dest_ssh -m list k "$UP@scylla" "$UM@charybdis"
dest_row "list@perseus@scylla>medea@charybdis" DENY empty

# wildcard user pattern (doc/protocol.md §8.1 wmatch), one hop from the origin
dest_add_ok k -h "kwp*@scylla"
dest_ssh k "$UP@scylla"
dest_row "wildcard kwp*: origin>perseus@scylla" ALLOW ok
dest_ssh k "$UM@scylla"
dest_row "wildcard kwp*: origin>medea@scylla" DENY refused-sign

done_testing
