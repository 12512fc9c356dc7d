#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# smoke: iotrace.ko loads, shows up in sysfs and unloads.
# VM-TIMEOUT: 300
# VM-SMP: 1
. "$IOTRACE_SRC/selftests/lib/iotrace.sh"

ktap_header 3
load_iotrace
ktap_ok "insmod iotrace.ko"
ktap_check "/sys/module/iotrace exists" test -d /sys/module/iotrace
unload_iotrace
ktap_check "rmmod iotrace" test ! -d /sys/module/iotrace
ktap_finish
