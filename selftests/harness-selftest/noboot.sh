#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# noboot: a guest that dies before reaching the test (here: no init, so the
# kernel panics) is retried once and then reported as "never reached the
# test", not as a test failure. Overriding rdinit= (the last one wins)
# makes every boot of this test fail.
# VM-CHECK: all
# VM-EXPECT: fail
# VM-EXPECT-MATCH: ^guest never reached the test
# VM-CMDLINE: rdinit=/no-such-init
# VM-TIMEOUT: 120
exit 0
