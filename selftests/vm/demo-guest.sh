#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The "make demo" guest: iotrace on a null_blk disk (100 us completion
# latency) and an emulated NVMe disk while fio runs a mixed random
# workload on both; then what iotrace shows.
# VM-DEVICES: nvme
# VM-TIMEOUT: 270
. "$IOTRACE_SRC/selftests/lib/iotrace.sh"

IOT=/sys/kernel/debug/iotrace
banner() { printf '\n======== %s\n' "$*"; }

banner "kernel $KVER; disks"
modprobe null_blk nr_devices=1 gb=1 irqmode=2 completion_nsec=100000 \
	submit_queues=2 hw_queue_depth=64 || die "modprobe null_blk failed"
wait_for /dev/nullb0 10 || die "no /dev/nullb0"
nvme=$(first_disk 'nvme*n1') || die "no NVMe disk"
lsblk -d -o NAME,SIZE,MODEL,TRAN /dev/nullb0 /dev/$nvme 2>/dev/null ||
	ls /sys/block

banner "insmod iotrace.ko buf_size=16M disks=nullb0,$nvme"
insmod "$IOTRACE_KO" buf_size=16M disks=nullb0,$nvme || die "insmod failed"
[ -r $IOT/status ] && cat $IOT/status
ls $IOT

banner "fio: 4 s of 70/30 random read/write, 4k-64k, QD8, on both disks"
fio --output-format=normal --group_reporting=0 --direct=1 --ioengine=libaio \
	--rw=randrw --rwmixread=70 --bssplit=4k/60:16k/25:64k/15 --iodepth=8 \
	--time_based --runtime=4 --size=512m \
	--name=nullb0 --filename=/dev/nullb0 \
	--name=$nvme --filename=/dev/$nvme > /tmp/fio.out 2>&1
grep -E '^[a-z0-9]+: \(groupid|^  (read|write): IOPS|lat \(usec\): min' /tmp/fio.out

for d in nullb0 $nvme; do
	banner "$d: cat $IOT/$d/stats"
	cat $IOT/$d/stats 2>/dev/null || echo "(no stats file)"
	banner "$d: head -n 12 $IOT/$d/trace"
	head -n 12 $IOT/$d/trace 2>/dev/null || echo "(no trace file)"
	banner "$d: cat $IOT/$d/inflight"
	cat $IOT/$d/inflight 2>/dev/null || echo "(no inflight file)"
done

if [ -x "$IOTRACECTL" ]; then
	banner "iotracectl list"
	"$IOTRACECTL" list
	for d in nullb0 $nvme; do
		banner "iotracectl stats $d"
		"$IOTRACECTL" stats $d
		banner "iotracectl show $d --op write --lat-min 1000 | head -n 12 (writes slower than 1 ms)"
		"$IOTRACECTL" show $d --op write --lat-min 1000 2>&1 | head -n 12
	done
	banner "iotracectl record: both disks to a trace file for 2 s of reads"
	"$IOTRACECTL" record nullb0 $nvme -o /tmp/demo.iot --duration 3 &
	fio --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=4 \
		--time_based --runtime=2 --size=512m --name=r --filename=/dev/$nvme \
		> /dev/null 2>&1
	wait
	ls -l /tmp/demo.iot
	"$IOTRACECTL" stats /tmp/demo.iot --disk $nvme 2>&1 | head -n 5
else
	banner "iotracectl is not built (make tools); debugfs views only"
fi
rmmod iotrace
echo
echo "demo done"
