#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# overwrite: the smallest buf_size and a long run.  The overwritten count is
# exact (completed per /sys/block stat = intact records found + overwritten
# + dropped), every surviving record is intact and the sequence numbers of
# every CPU's chunks are contiguous (ABI 2.0: a pool of chunks).
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
ktap_header 8
out=$(mktemp -d)
nullb_mod nr_devices=1 submit_queues=2 irqmode=1
disk=nullb0
quiet_disk $disk
load_iotrace buf_size=64K disks=$disk
recs=$(iot_stat $disk chunk_records)
chunks=$(iot_stat $disk nr_chunks)
log "buf_size=64K: $chunks chunks of $recs records"
ktap_check "64K gives chunks of at least a page of records" test "$recs" -ge 32

udevadm control --stop-exec-queue 2> /dev/null
echo 1 > "$IOT/$disk/clear"
before=$(blk_ios $disk)
for cpu in 0 1; do
	fio --name=j$cpu --filename=/dev/$disk --direct=1 --ioengine=libaio \
	    --iodepth=16 --rw=randread --bs=4k --number_ios=25000 \
	    --size=1g --cpus_allowed=$cpu --output=/dev/null &
done
wait
after=$(blk_ios $disk)
echo 0 > "$IOT/$disk/enable"
udevadm control --start-exec-queue 2> /dev/null
"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
cat "$out/check"
cat "$IOT/$disk/stats" | sed 's/^/# stats: /'
delta=$((after - before))
present=$(kv "$out/check" present)
dropped=$(kv "$out/check" dropped)
over=$(iot_stat $disk overwritten)
log "stat delta $delta"
ktap_check "a long run: at least 40000 requests" test "$delta" -ge 40000
ktap_check "every surviving record intact, seq contiguous" test $rc -eq 0
# every chunk full but the current one of each CPU that wrote
cpus=$(kv "$out/check" parts_written)
ktap_check "the pool full ($present of $((chunks * recs)))" \
	test "$present" -ge $(((chunks - cpus) * recs))
ktap_check "completed (stats) = stat delta" \
	test "$(iot_stat $disk completed)" -eq "$delta"
ktap_check "overwritten ($over) = stat delta - intact records - dropped" \
	test "$over" -eq $((delta - present - dropped))
ktap_check "stats file agrees with the ring" \
	test "$(iot_stat $disk present)" -eq "$present"
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
