#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# watch_stuck: a snapshot of a stuck request names it.  A stuck request
# has no record until it ends, so the snapshot the service saves when the
# stuck trigger fires holds it as the requests in flight at the
# snapshot's end (IOTRACE_CHUNK_INFLIGHT, "iotracectl inflight FILE"),
# and the library's in-flight call gives a live disk's.
#
# A scsi_debug disk answers every command after DELAY_S (its delay, in
# jiffies of Debian's HZ=250, raised once the disk is up, udev's queue
# stopped); "iotracectl watch" with "trigger = stuck=1s" and post = 0
# watches it; one dd reads 4 KiB at sector 800.
#
# Oracles: the guest's CLOCK_MONOTONIC before dd started and once the
# snapshot file was there (the read's issue time lies between), dd's pid
# and offset, and the ring's record of the read once it completed (the
# same issue time, queue, tag, CPU and submitter; completed after the
# snapshot's table was taken).
#
# Checks: the snapshot's in-flight table lists exactly the read, with its
# op, sector, length, an issue time in that window, an age of at least
# the stuck threshold that ends before the read did, dd's pid (where the
# kernel has block_io_start); "info" counts it; the snapshot has no
# record of it; the ring's record of it once it completed agrees field
# for field; the Python binding's inflight() on the live disk lists it
# while it is in flight (and its record agrees); a manual snapshot with
# nothing in flight has no in-flight table.
# VM-CHECK: newest
# VM-TIMEOUT: 300
# VM-SMP: 1
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd dd python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 10
out=$(mktemp -d)
# long enough for the Python binding to start while the read is in flight
# (up to 13 s on 5.10 under TCG)
DELAY_S=$(kdebug_or 25 50)
sdbg=/sys/bus/pseudo/drivers/scsi_debug
SECTOR=800
pylib=$IOTRACE_SRC/tools/build/libiotrace.so.1

mono() {
	python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'
}

load_iotrace disks=none buf_size=256K
scsi_debug_load 120 dev_size_mb=8
stk=$sd
[ -n "$stk" ] || die "no scsi_debug disk appeared"
quiet_disk "$stk"
echo 300 > /sys/block/"$stk"/device/timeout ||
	die "cannot set the command timeout of $stk"
echo $((DELAY_S * 250)) > $sdbg/delay || die "cannot set scsi_debug's delay"
log "scsi_debug $stk answers each command after $DELAY_S s"

# snapfiles: the snapshot files, oldest first
snapfiles() {
	ls "$out/snap"/iotrace-*.iot 2> /dev/null
}

watch_start "post = 0
[disk $stk]
trigger = stuck=1s rate=0" || die "watch did not start"

# ---- one read in flight for DELAY_S ----------------------------------
t_before=$(mono)
dd if=/dev/"$stk" of=/dev/null bs=4096 skip=$((SECTOR / 8)) count=1 \
	iflag=direct 2> /dev/null &
ddpid=$!
# the library's view of the live disk while the read is in flight, beside
# the wait for the snapshot: Python starts slowly on a loaded guest
wait_inflight "$stk" 1 || log "the read did not show up in stats"
PYTHONPATH=$IOTRACE_SRC/tools/python IOTRACE_LIBRARY=$pylib python3 -c '
import json, sys, iotrace
got, meta = iotrace.open(sys.argv[1]).inflight()
json.dump({"recs": [r._asdict() for r in got], "meta": meta}, sys.stdout)
' "$stk" > "$out/py.json" 2> "$out/py.err" &
pypid=$!
end=$((SECONDS + 30))
until [ -n "$(snapfiles)" ] || [ $SECONDS -ge $end ]; do
	sleep 0.1
done
t_snap=$(mono)
f=$(snapfiles | head -1)
log "dd is pid $ddpid; snapshot ${f##*/}"
alive=0
! kill -0 $ddpid 2> /dev/null || alive=1
wait $pypid || log "python inflight(): $(tail -n 3 "$out/py.err")"
wait_gone $ddpid $((DELAY_S + 60)) || ktap_fail "dd's read ended"
sleep 1
"$IOTRACECTL" inflight -o json "${f:-/nonexistent}" > "$out/infl.json" 2> "$out/infl.err"
"$IOTRACECTL" info -o json "${f:-/nonexistent}" > "$out/info.json" 2>&1
"$IOTRACECTL" show -o csv "${f:-/nonexistent}" > "$out/snap.csv" 2>&1
"$IOTRACECTL" show -o csv "$stk" > "$out/ring.csv" 2>&1
sed 's/^/# inflight: /' "$out/infl.json" "$out/infl.err"
sub=0
[ "$(iot_status submitter)" != 1 ] || sub=1

python3 - "$out" "$stk" "$SECTOR" "$t_before" "$t_snap" "$ddpid" "$sub" \
	"$alive" > "$out/verdict" <<'EOF_PY'
import csv, json, sys
out, disk = sys.argv[1], sys.argv[2]
sector, t_before, t_snap, ddpid, sub, alive = map(int, sys.argv[3:])
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)
try:
    rows = json.load(open(out + '/infl.json'))
except ValueError as e:
    rows = []
    print('# inflight -o json: %s' % e)
res(alive == 1 and len(rows) == 1 and rows[0]['disk'] == disk and
    (rows[0]['op'], rows[0]['sector'], rows[0]['bytes']) ==
    ('read', sector, 4096),
    'the snapshot lists the stuck read, and only it (dd still running: '
    '%d): %s' % (alive, rows))
r = rows[0] if len(rows) == 1 else {}
res(t_before <= r.get('issue_ns', 0) <= t_snap,
    'its issue time %s between dd starting and the snapshot (%d, %d)' %
    (r.get('issue_ns'), t_before, t_snap))
done = [x for x in csv.DictReader(open(out + '/ring.csv'))
        if x['sector'] == str(sector)]
end = int(done[0]['complete_ns']) if len(done) == 1 else 0
res(r.get('age_us', 0) >= 1e6 and
    r.get('issue_ns', 0) + r.get('age_us', 0) * 1000 < end,
    'its age at the snapshot %s us: at least the 1 s threshold, the table '
    'taken before the read completed (%.1f s after its issue)' %
    (r.get('age_us'), (end - r.get('issue_ns', 0)) / 1e9))
# no submitter noted (before 6.5, submitter=N): null, as 'inflight DISK'
res(r.get('pid', 0) == (ddpid if sub else None),
    'its submitter %s, dd is %d (noted: %d)' % (r.get('pid'), ddpid, sub))
info = json.load(open(out + '/info.json'))
d = [x for x in info.get('disks', []) if x.get('name') == disk]
trig = info.get('triggers', [{}])[0]
res(len(d) == 1 and d[0].get('in_flight') == 1 and
    trig.get('reason') == 'stuck',
    'info: a stuck trigger, one request in flight (%s, %s)' %
    (d, trig.get('reason')))
snap = [x for x in csv.DictReader(open(out + '/snap.csv'))
        if x['sector'] == str(sector)]
res(not snap, 'the snapshot has no record of the read (%d)' % len(snap))
keys = ('issue_ns', 'hwq', 'tag', 'issue_cpu', 'bytes')
same = len(done) == 1 and all(
    int(done[0][k]) == r.get(k if k != 'issue_cpu' else 'cpu') for k in keys) \
    and int(done[0]['pid']) == (r.get('pid') or 0)
res(same, 'its record once it completed: the same issue time, queue, tag, '
    'CPU, length and submitter (%s)' %
    ([{k: x[k] for k in keys + ('pid', 'complete_ns')} for x in done]))
try:
    py = json.load(open(out + '/py.json'))
except ValueError as e:
    py = {'recs': [], 'meta': {}}
    print('# python: %s' % e)
p = py['recs'][0] if len(py['recs']) == 1 else {}
res(len(py['recs']) == 1 and p.get('sector') == sector and
    p.get('op') == 'read' and p.get('complete_ns') is None and
    len(done) == 1 and p.get('issue_ns') == int(done[0]['issue_ns']) and
    p.get('tag') == int(done[0]['tag']) and
    py['meta'].get('at_ns', 0) > p.get('issue_ns', 0),
    'the library on the live disk: the read in flight, as its record '
    'later says (%s, %s)' % (py['recs'], py['meta']))
EOF_PY
ktap_verdict "$out/verdict"

# ---- nothing in flight: no table --------------------------------------
IOTRACE_RUN_DIR=$out/run "$IOTRACECTL" snapshot --config "$out/conf" "$stk" > "$out/reply"
end=$((SECONDS + 30))
until [ "$(snapfiles | wc -l)" -ge 2 ] || [ $SECONDS -ge $end ]; do
	sleep 0.1
done
f2=$(snapfiles | tail -n 1)
n2=$("$IOTRACECTL" inflight -o csv "${f2:-/nonexistent}" 2> /dev/null | grep -c "^$stk,")
"$IOTRACECTL" info -o json "${f2:-/nonexistent}" > "$out/info2.json" 2>&1
ktap_check "a manual snapshot with nothing in flight: no in-flight table ($n2 rows)" \
	python3 -c 'import json, sys
i = json.load(open(sys.argv[1]))
assert sys.argv[2] == "0", sys.argv[2]
assert i["triggers"][0]["reason"] == "manual", i["triggers"]
assert all("in_flight" not in d for d in i["disks"]), i["disks"]' \
	"$out/info2.json" "$n2"
kill -TERM "$wpid" 2> /dev/null
wait "$wpid"
wrc=$?
sed 's/^/# watch: /' "$out/log"
ktap_check "the watcher ended with exit 0 ($wrc), no in-flight table left out" \
	eval 'test "$wrc" = 0 && ! grep -q "no requests in flight saved" "$out/log"'
echo 1 > $sdbg/delay
ktap_finish
