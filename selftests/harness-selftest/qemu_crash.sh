#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qemu_crash: QEMU itself dying of a signal while the test runs (here the
# harness sends it SIGSEGV) is a fault of the test bed: the test runs once
# more, and a second crash fails it with a reason that names the signal and
# QEMU's own stack, read from its core dump, not "the test failed".  (A
# host whose core_pattern is not a plain file name, or whose hard core
# limit is 0, keeps no core dump: the reason must then say so.)
# VM-CHECK: all
# VM-EXPECT: fail
# VM-EXPECT-MATCH: ^guest died during the test: QEMU itself crashed \(SIGSEGV\)( in .* <- .*\(qemu-crash\.txt\)|, no core dump \(core_pattern .*, ulimit -c .*\)), and on the first attempt too$
# VM-SELFTEST-SIGNAL: SEGV
# VM-TIMEOUT: 120
echo "# waiting for the harness to crash QEMU"
sleep 100000
exit 0
