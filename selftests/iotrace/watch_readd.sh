#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# watch_readd: a watched disk removed and added again while "iotracectl
# watch" runs is made ready again (issue 21).
#
# The module is loaded with disks=none: a disk it attaches is not traced
# and has no triggers until someone says so.  A null_blk whose every
# completion takes 2 ms (a timer: never sooner) is watched with
# ring-size = 1M and trigger = read-lat=500us rate=0; it is removed
# (configfs power off, rmdir) and created again under the same name.
# Oracles, from the module (iotracectl state and list, not the watcher's
# word): the new disk is enabled, its ring 1 MiB, its read threshold
# 500 us; then reads on it (a dd that starts as soon as the disk's node
# is back) fire the kernel trigger and the watcher saves a snapshot of
# it, reason latency, whose every read is flagged IOTRACE_RF_TRIGGER.
# Without the watcher's re-enable the new disk is disabled, with the
# module's default ring and no triggers; with its enable before its
# triggers, reads were recorded unflagged in between.
#
# A second section, [disk by-id=nblate] (ring-size = 2M, read-lat=700us),
# names a /dev/disk/by-id link (IOTRACE_BY_ID) that does not exist when
# the watcher starts: the watcher says it is not present and starts; the
# null_blk nblate is created later, and its link made once the module
# has attached it (as udev makes it, after the module's "added" event):
# it is made ready (enabled, 2 MiB ring, its threshold, per the module).
# Then it is swapped: removed, its link with it, created again, the link
# made after the event: made ready again (enabled, 2 MiB ring).  Before,
# the watcher exited 1 at the start; and it looked for a by-id= disk
# that came back only at its "added" event, before the link.
# VM-CHECK: newest
# VM-TIMEOUT: 300
# VM-SMP: 1
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd dd python3
ktap_header 13
out=$(mktemp -d)
"$IOTRACECTL" --help | grep -q '^  trigger ' ||
	skip "this iotracectl has no trigger command"
# no blkid reads of the disk (they would fire the trigger too)
udevadm control --stop-exec-queue 2> /dev/null
load_iotrace disks=none buf_size=256K

# mk - create the configfs null_blk nbwatch (2 ms completions, a timer),
# print its disk name; rm_nb - remove it (the library's helpers: no udev
# settle while udev's queue is stopped)
mk() {
	nullb_create nbwatch size=64 irqmode=2 completion_nsec=2000000
}
rm_nb() {
	nullb_destroy nbwatch
}
disk=$(mk) || die "cannot create nbwatch"

# rd_bg - read the disk from the moment its node is back (before the
# watcher is told, as a busy disk would be): 8 readers of 50 reads of
# 2 ms each, a completion every 0.25 ms or so
rd_bg() {
	local end=$((SECONDS + 20)) i

	until [ -b /dev/"$disk" ]; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.05
	done
	for i in 0 1 2 3 4 5 6 7; do
		dd if=/dev/"$disk" of=/dev/null bs=4k skip=$((i * 50)) \
			count=50 iflag=direct 2> /dev/null &
	done
	wait
}

# st KEY - a value of iotracectl state for the disk
st() {
	"$IOTRACECTL" state "$disk" | sed -n "s/^$1: //p"
}

# wait_log PATTERN [N] - wait until N lines (default 1) of the watcher's
# log match (30 s)
wait_log() {
	local end=$((SECONDS + 30))
	until [ "$(grep -c -- "$1" "$out/log")" -ge "${2:-1}" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

printf 'post = 0.5\n[disk %s]\nring-size = 1M\ntrigger = read-lat=500us rate=0\n' \
	"$disk" > "$out/conf"
printf '[disk by-id=nblate]\nring-size = 2M\ntrigger = read-lat=700us rate=0\n' \
	>> "$out/conf"
mkdir "$out/byid"
IOTRACE_BY_ID=$out/byid IOTRACE_RUN_DIR=$out/run "$IOTRACECTL" watch \
	--config "$out/conf" --dir "$out/snap" 2> "$out/log" &
wpid=$!
wait_log 'ready:' || die "the watcher did not start: $(cat "$out/log")"
ktap_check "a by-id= disk absent at the start is said, and the watcher starts" \
	grep -q 'by-id=nblate (.*conf:5): .*: not present; watched for' "$out/log"
ktap_check "at the start: enabled, ring 1M, read-lat 500us ($(st enabled), $(st buf_size), $(st trigger_read_lat_ns))" \
	test "$(st enabled)" = 1 -a "$(st buf_size)" = 1048576 -a \
	"$(st trigger_read_lat_ns)" = 500000

rm_nb
wait_log "disk $disk removed" || log "no removal said"
rd_bg &
rdpid=$!
disk2=$(mk) || die "cannot create nbwatch again"
log "created again: $disk2"
# null_blk names configfs disks after the directory, or (5.10)
# nullb<index>, which a new device may not get again
if [ "$disk2" != "$disk" ]; then
	kill -TERM "$wpid"
	wait "$wpid"
	wait "$rdpid"
	skip "the disk came back as $disk2, not $disk (null_blk's nullb<index> names)"
fi
wait_log "watching $disk again" || log "the watcher did not say it watches $disk again"
ktap_check "the disk that came back is enabled ($(st enabled))" \
	test "$(st enabled)" = 1
ktap_check "its ring is 1M again ($(st buf_size))" test "$(st buf_size)" = 1048576
ktap_check "its read threshold is 500us again ($(st trigger_read_lat_ns))" \
	test "$(st trigger_read_lat_ns)" = 500000
"$IOTRACECTL" list -o csv > "$out/list.csv"
sed 's/^/# list: /' "$out/list.csv"
# the columns: disk, the counters, triggers, head (none: not a path)
ktap_check "list shows its triggers: read-lat=500us rate=0" \
	grep -q "^$disk,.*,read-lat=500us rate=0,\$" "$out/list.csv"

# the disk of [disk by-id=nblate] appears
late=$(nullb_create nblate size=64) || die "cannot create nblate"
if [ "$late" = nblate ]; then
	wait_log 'disk nblate added' || log "the watcher was not told of nblate"
	ln -s /dev/nblate "$out/byid/nblate"
	wait_log 'by-id=nblate (.*) is present: nblate' ||
		log "the watcher did not say nblate is present"
	wait_log 'watching nblate (by-id=nblate' ||
		log "the watcher did not make nblate ready"
	late_st() {
		"$IOTRACECTL" state nblate | sed -n "s/^$1: //p"
	}
	ktap_check "the by-id= disk created later is enabled ($(late_st enabled))" \
		test "$(late_st enabled)" = 1
	ktap_check "its ring is its section's 2M ($(late_st buf_size))" \
		test "$(late_st buf_size)" = 2097152
	ktap_check "its read threshold is its section's 700us ($(late_st trigger_read_lat_ns))" \
		test "$(late_st trigger_read_lat_ns)" = 700000
	# swapped: the disk and its link go, the new one's link comes after
	# the module's event
	nullb_destroy nblate
	rm -f "$out/byid/nblate"
	wait_log 'by-id=nblate (.*) was nblate: watched for' ||
		log "the watcher did not say nblate went"
	nullb_create nblate size=64 > /dev/null || die "cannot create nblate again"
	wait_log 'disk nblate added' 2 || log "the watcher was not told of nblate again"
	ln -s /dev/nblate "$out/byid/nblate"
	wait_log 'by-id=nblate (.*) is present: nblate' 2 ||
		log "the watcher did not find nblate again"
	wait_log 'watching nblate (by-id=nblate' 2 ||
		log "the watcher did not make nblate ready again"
	ktap_check "swapped, the by-id= disk is enabled again ($(late_st enabled))" \
		test "$(late_st enabled)" = 1
	ktap_check "with its section's 2M ring again ($(late_st buf_size))" \
		test "$(late_st buf_size)" = 2097152
else
	ktap_skip "the by-id= disk created later: null_blk named it $late, not nblate"
	ktap_skip "its ring"
	ktap_skip "its read threshold"
	ktap_skip "swapped, enabled again"
	ktap_skip "swapped, its ring again"
fi

end=$((SECONDS + 30))
until ls "$out/snap"/iotrace-*.iot > /dev/null 2>&1 || [ $SECONDS -ge $end ]; do
	sleep 0.2
done
sleep 2	# the snapshot's post, and its rename
kill -TERM "$wpid"
wait "$wpid"
wait "$rdpid"
sed 's/^/# watch: /' "$out/log"
for f in "$out/snap"/iotrace-*.iot; do	# the first (names sort by time)
	break
done
"$IOTRACECTL" info -o json "$f" > "$out/info.json" 2>&1
n=0
for s in "$out/snap"/iotrace-*.iot; do
	n=$((n + 1))
	"$IOTRACECTL" show -o csv "$s" > "$out/snap$n.csv" 2>&1
	log "snapshot ${s##*/}: $(($(wc -l < "$out/snap$n.csv") - 1)) records"
done
ktap_check "the kernel's trigger made a snapshot of it: reason latency, record named" \
	python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["triggers"][0]
assert t["disk"] == sys.argv[2] and t["reason"] == "latency", t
assert t["seq"] is not None, t' "$out/info.json" "$disk"
# every read the new ring holds was judged by the conditions (the watcher
# gives them before it enables the disk): in all the snapshots (the first
# may hold only the partition scan's read), at least 20 reads, all
# flagged, dd's among them where the kernel names the submitter (6.5 and
# later; pid 0 before).  With enable first, a read completing before the
# triggers were given was recorded unflagged (seen on 7.3, one vCPU).
# A read issued before the enable and completed after has no issue
# (IOTRACE_RF_NO_ISSUE, 0x80), so no latency to judge: at most the 8
# readers' and the partition scan's.  null_blk's timers complete reads
# in the order they were issued (each 2 ms after its issue), so on one
# CPU such reads are recorded before every read issued after the enable:
# a read without an issue after one with is an issue the probe missed.
# (Seen under check-all's load: the scan's read of sector 24 in flight.)
ktap_check "the snapshots hold the new ring's reads, all flagged, dd's among them" \
	python3 -c 'import csv, sys
rows = list({r["seq"]: r for f in sys.argv[1:] for r in csv.DictReader(open(f))
             if r["op"] == "read"}.values())
assert len(rows) >= 20, len(rows)
early = [r for r in rows if int(r["rflags"], 0) & 0x80]
seen = [r for r in rows if not int(r["rflags"], 0) & 0x80]
assert len(early) <= 9, (len(early), early[:3])
last = max([int(r["seq"]) for r in early], default=-1)
assert all(int(r["seq"]) > last for r in seen), ("issue missed", early)
bad = [r for r in seen if not int(r["rflags"], 0) & 0x8000]
assert not bad, (len(bad), len(rows), bad[:3])
named = {r["comm"] for r in rows if r["pid"] != "0"}
assert not named or "dd" in named, named' "$out"/snap*.csv
rm_nb
nullb_destroy nblate
unload_iotrace
udevadm control --start-exec-queue 2> /dev/null
ktap_finish
