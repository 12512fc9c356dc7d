#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# soak_module: selftests/iotrace/fault_module.sh at its full size (make soak).
# VM-TIMEOUT: 3600
# VM-SMP: 2
# VM-ACCEL: single
export FAULT_MODULE_LOOPS=${FAULT_MODULE_LOOPS:-50}
export FAULT_RESIZE_LOOPS=${FAULT_RESIZE_LOOPS:-50}
export FAULT_UNLOAD_LOOPS=${FAULT_UNLOAD_LOOPS:-50}
exec "$IOTRACE_SRC/selftests/iotrace/fault_module.sh"
