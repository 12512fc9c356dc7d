#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# userstall_kernel: the report of userstall with the stalled CPU in kernel
# mode: the harness must not run the test again, so it times out on its
# first attempt.
# VM-CHECK: all
# VM-EXPECT: fail
# VM-EXPECT-MATCH: ^timed out
# VM-TIMEOUT: 300
# VM-TEST-TIMEOUT: 20
export USERSTALL_CS=0010
exec "$IOTRACE_SRC/selftests/harness-selftest/userstall.sh"
