#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# inflight: requests held by null_blk (irqmode=2, 3 s completion latency)
# are listed in <disk>/inflight, oldest first, with the sectors in the order
# they were issued; once they complete the list is empty and every record's
# latency is at least null_blk's configured completion time.
# VM-TIMEOUT: 200
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

ktap_header 7
out=$(mktemp -d)
lat=3000000000
nullb_mod nr_devices=1 irqmode=2 completion_nsec=$lat submit_queues=1
disk=nullb0
quiet_disk $disk
load_iotrace disks=$disk
udevadm control --stop-exec-queue 2> /dev/null
echo 1 > "$IOT/$disk/clear"
pids=
for blk in 1000 20 300 4; do
	dd if=/dev/$disk of=/dev/null bs=4k count=1 skip=$blk iflag=direct \
		2> /dev/null &
	pids="$pids $!"
	sleep 0.2
done
sleep 0.5
cat "$IOT/$disk/inflight" > "$out/inflight"
n=$(iot_stat $disk inflight)
sed 's/^/# /' "$out/inflight"
ktap_check "header line" test "$(head -1 "$out/inflight")" = \
	"ISSUE_NS AGE_US OP SECTOR BYTES HWQ TAG CPU"
ktap_check "stats: 4 in flight ($n)" test "$n" = 4
ktap_check "oldest first, in issue order" test \
	"$(awk 'NR > 1 { printf "%s ", $4 }' "$out/inflight")" = "8000 160 2400 32 "
ktap_check "issue times ascending" sh -c \
	"awk 'NR > 1 { print \$1 }' '$out/inflight' | sort -c -n"
ktap_check "op and size" test \
	"$(awk 'NR > 1 { printf "%s/%s ", $3, $5 }' "$out/inflight")" = \
	"READ/4096 READ/4096 READ/4096 READ/4096 "
wait $pids
udevadm control --start-exec-queue 2> /dev/null
ktap_check "nothing in flight afterwards" test "$(iot_stat $disk inflight)" = 0
awk -v lat=$lat 'NR > 1 && $4 == "READ" { n++; if ($2 < lat) bad++ }
	END { print n + 0, bad + 0 }' "$IOT/$disk/trace" > "$out/lat"
log "reads, below configured latency: $(cat "$out/lat")"
ktap_check "every read's latency >= null_blk completion_nsec" \
	test "$(cat "$out/lat")" = "4 0"
unload_iotrace
rm -rf "$out"
ktap_finish
