#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fail: a guest test that exits 1 must be reported as a failure, naming
# its first failed check.
# VM-EXPECT: fail
# VM-EXPECT-MATCH: ^test exited with 1: not ok 1 deliberate failure$
# VM-TIMEOUT: 300
echo "TAP version 13"
echo "1..1"
echo "not ok 1 deliberate failure"
exit 1
