#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# slots_regrow: the in-flight table follows a tag set that grows while its
# disk stays enabled.  A null_blk disk with one submit queue is enabled,
# then given a second one through configfs (blk_mq_update_nr_hw_queues()),
# and fio writes from both CPUs: the requests of the new queue have no
# slot until the table is regrown, which the kernel log says.  Every
# completion is recorded and counted once all along (ring and metrics =
# /sys/block stat).  Then fio again, its write_iolog the oracle: every I/O
# once with its op, sector and length, each with its issue (no NO_ISSUE,
# queue time valid, issue before completion), on both hardware queues.
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
ktap_header 11
out=$(mktemp -d)
rmmod null_blk 2> /dev/null
modprobe null_blk nr_devices=0 poll_queues=0 2> /dev/null ||
	modprobe null_blk nr_devices=0 || die "modprobe null_blk failed"
disk=$(nullb_create rg submit_queues=1 irqmode=2 completion_nsec=200000 \
	hw_queue_depth=64 size=512)
cfg=/sys/kernel/config/nullb/rg
quiet_disk "$disk"
load_iotrace disks="$disk"
hwq() {
	ls -d /sys/block/"$disk"/mq/[0-9]* | wc -l
}
q0=$(hwq)
t0=$(kv "$IOT/$disk/stats" hw_queues)
log "disk $disk: $q0 hardware queues, the table covers $t0"
echo $((q0 + 1)) > "$cfg/submit_queues" 2> /dev/null ||
	skip "null_blk cannot add a submit queue to a powered disk"
q1=$(hwq)
[ "$q1" -gt "$t0" ] || skip "$disk has $q1 queues, its table $t0 already"
log "$q1 hardware queues now"

mw() {
	awk '$1 == "write" && $2 == "requests" { print $3 }' "$IOT/$disk/metrics"
}
fio_both() {
	local cpu
	for cpu in 0 1; do
		fio --name=j$cpu --filename=/dev/"$disk" --direct=1 \
		    --ioengine=libaio --iodepth=32 --rw=randwrite --bs=4k \
		    --number_ios=2000 --size=128m --offset=$((cpu * 128))m \
		    --cpus_allowed=$cpu --write_iolog="$out/iolog$1.$cpu" \
		    --output="$out/fio$1.$cpu" &
	done
	wait
}

# counted_fio N - fio_both N on a cleared ring; sw and mwd: the writes
# /sys/block and the metrics counted meanwhile
counted_fio() {
	local w0 m0
	echo 1 > "$IOT/$disk/clear"
	w0=$(blk_stat "$disk" 5)
	m0=$(mw)
	fio_both "$1"
	sw=$(($(blk_stat "$disk" 5) - w0))
	mwd=$(($(mw) - m0))
}

udevadm control --stop-exec-queue 2> /dev/null
counted_fio 1
"$RINGCHECK" dumpx "$IOT/$disk/ring" | awk '$1 == "write"' > "$out/ring1"
rw=$(wc -l < "$out/ring1")
# rflags (decimal): NO_ISSUE 0x80
noissue=$(awk 'int($4 / 128) % 2' "$out/ring1" | wc -l)
log "stat writes $sw; ring: $rw writes ($noissue without their issue); metrics $mwd"
ktap_check "while regrown: WRITE records ($rw) = metrics writes ($mwd) = /sys/block stat writes ($sw)" \
	test "$rw" -eq "$sw" -a "$mwd" -eq "$sw" -a "$sw" -ge 4000
ktap_check "a new queue's writes had no slot before the table was regrown ($noissue)" \
	test "$noissue" -gt 0
t1=$(kv "$IOT/$disk/stats" hw_queues)
log "$(dmesg | grep 'in-flight table' | tail -2)"
ktap_check "the in-flight table covers the $q1 queues ($t1)" test "$t1" -ge "$q1"
ktap_check "the kernel log says the table was regrown" \
	sh -c "dmesg | grep -q 'iotrace: $disk: in-flight table regrown to $q1 queues'"

counted_fio 2
echo 0 > "$IOT/$disk/enable"
"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
ktap_check "ring intact" test $rc -eq 0
"$RINGCHECK" dump "$IOT/$disk/ring" | sort > "$out/ring"
# OP SECTOR BYTES RFLAGS ISSUE_NS QUEUE_NS COMPLETE_NS
"$RINGCHECK" dumpt "$IOT/$disk/ring" > "$out/ring2"
udevadm control --start-exec-queue 2> /dev/null
fio_log_vs_ring "$out" 4000 "$out"/iolog2.[01]
# with an issue: issue <= complete, the queue time valid (0x100)
notok='!(int($4 / 128) % 2 == 0 && int($4 / 256) % 2 == 1 && $5 > 0 && $5 <= $7)'
bad=$(awk "$notok" "$out/ring2" | wc -l)
awk "$notok" "$out/ring2" | head -3 | sed 's/^/# without issue: /'
ktap_check "every write recorded with its issue, queue and completion times ($bad not)" \
	test "$bad" -eq 0
ktap_check "WRITE records ($(wc -l < "$out/ring2")) = metrics writes ($mwd) = /sys/block stat writes ($sw)" \
	test "$(wc -l < "$out/ring2")" -eq "$sw" -a "$mwd" -eq "$sw"
unload_iotrace
nullb_destroy rg
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
