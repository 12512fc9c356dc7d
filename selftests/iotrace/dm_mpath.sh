#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dm_mpath: a request-based device-mapper disk (dm-multipath, one path on
# nullb0) gets one record per request, as its /sys/block stat counts them.
# Device-mapper ends such a request twice: the clone's completion updates
# it with all its bytes, then blk_mq_end_request() ends it again with none
# left; the second must make no record.
# 50 direct reads of 4 KiB and 30 direct writes of 8 KiB on the multipath
# device.  Oracles: the stat deltas of dm-N and of nullb0; dd's own
# offsets and sizes.  Checked: dm-N's records are exactly those 80 (op,
# sector, bytes), none without its issue, and its stat counts as many;
# nullb0's records equal its stat delta.
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd dmsetup
modprobe dm_multipath 2> /dev/null
modprobe dm_round_robin 2> /dev/null
[ -e /dev/mapper/control ] || skip "no device-mapper (dm_mod)"
unload_iotrace
nullb_mod nr_devices=1 submit_queues=2
quiet_disk nullb0
sz=$(blockdev --getsz /dev/nullb0)
dmsetup remove iot_mp 2> /dev/null
dmsetup create iot_mp --table \
	"0 $sz multipath 0 0 1 1 round-robin 0 1 1 $(cat /sys/block/nullb0/dev) 1000" ||
	skip "dmsetup cannot make a multipath device (dm_multipath)"
settle
dm=$(basename "$(readlink -f /dev/mapper/iot_mp)")
out=$(mktemp -d)
# only dd reads: udev would probe the device after dd's writes close it
udevadm control --stop-exec-queue 2> /dev/null
pkill -STOP -x systemd-udevd
trap 'pkill -CONT -x systemd-udevd; udevadm control --start-exec-queue;
      dmsetup remove iot_mp 2> /dev/null' EXIT

ktap_header 5
load_iotrace disks=all buf_size=1M
if [ ! -e "$IOT/$dm/ring" ]; then
	# 5.10 adds a dm disk before its queue: never attached
	log "$dm is not traced on $(uname -r)"
	unload_iotrace
	for _ in 1 2 3 4; do
		ktap_skip "$dm is not traced on this kernel"
	done
	ktap_check "no kernel warnings" no_kernel_splat
	ktap_finish
	exit
fi
echo 1 > "$IOT/$dm/clear"
echo 1 > "$IOT/nullb0/clear"
read -r r0 _ _ _ w0 _ < "/sys/block/$dm/stat"
read -r pr0 _ _ _ pw0 _ < /sys/block/nullb0/stat
dd if=/dev/mapper/iot_mp of=/dev/null bs=4096 count=50 skip=10 \
	iflag=direct 2> /dev/null
dd if=/dev/zero of=/dev/mapper/iot_mp bs=8192 count=30 seek=100 \
	oflag=direct conv=notrunc 2> /dev/null
read -r r1 _ _ _ w1 _ < "/sys/block/$dm/stat"
read -r pr1 _ _ _ pw1 _ < /sys/block/nullb0/stat
log "stat deltas: $dm $((r1 - r0)) reads $((w1 - w0)) writes; nullb0 $((pr1 - pr0)) reads $((pw1 - pw0)) writes"
"$RINGCHECK" dumpx "$IOT/$dm/ring" > "$out/dm"
"$RINGCHECK" dump "$IOT/nullb0/ring" > "$out/nb"
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
# IOTRACE_RF_NO_ISSUE (1 << 7, rflags): a record without its issue
ktap_check "$dm: each with its issue" \
	sh -c "awk '{ if (int(\$4 / 128) % 2) bad++ } END { exit bad > 0 }' '$out/dm'"
ktap_check "nullb0: as many records as its stat counts ($((pr1 - pr0 + pw1 - pw0)))" \
	test "$(wc -l < "$out/nb")" = $((pr1 - pr0 + pw1 - pw0))
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
ktap_finish
