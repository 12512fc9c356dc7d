#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# badflags: a kernel oops whose register dump shows an RFLAGS no x86-64
# CPU can hold (reserved bits set: the emulator's corruption, seen with and
# without iotrace) outside iotrace's text makes the harness run the test
# once more.  The first attempt writes such a report to the kernel log and
# fails; the second finds its mark in the output directory and passes, so
# the test passes only if the harness ran it again.  (warn covers flags
# that are possible: no rerun.)  badflags_iotrace sets BADFLAGS_RIP to a
# site in iotrace: never rerun there.  badflags_pass sets BADFLAGS_EXIT=0:
# a first attempt that passes, failed by its kernel log alone, is run
# again too.
# VM-CHECK: all
# VM-TIMEOUT: 300
rip=${BADFLAGS_RIP:-blk_mq_get_tag+0x242/0x2a0}
. "$IOTRACE_SRC/selftests/harness-selftest/rerun_lib.sh"
second_attempt badflags
# The lines of a real report (6.12, 2026-11-27), not a real fault.
for l in "BUG: kernel NULL pointer dereference, address: 0000000000000004 (harness-selftest)" \
	 "Oops: Oops: 0000 [#1] PREEMPT SMP NOPTI" \
	 "RIP: 0010:$rip" \
	 "RSP: 0018:ff61c1560041b838 EFLAGS: bcb82646"; do
	echo "<2>$l" > /dev/kmsg
done
# badflags_pass: a first attempt that passes, its kernel log failing it
if [ "${BADFLAGS_EXIT:-1}" = 0 ]; then
	echo "ok 1 first attempt: passed, a report with impossible flags written"
	exit 0
fi
echo "not ok 1 first attempt: a report with impossible flags written"
exit 1
