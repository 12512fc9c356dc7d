#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cmd_retry: requeued and timed-out commands carry IOTRACE_RF_REQUEUED and
# IOTRACE_RF_TIMEOUT, a retry count, and the command that was re-sent.
#
# scsi_debug injects the faults, set through its driver attributes only
# once the disk is up (at module load they would hit the scan and open):
# every_nth=2 makes every second command it receives a victim; opts 0x8000
# (SDEBUG_OPT_HOST_BUSY) answers it "host busy", so the block layer
# requeues it; opts 4 (SDEBUG_OPT_TIMEOUT) ignores it, so it times out,
# the error handler aborts it and retries it.  Bit 1 (SDEBUG_OPT_NOISE)
# makes scsi_debug log the CDB of every command it receives.
#
# Oracles: scsi_debug's own log of the CDBs it received (a requeued read
# appears twice) and of the abort, the SCSI midlayer's per-device counters
# iorequest_cnt (commands the driver accepted = records + records re-sent
# after a timeout; a refused command is not counted) and iotmo_cnt
# (timeouts = TIMEOUT records).
# VM-TIMEOUT: 300
# VM-SMP: 1
. "$IOTRACE_SRC/selftests/lib/iotrace.sh"
. "$IOTRACE_SRC/selftests/iotrace/cmd_lib.sh"

require_cmd python3 dd
ktap_header 9

tmp=$(mktemp -d)
sdbg=/sys/bus/pseudo/drivers/scsi_debug
load_iotrace
modprobe scsi_debug dev_size_mb=8 statistics=1 || die "modprobe scsi_debug failed"
settle
dbg=
for d in /sys/block/sd*; do
	grep -q scsi_debug "$d/device/model" 2> /dev/null && dbg=$(basename "$d")
done
[ -n "$dbg" ] || die "no scsi_debug disk appeared"
log "scsi_debug disk $dbg"
udevadm control --stop-exec-queue 2> /dev/null

# devcnt NAME - a SCSI device counter (sysfs prints it in hex)
# (-1: the kernel has no such counter; iotmo_cnt came in 6.1)
devcnt() {
	local f=/sys/block/$dbg/device/$1

	if [ -e "$f" ]; then
		printf '%d' "$(cat "$f")"
	else
		printf '%d' -1
	fi
}

# faults OPTS READS... - with every_nth=2 and opts OPTS, read 4 KiB at
# each 4 KiB index given, one dd each, then clear the fault options;
# sets c0/c1 and t0/t1 to iorequest_cnt and iotmo_cnt before and after.
faults() {
	local opts=$1 i
	shift
	# every_nth rounds cmnd_count down: count from after it
	echo 2 > $sdbg/every_nth || die "cannot set every_nth"
	c0=$(devcnt iorequest_cnt)
	t0=$(devcnt iotmo_cnt)
	echo "$opts" > $sdbg/opts || die "cannot set opts $opts"
	for i in "$@"; do
		dd if=/dev/$dbg of=/dev/null bs=4096 skip="$i" count=1 \
			iflag=direct 2>> "$tmp/dd.err" ||
			log "dd at $i failed: $(tail -n 1 "$tmp/dd.err")"
	done
	echo 0 > $sdbg/opts
	c1=$(devcnt iorequest_cnt)
	t1=$(devcnt iotmo_cnt)
	echo 0 > $sdbg/every_nth
}

# check NAME RECS C0 C1 T0 T1 LOG WANT READS... - verdict lines on the
# records of the reads: WANT are the rflags bits a requeued read must carry.
check() {
	python3 - "$@" <<'EOF'
import re, sys
name, recs, c0, c1, t0, t1, logf, want = sys.argv[1:9]
reads = [int(x) for x in sys.argv[9:]]
c0, c1, t0, t1, want = int(c0), int(c1), int(t0), int(t1), int(want, 0)
REQUEUED, STATUS_VALID, TIMEOUT = 1 << 3, 1 << 9, 1 << 2
def cdb(i):
    return bytes([0x28, 0]) + (i * 8).to_bytes(4, 'big') + bytes([0, 0, 8, 0])
rs = []
for line in open(recs):
    f = line.split()
    rs.append(dict(op=int(f[1]), rf=int(f[5], 16), st=int(f[6], 16),
                   err=int(f[4]), ctype=int(f[8]), retries=None,
                   cmd=bytes.fromhex(f[10]) if f[10] != '-' else b''))
log = open(logf, errors='replace').read()
seen = {}
for m in re.finditer(r'scsi_debug: tag=0x[0-9a-f]+, cmd ((?:[0-9a-f]{2} )+)', log):
    b = bytes.fromhex(m.group(1).replace(' ', ''))
    seen[b] = seen.get(b, 0) + 1
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' %s: %s' % (name, what))
mine = [r for r in rs if r['ctype'] == 2 and r['cmd'] in [cdb(i) for i in reads]]
req = [r for r in mine if r['rf'] & REQUEUED]
for r in rs:
    print('# %s record: rf %#x status %#x err %d cdb %s log x%d' %
          (name, r['rf'], r['st'], r['err'], r['cmd'].hex(),
           seen.get(r['cmd'], 0)))
print('# %s: iorequest_cnt %d -> %d, iotmo_cnt %d -> %d' %
      (name, c0, c1, t0, t1))
res(len(mine) == len(reads) and len(req) >= 1 and
    all(r['rf'] & want == want and not r['err'] and
        r['rf'] & STATUS_VALID and r['st'] == 0 for r in req),
    '%d of %d reads requeued, flags %#x, completed ok with their CDB'
    % (len(req), len(reads), want))
res(len(req) >= 1 and
    all(seen.get(r['cmd'], 0) == (2 if r['rf'] & REQUEUED else 1)
        for r in mine),
    'scsi_debug received every requeued CDB twice, the others once')
# The midlayer takes a command the driver refused (host busy) back out of
# iorequest_cnt; a command that timed out was accepted, then re-sent.
nreq = len([r for r in rs if r['rf'] & (REQUEUED | TIMEOUT) ==
            REQUEUED | TIMEOUT])
res(c1 - c0 == len(rs) + nreq,
    'iorequest_cnt delta %d = records %d + requeued after timeout %d'
    % (c1 - c0, len(rs), nreq))
nto = len([r for r in rs if r['rf'] & TIMEOUT])
if t0 < 0:
    print('SKIP %s: no iotmo_cnt on this kernel (before 6.1): %d TIMEOUT '
          'records not compared' % (name, nto))
else:
    res(t1 - t0 == nto,
        'iotmo_cnt delta %d = TIMEOUT records %d' % (t1 - t0, nto))
EOF
}

# verdicts NAME N - report check's verdicts; fewer than N is a failure.
verdicts() {
	local n=0
	while read -r v what; do
		case "$v" in
		ok) ktap_ok "$what"; n=$((n + 1)) ;;
		FAIL) ktap_fail "$what"; n=$((n + 1)) ;;
		SKIP) ktap_skip "$what"; n=$((n + 1)) ;;
		'#') echo "# $what" ;;
		*) echo "# $v $what" ;;
		esac
	done
	while [ $n -lt "$2" ]; do
		ktap_fail "$1: verdict missing (the check did not run)"
		n=$((n + 1))
	done
}

# 1. Host busy: the block layer requeues, the retry is the next command.
echo 0 > $sdbg/opts
cmd_enable "$dbg"
dmesg -C
faults 0x8001 100 200 300 400
cmd_disable "$dbg"
dmesg > "$tmp/log1"
cmd_dump "$dbg" > "$tmp/recs1" || die "cannot decode the ring of $dbg"
check busy "$tmp/recs1" "$c0" "$c1" "$t0" "$t1" "$tmp/log1" 0x8 \
	100 200 300 400 > "$tmp/v1" 2>&1
verdicts busy 4 < "$tmp/v1"

# 2. Timeout: the ignored read times out after 2 s, the error handler
# aborts it and retries it.
echo 2 > /sys/block/$dbg/device/timeout || die "cannot set the timeout"
cmd_enable "$dbg"
dmesg -C
faults 0x5 500 600
cmd_disable "$dbg"
dmesg > "$tmp/log2"
cmd_dump "$dbg" > "$tmp/recs2" || die "cannot decode the ring of $dbg"
check timeout "$tmp/recs2" "$c0" "$c1" "$t0" "$t1" "$tmp/log2" 0xc \
	500 600 > "$tmp/v2" 2>&1
verdicts timeout 4 < "$tmp/v2"
# scsi_debug_abort: "command found" or "command not found" (5.10 to 6.12,
# which does not say which command); on 7.x it names the
# tag it was asked to abort, "aborted command with tag 0x.." or, when the
# ignored command is no longer in its queue, "failed to abort command with
# tag 0x..": that tag must be the one scsi_debug received an ignored read
# with (its noise log pairs tags and CDBs).
abort_seen() {
	python3 - "$1" <<'EOF'
import re, sys
log = open(sys.argv[1], errors='replace').read().splitlines()
reads = [bytes([0x28, 0]) + (i * 8).to_bytes(4, 'big') + bytes([0, 0, 8, 0])
         for i in (500, 600)]
last = {}
for line in log:
    m = re.search(r'scsi_debug: tag=(0x[0-9a-f]+), cmd ((?:[0-9a-f]{2} )+)',
                  line)
    if m:
        last[m.group(1)] = bytes.fromhex(m.group(2).replace(' ', ''))
        continue
    if re.search(r'scsi_debug_abort[a-z_]*: command (not )?found', line):
        sys.exit(0)
    m = re.search(r'scsi_debug_abort[a-z_]*: (?:failed to abort|aborted) '
                  r'command with tag (0x[0-9a-f]+)', line)
    if m and last.get(m.group(1)) in reads:
        sys.exit(0)
sys.exit(1)
EOF
}
ktap_check "timeout: scsi_debug was asked to abort the ignored read" \
	abort_seen "$tmp/log2"
udevadm control --start-exec-queue 2> /dev/null
unload_iotrace
rmmod scsi_debug 2> /dev/null
rm -rf "$tmp"
ktap_finish
