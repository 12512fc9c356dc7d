#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the module's guest tests (sourced, not run).  Builds on
# selftests/lib/iotrace.sh.

. "$IOTRACE_SRC/selftests/lib/iotrace.sh"

RINGCHECK=$IOTRACE_SRC/selftests/iotrace/ringcheck
IOT=/sys/kernel/debug/iotrace

if [ ! -x "$RINGCHECK" ]; then
	# Not built on the host (make -C selftests/iotrace): build it here.
	RINGCHECK=$(mktemp -d)/ringcheck
	cc -O2 -Wall -I"$IOTRACE_SRC/uapi" -o "$RINGCHECK" \
		"$IOTRACE_SRC/selftests/iotrace/ringcheck.c" ||
		die "cannot build ringcheck (make -C selftests/iotrace)"
fi

# iot_stat DISK KEY - one value of <disk>/stats.
iot_stat() {
	sed -n "s/^$2: //p" "$IOT/$1/stats"
}

# wait_inflight DISK N - until iotrace counts N requests of DISK in flight
# (60 s at most).  Polled with shell builtins, no fork per poll: a loop of
# sed and sleep forks outlived a slow device's requests on a loaded guest.
wait_inflight() {
	local k v n end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ]; do
		n=0
		while read -r k v; do
			[ "$k" = inflight: ] && n=$v
		done < "$IOT/$1/stats"
		[ "$n" -ge "$2" ] && return 0
	done
	return 1
}

# io_cgroup NAME - set $cg to the cgroup /sys/fs/cgroup/NAME (made, with
# the io controller for its bios to be charged to it) and $cgid to its id
# (its inode number, as the kernel's cgroup_id())
io_cgroup() {
	grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts ||
		mount -t cgroup2 none /sys/fs/cgroup || die "cannot mount cgroup2"
	echo +io > /sys/fs/cgroup/cgroup.subtree_control ||
		die "cannot enable the io controller"
	cg=/sys/fs/cgroup/$1
	mkdir -p "$cg"
	cgid=$(stat -c %i "$cg")
}

# watch_start CONF [ARGS...] - "iotracectl watch" with configuration CONF
# (written to $out/conf) and ARGS, snapshots in $out/snap, run dir
# $out/run, its standard error in $out/log, through ${wrap[@]} when the
# test sets it (a capability set), as $wpid; true once it said "ready",
# false (its log printed) if it ended or did not within 30 s
watch_start() {
	printf '%s\n' "$1" > "$out/conf"
	shift
	: > "$out/log"
	IOTRACE_RUN_DIR=$out/run "${wrap[@]:-env}" "$IOTRACECTL" watch \
		--config "$out/conf" --dir "$out/snap" "$@" 2> "$out/log" &
	wpid=$!
	local end=$((SECONDS + 30))
	until grep -q 'ready:' "$out/log"; do
		if [ "$SECONDS" -ge "$end" ] || ! kill -0 "$wpid" 2> /dev/null; then
			sed 's/^/# watch: /' "$out/log"
			return 1
		fi
		sleep 0.2
	done
}

# iot_status KEY - one value of the top-level status file.
iot_status() {
	sed -n "s/^$1: //p" "$IOT/status"
}

# blk_ios DISK - requests completed per /sys/block/DISK/stat: reads +
# writes + discards + flushes (fields 1, 5, 12, 16 when present).
blk_ios() {
	awk '{ n = $1 + $5; if (NF >= 15) n += $12; if (NF >= 17) n += $16;
	       print n }' "/sys/block/$1/stat"
}

# blk_stat DISK N - field N of /sys/block/DISK/stat
blk_stat() {
	awk -v f="$2" '{ print $f }' "/sys/block/$1/stat"
}

# until_ok SECONDS CMD... - run CMD until it succeeds or SECONDS pass
until_ok() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# kv FILE KEY - a "key: value" line of FILE (e.g. ringcheck output).
kv() {
	sed -n "s/^$2: //p" "$1"
}

# fio_log_vs_ring OUT MIN IOLOG... - the I/Os of fio's write_iolog files
# (v2 or v3) against OUT/ring ("ringcheck dump", sorted): fio did at least
# MIN, each is in the ring once with its op, sector and length, and the
# ring holds nothing else (three checks).  Leaves fio's, sorted, in OUT/fio.
fio_log_vs_ring() {
	local out=$1 min=$2 nfio missing extra
	shift 2
	cat "$@" |
		awk '$2 == "read" || $2 == "write" { print $2, $3 / 512, $4 }
		     $3 == "read" || $3 == "write" { print $3, $4 / 512, $5 }' |
		sort > "$out/fio"
	nfio=$(wc -l < "$out/fio")
	log "fio logged $nfio I/Os, the ring holds $(wc -l < "$out/ring") records"
	ktap_check "fio did I/O" test "$nfio" -ge "$min"
	missing=$(comm -23 "$out/fio" "$out/ring" | wc -l)
	extra=$(comm -13 "$out/fio" "$out/ring" | wc -l)
	comm -23 "$out/fio" "$out/ring" | head -5 | sed 's/^/# missing: /'
	comm -13 "$out/fio" "$out/ring" | head -5 | sed 's/^/# extra: /'
	ktap_check "every fio I/O in the ring with its op, sector, length" \
		test "$missing" -eq 0
	ktap_check "no record that fio did not log" test "$extra" -eq 0
}

# mpath_paths HEAD - the path disks of the NVMe multipath head HEAD
# (nvme<S>c<C>n<N>), as the kernel names them
mpath_paths() {
	(cd /sys/block && for p in "${1%n*}"c*n"${1##*n}"; do
		[ -e "$p" ] && echo "$p"
	done)
}

# find_mpath_head - set head to the visible NVMe multipath head and paths
# to its two path disks (waiting up to 10 s for them); skip without
find_mpath_head() {
	local b
	head=
	paths=
	for _ in $(seq 100); do
		for b in /sys/block/nvme*n1; do
			[ -e "$b" ] || continue
			[ "$(cat "$b/hidden" 2> /dev/null)" = 1 ] && continue
			head=$(basename "$b")
		done
		if [ -n "$head" ]; then
			paths=$(mpath_paths "$head" | tr '\n' ' ')
			paths=${paths% }
			[ "$(echo "$paths" | wc -w)" -eq 2 ] && break
		fi
		sleep 0.1
	done
	[ -n "$head" ] || skip "no NVMe multipath head (nvme_core.multipath=N or no subsystem support)"
	[ "$(echo "$paths" | wc -w)" -eq 2 ] || skip "$head has no two paths: $paths"
}

# ring_counts_vs_stat CHECK DELTA - the counts of "ringcheck check" (its
# output in CHECK) against the /sys/block stat delta DELTA: completed is
# DELTA, present + overwritten + dropped = completed (two checks).
ring_counts_vs_stat() {
	local completed present over dropped
	completed=$(kv "$1" completed)
	present=$(kv "$1" present)
	over=$(kv "$1" overwritten)
	dropped=$(kv "$1" dropped)
	ktap_check "completed ($completed) = /sys/block stat delta ($2)" \
		test "$completed" -eq "$2"
	ktap_check "present + overwritten + dropped = completed" \
		test $((present + over + dropped)) -eq "$completed"
}

# kdebug_or NORMAL SMALL - NORMAL, or SMALL on a debug kernel (make
# check-debug, IOTRACE_KDEBUG): the KASAN kernel runs a guest several
# times slower, so the loop counts and sizes of the soak-like parts of a
# test are cut there; its checks stay the same.
kdebug_or() {
	if [ -n "${IOTRACE_KDEBUG:-}" ]; then echo "$2"; else echo "$1"; fi
}

# kernel_splats PAT - print the kernel log's lines that match PAT (as "#
# splat: " lines); true when there are none.  On a debug kernel (make
# check-debug) its reports (KASAN, KCSAN, lockdep, ...) are judged as the
# harness judges them (selftests/vm/kreports): one with an iotrace frame
# is a splat, the kernel's own are not, and the rest of the log gets PAT.
kernel_splats() {
	local d rc=0
	d=$(mktemp -d)
	mkdir "$d/strip"
	dmesg > "$d/dmesg"
	if [ -n "${IOTRACE_KDEBUG:-}" ]; then
		"$IOTRACE_SRC/selftests/vm/kreports" --strip "$d/strip" "$d/dmesg" \
			> "$d/reports" || rc=1
		grep '^iotrace: ' "$d/reports" | sed 's/^/# splat: /'
		mv "$d/strip/dmesg" "$d/dmesg"
	fi
	grep -E -- "$1" "$d/dmesg" | sed 's/^/# splat: /' | grep . && rc=1
	rm -rf "$d"
	return "$rc"
}

# no_kernel_splat - true when the kernel log shows no oops, BUG or warning
# (kernel_splats).
no_kernel_splat() {
	kernel_splats 'BUG:|Oops|WARNING:|general protection|UBSAN|KASAN'
}

# need_nlsend - set NLSEND to the raw netlink sender (built by make -C
# selftests/iotrace; built here if it is missing)
need_nlsend() {
	NLSEND=$IOTRACE_SRC/selftests/iotrace/nlsend
	[ -x "$NLSEND" ] && return
	NLSEND=$(mktemp -d)/nlsend
	# shellcheck disable=SC2046
	cc -O2 -Wall -D_GNU_SOURCE -I"$IOTRACE_SRC/uapi" $(pkg-config --cflags libnl-genl-3.0) \
		-o "$NLSEND" "$IOTRACE_SRC/selftests/iotrace/nlsend.c" \
		$(pkg-config --libs libnl-genl-3.0) ||
		die "cannot build nlsend (make -C selftests/iotrace)"
}

# record_start DISK FILE - "iotracectl record DISK -o FILE" in the
# background (standard error in FILE.err), as $rec_pid, once it has
# mapped the ring (its signal handler is set by then)
record_start() {
	"$IOTRACECTL" record "$1" -o "$2" 2> "$2.err" &
	rec_pid=$!
	for _ in $(seq 100); do
		grep -q "$1" /proc/$rec_pid/maps 2> /dev/null && break
		sleep 0.1
	done
}

# ktap_verdict FILE - the checks a test's Python verdict wrote into FILE,
# one per line ("ok WHAT" or "FAIL WHAT"): printed, then reported as KTAP
ktap_verdict() {
	local v what
	sed 's/^/# /' "$1"
	while read -r v what; do
		if [ "$v" = ok ]; then ktap_ok "$what"; else ktap_fail "$what"; fi
	done < "$1"
}

# need_pollhold - set POLLHOLD to the polled-read holder (built by make -C
# selftests/iotrace; built here if it is missing)
need_pollhold() {
	POLLHOLD=$IOTRACE_SRC/selftests/iotrace/pollhold
	[ -x "$POLLHOLD" ] && return
	POLLHOLD=$(mktemp -d)/pollhold
	cc -O2 -Wall -o "$POLLHOLD" "$IOTRACE_SRC/selftests/iotrace/pollhold.c" ||
		die "cannot build pollhold (make -C selftests/iotrace)"
}

# nullb_mod ARGS... - (re)load null_blk with module parameters.
nullb_mod() {
	rmmod null_blk 2> /dev/null
	modprobe null_blk "$@" || die "modprobe null_blk $* failed"
	settle
}

# quiet_nullb0 - a fresh null_blk nullb0 that only the test reads: quiet,
# udev's queue and its daemon stopped (udevd itself reads the partition
# table of a disk closed after writing)
quiet_nullb0() {
	rmmod null_blk 2> /dev/null
	modprobe null_blk nr_devices=1 || die "modprobe null_blk failed"
	quiet_disk nullb0
	udevadm control --stop-exec-queue 2> /dev/null
	pkill -STOP -x systemd-udevd
}

# quiet_disk DISK - no merging, no scheduler, no read-ahead surprises.
quiet_disk() {
	echo 2 > "/sys/block/$1/queue/nomerges"
	echo none > "/sys/block/$1/queue/scheduler" 2> /dev/null
	return 0
}

# events_listen FILE - "iotracectl events" into FILE (its stderr into
# FILE.err) in the background as $listener, once it listens; false if it
# does not within 30 s
events_listen() {
	"$IOTRACECTL" events > "$1" 2> "$1.err" &
	listener=$!
	local end=$((SECONDS + 30))
	until grep -q listening "$1.err" 2> /dev/null; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

# scsi_debug_load SECONDS PARAM... - load scsi_debug with PARAMs, udev
# running meanwhile (its probe is asynchronous), and set $sd to its disk
# once it appeared within SECONDS (empty if it did not); udev's queue is
# stopped again afterwards
scsi_debug_load() {
	local end=$((SECONDS + $1)) d
	shift
	sd=
	udevadm control --start-exec-queue 2> /dev/null
	modprobe sd_mod 2> /dev/null
	if modprobe scsi_debug "$@"; then
		while [ -z "$sd" ] && [ $SECONDS -lt $end ]; do
			for d in /sys/block/sd*; do
				grep -q scsi_debug "$d/device/model" 2> /dev/null &&
					sd=$(basename "$d")
			done
			[ -n "$sd" ] || sleep 0.5
		done
		settle
	fi
	udevadm control --stop-exec-queue 2> /dev/null
}
