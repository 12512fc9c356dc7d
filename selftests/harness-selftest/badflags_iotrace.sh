#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# badflags_iotrace: the report of badflags, at a site in iotrace's text: the
# harness must not run the test again (a fault in iotrace is never the
# emulator's), so the test fails on its first attempt.
# VM-CHECK: all
# VM-EXPECT: fail
# VM-EXPECT-MATCH: ^test exited with 1: not ok 1 first attempt.*; kernel log: BUG: kernel NULL pointer dereference
# VM-TIMEOUT: 300
export BADFLAGS_RIP='iotrace_probe_complete+0x42/0x300 [iotrace]'
exec "$IOTRACE_SRC/selftests/harness-selftest/badflags.sh"
