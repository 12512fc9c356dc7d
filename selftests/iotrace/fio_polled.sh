#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fio_polled: polled I/O (io_uring --hipri on null_blk's poll queues, with
# registered files and buffers and batched submission and reaping, the
# block layer completing a batch per poll) beside interrupt-driven I/O on
# the same disk.  Every I/O fio logs (write_iolog) appears in the ring once
# with its direction, offset and length, issued before it completed; the
# polled jobs' records and only theirs carry +polled; the ring's counts
# match /sys/block/<disk>/stat exactly and nothing is left in flight.
# Skipped (4) where null_blk has no poll queues or io_uring is off.
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
modinfo -p null_blk 2> /dev/null | grep -q '^poll_queues:' ||
	skip "null_blk has no poll_queues on $(uname -r)"
[ "$(cat /proc/sys/kernel/io_uring_disabled 2> /dev/null || echo 0)" = 0 ] ||
	skip "io_uring is disabled (kernel.io_uring_disabled)"
ktap_header 11
out=$(mktemp -d)
nullb_mod nr_devices=1 submit_queues=2 poll_queues=2 irqmode=1 gb=1
disk=nullb0
quiet_disk $disk
ktap_check "$disk polls (queue/io_poll)" \
	test "$(cat /sys/block/$disk/queue/io_poll)" = 1
load_iotrace disks=$disk

udevadm control --stop-exec-queue 2> /dev/null
echo 1 > "$IOT/$disk/clear"
before=$(blk_ios $disk)
# jobs 0 and 1 polled, one per CPU; job 2 interrupt-driven; each in its
# own 256 MiB of the disk, so a record's sector tells its job
for j in 0 1 2; do
	if [ $j -lt 2 ]; then
		eng="--ioengine=io_uring --hipri --fixedbufs --registerfiles
		     --iodepth_batch_submit=4 --iodepth_batch_complete_min=1
		     --iodepth_batch_complete_max=8 --cpus_allowed=$j"
	else
		eng="--ioengine=libaio"
	fi
	# shellcheck disable=SC2086
	fio --name=j$j --filename=/dev/$disk --direct=1 $eng \
	    --iodepth=8 --rw=randrw --bssplit=4k/50:16k/30:64k/20 \
	    --number_ios=1500 --size=256m --offset=$((j * 256))m \
	    --write_iolog="$out/iolog.$j" --output="$out/fio.$j" &
done
wait
after=$(blk_ios $disk)
inflight=$(awk '{ print $1 + $2 }' /sys/block/$disk/inflight)
echo 0 > "$IOT/$disk/enable"
"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
"$RINGCHECK" dump "$IOT/$disk/ring" | sort > "$out/ring"
"$IOTRACECTL" show -o csv $disk > "$out/show.csv" 2> "$out/show.err"
udevadm control --start-exec-queue 2> /dev/null
cat "$out/check"
ktap_check "ring intact after the run" test $rc -eq 0

log "stat delta $((after - before))"
fio_log_vs_ring "$out" 4000 "$out"/iolog.[012]
nring=$(wc -l < "$out/ring")

# show -o csv, reads and writes (op, column 7): latency_ns (6) set,
# opflags (8) has +polled iff the sector (9) is in the polled jobs' 512 MiB
bad=$(awk -F, -v lim=$((512 * 2048)) '
	NR == 1 || $7 != "read" && $7 != "write" { next }
	{
		n++
		polled = index($8, "+polled") > 0
		if ($6 == "") { nolat++; next }
		if (polled != ($9 < lim)) { bad++; if (bad <= 5) print "# " $0 > "/dev/stderr" }
		if (polled) np++
	}
	END { printf "%d %d %d %d\n", n, bad, nolat, np }' "$out/show.csv")
read -r nshow nbad nolat npolled <<< "$bad"
log "show: $nshow records, $npolled polled, $nbad mismatched, $nolat without latency"
ktap_check "every record issued before it completed (a latency)" \
	test "$nshow" -eq "$nring" -a "$nolat" -eq 0
ktap_check "+polled on the polled jobs' records only ($npolled)" \
	test "$nbad" -eq 0 -a "$npolled" -gt 0

ring_counts_vs_stat "$out/check" $((after - before))
ktap_check "nothing in flight (/sys/block inflight: $inflight)" \
	test "$inflight" -eq 0
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
