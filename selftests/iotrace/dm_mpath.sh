#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dm_mpath: a request-based device-mapper disk (dm-multipath, one path on
# a configfs null_blk disk, the path below) gets one record per request,
# as its /sys/block stat counts them.
# Device-mapper ends such a request twice: the clone's completion updates
# it with all its bytes, then blk_mq_end_request() ends it again with none
# left; the second must make no record.  A write in a flush sequence (a
# PREFLUSH write: a journal's commit) ends three times: its data phase
# twice, then the sequence's end.
# Part 1, no write cache: 50 direct reads of 4 KiB and 30 direct writes of
# 8 KiB on the multipath device.  Oracles: the stat deltas of dm-N and of
# the path; dd's own offsets and sizes.  Checked: dm-N's records are
# exactly those 80 (op, sector, bytes), none without its issue, and its
# stat counts as many; the path's records equal its stat delta.
# Part 2, the path with a write cache (so dm-N has one): ext4 on dm-N, ten
# appends each with fsync (journal commits: PREFLUSH and FUA writes).
# Checked: dm-N's read and write records equal its stat's reads and
# writes, none without its issue (but a sync's empty PREFLUSH write, never
# issued itself).
# Part 3, a flush issued before the enable: the path with a write cache
# completes every request 3 s late; an fsync of the multipath device
# sends dm-N a flush, and the module is loaded while it waits.  Checked:
# dm-N's ring has that flush, once, without its issue (a request issued
# before its disk was enabled, abi.rst).  Its stat's flushes are only
# logged: 7.3's dm-N counts none.
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd dmsetup mkfs.ext4
modprobe dm_multipath 2> /dev/null
modprobe dm_round_robin 2> /dev/null
[ -e /dev/mapper/control ] || skip "no device-mapper (dm_mod)"
out=$(mktemp -d)
mnt=$out/mnt
mkdir -p "$mnt"

udev_stop() {
	udevadm control --stop-exec-queue 2> /dev/null
	pkill -STOP -x systemd-udevd
}

udev_go() {
	pkill -CONT -x systemd-udevd
	udevadm control --start-exec-queue 2> /dev/null
}

mp_remove() {
	umount "$mnt" 2> /dev/null
	udev_go
	dmsetup remove iot_mp 2> /dev/null
	nullb_destroy iotmp
}
trap mp_remove EXIT

# mp_make NULL_BLK-ATTRS... - a configfs null_blk disk (as $pb: its
# attributes on every kernel, where 5.10 has no write cache and no memory
# by module parameter), the multipath device iot_mp on it (as $dm), udev
# then kept off it (it would probe the device after a close that wrote)
mp_make() {
	local sz

	mp_remove
	pb=$(nullb_create iotmp submit_queues=2 "$@")
	quiet_disk "$pb"
	sz=$(blockdev --getsz "/dev/$pb")
	dmsetup create iot_mp --table \
		"0 $sz multipath 0 0 1 1 round-robin 0 1 1 $(cat "/sys/block/$pb/dev") 1000" ||
		skip "dmsetup cannot make a multipath device (dm_multipath)"
	settle
	dm=$(basename "$(readlink -f /dev/mapper/iot_mp)")
	log "$dm on $pb ($*): write cache $(cat "/sys/block/$dm/queue/write_cache")"
}

# stat DISK - "READS WRITES" completed
stat_rw() {
	local r w

	read -r r _ _ _ w _ < "/sys/block/$1/stat"
	echo "$r $w"
}

# no_issue FILE - records of a dumpx FILE without their issue
# (IOTRACE_RF_NO_ISSUE, 1 << 7 of rflags), but for an empty PREFLUSH
# write (0 bytes, IOTRACE_RF_PREFLUSH, 1 << 12), never issued itself
# (abi.rst): a sync's
no_issue() {
	awk '{ if (int($4 / 128) % 2 &&
		   !($1 == "write" && $3 == 0 && int($4 / 4096) % 2)) n++ }
	     END { print n + 0 }' "$1"
}

ktap_header 9
unload_iotrace
mp_make
udev_stop
load_iotrace disks=all buf_size=1M
if [ ! -e "$IOT/$dm/ring" ]; then
	# a dm disk the module did not attach (every kernel here attaches it)
	log "$dm is not traced on $(uname -r)"
	unload_iotrace
	for _ in 1 2 3 4 5 6 7 8; do
		ktap_skip "$dm is not traced on this kernel"
	done
	ktap_check "no kernel warnings" no_kernel_splat
	ktap_finish
	exit
fi

# ---- 1: no write cache, direct reads and writes -----------------------
echo 1 > "$IOT/$dm/clear"
echo 1 > "$IOT/$pb/clear"
read -r r0 w0 <<< "$(stat_rw "$dm")"
read -r pr0 pw0 <<< "$(stat_rw "$pb")"
dd if=/dev/mapper/iot_mp of=/dev/null bs=4096 count=50 skip=10 \
	iflag=direct 2> /dev/null
dd if=/dev/zero of=/dev/mapper/iot_mp bs=8192 count=30 seek=100 \
	oflag=direct conv=notrunc 2> /dev/null
read -r r1 w1 <<< "$(stat_rw "$dm")"
read -r pr1 pw1 <<< "$(stat_rw "$pb")"
log "stat deltas: $dm $((r1 - r0)) reads $((w1 - w0)) writes; $pb $((pr1 - pr0)) reads $((pw1 - pw0)) writes"
"$RINGCHECK" dumpx "$IOT/$dm/ring" > "$out/dm"
"$RINGCHECK" dump "$IOT/$pb/ring" > "$out/nb"
{
	for i in $(seq 0 49); do echo "read $(((10 + i) * 8)) 4096"; done
	for i in $(seq 0 29); do echo "write $(((100 + i) * 16)) 8192"; done
} | sort > "$out/want"
awk '{ print $1, $2, $3 }' "$out/dm" | sort > "$out/got"
log "$dm: $(wc -l < "$out/dm") records, $(awk '$3 == 0' "$out/dm" | wc -l) of 0 bytes"
diff "$out/want" "$out/got" | head -n 20 | sed 's/^/# want|got: /'
awk '{ print $4, $3 }' "$out/dm" | sort | uniq -c | sed "s/^/# $dm rflags, bytes: /"
ktap_check "$dm: its stat counts dd's 50 reads and 30 writes" \
	test "$((r1 - r0)) $((w1 - w0))" = "50 30"
ktap_check "$dm: one record per request, as dd made them (op, sector, bytes)" \
	cmp -s "$out/want" "$out/got"
ktap_check "$dm: each with its issue" test "$(no_issue "$out/dm")" = 0
ktap_check "$pb: as many records as its stat counts ($((pr1 - pr0 + pw1 - pw0)))" \
	test "$(wc -l < "$out/nb")" = $((pr1 - pr0 + pw1 - pw0))

# ---- 2: a write cache, ext4's journal commits -------------------------
unload_iotrace
mp_make memory_backed=1 cache_size=64 size=1024
mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 \
	/dev/mapper/iot_mp || die "mkfs.ext4 failed"
modprobe ext4 2> /dev/null
mount -t ext4 -o nodiscard /dev/mapper/iot_mp "$mnt" || die "mount failed"
udev_stop
# nothing in flight at the enable: a request issued before has no issue
sync
sleep 1
load_iotrace disks="$dm" buf_size=1M
read -r r0 w0 <<< "$(stat_rw "$dm")"
for i in $(seq 10); do
	dd if=/dev/urandom of="$mnt/f" bs=4096 count=1 oflag=append \
		conv=notrunc,fsync 2> /dev/null
done
sync
read -r r1 w1 <<< "$(stat_rw "$dm")"
"$RINGCHECK" dumpx "$IOT/$dm/ring" > "$out/dm2"
nr=$(awk '$1 == "read"' "$out/dm2" | wc -l)
nw=$(awk '$1 == "write"' "$out/dm2" | wc -l)
awk '{ print $1, $4, ($3 ? "data" : "empty") }' "$out/dm2" | sort |
	uniq -c | sed "s/^/# $dm op, rflags: /"
log "$dm: stat $((r1 - r0)) reads $((w1 - w0)) writes; records $nr reads $nw writes"
ktap_check "$dm, journal commits: its records' reads and writes are its stat's" \
	test "$nr $nw" = "$((r1 - r0)) $((w1 - w0))" -a $((w1 - w0)) -ge 10
ktap_check "$dm, journal commits: each with its issue" \
	test "$(no_issue "$out/dm2")" = 0
ktap_check "$dm: a write cache (the premise)" \
	grep -q 'write back' "/sys/block/$dm/queue/write_cache"
unload_iotrace
umount "$mnt"

# ---- 3: a flush issued before the enable ------------------------------
# udev kept off from the start: each of its reads would take 3 s
mp_remove
udev_stop
pb=$(udev_queue_stopped=1 nullb_create iotmp submit_queues=2 \
	memory_backed=1 cache_size=64 size=1024 irqmode=2 \
	completion_nsec=3000000000)
quiet_disk "$pb"
dmsetup --noudevsync create iot_mp --table \
	"0 $(blockdev --getsz "/dev/$pb") multipath 0 0 1 1 round-robin 0 1 1 $(cat "/sys/block/$pb/dev") 1000" ||
	die "dmsetup create failed"
dmsetup mknodes iot_mp
# without udev, /dev/mapper/iot_mp is a node of its own, not a link to dm-N
dm=dm-$(dmsetup info -c --noheadings -o minor iot_mp | tr -d ' ')
[ -e "/sys/block/$dm/dm/name" ] || die "no $dm for iot_mp"
read -r _ _ _ _ _ _ _ _ _ _ _ f0 _ < "/sys/block/$dm/stat"
python3 -c 'import os, sys; os.fsync(os.open(sys.argv[1], os.O_WRONLY))' \
	/dev/mapper/iot_mp &
fs=$!
for _ in $(seq 100); do
	read -r a b < "/sys/block/$pb/inflight"
	[ $((a + b)) != 0 ] && break
	sleep 0.05
done
log "$pb in flight at the load: $a $b"
load_iotrace disks="$dm" buf_size=1M
wait $fs
fsrc=$?
read -r _ _ _ _ _ _ _ _ _ _ _ f1 _ < "/sys/block/$dm/stat"
"$RINGCHECK" dumpx "$IOT/$dm/ring" > "$out/dm3"
sed "s/^/# $dm: /" "$out/dm3"
log "$dm: stat ${f0:-?} -> ${f1:-?} flushes"
ktap_check "$dm: the flush in flight at the enable (fsync rc $fsrc), once, without its issue" \
	test "$fsrc $(awk '$1 == "flush" && $3 == 0 && int($4 / 128) % 2' "$out/dm3" | wc -l) $(awk '$1 == "flush"' "$out/dm3" | wc -l)" = "0 1 1"
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
ktap_finish
