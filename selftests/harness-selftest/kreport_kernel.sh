#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kreport_kernel: on a debug kernel (make check-debug), the kernel's own
# reports (a KCSAN data race and suspicious RCU usage without an iotrace
# frame) are listed, not failed: the test passes and run-test names them.
# Written to /dev/kmsg in the kernel's format.  Run by
# selftests/vm/check-debug on each debug kernel, not by make check.
# VM-TIMEOUT: 120
[ -n "${IOTRACE_KDEBUG:-}" ] || { echo "# not a debug kernel"; exit 4; }
k() { echo "<3>$*" > /dev/kmsg; }
k "=================================================================="
k "BUG: KCSAN: data-race in selftest_kernel_a / selftest_kernel_b"
k "write to 0xffff888000000000 of 4 bytes by task 1 on cpu 0:"
k " selftest_kernel_a+0x1/0x2"
k "Reported by Kernel Concurrency Sanitizer on:"
k "=================================================================="
k "============================="
k "WARNING: suspicious RCU usage"
k "-----------------------------"
k "stack backtrace:"
k "Call Trace:"
k " <TASK>"
k " selftest_kernel_c+0x1/0x2"
k " </TASK>"
echo "ok 1 reports written"
exit 0
