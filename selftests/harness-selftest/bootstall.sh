#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bootstall: a guest whose boot hangs before the test (here its init only
# sleeps) is killed at VM-BOOT-TIMEOUT, retried once and reported as
# never reaching the test within that time, not waited for until
# VM-TIMEOUT (a debug kernel's early-boot hang kept make check-debug's
# batch for its whole limit, 84 minutes).
# VM-CHECK: all
# VM-EXPECT: fail
# VM-EXPECT-MATCH: ^guest never reached the test within 20s
# VM-CMDLINE: rdinit=/bin/busybox sleep 86400
# VM-BOOT-TIMEOUT: 20
# VM-TIMEOUT: 600
exit 0
