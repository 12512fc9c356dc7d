#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# queue_time: a record's queue time is the time its request spent between
# its allocation and its issue, and an empty PREFLUSH write's record gives
# its allocation and completion times, on every kernel.  Since 6.9 the
# block layer's own stamp (rq->start_time_ns) comes from the plug's cached
# clock, much older than the request for 10-16% of the requests of this
# workload: the module takes its own at block_io_start there.
#
# Oracle: blktrace on the same disk at the same time.  Request by request
# (qtimecmp.py: same direction, sector and length, D at the record's
# issue), the queue time against blktrace's G (getrq) to D (issue): the
# record's allocation time (issue_ns - queue_ns) must not be more than
# max(50 us, 20% of G to D) before G and 50 us before its bio's Q, nor
# after the request's next event in blktrace (I, M, F or D, which the
# kernel reaches after block_io_start; not G itself: the host may
# deschedule the vCPU between G and block_io_start, seen for up to 0.9%
# of the requests on a loaded host; and before 6.9 between the kernel's
# stamp and G, up to 1.2% on 5.10, so the bound below is Q, not G; a
# merged request keeps the earlier G and Q, as the kernel keeps the
# earlier stamp).  An empty write's allocation time (issue_ns) lies between its G
# and its C the same way, at most 50 us from G in the median, and there
# are as many as blktrace completed.  The bound, 1% of the pairs: the
# two tracers read the clock in probes one after the other, and an
# interrupt between two probes moves one stamp by up to 2.5 ms under
# QEMU, about 1 request in 9,000 (TESTBED.md); before 6.9 the kernel's
# stamp of a request from the plug's request cache is its batch's
# allocation, up to 0.8 ms before its G (6.1, SATA: 0.68% of the
# requests); the stale plug stamps of 6.9+ give 1.7-19% here (7.3: one
# round of five within the bound).
#
# Workload: ext4 with its journal; fio libaio, iodepth 16, submitted in
# batches (plugged), direct random reads and writes; buffered dd and
# sync (writeback: plugs and merges); fsync and fdatasync of overwritten
# files (journal commits, empty PREFLUSH writes).  On a memory-backed
# null_blk with a volatile write cache (cache_size), a shallow queue and
# completion delays (requests wait in the scheduler), with mq-deadline,
# kyber and bfq; then on virtio-blk (a write-back cache) and SATA (AHCI)
# with mq-deadline.
# VM-DEVICES: virtio-blk ahci
# VM-TIMEOUT: 1200
# VM-SMP: 2
# VM-CHECK: all
# (5 to 8 minutes on 7.3: make check-all only, as issue 48 asks of what does
#   not fit make check's hour)
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd blktrace blkparse mkfs.ext4 fio python3 dd
BOUND=1
out=$(mktemp -d)
mnt=$(mktemp -d)
modprobe ext4 2> /dev/null

nb=$(nullb_create qt size=256 memory_backed=1 cache_size=32 irqmode=2 \
	completion_nsec=50000 hw_queue_depth=8 submit_queues=2)
rounds="$nb:mq-deadline"
# queue_time_core.sh (make check): null_blk with mq-deadline alone
if [ "${QUEUE_TIME_CORE:-0}" != 1 ]; then
	rounds="$rounds $nb:kyber $nb:bfq"
	vd=$(first_disk 'vd*') && rounds="$rounds $vd:mq-deadline"
	sd=$(first_disk 'sd*') && rounds="$rounds $sd:mq-deadline"
fi
ktap_header $(($(echo $rounds | wc -w) * 2 + 1))
load_iotrace disks=none buf_size=16M

# round DISK SCHEDULER: the workload under blktrace and iotrace
round() {
	local disk=$1 sched=$2 dir=$out/$1-$2 bt cur
	mkdir -p "$dir"
	echo "$sched" > "/sys/block/$disk/queue/scheduler" 2> /dev/null ||
		modprobe "$sched" 2> /dev/null || modprobe "$sched-iosched" 2> /dev/null
	echo "$sched" > "/sys/block/$disk/queue/scheduler" 2> /dev/null
	cur=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$disk/queue/scheduler")
	log "$disk: scheduler $cur, write cache" \
	    "'$(cat /sys/block/$disk/queue/write_cache)'"
	if [ "$cur" != "$sched" ]; then
		ktap_skip "$disk $sched: queue times: no $sched scheduler"
		ktap_skip "$disk $sched: empty PREFLUSH writes: no $sched scheduler"
		return
	fi
	mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 \
		/dev/$disk || die "mkfs.ext4 $disk failed"
	mount /dev/$disk "$mnt" || die "mount $disk failed"
	dd if=/dev/zero of="$mnt/old" bs=4k count=64 conv=fsync 2> /dev/null
	sync
	echo 1 > "$IOT/$disk/enable"
	echo 1 > "$IOT/$disk/clear"
	blktrace -d /dev/$disk -D "$dir" -o bt > "$dir/blktrace.log" 2>&1 &
	bt=$!
	sleep 2
	fio --name=qt --directory="$mnt" --size=16m --bs=4k --rw=randrw \
		--ioengine=libaio --iodepth=16 --iodepth_batch_submit=8 \
		--direct=1 --number_ios=1500 --output="$dir/fio.out" ||
		die "fio failed: $(tail -n 5 "$dir/fio.out")"
	dd if=/dev/urandom of="$mnt/big" bs=64k count=128 2> /dev/null
	sync
	for i in $(seq 1 10); do
		dd if=/dev/urandom of="$mnt/f$i" bs=16k count=4 conv=fsync \
			2> /dev/null
		dd if=/dev/zero of="$mnt/old" bs=4k count=4 seek=$((i * 4)) \
			conv=notrunc,fdatasync 2> /dev/null
	done
	sync
	sleep 1
	echo 0 > "$IOT/$disk/enable"
	kill -INT $bt
	wait $bt
	tail -n 3 "$dir/blktrace.log" | sed 's/^/# blktrace: /'
	umount "$mnt"
	"$RINGCHECK" dumpt "$IOT/$disk/ring" > "$dir/ring" ||
		die "ringcheck dumpt $disk failed"
	blkparse -i bt -D "$dir" -f '%a %d %S %N %T %t\n' > "$dir/bp" \
		2> /dev/null
	python3 "$IOTRACE_SRC/selftests/iotrace/qtimecmp.py" "$dir/bp" \
		"$dir/ring" $BOUND 300 > "$dir/cmp"
	rc=$?
	cat "$dir/cmp"
	# on a failure, both listings are kept with the results
	if [ $rc -ne 0 ] && [ -d "${IOTRACE_OUT:-}" ]; then
		cp "$dir/bp" "$IOTRACE_OUT/$disk-$sched.blkparse"
		cp "$dir/ring" "$IOTRACE_OUT/$disk-$sched.ring"
	fi
	ktap_check "$disk $sched: queue times = blktrace's G->D (at most $BOUND% off)" \
		test $rc -eq 0
	python3 "$IOTRACE_SRC/selftests/iotrace/qtimecmp.py" --flush \
		"$dir/bp" "$dir/ring" $BOUND 0 > /dev/null
	ktap_check "$disk $sched: every empty PREFLUSH write has its allocation time (blktrace's G), as many as blktrace completed" \
		test $? -eq 0
}

for r in $rounds; do
	round "${r%%:*}" "${r#*:}"
done
unload_iotrace
nullb_destroy qt
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out" "$mnt"
ktap_finish
