#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# idle: with no disk enabled no probe is attached.  Observable independent of
# iotrace's own status file: the function tracer counts calls of iotrace's
# probe functions, which run for every request whenever they are attached
# (enabled or not for that disk).  Zero calls while idle, calls once a disk
# is enabled, zero again after it is disabled.
# VM-TIMEOUT: 200
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

T=/sys/kernel/debug/tracing
[ -e $T/set_ftrace_filter ] || T=/sys/kernel/tracing
[ -e $T/set_ftrace_filter ] || skip "no function tracer"
ktap_header 7
nullb_mod nr_devices=2 irqmode=0
load_iotrace disks=none
grep -q '^iotrace_probe_complete ' $T/available_filter_functions ||
	skip "iotrace probes are not traceable functions"
echo 'iotrace_probe_*' > $T/set_ftrace_filter
echo function > $T/current_tracer

# calls DISK - iotrace probe calls seen during 200 reads of DISK.
calls() {
	echo > $T/trace
	echo 1 > $T/tracing_on
	dd if=/dev/$1 of=/dev/null bs=4k count=200 iflag=direct 2> /dev/null
	echo 0 > $T/tracing_on
	grep -c 'iotrace_probe_' $T/trace
}

ktap_check "status: no probes with disks=none" test "$(iot_status probes)" = 0
n=$(calls nullb0)
ktap_check "no probe call while idle ($n)" test "$n" -eq 0
echo 1 > "$IOT/nullb1/enable"
ktap_check "status: probes once a disk is enabled" test "$(iot_status probes)" = 1
n=$(calls nullb0)
ktap_check "probes run (for any disk) once attached ($n calls)" test "$n" -ge 400
ktap_check "the disabled disk records nothing" test "$(iot_stat nullb0 completed)" = 0
echo 0 > "$IOT/nullb1/enable"
n=$(calls nullb0)
ktap_check "no probe call after the last disk is disabled ($n)" test "$n" -eq 0
ktap_check "status: no probes" test "$(iot_status probes)" = 0
echo nop > $T/current_tracer
echo > $T/set_ftrace_filter
unload_iotrace
ktap_finish
