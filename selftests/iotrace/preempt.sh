#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# preempt: the probes hold their CPU while tasks are preempted and migrate.
#
# Since 7.x tracepoint probes run preemptible (under SRCU), and a task that
# migrates between choosing its CPU's part and publishing the record would
# write into another CPU's part.  Here the probes run in process context
# (null_blk irqmode=0: the completion too, inside the submitter's call),
# eight unpinned fio jobs and a CPU hog share the two vCPUs (preempt=full
# where the kernel lets the mode be chosen), so tasks are preempted and
# moved between CPUs in the middle of their I/O, while a reader validates
# every record it copies (ringcheck watch) from a small ring that wraps.
#
# Oracles: the reader accepted no invalid record; the quiet ring is intact;
# completed = /sys/block/<disk>/stat delta = fio's own count =
# present + overwritten + dropped + filtered; no WARN (an IOTRACE_DEBUG
# build asserts in every probe that it cannot be preempted).
# VM-TIMEOUT: 300
# VM-SMP: 2
# VM-CMDLINE: preempt=full
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3
jobs=8
per_job=${PREEMPT_RECORDS_PER_JOB:-6000}
total=$((jobs * per_job))
ktap_header
out=$(mktemp -d)
mode=$(cat /sys/kernel/debug/sched/preempt 2> /dev/null)
log "kernel $(uname -r), preemption: ${mode:-not selectable}"
nullb_mod nr_devices=1 submit_queues=2 irqmode=0 gb=1
disk=nullb0
quiet_disk $disk
load_iotrace buf_size=64K disks=$disk
udevadm control --stop-exec-queue 2> /dev/null
echo 1 > "$IOT/$disk/clear"

before=$(blk_ios $disk)
ctxt0=$(awk '/^ctxt/ { print $2 }' /proc/stat)
RINGCHECK_POLL_US=200 "$RINGCHECK" watch "$IOT/$disk/ring" "$out/stop" \
	> "$out/watch" &
watcher=$!
# A CPU hog: fio's tasks lose their CPU in the middle of a submission.
(while :; do :; done) &
hog=$!
fio --name=p --filename=/dev/$disk --direct=1 --ioengine=libaio \
    --iodepth=4 --rw=randrw --bs=4k --size=1g --numjobs=$jobs \
    --io_size=$((per_job * 4))k --output-format=json \
    --output="$out/fio.json"
fio_rc=$?
after=$(blk_ios $disk)
kill $hog
wait $hog 2> /dev/null
ctxt1=$(awk '/^ctxt/ { print $2 }' /proc/stat)
touch "$out/stop"
wait $watcher
wrc=$?
echo 0 > "$IOT/$disk/enable"
udevadm control --start-exec-queue 2> /dev/null
sed 's/^/# reader: /' "$out/watch"
ktap_check "fio ran to its request count" test $fio_rc -eq 0
fio_ios=$(python3 - "$out/fio.json" <<'PY'
import json, sys
n = 0
for j in json.load(open(sys.argv[1]))['jobs']:
    n += j['read']['total_ios'] + j['write']['total_ios']
print(n)
PY
)
delta=$((after - before))
log "fio total_ios $fio_ios, /sys/block stat delta $delta, $((ctxt1 - ctxt0)) context switches"
ktap_check "fio completed $total requests ($fio_ios)" test "$fio_ios" -eq "$total"
ktap_check "reader accepted no invalid record, heads never went back" \
	test $wrc -eq 0
ktap_check "reader validated records ($(kv "$out/watch" watch_good))" \
	test "$(kv "$out/watch" watch_good)" -gt 1000

"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
sed 's/^/# check: /' "$out/check"
c() { kv "$out/check" "$1"; }
ktap_check "quiet ring intact" test $rc -eq 0
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
ktap_check "ring wrapped at least 10 times ($wraps)" test "$wraps" -ge 10
unload_iotrace
dmesg | grep -E -A12 'WARNING:' | sed 's/^/# dmesg: /'
ktap_check "no kernel warnings (a probe ran preemptible?)" no_kernel_splat
rm -rf "$out"
ktap_finish
