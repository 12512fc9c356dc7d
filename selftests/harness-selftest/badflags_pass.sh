#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# badflags_pass: the report of badflags in a test that exits 0: its kernel
# log alone would fail it, and the harness runs it again as it does a test
# that exits 1 (seen: control_inflight on 6.12 passed, then failed on a
# WARNING in exc_debug_kernel with EFLAGS 84c0b002).
# VM-CHECK: all
# VM-TIMEOUT: 300
export BADFLAGS_EXIT=0
exec "$IOTRACE_SRC/selftests/harness-selftest/badflags.sh"
