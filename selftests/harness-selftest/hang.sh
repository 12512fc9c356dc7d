#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hang: a test that never ends must be killed by the VM timeout and
# reported as a failure.
# VM-EXPECT: fail
# VM-TIMEOUT: 90
# VM-EXPECT-MATCH: ^timed out
echo "# sleeping forever"
sleep 100000
exit 0
