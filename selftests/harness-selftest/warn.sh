#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# warn: a test that exits 0 but made the kernel WARN must be reported as a
# failure. Loads warn_on_load.ko (kmod/), whose init calls WARN().
# VM-EXPECT: fail
# VM-EXPECT-MATCH: kernel log: WARNING:
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/lib/iotrace.sh"

ko=$IOTRACE_SRC/build/$KVER/harness-selftest/warn_on_load.ko
# Without the module the test would pass and the expectation would fail:
# that is the right outcome (the self-test could not do its job).
[ -f "$ko" ] || { echo "# no $ko"; exit 0; }
ktap_header 1
insmod "$ko"
rmmod warn_on_load
ktap_ok "module that WARNs loaded and unloaded; exiting 0"
exit 0
