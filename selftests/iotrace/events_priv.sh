#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# events_priv: trigger events tell about other users' requests (sector,
# size, latency, time); no user without CAP_SYS_ADMIN may read them.
#
# A read-latency trigger below null_blk's 2 ms fires on every read; root
# and "nobody" (uid 65534, setpriv) each run "iotracectl events" while
# root reads the disk with dd.
# - root receives the trigger event with its request's details (op read,
#   sector, bytes, latency);
# - nobody receives no event with a request's details.  On a kernel
#   whose generic netlink can restrict a multicast group to CAP_SYS_ADMIN
#   (GENL_MCAST_CAP_SYS_ADMIN, or the cap_sys_admin bit of stable
#   backports; every Debian kernel from 6.1 on) nobody cannot join the
#   group at all (EPERM), so receives nothing; on a kernel without either
#   nobody may join and receives the notice only: disk, reason, counts,
#   no op, sector, bytes, latency, time or record position.
# VM-CHECK: newest
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd setpriv dd
[ -x "$IOTRACECTL" ] || die "no iotracectl at $IOTRACECTL (make -C tools)"

ktap_header
out=$(mktemp -d)
chmod 777 "$out"
udevadm control --stop-exec-queue 2> /dev/null
load_iotrace disks=none buf_size=1M
lat=$(nullb_create nbpriv size=64 irqmode=2 completion_nsec=2000000)
"$IOTRACECTL" enable "$lat" || die "enable $lat failed"
"$IOTRACECTL" trigger "$lat" read-lat=500us || die "trigger read-lat=500us failed"

# Debian's kernels from 6.1 have GENL_MCAST_CAP_SYS_ADMIN (6.7, and the
# stable backports)
kv=$(uname -r | sed -E 's/^([0-9]+)\.([0-9]+).*/\1 \2/')
set -- $kv
flagged_kernel=$([ $(($1 * 1000 + $2)) -ge 6001 ] && echo 1 || echo 0)

# start USER FILE - iotracectl events as USER (root or nobody) into FILE
start() {
	local pre=
	[ "$1" = nobody ] && pre="setpriv --reuid=65534 --regid=65534 --clear-groups"
	$pre "$IOTRACECTL" events > "$2" 2> "$2.err" &
	echo $!
}

proot=$(start root "$out/root")
pnob=$(start nobody "$out/nobody")
end=$((SECONDS + 30))
until grep -q listening "$out/root.err" 2> /dev/null &&
      { grep -q listening "$out/nobody.err" 2> /dev/null ||
	! kill -0 "$pnob" 2> /dev/null; }; do
	[ $SECONDS -lt $end ] || break
	sleep 0.1
done
for i in 1 2 3; do
	dd if=/dev/"$lat" of=/dev/null bs=4k count=20 skip=$((i * 100)) \
		iflag=direct 2> /dev/null
	sleep 1.2	# past the default rate limit of 1 s
done
sleep 1
kill "$proot" "$pnob" 2> /dev/null
wait "$proot" 2> /dev/null
wait "$pnob" 2> /dev/null
sed 's/^/# root: /' "$out/root" | head -5
grep -v listening "$out/root.err" | sed 's/^/# root: /'
sed 's/^/# nobody: /' "$out/nobody" | head -5
grep -v listening "$out/nobody.err" | sed 's/^/# nobody: /'

# details KEY... - trigger lines of FILE (stdin) with any of KEY=
details() {
	grep "^trigger $lat " | grep -E " ($(echo "$@" | tr ' ' '|'))="
}

ev=$(grep -m1 "^trigger $lat " "$out/root")
ktap_check "root: a trigger event with op read, sector, bytes, latency" \
	sh -c "echo '$ev' | grep -q ' op=read' &&
	       echo '$ev' | grep -q ' sector=' &&
	       echo '$ev' | grep -q ' bytes=4096' &&
	       echo '$ev' | grep -q ' latency_ns='"
leak=$(details sector bytes latency_ns time_ns issue_ns seq cpu < "$out/nobody" | wc -l)
ktap_check "nobody: no event with a request's details ($leak)" \
	test "$leak" -eq 0
if grep -q 'cannot join' "$out/nobody.err"; then
	log "nobody could not join the events group (the kernel restricts it)"
	joined=0
else
	log "nobody joined the events group: $(grep -c "^trigger $lat " "$out/nobody") notices"
	joined=1
fi
if [ "$flagged_kernel" = 1 ]; then
	ktap_check "$(uname -r): nobody refused from the events group" \
		test "$joined" -eq 0
	ktap_check "$(uname -r): nobody received no trigger event" \
		test "$(grep -c "^trigger $lat " "$out/nobody")" -eq 0
else
	ktap_skip "$(uname -r) may have no group privilege flag (notices only, checked above)"
	ktap_skip "$(uname -r): no trigger event to nobody (kernel without the flag)"
fi
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
