#!/bin/bash
# Destination constraints: the issue's demo case,
#   ssh-add -h perseus -h "perseus>scylla" KEY
# the permitted path works, every other one is refused.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

dest_agent
dest_hosts perseus scylla charybdis
dest_key k

dest_add_ok k -h perseus -h "perseus>scylla"

dest_ssh k perseus
dest_row "origin>perseus" ALLOW ok

dest_ssh k perseus scylla
dest_row "perseus>scylla" ALLOW ok
sshd_accepted scylla "$T/keys/k.pub"
ok $? "scylla's sshd logged the accepted login with k (through perseus)"

dest_ssh k scylla
dest_row "origin>scylla" DENY not-offered

dest_ssh k charybdis
dest_row "origin>charybdis" DENY not-offered

dest_ssh k perseus charybdis
dest_row "perseus>charybdis" DENY not-offered

dest_ssh k perseus scylla charybdis
dest_row "perseus>scylla>charybdis" DENY not-offered

dest_ssh k perseus perseus
dest_row "perseus>perseus" DENY not-offered

sshd_accepted charybdis "$T/keys/k.pub"
is $? 1 "charybdis never accepted a login with k"

done_testing
