#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# soak_disks: selftests/iotrace/fault_disks.sh at its full size (make soak).
# VM-TIMEOUT: 3600
# VM-SMP: 2
export FAULT_DISK_LOOPS=${FAULT_DISK_LOOPS:-50}
exec "$IOTRACE_SRC/selftests/iotrace/fault_disks.sh"
