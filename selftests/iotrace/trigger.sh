#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# trigger: the in-kernel triggers (issue 21, IOTRACE_CMD_SET_TRIGGER and
# IOTRACE_CMD_EVT_TRIGGER) against oracles iotrace does not write:
#
# latency: a null_blk whose every completion takes completion_nsec (2 ms,
#   a timer: never sooner) with a read threshold above it (5 s): no record
#   flagged, no event; below it (500 us): every read record carries
#   IOTRACE_RF_TRIGGER, no write record does, an event arrives whose
#   latency is at least the configured 2 ms and whose cpu/seq name a
#   flagged read record of its sector.
# rate limit: reads for 3 s at the default 1 s: consecutive events at
#   least 1 s apart (their own timestamps), and events + the sum of their
#   suppressed counts = the flagged records in the ring = the hits.
# error: null_blk bad blocks (EIO): one event naming EIO and sector 0,
#   the failed record flagged, good reads not; error=ENOSPC does not fire
#   on EIO, error=EIO,ENOSPC does.
# stuck: two reads of a null_blk that completes in 5 s, stuck=1s rate=0:
#   an event while the requests are in flight (/sys/block/<disk>/inflight),
#   exactly one per request.
# requeues: scsi_debug's "host busy" on every second command: every
#   requeued record (IOTRACE_RF_REQUEUED) flagged and no other, requeue
#   events + suppressed = requeued records; requeues=255 (a count that
#   stops at 255) hits once for a read requeued 300 times.  Loaded
#   submitter=N, requeue and stuck events name no submitter.
# devstatus: scsi_debug's medium error: the failed read flagged, an event
#   with its device status.
# permissions: SET_TRIGGER as uid 65534 is EPERM (iotracectl and raw);
# set again: 40 settings while every read hits; each one's events +
#   suppressed = its hits (no event or hit of an older set counted).
# malformed: out-of-range values, a reply-only attribute, a wrong length
#   are EINVAL and change nothing; off removes the triggers.
# Module unload with triggers set and the stuck scan running, a disk removed
# with triggers set: no kernel warning.
# VM-CHECK: all
# (174 s alone on 7.3: make check-all only, to keep make check within its
#   hour; trigger_dev and trigger_hold stay in make check)
# VM-CHECK: alone
# VM-TIMEOUT: 900
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd setpriv dd timeout
need_nlsend

# shellcheck disable=SC2119
ktap_header
out=$(mktemp -d)
chmod 755 "$out"
# no blkid reads of the test disks (a 5 s null_blk would hold udev)
udevadm control --stop-exec-queue 2> /dev/null
load_iotrace disks=all buf_size=1M

# attribute numbers, from the uapi header
A_NAME=2 A_LAT_READ=40 A_ERROR=45 A_ERRNO=46 A_REQUEUES=49 A_STUCK=50
A_RATE=51 A_HITS=52
RF_TRIGGER=32768

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# listen FILE - start an event listener, wait until it listens
listen() {
	events_listen "$1" || { ktap_fail "listener started"; return 1; }
}

# unlisten FILE - stop the listener, show what it got
unlisten() {
	kill "$listener" 2> /dev/null
	wait "$listener" 2> /dev/null
	sed 's/^/# event: /' "$1" | head -n 20
	grep -v listening "$1.err" | sed 's/^/# listener: /'
}

# field LINE KEY - the value of KEY=VALUE in an event line
field() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# dumps DISK FILE - the ring's records: CPU SEQ OP SECTOR BYTES RFLAGS LAT ERR
dumps() {
	"$RINGCHECK" dumps "$IOT/$1/ring" > "$2"
}

# flagged FILE [OP] - records (of OP) carrying IOTRACE_RF_TRIGGER
flagged() {
	awk -v op="${2:-}" -v f=$RF_TRIGGER \
		'(op == "" || $3 == op) && int($6 / f) % 2 == 1' "$1" | wc -l
}

# count FILE OP - records of OP
count() {
	awk -v op="$2" '$3 == op' "$1" | wc -l
}

# st DISK KEY - a value of iotracectl state
st() {
	"$IOTRACECTL" state "$1" | sed -n "s/^$2: //p"
}

# ---- latency ---------------------------------------------------------
lat=$(nullb_create nbtrlat size=64 irqmode=2 completion_nsec=2000000)
echo 1 > "$IOT/$lat/enable"

# permissions first: nothing set yet
nobody "$IOTRACECTL" trigger "$lat" read-lat=1ms > /dev/null 2> "$out/err"
rc=$?
sed 's/^/# /' "$out/err"
ktap_check "unprivileged 'iotracectl trigger' refused with EPERM (rc $rc)" \
	grep -q 'Operation not permitted' "$out/err"
got=$(nobody "$NLSEND" trigger "$A_NAME:str:$lat" "$A_LAT_READ:u64:1000000")
ktap_check "raw SET_TRIGGER as nobody: EPERM ($got)" \
	sh -c "echo '$got' | grep -q '^errno 1 EPERM'"
ktap_check "nothing set by the refused requests" \
	test -z "$("$IOTRACECTL" state "$lat" | grep '^trigger_')"

# above the device latency: nothing fires
"$IOTRACECTL" trigger "$lat" read-lat=5s || ktap_fail "trigger read-lat=5s"
"$IOTRACECTL" state "$lat" | grep '^trigger_' | sed 's/^/# /'
ktap_check "state shows the read threshold" \
	test "$(st "$lat" trigger_read_lat_ns)" = 5000000000
"$IOTRACECTL" clear "$lat"
listen "$out/ev.above"
dd if=/dev/"$lat" of=/dev/null bs=4k count=50 iflag=direct 2> /dev/null
sleep 2
unlisten "$out/ev.above"
dumps "$lat" "$out/r.above"
n=$(count "$out/r.above" read)
ktap_check "threshold 5 s: $n reads recorded, none flagged" \
	test "$n" -ge 50 -a "$(flagged "$out/r.above")" -eq 0
ktap_check "threshold 5 s: no trigger event" \
	test "$(grep -c "^trigger $lat " "$out/ev.above")" -eq 0
ktap_check "threshold 5 s: no hit counted" \
	test "$(st "$lat" trigger_hits)" = 0

# below it: every read fires
"$IOTRACECTL" trigger "$lat" read-lat=500us || ktap_fail "trigger read-lat=500us"
"$IOTRACECTL" clear "$lat"
listen "$out/ev.below"
dd if=/dev/"$lat" of=/dev/null bs=4k count=50 iflag=direct 2> /dev/null
dd if=/dev/zero of=/dev/"$lat" bs=4k count=10 oflag=direct 2> /dev/null
sleep 2
unlisten "$out/ev.below"
dumps "$lat" "$out/r.below"
n=$(count "$out/r.below" read)
f=$(flagged "$out/r.below" read)
ktap_check "threshold 500 us: every read record flagged ($f of $n)" \
	test "$n" -ge 50 -a "$f" -eq "$n"
ktap_check "threshold 500 us: no write record flagged (no write threshold)" \
	test "$(count "$out/r.below" write)" -ge 10 -a \
	"$(flagged "$out/r.below" write)" -eq 0
ev=$(grep -m1 "^trigger $lat " "$out/ev.below")
ktap_check "a trigger event arrived: reason latency, op read" \
	test -n "$ev" -a "$(field "$ev" reason)" = latency -a \
	"$(field "$ev" op)" = read
ktap_check "its latency ($(field "$ev" latency_ns) ns) is at least null_blk's 2 ms" \
	test "$(field "$ev" latency_ns)" -ge 2000000
cpu=$(field "$ev" cpu)
seq=$(field "$ev" seq)
rec=$(awk -v c="$cpu" -v s="$seq" '$1 == c && $2 == s' "$out/r.below")
log "event cpu $cpu seq $seq: record '$rec'"
ok=$(awk -v c="$cpu" -v s="$seq" -v sec="$(field "$ev" sector)" -v f=$RF_TRIGGER \
	'$1 == c && $2 == s && $3 == "read" && $4 == sec && int($6 / f) % 2 == 1' \
	"$out/r.below" | wc -l)
ktap_check "its cpu/seq name a flagged read record of its sector" test "$ok" -eq 1

# ---- rate limit --------------------------------------------------------
epoch0=$(st "$lat" trigger_epoch)
"$IOTRACECTL" trigger "$lat" read-lat=500us || ktap_fail "trigger read-lat=500us"
"$IOTRACECTL" clear "$lat"
listen "$out/ev.rate"
timeout 3 dd if=/dev/"$lat" of=/dev/null bs=4k count=100000 iflag=direct \
	2> /dev/null
sleep 1.5
# one more hit, past the rate: its event reports what was held back
dd if=/dev/"$lat" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
sleep 2
unlisten "$out/ev.rate"
dumps "$lat" "$out/r.rate"
grep "^trigger $lat " "$out/ev.rate" > "$out/ev.rate.$lat"
nev=$(wc -l < "$out/ev.rate.$lat")
supp=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^suppressed=/) { sub(/.*=/, "", $i); s += $i } } END { print s + 0 }' "$out/ev.rate.$lat")
f=$(flagged "$out/r.rate")
hits=$(st "$lat" trigger_hits)
log "events $nev, suppressed $supp, flagged records $f, hits $hits, dropped $(st "$lat" dropped), overwritten $(st "$lat" overwritten)"
ktap_check "rate 1 s: several events, fewer than the hits ($nev < $f)" \
	test "$nev" -ge 2 -a "$nev" -lt "$f"
gaps=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^time_ns=/) { sub(/.*=/, "", $i); t = $i } }
	    NR > 1 && t - p < 1000000000 { bad++ } { p = t } END { print bad + 0 }' "$out/ev.rate.$lat")
ktap_check "rate 1 s: consecutive events at least 1 s apart ($gaps closer)" \
	test "$gaps" -eq 0
# genl version 6: each event carries the disk's count, this one included
nums=$(awk '{ e = "none"; for (i = 1; i <= NF; i++) if ($i ~ /^events=/) { sub(/.*=/, "", $i); e = $i } }
	    { printf("%s%s", NR > 1 ? " " : "", e) }' "$out/ev.rate.$lat")
want=$(seq -s ' ' 1 "$nev")
ktap_check "rate 1 s: the events count themselves 1..$nev ('$nums'), as LIST does ($(st "$lat" trigger_events))" \
	test "$nums" = "$want" -a "$(st "$lat" trigger_events)" = "$nev"
# genl version 7: and the epoch of the setting it counts from
epochs=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^epoch=/) { sub(/.*=/, "", $i); print $i } }' \
	"$out/ev.rate.$lat" | sort -u | tr '\n' ' ')
epoch=$(st "$lat" trigger_epoch)
ktap_check "rate 1 s: every event carries LIST's epoch ('$epochs' = '$epoch '), above the one before the setting ($epoch0)" \
	test "$epochs" = "$epoch " -a "${epoch:-0}" -gt "${epoch0:-0}"
ktap_check "events + suppressed ($nev + $supp) = flagged records ($f)" \
	test $((nev + supp)) -eq "$f" -a "$(st "$lat" dropped)" = 0 -a \
	"$(st "$lat" overwritten)" = 0
ktap_check "= the hits the kernel counted ($hits)" test "$hits" = "$f"
ktap_check "state: events ($(st "$lat" trigger_events)), suppressed ($(st "$lat" trigger_suppressed_total))" \
	test "$(st "$lat" trigger_events)" = "$nev" -a \
	"$(st "$lat" trigger_suppressed_total)" = "$supp"

# ---- set again and again under hits ------------------------------------
# Every read hits, rate=0: an event is nearly always pending when
# SET_TRIGGER runs.  The old set's pending event was sent under the new
# epoch and counted as its event, and a hit of the old set in a probe
# still running was counted in the new set's zeroed hits: events +
# suppressed no longer added up to the hits.  Now the set is taken away,
# a grace period passes, the counts are zeroed and the new set armed; the
# old set's event is dropped.
if command -v fio > /dev/null; then
	# one process (--thread): SIGSTOP stops its I/O, and 0.2 s later
	# nothing is in flight or pending; killed after the 40 settings,
	# which take more than 10 minutes on a KASAN kernel
	fio --name=reset --filename=/dev/"$lat" --direct=1 --rw=randread \
		--bs=4k --ioengine=libaio --iodepth=32 --thread \
		--time_based --runtime="$(kdebug_or 600 7200)" \
		--output=/dev/null &
	fiopid=$!
	sleep 1
	ok=1 bad=0 hit=0 sum=''
	for i in $(seq 40); do
		"$IOTRACECTL" trigger "$lat" read-lat=500us rate=0 || ok=0
		sleep 0.05
		kill -STOP $fiopid
		sleep 0.2
		"$IOTRACECTL" state "$lat" > "$out/state"
		kill -CONT $fiopid
		hits=$(sed -n 's/^trigger_hits: //p' "$out/state")
		nev=$(sed -n 's/^trigger_events: //p' "$out/state")
		supp=$(sed -n 's/^trigger_suppressed_total: //p' "$out/state")
		sum="$sum $nev+$supp/$hits"
		[ $((nev + supp)) -eq "${hits:--1}" ] || bad=$((bad + 1))
		[ "${hits:-0}" -gt 0 ] && hit=$((hit + 1))
	done
	kill $fiopid
	wait $fiopid 2> /dev/null
	log "events+suppressed/hits of each setting:$sum"
	ktap_check "40 settings under hits accepted, $hit of them hit" \
		test $ok = 1 -a $hit -ge 30
	ktap_check "each setting's events + suppressed = its hits ($bad not)" \
		test $bad -eq 0
else
	ktap_skip "fio is not installed: no settings under hits"
	ktap_skip "fio is not installed: no settings under hits"
fi

# ---- malformed ---------------------------------------------------------
"$IOTRACECTL" trigger "$lat" read-lat=5s || ktap_fail "trigger read-lat=5s"
before=$("$IOTRACECTL" state "$lat" | grep -E '^trigger_[a-z_]*(lat_ns|error|devstatus|timeout|requeues|stuck_ns|rate_ns):')
bad=(
	"$A_LAT_READ:u64:3600000000001"		# above 1 hour
	"$A_LAT_READ:u32:1000"			# wrong length
	"$A_ERROR:u8:2"				# a flag is 0 or 1
	"$A_ERRNO:u32:5"			# an errno list without error
	"$A_ERROR:u8:1 $A_ERRNO:u32:0"		# errno 0
	"$A_ERROR:u8:1 $A_ERRNO:u32:4096"	# errno above MAX_ERRNO
	"$A_ERROR:u8:1 $(for i in 1 2 3 4 5 6 7 8 9; do printf '%s:u32:%s ' $A_ERRNO $i; done)"
	"$A_REQUEUES:u32:256"			# above 255
	"$A_STUCK:u64:99999999"			# below 100 ms
	"$A_STUCK:u64:86400000000001"		# above a day
	"$A_LAT_READ:u64:1000 $A_RATE:u64:3600000000001" # rate above 1 hour
	"$A_HITS:u64:1"				# reply-only counter
)
for b in "${bad[@]}"; do
	# shellcheck disable=SC2086
	got=$("$NLSEND" trigger "$A_NAME:str:$lat" $b)
	if echo "$got" | grep -q '^errno 22 EINVAL'; then
		ktap_ok "'$b': EINVAL (${got#errno 22 EINVAL})"
	else
		ktap_fail "'$b': EINVAL (got '$got')"
	fi
done
"$IOTRACECTL" trigger "$lat" stuck=10ms 2> "$out/err"
ktap_check "iotracectl refuses stuck=10ms, saying why" \
	grep -q '100ms to 1 day' "$out/err"
after=$("$IOTRACECTL" state "$lat" | grep -E '^trigger_[a-z_]*(lat_ns|error|devstatus|timeout|requeues|stuck_ns|rate_ns):')
ktap_check "refused requests changed nothing" test "$before" = "$after"
got=$("$NLSEND" trigger "$A_NAME:str:$lat" "$A_LAT_READ:u64:5000000000" "$A_ERROR:u8:1" "$A_ERRNO:u32:5" "$A_ERRNO:u32:28")
ktap_check "a well-formed raw SET_TRIGGER is acknowledged ($got)" \
	sh -c "echo '$got' | grep -q '^errno 0'"
"$IOTRACECTL" trigger "$lat" off || ktap_fail "trigger off"
ktap_check "off: no triggers in state" \
	test -z "$("$IOTRACECTL" state "$lat" | grep '^trigger_')"
"$IOTRACECTL" clear "$lat"
dd if=/dev/"$lat" of=/dev/null bs=4k count=10 iflag=direct 2> /dev/null
dumps "$lat" "$out/r.off"
ktap_check "off: no record flagged" test "$(flagged "$out/r.off")" -eq 0

# ---- error -----------------------------------------------------------
bdk=$(nullb_create nbtrbad size=64 memory_backed=1 irqmode=0)
echo 1 > "$IOT/$bdk/enable"
echo "+0-7" > "/sys/kernel/config/nullb/nbtrbad/badblocks" ||
	log "cannot set badblocks"
"$IOTRACECTL" trigger "$bdk" error rate=0 || ktap_fail "trigger error"
"$IOTRACECTL" clear "$bdk"
listen "$out/ev.err"
dd if=/dev/"$bdk" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null &
e1=$!
wait $e1
dd if=/dev/"$bdk" of=/dev/null bs=4k count=1 skip=8 iflag=direct 2> /dev/null
dd if=/dev/"$bdk" of=/dev/null bs=4k count=1 skip=16 iflag=direct 2> /dev/null
sleep 2
unlisten "$out/ev.err"
dumps "$bdk" "$out/r.err"
sed 's/^/# ring: /' "$out/r.err"
ev=$(grep "^trigger $bdk " "$out/ev.err")
ktap_check "one error event, reason error, errno 5 (EIO), sector 0, op read" \
	test "$(echo "$ev" | grep -c .)" -eq 1 -a \
	"$(field "$ev" reason)" = error -a "$(field "$ev" errno)" = 5 -a \
	"$(field "$ev" sector)" = 0 -a "$(field "$ev" op)" = read
# the submitter, where block_io_start notes it (6.5+): else no pid=
sub=0
[ "$(iot_status submitter)" != 1 ] || sub=1
want=
[ $sub = 0 ] || want=$e1
ktap_check "the error event's submitter: '$(field "$ev" pid)', dd was $e1 (noted: $sub)" \
	test "$(field "$ev" pid)" = "$want"
ktap_check "the EIO record is flagged, the good reads are not" \
	test "$(awk -v f=$RF_TRIGGER '$8 == -5 && int($6 / f) % 2 == 1' "$out/r.err" | wc -l)" -eq 1 -a \
	"$(awk -v f=$RF_TRIGGER '$8 == 0 && int($6 / f) % 2 == 1' "$out/r.err" | wc -l)" -eq 0 -a \
	"$(awk '$8 == 0' "$out/r.err" | wc -l)" -ge 2
"$IOTRACECTL" trigger "$bdk" error=ENOSPC rate=0 || ktap_fail "trigger error=ENOSPC"
"$IOTRACECTL" clear "$bdk"
dd if=/dev/"$bdk" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
dumps "$bdk" "$out/r.enospc"
ktap_check "error=ENOSPC: an EIO read is not flagged" \
	test "$(awk '$8 == -5' "$out/r.enospc" | wc -l)" -ge 1 -a \
	"$(flagged "$out/r.enospc")" -eq 0 -a "$(st "$bdk" trigger_hits)" = 0
"$IOTRACECTL" trigger "$bdk" error=EIO,ENOSPC rate=0 ||
	ktap_fail "trigger error=EIO,ENOSPC"
"$IOTRACECTL" clear "$bdk"
dd if=/dev/"$bdk" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
dumps "$bdk" "$out/r.eio"
ktap_check "error=EIO,ENOSPC: the EIO read is flagged" \
	test "$(flagged "$out/r.eio")" -ge 1 -a "$(st "$bdk" trigger_hits)" -ge 1
# removed with its triggers set
nullb_destroy nbtrbad

# ---- stuck -----------------------------------------------------------
stk=$(nullb_create nbtrstk size=64 irqmode=2 completion_nsec=5000000000)
echo 1 > "$IOT/$stk/enable"
"$IOTRACECTL" trigger "$stk" stuck=1s rate=0 || ktap_fail "trigger stuck=1s"
listen "$out/ev.stk"
dd if=/dev/"$stk" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null &
d1=$!
dd if=/dev/"$stk" of=/dev/null bs=4k count=1 skip=100 iflag=direct 2> /dev/null &
d2=$!
end=$((SECONDS + 30))
until grep -q "^trigger $stk reason=stuck" "$out/ev.stk" || [ $SECONDS -ge $end ]; do
	sleep 0.05
done
inflight=$(awk '{ print $1 + $2 }' /sys/block/"$stk"/inflight)
log "first stuck event with $inflight request(s) in flight"
ktap_check "a stuck event while the requests are in flight ($inflight)" \
	test "$inflight" -gt 0 -a -n "$(grep "^trigger $stk reason=stuck" "$out/ev.stk")"
wait_gone $d1 60 || ktap_fail "dd 1 ended"
wait_gone $d2 60 || ktap_fail "dd 2 ended"
sleep 2
unlisten "$out/ev.stk"
grep "^trigger $stk " "$out/ev.stk" > "$out/ev.stk.$stk"
ktap_check "exactly one stuck event per request (2)" \
	test "$(grep -c 'reason=stuck' "$out/ev.stk.$stk")" -eq 2 -a \
	"$(wc -l < "$out/ev.stk.$stk")" -eq 2
secs=$(for l in $(tr ' ' '\n' < "$out/ev.stk.$stk" | sed -n 's/^sector=//p'); do echo "$l"; done | sort -n | tr '\n' ' ')
ktap_check "one for each request: sectors 0 and 800 ($secs)" test "$secs" = "0 800 "
ktap_check "their submitters: dd $d1 read sector 0, dd $d2 sector 800 (noted: $sub)" \
	python3 -c '
import sys
evs = [dict(kv.split("=", 1) for kv in l.split() if "=" in kv)
       for l in open(sys.argv[1])]
got = sorted((int(e["sector"]), e.get("pid")) for e in evs)
sub = sys.argv[2] == "1"
want = [(0, sys.argv[3] if sub else None), (800, sys.argv[4] if sub else None)]
print("# got %s, want %s" % (got, want))
sys.exit(got != want)' "$out/ev.stk.$stk" $sub $d1 $d2
ktap_check "their age is at least the threshold, op read" \
	test "$(awk '{ for (i = 1; i <= NF; i++) { if ($i ~ /^latency_ns=/) { sub(/.*=/, "", $i); if ($i >= 1000000000) n++ } } } END { print n + 0 }' "$out/ev.stk.$stk")" -eq 2 -a \
	"$(grep -c ' op=read ' "$out/ev.stk.$stk")" -eq 2

# ---- requeues and device status: scsi_debug ----------------------------
# every_nth=2 with opts 0x8000 (host busy): every second command is
# refused and requeued by the block layer (cmd_retry.sh); opts 2: a medium
# error (CHECK CONDITION) at sector 0x1234 (metrics.sh)
sdbg=/sys/bus/pseudo/drivers/scsi_debug
# udev back (the null_blk disks are quiet now): it loads sd_mod, whose
# probe is asynchronous (with udev stopped the disk came at the end)
scsi_debug_load 180 dev_size_mb=8
if [ -n "$sd" ]; then
	echo 1 > "$IOT/$sd/enable"
	"$IOTRACECTL" trigger "$sd" requeues=1 devstatus rate=0 ||
		ktap_fail "trigger requeues=1 devstatus"
	"$IOTRACECTL" clear "$sd"
	listen "$out/ev.rq"
	echo 2 > $sdbg/every_nth
	echo 0x8000 > $sdbg/opts
	rqpids=
	for i in 100 200 300 400; do
		dd if=/dev/"$sd" of=/dev/null bs=4096 skip=$i count=1 \
			iflag=direct 2> /dev/null &
		rqpids="$rqpids $!"
		wait $!
	done
	echo 0 > $sdbg/opts
	echo 0 > $sdbg/every_nth
	sleep 2
	unlisten "$out/ev.rq"
	dumps "$sd" "$out/r.rq"
	sed 's/^/# ring: /' "$out/r.rq"
	rq=$(awk 'int($6 / 8) % 2 == 1' "$out/r.rq" | wc -l)
	rqf=$(awk -v f=$RF_TRIGGER 'int($6 / 8) % 2 == 1 && int($6 / f) % 2 == 1' "$out/r.rq" | wc -l)
	grep "^trigger $sd reason=requeues" "$out/ev.rq" > "$out/ev.rq.$sd"
	nev=$(wc -l < "$out/ev.rq.$sd")
	supp=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^suppressed=/) { sub(/.*=/, "", $i); s += $i } } END { print s + 0 }' "$out/ev.rq.$sd")
	ktap_check "requeues=1: every requeued record flagged ($rqf of $rq), no other" \
		test "$rq" -ge 1 -a "$rqf" -eq "$rq" -a "$(flagged "$out/r.rq")" -eq "$rq"
	ktap_check "requeues=1: events ($nev) + suppressed ($supp) = requeued records, retries=1" \
		test "$nev" -ge 1 -a $((nev + supp)) -eq "$rq" -a \
		"$(grep -cE ' retries=1( |$)' "$out/ev.rq.$sd")" -eq "$nev"
	ktap_check "requeues=1: each event's submitter one of the dd ($rqpids) (noted: $sub)" \
		python3 -c '
import sys
evs = [dict(kv.split("=", 1) for kv in l.split() if "=" in kv)
       for l in open(sys.argv[1])]
dds = sys.argv[3].split()
got = [e.get("pid") for e in evs]
print("# pids of the events: %s" % got)
sys.exit(not evs or not all(p in dds if sys.argv[2] == "1" else p is None
                            for p in got))' "$out/ev.rq.$sd" $sub "$rqpids"

	"$IOTRACECTL" clear "$sd"
	listen "$out/ev.ds"
	echo 2 > $sdbg/opts
	dd if=/dev/"$sd" of=/dev/null bs=512 skip=$((0x1234)) count=1 \
		iflag=direct 2> /dev/null && log "the medium error read succeeded"
	echo 0 > $sdbg/opts
	dd if=/dev/"$sd" of=/dev/null bs=4096 count=4 iflag=direct 2> /dev/null
	sleep 2
	unlisten "$out/ev.ds"
	dumps "$sd" "$out/r.ds"
	sed 's/^/# ring: /' "$out/r.ds"
	nerr=$(awk '$8 != 0' "$out/r.ds" | wc -l)
	ev=$(grep -m1 "^trigger $sd reason=[a-z,]*devstatus" "$out/ev.ds")
	ktap_check "devstatus: the failed reads flagged ($nerr), the good ones not" \
		test "$nerr" -ge 1 -a \
		"$(awk -v f=$RF_TRIGGER '$8 != 0 && int($6 / f) % 2 == 1' "$out/r.ds" | wc -l)" -eq "$nerr" -a \
		"$(flagged "$out/r.ds")" -eq "$nerr"
	ktap_check "devstatus: an event with the device status ($(field "$ev" dev_status))" \
		test -n "$(field "$ev" dev_status)"

	# requeues=255, the largest: one read refused (every_nth=1) hits
	# once, at its 255th requeue, and not again while it is requeued
	# for 5 s more (about 190 requeues a second here); the count a
	# record keeps stops at 255.
	"$IOTRACECTL" trigger "$sd" requeues=255 rate=0 ||
		ktap_fail "trigger requeues=255"
	"$IOTRACECTL" clear "$sd"
	echo 1 > $sdbg/every_nth
	echo 0x8000 > $sdbg/opts
	dd if=/dev/"$sd" of=/dev/null bs=4096 skip=500 count=1 \
		iflag=direct 2> /dev/null &
	ddp=$!
	h0=
	for _ in $(seq 240); do
		sleep 0.5
		h0=$(st "$sd" trigger_hits)
		[ "$h0" != 0 ] && break
	done
	sleep 5
	h1=$(st "$sd" trigger_hits)
	kill -0 $ddp 2> /dev/null && busy=1 || busy=0
	echo 0 > $sdbg/opts
	echo 0 > $sdbg/every_nth
	wait $ddp
	log "requeues=255: hits $h0, 5 s later $h1 (read still refused: $busy)"
	ktap_check "requeues=255: a read requeued for 5 s more hits once ($h1)" \
		test "$h0" = 1 -a "$h1" = 1 -a "$busy" = 1

	# submitter=N: where block_io_start still stamps each request's
	# allocation (6.9+), a slot notes pid 0 with no submitter; the
	# requeue and stuck events name none (no pid=), as the records
	load_iotrace disks=none buf_size=1M submitter=N
	echo 1 > "$IOT/$sd/enable"
	echo 1 > "$IOT/$stk/enable"
	"$IOTRACECTL" trigger "$sd" requeues=1 rate=0 ||
		ktap_fail "trigger requeues=1 (submitter=N)"
	"$IOTRACECTL" trigger "$stk" stuck=1s rate=0 ||
		ktap_fail "trigger stuck=1s (submitter=N)"
	listen "$out/ev.nosub"
	echo 2 > $sdbg/every_nth
	echo 0x8000 > $sdbg/opts
	for i in 100 200; do
		dd if=/dev/"$sd" of=/dev/null bs=4096 skip=$i count=1 \
			iflag=direct 2> /dev/null
	done
	echo 0 > $sdbg/opts
	echo 0 > $sdbg/every_nth
	# 5 s: stuck after 1
	dd if=/dev/"$stk" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
	sleep 2
	unlisten "$out/ev.nosub"
	nrq=$(grep -c "^trigger $sd reason=requeues" "$out/ev.nosub")
	nstk=$(grep -c "^trigger $stk reason=stuck" "$out/ev.nosub")
	ktap_check "submitter=N: requeue ($nrq) and stuck ($nstk) events, none with a submitter" \
		test "$nrq" -ge 1 -a "$nstk" -ge 1 -a \
		"$(grep -c '^trigger .* pid=' "$out/ev.nosub")" -eq 0
	load_iotrace disks=all buf_size=1M
	echo 0 > "$IOT/$sd/enable"
	rmmod scsi_debug 2> /dev/null
else
	ktap_skip "requeues=1: no scsi_debug"
	ktap_skip "requeues=1: events"
	ktap_skip "requeues=1: submitters"
	ktap_skip "requeues=255: hits once"
	ktap_skip "submitter=N: events"
	ktap_skip "devstatus: records"
	ktap_skip "devstatus: event"
fi

# ---- teardown: unload with triggers set, the stuck scan running --------
"$IOTRACECTL" trigger "$lat" read-lat=500us rate=0 || ktap_fail "trigger again"
dd if=/dev/"$lat" of=/dev/null bs=4k count=200 iflag=direct 2> /dev/null &
d1=$!
unload_iotrace
wait $d1
ktap_ok "unloaded with triggers set and I/O running"
nullb_destroy nbtrstk
nullb_destroy nbtrlat
udevadm control --start-exec-queue 2> /dev/null
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
