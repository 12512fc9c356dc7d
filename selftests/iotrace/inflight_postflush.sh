#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# inflight_postflush: a FUA write to a disk with a volatile write cache and
# no FUA is run by the block layer's flush machinery as its data phase,
# then a flush request (the post-flush); the write ends when the flush
# does.  Its record is written at the end of the data phase.  Between the
# two, what the write waits for is the flush, a request in flight of its
# own: iotrace's in-flight readers list the flush and not the write, so
# that each request they list has its record still to come and a
# recording stopped meanwhile keeps the write once.
#
# null_blk, memory backed, with a write cache and fua=0 (Linux 6.12 and
# later have the parameter; skipped before), timer completions of 6 s
# (30 s on a debug kernel):
# dd writes 4 KiB with O_DIRECT|O_DSYNC (REQ_FUA), the data phase ends
# after 6 s, the post-flush after 12.  Once the write's record is in the
# ring, while the flush is held:
# 1. the ring has the write (4096 bytes, POSTFLUSH) and no flush record;
# 2. debugfs inflight, the stats' count and the records ioctl (iotracectl
#    inflight DISK) list one request, the flush, and no slot torn;
# 3. a recording stopped then has the write once, as completed, and the
#    flush alone in its in-flight table, no slot torn;
# 4. when the flush ends: the write ended (dd), the write once and the
#    flush issued after it in the ring, nothing in flight;
# 5. a write in flight when its disk is enabled (iotrace loaded with
#    disks=none, the disk enabled once /sys/block/DISK/inflight has the
#    write): its data phase is recorded with IOTRACE_RF_NO_ISSUE, and the
#    end of its sequence is neither a second record nor a second count:
#    the ring has it once, the metrics count the writes that
#    /sys/block/DISK/stat counts, nothing in flight at the end;
# no kernel warning.
# VM-CHECK: newest
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
# 30 s on a debug kernel: its guest is slow enough that reading the ring
# and the in-flight views takes longer than 6 s (the post-flush had ended)
cns=$(kdebug_or 6000000000 30000000000)
# before loading it: an older null_blk ignores the parameter, and its
# 6 s reads of the partition table only take time
modinfo -p null_blk 2> /dev/null | grep -q '^fua:' ||
	skip "null_blk has no fua parameter (Linux 6.12 and later)"
rmmod null_blk 2> /dev/null
modprobe null_blk nr_devices=1 submit_queues=1 memory_backed=1 \
	cache_size=16 fua=0 irqmode=2 completion_nsec=$cns 2> /dev/null ||
	skip "null_blk has no fua parameter (Linux 6.12 and later)"
settle
disk=nullb0
quiet_disk $disk
# null_blk's own request timeout is 5 s: past the completions here
echo 60000 > /sys/block/$disk/queue/io_timeout
udevadm control --stop-exec-queue 2> /dev/null
pkill -STOP -x systemd-udevd
wc=$(cat /sys/block/$disk/queue/write_cache)
fua=$(cat /sys/block/$disk/queue/fua)
[ "$wc" = "write back" ] && [ "$fua" = 0 ] ||
	skip "$disk: write cache '$wc', fua $fua: no post-flush"
ktap_header 11
out=$(mktemp -d)
load_iotrace disks=$disk buf_size=4M
record_start $disk "$out/rec.trace"
t0=$SECONDS
dd if=/dev/zero of=/dev/$disk bs=4k count=1 seek=100 oflag=direct,dsync \
	status=none &
dd_pid=$!
# the data phase's record: the write in the ring
end=$((SECONDS + 60))
until "$IOTRACECTL" show -o csv $disk 2> /dev/null | grep -q ',write,'; do
	[ $SECONDS -lt $end ] || break
	sleep 0.2
done
log "the write's record after $((SECONDS - t0)) s"
cat "$IOT/$disk/inflight" > "$out/debugfs"
busy=$(iot_stat $disk inflight)
"$IOTRACECTL" inflight -o json $disk > "$out/live.json" 2> "$out/live.err"
"$IOTRACECTL" show -o json $disk > "$out/ring.json" 2> "$out/ring.err"
kill -TERM $rec_pid
wait $rec_pid
rc_rec=$?
dd_alive=0
kill -0 $dd_pid 2> /dev/null && dd_alive=1
log "listed $((SECONDS - t0)) s after the write (dd still waiting: $dd_alive, record exit $rc_rec)"
wait $dd_pid
rc_dd=$?
after=$(iot_stat $disk inflight)
"$IOTRACECTL" show -o json $disk > "$out/ring2.json" 2> /dev/null
"$IOTRACECTL" show -o json "$out/rec.trace" > "$out/rec.json" \
	2> "$out/rec.err"
"$IOTRACECTL" inflight -o json "$out/rec.trace" > "$out/rec-infl.json" \
	2> "$out/rec-infl.err"
for f in debugfs live.json live.err ring.json ring2.json rec.trace.err rec.json \
	rec-infl.json rec-infl.err; do
	sed "s/^/# $f: /" "$out/$f"
done
python3 - "$out" "$busy" "$dd_alive" "$rc_dd" "$after" > "$out/verdict" <<'EOF_PY'
import json, sys
out, busy, alive, rc_dd, after = sys.argv[1], sys.argv[2], \
    sys.argv[3] == '1', sys.argv[4], sys.argv[5]
POSTFLUSH = 1 << 13
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)
def load(name):
    try:
        return json.load(open(out + '/' + name))
    except (OSError, ValueError):
        return []
ring = load('ring.json')
mine = [(r['op'], r['sector'], r['bytes'], bool(r['rflags'] & POSTFLUSH))
        for r in ring]
res(alive and mine == [('write', 800, 4096, True)],
    'while the post-flush is held (dd waiting: %s), the ring has the write '
    'alone, 4096 bytes at sector 800, POSTFLUSH: %s' % (alive, mine))
lines = [l.split() for l in open(out + '/debugfs')][1:]
res([l[2].lower() for l in lines] == ['flush'],
    'debugfs inflight lists the flush alone: %s' % lines)
res(busy == '1', 'the stats count one request in flight: %s' % busy)
def said(name):
    try:
        return open(out + '/' + name).read().strip()
    except OSError:
        return 'missing'
live = load('live.json')
res([(r['op'], r['bytes']) for r in live] == [('flush', 0)] and
    not said('live.err'),
    'iotracectl inflight (the records ioctl) lists the flush alone, no slot '
    'torn: %s %r' % ([(r['op'], r['sector'], r['bytes']) for r in live],
                     said('live.err')))
rec = load('rec.json')
w = [r for r in rec if r['op'] == 'write']
res(len(w) == 1 and w[0]['sector'] == 800 and
    not [r for r in rec if r['op'] == 'flush'],
    'the recording has the write once, completed, and no flush record: %s' %
    [(r['op'], r['sector']) for r in rec])
infl = load('rec-infl.json')
res([r['op'] for r in infl] == ['flush'] and not said('rec-infl.err'),
    'its in-flight table has the flush alone, no slot torn: %s %r' %
    ([(r['op'], r['sector'], r['bytes']) for r in infl],
     said('rec-infl.err')))
# dd's close may add a flush of its own (an empty PREFLUSH write)
ring2 = load('ring2.json')
w2 = [r for r in ring2 if r['op'] == 'write' and r['bytes']]
fl = [r for r in ring2 if r['op'] == 'flush']
res(rc_dd == '0' and after == '0' and len(w2) == 1 and fl and
    fl[0]['issue_ns'] >= w2[0]['complete_ns'],
    'once the flush ended: dd exit %s, in flight %s, the ring: the write '
    'once, then its flush: %s' %
    (rc_dd, after, [(r['op'], r['bytes'], r['issue_ns']) for r in ring2]))
EOF_PY
ktap_verdict "$out/verdict"

# 5. the write issued before its disk was enabled
load_iotrace disks=none buf_size=4M
w0=$(blk_stat $disk 5)
dd if=/dev/zero of=/dev/$disk bs=4k count=1 seek=200 oflag=direct,dsync \
	status=none &
dd_pid=$!
# the write in flight (reads writes), then the disk enabled
until_ok 30 awk '$2 == 0 { exit 1 }' /sys/block/$disk/inflight ||
	log "the write was not seen in flight"
echo 1 > "$IOT/$disk/enable"
log "enabled with $(cat /sys/block/$disk/inflight) in flight"
wait $dd_pid
rc_dd=$?
"$IOTRACECTL" show -o json $disk > "$out/ring3.json" 2> /dev/null
sed "s/^/# ring3.json: /" "$out/ring3.json"
mw=$(awk '$1 == "write" && $2 == "requests" { print $3 }' "$IOT/$disk/metrics")
sw=$(($(blk_stat $disk 5) - w0))
after=$(iot_stat $disk inflight)
python3 - "$out/ring3.json" "$rc_dd" "$mw" "$sw" "$after" \
	> "$out/verdict2" <<'EOF_PY'
import json, sys
ring, rc_dd, mw, sw, after = sys.argv[1:]
NO_ISSUE, PREFLUSH = 1 << 7, 1 << 12
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)
try:
    recs = json.load(open(ring))
except (OSError, ValueError):
    recs = []
# the writes but dd's close's flush (an empty PREFLUSH write); the end of
# a sequence comes with no bytes, at the sector after them
w = [(r['sector'], r['bytes'], bool(r['rflags'] & NO_ISSUE)) for r in recs
     if r['op'] == 'write' and (r['bytes'] or not r['rflags'] & PREFLUSH)]
res(rc_dd == '0' and w[:1] == [(1600, 4096, True)],
    'a write issued before the enable: dd exit %s, its data phase recorded '
    '(sector 1600, 4096 bytes, NO_ISSUE): %s' % (rc_dd, w))
res(len(w) == 1, 'the end of its flush sequence is no second record: %s' % w)
res(mw == sw and after == '0',
    'the metrics count the writes /sys/block counts (%s, %s), %s in flight'
    % (mw, sw, after))
EOF_PY
ktap_verdict "$out/verdict2"
ktap_check "no kernel warning" no_kernel_splat
pkill -CONT -x systemd-udevd
udevadm control --start-exec-queue 2> /dev/null
rm -rf "$out"
ktap_finish
