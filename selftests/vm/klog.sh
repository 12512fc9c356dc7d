# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by run-test, run-batch and batch-guest: what their kernel-log
# scans call an error.  Besides the splats, the kernel's complaints about
# iotrace's use of an API (7.2 and later: "work func f [iotrace] enqueued
# on deprecated workqueue").
# shellcheck disable=SC2034
KLOG_PAT='BUG:|WARNING:|Oops|general protection fault|soft lockup|hung task|blocked for more than|refcount_t|\[iotrace\] enqueued on deprecated'

# klog_clean LOG [KMEMLEAK [REPORTS]] - true when the kernel log LOG holds
# no error.  On a debug kernel ($IOTRACE_KDEBUG in the guest, kern_debug
# on the host: set KLOG_DEBUG) selftests/vm/kreports judges its reports
# and the leaks in KMEMLEAK first, as run-test does: one with an iotrace
# frame is an error, the kernel's own are listed (in REPORTS), and the
# rest of the log gets KLOG_PAT.
klog_clean() {
	local log=$1 kml=${2:-} rep=${3:-/dev/null} d rc=0
	if [ -z "${KLOG_DEBUG:-}" ]; then
		! grep -aqE "$KLOG_PAT" "$log"
		return
	fi
	d=$(mktemp -d)
	"$(dirname "${BASH_SOURCE[0]}")"/kreports ${kml:+--kmemleak "$kml"} \
		--strip "$d" "$log" > "$rep" 2>&1 || rc=1
	[ "$rc" = 0 ] && grep -aqE "$KLOG_PAT" "$d/$(basename "$log")" && rc=1
	rm -rf "$d"
	return "$rc"
}

# klog_before_iotrace LOG PATTERN - true when the first line of the kernel
# log LOG matching PATTERN comes before anything iotrace wrote or ran (a
# message "iotrace: ...", a frame "[iotrace]") in the boot it is in (from
# that boot's "Linux version" line, or the top of the log): the kernel met
# it before the module was loaded, whatever earlier boots of a test that
# reboots did.
klog_before_iotrace() {
	local log=$1 at boot
	at=$(grep -anE -m1 "$2" "$log" | cut -d: -f1)
	[ -n "$at" ] || return 1
	boot=$(head -n "$at" "$log" | grep -anE '\] Linux version ' |
	       tail -n 1 | cut -d: -f1)
	! sed -n "${boot:-1},${at}p" "$log" |
		grep -aqE '\] iotrace: |\[iotrace\]'
}
