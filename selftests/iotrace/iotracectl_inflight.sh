#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# iotracectl_inflight: "iotracectl inflight" lists the commands a slow
# device still holds, oldest first, with their op, sector, length and
# submitter, from the device's ioctl and from debugfs.
#
# Oracles: the offsets and sizes dd was told to use, the order the two dd
# were started in, their pids (/proc: the child of each timeout), and
# null_blk's configured completion time (5 s, so both are outstanding when
# listed).  A kernel without block_io_start (before 6.5) notes no
# submitter: the pid is null there.  "iotracectl record", stopped while
# both are outstanding, saves them at the end of its file: "inflight FILE"
# lists the same two requests, "info" counts them, and the file has no
# record of either (they complete after it ends); one that ends at --size
# has none (the records after its cut stay in the ring).
#
# Everything between the first held request and the listing must take
# less than that completion time, on a loaded host too: the in-flight count
# is polled with shell builtins, no fork per poll (a loop of sed and sleep
# forks outlived the requests on a loaded 6.1 guest and then waited for a
# count that never came).  Every read the kernel does itself (partition
# scan at add_disk) takes the full latency too: the longer it is, the
# longer modprobe takes (10 s: reads timed out, 2 minutes).
# VM-CHECK: alone
# VM-TIMEOUT: 300
# VM-SMP: 1
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 10
out=$(mktemp -d)
# tlog MSG - log line with the guest's uptime
tlog() {
	local up rest

	read -r up rest < /proc/uptime
	log "[$up] $*"
}
disk=nullb0
lat=5000000000
# No udev probing of a disk this slow: events wait until it is gone.
udevadm control --stop-exec-queue 2> /dev/null
rmmod null_blk 2> /dev/null
modprobe null_blk nr_devices=1 irqmode=2 completion_nsec=$lat \
	submit_queues=1 || die "modprobe null_blk failed"
quiet_disk $disk
tlog "null_blk loaded"
load_iotrace disks=$disk
tlog "iotrace loaded"
wait_for "$IOT/$disk/ring" 10 || die "no ring for $disk"
echo 1 > "$IOT/$disk/enable"
# child_of PID - the pid of PID's child (dd under timeout), from /proc
child_of() {
	local f st rest

	for f in /proc/[0-9]*/stat; do
		read -r st < "$f" 2> /dev/null || continue
		rest=${st##*) }
		set -- $rest
		if [ "$2" = "$PARENT" ]; then
			st=${f#/proc/}
			echo "${st%/stat}"
			return 0
		fi
	done 2> /dev/null
	return 1
}
record_start $disk "$out/rec.trace"
timeout 60 dd if=/dev/$disk of=/dev/null bs=4096 skip=100 count=1 iflag=direct 2> /dev/null &
rd_t=$!
wait_inflight $disk 1 || tlog "the read did not show up in stats"
tlog "read in flight"
timeout 60 dd if=/dev/zero of=/dev/$disk bs=8192 seek=300 count=1 oflag=direct 2> /dev/null &
wr_t=$!
wait_inflight $disk 2 || tlog "the write did not show up in stats"
tlog "write in flight"
"$IOTRACECTL" inflight $disk > "$out/infl.txt"
rc=$?
"$IOTRACECTL" inflight -o json $disk > "$out/infl.json"
# no device there: debugfs
IOTRACE_DEV=/nonexistent "$IOTRACECTL" inflight -o json $disk \
	> "$out/infl-dfs.json" 2> "$out/infl-dfs.err"
rc_dfs=$?
# the dd pids, while both still run (a loaded guest may take longer than
# the completion time from here to the recording's end)
rd_pid=$(PARENT=$rd_t child_of)
wr_pid=$(PARENT=$wr_t child_of)
# the recording ends while both are outstanding
kill -TERM $rec_pid
wait $rec_pid
rc_rec=$?
# one ended at --size keeps no table: what was cut is still in the ring
"$IOTRACECTL" record $disk -o "$out/size.trace" --size 1 2> "$out/size.err"
rc_size=$?
tlog "listed; waiting for the requests to complete"
wait
sed 's/^/# /' "$out/infl.txt"
sed 's/^/# debugfs: /' "$out/infl-dfs.err"
sed 's/^/# record: /' "$out/rec.trace.err"
"$IOTRACECTL" inflight -o json "$out/rec.trace" > "$out/rec-infl.json" \
	2> "$out/rec-infl.err"
"$IOTRACECTL" info "$out/rec.trace" > "$out/rec-info.txt" 2>&1
n_size=$("$IOTRACECTL" inflight -o csv "$out/size.trace" 2> "$out/size.err2" | grep -c "^$disk,")
sed 's/^/# record --size: /' "$out/size.err" "$out/size.err2"
"$IOTRACECTL" show -o csv "$out/rec.trace" > "$out/rec.csv" 2>&1
sed 's/^/# record inflight: /' "$out/rec-infl.json" "$out/rec-infl.err"
grep 'in flight' "$out/rec-info.txt" | sed 's/^/# record info: /'
ktap_check "inflight exited 0" test $rc -eq 0
ktap_check "inflight through debugfs exited 0" test $rc_dfs -eq 0
sub=0
[ "$(iot_status submitter)" != 1 ] || sub=1
log "dd read pid ${rd_pid:-?}, write pid ${wr_pid:-?}; submitter noted: $sub"
python3 - "$out/infl.json" "$out/infl-dfs.json" "${rd_pid:-0}" \
	"${wr_pid:-0}" $sub "$out" $rc_rec > "$out/verdict" <<'EOF_PY'
import csv, json, sys
def mine(p):
    try:
        return [r for r in json.load(open(p))
                if (r['op'], r['sector'], r['bytes']) in
                (('read', 800, 4096), ('write', 4800, 8192))]
    except ValueError:
        return []
rows, dev = mine(sys.argv[1]), mine(sys.argv[2])
rd, wr, sub = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == '1'
def res(ok, what):
    print(('ok' if ok else 'FAIL') + ' ' + what)
res(len(rows) == 2, 'both dd requests listed (read 800+4096, write 4800+8192): %s' % rows)
res(len(rows) == 2 and rows[0]['op'] == 'read' and rows[1]['op'] == 'write' and
    rows[0]['issue_ns'] < rows[1]['issue_ns'] and rows[0]['age_us'] > rows[1]['age_us'],
    'oldest first, the older one has the larger age')
want = [rd, wr] if sub else [None, None]
res(len(rows) == 2 and rd > 0 and wr > 0 and
    [r.get('pid', 'absent') for r in rows] == want,
    'submitters: %s, dd read %d and write %d (noted: %s)' %
    ([r.get('pid', 'absent') for r in rows], rd, wr, sub))
key = lambda r: (r['op'], r['issue_ns'], r['sector'], r['bytes'], r['hwq'],
                 r['tag'], r['cpu'], r.get('pid', 'absent'))
res(len(dev) == 2 and [key(r) for r in dev] == [key(r) for r in rows] and
    [r['command'] for r in rows + dev] == ['-'] * 4,
    'debugfs gives the same requests and submitters (null_blk: no '
    'command): %s' % dev)
out, rc_rec = sys.argv[6], int(sys.argv[7])
rec = mine(out + '/rec-infl.json')
info = open(out + '/rec-info.txt').read()
res(rc_rec == 0 and len(rows) == 2 and
    [key(r) for r in rec] == [key(r) for r in rows] and
    all(r['age_us'] >= x['age_us'] for r, x in zip(rec, rows)) and
    'in flight at its end 2, torn slots 0' in info,
    'record stopped with both outstanding (exit %d): its file lists them '
    'as inflight did, info counts 2: %s' % (rc_rec, rec))
done = [r for r in csv.DictReader(open(out + '/rec.csv'))
        if r.get('sector') in ('800', '4800')]
res(not done and 'no requests in flight saved' not in
    open(out + '/rec.trace.err').read(),
    'and has no record of either (%d)' % len(done))
EOF_PY
ktap_verdict "$out/verdict"
"$IOTRACECTL" inflight $disk > "$out/after.txt"
for i in $(seq 100); do
	[ "$(iot_stat $disk inflight)" = 0 ] && break
	sleep 0.1
done
ktap_check "a recording ended at --size has no table ($n_size rows, exit $rc_size)" \
	test "$rc_size" = 0 -a "$n_size" = 0
ktap_check "nothing in flight once both completed" \
	test "$(grep -c -v ISSUE_NS "$out/after.txt")" -eq 0
unload_iotrace
rmmod null_blk 2> /dev/null
udevadm control --start-exec-queue 2> /dev/null
rm -rf "$out"
ktap_finish
