#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# watch: the snapshot service (issue 21), "iotracectl watch", on a live
# ring.
#
# resize: the configuration's ring-size is applied with a resize when the
#   watcher starts (state's buf_size), and not again by a watcher started
#   on a ring of that size (a resize empties the ring: the records stay).
# manual: after a dd, "iotracectl snapshot nullb0" gives one snapshot file
#   whose records are the ring's (show -o csv of both; no I/O meanwhile),
#   a manual trigger chunk, and SIGTERM ends the watcher with no temporary
#   file left.
# kernel trigger (a module with IOTRACE_CMD_SET_TRIGGER, else skipped):
#   the configuration's "trigger = read-lat=1ns" given to the module, a
#   read's trigger event makes a snapshot whose trigger chunk says
#   latency, names a record (cpu, seq) and the thresholds in force, and
#   holds records flagged IOTRACE_RF_TRIGGER; show --around-trigger
#   shows records on both sides.
# unit: with the capability bounding set of tools/systemd/iotrace.service.in
#   alone (setpriv, and no new privileges), the watcher resizes, enables
#   and gives the module its triggers: nothing refused.
# refused: with that set less CAP_NET_ADMIN (generic netlink refuses the
#   resize) or less CAP_SYS_ADMIN (the module refuses the enable), the
#   watcher says what was refused and the two capabilities it needs,
#   never says "ready" and exits 4, "insufficient privilege" (it used to
#   go on, watching nothing, as if started; then exit 1, which
#   iotrace.service's Restart=on-failure restarted every 5 s), the status
#   the unit's RestartPreventExitStatus= names.
# unload: the module unloaded under a running watcher: its events group
#   went with the family; the watcher says so and exits 1 (the unit's
#   Restart=on-failure starts it again, on the module it loads).
# VM-CHECK: newest
# VM-TIMEOUT: 300
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd dd python3
ktap_header
out=$(mktemp -d)
nullb_mod nr_devices=1 submit_queues=2 irqmode=1 gb=1
quiet_disk nullb0
load_iotrace disks=none buf_size=256K

# the watcher runs through ${wrap[@]} (watch_start): env by default
wrap=(env)

stop() {
	kill -TERM "$wpid" 2> /dev/null
	wait "$wpid"
	wrc=$?
	sed 's/^/# watch: /' "$out/log"
}

# files N [SECONDS]: wait until there are N snapshot files
files() {
	local end=$((SECONDS + ${2:-30}))
	until [ "$(ls "$out/snap" 2> /dev/null | grep -c '^iotrace-.*\.iot$')" -ge "$1" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# ---- resize ----------------------------------------------------------
watch_start "post = 0
[disk nullb0]
ring-size = 1M" || die "watch did not start"
buf=$("$IOTRACECTL" state nullb0 | sed -n 's/^buf_size: //p')
ktap_check "ring-size 1M applied with a resize (buf_size $buf)" test "$buf" = 1048576
ktap_check "the watcher enabled nullb0" \
	test "$("$IOTRACECTL" state nullb0 | sed -n 's/^enabled: //p')" = 1
dd if=/dev/nullb0 of=/dev/null bs=4k count=200 iflag=direct 2> /dev/null
sleep 1
stop
n1=$("$IOTRACECTL" show -o csv nullb0 | grep -c '^nullb0,')
watch_start "post = 0
[disk nullb0]
ring-size = 1M" || die "watch did not start again"
n2=$("$IOTRACECTL" show -o csv nullb0 | grep -c '^nullb0,')
ktap_check "a second watcher leaves a ring of that size alone ($n1 then $n2 records)" \
	test "$n1" -ge 200 -a "$n2" = "$n1"

# ---- manual ------------------------------------------------------------
"$IOTRACECTL" show -o csv nullb0 > "$out/ring.csv"
IOTRACE_RUN_DIR=$out/run "$IOTRACECTL" snapshot --config "$out/conf" nullb0 > "$out/reply"
ktap_check "snapshot nullb0: started ($(cat "$out/reply"))" grep -qx 'nullb0: started' "$out/reply"
files 1
f=$(ls "$out/snap"/iotrace-*.iot 2> /dev/null | head -1)
"$IOTRACECTL" show -o csv "$f" > "$out/snap.csv" 2> "$out/err"
ktap_check "the snapshot's records are the ring's ($(grep -c '^nullb0,' "$out/snap.csv") records)" \
	cmp -s "$out/ring.csv" "$out/snap.csv"
"$IOTRACECTL" info "$f" > "$out/info"
sed 's/^/# info: /' "$out/info"
ktap_check "info: a manual trigger of nullb0" grep -q '^trigger:  nullb0: manual at ' "$out/info"
stop
ktap_check "SIGTERM: exit 0, no temporary file" \
	test "$wrc" = 0 -a -z "$(ls -A "$out/snap" | grep -v '^iotrace-.*\.iot$')"

# ---- kernel trigger ----------------------------------------------------
if ! "$IOTRACECTL" --help | grep -q '^  trigger '; then
	ktap_skip "kernel trigger: this iotracectl has no trigger command (IOTRACE_CMD_SET_TRIGGER)"
	ktap_finish
fi
rm -rf "$out/snap"
watch_start "post = 1
[disk nullb0]
trigger = read-lat=1ns" || die "watch did not start with a trigger"
ktap_check "the conditions were given to the module" \
	eval '! grep -q "trigger conditions .* not given" "$out/log"'
dd if=/dev/nullb0 of=/dev/null bs=4k count=100 iflag=direct 2> /dev/null
files 1
sleep 2
stop
f=$(ls "$out/snap"/iotrace-*.iot 2> /dev/null | head -1)
"$IOTRACECTL" info "$f" | sed 's/^/# info: /'
"$IOTRACECTL" info -o json "$f" > "$out/info.json" 2>&1
ktap_check "the snapshot's trigger: latency, a named record, read-lat=1ns in force" \
	python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["triggers"][0]
assert t["disk"] == "nullb0" and t["reason"] == "latency", t
assert t["seq"] is not None and t["cpu"] is not None, t
assert t["thresholds"] == "read-lat=1ns", t' "$out/info.json"
"$IOTRACECTL" show -o csv "$f" > "$out/snap.csv"
ktap_check "the snapshot holds records the kernel flagged as triggering" \
	python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert any(int(r["rflags"], 0) & 0x8000 for r in rows), len(rows)' "$out/snap.csv"
"$IOTRACECTL" show -o csv --around-trigger=3 "$f" > "$out/around.csv"
ktap_check "show --around-trigger=3: records on both sides" \
	python3 -c 'import csv, json, sys
tm = json.load(open(sys.argv[1]))["triggers"][0]["mono_ns"]
rows = list(csv.DictReader(open(sys.argv[2])))
b = [r for r in rows if int(r["complete_ns"]) < tm]
a = [r for r in rows if int(r["complete_ns"]) >= tm]
assert len(b) == 3 and len(a) >= 1, (len(b), len(a))' "$out/info.json" "$out/around.csv"
# ---- the unit's capabilities -----------------------------------------
# systemd runs the watcher with the bounding set of iotrace.service as
# the packages install it (and NoNewPrivileges=): with those capabilities
# and no others it must resize, enable and give the module its triggers.
# Generic netlink checks CAP_NET_ADMIN for the state changes
# (GENL_ADMIN_PERM) before the module checks CAP_SYS_ADMIN: a set of
# CAP_SYS_ADMIN alone was refused everything (EPERM).
unit=$IOTRACE_SRC/tools/systemd/iotrace.service.in
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
bset=-all
for c in $caps; do
	c=${c#CAP_}
	bset+=,+${c,,}
done
log "iotrace.service: CapabilityBoundingSet=$caps (setpriv --bounding-set=$bset)"
"$IOTRACECTL" trigger nullb0 off > /dev/null 2>&1
"$IOTRACECTL" disable nullb0
rm -rf "$out/snap"
wrap=(setpriv --bounding-set="$bset" --inh-caps=-all --no-new-privs)
ok=1
watch_start "post = 0
[disk nullb0]
ring-size = 512K
trigger = read-lat=1s" || ok=0
stop
ktap_check "with the unit's capabilities the watcher starts (exit $wrc)" \
	test $ok = 1 -a "$wrc" = 0
ktap_check "and nothing it asked the module was refused" \
	eval '! grep -Eqi "not permitted|EPERM|needs CAP_|not given" "$out/log"'
buf=$("$IOTRACECTL" state nullb0 | sed -n 's/^buf_size: //p')
ktap_check "it resized the ring (buf_size $buf)" test "$buf" = 524288
ktap_check "it enabled the disk" \
	test "$("$IOTRACECTL" state nullb0 | sed -n 's/^enabled: //p')" = 1

# ---- refused for want of a capability ----------------------------------
# refused CAP OP CONF: the watcher under the unit's bounding set less CAP
# must stop at OP (refused with EPERM) with one error naming OP and the
# capabilities, before "ready" (a watcher that goes on is ended after 20 s
# of waiting for it to exit, and counted as running)
refused() {
	local cap=$1 op=$2 rc end
	local c=${1#CAP_}
	local set=${bset/,+${c,,}/}

	log "without $cap: setpriv --bounding-set=$set"
	printf '%s\n' "$3" > "$out/conf"
	IOTRACE_RUN_DIR=$out/run setpriv --bounding-set="$set" \
		--inh-caps=-all --no-new-privs "$IOTRACECTL" watch \
		--config "$out/conf" --dir "$out/snap" 2> "$out/log" &
	wpid=$!
	end=$((SECONDS + 20))
	while kill -0 "$wpid" 2> /dev/null && [ "$SECONDS" -lt "$end" ]; do
		sleep 0.2
	done
	if kill -0 "$wpid" 2> /dev/null; then
		kill -TERM "$wpid"
		wait "$wpid"
		rc=running
	else
		wait "$wpid"
		rc=$?
	fi
	sed 's/^/# watch: /' "$out/log"
	ktap_check "without $cap the watcher exits 4 (exit $rc)" \
		test "$rc" = 4
	ktap_check "without $cap: the unit does not restart it (RestartPreventExitStatus=$rc)" \
		grep -qx "RestartPreventExitStatus=$rc" "$unit"
	ktap_check "without $cap: one error, $op refused, the capabilities named" \
		test "$(grep -c "nullb0: $op refused (Operation not permitted.*): the watcher needs CAP_SYS_ADMIN and CAP_NET_ADMIN" "$out/log")" = 1
	ktap_check "without $cap it never said ready" \
		eval '! grep -q "ready:" "$out/log"'
}
refused CAP_NET_ADMIN resize "post = 0
[disk nullb0]
ring-size = 1M
trigger = read-lat=1s"
buf=$("$IOTRACECTL" state nullb0 | sed -n 's/^buf_size: //p')
ktap_check "the refused resize left the ring alone (buf_size $buf)" \
	test "$buf" = 524288
"$IOTRACECTL" disable nullb0
refused CAP_SYS_ADMIN enable "post = 0
[disk nullb0]"
ktap_check "the refused enable left the disk disabled" \
	test "$("$IOTRACECTL" state nullb0 | sed -n 's/^enabled: //p')" = 0
wrap=(env)

# ---- the module unloaded under the watcher -------------------------------
# Its events group goes with its family: a watcher left running would be
# deaf, and the module loaded next would know none of its conditions.  It
# stops with exit 1 and says why (the service manager starts it again).
"$IOTRACECTL" enable nullb0
watch_start "post = 0
[disk nullb0]
trigger = read-lat=1s" || die "watch did not start before the unload"
unload_iotrace
end=$((SECONDS + 30))
while kill -0 "$wpid" 2> /dev/null && [ "$SECONDS" -lt "$end" ]; do
	sleep 0.2
done
kill -0 "$wpid" 2> /dev/null && left=running || left=stopped
stop
ktap_check "the module unloaded: the watcher $left, exit $wrc, saying why" \
	sh -c "[ $left = stopped ] && [ $wrc = 1 ] &&
	       grep -q 'the iotrace module was unloaded: stopping' '$out/log'"

ktap_check "no kernel warning" no_kernel_splat
ktap_finish
