#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# submitter_off: attribution.sh with the module loaded submitter=N (issue
# 22's lever: no block_io_start probe, one tracepoint fewer per request).
# Every record has pid 0 without IOTRACE_RF_KERNEL, comms stays empty, the
# recording and its exports say so, and the cgroup is still recorded; the
# status file says "submitter: 0", and submitter=maybe fails the load.
# VM-CHECK: all
# (a module option's path: make check-all only, to keep make check
#   within its hour)
# VM-TIMEOUT: 400
# VM-SMP: 2
# read by attribution.sh
# shellcheck disable=SC2034
ATTR_SUBMITTER=N
# shellcheck source=selftests/iotrace/attribution.sh
. "$IOTRACE_SRC/selftests/iotrace/attribution.sh"
