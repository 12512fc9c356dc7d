#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fault_wrap: the ring wraps many times with two CPUs writing.
#
# null_blk (irqmode=0: completion in the submitting context, the fastest
# path; two submit queues), fio with two jobs pinned to CPU 0 and CPU 1
# issues FAULT_WRAP_RECORDS requests in total (default 200000, 50000 on
# a debug kernel; make soak: 10 million) into a 64 KiB ring, while a
# reader maps the ring and validates every record it copies (ringcheck
# watch: sequence number before and after the copy, COMPLETE flag,
# completion CPU = part, reserved fields zero; heads never go back).
#
# Oracles: fio's own completion counts (JSON total_ios) and the
# /sys/block/<disk>/stat delta; both must equal the ring's completed count,
# and completed = present + overwritten + dropped + filtered, with the
# quiet ring intact afterwards and both per-CPU parts written.
# VM-CHECK: newest
# VM-TIMEOUT: 900
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/fault_lib.sh"

require_cmd fio python3
total=${FAULT_WRAP_RECORDS:-$(kdebug_or 200000 50000)}
per_job=$((total / 2))
ktap_header
out=$(mktemp -d)
nullb_mod nr_devices=1 submit_queues=2 irqmode=0 gb=1
disk=nullb0
quiet_disk $disk
load_iotrace buf_size=64K disks=$disk
udevadm control --stop-exec-queue 2> /dev/null
echo 1 > "$IOT/$disk/clear"
log "$(grep -E 'part_records|nr_parts' "$IOT/$disk/stats" | tr '\n' ' ')"

before=$(blk_ios $disk)
# 200 us between passes: the reader keeps up but leaves CPU time to fio
RINGCHECK_POLL_US=200 "$RINGCHECK" watch "$IOT/$disk/ring" "$out/stop" \
	> "$out/watch" &
watcher=$!
t0=$(cut -d' ' -f1 /proc/uptime)
pids=()
for cpu in 0 1; do
	fio --name=w$cpu --filename=/dev/$disk --direct=1 --ioengine=libaio \
	    --iodepth=16 --rw=randread --bs=4k --size=512m \
	    --offset=$((cpu * 512))m --io_size=$((per_job * 4))k \
	    --cpus_allowed=$cpu --output-format=json \
	    --output="$out/fio.$cpu" &
	pids+=($!)
done
fio_ok=1
for p in "${pids[@]}"; do
	wait "$p" || fio_ok=0
done
t1=$(cut -d' ' -f1 /proc/uptime)
after=$(blk_ios $disk)
touch "$out/stop"
wait $watcher
wrc=$?
echo 0 > "$IOT/$disk/enable"
udevadm control --start-exec-queue 2> /dev/null
sed 's/^/# reader: /' "$out/watch"
ktap_check "fio ran to its request count" test $fio_ok = 1
fio_ios=$(python3 - "$out"/fio.0 "$out"/fio.1 <<'PY'
import json, sys
n = 0
for f in sys.argv[1:]:
    for j in json.load(open(f))['jobs']:
        n += j['read']['total_ios'] + j['write']['total_ios']
print(n)
PY
)
delta=$((after - before))
log "fio total_ios $fio_ios, /sys/block stat delta $delta, $(echo "$t0 $t1" |
	awk '{ printf "%.1f s guest time", $2 - $1 }')"
log "records/s (guest clock): $(echo "$t0 $t1 $delta" |
	awk '{ d = $2 - $1; printf "%.0f", (d > 0 ? $3 / d : 0) }')"
ktap_check "fio completed $total requests ($fio_ios)" test "$fio_ios" -eq "$total"
ktap_check "reader accepted no invalid record, heads never went back" \
	test $wrc -eq 0
ktap_check "reader validated records ($(kv "$out/watch" watch_good))" \
	test "$(kv "$out/watch" watch_good)" -gt 1000

"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
sed 's/^/# check: /' "$out/check"
c() { kv "$out/check" "$1"; }
ktap_check "quiet ring intact after the wraps" test $rc -eq 0
ktap_check "both CPUs wrote their part" test "$(c parts_written)" -eq 2
ktap_check "completed ($(c completed)) = /sys/block stat delta ($delta)" \
	test "$(c completed)" -eq "$delta"
ktap_check "completed = fio's own count" test "$(c completed)" -eq "$fio_ios"
ktap_check "completed = present + overwritten + dropped + filtered" \
	test "$(c completed)" -eq $(($(c present) + $(c overwritten) + \
		$(c dropped) + $(c filtered)))
ktap_check "stats file agrees (completed $(iot_stat $disk completed))" \
	test "$(iot_stat $disk completed)" -eq "$(c completed)"
wraps=$(($(c recorded) / $(c ring_records)))
log "ring of $(c ring_records) records wrapped $wraps times"
ktap_check "ring wrapped at least 20 times ($wraps)" test "$wraps" -ge 20
unload_iotrace
ktap_check "no oops, WARN, BUG or corruption report in the kernel log" fault_splat
rm -rf "$out"
ktap_finish
