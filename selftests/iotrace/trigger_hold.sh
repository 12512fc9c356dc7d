#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# trigger_hold: the kernel keeps the history before a trigger (the hold,
# ring ABI 2.1, issue 21) while the watcher cannot copy it.
#
# A null_blk with no completion delay (irqmode=0) and bad blocks at sectors
# 0-7 under fio randread on both CPUs (write_iolog), a 256K ring (61 chunks
# of 32 records with 2 CPUs) that wraps many times a second; "iotracectl
# watch" with "trigger = error" (the hold: its default, the most allowed).
# The watcher is stopped (SIGSTOP), one dd reads sector 0 (EIO: the hit),
# fio goes on until the ring was overwritten several times over since the
# hit (overwritten grew by more than the ring's records), then the watcher
# goes on (SIGCONT).  Oracles (fio's iolog and the dd, the kernel's
# /sys/block stat, time):
#   - a hold was set at the hit (stats hold_lo/hold_hi), of the most the
#     ring allows (half of it);
#   - the snapshot holds the trigger record (EIO, sector 0) and, before it,
#     at least (hold_chunks - nr_cpus - 1) * chunk_records records in one
#     run of contiguous sequence numbers per CPU through the trigger's
#     time, every one of them an I/O fio logged (op, sector, length) or
#     the dd.  The run's records after the hit count: the hold is set a
#     few stores after the hit, but a vCPU of a loaded host can stall
#     there while the other CPU fills more chunks, which the hold then
#     covers instead of older ones (2026-11-27, 7.3: 692 + 71 records
#     before the hit, 864 needed);
#   - while the watcher is stopped, "iotracectl show DISK" reads the held
#     chunks too: the hit's record is there;
#   - the watcher released the hold once it saved the snapshot (stats, its
#     log), and then loss is exact: completed (ringcheck) = the /sys/block
#     stat delta = present + overwritten + dropped;
#   - with no watcher (triggers set by "iotracectl trigger ... hold=max
#     hold-expire=20s"), a hold ends by itself: still there 2 s after the
#     hit, gone 20 s (no sooner) to 60 s after it was set (its hold_ns,
#     CLOCK_MONOTONIC).
# Without the hold (a module of genl version 4: the watcher asks for none)
# the history is overwritten before the watcher copies it: the test fails.
#   - two holds in a row with the same hold_hi (no chunk taken between
#     them): a release of the first by its hold_hi and hold_ns leaves the
#     second; a new trigger set starts the rate limit again.
# VM-CHECK: alone
# VM-CHECK: newest
# VM-TIMEOUT: 900
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio dd python3
"$IOTRACECTL" trigger 2>&1 | grep -q 'hold=' ||
	skip "this iotracectl has no hold (trigger ... hold=)"

ktap_header
out=$(mktemp -d)
chmod 755 "$out"
udevadm control --stop-exec-queue 2> /dev/null
bd=$(nullb_create nbhold size=128 memory_backed=1 irqmode=0 submit_queues=2)
quiet_disk "$bd"
echo "+0-7" > "/sys/kernel/config/nullb/nbhold/badblocks" ||
	die "cannot set badblocks"
load_iotrace disks=none buf_size=256K

# hold KEY - hold_lo or hold_hi of the disk's stats (0: no hold)
hold() {
	iot_stat "$bd" "$1"
}

# ow_above N - the disk's overwritten counter is above N
ow_above() {
	test "$(iot_stat "$bd" overwritten)" -gt "$1"
}

# no_hold - the disk has no hold
no_hold() {
	test "$(hold hold_hi)" = 0
}

# wait_until SECONDS CMD... - poll CMD every 0.1 s; false after SECONDS
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

recs=$(iot_stat "$bd" chunk_records)
chunks=$(iot_stat "$bd" nr_chunks)
ncpu=$(iot_stat "$bd" nr_cpus)
ring_recs=$((recs * chunks))
log "ring: $chunks chunks of $recs records, $ncpu CPUs"

# ---- the watcher ---------------------------------------------------------
# hold-expire: the watcher stays stopped for as long as fio takes to
# overwrite the ring three times, 32 s on the KCSAN kernel (make
# check-debug): past the default 30 s, the hold would end by itself
printf '%s\n' "post = 1" "[disk $bd]" "trigger = error hold-expire=600s" > "$out/conf"
before=$(blk_ios "$bd")
IOTRACE_RUN_DIR=$out/run "$IOTRACECTL" watch --config "$out/conf" \
	--dir "$out/snap" 2> "$out/log" &
wpid=$!
wait_until 30 grep -q 'ready:' "$out/log" ||
	{ sed 's/^/# watch: /' "$out/log"; die "the watcher did not start"; }
ktap_check "the watcher set the trigger" \
	test "$(iot_stat "$bd" enabled)" = 1 -a \
	"$("$IOTRACECTL" state "$bd" | sed -n 's/^trigger_error: //p')" = 1

for cpu in 0 1; do
	fio --name=j$cpu --filename=/dev/"$bd" --direct=1 --ioengine=libaio \
	    --iodepth=16 --rw=randread --bs=4k --offset=1m --size=120m \
	    --time_based --runtime="$(kdebug_or 600 3600)" --cpus_allowed=$cpu \
	    --write_iolog="$out/iolog.$cpu" --output="$out/fio.$cpu" &
	fpid[cpu]=$!
done
# the ring wraps: several times its records overwritten
wait_until "$(kdebug_or 60 300)" ow_above $((3 * ring_recs)) ||
	ktap_fail "fio wraps the ring"

kill -STOP "$wpid"
dd if=/dev/"$bd" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null &&
	ktap_fail "the dd of the bad sector fails"
hlo=$(hold hold_lo)
hhi=$(hold hold_hi)
ow0=$(iot_stat "$bd" overwritten)
log "hold at the hit: $hlo..$hhi, overwritten $ow0"
ktap_check "the hit set a hold of the most allowed ($hlo..$hhi: half of $chunks chunks)" \
	test "$hhi" -gt 0 -a $((hhi - hlo + 1)) -eq $((chunks / 2))
# fio overwrites the rest of the ring several times while the watcher sleeps
wait_until "$(kdebug_or 120 600)" ow_above $((ow0 + 3 * ring_recs))
ow1=$(iot_stat "$bd" overwritten)
ktap_check "the ring wrapped while the watcher was stopped (overwritten $ow0 -> $ow1, ring $ring_recs records)" \
	test $((ow1 - ow0)) -gt "$ring_recs"
ktap_check "the hold is still there" \
	test "${hhi:-0}" -gt 0 -a "$(hold hold_hi)" = "$hhi"
# the live ring read now: the held chunks too (the dd's EIO, sector 0, in
# them), not only the pool's worth below the head
"$IOTRACECTL" show -o csv "$bd" > "$out/live.csv" 2> "$out/live.err"
ktap_check "show $bd under the hold: the hit's record (EIO, sector 0) with the rest" \
	python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
hit = [r for r in rows if int(r["sector"]) == 0 and r["error"] not in ("", "0")]
print("# live show: %d records, %d of sector 0 with an error" % (len(rows), len(hit)))
sys.exit(not hit)' "$out/live.csv"
kill -CONT "$wpid"

wait_until 120 sh -c "ls '$out/snap' 2> /dev/null | grep -q '^iotrace-.*\.iot$'" ||
	ktap_fail "a snapshot file"
wait_until 30 grep -q "hold $hhi released" "$out/log"
ktap_check "the watcher released the hold once it saved the snapshot" \
	test "$(hold hold_hi)" = 0 -a -n "$(grep "hold $hhi released" "$out/log")"
for cpu in 0 1; do
	kill "${fpid[$cpu]}"
	wait "${fpid[$cpu]}"
done
kill -TERM "$wpid"
wait "$wpid"
sed 's/^/# watch: /' "$out/log"

after=$(blk_ios "$bd")
echo 0 > "$IOT/$bd/enable"
"$RINGCHECK" check "$IOT/$bd/ring" > "$out/check"
ktap_check "ring intact after the release" test $? -eq 0
sed 's/^/# ringcheck: /' "$out/check"
completed=$(kv "$out/check" completed)
present=$(kv "$out/check" present)
over=$(kv "$out/check" overwritten)
dropped=$(kv "$out/check" dropped)
ktap_check "loss exact: completed ($completed) = /sys/block stat delta ($((after - before))) = present + overwritten + dropped ($present + $over + $dropped)" \
	test "$completed" -eq $((after - before)) -a \
	$((present + over + dropped)) -eq "$completed"

f=$(ls "$out/snap"/iotrace-*.iot 2> /dev/null | head -1)
"$IOTRACECTL" info -o json "$f" > "$out/info.json" 2> "$out/info.err"
"$IOTRACECTL" info "$f" 2>&1 | sed 's/^/# info: /'
"$IOTRACECTL" show -o csv "$f" > "$out/snap.csv" 2> "$out/show.err"
cat "$out"/iolog.[01] |
	awk '$2 == "read" || $2 == "write" { print $2, $3 / 512, $4 }
	     $3 == "read" || $3 == "write" { print $3, $4 / 512, $5 }' |
	sort -u > "$out/fio"
log "fio logged $(wc -l < "$out/fio") distinct I/Os"
# the snapshot: the trigger record, the history before it
python3 - "$out/info.json" "$out/snap.csv" "$out/fio" \
	$(((chunks / 2 - ncpu - 1) * recs)) > "$out/verdict" 2>&1 <<'EOF'
import csv, json, sys
t = json.load(open(sys.argv[1]))["triggers"][0]
rows = list(csv.DictReader(open(sys.argv[2])))
fio = set(tuple(l.split()) for l in open(sys.argv[3]))
need = int(sys.argv[4])
ok = True
def say(ok_, msg):
    global ok
    print(("ok " if ok_ else "FAIL ") + msg)
    ok = ok and ok_
cpu, seq = t.get("cpu"), t.get("seq")
trig = [r for r in rows if r["complete_cpu"] == str(cpu) and
        int(r["seq"]) == int(seq)] if seq is not None else []
say(len(trig) == 1 and int(trig[0]["sector"]) == 0 and
    int(trig[0]["rflags"], 0) & 0x8000 and trig[0]["error"] not in ("", "0"),
    "trigger record (cpu %s seq %s) in the snapshot: %s" %
    (cpu, seq, trig[0] if trig else None))
if trig:
    tns = int(trig[0]["complete_ns"])
    total = 0
    for c in sorted(set(r["complete_cpu"] for r in rows)):
        b = sorted(int(r["seq"]) for r in rows
                   if r["complete_cpu"] == c and int(r["complete_ns"]) <= tns)
        if c == str(cpu):
            b = [s for s in b if s <= int(seq)]
        run = 0
        for i in range(len(b) - 1, -1, -1):
            if i == len(b) - 1 or b[i] == b[i + 1] - 1:
                run += 1
            else:
                break
        # and the same run on after the hit: the CPU's records written
        # into held chunks between the hit and the hold (see the top)
        after = 0
        if b:
            rest = set(int(r["seq"]) for r in rows if r["complete_cpu"] == c)
            while b[-1] + after + 1 in rest:
                after += 1
        print("cpu %s: %d records before the trigger, the last %d contiguous,"
              " and %d after it in the same run" % (c, len(b), run, after))
        total += run + after
    say(total >= need, "%d contiguous records in the held run (at least %d)"
        % (total, need))
    pre = [r for r in rows if int(r["complete_ns"]) < tns]
    bad = [r for r in pre
           if (r["op"].lower(), r["sector"], r["bytes"]) not in fio and
           not (int(r["sector"]) < 8 and r["bytes"] == "4096")]
    say(len(pre) > 0 and not bad,
        "every one of the %d records before the trigger is an I/O fio logged or the dd (%d are not: %s)"
        % (len(pre), len(bad), bad[:3]))
sys.exit(0 if ok else 1)
EOF
rc=$?
sed 's/^/# /' "$out/verdict"
ktap_check "the snapshot: the trigger record and the history before it" test $rc -eq 0

# ---- a trigger the watcher refuses gives its hold back at once -------------
# max-per-hour 1: the first hit is saved, the second refused; hold-expire
# 60 s, so only the watcher can have ended the second hold within 30 s.
printf '%s\n' "post = 0" "episode = 0" "max-per-hour = 1" "[disk $bd]" \
	"trigger = error hold-expire=60s" > "$out/conf2"
IOTRACE_RUN_DIR=$out/run2 "$IOTRACECTL" watch --config "$out/conf2" \
	--dir "$out/snap2" 2> "$out/log2" &
wpid=$!
wait_until 30 grep -q 'ready:' "$out/log2" ||
	{ sed 's/^/# watch: /' "$out/log2"; die "the second watcher did not start"; }
dd if=/dev/"$bd" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
wait_until 30 grep -q 'hold [0-9]* released$' "$out/log2"
sleep 1.5	# past the kernel's rate limit (1 s): the hit is an event
dd if=/dev/"$bd" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
wait_until 30 grep -q 'hold [0-9]* released (no snapshot)$' "$out/log2"
ktap_check "a refused trigger's hold released at once (hold_hi $(hold hold_hi))" \
	sh -c "grep -q ': refused (max-per-hour)' '$out/log2' &&
	       grep -q 'hold [0-9]* released (no snapshot)\$' '$out/log2' &&
	       test \"\$(sed -n 's/^hold_hi: //p' '$IOT/$bd/stats')\" = 0"
kill -TERM "$wpid"
wait "$wpid"
sed 's/^/# watch2: /' "$out/log2"

# ---- expiry: no watcher releases the hold ----------------------------------
# 20 s: a guest starved by a loaded host (seen: 10 s from the dd to the
# check below) still reads the hold before it may expire
"$IOTRACECTL" trigger "$bd" error hold=max hold-expire=20s ||
	ktap_fail "trigger error hold=max hold-expire=20s"
echo 1 > "$IOT/$bd/enable"
"$IOTRACECTL" state "$bd" | grep -E '^(trigger_hold|hold)' | sed 's/^/# state: /'
dd if=/dev/"$bd" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
hns=$("$IOTRACECTL" state "$bd" | sed -n 's/^hold_ns: //p')
h1=$(hold hold_hi)
sleep 2
h2=$(hold hold_hi)
ktap_check "a hold with no watcher: set ($h1), still there 2 s later ($h2)" \
	test "$h1" -gt 0 -a "$h2" = "$h1"
wait_until 60 no_hold
gone=$(python3 -c 'import time; print(time.monotonic_ns())')
# hold_ns: CLOCK_MONOTONIC when it was set (state, while it was active)
el=$(awk "BEGIN { printf \"%.2f\", (${gone:-0} - ${hns:-0}) / 1e9 }")
ktap_check "it expired by itself, seen $el s after it was set (hold-expire=20s)" \
	sh -c "test \"\$(sed -n 's/^hold_hi: //p' '$IOT/$bd/stats')\" = 0 &&
	       test -n '$hns' && awk 'BEGIN { exit !($el >= 20 && $el < 60) }'"

# ---- a resize between two episodes ----------------------------------------
# A watcher that saved a hold releases it by its HOLD_HI (RELEASE_HOLD),
# which must not end the hold of a later episode: take numbers go on
# across a resize as across a clear.  Each ring gets one dd read, the hit:
# the first chunk of a new ring, whose take number restarted at 1.
need_nlsend
# nl_num ENUM NAME - the value of an enumerator of the uapi header
nl_num() {
	python3 - "$IOTRACE_SRC/uapi/linux/iotrace.h" "$1" "$2" <<'EOF_PY'
import re, sys
body = open(sys.argv[1]).read().split('enum %s {' % sys.argv[2])[1]
names = re.findall(r'^\s*(IOTRACE_\w+)', body.split('};')[0], re.M)
print(names.index(sys.argv[3]))
EOF_PY
}
c_rel=$(nl_num iotrace_genl_cmd IOTRACE_CMD_RELEASE_HOLD)
a_name=$(nl_num iotrace_genl_attr IOTRACE_A_DISK_NAME)
a_hi=$(nl_num iotrace_genl_attr IOTRACE_A_HOLD_HI)
hits=
for i in 1 2; do
	"$IOTRACECTL" resize "$bd" 256K || ktap_fail "resize $i"
	sleep 1.5
	dd if=/dev/"$bd" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
	hits="$hits $(hold hold_hi)"
	[ $i = 2 ] && break
	"$NLSEND" "$c_rel" "$a_name:str:$bd" "$a_hi:u64:$(hold hold_hi)" \
		> "$out/rel1"
done
set -- $hits
"$NLSEND" "$c_rel" "$a_name:str:$bd" "$a_hi:u64:$1" > "$out/rel2"
log "holds across a resize: $1, then $2; the first's release: $(cat "$out/rel2"), hold_hi now $(hold hold_hi)"
ktap_check "a resize: the next hold ($2) is past the last ($1), a release of the last leaves it" \
	test "${1:-0}" -gt 0 -a "${2:-0}" -gt "${1:-0}" -a "$(hold hold_hi)" = "${2:-0}"

# ---- two holds in a row with the same hold_hi ------------------------------
# A new SET_TRIGGER ends the hold of the last; the next hit, on the same
# CPU with room left in its chunk, takes no chunk: the same hold_hi.  A
# watcher names a hold by its hold_hi and hold_ns (RELEASE_HOLD, family
# version 11): the first's release must leave the second.  And a new set
# starts the rate (60 s here) again: the second hit, seconds after the
# first's event, is an event of its own and holds.
a_ns=$(nl_num iotrace_genl_attr IOTRACE_A_HOLD_NS)
for i in 1 2; do
	"$IOTRACECTL" trigger "$bd" error rate=60s hold=max hold-expire=600s ||
		ktap_fail "trigger $bd error rate=60s hold=max hold-expire=600s"
	taskset -c 0 dd if=/dev/"$bd" of=/dev/null bs=4k count=1 \
		iflag=direct 2> /dev/null
	shi[i]=$(hold hold_hi)
	sns[i]=$("$IOTRACECTL" state "$bd" | sed -n 's/^hold_ns: //p')
done
log "holds: ${shi[1]} set at ${sns[1]}, then ${shi[2]} at ${sns[2]}"
ktap_check "a new set starts the rate again: its first hit holds (${shi[2]})" \
	test "${shi[2]:-0}" -gt 0
"$NLSEND" "$c_rel" "$a_name:str:$bd" "$a_hi:u64:${shi[1]}" \
	"$a_ns:u64:${sns[1]:-0}" > "$out/rel3"
log "the first's release: $(cat "$out/rel3"), hold_hi now $(hold hold_hi)"
ktap_check "the same hold_hi twice (${shi[1]}, ${shi[2]}): the first's release by hold_hi and hold_ns leaves the second" \
	sh -c "[ '${shi[1]}' = '${shi[2]}' ] && [ '${sns[1]}' != '${sns[2]}' ] &&
	       grep -q '^errno 0 ' '$out/rel3' &&
	       [ \"\$(sed -n 's/^hold_hi: //p' '$IOT/$bd/stats')\" = '${shi[2]}' ]"
# 0 names no hold (a real one has a take count and a time): refused,
# the hold kept, not taken for "any hold"
"$NLSEND" "$c_rel" "$a_name:str:$bd" "$a_hi:u64:0" > "$out/rel0"
"$NLSEND" "$c_rel" "$a_name:str:$bd" "$a_hi:u64:${shi[2]}" \
	"$a_ns:u64:0" >> "$out/rel0"
log "releases of hold 0: $(tr '\n' ' ' < "$out/rel0")"
ktap_check "RELEASE_HOLD of HOLD_HI 0 or HOLD_NS 0: EINVAL, the hold kept" \
	sh -c "[ \"\$(grep -c '^errno 22 EINVAL' '$out/rel0')\" = 2 ] &&
	       [ \"\$(sed -n 's/^hold_hi: //p' '$IOT/$bd/stats')\" = '${shi[2]}' ]"
"$NLSEND" "$c_rel" "$a_name:str:$bd" "$a_hi:u64:${shi[2]}" \
	"$a_ns:u64:${sns[2]:-0}" > "$out/rel4"
ktap_check "the second's release ends it ($(cat "$out/rel4"))" \
	sh -c "grep -q '^errno 0 ' '$out/rel4' &&
	       [ \"\$(sed -n 's/^hold_hi: //p' '$IOT/$bd/stats')\" = 0 ]"
"$IOTRACECTL" trigger "$bd" off
echo 0 > "$IOT/$bd/enable"
udevadm control --start-exec-queue 2> /dev/null
unload_iotrace
nullb_destroy nbhold
ktap_check "no kernel warning" no_kernel_splat
rm -rf "$out"
ktap_finish
