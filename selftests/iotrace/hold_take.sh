#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hold_take: a hold of half the pool costs a chunk take one step, not a
# walk over the held range (issue 47, item 3).
#
# A null_blk with no completion delay (irqmode=0: every completion in its
# submitter's context) and bad blocks at sectors 0-7; a 256K ring (61
# chunks of 32 records with 2 CPUs).  Every I/O is done on CPU 0, so one
# CPU takes chunks and no other CPU's current chunk is a candidate.  The
# ring wraps, one dd of sector 0 fires the error trigger, whose hold is
# the most the ring allows (hold=max: half of it), and the reads go on
# until the rest of the ring was overwritten four times while the hold
# stays.  Oracles: the /sys/block stat (I/Os done), the stats' recorded
# and overwritten, and the take counters of debugfs stats:
#   - take_most, the most candidates one chunk take tried: at most 2 (one
#     held candidate, then the one after the range); a walk over the held
#     range one candidate at a time tries half the pool (30);
#   - take_attempts per chunk filled while held: at most 2.
# VM-CHECK: newest
# VM-TIMEOUT: 420
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd dd taskset
"$IOTRACECTL" trigger 2>&1 | grep -q 'hold=' ||
	skip "this iotracectl has no hold (trigger ... hold=)"

ktap_header
udevadm control --stop-exec-queue 2> /dev/null
bd=$(nullb_create nbtake size=128 memory_backed=1 irqmode=0 submit_queues=1)
quiet_disk "$bd"
echo "+0-7" > "/sys/kernel/config/nullb/nbtake/badblocks" ||
	die "cannot set badblocks"
load_iotrace disks=none buf_size=256K
grep -q '^take_most: ' "$IOT/$bd/stats" ||
	skip "this module has no take counters in debugfs stats"

recs=$(iot_stat "$bd" chunk_records)
chunks=$(iot_stat "$bd" nr_chunks)
ring_recs=$((recs * chunks))
log "ring: $chunks chunks of $recs records"

# reads N - N single-block direct reads on CPU 0, past the bad blocks
reads() {
	taskset -c 0 dd if=/dev/"$bd" of=/dev/null bs=4k count="$1" skip=8 \
		iflag=direct 2> /dev/null || die "dd of $1 blocks failed"
}

"$IOTRACECTL" trigger "$bd" error hold=max hold-expire=600s ||
	die "trigger error hold=max hold-expire=600s"
echo 1 > "$IOT/$bd/enable"
reads $((2 * ring_recs))
ktap_check "the ring wrapped before the hit" \
	test "$(iot_stat "$bd" overwritten)" -gt 0
taskset -c 0 dd if=/dev/"$bd" of=/dev/null bs=4k count=1 iflag=direct \
	2> /dev/null && ktap_fail "the dd of the bad sector fails"
hlo=$(iot_stat "$bd" hold_lo)
hhi=$(iot_stat "$bd" hold_hi)
ktap_check "the hit set a hold of half the pool ($hlo..$hhi, $chunks chunks)" \
	test "$hhi" -gt 0 -a $((hhi - hlo + 1)) -eq $((chunks / 2))

a0=$(iot_stat "$bd" take_attempts)
r0=$(iot_stat "$bd" recorded)
o0=$(iot_stat "$bd" overwritten)
io0=$(blk_ios "$bd")
reads $((4 * ring_recs))
a1=$(iot_stat "$bd" take_attempts)
r1=$(iot_stat "$bd" recorded)
o1=$(iot_stat "$bd" overwritten)
io1=$(blk_ios "$bd")
most=$(iot_stat "$bd" take_most)
filled=$(((r1 - r0) / recs))
log "held: $((io1 - io0)) I/Os (/sys/block stat), $((r1 - r0)) recorded," \
	"$((o1 - o0)) overwritten, $((a1 - a0)) take attempts for $filled chunks" \
	"filled, at most $most candidates in one take"
ktap_check "the hold stayed while the ring wrapped ($hhi; $((o1 - o0)) records overwritten, the ring holds $ring_recs)" \
	test "$(iot_stat "$bd" hold_hi)" = "$hhi" -a $((o1 - o0)) -gt "$ring_recs"
ktap_check "every I/O recorded ($((r1 - r0)) of $((io1 - io0)))" \
	test $((r1 - r0)) -eq $((io1 - io0))
ktap_check "take attempts per chunk filled: $((a1 - a0)) for $filled, at most 2 each" \
	test "$filled" -gt 0 -a $((a1 - a0)) -le $((2 * filled))
ktap_check "the most candidates one take tried: $most, at most 2 (held: $((hhi - hlo + 1)))" \
	test "${most:-99}" -le 2

"$IOTRACECTL" trigger "$bd" off
echo 0 > "$IOT/$bd/enable"
udevadm control --start-exec-queue 2> /dev/null
unload_iotrace
nullb_destroy nbtake
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
