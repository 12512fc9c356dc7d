#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# nvme_mpath_inflight: an NVMe multipath head (nvme0n1) has no requests of
# its own; the requests in flight on its paths are its.  The head's
# in-flight views list them: debugfs inflight (each line with its path)
# and stats, its metrics,
# IOTRACE_IOC_INFLIGHT_RECORDS (each record naming its path, as its
# completion's record will), a recording stopped while they are held;
# and a stuck trigger armed on the head fires for each.
#
# nvme is loaded with a poll queue (poll_queues=1).  pollhold submits four
# 4 KiB polled reads on the head (io_uring, IORING_SETUP_IOPOLL) and does
# not poll for HOLD_S seconds: nobody else polls a poll queue, so the
# reads stay in flight on their paths however fast QEMU answers
# (iopolicy round-robin spreads them).  The driver's command timeout (30
# s) would poll them; HOLD_S is below it.  Skipped (4) where the head
# does not poll.
#
# Oracles: the offsets pollhold was given and its pid; the block layer's
# count of requests in flight on each path (/sys/block/<path>/inflight)
# and the path's own in-flight records (its device's ioctl); the NVMe
# Read the driver builds for each read (opcode 02h, SLBA, NLB zero-based:
# the NVM command set, 512-byte blocks); each read's completion record in
# the head's ring afterwards, decoded by cmd_dump (not iotracectl): the
# in-flight record must be that record but for the completion.
# VM-DEVICES: nvme-mpath
# VM-CHECK: newest
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd python3 cc
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
need_pollhold
[ "$(cat /proc/sys/kernel/io_uring_disabled 2> /dev/null || echo 0)" = 0 ] ||
	skip "io_uring is disabled (kernel.io_uring_disabled)"
HOLD_S=$(kdebug_or 14 24)
STUCK_S=2
OFFS="1048576 2097152 3145728 4194304"	# sectors 2048, 4096, 6144, 8192
out=$(mktemp -d)

modprobe -r nvme 2> /dev/null
modinfo -p nvme 2> /dev/null | grep -q '^poll_queues:' ||
	skip "nvme has no poll_queues parameter on $(uname -r)"
modprobe nvme poll_queues=1 || die "modprobe nvme poll_queues=1 failed"
settle
find_mpath_head
[ "$(cat "/sys/block/$head/queue/io_poll" 2> /dev/null)" = 1 ] ||
	skip "the multipath head $head does not poll on $(uname -r)"
log "head $head, paths $paths"
subsys=$(basename "$(dirname "$(readlink -f "/sys/block/$head")")")
echo round-robin > "/sys/class/nvme-subsystem/$subsys/iopolicy" 2> /dev/null ||
	log "iopolicy stays $(cat "/sys/class/nvme-subsystem/$subsys/iopolicy" 2> /dev/null)"
settle
udevadm control --stop-exec-queue 2> /dev/null
ktap_header 14

load_iotrace disks="$head"
"$IOTRACECTL" trigger "$head" stuck=${STUCK_S}s rate=0 ||
	die "iotracectl trigger $head stuck=${STUCK_S}s failed"
# a requeue is a path's: on the head it could never fire; the set above stays
"$IOTRACECTL" trigger "$head" requeues=1 > "$out/rq" 2>&1
rc=$?
sed 's/^/# trigger requeues=1: /' "$out/rq"
ktap_check "a requeue trigger on the head is refused, with why (rc $rc)" \
	sh -c "[ $rc != 0 ] && grep -q 'multipath head sees no requeue' '$out/rq' &&
	       \"$IOTRACECTL\" state '$head' | grep -q '^trigger_stuck_ns: ${STUCK_S}000000000\$'"
events_listen "$out/ev" || die "the event listener did not start"
echo 1 > "$IOT/$head/clear"
record_start "$head" "$out/rec.trace"

# shellcheck disable=SC2086
"$POLLHOLD" "/dev/$head" "$HOLD_S" $OFFS > "$out/hold" 2>&1 &
hold_pid=$!
until_ok 30 grep -q '^held 4' "$out/hold" || log "pollhold: $(cat "$out/hold")"
wait_inflight "$head" 4 || log "the head's stats did not count 4 in flight"
cp "$IOT/$head/inflight" "$out/head.infl"
iot_stat "$head" inflight > "$out/head.stat"
sed -n 's/^inflight: //p; s/^inflight_oldest_age_ns: //p' "$IOT/$head/metrics" \
	> "$out/head.metrics"
for p in $paths; do
	sed 1d "$IOT/$p/inflight" > "$out/$p.infl"
	awk '{ print $1 + $2 }' "/sys/block/$p/inflight" > "$out/$p.blk"
done
# the ioctl on the head's device and on each path's, decoded here
# shellcheck disable=SC2086
python3 - "$head" $paths > "$out/ioctl.json" 2> "$out/ioctl.err" <<'EOF_PY'
import ctypes, fcntl, json, os, struct, sys
REQ = '<QIIIIQQQ'
IOC = (3 << 30) | (struct.calcsize(REQ) << 16) | (0xb9 << 8) | 2
res = {}
for disk in sys.argv[1:]:
    fd = os.open('/dev/iotrace/' + disk, os.O_RDONLY)
    buf = ctypes.create_string_buffer(64 * 128)
    req = bytearray(struct.pack(REQ, ctypes.addressof(buf), 64, 128, 0, 0,
                                0, 0, 0))
    fcntl.ioctl(fd, IOC, req, True)
    r = struct.unpack(REQ, req)
    res[disk] = {'count': r[3], 'torn': r[4],
                 'recs': [buf.raw[i * 128:(i + 1) * 128].hex()
                          for i in range(min(r[3], 64))]}
    os.close(fd)
json.dump(res, sys.stdout)
EOF_PY
"$IOTRACECTL" inflight -o json "$head" > "$out/live.json" 2> "$out/live.err"
# the stuck trigger: one event per read once it is STUCK_S old (counted
# at each try: a "$(...)" argument would be counted once, before them)
stuck_events() {
	[ "$(grep -c "^trigger $head .*reason=stuck" "$out/ev")" -ge 4 ]
}
until_ok 20 stuck_events || log "fewer than 4 stuck events for $head"
kill -TERM $rec_pid
wait $rec_pid
rc_rec=$?
wait $hold_pid
rc_hold=$?
sleep 1
kill $listener 2> /dev/null
wait $listener 2> /dev/null
cp "$IOT/$head/inflight" "$out/head.after"
echo 0 > "$IOT/$head/enable"
CMD_DUMP_RAW=1 cmd_dump "$head" > "$out/ring.hex" || die "cannot decode the ring of $head"
"$IOTRACECTL" inflight -o json "$out/rec.trace" > "$out/rec-infl.json" \
	2> "$out/rec-infl.err"
udevadm control --start-exec-queue 2> /dev/null
sed 's/^/# pollhold: /' "$out/hold"
sed 's/^/# head inflight: /' "$out/head.infl"
for p in $paths; do
	log "$p: block layer in flight $(cat "$out/$p.blk"); iotrace: $(wc -l < "$out/$p.infl")"
done
sed 's/^/# /' "$out/ioctl.err" "$out/rec.trace.err" "$out/rec-infl.err"
sed 's/^/# record inflight: /' "$out/rec-infl.json"
sed 's/^/# inflight: /' "$out/live.json" "$out/live.err"
grep "^trigger $head " "$out/ev" | sed 's/^/# event: /'
log "pollhold pid $hold_pid exit $rc_hold, record exit $rc_rec, submitter noted: $(iot_status submitter)"

ktap_check "pollhold's four reads returned 4096 bytes each after the hold" \
	test "$rc_hold" -eq 0 -a "$(grep -c '^read .* 4096$' "$out/hold")" -eq 4
python3 - "$out" "$head" "$hold_pid" "$(iot_status submitter)" "$STUCK_S" \
	"$paths" $OFFS > "$out/verdict" <<'EOF_PY'
import json, struct, sys
out, head, hold, sub, stuck = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    sys.argv[4] == '1', int(sys.argv[5])
paths = sys.argv[6].split()
secs = sorted(int(o) // 512 for o in sys.argv[7:])
REC = '<IIQQQIIIhHHHHHBBBBI64s'
F = ('seq bytes issue complete sector queue st res err rf of cpu hwq tag '
     'op retries ctype clen pid cmd').split()
def dec(h):
    return dict(zip(F, struct.unpack(REC, bytes.fromhex(h))))
def path_of(r):
    return struct.unpack_from('<I', r['cmd'], 16)[0]
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)
def ctrl(p):
    return int(p.split('c')[1].split('n')[0])
try:
    io = json.load(open(out + '/ioctl.json'))
except ValueError:
    io = {}
hd = io.get(head, {})
infl = [dec(h) for h in hd.get('recs', [])]
res(hd.get('count') == 4 and hd.get('torn') == 0 and
    sorted(r['sector'] for r in infl) == secs and
    all(r['op'] == 0 and r['bytes'] == 4096 and r['complete'] == 0 and
        (r['pid'] == hold if sub else True) for r in infl) and
    [r['issue'] for r in infl] == sorted(r['issue'] for r in infl),
    "the head's ioctl lists the four reads, oldest first, pollhold's: %s" %
    [(r['sector'], r['op'], r['bytes'], r['pid']) for r in infl])
# NVM command set Read: opcode 02h, SLBA in CDW10-11, NLB (0-based) in CDW12
def nvme_read(r):
    c = r['cmd']
    return (r['ctype'] == 1 and c[0] == 0x02 and
            struct.unpack_from('<Q', c, 40)[0] == r['sector'] and
            struct.unpack_from('<H', c, 48)[0] == 7)
res(len(infl) == 4 and all(nvme_read(r) and r['rf'] & 0x20 for r in infl),
    'each carries its NVMe Read: opcode 02h, its SLBA, NLB 7')
# per path: what the block layer counts in flight there is what the
# head's records name that path for, and they are the path's own records
blk = {p: int(open('%s/%s.blk' % (out, p)).read()) for p in paths}
own = {p: [dec(h) for h in io.get(p, {}).get('recs', [])] for p in paths}
named = {p: [r for r in infl if path_of(r) == ctrl(p) + 1] for p in paths}
strip = lambda r: {k: (v[:16] + bytes(4) + v[20:] if k == 'cmd' else v)
                   for k, v in r.items()}
res(sum(len(v) for v in named.values()) == 4 and
    all(len(named[p]) == blk[p] == len(own[p]) for p in paths) and
    all(sorted(map(str, map(strip, named[p]))) ==
        sorted(map(str, own[p])) for p in paths),
    'each names its path, as the block layer and the path count them: %s' %
    {p: (len(named[p]), blk[p], len(own[p])) for p in paths})
res(sum(1 for p in paths if blk[p]) == 2,
    'round-robin: both paths hold some: %s' % blk)
# debugfs: the head's table is its paths' tables together, each line
# with a last column, the path that holds it
hd = open(out + '/head.infl').read().splitlines()
hl = sorted(l.split() for l in hd[1:])
pl = sorted(l.split() + [p] for p in paths
            for l in open('%s/%s.infl' % (out, p)))
cols = lambda v: [x[:1] + x[2:] for x in v]	# all but the age
res(len(hl) == 4 and cols(hl) == cols(pl) and hd[0].split()[-1] == 'PATH' and
    sorted(int(x[3]) for x in hl) == secs,
    "debugfs inflight of the head: its paths' lines, each with its path: "
    "%s" % cols(hl))
st = open(out + '/head.stat').read().split()
mt = open(out + '/head.metrics').read().split()
res(st == ['4'] and len(mt) == 2 and mt[0] == '4' and int(mt[1]) > 0,
    "the head's stats and metrics count 4 in flight (%s, %s)" % (st, mt))
ev = []
for l in open(out + '/ev'):
    w = l.split()
    if len(w) > 2 and w[0] == 'trigger' and w[1] == head:
        ev.append(dict(kv.split('=', 1) for kv in w[2:] if '=' in kv))
se = [e for e in ev if e.get('reason') == 'stuck']
res(len(se) == 4 and sorted(int(e['sector']) for e in se) == secs and
    all(e['op'] == 'read' and int(e['latency_ns']) >= stuck * 10**9
        for e in se),
    "the head's stuck trigger (%d s): one event per read: %s" %
    (stuck, [(e.get('sector'), e.get('latency_ns')) for e in se]))
ring = [dec(l.strip()) for l in open(out + '/ring.hex') if l.strip()]
done = []
for r in infl:
    m = [c for c in ring if (c['sector'], c['issue']) == (r['sector'], r['issue'])]
    done.append(m[0] if len(m) == 1 else None)
same = lambda a, b: all(a[k] == b[k] for k in F
                        if k not in ('seq', 'complete', 'rf', 'st', 'res'))
res(len(infl) == 4 and all(done) and
    all(same(r, c) and (c['rf'] & ~0x201) == r['rf'] for r, c in zip(infl, done)),
    "each equals its completion record in the head's ring but for the "
    'completion, its path too: %s' % [(path_of(r), c and path_of(c))
                                       for r, c in zip(infl, done)])
try:
    rec = json.load(open(out + '/rec-infl.json'))
except ValueError:
    rec = []
want = sorted((r['sector'], 'nvme%sc%dn%s' % (head[4:].split('n')[0],
               path_of(r) - 1, head.split('n')[-1])) for r in infl)
got = sorted((r['sector'], r['command'].split('[path ')[-1].rstrip(']'))
             for r in rec)
res(len(rec) == 4 and got == want and
    all(r['command'].startswith('Read ') for r in rec),
    'a recording stopped while they were held lists them, with their '
    'paths: %s' % [r.get('command') for r in rec])
try:
    live = json.load(open(out + '/live.json'))
except ValueError:
    live = []
got = sorted((r['sector'], r['command'].split('[path ')[-1].rstrip(']'))
             for r in live)
res(len(live) == 4 and got == want and
    all(r['command'].startswith('Read nsid=1 slba=%d len=8 ' % r['sector'])
        for r in live),
    'iotracectl inflight %s lists them with their commands and paths: %s'
    % (head, [r.get('command') for r in live]))
EOF_PY
ktap_verdict "$out/verdict"
ktap_check "nothing in flight on $head after the hold" \
	test "$(sed 1d "$out/head.after" | wc -l)" -eq 0
ktap_check "no kernel warning" no_kernel_splat
unload_iotrace
# the next test of a shared boot gets nvme as the boot loaded it
modprobe -r nvme 2> /dev/null && modprobe nvme
rm -rf "$out"
ktap_finish
