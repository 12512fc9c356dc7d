#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ctl_fuzz: the control surface under random and mutated requests, as
# root and as nobody, while disks come and go and the rings are resized,
# cleared, filtered, held and released under I/O.
#
# Two null_blk disks under fio (both CPUs), a third one added and removed
# in a loop; meanwhile (nlfuzz.py, fixed seeds: CTL_FUZZ_SEED,
# CTL_FUZZ_COUNT (default 3000, 1000 on a debug kernel) and
# CTL_FUZZ_ROUNDS (default 4, 2 on a debug kernel) to change them):
#   - root: generic netlink requests of every command, half well-formed,
#     half with random, damaged and oversized attributes (batches of
#     CTL_FUZZ_COUNT / 2, at least two), beside CTL_FUZZ_ROUNDS rounds of enable,
#     disable, resize, clear, filter, trigger with a hold of the most
#     allowed and its release, and one of opens, read-only mmaps, reads
#     and ioctls (bad pointers, huge counts) of /dev/iotrace;
#   - nobody (setpriv, no capability): CTL_FUZZ_COUNT requests.
# Oracles:
#   - every request is answered (none left waiting), the family answers a
#     last LIST naming the disks;
#   - nobody: no request that changes state succeeds, and each disk's
#     state (enabled, buf_size, filter, triggers, resizes, generation) is
#     what it was before;
#   - no writable mapping of /dev/iotrace;
#   - afterwards the module still records: 200 reads of a disk are its
#     recorded count's delta and its /sys/block stat's;
#   - the module unloads, and the kernel reported nothing (the harness
#     scans the log; a debug kernel's KASAN, lockdep, KCSAN or kmemleak
#     report with an iotrace frame fails the test: make check-debug).
# Its enables and disables under I/O attach and detach the block
# tracepoints' probes, a text patch each (text_poke_bp) while both vCPUs
# run through those sites: multi-threaded TCG ran a stale translation and
# died of "Oops: int3" in blk_update_request twice in one CI run (7.3),
# so the vCPUs take turns (VM-ACCEL: single, as fault_module).
# VM-CHECK: all
# (a fuzzer: make check-all only (fuzzing has targets of its own), to keep
#   make check within its hour)
# VM-TIMEOUT: 900
# VM-SMP: 2
# VM-ACCEL: single
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd python3 setpriv fio
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"
fuzz=$IOTRACE_SRC/selftests/iotrace/nlfuzz.py
seed=${CTL_FUZZ_SEED:-4711}
count=${CTL_FUZZ_COUNT:-$(kdebug_or 3000 1000)}
rounds=${CTL_FUZZ_ROUNDS:-$(kdebug_or 4 2)}

ktap_header
out=$(mktemp -d)
chmod 777 "$out"
udevadm control --stop-exec-queue 2> /dev/null
load_iotrace disks=all buf_size=256K
a=$(nullb_create nbfa size=256 irqmode=1 submit_queues=2)
b=$(nullb_create nbfb size=256 irqmode=2 completion_nsec=20000)
for d in "$a" "$b"; do
	wait_for "$IOT/$d/stats" 10 || die "$d was not attached"
	"$IOTRACECTL" enable "$d" || die "enable $d failed"
done
log "seed $seed, $count requests per user; disks $a $b"

for cpu in 0 1; do
	fio --name=f$cpu --filename=/dev/$a:/dev/$b --direct=1 \
	    --ioengine=libaio --iodepth=4 --rw=randrw --bs=4k --size=64m \
	    --time_based --runtime=900 --cpus_allowed=$cpu \
	    --output=/dev/null > /dev/null 2>&1 &
	fpid[cpu]=$!
done

# ---- root: requests beside control, hotplug and device loops -----------
# chaos ROUND - one round of control operations on the disks
chaos() {
	local c
	c=$(nullb_create nbfc size=64 irqmode=0) || return
	"$IOTRACECTL" enable "$c"
	dd if=/dev/"$c" of=/dev/null bs=4k count=8 iflag=direct 2> /dev/null
	"$IOTRACECTL" resize "$a" $((($1 % 3 + 1) * 64))K
	"$IOTRACECTL" clear "$b"
	"$IOTRACECTL" filter "$a" ops=read
	"$IOTRACECTL" trigger "$b" read-lat=1us hold=max
	"$IOTRACECTL" disable "$b"
	"$IOTRACECTL" enable "$b"
	"$IOTRACECTL" trigger "$b" off
	"$IOTRACECTL" filter "$a" off
	nullb_destroy nbfc
}
# CTL_FUZZ_ROUNDS rounds of control operations; the device loop and the
# requests (batches of COUNT / 2, a seed each) go on until they end
(
	for i in $(seq "$rounds"); do
		(chaos "$i") > /dev/null 2>&1
	done
	touch "$out/stop"
) &
cpid=$!
(
	n=0
	while [ ! -e "$out/stop" ]; do
		python3 "$fuzz" dev $((seed + n)) 50 "$a" "$b" >> "$out/dev.txt" 2>&1 ||
			touch "$out/dev.fail"
		n=$((n + 1))
	done
) &
dpid=$!
rc_root=0 batches=0
while [ "$batches" -lt 2 ] || [ ! -e "$out/stop" ]; do
	python3 "$fuzz" genl $((seed + 100 + batches)) $((count / 2)) \
		"$a" "$b" nbfc > "$out/root.$batches" 2>&1 || rc_root=1
	batches=$((batches + 1))
done
wait "$cpid" "$dpid"
# one summary of the batches
cat "$out"/root.[0-9]* |
	awk -F': ' '/^(errno|send|sent|no answer|privileged)/ { n[$1] += $2 }
		    /^#|^last/ { print }
		    END { for (k in n) printf "%s: %d\n", k, n[k] }' > "$out/root.txt"
sed 's/^/# root: /' "$out/root.txt"
log "$batches batches of requests beside $rounds rounds of control"
grep -E '^(writable|mmap|ioctl|records|open)' "$out/dev.txt" |
	awk -F': ' '{ n[$1] += $2 } END { for (k in n) printf "# dev: %s: %d\n", k, n[k] }' |
	sort
ktap_check "root: every request answered, the family lists the disks after" \
	test "$rc_root" = 0
ktap_check "no writable mapping of /dev/iotrace ($(grep -c . "$out/dev.txt") lines of device rounds)" \
	test ! -e "$out/dev.fail"

# ---- nobody --------------------------------------------------------------
# the check can fail: root's requests, judged as nobody's, get through
python3 "$fuzz" genl "$seed" 300 --nobody "$a" "$b" > "$out/self.txt" 2>&1
rc_self=$?
ktap_check "the privilege check sees root's successes ($(sed -n 's/^privileged successes: //p' "$out/self.txt") of 300)" \
	test "$rc_self" = 1
# the disks' state as root sets it (whatever the requests above left),
# counters and the hold (it may expire meanwhile) aside
"$IOTRACECTL" trigger "$a" off > /dev/null
"$IOTRACECTL" filter "$b" off > /dev/null
"$IOTRACECTL" trigger "$b" read-lat=50ms > /dev/null
"$IOTRACECTL" filter "$a" min-bytes=512 > /dev/null
state() {
	for d in "$a" "$b"; do
		"$IOTRACECTL" state "$d" |
			grep -E '^(disk|enabled|buf_size|ring_size|generation|resizes|filter_[a-z_]+|trigger_[a-z_]+):' |
			grep -v -E '^trigger_(hits|events|suppressed)'
	done
}
state > "$out/state0"
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	python3 "$fuzz" genl $((seed + 1)) "$count" --nobody "$a" "$b" \
	> "$out/nobody.txt" 2>&1
rc_nobody=$?
state > "$out/state1"
sed 's/^/# nobody: /' "$out/nobody.txt"
ktap_check "nobody: no request that changes state succeeded, every one answered" \
	test "$rc_nobody" = 0
ktap_check "nobody changed no disk's state ($(wc -l < "$out/state0") lines)" \
	cmp -s "$out/state0" "$out/state1"
diff "$out/state0" "$out/state1" | sed 's/^/# /'

# ---- still recording, then unloads ---------------------------------------
for cpu in 0 1; do
	kill "${fpid[cpu]}" 2> /dev/null
done
wait "${fpid[@]}" 2> /dev/null
"$IOTRACECTL" filter "$a" off > /dev/null
"$IOTRACECTL" trigger "$b" off > /dev/null
"$IOTRACECTL" resize "$a" 256K > /dev/null
"$IOTRACECTL" enable "$a" > /dev/null
settle
r0=$(iot_stat "$a" recorded)
s0=$(blk_ios "$a")
dd if=/dev/"$a" of=/dev/null bs=4k count=200 iflag=direct 2> /dev/null
r1=$(iot_stat "$a" recorded)
s1=$(blk_ios "$a")
ktap_check "the module still records: 200 reads, recorded +$((r1 - r0)), stat +$((s1 - s0))" \
	test $((r1 - r0)) = 200 -a $((s1 - s0)) = 200
nullb_destroy nbfa
nullb_destroy nbfb
ktap_check "the module unloads" rmmod iotrace
ktap_check "no kernel report" no_kernel_splat
ktap_finish
