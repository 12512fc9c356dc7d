#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# netlink_events: the "events" multicast group of the iotrace family.
#
# hotplug: creating and deleting a null_blk disk (configfs) produces one
# "added" and one "removed" event for it, with the device number that
# /sys/block/<disk>/dev gave while it existed, in that order.
#
# overflow: a small ring that starts to overwrite produces one overflow
# event (not one per record, not one per part); after a clear the next
# overwrite is announced again.
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

ktap_header
out=$(mktemp -d)
nullb_mod nr_devices=1 submit_queues=2 irqmode=1 gb=1
quiet_disk nullb0
load_iotrace disks=all buf_size=64K

# listen DURATION FILE - start an event listener, wait until it listens
listen() {
	rm -f "$2.ready"
	"$IOTRACECTL" events --duration "$1" > "$2" 2> "$2.err" &
	listener=$!
	local tries=100
	until grep -q listening "$2.err" 2> /dev/null; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || { ktap_fail "listener started"; return 1; }
		sleep 0.1
	done
}

# ---- hotplug -------------------------------------------------------
listen 30 "$out/ev1"
nb=$(nullb_create nbev size=64)
dev=$(cat /sys/block/"$nb"/dev)
sleep 1
nullb_destroy nbev
sleep 2
kill "$listener" 2> /dev/null
wait "$listener" 2> /dev/null
sed 's/^/# event: /' "$out/ev1"
grep -v listening "$out/ev1.err" | sed 's/^/# listener: /'
maj=${dev%%:*}
min=${dev#*:}
ktap_check "'added $nb major=$maj minor=$min' event" \
	grep -qx "added $nb major=$maj minor=$min" "$out/ev1"
ktap_check "'removed $nb major=$maj minor=$min' event" \
	grep -qx "removed $nb major=$maj minor=$min" "$out/ev1"
ktap_check "exactly one of each for $nb, added first" \
	test "$(grep " $nb " "$out/ev1" | cut -d' ' -f1 | tr '\n' ' ')" = "added removed "

# ---- overflow ------------------------------------------------------
"$IOTRACECTL" enable nullb0
"$IOTRACECTL" clear nullb0
recs=$("$IOTRACECTL" state nullb0 | sed -n 's/^part_records: //p')
parts=$("$IOTRACECTL" state nullb0 | sed -n 's/^nr_parts: //p')
log "ring: $parts parts of $recs records"
# ABI 2.0: parts are CPUs and part_records the chunk size; the pool holds
# nr_chunks chunks, all of which one CPU may fill
cap=$(($(iot_stat nullb0 nr_chunks) * recs))
log "pool: $cap records"
listen 60 "$out/ev2"
# more than the whole ring, twice, from every CPU
for cpu in $(seq 0 $((parts - 1))); do
	taskset -c "$cpu" dd if=/dev/nullb0 of=/dev/null bs=4k \
		count=$((cap * 2)) iflag=direct 2> /dev/null
done
sleep 2
n1=$(grep -c '^overflow nullb0 ' "$out/ev2")
"$IOTRACECTL" clear nullb0
dd if=/dev/nullb0 of=/dev/null bs=4k count=$((cap * 2)) \
	iflag=direct 2> /dev/null
sleep 2
kill "$listener" 2> /dev/null
wait "$listener" 2> /dev/null
sed 's/^/# event: /' "$out/ev2"
grep -v listening "$out/ev2.err" | sed 's/^/# listener: /'
ktap_check "one overflow event for the first overwrite (got $n1)" test "$n1" -eq 1
ktap_check "one more after the clear" \
	test "$(grep -c '^overflow nullb0 ' "$out/ev2")" -eq 2
ktap_check "the overflow event carries counters (overwritten > 0)" \
	grep -q '^overflow nullb0 .* overwritten=[1-9]' "$out/ev2"

unload_iotrace
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
