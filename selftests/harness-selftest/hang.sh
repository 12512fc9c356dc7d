#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hang: a test that never ends must be killed by the timeout and reported as
# a failure. VM-TEST-TIMEOUT counts from the test's start, so a slow boot on
# a loaded host does not turn this into "never reached the test".
# VM-EXPECT: fail
# VM-TIMEOUT: 300
# VM-TEST-TIMEOUT: 15
# VM-EXPECT-MATCH: ^timed out
echo "# sleeping forever"
sleep 100000
exit 0
