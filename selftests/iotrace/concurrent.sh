#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# concurrent: both CPUs issue and complete (null_blk timer completions, which
# interrupt issuing code on the same CPU) for 20 s into a small ring that
# wraps, while two readers map it and validate every record they copy (one
# slow on purpose, so that the writers lap it).
# Afterwards the ring is intact and the counts exact.
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
ktap_header 9
out=$(mktemp -d)
secs=20
nullb_mod nr_devices=1 submit_queues=2 irqmode=2 completion_nsec=20000
disk=nullb0
quiet_disk $disk
load_iotrace buf_size=256K disks=$disk

udevadm control --stop-exec-queue 2> /dev/null
echo 1 > "$IOT/$disk/clear"
before=$(blk_ios $disk)
"$RINGCHECK" watch "$IOT/$disk/ring" "$out/stop" > "$out/watch" &
watcher=$!
RINGCHECK_SLOW_US=2000 "$RINGCHECK" watch "$IOT/$disk/ring" "$out/stop" \
	> "$out/slow" &
slow=$!
for cpu in 0 1; do
	fio --name=j$cpu --filename=/dev/$disk --direct=1 --ioengine=libaio \
	    --iodepth=16 --rw=randrw --bs=4k --time_based --runtime=$secs \
	    --size=1g --cpus_allowed=$cpu --output=/dev/null &
	fios="$fios $!"
done
inflight_ok=1
for i in 1 2 3 4 5; do
	sleep 2
	head -1 "$IOT/$disk/inflight" |
		grep -qx 'ISSUE_NS AGE_US OP SECTOR BYTES HWQ TAG CPU PID' ||
		inflight_ok=0
	cat "$IOT/$disk/stats" > /dev/null || inflight_ok=0
done
wait $fios
touch "$out/stop"
wait $watcher
wrc=$?
wait $slow
src=$?
after=$(blk_ios $disk)
echo 0 > "$IOT/$disk/enable"
udevadm control --start-exec-queue 2> /dev/null
cat "$out/watch"
ktap_check "inflight and stats readable during the run" test $inflight_ok -eq 1
ktap_check "reader saw no invalid record, heads never went back" test $wrc -eq 0
ktap_check "reader validated records" test "$(kv "$out/watch" watch_good)" -gt 1000
sed 's/^/# slow reader: /' "$out/slow"
ktap_check "a lapped slow reader accepted no invalid record" test $src -eq 0
# lapped: a gap between two records it took, or a chunk recycled under it
ktap_check "and was lapped" \
	test $(($(kv "$out/slow" watch_overrun) + $(kv "$out/slow" watch_recycled))) -gt 0
"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
cat "$out/check"
ktap_check "ring intact after the run" test $rc -eq 0
delta=$((after - before))
log "stat delta $delta"
ktap_check "completed = stat delta ($delta)" \
	test "$(kv "$out/check" completed)" -eq "$delta"
present=$(kv "$out/check" present)
ktap_check "present + overwritten + dropped = stat delta" \
	test $((present + $(kv "$out/check" overwritten) + $(kv "$out/check" dropped))) -eq "$delta"
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
