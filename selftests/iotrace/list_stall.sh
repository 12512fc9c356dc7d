#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# list_stall: LIST (no privilege needed) must not stall disk hotplug or
# control.  A LIST reply counts the requests in flight in the disk's slot
# table (hardware queues times tags, 30,000 slots per disk here); that
# walk must not hold iotrace_mutex, which disk add and remove (under the
# block layer's class mutex) and every control command wait for.
#
# Twelve enabled null_blk disks of 10,240 tags per hardware queue.  In one
# boot, R rounds of (create and power on a small null_blk disk; power it
# off and remove it; iotracectl disable + enable of another small disk)
# are timed four times: alone; with three "nobody" processes looping
# "iotracectl stats --kernel" over the big disks (GET_METRICS: the same
# walk over every slot, taken without the lock in every version: the
# control for the CPU the loopers take); with three "nobody" processes
# looping "iotracectl list" (LIST); alone again.  udev's queue is stopped
# (no udev work in the times).
#
# Oracle (a ratio within one boot, no absolute time): the rounds beside
# the LIST loopers take at most twice as long as beside the GET_METRICS
# loopers, plus 2 s.  A LIST that walks the slots under the lock makes
# every add, remove and enable wait for the walks queued before it.
# VM-TIMEOUT: 1500
# VM-SMP: 2
# VM-CHECK: alone
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd setpriv
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"

ROUNDS=4
NBIG=12
LOOPERS=3

ktap_header
modprobe null_blk nr_devices=0 || die "modprobe null_blk failed"
udevadm control --stop-exec-queue 2> /dev/null
load_iotrace disks=all buf_size=64K
big=()
for i in $(seq 0 $((NBIG - 1))); do
	big+=("$(nullb_create big$i size=16 submit_queues=2 hw_queue_depth=10240)")
done
tog=$(nullb_create tog size=16)
"$IOTRACECTL" enable "${big[@]}" "$tog" ||
	die "iotracectl enable ${big[*]} $tog failed"
log "${big[0]}: $(iot_stat "${big[0]}" hw_queues) hw queues x $(iot_stat "${big[0]}" tags) tags in the slot table, $NBIG such disks"

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# rounds NAME [LIMIT] - R rounds of add, remove, disable+enable; prints
# the ms they took; stops after the round that passes LIMIT ms
rounds() {
	local k add=0 rm=0 en=0 a b c d
	for k in $(seq 1 $ROUNDS); do
		if [ -n "${2:-}" ] && [ $((add + rm + en)) -gt "$2" ]; then
			log "$1: past $2 ms after $((k - 1)) rounds, stopped" >&2
			break
		fi
		a=$(now_ms)
		nullb_create "p$1$k" size=16 > /dev/null
		b=$(now_ms)
		nullb_destroy "p$1$k"
		c=$(now_ms)
		"$IOTRACECTL" disable "$tog" > /dev/null &&
			"$IOTRACECTL" enable "$tog" > /dev/null ||
			echo "not ok: disable + enable $tog ($1)" >&2
		d=$(now_ms)
		add=$((add + b - a))
		rm=$((rm + c - b))
		en=$((en + d - c))
	done
	log "$1: add ${add} ms, remove ${rm} ms, disable+enable ${en} ms ($ROUNDS rounds)" >&2
	echo $((add + rm + en))
}

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# loaded NAME CMD [LIMIT] - rounds beside LOOPERS nobody processes
# looping CMD
loaded() {
	local pids=() i n
	rm -f "$out"/count.*
	for i in $(seq 1 $LOOPERS); do
		nobody sh -c "n=0; while :; do $2 > /dev/null 2>&1; n=\$((n + 1)); echo \$n > $out/count.$i; done" &
		pids+=($!)
	done
	sleep 2
	rounds "$1" "${3:-}"
	kill "${pids[@]}" 2> /dev/null
	wait "${pids[@]}" 2> /dev/null
	n=$(cat "$out"/count.* 2> /dev/null | awk '{ s += $1 } END { print s + 0 }')
	log "$1: the loopers ran $n times" >&2
}

out=$(mktemp -d)
chmod 777 "$out"
# the loopers' commands work for nobody at all (premises)
ktap_check "nobody can list" sh -c \
	"setpriv --reuid=65534 --regid=65534 --clear-groups $IOTRACECTL list | grep -q '${big[0]}'"
ktap_check "nobody can read the metrics" \
	sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups $IOTRACECTL stats --kernel ${big[0]} > /dev/null"

base1=$(rounds base1)
ctl=$(loaded metrics "$IOTRACECTL stats --kernel ${big[*]}")
bound=$((2 * ctl + 2000))
lst=$(loaded list "$IOTRACECTL list" $bound)
base2=$(rounds base2)
udevadm control --start-exec-queue 2> /dev/null

log "alone $base1 and $base2 ms; beside $LOOPERS looping GET_METRICS $ctl ms, beside $LOOPERS looping LIST $lst ms; bound $bound ms"
ktap_check "add, remove, enable beside looping LISTs ($lst ms) <= 2 x beside looping GET_METRICS + 2 s ($bound ms)" \
	test "$lst" -le "$bound"
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
