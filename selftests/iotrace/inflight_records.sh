#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# inflight_records: IOTRACE_IOC_INFLIGHT_RECORDS gives each request a slow
# SCSI disk still holds as the record its completion writes, less the
# completion: its issue, op flags, queue time, submitter, cgroup and CDB;
# "iotracectl record", stopped while they are held, saves them so.
#
# scsi_debug answers every command DELAY_J jiffies late (its delay
# parameter, set once the disk is quiet and traced: 10 s at Debian's
# HZ=250, 40 s on a debug kernel, where the listing takes longer; the
# disk's command timeout is raised to 120 s).  A 4 KiB read from a cgroup
# of its own and a 4 KiB write outside it, each one dd with direct I/O,
# are held meanwhile.
#
# Oracles: the offsets and sizes dd was told to use (sector, length, and
# the CDB sd built for them: READ(10) 0x28 / WRITE(10) 0x2a with that LBA
# and transfer length, SBC-3), the cgroup's inode number (its id), the dd
# processes' pids, and each request's own completion record in the ring
# afterwards, decoded from the uapi layout by cmd_dump (not iotracectl):
# the in-flight record must be that record but for the completion
# (complete_ns, seq, IOTRACE_RF_COMPLETE, the device status).  The ioctl's
# contract: records a caller's stride apart, zero padded; a short buffer
# gets the oldest and the whole count; a record size below the record's
# or reserved bytes set are refused with EINVAL.
# VM-CHECK: alone
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd python3 dd
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 11
out=$(mktemp -d)
sdbg=/sys/bus/pseudo/drivers/scsi_debug
DELAY_J=$(kdebug_or 2500 10000)
RD_SKIP=300	# 4 KiB blocks: sector 2400
WR_SEEK=700	# sector 5600

io_cgroup iotrace-infl

load_iotrace
scsi_debug_load 120 dev_size_mb=16
[ -n "$sd" ] || die "no scsi_debug disk appeared"
pkill -STOP -x systemd-udevd
quiet_disk "$sd"
echo 120 > /sys/block/"$sd"/device/timeout ||
	die "cannot set the command timeout of $sd"
cmd_enable "$sd"
log "scsi_debug disk $sd, cgroup $cg id $cgid"


record_start "$sd" "$out/rec.trace"
echo $DELAY_J > $sdbg/delay || die "cannot set scsi_debug's delay"
sh -c "echo \$\$ > $cg/cgroup.procs && exec dd if=/dev/$sd of=/dev/null \
	bs=4096 skip=$RD_SKIP count=1 iflag=direct status=none" &
rd_pid=$!
wait_inflight "$sd" 1 || log "the read did not show up in stats"
dd if=/dev/zero of=/dev/"$sd" bs=4096 seek=$WR_SEEK count=1 oflag=direct \
	status=none &
wr_pid=$!
wait_inflight "$sd" 2 || log "the write did not show up in stats"
# the ioctl, from an independent decoder of the uapi layout
python3 - /dev/iotrace/"$sd" > "$out/ioctl.json" 2> "$out/ioctl.err" <<'EOF_PY'
import ctypes, errno, fcntl, json, os, struct, sys
REQ = '<QIIIIQQQ'
IOC = (3 << 30) | (struct.calcsize(REQ) << 16) | (0xb9 << 8) | 2
fd = os.open(sys.argv[1], os.O_RDONLY)
def call(mx, size, reserved=0, fill=0):
    buf = ctypes.create_string_buffer(bytes([fill]) * max(mx * size, 1))
    req = bytearray(struct.pack(REQ, ctypes.addressof(buf), mx, size, 0, 0,
                                0, reserved, 0))
    try:
        fcntl.ioctl(fd, IOC, req, True)
    except OSError as e:
        return e.errno, None, None
    return 0, struct.unpack(REQ, req), buf.raw
res = {}
eno, req, raw = call(16, 128)
res['eno'] = eno
if req:
    res['count'], res['torn'], res['rsize'] = req[3], req[4], req[2]
    res['now_ns'] = req[5]
    res['recs'] = [raw[i * 128:(i + 1) * 128].hex() for i in range(min(req[3], 16))]
eno, req, raw = call(4, 256, fill=0xa5)
res['stride'] = bool(req) and req[3] == res.get('count') and all(
    raw[i * 256:i * 256 + 128].hex()[8:] == res['recs'][i][8:] and
    raw[i * 256 + 128:(i + 1) * 256] == bytes(128)
    for i in range(min(req[3], 4))) and req[2] == 128
eno, req, raw = call(1, 128, fill=0x5a)
res['short'] = bool(req) and req[3] == res.get('count') and \
    raw[:128].hex()[8:] == res['recs'][0][8:]
res['einval_size'] = call(4, 64)[0] == errno.EINVAL
res['einval_rsv'] = call(4, 128, reserved=1)[0] == errno.EINVAL
json.dump(res, sys.stdout)
EOF_PY
rc_py=$?
"$IOTRACECTL" inflight -o json "$sd" > "$out/live.json" 2> "$out/live.err"
kill -TERM $rec_pid
wait $rec_pid
rc_rec=$?
log "listed (python exit $rc_py, record exit $rc_rec); waiting for both"
wait $rd_pid
rc_rd=$?
wait $wr_pid
rc_wr=$?
echo 0 > $sdbg/delay
cmd_disable "$sd"
CMD_DUMP_RAW=1 cmd_dump "$sd" > "$out/ring.hex" || die "cannot decode the ring of $sd"
"$IOTRACECTL" inflight -o json "$out/rec.trace" > "$out/rec-infl.json" \
	2> "$out/rec-infl.err"
sed 's/^/# ioctl: /' "$out/ioctl.err"
sed 's/^/# record: /' "$out/rec.trace.err" "$out/rec-infl.err"
sed 's/^/# record inflight: /' "$out/rec-infl.json"
sed 's/^/# inflight: /' "$out/live.json" "$out/live.err"
log "dd read pid $rd_pid (exit $rc_rd), write pid $wr_pid (exit $rc_wr), submitter noted: $(iot_status submitter)"
python3 - "$out" $rd_pid $wr_pid "$cgid" "$(iot_status submitter)" \
	$RD_SKIP $WR_SEEK "$sd" > "$out/verdict" <<'EOF_PY'
import json, struct, sys
out, rd, wr, cgid, sub = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4]), sys.argv[5] == '1'
rsec, wsec = int(sys.argv[6]) * 8, int(sys.argv[7]) * 8
REC = '<IIQQQIIIhHHHHHBBBBI64s'
F = ('seq bytes issue complete sector queue st res err rf of cpu hwq tag '
     'op retries ctype clen pid cmd').split()
def dec(h):
    return dict(zip(F, struct.unpack(REC, bytes.fromhex(h))))
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)
try:
    io = json.load(open(out + '/ioctl.json'))
except ValueError:
    io = {}
infl = [dec(h) for h in io.get('recs', [])]
ring = [dec(l.strip()) for l in open(out + '/ring.hex') if l.strip()]
res(io.get('eno') == 0 and io.get('count') == 2 and io.get('torn') == 0 and
    io.get('rsize') == 128 and len(infl) == 2,
    'the ioctl lists the two held requests, none torn: %s' %
    {k: io.get(k) for k in ('eno', 'count', 'torn', 'rsize')})
mine = [(r['op'], r['sector'], r['bytes']) for r in infl]
res(mine == [(0, rsec, 4096), (1, wsec, 4096)] and
    infl[0]['issue'] < infl[1]['issue'] <= io['now_ns'],
    'the read at %d then the write at %d, 4096 bytes each, oldest first: %s'
    % (rsec, wsec, mine))
def cdb(r):
    return r['cmd'][:r['clen']].hex()
# no DPO, no FUA (byte 1), group 0 (byte 6)
want = ['2800%08x00%04x00' % (rsec, 8), '2a00%08x00%04x00' % (wsec, 8)]
got = [cdb(r) for r in infl]
res(len(infl) == 2 and all(r['ctype'] == 2 and r['clen'] == 10 and
                           r['rf'] & 0x20 for r in infl) and got == want,
    'their CDBs: READ(10) and WRITE(10), LBA and length as dd asked: %s' % got)
cg = [struct.unpack_from('<Q', r['cmd'], 32)[0] for r in infl]
pids = [r['pid'] for r in infl]
res(len(infl) == 2 and cg[0] == cgid and cg[1] != cgid and
    (pids == [rd, wr] if sub else pids == [0, 0]),
    'the read is charged to the cgroup (%d), the write not; submitters %s '
    '(dd %d, %d; noted: %s): %s' % (cgid, pids, rd, wr, sub, cg))
res(len(infl) == 2 and
    all(r['complete'] == 0 and r['seq'] == 0 and not r['rf'] & 1 and
        r['st'] == 0 and r['err'] == 0 and r['rf'] & 0x100 for r in infl),
    'no completion in them, their queue time valid')
# each one's completion record: the same record but for the completion
done = []
for r in infl:
    m = [c for c in ring if (c['op'], c['sector'], c['issue']) ==
         (r['op'], r['sector'], r['issue'])]
    done.append(m[0] if len(m) == 1 else None)
same = lambda a, b: all(a[k] == b[k] for k in F
                        if k not in ('seq', 'complete', 'rf', 'st', 'res'))
res(len(done) == 2 and all(done) and all(same(r, c) and (c['rf'] & ~0x201) == r['rf']
                      for r, c in zip(infl, done)),
    'each equals its completion record but for the completion: %s' %
    [(r['rf'], c and c['rf'], r['queue'], c and c['queue']) for r, c in zip(infl, done)])
res(io.get('stride') is True and io.get('short') is True,
    'records a stride of 256 apart, zero padded; a buffer of one gets the '
    'oldest and the count 2')
res(io.get('einval_size') is True and io.get('einval_rsv') is True,
    'record size 64 and a reserved word set: EINVAL')
try:
    rec = json.load(open(out + '/rec-infl.json'))
except ValueError:
    rec = []
cmds = [(r['op'], r['sector'], r['command']) for r in rec]
res(cmds == [('read', rsec, 'READ(10) lba=%d len=8' % rsec),
             ('write', wsec, 'WRITE(10) lba=%d len=8' % wsec)],
    'record, stopped while both were held, saved them with their CDBs: %s'
    % cmds)
try:
    live = json.load(open(out + '/live.json'))
except ValueError:
    live = []
cmds = [(r['op'], r['sector'], r['command']) for r in live]
res(cmds == [('read', rsec, 'READ(10) lba=%d len=8' % rsec),
             ('write', wsec, 'WRITE(10) lba=%d len=8' % wsec)],
    'iotracectl inflight %s, while both were held, lists them with their '
    'CDBs: %s' % (sys.argv[8], cmds))
EOF_PY
ktap_verdict "$out/verdict"
ktap_check "no kernel warning" no_kernel_splat
unload_iotrace
rmmod scsi_debug 2> /dev/null
pkill -CONT -x systemd-udevd
udevadm control --start-exec-queue 2> /dev/null
rm -rf "$out"
ktap_finish
