#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# list_stall: readers without privilege (LIST dumps) must not stall disk
# hotplug or control.  A LIST reply counts the requests in flight in the
# disk's slot table (hardware queues times tags: 30,723 slots per disk
# here); neither that walk nor the generic netlink request around it may
# hold a lock that disk add and remove (inside the block layer's class
# mutex) or a control request waits for: not iotrace_mutex, not the
# table (a disable frees it), not generic netlink's genl_mutex.
#
# Twelve enabled null_blk disks of 10,240 tags per hardware queue.  In one
# boot, ROUNDS rounds of: power on a null_blk disk of the same geometry
# (attached and enabled: disks=all); power it off (disabled, detached);
# iotracectl disable + enable of a small disk; TOGGLES disable/enable
# requests and FILTERS SET_FILTER requests (to "everything", what it
# is) for it on one netlink socket each (nlsend -n, the time measured
# from its first request to its last answer) are timed: alone; beside
# LOOPERS "nobody" processes looping LIST dumps of every disk on one
# socket each (nlsend -d -n 0 list); alone again.  The timed operations
# run in the real-time class and the loopers at nice 19, so the loopers
# take no CPU the operations want: what the operations wait for is what
# the loopers hold.  udev's queue is stopped.
#
# Oracle (ratios within one boot, no absolute time): beside the LIST
# loopers each kind of operation takes at most BOUND times the mean of
# its two alone times (BOUND_FILTER for the filter requests, BOUND_EXEC
# for iotracectl: see there).  The LIST phase stops at the round that passes CAP times the
# first alone time: a module that stalls fails with a ratio, not a hang.
# VM-TIMEOUT: 900
# VM-SMP: 2
# VM-CHECK: alone
# VM-CHECK: all
# (about 4 minutes alone on 7.3: make check-all only, to keep make check
#   within its hour)
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd setpriv chrt nice cc
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"

ROUNDS=4
# disable/enable requests per round, on one netlink socket
TOGGLES=20
# SET_FILTER requests per round, on one netlink socket
FILTERS=20
# IOTRACE_A_DISK_NAME
A_NAME=2
NBIG=12
LOOPERS=3
BOUND=3
# SET_FILTER: a request of a few microseconds, which every contended
# acquisition of iotrace_mutex (the loopers take it twice per disk) makes
# wait for a wake-up; without parallel_ops it waits for whole dumps (15 to
# 46 times the alone time measured on 6.12 and 7.3)
BOUND_FILTER=10
# iotracectl: mostly process start-up, which the guest's second busy CPU
# slows on a loaded host (2.7 to 3.9 times seen); a bound for sanity, the
# in-process requests are what separates a stalling module
BOUND_EXEC=8
CAP=20
GEOM="size=16 submit_queues=2 hw_queue_depth=10240"

# shellcheck disable=SC2119
ktap_header
modprobe null_blk nr_devices=0 || die "modprobe null_blk failed"
udevadm control --stop-exec-queue 2> /dev/null
# shellcheck disable=SC2034 # settle() (iotrace.sh): no udev work to wait for
udev_queue_stopped=1
load_iotrace disks=all buf_size=64K
big=()
for i in $(seq 0 $((NBIG - 1))); do
	# shellcheck disable=SC2086
	big+=("$(nullb_create big$i $GEOM)")
done
tgt=$(nullb_create tgt size=16)
"$IOTRACECTL" enable "${big[@]}" "$tgt" ||
	die "iotracectl enable ${big[*]} $tgt failed"
log "${big[0]}: $(iot_stat "${big[0]}" hw_queues) hw queues x $(iot_stat "${big[0]}" tags) tags in the slot table, $NBIG such disks"

out=$(mktemp -d)
chmod 755 "$out"
# the looping reader, built here: nobody must be able to run it
# shellcheck disable=SC2046
cc -O2 -Wall -D_GNU_SOURCE -I"$IOTRACE_SRC/uapi" \
	$(pkg-config --cflags libnl-genl-3.0) -o "$out/nlsend" \
	"$IOTRACE_SRC/selftests/iotrace/nlsend.c" \
	$(pkg-config --libs libnl-genl-3.0) || die "cannot build nlsend"
chmod 755 "$out/nlsend"

NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

now_us() {
	now=${EPOCHREALTIME/./}
}

# rounds NAME [LIMIT] - ROUNDS rounds of power on, power off, iotracectl
# disable + enable, TOGGLES disable/enable requests and FILTERS filter
# requests on one socket each; sets on, off, ctl, tog, flt (us each kind
# took) and nr (rounds completed); stops
# after the round that passes LIMIT us in all
rounds() {
	local k dir a now kv t
	on=0 off=0 ctl=0 tog=0 flt=0 nr=0
	for k in $(seq 1 $ROUNDS); do
		if [ -n "${2:-}" ] && [ $((on + off + ctl + tog + flt)) -gt "$2" ]; then
			log "$1: past $(($2 / 1000)) ms after $nr rounds, stopped"
			break
		fi
		dir=/sys/kernel/config/nullb/p$1$k
		mkdir "$dir" || die "cannot create $dir"
		for kv in $GEOM; do
			echo "${kv#*=}" > "$dir/${kv%%=*}" ||
				die "p$1$k: cannot set $kv"
		done
		now_us; a=$now
		echo 1 > "$dir/power" || die "p$1$k: cannot power on"
		now_us; on=$((on + now - a)); a=$now
		echo 0 > "$dir/power" || die "p$1$k: cannot power off"
		now_us; off=$((off + now - a))
		rmdir "$dir" || die "cannot remove $dir"
		now_us; a=$now
		"$IOTRACECTL" disable "$tgt" > /dev/null ||
			die "iotracectl disable $tgt failed ($1)"
		"$IOTRACECTL" enable "$tgt" > /dev/null ||
			die "iotracectl enable $tgt failed ($1)"
		now_us; ctl=$((ctl + now - a))
		# disable, enable, ...: ends enabled
		t=$("$out/nlsend" -n $TOGGLES -x enable disable "$A_NAME:str:$tgt")
		case $t in
		"requests $TOGGLES errors 0 us "*) tog=$((tog + ${t##* })) ;;
		*) die "nlsend disable/enable $tgt: $t ($1)" ;;
		esac
		# the filter that records everything, again: a request that
		# costs the kernel next to nothing but the locks it takes
		t=$("$out/nlsend" -n $FILTERS filter "$A_NAME:str:$tgt")
		case $t in
		"requests $FILTERS errors 0 us "*) flt=$((flt + ${t##* })) ;;
		*) die "nlsend filter $tgt: $t ($1)" ;;
		esac
		nr=$k
	done
	log "$1: $nr rounds: power on $((on / 1000)) ms, power off $((off / 1000)) ms, iotracectl disable+enable $((ctl / 1000)) ms, $TOGGLES disable/enable requests $((tog / 1000)) ms, $FILTERS filter requests $((flt / 1000)) ms"
}

# beside NAME LIMIT CMD... - rounds NAME beside LOOPERS nobody processes
# running CMD; sets what rounds sets
beside() {
	local name=$1 limit=$2 pids=() i
	shift 2
	for i in $(seq 1 $LOOPERS); do
		# $! is the looper itself (chrt, nice and setpriv exec it),
		# at the lowest priority of the normal class
		chrt -o 0 nice -n 19 "${NOBODY[@]}" "$@" > "$out/$name.$i" 2>&1 &
		pids+=($!)
	done
	sleep 2
	rounds "$name" "$limit"
	kill "${pids[@]}" 2> /dev/null
	wait "${pids[@]}" 2> /dev/null
}

# The timed operations run in the real-time class, the loopers at nice 19:
# the loopers take no CPU the operations want, so what the operations
# wait for beside them is what the loopers hold.
chrt -f -p 10 $$ || die "chrt -f -p 10 $$ failed"

# the loopers' requests work for nobody (premise)
ktap_check "nobody dumps LIST" sh -c \
	"${NOBODY[*]} $out/nlsend -d -n 1 list | grep -q '^requests 1 errors 0 '"

rounds alone1
a1_on=$on a1_off=$off a1_ctl=$ctl a1_tog=$tog a1_flt=$flt
beside list $((CAP * (on + off + ctl + tog + flt))) "$out/nlsend" -d -n 0 list
l_on=$on l_off=$off l_ctl=$ctl l_tog=$tog l_flt=$flt l_nr=$nr
rounds alone2
udevadm control --start-exec-queue 2> /dev/null

dumps=$(cat "$out"/list.* | awk '$1 == "requests" { n += $2; e += $4 } END { print n + 0, e + 0 }')
log "the LIST loopers: ${dumps% *} dumps (${dumps#* } errors)"
ktap_check "the LIST loopers dumped (${dumps% *} dumps) without error" \
	test "${dumps% *}" -ge "$LOOPERS" -a "${dumps#* }" = 0
ktap_check "the LIST phase completed its $ROUNDS rounds ($l_nr)" test "$l_nr" = "$ROUNDS"

# ratio WHAT BOUND LIST ALONE1 ALONE2 - LIST <= BOUND x the mean of
# ALONE1 and ALONE2, the ratio logged
ratio() {
	local mean=$((($4 + $5) / 2))
	log "$1: beside LIST $(($3 / 1000)) ms, alone $(($4 / 1000)) and $(($5 / 1000)) ms: LIST/alone $(awk "BEGIN { printf \"%.2f\", $3 / ($mean ? $mean : 1) }")"
	ktap_check "$1 beside looping LIST dumps ($(($3 / 1000)) ms) <= $2 x alone ($((mean / 1000)) ms)" \
		test "$3" -le $(($2 * mean))
}

ratio "power on" $BOUND "$l_on" "$a1_on" "$on"
ratio "power off" $BOUND "$l_off" "$a1_off" "$off"
ratio "iotracectl disable+enable" $BOUND_EXEC "$l_ctl" "$a1_ctl" "$ctl"
ratio "$TOGGLES disable/enable requests" $BOUND "$l_tog" "$a1_tog" "$tog"
ratio "$FILTERS filter requests" $BOUND_FILTER "$l_flt" "$a1_flt" "$flt"
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
