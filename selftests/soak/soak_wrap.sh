#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# soak_wrap: selftests/iotrace/fault_wrap.sh at its full size (make soak).
# VM-TIMEOUT: 7200
# VM-SMP: 2
export FAULT_WRAP_RECORDS=${FAULT_WRAP_RECORDS:-10000000}
exec "$IOTRACE_SRC/selftests/iotrace/fault_wrap.sh"
