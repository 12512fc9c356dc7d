#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ring_depth_smp1: ring_depth.sh on a single CPU (issue 16 asks for -smp 1
# and -smp 8): the "all CPUs" and "moving" loads then run on CPU 0 alone.
# VM-CHECK: newest
# VM-TIMEOUT: 600
# VM-SMP: 1
exec bash "$IOTRACE_SRC/selftests/iotrace/ring_depth.sh"
