#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# metrics: the in-kernel metrics (GET_METRICS over netlink, debugfs
# <disk>/metrics) against oracles iotrace did not write: fio's own I/O log
# and the kernel's /sys/block/<disk>/stat (counts and bytes exact, also
# while the tiny ring wraps, a filter leaves the writes out of it and it is
# cleared and resized under the load),
# null_blk's configured completion latency (the device latency histogram),
# the ring's own records of the same requests (percentiles within a
# bucket), null_blk bad blocks (errors by op with EIO), scsi_debug's medium
# error (SCSI status CHECK CONDITION) and two 5 s null_blk
# completions (30 s on a debug kernel) (the oldest request in flight is the inflight view's first,
# counted without a table since 2026-11-29); over 32768 requests in a bucket
# of one CPU (folds from u16 into the shared totals lose nothing and
# a concurrent reader never sees a bucket go down).  Clear and resize leave
# the metrics alone, RESET_METRICS zeroes them, GET needs no privilege.
# VM-CHECK: alone
# VM-TIMEOUT: 420
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3 setpriv dd
# shellcheck disable=SC2119
ktap_header
out=$(mktemp -d)
chmod 755 "$out"
NLM="python3 $IOTRACE_SRC/selftests/iotrace/nlmetrics.py"
LAT=200000
nullb_mod nr_devices=1 submit_queues=2 irqmode=2 completion_nsec=$LAT gb=1
disk=nullb0
quiet_disk $disk
load_iotrace buf_size=64K disks=$disk
ktap_check "disk $disk has a metrics file" test -r "$IOT/$disk/metrics"
udevadm control --stop-exec-queue 2> /dev/null

# fio_run NAME IOS JOBS - mixed random I/O with an I/O log per job
fio_run() {
	local cpu
	for cpu in $(seq 0 $(($3 - 1))); do
		fio --name="$1$cpu" --filename=/dev/$disk --direct=1 \
		    --ioengine=libaio --iodepth=8 --rw=randrw \
		    --bssplit=4k/50:16k/30:64k/20 --number_ios="$2" \
		    --size=256m --offset=$((cpu * 256))m --cpus_allowed="$cpu" \
		    --write_iolog="$out/$1.iolog.$cpu" \
		    --output="$out/$1.fio.$cpu" &
	done
}

# fio_sum NAME DIR count|bytes - from fio's own logs (v2 or v3 format)
fio_sum() {
	cat "$out/$1".iolog.* |
		awk -v d="$2" -v w="$3" '
		$2 == d { n++; b += $4 } $3 == d { n++; b += $5 }
		END { print (w == "count" ? n + 0 : b + 0) }'
}

# exact NAME - the metrics since the reset equal fio's log and the stat
# delta (stat_before: "reads rsect writes wsect")
exact() {
	local f=$out/$1.m n
	# shellcheck disable=SC2086
	set -- "$1" $stat_before
	$NLM get $disk > "$f"
	n=$(fio_sum "$1" read count)
	ktap_check "$1: read requests $(kv "$f" read.requests) = fio's $n = stat's $(($(blk_stat $disk 1) - $2))" \
		test "$(kv "$f" read.requests)" -eq "$n" -a "$n" -eq $(($(blk_stat $disk 1) - $2)) -a "$n" -gt 0
	n=$(fio_sum "$1" write count)
	ktap_check "$1: write requests $(kv "$f" write.requests) = fio's $n = stat's $(($(blk_stat $disk 5) - $4))" \
		test "$(kv "$f" write.requests)" -eq "$n" -a "$n" -eq $(($(blk_stat $disk 5) - $4)) -a "$n" -gt 0
	n=$(fio_sum "$1" read bytes)
	ktap_check "$1: read bytes $(kv "$f" read.bytes) = fio's $n = stat's sectors x 512" \
		test "$(kv "$f" read.bytes)" -eq "$n" -a "$n" -eq $((($(blk_stat $disk 3) - $3) * 512))
	n=$(fio_sum "$1" write bytes)
	ktap_check "$1: write bytes $(kv "$f" write.bytes) = fio's $n = stat's sectors x 512" \
		test "$(kv "$f" write.bytes)" -eq "$n" -a "$n" -eq $((($(blk_stat $disk 7) - $5) * 512))
	ktap_check "$1: no errors, nothing else counted" \
		test "$(kv "$f" read.errors)$(kv "$f" write.errors)$(kv "$f" flush.requests)$(kv "$f" discard.requests)$(kv "$f" passthrough.requests)" = 00000
}

stat_now() {
	echo "$(blk_stat $disk 1) $(blk_stat $disk 3) $(blk_stat $disk 5) $(blk_stat $disk 7)"
}

# ---- 1. a wrapping ring: counts exact, latency at least null_blk's ----
ktap_check "RESET_METRICS as root" sh -c "$NLM reset $disk | grep -qx 'errno: 0'"
stat_before=$(stat_now)
fio_run wrap 1500 2
wait
log "ring: $(iot_stat $disk overwritten) overwritten of $(iot_stat $disk recorded)"
ktap_check "the 64K ring wrapped" test "$(iot_stat $disk overwritten)" -gt 1000
exact wrap
f=$out/wrap.m
python3 - "$f" $LAT > "$out/lat" <<'EOF'
import sys
def bucket(ns):
    # uapi: [0,1024) is 0, four sub-buckets per power of two up to 2^37
    if ns < 1024:
        return 0
    o = ns.bit_length() - 1
    return 109 if o >= 37 else 1 + (o - 10) * 4 + ((ns >> (o - 2)) & 3)
kv = dict(l.split(": ", 1) for l in open(sys.argv[1]).read().splitlines()
          if ": " in l)
lo = bucket(int(sys.argv[2]))
for op in ("read", "write"):
    h = {int(b): int(c) for b, c in (x.split("=") for x in
         kv[op + ".dev_hist"].split(",") if x)}
    below = sum(c for b, c in h.items() if b < lo)
    print("%s %d %d %d %d" % (op, int(kv[op + ".requests"]),
          int(kv[op + ".dev_count"]), sum(h.values()), below))
EOF
while read -r op req cnt tot below; do
	ktap_check "$op: every request has a device latency ($cnt of $req, histogram $tot)" \
		test "$req" -eq "$cnt" -a "$cnt" -eq "$tot"
	ktap_check "$op: no device latency below null_blk's ${LAT} ns bucket ($below)" \
		test "$below" -eq 0
done < "$out/lat"

# ---- 2. a filter, clear and resize under load do not disturb the counts
$NLM reset $disk > /dev/null
"$IOTRACECTL" filter $disk ops=read > /dev/null || log "filter failed"
f0=$(iot_stat $disk filtered)
dd if=/dev/zero of=/dev/$disk bs=4k count=1 oflag=direct 2> /dev/null
ktap_check "the read-only filter leaves a write out of the ring" \
	test "$(iot_stat $disk filtered)" -eq $((f0 + 1))
$NLM reset $disk > /dev/null
stat_before=$(stat_now)
fio_run live 1500 2
for s in 128K 64K 256K; do
	sleep 0.5
	echo 1 > "$IOT/$disk/clear"
	"$IOTRACECTL" resize $disk $s > /dev/null || log "resize $s failed"
done
wait
"$IOTRACECTL" filter $disk off > /dev/null
exact live

# ---- 3. idle clear and resize leave the metrics as they are -----------
$NLM get $disk | grep -v -e '^now_ns:' > "$out/idle.1"
echo 1 > "$IOT/$disk/clear"
"$IOTRACECTL" resize $disk 1M > /dev/null
echo 1 > "$IOT/$disk/clear"
$NLM get $disk | grep -v -e '^now_ns:' > "$out/idle.2"
ktap_check "clear and resize change no metric" cmp -s "$out/idle.1" "$out/idle.2"
ktap_check "debugfs metrics agree with netlink" \
	grep -qx "read requests $(kv "$out/idle.1" read.requests) bytes $(kv "$out/idle.1" read.bytes) errors 0" "$IOT/$disk/metrics"

# ---- 4. percentiles: the histogram against the ring's records ---------
"$IOTRACECTL" resize $disk 16M > /dev/null
$NLM reset $disk > /dev/null
echo 1 > "$IOT/$disk/clear"
stat_before=$(stat_now)
fio_run pct 2000 1
wait
$NLM get $disk > "$out/pct.m"
cat "$IOT/$disk/trace" > "$out/trace"
ktap_check "the 16M ring overwrote nothing" test "$(iot_stat $disk overwritten)" -eq 0
python3 - "$out/pct.m" "$out/trace" > "$out/pct" <<'EOF'
import sys
def bucket(ns):
    if ns < 1024:
        return 0
    o = ns.bit_length() - 1
    return 109 if o >= 37 else 1 + (o - 10) * 4 + ((ns >> (o - 2)) & 3)
kv = dict(l.split(": ", 1) for l in open(sys.argv[1]).read().splitlines()
          if ": " in l)
lat = {"read": [], "write": []}
for l in open(sys.argv[2]).read().splitlines()[1:]:
    f = l.split()
    if f[3].lower() in lat and f[1] != "-":
        lat[f[3].lower()].append(int(f[1]))
for op, v in lat.items():
    v.sort()
    h = {int(b): int(c) for b, c in (x.split("=") for x in
         kv[op + ".dev_hist"].split(",") if x)}
    n = sum(h.values())
    for p in (50, 90, 99):
        rank = -(-len(v) * p // 100)
        exact = bucket(v[rank - 1])
        krank, seen = -(-n * p // 100), 0
        for b in sorted(h):
            seen += h[b]
            if seen >= krank:
                break
        print("%s p%d records %d kernel %d record_bucket %d kernel_bucket %d"
              % (op, p, len(v), n, exact, b))
EOF
while read -r op p _ nrec _ nk _ be _ bk; do
	ktap_check "$op $p: kernel histogram bucket $bk, records' bucket $be (of $nk / $nrec)" \
		test "$nrec" -eq "$nk" -a $((bk - be)) -le 1 -a $((be - bk)) -le 1
done < "$out/pct"

# ---- 5. reset and privilege ------------------------------------------
old=$(kv "$out/pct.m" reset_ns)
ktap_check "an unprivileged process may GET_METRICS" \
	sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups $NLM get $disk | grep -q '^read.requests: [1-9]'"
ktap_check "an unprivileged RESET_METRICS is refused with EPERM" \
	sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups $NLM reset $disk | grep -qx 'errno: 1'"
ktap_check "GET_METRICS refuses a reply-only attribute (EINVAL)" \
	sh -c "python3 - <<'EOF'
import sys
sys.argv = ['x', 'get', '$disk']
sys.path.insert(0, '$IOTRACE_SRC/selftests/iotrace')
import nlmetrics as n
g = n.Genl()
fam = g.family('iotrace')
err, _ = g.request(fam, n.CMD_GET_METRICS, 3,
                   n.attr(n.A_DISK_NAME, b'$disk\0') +
                   n.attr(n.A_M_TIMEOUTS, bytes(8)))
sys.exit(0 if err == 22 else 1)
EOF"
$NLM reset $disk > /dev/null
$NLM get $disk > "$out/reset.m"
ktap_check "RESET_METRICS zeroes the counters" \
	test "$(grep -E '\.(requests|bytes|errors|dev_count|queue_count):' "$out/reset.m" | grep -cv ': 0$')" -eq 0
ktap_check "RESET_METRICS zeroes the histograms" \
	test "$(grep -cE '_hist: .' "$out/reset.m")" -eq 0
ktap_check "the reset time moved on ($old -> $(kv "$out/reset.m" reset_ns))" \
	test "$(kv "$out/reset.m" reset_ns)" -gt "$old"
udevadm control --start-exec-queue 2> /dev/null

# ---- 6. errors: null_blk bad blocks fail with EIO ---------------------
bad=$(nullb_create nbbad size=64 memory_backed=1 irqmode=0)
echo 1 > "$IOT/$bad/enable"
echo "+0-7" > "/sys/kernel/config/nullb/nbbad/badblocks" ||
	log "cannot set badblocks"
dd if=/dev/"$bad" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
dd if=/dev/zero of=/dev/"$bad" bs=4k count=1 oflag=direct 2> /dev/null
dd if=/dev/"$bad" of=/dev/null bs=4k count=1 skip=8 iflag=direct 2> /dev/null
$NLM get "$bad" > "$out/bad.m"
grep -E '^(read|write)\.(requests|errors)|^error' "$out/bad.m" | sed 's/^/# /'
ktap_check "bad block read: 1 error of 2 reads" \
	test "$(kv "$out/bad.m" read.errors)/$(kv "$out/bad.m" read.requests)" = 1/2
ktap_check "bad block write: 1 error" test "$(kv "$out/bad.m" write.errors)" -eq 1
ktap_check "error kinds: read EIO once, write EIO once" \
	test "$(grep -c -x -e 'error: read none 0x0000 5 1' -e 'error: write none 0x0000 5 1' "$out/bad.m")" -eq 2
ktap_check "debugfs shows the read EIO" \
	grep -qx 'error read errno 5 kind none status 0x0000 count 1' "$IOT/$bad/metrics"

# ---- 6a. errors per op and per kind agree, in every reading -----------
# Every read of the disk fails (bad blocks over all of it); fio reads on
# both CPUs while a reader takes readings and resets in turn: in each
# reading the op's error count is the sum of its kinds' counts.
echo "+0-131071" > "/sys/kernel/config/nullb/nbbad/badblocks" ||
	log "cannot set badblocks"
fio --name=errs --filename=/dev/"$bad" --direct=1 --ioengine=libaio \
    --iodepth=16 --rw=randread --bs=4k --numjobs=2 --time_based \
    --runtime=8 --continue_on_error=all --output=/dev/null 2> /dev/null &
fiopid=$!
python3 - "$fiopid" "$bad" > "$out/agree" <<'EOF2'
import os, sys
sys.path.insert(0, os.environ["IOTRACE_SRC"] + "/selftests/iotrace")
import nlmetrics as n
g = n.Genl()
fam = g.family("iotrace")
name = n.attr(n.A_DISK_NAME, sys.argv[2].encode() + b"\0")
reads = errs = bad = 0
while n.alive(int(sys.argv[1])):
    err, rep = g.request(fam, n.CMD_GET_METRICS, 3, name)
    if err or not rep:
        continue
    ops, kinds = {}, {}
    for t, v in n.attrs(rep[0]):
        if t == n.A_M_OP:
            f = n.struct.unpack(n.OP_FMT, v)
            ops[f[0]] = f[3]
        elif t == n.A_M_ERROR:
            cnt, mop = n.struct.unpack(n.ERR_FMT, v)[:2]
            kinds[mop] = kinds.get(mop, 0) + cnt
    reads += 1
    errs += ops.get(0, 0)
    if any(ops.get(m, 0) != kinds.get(m, 0) for m in set(ops) | set(kinds)):
        bad += 1
        if bad <= 3:
            print("# op errors %s, kinds %s" % (ops, kinds))
    if reads % 2 == 0:
        g.request(fam, n.CMD_RESET_METRICS, 3, name)
print("readings %d disagreeing %d errors %d" % (reads, bad, errs))
EOF2
wait $fiopid
sed 's/^/# /' "$out/agree"
set -- $(tail -n 1 "$out/agree")
ktap_check "errors per op = errors per kind in every reading under resets ($4 of $2 disagree)" \
	test "${2:-0}" -ge 20 -a "${4:-1}" -eq 0 -a "${6:-0}" -gt 0
echo 0 > "$IOT/$bad/enable"
nullb_destroy nbbad

# ---- 6b. errors: scsi_debug's medium error, SCSI status CHECK CONDITION
modprobe scsi_debug dev_size_mb=8 opts=2 || die "modprobe scsi_debug failed"
settle
# the host's scan is asynchronous (minutes on a KASAN kernel)
until_ok "$(kdebug_or 30 300)" \
	sh -c 'grep -qs scsi_debug /sys/block/sd*/device/model'
sdbg=
for d in /sys/block/sd*; do
	grep -q scsi_debug "$d/device/model" 2> /dev/null && sdbg=$(basename "$d")
done
[ -n "$sdbg" ] || die "no scsi_debug disk appeared"
echo 1 > "$IOT/$sdbg/enable"
$NLM reset "$sdbg" > /dev/null
dd if=/dev/"$sdbg" of=/dev/null bs=512 skip=$((0x1234)) count=1 iflag=direct \
	2> "$out/dd" && log "read of scsi_debug's bad sector succeeded"
log "dd: $(tail -n 1 "$out/dd")"
$NLM get "$sdbg" > "$out/sdbg.m"
grep -E '^read\.(requests|errors)|^error' "$out/sdbg.m" | sed 's/^/# /'
n=$(kv "$out/sdbg.m" read.errors)
ktap_check "scsi_debug medium error: read errors ($n) all of kind SCSI CHECK CONDITION (0x02) with EIO or ENODATA" \
	test "${n:-0}" -ge 1 -a "$(grep -cE "^error: read scsi 0x0002 (5|61) $n\$" "$out/sdbg.m")" -eq 1 -a \
	"$(grep -c '^error:' "$out/sdbg.m")" -eq 1
echo 0 > "$IOT/$sdbg/enable"
rmmod scsi_debug 2> /dev/null

# ---- 7. a slow request: the oldest in flight ages ---------------------
hist_bucket() { # NS - its bucket (uapi's IOTRACE_HIST_*, as bucket() above)
	local ns=$1 o=0
	[ "$ns" -lt 1024 ] && { echo 0; return; }
	while [ $((ns >> (o + 1))) -gt 0 ]; do o=$((o + 1)); done
	[ $o -ge 37 ] && { echo 109; return; }
	echo $((1 + (o - 10) * 4 + ((ns >> (o - 2)) & 3)))
}
# null_blk completes each request lat s after its issue; a debug kernel's
# guest is slow enough that starting two dd's and reading the metrics can
# take 5 s, so there the completions take longer.
lat=$(kdebug_or 5 30)
slow=$(nullb_create nbslow size=64 irqmode=2 completion_nsec=$((lat * 1000000000)))
echo 1 > "$IOT/$slow/enable"
dd if=/dev/"$slow" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null &
ddpid=$!
# a second one, younger, on another tag: the oldest is still the first.
# Started at once: polling for the first before it (a grep every 0.1 s)
# took the 5 s of the first's completion on the KCSAN kernel.
sleep 0.2
dd if=/dev/"$slow" of=/dev/null bs=4k count=1 skip=100 iflag=direct 2> /dev/null &
ddpid2=$!
end=$((SECONDS + lat - 1))
until [ "$(grep -c READ "$IOT/$slow/inflight")" -ge 2 ] || [ $SECONDS -ge $end ]; do
	sleep 0.1
done
sleep 0.5
$NLM get "$slow" > "$out/slow.m"
cat "$IOT/$slow/metrics" > "$out/slow.dbg"
cat "$IOT/$slow/inflight" > "$out/slow.inflight"
sed 's/^/# /' "$out/slow.inflight"
oldest=$(kv "$out/slow.m" oldest_ns)
age=$(($(kv "$out/slow.m" now_ns) - ${oldest:-0}))
first=$(awk '$3 == "READ" { print $1; exit }' "$out/slow.inflight")
ktap_check "two requests in flight ($(kv "$out/slow.m" inflight))" \
	test "$(kv "$out/slow.m" inflight)" -eq 2
ktap_check "the oldest's issue ($oldest) is the inflight view's first ($first)" \
	test "${oldest:-0}" = "$first"
ktap_check "its age ($age ns) is at least 0.5 s" \
	test "$age" -ge 500000000 -a "$age" -lt $((2 * lat * 1000000000))
dbg=$(sed -n 's/^inflight_oldest_age_ns: //p' "$out/slow.dbg")
ktap_check "debugfs oldest age ($dbg ns) is at least 0.5 s" test "${dbg:-0}" -ge 500000000
wait_gone $ddpid $((lat + 30))
wait_gone $ddpid2 $((lat + 30))
$NLM get "$slow" > "$out/slow2.m"
ktap_check "nothing in flight after it, no oldest" \
	test "$(kv "$out/slow2.m" inflight)" = 0 -a -z "$(kv "$out/slow2.m" oldest_ns)"
# both device latencies at least lat s and under 2 lat s: their buckets
# (uapi's IOTRACE_HIST_*: four a power of two from 2^10 ns) lie between
# those of the two bounds.
lo=$(hist_bucket $((lat * 1000000000)))
hi=$(hist_bucket $((2 * lat * 1000000000)))
grep '^read.dev_hist:' "$out/slow2.m" | sed 's/^/# /'
ktap_check "their device latencies are in buckets $lo to $hi (${lat} s to $((2 * lat)) s)" \
	awk -v lo="$lo" -v hi="$hi" '
		$1 == "read.dev_hist:" {
			m = split($2, b, ",")
			for (i = 1; i <= m; i++) {
				split(b[i], f, "=")
				if (f[1] + 0 < lo || f[1] + 0 > hi)
					bad = 1
				n += f[2]
			}
		}
		END { exit !(n == 2 && !bad) }' "$out/slow2.m"
echo 0 > "$IOT/$slow/enable"
nullb_destroy nbslow

# ---- 8. past the per-CPU u16 buckets: folds lose and repeat nothing --
# null_blk irqmode=0 completes in the submitter's context: every request
# of a job pinned to CPU 0 lands in CPU 0's buckets, more than 65536 of
# them.  How they spread over buckets depends on the host's load, so rounds
# of 70,000 go on (6 at most) until a bucket is past the fold threshold.
nullb_mod nr_devices=1 submit_queues=1 irqmode=0 gb=1
quiet_disk $disk
echo 1 > "$IOT/$disk/enable"
udevadm control --stop-exec-queue 2> /dev/null
$NLM reset $disk > /dev/null
stat_before=$(stat_now)
fold_max() {
	python3 -c '
import sys
kv = dict(l.split(": ", 1) for l in open(sys.argv[1]).read().splitlines()
          if ": " in l)
print(max(int(x.split("=")[1]) for h in ("dev_hist", "queue_hist")
          for x in kv["read." + h].split(",") if x))' "$1"
}
(
	for r in 1 2 3 4 5 6; do
		fio --name=fold --filename=/dev/$disk --direct=1 \
		    --ioengine=libaio --iodepth=16 --iodepth_batch_submit=16 \
		    --rw=read --bs=512 --number_ios=70000 --size=64m \
		    --cpus_allowed=0 --output="$out/fold.fio.$r"
		$NLM get $disk > "$out/fold.m"
		echo "round $r: fullest bucket $(fold_max "$out/fold.m")" \
			>> "$out/fold.rounds"
		[ "$r" -ge 2 ] && [ "$(fold_max "$out/fold.m")" -gt 32768 ] &&
			break
	done
) &
fiopid=$!
# a reader meanwhile: no histogram total may ever go down
python3 - "$fiopid" "$disk" > "$out/mono" <<'EOF2'
import os, sys
sys.path.insert(0, os.environ["IOTRACE_SRC"] + "/selftests/iotrace")
import nlmetrics as n
g = n.Genl()
fam = g.family("iotrace")
last, reads, bad = {}, 0, 0
while n.alive(int(sys.argv[1])):
    err, rep = g.request(fam, n.CMD_GET_METRICS, 3,
                         n.attr(n.A_DISK_NAME, sys.argv[2].encode() + b"\0"))
    for t, v in n.attrs(rep[0]):
        if t != n.A_M_OP:
            continue
        f = n.struct.unpack(n.OP_FMT, v)
        for b in range(8, len(f)):
            if f[b] < last.get((f[0], b), 0):
                bad += 1
            last[(f[0], b)] = f[b]
    reads += 1
print("reads %d decreases %d" % (reads, bad))
EOF2
wait $fiopid
log "$(tr '\n' ';' < "$out/fold.rounds")"
$NLM get $disk > "$out/fold.m"
log "$(cat "$out/mono"); read dev_hist $(kv "$out/fold.m" read.dev_hist)"
log "read queue_hist $(kv "$out/fold.m" read.queue_hist)"
# shellcheck disable=SC2086
set -- $stat_before
n=$(( $(blk_stat $disk 1) - $1 ))
ktap_check "fold: read requests $(kv "$out/fold.m" read.requests) = stat's $n (over 65536)" \
	test "$(kv "$out/fold.m" read.requests)" -eq "$n" -a "$n" -gt 65536
python3 - "$out/fold.m" > "$out/fold.sum" <<'EOF2'
import sys
kv = dict(l.split(": ", 1) for l in open(sys.argv[1]).read().splitlines()
          if ": " in l)
for h, c in (("dev_hist", "dev_count"), ("queue_hist", "queue_count")):
    v = [int(x.split("=")[1]) for x in kv["read." + h].split(",") if x]
    print(h, kv["read." + c], sum(v), max(v))
EOF2
while read -r h cnt sum max; do
	ktap_check "fold: read $h sums to its count ($sum = $cnt), fullest bucket $max" \
		test "$sum" -eq "$cnt" -a "$cnt" -eq "$n"
done < "$out/fold.sum"
# all on CPU 0: a bucket above the fold threshold (32768) folded at least
# once (above 65536 a u16 that never folded would also have wrapped)
ktap_check "fold: some bucket passed the fold threshold" \
	test "$(sort -k4 -n "$out/fold.sum" | tail -n 1 | awk '{ print $4 }')" -gt 32768
ktap_check "fold: a reader never saw a bucket go down ($(cat "$out/mono"))" \
	grep -q 'decreases 0$' "$out/mono"
udevadm control --start-exec-queue 2> /dev/null

unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
