#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kreport_iotrace: on a debug kernel (make check-debug), a KASAN report
# with an iotrace frame fails the test, whatever its exit code.  The report
# is written to /dev/kmsg in the kernel's format (no memory is corrupted).
# Run by selftests/vm/check-debug on each debug kernel, not by make check
# (on other kernels any "BUG:" fails a test anyway).
# VM-EXPECT: fail
# VM-EXPECT-MATCH: ^(kasan|kcsan) kernel report with an iotrace frame: KASAN: BUG: KASAN: slab-use-after-free in iotrace_selftest_site
# VM-TIMEOUT: 120
[ -n "${IOTRACE_KDEBUG:-}" ] || { echo "# not a debug kernel"; exit 0; }
k() { echo "<3>$*" > /dev/kmsg; }
k "=================================================================="
k "BUG: KASAN: slab-use-after-free in iotrace_selftest_site+0x10/0x20 [iotrace]"
k "Read of size 8 at addr ffff888000000000 by task sh/1"
k "Call Trace:"
k " <TASK>"
k " iotrace_selftest_site+0x10/0x20 [iotrace]"
k " </TASK>"
k "=================================================================="
echo "ok 1 report written"
exit 0
