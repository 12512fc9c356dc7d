#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# soak_nvme: selftests/iotrace/fault_nvme.sh at its full size (make soak).
# VM-DEVICES: nvme
# VM-TIMEOUT: 3600
# VM-SMP: 2
export FAULT_NVME_LOOPS=${FAULT_NVME_LOOPS:-20}
export FAULT_NVME_FIO=${FAULT_NVME_FIO:-1}
exec "$IOTRACE_SRC/selftests/iotrace/fault_nvme.sh"
