#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# inflight_stuck: one read stuck for minutes while thousands of other
# requests complete around it (issue 52's tests).  The in-flight view and
# the stuck trigger follow that read, and only it, from its issue to its
# end; every other request is recorded as the block layer counted it.
#
# scsi_debug ignores one read: opts 4 (SDEBUG_OPT_TIMEOUT) with
# every_nth=1, set only until the device has received it (its
# iorequest_cnt moved).  The disk's command timeout is STUCK_S (150 s,
# 240 s on a debug kernel).
# When it fires, the error handler aborts the read and sends it again,
# and the device answers.  Meanwhile fio reads and writes 4 KiB at
# random, RATE I/Os per second each way, for RUN_S (120 s), below the
# sectors of the stuck read.
#
# Oracles: the guest's CLOCK_MONOTONIC before dd was started and after
# the device had its read (its issue time lies between), the disk's
# command timeout (nothing ends the read sooner), dd's pid and offset,
# /sys/block/<disk>/stat (what completed), fio's count of its I/Os.
#
# Checks: twice during the run (40 s and 90 s after the device had the
# read), "iotracectl inflight -o json" lists the read first (the oldest),
# once, with its sector, length, an issue time in that window and an age
# of at least the time since; the debugfs inflight file lists it;
# "iotracectl stats --kernel" counts it in flight, its oldest request at
# least that old.
# The stuck trigger (stuck=30s rate=0) sends exactly one event, for it.
# Its record at the end: TIMEOUT and REQUEUED, no error, dd's pid (where
# the kernel has block_io_start), completed at least STUCK_S after dd
# started.  The ring: every completion the stat counted, none dropped or
# overwritten, no other record timed out, requeued or failed; the
# metrics count one timeout and one requeue; nothing in flight at the
# end; no kernel warning.
# VM-CHECK: all
# VM-CHECK: alone
# VM-TIMEOUT: 600
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio dd python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 22
out=$(mktemp -d)
# a debug kernel (make check-debug) runs each command several times
# slower: the read stays stuck longer, for the views at 90 s to see it
STUCK_S=$(kdebug_or 150 240)
RUN_S=120
RATE=25
STUCK_TRIG_S=30
# the stuck read: 4 KiB at 48 MiB (sector 98304); fio stays below 32 MiB
SKIP=12288
SECTOR=$((SKIP * 8))
RF_TIMEOUT=4
RF_REQUEUED=8
RF_ERROR=2
sdbg=/sys/bus/pseudo/drivers/scsi_debug

# mono - CLOCK_MONOTONIC in ns, the clock of the records' times
mono() {
	python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'
}

# snap N - the in-flight views now, the clock read just before them
snap() {
	mono > "$out/t.$1"
	"$IOTRACECTL" inflight -o json "$sd" > "$out/infl.$1.json" ||
		log "iotracectl inflight $sd failed"
	cat "$IOT/$sd/inflight" > "$out/infl.$1.txt"
	"$IOTRACECTL" stats --kernel -o json "$sd" > "$out/met.$1.json" ||
		log "iotracectl stats --kernel $sd failed"
}

# sleep_until T - sleep until $SECONDS is T (at once if it is past)
sleep_until() {
	[ "$SECONDS" -ge "$1" ] || sleep $(($1 - SECONDS))
}

# metric KEY - a top-level value of the disk's metrics at the end
metric() {
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
print((m[0] if isinstance(m, list) else m)[sys.argv[2]])' "$out/met.3.json" "$1"
}

load_iotrace buf_size=4M
scsi_debug_load 120 dev_size_mb=64
[ -n "$sd" ] || die "no scsi_debug disk appeared"
# Nothing but the test on the disk: udevd re-reads the partition table of
# a disk opened for writing and closed (fio's first open of it does so),
# the disk's revalidation then waits for the stuck read (seen on 6.12),
# and fio's next open waits behind udevd in bdev_open() for minutes.
pkill -STOP -x systemd-udevd
log "scsi_debug disk $sd ($(cat /sys/block/"$sd"/queue/scheduler))"
echo "$STUCK_S" > /sys/block/"$sd"/device/timeout ||
	die "cannot set the command timeout of $sd"
wait_for "$IOT/$sd/enable" 10 || die "iotrace did not pick up $sd"
echo 1 > "$IOT/$sd/enable" || die "cannot enable $sd"
echo 1 > "$IOT/$sd/clear" || die "cannot clear $sd"
"$IOTRACECTL" trigger "$sd" stuck=${STUCK_TRIG_S}s rate=0 ||
	die "iotracectl trigger $sd stuck=${STUCK_TRIG_S}s failed"
events_listen "$out/ev" || die "the event listener did not start"
stat0=$(blk_ios "$sd")

# ---- one read the device never answers ---------------------------------
cnt0=$(($(cat /sys/block/"$sd"/device/iorequest_cnt)))
t_before=$(mono)
echo 1 > $sdbg/every_nth || die "cannot set scsi_debug's every_nth"
echo 4 > $sdbg/opts || die "cannot make scsi_debug ignore a command"
dd if=/dev/"$sd" of=/dev/null bs=4096 skip=$SKIP count=1 iflag=direct \
	2> "$out/dd" &
ddpid=$!
end=$((SECONDS + 30))
while [ $(($(cat /sys/block/"$sd"/device/iorequest_cnt))) -le $cnt0 ] &&
      [ $SECONDS -lt $end ]; do
	sleep 0.05
done
echo 0 > $sdbg/opts
echo 0 > $sdbg/every_nth
t_have=$(mono)
s_have=$SECONDS
got=$(($(cat /sys/block/"$sd"/device/iorequest_cnt) - cnt0))
log "the device received $got command(s) while silent; dd is pid $ddpid"
[ "$got" -eq 1 ] || die "the device received $got commands while silent, not 1"

# ---- thousands of others around it -------------------------------------
fio --name=around --filename=/dev/"$sd" --direct=1 --ioengine=libaio \
	--iodepth=4 --rw=randrw --bs=4k --size=32m --rate_iops=$RATE \
	--time_based --runtime=$RUN_S --output-format=json \
	--output="$out/fio.json" > "$out/fio.err" 2>&1 &
fiopid=$!
sleep_until $((s_have + 40))
snap 1
log "stat $(cat /sys/block/"$sd"/stat), inflight $(cat /sys/block/"$sd"/inflight)"
sleep_until $((s_have + 90))
snap 2
wait $fiopid || log "fio failed: $(tail -n 5 "$out/fio.err")"
wait_gone $ddpid $((STUCK_S + 120)) || ktap_fail "dd's read ended"
wait $ddpid
ddrc=$?
log "dd: rc $ddrc, $(tr '\n' ' ' < "$out/dd")"
# read at each try (a "$(...)" argument would be read once, before them)
none_inflight() { [ "$(iot_stat "$sd" inflight)" = 0 ]; }
until_ok 30 none_inflight || log "still in flight: $(iot_stat "$sd" inflight)"
snap 3
stat1=$(blk_ios "$sd")
sleep 1
kill "$listener" 2> /dev/null
wait "$listener" 2> /dev/null
sed 's/^/# event: /' "$out/ev" | head -n 5
echo 0 > "$IOT/$sd/enable"

# ---- the in-flight views during the run --------------------------------
# a kernel without block_io_start (before 6.5) notes no submitter: null
sub=0
[ "$(iot_status submitter)" != 1 ] || sub=1
python3 - "$out" "$SECTOR" "$t_before" "$t_have" "$ddpid" "$sub" \
	> "$out/verdict" <<'EOF_PY'
import json, sys
out, sector, t_before, t_have, ddpid, sub = \
    sys.argv[1], *map(int, sys.argv[2:])
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)
for n, when in ((1, '40 s'), (2, '90 s')):
    rows = json.load(open('%s/infl.%d.json' % (out, n)))
    t_snap = int(open('%s/t.%d' % (out, n)).read())
    mine = [r for r in rows if r['sector'] == sector]
    res(len(mine) == 1 and rows[0] is mine[0] and
        (mine[0]['op'], mine[0]['bytes']) == ('read', 4096) and
        t_before <= mine[0]['issue_ns'] <= t_have,
        'at %s: the stuck read listed once, first (of %d), its op, length '
        'and issue time: %s' % (when, len(rows), mine))
    res(len(mine) == 1 and
        mine[0]['age_us'] * 1000 >= t_snap - t_have and
        all(r['issue_ns'] > t_have for r in rows[1:]),
        'at %s: its age at least the %.1f s since the device had it, every '
        'other one issued after it' % (when, (t_snap - t_have) / 1e9))
    pid = mine[0].get('pid', 'absent') if len(mine) == 1 else 'absent'
    res(pid == (ddpid if sub else None),
        'at %s: its submitter %s, dd is %d (noted: %d)' %
        (when, pid, ddpid, sub))
    m = json.load(open('%s/met.%d.json' % (out, n)))
    m = m[0] if isinstance(m, list) else m
    res(m['inflight'] >= 1 and m['oldest_age_ns'] is not None and
        m['oldest_age_ns'] >= t_snap - t_have,
        'at %s: the metrics count %d in flight, the oldest %.1f s old' %
        (when, m['inflight'], (m['oldest_age_ns'] or 0) / 1e9))
    txt = open('%s/infl.%d.txt' % (out, n)).read().split()
    res(str(sector) in txt,
        'at %s: the debugfs inflight file lists sector %d' % (when, sector))
EOF_PY
ktap_verdict "$out/verdict"

# ---- the stuck trigger --------------------------------------------------
grep "^trigger $sd " "$out/ev" > "$out/ev.sd"
ktap_check "exactly one stuck event ($(grep -c 'reason=stuck' "$out/ev.sd") of $(wc -l < "$out/ev.sd"))" \
	test "$(grep -c 'reason=stuck' "$out/ev.sd")" -eq 1 -a \
	"$(wc -l < "$out/ev.sd")" -eq 1
ktap_check "for the stuck read: sector $SECTOR, op read, latency at least ${STUCK_TRIG_S} s" \
	python3 -c '
import sys
f = dict(kv.split("=", 1) for kv in open(sys.argv[1]).read().split() if "=" in kv)
sys.exit(not (int(f["sector"]) == int(sys.argv[2]) and f["op"] == "read" and
              int(f["latency_ns"]) >= int(sys.argv[3]) * 10**9))' \
	"$out/ev.sd" "$SECTOR" "$STUCK_TRIG_S"
ev_pid=$(sed -n 's/.* pid=\([0-9]*\).*/\1/p' "$out/ev.sd")
want=
[ "$sub" != 1 ] || want=$ddpid
ktap_check "the stuck event's submitter: '$ev_pid', dd is $ddpid (noted: $sub)" \
	test "$ev_pid" = "$want"

# ---- the records --------------------------------------------------------
"$RINGCHECK" check "$IOT/$sd/ring" > "$out/check" ||
	ktap_fail "ringcheck check"
"$RINGCHECK" dumpt "$IOT/$sd/ring" > "$out/recs.t"
"$RINGCHECK" dumpp "$IOT/$sd/ring" > "$out/recs.p"
delta=$((stat1 - stat0))
nfio=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["read"]["total_ios"] + j["write"]["total_ios"])' "$out/fio.json")
log "stat delta $delta, fio I/Os $nfio, $(tr '\n' ' ' < "$out/check")"
ring_counts_vs_stat "$out/check" "$delta"
ktap_check "thousands around it: fio did $nfio I/Os, none dropped or overwritten" \
	test "$nfio" -ge 2000 -a "$(kv "$out/check" dropped)" = 0 -a \
	"$(kv "$out/check" overwritten)" = 0
# OP SECTOR BYTES RFLAGS ISSUE_NS QUEUE_NS COMPLETE_NS
mine=$(awk -v s=$SECTOR '$2 == s' "$out/recs.t")
log "its record: $mine"
ktap_check "its record: TIMEOUT and REQUEUED, no error, completed at least ${STUCK_S} s after dd started" \
	python3 -c '
import sys
rows = [l.split() for l in sys.argv[1].splitlines()]
t_before, stuck = int(sys.argv[2]), int(sys.argv[3])
ok = len(rows) == 1 and rows[0][0] == "read" and rows[0][2] == "4096"
if ok:
    rf, issue, comp = int(rows[0][3]), int(rows[0][4]), int(rows[0][6])
    want, err = int(sys.argv[4]), int(sys.argv[5])
    ok = (rf & want == want and not rf & err and
          comp >= t_before + stuck * 10**9 and issue <= comp)
sys.exit(not ok)' "$mine" "$t_before" "$STUCK_S" \
	$((RF_TIMEOUT | RF_REQUEUED)) $RF_ERROR
# a kernel without block_io_start (before 6.5) notes no submitter: pid 0
want=0
[ "$(iot_status submitter)" != 1 ] || want=$ddpid
ktap_check "its submitter: $want (dd is $ddpid), and dd read it (rc $ddrc)" \
	test "$(awk -v s=$SECTOR '$2 == s { print $5 }' "$out/recs.p")" = "$want" \
	-a "$ddrc" -eq 0
ktap_check "no other record timed out, was requeued or failed" \
	python3 -c '
import sys
bad = int(sys.argv[3])
sys.exit(any(int(f[1]) != int(sys.argv[2]) and int(f[3]) & bad
             for f in (l.split() for l in open(sys.argv[1]) if l[0] != "#")))' \
	"$out/recs.t" "$SECTOR" $((RF_TIMEOUT | RF_REQUEUED | RF_ERROR))
ktap_check "the metrics count one timeout and one requeue ($(metric timeouts), $(metric requeues))" \
	test "$(metric timeouts)" = 1 -a "$(metric requeues)" = 1
ktap_check "nothing in flight at the end" \
	test "$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' \
		"$out/infl.3.json")" -eq 0
ktap_check "no kernel warning" no_kernel_splat
unload_iotrace
rmmod scsi_debug 2> /dev/null
pkill -CONT -x systemd-udevd
udevadm control --start-exec-queue 2> /dev/null
rm -rf "$out"
ktap_finish
