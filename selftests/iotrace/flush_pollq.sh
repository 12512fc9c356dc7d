#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# flush_pollq: the flush requests of two flush queues on one hardware
# queue.  The block layer keeps a flush request per flush queue, and a
# flush queue per default hardware queue (the submitting CPU's), but the
# flush request runs on the hardware queue of the write waiting for it
# (blk_kick_flush()): a polled write goes to a poll queue, so the
# post-flushes of two CPUs' polled O_DSYNC writes are two requests of
# the same poll queue, in flight at the same time.  Each keeps a slot of
# its own: its record has its own issue, queue and completion.
#
# null_blk, two submit queues and one poll queue, memory backed, with a
# write cache and fua=0 (Linux 6.12 and later have the parameter;
# skipped before); fio writes 4 KiB blocks with io_uring, polled
# (hipri), O_DIRECT|O_DSYNC, one job on each CPU, for 8 s:
# 1. every write and every flush is recorded once: the ring's writes and
#    flushes are /sys/block/DISK/stat's, its writes fio's write_iolog;
# 2. none without its issue (IOTRACE_RF_NO_ISSUE: the disk was enabled
#    before the first write), every flush's issue before its completion
#    and after the data phase of a write of its CPU;
# 3. flushes of the two CPUs overlapped (the case this tests: printed,
#    and the checks above fail without a slot per flush request);
# no kernel warning.
# VM-CHECK: newest
# VM-TIMEOUT: 300
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
modinfo -p null_blk 2> /dev/null | grep -q '^fua:' ||
	skip "null_blk has no fua parameter (Linux 6.12 and later)"
rmmod null_blk 2> /dev/null
modprobe null_blk nr_devices=1 submit_queues=2 poll_queues=1 \
	memory_backed=1 cache_size=16 fua=0 2> /dev/null ||
	skip "null_blk has no fua or poll_queues parameter"
settle
disk=nullb0
quiet_disk $disk
wc=$(cat /sys/block/$disk/queue/write_cache)
fua=$(cat /sys/block/$disk/queue/fua)
poll=$(cat /sys/block/$disk/queue/io_poll)
[ "$wc" = "write back" ] && [ "$fua" = 0 ] && [ "$poll" = 1 ] ||
	skip "$disk: write cache '$wc', fua $fua, io_poll $poll: no polled post-flush"
ktap_header 5
out=$(mktemp -d)
load_iotrace disks=$disk buf_size=64M
w0=$(blk_stat $disk 5)
f0=$(blk_stat $disk 16)
fio --filename=/dev/$disk --ioengine=io_uring --hipri=1 --direct=1 \
	--sync=dsync --rw=randwrite --bs=4k --size=8m --iodepth=4 \
	--time_based --runtime=8 \
	--name=cpu0 --cpus_allowed=0 --offset=0 --write_iolog="$out/iolog0" \
	--name=cpu1 --cpus_allowed=1 --offset=8m --write_iolog="$out/iolog1" \
	> "$out/fio.txt" 2>&1
rc_fio=$?
sw=$(($(blk_stat $disk 5) - w0))
sf=$(($(blk_stat $disk 16) - f0))
"$IOTRACECTL" show -o json $disk > "$out/ring.json" 2> "$out/ring.err"
log "fio exit $rc_fio; /sys/block: $sw writes, $sf flushes"
[ $rc_fio = 0 ] || sed 's/^/# fio: /' "$out/fio.txt"
cat "$out/iolog0" "$out/iolog1" > "$out/iolog.all" 2> /dev/null
python3 - "$out/ring.json" "$out/iolog.all" "$sw" "$sf" \
	> "$out/verdict" <<'EOF_PY'
import json, sys
ring, iolog, sw, sf = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4])
NO_ISSUE = 1 << 7
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)
try:
    recs = json.load(open(ring))
except (OSError, ValueError):
    recs = []
# the end of a write's flush sequence is no record; data phases have bytes
writes = [r for r in recs if r['op'] == 'write' and r['bytes']]
flushes = [r for r in recs if r['op'] == 'flush']
want = {}
# fio's iolog, version 2 (FILE ACTION OFFSET LENGTH) or 3 (a time first)
for line in open(iolog):
    f = line.split()
    if len(f) >= 4 and f[-3] == 'write':
        k = (int(f[-2]) // 512, int(f[-1]))
        want[k] = want.get(k, 0) + 1
got = {}
for r in writes:
    k = (r['sector'], r['bytes'])
    got[k] = got.get(k, 0) + 1
res(len(writes) == sw and len(flushes) == sf and got == want and sw > 0,
    'every write and flush recorded once: ring %d writes, %d flushes; '
    '/sys/block %d, %d; fio wrote %d (%d differ)'
    % (len(writes), len(flushes), sw, sf, sum(want.values()),
       len(set(got.items()) ^ set(want.items()))))
bad = [r for r in writes + flushes if r['rflags'] & NO_ISSUE]
res(not bad, 'none without its issue (NO_ISSUE): %d, first %s'
    % (len(bad), bad[:1]))
wrong = [r for r in flushes if not r['issue_ns'] or
         not r['issue_ns'] <= r['complete_ns']]
res(flushes and not wrong,
    'every flush issued before it completed: %d wrong, first %s'
    % (len(wrong), wrong[:1]))
# flushes of the two CPUs in flight at once, on one hardware queue
ev = sorted((r['issue_ns'], r['complete_ns'], r['issue_cpu']) for r in flushes
            if r['issue_ns'])
over, end = 0, {}
for a, z, c in ev:
    if any(e > a for k, e in end.items() if k != c):
        over += 1
    end[c] = max(end.get(c, 0), z)
hwqs = sorted(set(r['hwq'] for r in flushes))
res(over > 0, 'flushes of both CPUs overlapped: %d, on hardware queues %s'
    % (over, hwqs))
EOF_PY
ktap_verdict "$out/verdict"
ktap_check "no kernel warning" no_kernel_splat
rm -rf "$out"
ktap_finish
