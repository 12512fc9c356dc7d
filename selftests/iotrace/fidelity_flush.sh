#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fidelity_flush: on a disk with a volatile write cache and no FUA (QEMU's
# virtio-blk), PREFLUSH and FUA writes go through the block layer's flush
# machinery: a data phase, separate FLUSH requests, and a last completion
# of the original request with no bytes left.  The ring must hold one
# record per request the device saw or the kernel counted: the data phase
# once with its full length (flagged PREFLUSH/POSTFLUSH when flushes
# belonged to it), one FLUSH record per flush issued, and no second,
# empty record of a write.
#
# ext4 with its journal, fsync and dd oflag=direct,dsync, with blktrace
# on the same disk at the same time as the oracle: every data completion
# blktrace saw is in the ring once with its op, sector and length, the
# FLUSH completions agree in number, and completed = /sys/block stat delta.
#
# Then the same writes with tags above the in-flight table: mq-deadline,
# nr_requests raised to 2,048 while the disk is enabled (its table was
# sized for 256 tags) after the first 300 of 16,000 blocks fio writes
# O_DSYNC, up to 1,000 at once: past the raise more than 256 are in
# flight, so some take tags above the table whatever the guest's speed.
# The first write above the table asks for a larger one, which replaces
# it while the writes go on: a write in flight
# until then is recorded without its issue (IOTRACE_RF_NO_ISSUE), still
# once: no empty record at the end of its flush sequence; the ring's
# writes and the metrics' are the writes /sys/block/DISK/stat counts.
# Then the table covers 2,048 tags, the kernel log says so, and 3,000
# writes again (merges off, fio's write_iolog the oracle) are each
# recorded once with their issue: sector, length, issue, queue and
# completion times.
# VM-DEVICES: virtio-blk
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd blktrace blkparse mkfs.ext4 dd fio
ktap_header 20
out=$(mktemp -d)
mnt=$(mktemp -d)
disk=
for d in /sys/block/vd*; do
	[ -e "$d" ] && disk=$(basename "$d") && break
done
[ -n "$disk" ] || skip "no virtio-blk disk"
log "disk $disk: write cache '$(cat /sys/block/$disk/queue/write_cache)'," \
    "fua $(cat /sys/block/$disk/queue/fua 2> /dev/null)"
echo none > "/sys/block/$disk/queue/scheduler" 2> /dev/null
load_iotrace disks=$disk buf_size=16M
modprobe ext4 2> /dev/null
mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 \
	/dev/$disk || die "mkfs.ext4 failed"
mount -o commit=300 /dev/$disk "$mnt" || die "mount failed"
# files whose blocks exist already (overwrite: fdatasync flushes only)
dd if=/dev/zero of="$mnt/old" bs=4k count=64 conv=fsync 2> /dev/null
fallocate -l 256k "$mnt/unwritten" 2> /dev/null
sync
sleep 1

blktrace -d /dev/$disk -D "$out" -o bt > "$out/blktrace.log" 2>&1 &
bt=$!
sleep 3
flushes() {
	awk '{ print (NF >= 17) ? $16 : 0 }' "/sys/block/$disk/stat"
}
echo 1 > "$IOT/$disk/clear"
before=$(blk_ios $disk)
f0=$(flushes)
for i in 1 2 3 4 5 6 7 8; do
	dd if=/dev/urandom of="$mnt/f$i" bs=16k count=4 conv=fsync 2> /dev/null
done
dd if=/dev/zero of="$mnt/old" bs=4k count=50 oflag=direct,dsync \
	conv=notrunc 2> /dev/null
dd if=/dev/zero of="$mnt/unwritten" bs=4k count=20 oflag=direct,dsync \
	conv=notrunc 2> /dev/null
dd if=/dev/zero of="$mnt/new" bs=4k count=20 oflag=direct,dsync 2> /dev/null
sync
sleep 1
after=$(blk_ios $disk)
f1=$(flushes)
echo 0 > "$IOT/$disk/enable"
kill -INT $bt
wait $bt
sed 's/^/# blktrace: /' "$out/blktrace.log" | tail -3
umount "$mnt"

"$RINGCHECK" check "$IOT/$disk/ring" > "$out/check"
rc=$?
# OP (upper case) SECTOR BYTES RFLAGS LATENCY
"$RINGCHECK" dumpx "$IOT/$disk/ring" |
	awk '{ $1 = toupper($1); print }' > "$out/ring"
cat "$out/check"
ktap_check "ring intact" test $rc -eq 0
delta=$((after - before))
completed=$(kv "$out/check" completed)
log "stat delta $delta (flushes $((f1 - f0))), ring completed $completed"
ktap_check "the workload flushed ($((f1 - f0)) flushes)" test $((f1 - f0)) -ge 50
ktap_check "completed ($completed) = /sys/block stat delta ($delta)" \
	test "$completed" -eq "$delta"

# blktrace: action RWBS sector bytes.  blkparse's RWBS: F (PREFLUSH, or
# the op of a flush request: "FN"), then D, W (any write, write-zeroes
# too), R (a read with bytes) or N, then F for FUA
blkparse -i bt -D "$out" -f '%a %d %S %N\n' > "$out/bp" 2> /dev/null
op_of='function op(r) {
	if (r ~ /D/) return "DISCARD"; if (r ~ /W/) return "WRITE";
	if (r ~ /R/) return "READ"; if (r ~ /F/) return "FLUSH";
	return "OTHER" }'
awk "$op_of"' $1 == "C" && $4 > 0 { print op($2), $3, $4 }' "$out/bp" |
	sort > "$out/bt.data"
awk '$3 > 0 { o = $1; if (o == "WRITE_ZEROES") o = "WRITE";
	if (o == "SECURE_ERASE") o = "DISCARD";
	if (o != "READ" && o != "WRITE" && o != "DISCARD" && o != "FLUSH")
		o = "OTHER"; print o, $2, $3 }' "$out/ring" |
	sort > "$out/ring.data"
nbt=$(wc -l < "$out/bt.data")
log "blktrace: $nbt data completions, $(grep -c '^C' "$out/bp") completions"
ktap_check "blktrace saw data completions ($nbt)" test "$nbt" -ge 100
missing=$(comm -23 "$out/bt.data" "$out/ring.data" | wc -l)
extra=$(comm -13 "$out/bt.data" "$out/ring.data" | wc -l)
comm -23 "$out/bt.data" "$out/ring.data" | head -5 | sed 's/^/# missing: /'
comm -13 "$out/bt.data" "$out/ring.data" | head -5 | sed 's/^/# extra: /'
ktap_check "every blktrace data completion in the ring once, op/sector/length" \
	test "$missing" -eq 0 -a "$extra" -eq 0
btfl=$(awk "$op_of"' $1 == "C" && op($2) == "FLUSH"' "$out/bp" | wc -l)
rfl=$(awk '$1 == "FLUSH"' "$out/ring" | wc -l)
ktap_check "FLUSH records ($rfl) = blktrace flush completions ($btfl) = stat flushes ($((f1 - f0)))" \
	test "$rfl" -eq "$btfl" -a "$rfl" -eq $((f1 - f0))
empty=$(awk '$1 == "WRITE" && $3 == 0' "$out/ring" | wc -l)
# an empty PREFLUSH write (blkdev_issue_flush) is counted by the kernel as
# a write: one record each, flagged PREFLUSH; nothing else is empty
btempty=$(awk "$op_of"' $1 == "Q" && $4 == 0 && op($2) == "WRITE"' "$out/bp" | wc -l)
ktap_check "empty WRITE records ($empty) = empty writes queued ($btempty)" \
	test "$empty" -eq "$btempty"
# rflags (decimal): PREFLUSH 0x1000, POSTFLUSH 0x2000 (uapi IOTRACE_RF_PREFLUSH/POSTFLUSH)
pre=$(awk '$1 == "WRITE" && $3 > 0 && int($4 / 4096) % 2' "$out/ring" | wc -l)
post=$(awk '$1 == "WRITE" && $3 > 0 && int($4 / 8192) % 2' "$out/ring" | wc -l)
btpre=$(awk '$1 == "Q" && $4 > 0 && $2 ~ /^F[WR]/' "$out/bp" | wc -l)
btpost=$(awk '$1 == "Q" && $4 > 0 && $2 ~ /^F?W.*F/' "$out/bp" | wc -l)
if [ $((btpre + btpost)) -gt 0 ]; then
	ktap_check "data records flagged PREFLUSH ($pre/$btpre) and POSTFLUSH ($post/$btpost) as blktrace queued them" \
		test "$pre" -eq "$btpre" -a "$post" -eq "$btpost" -a "$post" -gt 0
else
	# 7.x's blktrace shows no PREFLUSH/FUA in the RWBS of queued writes
	# (seen on 7.3: WS, WSM, WM only).  The kernel's own count instead:
	# one dsync writer at a time, so every flush request it counted is a
	# data write's pre- or post-flush or an empty flush write's.
	log "blktrace shows no flush flags on queued writes: /sys/block flushes as the oracle"
	ktap_check "PREFLUSH ($pre) + POSTFLUSH ($post) data records + empty writes ($empty) = stat flushes ($((f1 - f0)))" \
		test "$pre" -gt 0 -a "$post" -gt 0 -a $((pre + post + empty)) -eq $((f1 - f0))
fi

# tags above the in-flight table
modprobe mq-deadline 2> /dev/null
echo mq-deadline > "/sys/block/$disk/queue/scheduler" ||
	die "$disk: no mq-deadline"
echo 1 > "$IOT/$disk/clear"
echo 1 > "$IOT/$disk/enable"
nr0=$(cat "/sys/block/$disk/queue/nr_requests")
mw() {
	awk '$1 == "write" && $2 == "requests" { print $3 }' "$IOT/$disk/metrics"
}
w0=$(blk_stat $disk 5)
m0=$(mw)
n1=16000
fio --name=dsync --filename=/dev/$disk --rw=randwrite --bs=4k --direct=1 \
	--sync=1 --ioengine=libaio --iodepth=1000 --iodepth_batch_submit=1000 \
	--number_ios=$n1 --size=64M --output="$out/fio.out" &
fiopid=$!
# raised while fio writes: the writes after it take tags above the table.
# Polled with builtins, no fork: fio's writes keep the guest's CPUs busy.
end=$((SECONDS + 60))
while [ "$SECONDS" -lt "$end" ]; do
	read -r -a st < "/sys/block/$disk/stat"
	[ $((st[4] - w0)) -ge 300 ] && break
done
at=$(($(blk_stat $disk 5) - w0))
echo 2048 > "/sys/block/$disk/queue/nr_requests"
wait $fiopid || log "fio failed: $(tail -3 "$out/fio.out")"
log "nr_requests $nr0 at the enable, $(cat "/sys/block/$disk/queue/nr_requests") from write $at on"
sw=$(($(blk_stat $disk 5) - w0))
mwd=$(($(mw) - m0))
"$RINGCHECK" dumpx "$IOT/$disk/ring" |
	awk '{ $1 = toupper($1); print }' > "$out/ring2"
# rflags (decimal): NO_ISSUE 0x80
rw=$(awk '$1 == "WRITE" && $3 > 0' "$out/ring2" | wc -l)
rempty=$(awk '$1 == "WRITE" && $3 == 0' "$out/ring2" | wc -l)
noissue=$(awk '$1 == "WRITE" && int($4 / 128) % 2' "$out/ring2" | wc -l)
log "stat writes $sw; ring: $rw writes ($noissue without their issue), $rempty empty; metrics $mwd"
ktap_check "raised while fio wrote ($at of $sw writes), $noissue of them without their issue (NO_ISSUE)" \
	test "$at" -lt "$n1" -a "$noissue" -gt 0
ktap_check "no empty WRITE record at the end of their flush sequences ($rempty)" \
	test "$rempty" -eq 0
ktap_check "WRITE records ($rw) = /sys/block stat writes ($sw)" \
	test "$rw" -eq "$sw" -a "$sw" -ge "$n1"
ktap_check "metrics writes ($mwd) = /sys/block stat writes ($sw)" \
	test "$mwd" -eq "$sw"

# the regrown table
tags=0
end=$((SECONDS + 10))
while [ "$SECONDS" -lt "$end" ]; do
	tags=$(kv "$IOT/$disk/stats" tags)
	[ "$tags" -ge 2048 ] && break
	sleep 0.2
done
log "$(dmesg | grep 'in-flight table' | tail -2)"
ktap_check "the in-flight table covers 2048 tags now ($tags)" \
	test "$tags" -ge 2048
ktap_check "the kernel log says the table was regrown" \
	sh -c "dmesg | grep -q 'iotrace: $disk: in-flight table regrown to [0-9]* queues of 2048 tags'"
echo 2 > "/sys/block/$disk/queue/nomerges"
echo 1 > "$IOT/$disk/clear"
w0=$(blk_stat $disk 5)
m0=$(mw)
fio --name=dsync2 --filename=/dev/$disk --rw=randwrite --bs=4k --direct=1 \
	--sync=1 --ioengine=libaio --iodepth=1000 --iodepth_batch_submit=1000 \
	--number_ios=3000 --size=32M --write_iolog="$out/iolog" \
	--output="$out/fio2.out" ||
	log "fio failed: $(tail -3 "$out/fio2.out")"
sw=$(($(blk_stat $disk 5) - w0))
mwd=$(($(mw) - m0))
echo 0 > "$IOT/$disk/enable"
echo 0 > "/sys/block/$disk/queue/nomerges"
"$RINGCHECK" dump "$IOT/$disk/ring" | awk '$1 == "write"' | sort > "$out/ring"
# OP SECTOR BYTES RFLAGS ISSUE_NS QUEUE_NS COMPLETE_NS
"$RINGCHECK" dumpt "$IOT/$disk/ring" | awk '$1 == "write"' > "$out/ring3"
noissue=$(awk 'int($4 / 128) % 2' "$out/ring3" | wc -l)
# with an issue: issue <= complete, the queue time valid (0x100)
bad=$(awk '!(int($4 / 128) % 2 == 0 && int($4 / 256) % 2 == 1 &&
	     $5 > 0 && $5 <= $7)' "$out/ring3" | wc -l)
awk '!(int($4 / 128) % 2 == 0 && int($4 / 256) % 2 == 1 && $5 > 0 &&
       $5 <= $7)' "$out/ring3" | head -3 | sed 's/^/# without issue: /'
log "stat writes $sw; ring: $(wc -l < "$out/ring3") writes ($noissue without their issue); metrics $mwd"
fio_log_vs_ring "$out" 3000 "$out/iolog"
ktap_check "every write recorded with its issue, queue and completion times ($bad not)" \
	test "$bad" -eq 0 -a "$noissue" -eq 0
ktap_check "WRITE records ($(wc -l < "$out/ring3")) = metrics writes ($mwd) = /sys/block stat writes ($sw)" \
	test "$(wc -l < "$out/ring3")" -eq "$sw" -a "$mwd" -eq "$sw"
echo none > "/sys/block/$disk/queue/scheduler" 2> /dev/null
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out" "$mnt"
ktap_finish
