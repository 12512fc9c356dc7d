#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# userstall: a test that times out after an RCU stall report of a CPU in
# user mode, interrupts on, with no tick in the grace period (the
# emulator's lost timer, seen in fault_nvme) is run once more.  The first
# attempt writes such a report to the kernel log and hangs until the
# test's time-out; the second finds its mark in the output directory and
# passes, so the test passes only if the harness ran it again.
# userstall_kernel sets USERSTALL_CS to the kernel's code segment: a
# stall in kernel mode may be iotrace's, never rerun.
# VM-CHECK: all
# VM-TIMEOUT: 300
# VM-TEST-TIMEOUT: 20
cs=${USERSTALL_CS:-0033}
. "$IOTRACE_SRC/selftests/harness-selftest/rerun_lib.sh"
second_attempt userstall
# The lines of a real report (6.12, 2026-11-29), not a real stall.
for l in "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks: (harness-selftest)" \
	 "rcu: 	0-...0: (0 ticks this GP) idle=b214/1/0x4000000000000000 softirq=17046/17046 fqs=2471" \
	 "rcu: 	(detected by 1, t=5252 jiffies, g=3513, q=1228799 ncpus=2)" \
	 "NMI backtrace for cpu 0" \
	 "RIP: $cs:0x55e409419c00" \
	 "RSP: 002b:00007ffcc9cb0968 EFLAGS: 00000206"; do
	echo "<4>$l" > /dev/kmsg
done
echo "# first attempt: a stall report written, hanging"
sleep 100000
