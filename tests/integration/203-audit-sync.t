#!/bin/bash
# -O audit-sync=yes, proven as a power cut would test it: the trail lives
# on a small ext4 file system of its own (a loop device over an image file
# in $T); right after a signature returns, the whole agent is SIGKILLed and
# the image is copied at once -- what the disk holds at that instant, what
# would survive the power going. The copy's journal is replayed (e2fsck,
# as the next mount would) and the trail read out of it (debugfs): the
# signature's record is there. Reading the file through the mount would
# not prove it (the page cache survives a kill), nor would fdatasync in an
# strace. The same with audit-sync=no is shown, not asserted (it depends
# on when the kernel writes back). Root only. (keyward only.)
. "$(dirname "$0")/lib.sh"

NTESTS=8
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null ||
	! command -v mkfs.ext4 >/dev/null || ! command -v debugfs >/dev/null; then
	skip_n $NTESTS "needs root, losetup, mkfs.ext4 and debugfs"
	done_testing
fi
LOOP= MNT=$T/mnt
sync_cleanup() {
	local rc=$?
	mountpoint -q "$MNT" 2>/dev/null && umount -l "$MNT"
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	(exit $rc)
	cleanup
}
trap sync_cleanup EXIT

truncate -s 32M "$T/disk.img"
mkfs.ext4 -q -F "$T/disk.img"
ok $? "a 32 MiB ext4 image"
LOOP=$(losetup -f --show "$T/disk.img")
ok $? "on a loop device ($LOOP)" || bail "no loop device"
mkdir -p "$MNT"
mount "$LOOP" "$MNT"
ok $? "mounted on $MNT" || bail "cannot mount"
gen_key k ed25519

# sign_and_cut SYNC: one signature, the agent killed, the disk copied; the
# copy's trail in $T/cut.SYNC
sign_and_cut() {
	local sync=$1 pids
	rm -f "$MNT/trail"
	start_agent -O audit="$MNT/trail" -O audit-sync="$sync" || return 1
	ssh-add "$T/keys/k" >/dev/null 2>&1 || return 1
	# settle what came before (the add), so only the signature is at stake
	sync
	ssh-add -T "$T/keys/k.pub" >/dev/null 2>&1 || return 1
	pids="$SSH_AGENT_PID $(descendants "$SSH_AGENT_PID")"
	# shellcheck disable=SC2086
	kill -KILL $pids
	cp --sparse=always "$T/disk.img" "$T/cut.img"
	for p in $pids; do wait_gone "$p"; done
	unset SSH_AUTH_SOCK SSH_AGENT_PID
	rm -f "$T/agent.sock"
	e2fsck -fy "$T/cut.img" >"$T/e2fsck.$sync" 2>&1
	debugfs -R "cat /trail" "$T/cut.img" >"$T/cut.$sync" 2>/dev/null
	return 0
}

sign_and_cut yes
ok $? "audit-sync=yes: signed, then the agent killed and the disk copied at once"
n=$(grep -c '"event":"sign","conn":[0-9]*.*"decision":"allow"' "$T/cut.yes")
is "$n" 1 "the copy holds the signature's record: it was on disk before the signature left"
jq -e 'select(.event == "sign")' "$T/cut.yes" >/dev/null
ok $? "whole, as JSON"
sign_and_cut no
ok $? "audit-sync=no: the same"
diag "audit-sync=no: the copy holds $(grep -c '"event":"sign"' "$T/cut.no") signature record(s) (writeback decides)"
umount "$MNT"
ok $? "unmounted"
done_testing
