#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shell helpers for iotrace guest tests. Source it from a test script:
#   . "$IOTRACE_SRC/selftests/lib/iotrace.sh"
#
# Environment set by the VM runner (see Documentation/testing.rst):
#   IOTRACE_SRC, IOTRACE_KO, IOTRACECTL, IOTRACE_OUT, KVER.
# A test exits 0 to pass, 4 (KSFT_SKIP) to skip, anything else to fail.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

IOTRACE_DEBUGFS=${IOTRACE_DEBUGFS:-/sys/kernel/debug/iotrace}
__ktap_n=0
__ktap_failed=0
__ktap_plan=

# ktap_header [PLANNED] - print the KTAP version line and an optional plan.
ktap_header() {
	echo "TAP version 13"
	__ktap_plan=${1:-}
	[ -n "$__ktap_plan" ] && echo "1..$__ktap_plan"
	return 0
}

# __ktap_time N - in a guest, append "SECONDS N" (the guest's uptime when
# result N was reported) to $IOTRACE_OUT/ktap-times: where a test spends
# its time, for keeping make check within its budget.
__ktap_time() {
	[ -n "${IOTRACE_OUT:-}" ] && [ -d "$IOTRACE_OUT" ] || return 0
	local up
	read -r up _ < /proc/uptime
	echo "$up $1" >> "$IOTRACE_OUT/ktap-times"
}

# ktap_ok DESC / ktap_fail DESC / ktap_skip DESC - one numbered result line.
ktap_ok() {
	__ktap_n=$((__ktap_n + 1))
	echo "ok $__ktap_n $*"
	__ktap_time "$__ktap_n"
}

ktap_fail() {
	__ktap_n=$((__ktap_n + 1))
	__ktap_failed=$((__ktap_failed + 1))
	echo "not ok $__ktap_n $*"
	__ktap_time "$__ktap_n"
}

ktap_skip() {
	__ktap_n=$((__ktap_n + 1))
	echo "ok $__ktap_n $* # SKIP"
	__ktap_time "$__ktap_n"
}

# ktap_check DESC CMD... - run CMD, report ok/not ok under DESC.
ktap_check() {
	local desc=$1
	shift
	if "$@"; then
		ktap_ok "$desc"
	else
		ktap_fail "$desc"
	fi
}

# ktap_finish - print the plan if none was given, and exit 0, or 1 if any
# ktap_fail was reported or the results reported differ from the plan (a
# check that silently never ran is a failure).
ktap_finish() {
	[ -z "$__ktap_plan" ] && echo "1..$__ktap_n"
	echo "# totals: $((__ktap_n - __ktap_failed)) ok, $__ktap_failed not ok"
	if [ -n "$__ktap_plan" ] && [ "$__ktap_n" -ne "$__ktap_plan" ]; then
		echo "# plan was $__ktap_plan results, $__ktap_n were reported"
		exit $KSFT_FAIL
	fi
	[ "$__ktap_failed" -eq 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}

# vm_phase - set VM_PHASE: 1 on the test's first boot, N + 1 after its
# N-th vm_reboot (VM-REBOOTS); from phase 2 on, the KTAP counts and plan
# of the phase before carry on (ktap_header is phase 1's alone).
vm_phase() {
	VM_PHASE=${IOTRACE_PHASE:-1}
	if [ "$VM_PHASE" -gt 1 ]; then
		[ -r "$IOTRACE_OUT/ktap.state" ] ||
			die "phase $VM_PHASE: no KTAP state from the phase before"
		read -r __ktap_n __ktap_failed __ktap_plan < "$IOTRACE_OUT/ktap.state"
	fi
}

# vm_reboot HOW - end this phase and reboot the guest with its RAM kept:
# HOW is panic (sysrq's crash; the harness's panic=-1 resets at once),
# reset (sysrq's immediate reboot, no sync, as a watchdog's reset) or
# kexec (kexec -e of the kernel the test loaded with kexec -l or -s).
# The test runs again in the next phase (vm_phase).  Needs VM-REBOOTS.
vm_reboot() {
	[ "${IOTRACE_REBOOTS:-0}" -ge "$VM_PHASE" ] ||
		die "vm_reboot in phase $VM_PHASE: VM-REBOOTS allows ${IOTRACE_REBOOTS:-0}"
	echo "$__ktap_n $__ktap_failed $__ktap_plan" > "$IOTRACE_OUT/ktap.state"
	echo $((VM_PHASE + 1)) > "$IOTRACE_OUT/reboot"
	sync
	echo "IOTRACE-VM: planned $1 in phase $VM_PHASE" > /dev/kmsg
	case "$1" in
	panic) echo c > /proc/sysrq-trigger ;;
	reset) echo b > /proc/sysrq-trigger ;;
	kexec) kexec -e ;;
	*) die "vm_reboot: panic, reset or kexec, not '$1'" ;;
	esac
	sleep 60
	die "the guest did not reboot ($1)"
}

# vm_dump NAME - QEMU's ELF core of the guest's physical memory, taken
# now (the guest paused meanwhile), as $IOTRACE_OUT/NAME.core; needs
# VM-DUMP: yes.  The harness deletes it after the test.
vm_dump() {
	local end=$((SECONDS + 600))
	rm -f "$IOTRACE_OUT/dump.done"
	echo "$1.core" > "$IOTRACE_OUT/dump.req.tmp"
	mv "$IOTRACE_OUT/dump.req.tmp" "$IOTRACE_OUT/dump.req"
	until [ -e "$IOTRACE_OUT/dump.done" ]; do
		[ $SECONDS -lt $end ] || die "no dump after 600 s (VM-DUMP: yes?)"
		sleep 0.5
	done
	grep -qx dumped "$IOTRACE_OUT/dump.done" ||
		die "the dump failed: $(cat "$IOTRACE_OUT/dump.done")"
}

# log MSG - a KTAP diagnostic line.
log() {
	echo "# $*"
}

# die MSG - report a failure and exit 1.
die() {
	echo "not ok - $*"
	echo "# FAIL: $*" >&2
	exit $KSFT_FAIL
}

# skip MSG - report a skip and exit 4.
skip() {
	echo "# SKIP $*"
	exit $KSFT_SKIP
}

# require_cmd CMD... - skip unless each command exists.
require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" > /dev/null 2>&1 || skip "$c is not installed"
	done
}

# load_iotrace [PARAM=VALUE...] - insmod $IOTRACE_KO with parameters.
load_iotrace() {
	[ -f "$IOTRACE_KO" ] || die "no module at $IOTRACE_KO (make modules-all)"
	grep -q '^iotrace ' /proc/modules && unload_iotrace
	insmod "$IOTRACE_KO" "$@" || die "insmod $IOTRACE_KO $* failed"
	[ -d /sys/module/iotrace ] || die "iotrace loaded but /sys/module/iotrace is missing"
}

# unload_iotrace - rmmod iotrace if it is loaded.
unload_iotrace() {
	if grep -q '^iotrace ' /proc/modules; then
		rmmod iotrace || die "rmmod iotrace failed"
	fi
	return 0
}

# wait_for PATH [SECONDS] - wait until PATH exists (default 10 s).  The
# limit is a deadline on the clock ($SECONDS), not a count of polls: a slow
# guest forks each poll's sleep slowly.
wait_for() {
	local end=$((SECONDS + ${2:-10}))
	until [ -e "$1" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
	return 0
}

# task_show PID - diagnostics: process PID and its children, each with its
# state, wait channel and kernel stack.
task_show() {
	local p
	for p in "$1" $(pgrep -P "$1"); do
		log "pid $p: $(ps -o stat=,wchan:24=,args= -p "$p" | cut -c1-100)"
		sed 's/^/#   /' "/proc/$p/stack" 2> /dev/null
	done
}

# wait_gone PID [SECONDS] - wait until process PID has exited (default 30 s);
# on a time-out show it (task_show) and fail, leaving it running.
wait_gone() {
	local end=$((SECONDS + ${2:-30}))
	while kill -0 "$1" 2> /dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			task_show "$1"
			return 1
		fi
		sleep 0.1
	done
	return 0
}

# udevadm - udevadm, remembering whether the test stopped udev's execution
# queue ("udevadm control --stop-exec-queue", so that nothing reads the
# disks under test) or started it again: settle needs to know.
udev_queue_stopped=0
udevadm() {
	local a
	[ "${1:-}" = control ] && for a in "$@"; do
		case $a in
		--stop-exec-queue|-s) udev_queue_stopped=1 ;;
		--start-exec-queue|-S) udev_queue_stopped=0 ;;
		esac
	done
	command udevadm "$@"
}

# settle - wait for udev (if running) to finish with pending device events.
# Not while the test keeps udev's execution queue stopped: no event would
# run, and "udevadm settle" would only wait its 30 s timeout.
settle() {
	[ "$udev_queue_stopped" = 1 ] && return 0
	command -v udevadm > /dev/null 2>&1 && udevadm settle --timeout=30 2> /dev/null
	return 0
}

# nullb_create NAME [KEY=VALUE...] - create and power on a configfs null_blk
# device; prints the disk name (NAME, or nullb<index> on kernels that do not
# name configfs disks after their directory): disk=$(nullb_create nb1 ...).
# Keys are configfs attributes: size (MiB), blocksize, irqmode,
# completion_nsec, submit_queues, hw_queue_depth, memory_backed, ...
nullb_create() {
	local name=$1 kv key val dir
	shift
	if [ ! -d /sys/kernel/config/nullb ]; then
		modprobe null_blk nr_devices=0 || die "modprobe null_blk failed"
	fi
	dir=/sys/kernel/config/nullb/$name
	mkdir "$dir" || die "cannot create $dir"
	for kv in "$@"; do
		key=${kv%%=*}
		val=${kv#*=}
		echo "$val" > "$dir/$key" || die "null_blk $name: cannot set $key=$val"
	done
	echo 1 > "$dir/power" || die "null_blk $name: cannot power on"
	# Kernels name the disk after the configfs directory, or nullb<index>.
	local idx tries=100
	idx=$(cat "$dir/index" 2> /dev/null)
	while :; do
		[ -e "/sys/block/$name" ] && { echo "$name"; break; }
		[ -n "$idx" ] && [ -e "/sys/block/nullb$idx" ] && { echo "nullb$idx"; break; }
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || die "null_blk $name: no disk appeared"
		sleep 0.1
	done
	settle
}

# nullb_destroy NAME - power off and remove a configfs null_blk device.
nullb_destroy() {
	local dir=/sys/kernel/config/nullb/$1
	[ -d "$dir" ] || return 0
	settle	# udev may still hold the disk open (blkid)
	echo 0 > "$dir/power" 2> /dev/null
	rmdir "$dir" || die "cannot remove $dir"
}

# first_disk PATTERN - print the first /sys/block entry matching PATTERN
# (e.g. 'nvme*n1', 'sd*', 'vd*'), or fail.
first_disk() {
	local d
	settle
	for d in /sys/block/$1; do
		[ -e "$d" ] && { basename "$d"; return 0; }
	done
	return 1
}
