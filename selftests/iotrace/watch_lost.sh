#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# watch_lost: events the module sent that a listener's socket dropped
# (its receive buffer full: ENOBUFS) are made up for, not silently lost.
#
# Three null_blk disks whose every completion takes 2 ms: nblflood,
# nbllost, nblback, all watched with ring-size = 1M and trigger =
# read-lat=500us rate=0.  The watcher and an "iotracectl events" are
# stopped (SIGSTOP); nblflood's reads send trigger events until the
# kernel counts drops on their sockets (/proc/net/netlink, the oracle of
# the overflow; rmem_max is set low for the test); then one read on nbllost (its trigger event dropped:
# the module's LIST counts it sent) and nblback removed and created again
# (its "added" event dropped: the new disk is disabled, with the default
# ring and no triggers: the module loads with disks=none).  After SIGCONT:
# the watcher says the events were lost, makes nblback ready again
# (state: enabled, ring 1M, read threshold 500 us) and saves a snapshot
# of nbllost with the reason events-lost; "iotracectl events" says the
# loss and goes on (it prints a later removal).  Before, both said "Out
# of memory" and "events" exited; the watcher left nblback disarmed and
# took no snapshot of nbllost.
#
# Before the overflow, nbllost sent three events the watcher received;
# then its triggers were set again from outside the watcher ("iotracectl
# trigger": the module's count starts again) and it sent one more.  The
# watcher follows the count each event carries (genl version 6): after
# the overflow it says "2 kernel trigger events sent, 1 received".  When
# it counted the events it received (4, above the module's 2), it saw no
# loss on nbllost and took no snapshot.
#
# nblstale: an event sent before the watcher set its own triggers and
# received after.  While the watcher is stopped, nblstale is removed and
# created again, and given triggers from outside the watcher, enabled,
# fires once (its event waits in the watcher's socket, behind the "added"
# one) and is disabled.  After SIGCONT the watcher makes the disk ready
# (its triggers set: the module's count starts again), then reads that
# event.  Then an overflow drops the one event of the watcher's
# triggers: the watcher must take a snapshot, reason events-lost.  When
# it took the old event's count (1) as the count of its own triggers'
# events (genl version 6), it saw 1 sent and 1 received and took none;
# the events' TRIG_EPOCH (version 7) tells the old event from its own.
# VM-CHECK: newest
# VM-TIMEOUT: 300
# VM-SMP: 1
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd dd python3
ktap_header 12
out=$(mktemp -d)
"$IOTRACECTL" --help | grep -q '^  trigger ' ||
	skip "this iotracectl has no trigger command"
[ -r /proc/net/netlink ] || skip "no /proc/net/netlink"
# no blkid reads of the disks (they would fire the triggers too)
udevadm control --stop-exec-queue 2> /dev/null
load_iotrace disks=none buf_size=256K
# small socket buffers (the listeners ask for 1 MiB, the kernel gives
# twice rmem_max at most), so that a few hundred events overflow them
rmem=$(cat /proc/sys/net/core/rmem_max)
echo 32768 > /proc/sys/net/core/rmem_max || die "cannot set rmem_max"

# mk NAME - create the configfs null_blk NAME (2 ms completions); the
# disk must come up under that name (null_blk names configfs disks after
# their directory; 5.10 does not: skipped).  rm_nb NAME - remove it.  The
# library's helpers: no udev settle while udev's queue is stopped.
mk() {
	local disk

	disk=$(nullb_create "$1" size=64 irqmode=2 completion_nsec=2000000) ||
		die "cannot create $1"
	[ "$disk" = "$1" ] ||
		skip "null_blk names its configfs disks nullb<index> here"
}
rm_nb() {
	nullb_destroy "$1"
}
# st DISK KEY - a value of iotracectl state
st() {
	"$IOTRACECTL" state "$1" | sed -n "s/^$2: //p"
}
# drops - the drops the kernel counted on all netlink sockets
drops() {
	awk 'NR > 1 { d += $9 } END { print d + 0 }' /proc/net/netlink
}
# wait_log FILE PATTERN [N] - wait until N lines of FILE match (30 s)
wait_log() {
	local end=$((SECONDS + 30))
	until [ "$(grep -c -- "$2" "$1")" -ge "${3:-1}" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	kill -CONT "$wpid" "$epid" 2> /dev/null
	kill -TERM "$wpid" "$epid" 2> /dev/null
	wait "$wpid" "$epid" 2> /dev/null
	for d in nblflood nbllost nblback nblstale; do
		[ -d "/sys/kernel/config/nullb/$d" ] && rm_nb "$d"
	done
	unload_iotrace
	udevadm control --start-exec-queue 2> /dev/null
	echo "$rmem" > /proc/sys/net/core/rmem_max
}
trap cleanup EXIT	# also after a die while the listeners are stopped

for d in nblflood nbllost nblback nblstale; do
	mk $d
done
{
	echo 'post = 0.5'
	for d in nblflood nbllost nblback nblstale; do
		printf '[disk %s]\nring-size = 1M\ntrigger = read-lat=500us rate=0\n' $d
	done
} > "$out/conf"
IOTRACE_RUN_DIR=$out/run "$IOTRACECTL" watch --config "$out/conf" \
	--dir "$out/snap" 2> "$out/log" &
wpid=$!
"$IOTRACECTL" events > "$out/events" 2> "$out/events.err" &
epid=$!
wait_log "$out/log" 'ready:' || die "the watcher did not start: $(cat "$out/log")"
wait_log "$out/events.err" 'listening' || die "events did not start: $(cat "$out/events.err")"
ktap_check "at the start nblback is enabled, ring 1M, read-lat 500us" \
	test "$(st nblback enabled)" = 1 -a "$(st nblback buf_size)" = 1048576 -a \
	"$(st nblback trigger_read_lat_ns)" = 500000

# nbllost: three events received, its triggers set again from outside
# the watcher (the module's count starts again), one more event received
for i in 1 2 3; do
	dd if=/dev/nbllost of=/dev/null bs=4k skip=$i count=1 iflag=direct \
		2> /dev/null
done
wait_log "$out/log" 'event 3 of nbllost' ||
	log "the watcher did not say nbllost's third event"
"$IOTRACECTL" trigger nbllost read-lat=500us rate=0 ||
	die "cannot set nbllost's triggers"
dd if=/dev/nbllost of=/dev/null bs=4k skip=4 count=1 iflag=direct 2> /dev/null
# the second "event 1": the first was before the new triggers
wait_log "$out/log" 'event 1 of nbllost' 2 ||
	log "the watcher did not say nbllost's event after the new triggers"

# flood - the drops so far in d0; 8 readers of 60 reads of nblflood
# (their pids in rd): 480 trigger events, beyond the sockets' 64 KiB;
# wait (60 s at most) until the kernel counts drops
flood() {
	local end=$((SECONDS + 60)) i

	d0=$(drops)
	rd=()
	for i in 0 1 2 3 4 5 6 7; do
		dd if=/dev/nblflood of=/dev/null bs=4k skip=$((i * 60)) \
			count=60 iflag=direct 2> /dev/null &
		rd+=($!)
	done
	until [ "$(drops)" -gt "$d0" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

kill -STOP "$wpid" "$epid"
flood || log "no drops counted"
log "drops on the netlink sockets: $d0 -> $(drops); nblflood: $(st nblflood trigger_events) trigger events"
ktap_check "the listeners' sockets overflowed (drops counted)" \
	test "$(drops)" -gt "$d0"
dd if=/dev/nbllost of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
end=$((SECONDS + 10))	# the event is sent from a work item
until [ "$(st nbllost trigger_events)" = 2 ] || [ $SECONDS -ge $end ]; do
	sleep 0.1
done
ktap_check "nbllost's trigger event was sent (the module counts $(st nbllost trigger_events) since its triggers were set)" \
	test "$(st nbllost trigger_events)" = 2
rm_nb nblback
mk nblback
log "nblback again: enabled $(st nblback enabled), ring $(st nblback buf_size)"
wait "${rd[@]}"	# the flood's readers (not the stopped listeners)
d1=$(drops)
kill -CONT "$wpid" "$epid"

wait_log "$out/log" 'events from the module were lost' ||
	log "the watcher did not say events were lost"
end=$((SECONDS + 30))
until [ "$(st nblback enabled)" = 1 ] || [ $SECONDS -ge $end ]; do
	sleep 0.2
done
ktap_check "nblback, whose added event was lost, is ready again ($(st nblback enabled), $(st nblback buf_size), $(st nblback trigger_read_lat_ns))" \
	test "$(st nblback enabled)" = 1 -a "$(st nblback buf_size)" = 1048576 -a \
	"$(st nblback trigger_read_lat_ns)" = 500000

# a snapshot of nbllost, reason events-lost
snap_of() {
	local f

	# any file: disks triggered together share one (A+B in its name)
	for f in "$out/snap"/iotrace-*.iot; do
		[ -e "$f" ] || continue
		"$IOTRACECTL" info -o json "$f" 2> /dev/null |
			python3 -c 'import json, sys
t = json.load(sys.stdin)["triggers"]
sys.exit(0 if any(x["disk"] == sys.argv[1] and
                  x["reason"] == "events-lost" for x in t) else 1)' "$1" &&
			return 0
	done
	return 1
}
end=$((SECONDS + 30))
until snap_of nbllost || [ $SECONDS -ge $end ]; do
	sleep 0.5
done
ktap_check "a snapshot of nbllost, reason events-lost" snap_of nbllost
ktap_check "the watcher counted nbllost's events as the module does (2 sent, 1 received)" \
	grep -q 'nbllost: 2 kernel trigger events sent, 1 received' "$out/log"

ktap_check "events is still running after the overflow" kill -0 "$epid"
ktap_check "events said the loss" grep -q 'events lost' "$out/events.err"
rm_nb nbllost
wait_log "$out/events" '^removed nbllost' ||
	log "events printed no removal of nbllost"
ktap_check "events prints a later event (nbllost removed)" \
	grep -q '^removed nbllost' "$out/events"
log "drops after SIGCONT: $d1 -> $(drops)"

# nblstale: an old event received after the watcher's own triggers
kill -STOP "$wpid"
rm_nb nblstale
mk nblstale
"$IOTRACECTL" trigger nblstale read-lat=500us rate=0 ||
	die "cannot set nblstale's triggers"
"$IOTRACECTL" enable nblstale || die "cannot enable nblstale"
dd if=/dev/nblstale of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
wait_st() {
	local end=$((SECONDS + 10))

	until [ "$(st "$1" "$2")" = "$3" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}
wait_st nblstale trigger_events 1 ||
	log "nblstale's event of the outside triggers was not sent"
"$IOTRACECTL" disable nblstale || die "cannot disable nblstale"
kill -CONT "$wpid"
wait_log "$out/log" 'nblstale came back' ||
	log "the watcher did not say nblstale came back"
wait_log "$out/log" 'event 1 of nblstale' ||
	log "the watcher did not say nblstale's old event"
wait_st nblstale enabled 1 || log "the watcher did not enable nblstale"
log "nblstale: enabled $(st nblstale enabled), trigger events $(st nblstale trigger_events)"
ktap_check "nblstale: the watcher's triggers set after its old event was sent (the module counts $(st nblstale trigger_events))" \
	test "$(st nblstale trigger_events)" = 0 -a \
	"$(st nblstale trigger_read_lat_ns)" = 500000
# the old event's snapshot saved: the made-up trigger must not join it
wait_log "$out/log" 'snapshot [0-9]*: .*[-+]nblstale[-+]' ||
	log "the watcher saved no snapshot of nblstale's old event"
kill -STOP "$wpid"
flood || log "no drops counted"
wait "${rd[@]}"
dd if=/dev/nblstale of=/dev/null bs=4k skip=1 count=1 iflag=direct \
	2> /dev/null
wait_st nblstale trigger_events 1 ||
	log "nblstale's event of the watcher's triggers was not sent"
log "drops: $d0 -> $(drops); nblstale: $(st nblstale trigger_events) trigger events"
kill -CONT "$wpid"
end=$((SECONDS + 30))
until snap_of nblstale || [ $SECONDS -ge $end ]; do
	sleep 0.5
done
ktap_check "the watcher counted nblstale's events of its own triggers (1 sent, 0 received)" \
	grep -q 'nblstale: 1 kernel trigger events sent, 0 received' "$out/log"
ktap_check "a snapshot of nblstale, reason events-lost" snap_of nblstale
kill -TERM "$wpid" "$epid"
wait "$wpid"
grep -v 'joined' "$out/log" | sed 's/^/# watch: /'
sed 's/^/# events: /' "$out/events.err"
tail -n 3 "$out/events" | sed 's/^/# events: /'
ktap_finish
