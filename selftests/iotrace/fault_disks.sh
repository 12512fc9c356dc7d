#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fault_disks: disks coming and going under load.
#
# churn: FAULT_DISK_LOOPS (default 6, 2 on a debug kernel; make soak: 50) null_blk disks are
# created and deleted (configfs) while fio runs on nullb0 and a reader
# validates nullb0's ring.  Each new disk must get a ring, enabled, that
# counts a known dd exactly against /sys/block/<disk>/stat; a reader maps
# its ring, and the disk is deleted while mapped (every other one while dd
# is still reading it): the debugfs directory goes, the mapping stays valid,
# marked DETACHED, intact, and, for a disk deleted idle, holds exactly the
# count last seen in stats.  Afterwards nullb0's ring accounts for every
# request of the /sys/block stat delta: completed = present + overwritten +
# dropped + filtered.
#
# record: a disk removed while "iotracectl record" streams from it (and a
# reader maps its ring).  Removed idle after a fio run of known size: record
# ends by itself with a message, exits 0, and the file's trailer holds
# exactly fio's own count and the /sys/block stat delta.  Removed under fio:
# record ends by itself, the file is complete and readable (stats, show),
# its accounting is consistent and covers at least the requests the kernel
# had completed just before the removal.
# VM-CHECK: all
# (make check-all only: a soak of its kind; lifetime, in the core set,
#   removes traced, mapped disks and unloads the module under a mapping
#   on every kernel in make check)
# VM-TIMEOUT: 1200
# VM-SMP: 2
# Each new disk's enable (and each deletion's disable) can (un)register the
# probes, patching the block layer's tracepoint sites while fio runs on the
# other vCPU: multi-threaded TCG now and then runs such a site half-patched
# ("Oops: int3" in blk_mq_start_request on 7.3, CI of session 7), so the
# vCPUs take turns.
# VM-ACCEL: single
. "$IOTRACE_SRC/selftests/iotrace/fault_lib.sh"

require_cmd fio python3
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
loops=${FAULT_DISK_LOOPS:-$(kdebug_or 6 2)}
ktap_header
out=$(mktemp -d)
nullb_mod nr_devices=1 submit_queues=2 irqmode=1 gb=1
quiet_disk nullb0
load_iotrace buf_size=64K
wait_for "$IOT/nullb0/ring" 10 || die "no ring for nullb0"
echo 1 > "$IOT/nullb0/clear"
b0=$(blk_ios nullb0)
"$RINGCHECK" watch "$IOT/nullb0/ring" "$out/stop" > "$out/watch" &
watcher=$!
fault_fio steady nullb0 0

# ---- churn ---------------------------------------------------------------
created=0 exact=0 gone=0 held=0 final=0
for i in $(seq "$loops"); do
	d=$(nullb_create fd$i size=64 submit_queues=2 irqmode=1)
	if ! wait_for "$IOT/$d/ring" 10 || [ "$(iot_stat "$d" enabled)" != 1 ]; then
		log "loop $i: $d has no enabled ring"
		nullb_destroy fd$i
		continue
	fi
	created=$((created + 1))
	c0=$(iot_stat "$d" completed)
	s0=$(blk_ios "$d")
	dd if=/dev/"$d" of=/dev/null bs=4k count=64 iflag=direct 2> /dev/null
	c1=$(iot_stat "$d" completed)
	s1=$(blk_ios "$d")
	if [ $((c1 - c0)) -eq $((s1 - s0)) ] && [ $((s1 - s0)) -ge 64 ]; then
		exact=$((exact + 1))
	else
		log "loop $i: $d counted $((c1 - c0)), /sys/block stat $((s1 - s0))"
	fi
	"$RINGCHECK" hold "$IOT/$d/ring" "$out/go.$i" > "$out/hold.$i" &
	holder=$!
	fault_wait_line "$out/hold.$i" '^mapped: 1' 30 ||
		log "loop $i: reader did not map the ring"
	ddp=
	if [ $((i % 2)) = 1 ]; then
		dd if=/dev/"$d" of=/dev/null bs=4k count=1000000 iflag=direct \
			2> /dev/null &
		ddp=$!
		sleep 0.2
	else
		last=$(iot_stat "$d" completed)
	fi
	nullb_destroy fd$i
	[ -n "$ddp" ] && wait "$ddp"
	if [ -e "$IOT/$d" ]; then
		log "loop $i: $IOT/$d still there after the deletion"
	else
		gone=$((gone + 1))
	fi
	touch "$out/go.$i"
	if wait "$holder" && grep -q '^detached: 1' "$out/hold.$i"; then
		held=$((held + 1))
	else
		sed "s/^/# loop $i: reader: /" "$out/hold.$i"
	fi
	if [ -z "$ddp" ]; then
		if [ "$(kv "$out/hold.$i" completed)" = "$last" ]; then
			final=$((final + 1))
		else
			log "loop $i: detached ring holds $(kv "$out/hold.$i" completed), stats said $last"
		fi
	fi
done
fault_fio_stop
b1=$(blk_ios nullb0)
touch "$out/stop"
wait $watcher
wrc=$?
echo 0 > "$IOT/nullb0/enable"
ktap_check "$loops disks created, each with an enabled ring ($created)" \
	test "$created" -eq "$loops"
ktap_check "each counted a dd exactly against /sys/block stat ($exact)" \
	test "$exact" -eq "$loops"
ktap_check "each debugfs directory went with its disk ($gone)" \
	test "$gone" -eq "$loops"
ktap_check "each mapping outlived its disk: intact, DETACHED ($held)" \
	test "$held" -eq "$loops"
ktap_check "each disk deleted idle left its exact count in the mapping ($final)" \
	test "$final" -eq $((loops / 2))
ktap_check "module lists nullb0 only" test "$(iot_status disks)" = 1
fault_steady_checks "$wrc" "$b0" "$b1"

# ---- record --------------------------------------------------------------
# record_start DISK TAG - start iotracectl record (and wait for its file).
record_start() {
	"$IOTRACECTL" record "$1" -o "$out/$2.trace" 2> "$out/$2.err" &
	rpid=$!
	local tries=100
	while [ ! -s "$out/$2.trace" ] && [ $tries -gt 0 ]; do
		tries=$((tries - 1))
		sleep 0.1
	done
}

# record_end TAG - wait (60 s at most) for record to end by itself.
record_end() {
	local tries=600
	while kill -0 "$rpid" 2> /dev/null && [ $tries -gt 0 ]; do
		tries=$((tries - 1))
		sleep 0.1
	done
	if kill -0 "$rpid" 2> /dev/null; then
		kill -INT "$rpid"
		wait "$rpid"
		log "$1: record did not end by itself"
		return 1
	fi
	wait "$rpid"
}

# loss TAG KEY - a value of the trace file's "loss" counts (stats -o json:
# an array of one object per disk),
# decoded once per file (python starts slowly under TCG).
loss() {
	[ -s "$out/$1.loss" ] ||
		python3 -c 'import json, sys
for k, v in json.load(open(sys.argv[1]))[0]["loss"].items():
    print("%s: %s" % (k, v))' "$out/$1.json" > "$out/$1.loss"
	kv "$out/$1.loss" "$2"
}

fault_fio steady nullb0 0
# removed idle, after a fio run of known size
d=$(nullb_create rec1 size=256 submit_queues=2 irqmode=1)
wait_for "$IOT/$d/ring" 10 || die "no ring for $d"
"$RINGCHECK" hold "$IOT/$d/ring" "$out/go.rec1" > "$out/hold.rec1" &
holder=$!
fault_wait_line "$out/hold.rec1" '^mapped: 1' 30
echo 1 > "$IOT/$d/clear"	# udev's probing of the new disk is not fio's
s0=$(blk_ios "$d")
record_start "$d" rec1
fio --name=rec1 --filename=/dev/"$d" --direct=1 --ioengine=libaio \
    --iodepth=8 --rw=randrw --bs=4k --size=128m --io_size=12000k \
    --cpus_allowed=1 --allow_file_create=0 \
    --output-format=json --output="$out/fio.rec1"
s1=$(blk_ios "$d")
nullb_destroy rec1
record_end rec1
rc=$?
sed 's/^/# record: /' "$out/rec1.err"
ktap_check "record ended by itself when its disk went, exit 0" test $rc -eq 0
ktap_check "and said why" grep -q 'detached' "$out/rec1.err"
"$IOTRACECTL" stats -o json "$out/rec1.trace" > "$out/rec1.json"
ktap_check "the trace file is complete and readable (stats)" test $? -eq 0
fio1=$(fault_fio_ios rec1)
loss rec1 completed > /dev/null
log "fio $fio1, /sys/block stat delta $((s1 - s0)), trailer completed $(loss rec1 completed)"
ktap_check "trailer completed = /sys/block stat delta" \
	test "$(loss rec1 completed)" -eq $((s1 - s0))
ktap_check "trailer completed = fio's own count" \
	test "$(loss rec1 completed)" -eq "$fio1"
ktap_check "written + lost = recorded, recorded + dropped = completed" \
	test $(($(loss rec1 written) + $(loss rec1 lost))) -eq "$(loss rec1 recorded)" -a \
	$(($(loss rec1 recorded) + $(loss rec1 dropped))) -eq "$(loss rec1 completed)"
touch "$out/go.rec1"
wait $holder
ktap_check "the reader's mapping stayed intact and DETACHED" \
	grep -q '^detached: 1' "$out/hold.rec1"

# removed under fio
d=$(nullb_create rec2 size=256 submit_queues=2 irqmode=1)
wait_for "$IOT/$d/ring" 10 || die "no ring for $d"
echo 1 > "$IOT/$d/clear"
s0=$(blk_ios "$d")
record_start "$d" rec2
fio --name=rec2 --filename=/dev/"$d" --direct=1 --ioengine=libaio \
    --iodepth=8 --rw=randrw --bs=4k --size=128m --time_based \
    --runtime=100000 --cpus_allowed=1 --allow_file_create=0 \
    --output=/dev/null &
fiop=$!
sleep 3
s1=$(blk_ios "$d")
nullb_destroy rec2
wait $fiop
log "fio exited with $? after the removal"
record_end rec2
rc=$?
sed 's/^/# record: /' "$out/rec2.err"
ktap_check "under fio: record ended by itself, exit 0" test $rc -eq 0
"$IOTRACECTL" stats -o json "$out/rec2.trace" > "$out/rec2.json"
ktap_check "the trace file is complete and readable (stats)" test $? -eq 0
"$IOTRACECTL" show -o csv "$out/rec2.trace" > "$out/rec2.csv"
ktap_check "and show reads all of it ($(($(wc -l < "$out/rec2.csv") - 1)) rows)" \
	test $? -eq 0 -a $(($(wc -l < "$out/rec2.csv") - 1)) -eq "$(loss rec2 written)"
log "stat before the removal $((s1 - s0)), trailer completed $(loss rec2 completed)"
ktap_check "trailer covers what the kernel completed before the removal" \
	test "$(loss rec2 completed)" -ge $((s1 - s0))
ktap_check "written + lost = recorded, recorded + dropped = completed" \
	test $(($(loss rec2 written) + $(loss rec2 lost))) -eq "$(loss rec2 recorded)" -a \
	$(($(loss rec2 recorded) + $(loss rec2 dropped))) -eq "$(loss rec2 completed)"
fault_fio_stop

unload_iotrace
ktap_check "module unloads" test ! -e /sys/module/iotrace
ktap_check "no oops, WARN, BUG or corruption report in the kernel log" fault_splat
rm -rf "$out"
ktap_finish
