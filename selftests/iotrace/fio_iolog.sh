#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fio_iolog: every I/O fio logs (write_iolog, v2 or v3 format) appears in the ring once, with
# the same direction, offset and length; the ring's counts match the
# kernel's /sys/block/<disk>/stat delta exactly (loss is exact).
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
ktap_header 8
out=$(mktemp -d)
nullb_mod nr_devices=1 submit_queues=2 irqmode=1 gb=1
disk=nullb0
quiet_disk $disk
load_iotrace disks=$disk
ktap_check "disk $disk has a ring" test -e "$IOT/$disk/ring"

udevadm control --stop-exec-queue 2> /dev/null
echo 1 > "$IOT/$disk/clear"
before=$(blk_ios $disk)
for cpu in 0 1; do
	fio --name=j$cpu --filename=/dev/$disk --direct=1 --ioengine=libaio \
	    --iodepth=8 --rw=randrw --bssplit=4k/50:16k/30:64k/20 \
	    --number_ios=1500 --size=256m --offset=$((cpu * 256))m \
	    --cpus_allowed=$cpu --write_iolog="$out/iolog.$cpu" \
	    --output="$out/fio.$cpu" &
done
wait
after=$(blk_ios $disk)
echo 0 > "$IOT/$disk/enable"
"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
"$RINGCHECK" dump "$IOT/$disk/ring" | sort > "$out/ring"
udevadm control --start-exec-queue 2> /dev/null
cat "$out/check"
ktap_check "ring intact after the run" test $rc -eq 0

log "stat delta $((after - before))"
fio_log_vs_ring "$out" 2000 "$out"/iolog.[01]
ring_counts_vs_stat "$out/check" $((after - before))
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
