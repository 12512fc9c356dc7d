#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export_fio: "iotracectl export -f fio" of a traced fio run is an iolog
# that fio --read_iolog --replay_redirect replays: the replay, traced again, issues the same
# sequence of operation, offset and length.
#
# Oracles: fio's own counts of the replay (reads, writes and bytes it
# submitted, from its JSON report; fio cannot write an iolog while it
# reads one), the trace of the replay (what reached the device), and the
# kernel's /sys/block/<disk>/stat delta of the first run.
#
# Trims: fio 3.33 and older do not replay an iolog's trims ("bad ddir:
# 2"), fio 3.34 does; both replay the discards of a blktrace log.  fio
# writes then trims a memory-backed null_blk disk that takes discards;
# the records' iolog, then their blktrace export merged by blkparse -d,
# are replayed by fio onto a second such disk.  Oracles: the traced
# disk's /sys/block stat delta (writes, field 5, sectors written, 7,
# discards, 12) equals the records' per-op counts and bytes; the
# target's stat delta of each replay against them: the iolog's discards
# as export -f fio says for the installed fio's version (none, or all),
# the blktrace log's discards and sectors written all, and its writes
# one for one when fio replays them with O_DIRECT (3.34; 3.33 drops
# O_DIRECT in a job with trims); fio's trim and write counts of the
# replay (JSON).
# VM-TIMEOUT: 300
# VM-CHECK: newest
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3 blkparse
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
ktap_header 16
out=$(mktemp -d)
disk=nullb0
nullb_mod nr_devices=1 irqmode=1 submit_queues=2 gb=1
quiet_disk $disk
# the trims' disks: null_blk takes discards only memory backed
tsrc=$(nullb_create trsrc size=256 memory_backed=1 discard=1 irqmode=1 \
	submit_queues=2)
ttgt=$(nullb_create trtgt size=256 memory_backed=1 discard=1 irqmode=1)
quiet_disk "$tsrc"
quiet_disk "$ttgt"
load_iotrace disks="$disk,$tsrc" buf_size=4194304
wait_for "$IOT/$disk/ring" 10 || die "no ring for $disk"
wait_for "$IOT/$tsrc/ring" 10 || die "no ring for $tsrc"
udevadm control --stop-exec-queue 2> /dev/null
echo 1 > "$IOT/$disk/enable"
echo 1 > "$IOT/$disk/clear"
before=$(blk_ios $disk)
fio --name=orig --filename=/dev/$disk --direct=1 --ioengine=libaio \
	--iodepth=4 --rw=randrw --bssplit=4k/50:16k/30:128k/20 \
	--number_ios=800 --size=512m --output="$out/fio.out" ||
	die "fio failed: $(tail -n 5 "$out/fio.out")"
after=$(blk_ios $disk)
echo 0 > "$IOT/$disk/enable"

# data lines of an iolog: op offset length
ops() {
	awk '$2 ~ /^(read|write|trim|sync)$/ { print $2, $3, $4 }' "$1"
}

"$IOTRACECTL" export -f fio -o "$out/orig.iolog" $disk
ktap_check "export -f fio" test $? -eq 0
head -n 4 "$out/orig.iolog" | sed 's/^/# iolog: /'
n=$(ops "$out/orig.iolog" | wc -l)
ktap_check "the iolog holds every request of the run ($n, stat delta $((after - before)))" \
	test "$n" -eq $((after - before)) -a "$n" -ge 800
ktap_check "the iolog starts with fio's version 2 header" \
	test "$(head -n 1 "$out/orig.iolog")" = "fio version 2 iolog"

echo 1 > "$IOT/$disk/clear"
echo 1 > "$IOT/$disk/enable"
# the log names /dev/$disk; --replay_redirect names the target, as a
# replay onto a scratch device would (here the same null_blk disk)
fio --name=replay --read_iolog="$out/orig.iolog" --replay_redirect=/dev/$disk \
	--direct=1 --ioengine=psync --output-format=json --output="$out/replay.json"
rc=$?
echo 0 > "$IOT/$disk/enable"
[ $rc -eq 0 ] || tail -n 5 "$out/replay.json" | sed 's/^/# fio: /'
ktap_check "fio --read_iolog --replay_redirect replays the export" test $rc -eq 0

ops "$out/orig.iolog" > "$out/a"
want=$(awk '{ n[$1]++; b[$1] += $3 }
	    END { printf "%d %d %d %d", n["read"], b["read"], n["write"], b["write"] }' "$out/a")
got=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["read"]["total_ios"], j["read"]["io_bytes"], j["write"]["total_ios"], j["write"]["io_bytes"])' \
	"$out/replay.json")
log "export: reads, bytes, writes, bytes: $want; fio's report of the replay: $got"
ktap_check "fio replayed every read and write of the export, byte for byte" \
	test "$want" = "$got"

"$IOTRACECTL" export -f fio -o "$out/replay.iolog" $disk
ops "$out/replay.iolog" > "$out/c"
diff "$out/a" "$out/c" > "$out/d2"
rc=$?
head -n 6 "$out/d2" | sed 's/^/# trace diff: /'
ktap_check "the replay's trace has the same op/offset/length sequence ($(wc -l < "$out/c") I/Os)" \
	test $rc -eq 0

# ---- trims ---------------------------------------------------------------
# stat_delta DISK BEFORE... - "reads writes sectors-written discards"
# completed since BEFORE (the fields of /sys/block/DISK/stat as an array)
stat_delta() {
	local d=$1 a
	shift
	read -r -a a < "/sys/block/$d/stat"
	echo $((a[0] - $1)) $((a[4] - $5)) $((a[6] - $7)) $((a[11] - ${12}))
}
# fio 3.34 replays an iolog's trims (fio commit dd6500e9) and opens a job
# with trims with O_DIRECT (85c1cf35); older fio does neither
read -r fmaj fmin <<< "$(fio --version |
	sed -n 's/^fio-\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')"
fver=${fmaj:-0}.${fmin:-0}
new_fio=0
{ [ "${fmaj:-0}" -gt 3 ] || { [ "${fmaj:-0}" -eq 3 ] && [ "${fmin:-0}" -ge 34 ]; }; } &&
	new_fio=1
echo 1 > "$IOT/$tsrc/enable"
echo 1 > "$IOT/$tsrc/clear"
read -r -a s0 < "/sys/block/$tsrc/stat"
# writes in the first half, trims in the second: a trim drops the cached
# pages of its range, and fio 3.33 replays the writes through the cache
fio --filename=/dev/"$tsrc" --direct=1 --size=128m --bsrange=4k-64k \
	--number_ios=300 --output="$out/trim.out" \
	--name=write --ioengine=libaio --iodepth=4 --rw=randwrite \
	--name=trim --stonewall --offset=128m --ioengine=psync --rw=randtrim ||
	die "fio failed: $(tail -n 5 "$out/trim.out")"
sdelta=$(stat_delta "$tsrc" "${s0[@]}")
echo 0 > "$IOT/$tsrc/enable"
cat "$IOT/$tsrc/ring" > "$out/trim.ring"

"$IOTRACECTL" export -f csv --disk "$tsrc" "$out/trim.ring" > "$out/trim.csv" ||
	die "export -f csv failed"
nrec=$(($(wc -l < "$out/trim.csv") - 1))
read -r nw wsec nt <<< "$(awk -F, '$7 == "write" { w++; b += $10 }
	$7 == "discard" { t++ } END { print w + 0, b / 512, t + 0 }' "$out/trim.csv")"
log "trim run: stat delta reads writes sectors-written discards: $sdelta; records: $nrec, $nw writes of $wsec sectors, $nt discards"
ktap_check "iotrace holds the write and trim run, per op as the stat delta ($nw writes, $nt trims)" \
	test "$sdelta" = "0 $nw $wsec $nt" -a "$nrec" -eq $((nw + nt)) \
	-a "$nw" -ge 300 -a "$nt" -ge 300

"$IOTRACECTL" export -f fio --disk "$tsrc" -o "$out/trim.iolog" "$out/trim.ring" \
	2> "$out/trim.err"
sed 's/^/# /' "$out/trim.err"
grep -F "export: $nt trims" "$out/trim.err" |
	grep -F 'fio 3.34 and newer replay them; 3.33 and older do not ("bad ddir: 2")' |
	grep -qF 'export -f blktrace --disk DISK -o PREFIX FILE'
ktap_check "export -f fio says which fio replays its $nt trims, and the route for the others" \
	test $? -eq 0

# the installed fio does with the iolog's trims what the export says
read -r -a t0 < "/sys/block/$ttgt/stat"
fio --name=replay --read_iolog="$out/trim.iolog" --replay_redirect=/dev/"$ttgt" \
	--ioengine=psync --direct=1 --output=/dev/null 2> "$out/iolog.err"
rc=$?
idelta=$(stat_delta "$ttgt" "${t0[@]}")
read -r _ iw _ it <<< "$idelta"
nbad=$(grep -c 'bad ddir: 2' "$out/iolog.err")
log "fio $fver replays the iolog: exit $rc, target's stat delta reads writes sectors-written discards: $idelta; 'bad ddir: 2' $nbad times"
if [ $new_fio = 1 ]; then
	ktap_check "fio $fver replays the iolog's trims as the export says ($it of $nt)" \
		test $rc -eq 0 -a "$it" = "$nt" -a "$iw" = "$nw" -a "$nbad" = 0
else
	ktap_check "fio $fver drops the iolog's trims as the export says ($it of $nt, 'bad ddir: 2' $nbad times)" \
		test $rc -eq 0 -a "$it" = 0 -a "$iw" = "$nw" -a "$nbad" = "$nt"
fi

mkdir -p "$out/bt"
"$IOTRACECTL" export -f blktrace --disk "$tsrc" -o "$out/bt/trim" "$out/trim.ring" \
	2> "$out/bt.err" &&
	blkparse -q -i "$out/bt/trim" -d "$out/trim.bin" -O > /dev/null 2>> "$out/bt.err"
rc=$?
sed 's/^/# /' "$out/bt.err"
nq=$(blkparse -q -i "$out/bt/trim" 2> /dev/null |
	awk '$6 == "Q" && $7 ~ /D/ { t++ } $6 == "Q" && $7 ~ /W/ { w++ }
	     END { print w + 0, t + 0 }')
log "blktrace export: Q events of writes, of discards: $nq"
ktap_check "export -f blktrace, merged by blkparse -d -O" \
	test $rc -eq 0 -a -s "$out/trim.bin"

read -r -a t0 < "/sys/block/$ttgt/stat"
fio --name=replay --read_iolog="$out/trim.bin" --replay_redirect=/dev/"$ttgt" \
	--ioengine=psync --direct=1 --output-format=json \
	--output="$out/trim.json" 2> "$out/trim.fioerr"
rc=$?
tdelta=$(stat_delta "$ttgt" "${t0[@]}")
udevadm control --start-exec-queue 2> /dev/null
sort "$out/trim.fioerr" | uniq -c | head -n 5 | sed 's/^/# fio: /'
[ $rc -eq 0 ] || tail -n 5 "$out/trim.json" | sed 's/^/# fio: /'
ktap_check "fio $fver replays the blktrace export onto /dev/$ttgt" test $rc -eq 0
log "replay target's stat delta reads writes sectors-written discards: $tdelta"
read -r tr tw tsec tt <<< "$tdelta"
ktap_check "the target's discards completed ($tt) = the trims recorded ($nt)" \
	test "$tt" = "$nt"
ktap_check "the target's sectors written ($tsec) = the writes' recorded ($wsec)" \
	test "$tsec" = "$wsec"
if [ $new_fio = 1 ]; then
	ktap_check "the target's writes completed ($tw) = the writes recorded ($nw), no read ($tr)" \
		test "$tw" = "$nw" -a "$tr" = 0
else
	ktap_skip "the target's writes completed ($tw) = the writes recorded ($nw): fio $fver opens a job with trims without O_DIRECT (fio 3.34 does)"
fi
got=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["write"]["total_ios"], j["trim"]["total_ios"])' "$out/trim.json" 2> /dev/null)
log "fio's report of the replay: writes, trims: ${got:-none}"
ktap_check "fio replayed $nw writes and $nt trims (its JSON report)" \
	test "$got" = "$nw $nt"
unload_iotrace
ktap_check "no kernel warnings" no_kernel_splat
rm -rf "$out"
ktap_finish
