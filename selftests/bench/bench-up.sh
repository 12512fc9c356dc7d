#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-up: bench.sh on one vCPU.  Debian's 6.1 kernel never finishes
# bringing up the second CPU under -icount (seen in two boots: it stops
# after "x86: Booting SMP configuration:"), so make bench runs it here.
# VM-ACCEL: icount
# QEMU 7.2's single-threaded TCG now and then leaves the guest an
# impossible EFLAGS right after a CMPXCHG16B (SLUB's per-CPU fast path):
# every such fault of the benchmark was at the instruction after one.
# Without CX16 the kernel takes its fallback (benchmark.rst, "The guest
# CPU of the benchmark").
# VM-CPU: max,-cx16
# Guest time jumps while the guest waits for the host (9p under host load),
# so the hung-task detector fires on slow 9p lookups: off for the benchmark.
# VM-CMDLINE: sysctl.kernel.hung_task_timeout_secs=0
# VM-TIMEOUT: 2400
# VM-MEM: 3072
# VM-SMP: 1
exec "$IOTRACE_SRC/selftests/bench/bench.sh"
