# SPDX-License-Identifier: GPL-2.0
# Host tests of "iotracectl watch" and "iotracectl snapshot" (issue 21) on
# the fake debugfs: sourced by run-host-tests.sh once per binary ($BIN,
# $SFX), with its $T, $ROOT, result and refuse.  Each watcher gets its own
# copy of the fake debugfs ($W/dfs, which gen push writes into), a fake
# sysfs with the disk's identity ($W/sys), a run dir for the control
# socket ($W/run) and a snapshot directory ($W/snap).

# A run dir for the watchers the tests start without one of their own
# (refusals): a watcher locks RUN_DIR/watch.lock first, never the host's
# /run/iotrace here.
export IOTRACE_RUN_DIR="$T/run-default$SFX"

# wstart NAME [CONF-LINES] -- ARGS...: start a watcher, wait for "ready"
wstart() {
	W="$T/w-$1$SFX"
	rm -rf "$W"
	mkdir -p "$W/sys/block/nullb0/device" "$W/sys/block/sda/device"
	cp -r "$T/dfs" "$W/dfs"
	# a second ring, nullb1 (a copy of nullb0's), when $WDISK2 is set
	[ -z "${WDISK2:-}" ] || cp -r "$W/dfs/nullb0" "$W/dfs/nullb1"
	# rings nullb1 to nullb<N-1> (copies of nullb0's, each ring with its
	# own name in its header), when $WDISKS is N
	k=1
	while [ $k -lt "${WDISKS:-0}" ]; do
		cp -r "$W/dfs/nullb0" "$W/dfs/nullb$k"
		python3 -c 'import sys
f = open(sys.argv[1], "r+b")
f.seek(104)	# struct iotrace_ring_hdr.name
f.write(sys.argv[2].encode().ljust(32, b"\0"))' "$W/dfs/nullb$k/ring" "nullb$k"
		k=$((k + 1))
	done
	echo "FakeDisk 9000" > "$W/sys/block/nullb0/device/model"
	echo "SN123" > "$W/sys/block/nullb0/device/serial"
	echo "naa.5000c500a1b2c3d4" > "$W/sys/block/nullb0/wwid"
	echo "SDA-SERIAL" > "$W/sys/block/sda/device/serial"
	printf '%s\n' "$2" > "$W/conf"
	shift 3
	mkdir -p "$W/dev" "$W/by-id"
	: > "$W/dev/nullb0"
	ln -s ../dev/nullb0 "$W/by-id/fake-SN123"
	IOTRACE_DEBUGFS="$W/dfs" IOTRACE_SYSFS="$W/sys" IOTRACE_RUN_DIR="$W/run" \
		IOTRACE_BY_ID="$W/by-id" "$ROOT/$BIN" watch --config "$W/conf" --dir "$W/snap" "$@" \
		> "$W/out" 2> "$W/log" &
	WPID=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q 'ready:' "$W/log" 2> /dev/null; do
		kill -0 $WPID 2> /dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	grep -q 'ready:' "$W/log"
}

# wsnap [DISK]: iotracectl snapshot against the current watcher
wsnap() {
	IOTRACE_RUN_DIR="$W/run" "$ROOT/$BIN" snapshot --config "$W/conf" "$@"
}

# wstop: SIGTERM, and the watcher's exit status in $WRC
wstop() {
	kill -TERM $WPID 2> /dev/null
	wait $WPID
	WRC=$?
}

# nfiles: the snapshot files in $W/snap
nfiles() {
	ls "$W/snap" 2> /dev/null | grep -c '^iotrace-.*\.iot$'
}

# wfiles N [SECONDS]: wait until there are N snapshot files (default 10 s)
wfiles() {
	i=0
	while [ $i -lt $((${2:-10} * 10)) ] && [ "$(nfiles)" -lt "$1" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(nfiles)" -ge "$1" ]
}

# wlog PATTERN [N]: wait until the log has N lines (default 1) matching
wlog() {
	i=0
	while [ $i -lt 100 ] && [ "$(grep -c -- "$1" "$W/log")" -lt "${2:-1}" ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# wsettle: wait until no snapshot was saved for 0.5 s (the saver is idle)
wsettle() {
	i=0
	a=-1
	while [ $i -lt 40 ]; do
		b=$(grep -c ': snapshot [0-9]*: ' "$W/log")
		[ "$a" = "$b" ] && break
		a=$b
		sleep 0.5
		i=$((i + 1))
	done
}

# show ARGS: iotracectl on the watcher's fake debugfs
wcli() {
	IOTRACE_DEBUGFS="$W/dfs" "$ROOT/$BIN" "$@"
}

# 1. SIGUSR1: one snapshot whose records are the ring's, identity in it
wstart usr1 "" -- --post 0 nullb0
WS=$?
wcli show -o csv nullb0 > "$W/ring.csv" 2> "$W/err"
kill -USR1 $WPID
wfiles 1
F=$(ls "$W/snap"/iotrace-*.iot 2> /dev/null | head -1)
wcli show -o csv "$F" > "$W/snap.csv" 2>> "$W/err"
[ $WS = 0 ] && [ "$(nfiles)" = 1 ] && [ "$(wc -l < "$W/ring.csv")" = 257 ] &&
	diff -u "$W/ring.csv" "$W/snap.csv" > "$W/diff" 2>&1
result $? "watch_sigusr1_snapshot_records_equal_ring$SFX" "$W/diff"
# a whole file for every reader: exit 0, nothing said (a chunk written
# outside the writer's framing, e.g. without its checksum, would not be)
wcli show "$F" > /dev/null 2> "$W/err2" && wcli stats "$F" > /dev/null 2>> "$W/err2" &&
	wcli export -f csv "$F" > /dev/null 2>> "$W/err2" && [ ! -s "$W/err2" ]
result $? "watch_snapshot_reads_whole$SFX" "$W/err2"
wcli info "$F" > "$W/info" 2>&1
grep -q '^trigger:  nullb0: manual at ' "$W/info" &&
	grep -q 'record:     none named' "$W/info" &&
	grep -qx '  identity:   model "FakeDisk 9000", serial "SN123", wwn "naa.5000c500a1b2c3d4"' "$W/info" &&
	wcli stats "$F" 2>&1 | grep -q 'written 256, lost 0'
result $? "watch_info_shows_trigger_and_identity$SFX" "$W/info"
wcli info -o json "$F" > "$W/info.json" 2>&1
python3 - "$W/info.json" > "$W/why" 2>&1 <<'EOF_PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = j["triggers"]
assert len(t) == 1, t
t = t[0]
assert t["disk"] == "nullb0" and t["reason"] == "manual", t
assert t["reason_bits"] == 1 << 16 and t["seq"] is None and t["extra"] == 0, t
assert t["number"] == 1 and t["post_ns"] == 0 and t["episode_ns"] == 10**9, t
assert t["model"] == "FakeDisk 9000" and t["serial"] == "SN123", t
assert t["wwn"] == "naa.5000c500a1b2c3d4" and not t["post_cut"], t
assert t["save_mono_ns"] <= j["start_mono_ns"], (j, t)
assert t["mono_ns"] <= t["save_mono_ns"], t
EOF_PY
result $? "watch_info_json_trigger$SFX" "$W/why"
# older readers skip the chunk: info of the file without it is the same
ls "$W/snap" | grep -v '^iotrace-.*\.iot$' > "$W/why"
[ ! -s "$W/why" ]
result $? "watch_no_temporary_file_left$SFX" "$W/why"
wstop
[ $WRC = 0 ] && [ ! -e "$W/run/watch.sock" ] &&
	grep -q 'stopped: 1 snapshots saved' "$W/log"
result $? "watch_sigterm_clean_exit$SFX (exit $WRC)" "$W/log"

# 1a. the temporary file of a snapshot is a new file: a symbolic link
# planted at the name the watcher would have used if it went by its pid
# and the snapshot's number alone is not followed, the file it points to
# stays as it was, and the snapshot is a file of its own
wstart symlink "" -- --post 0 nullb0
WS=$?
echo "not for the watcher" > "$W/victim"
chmod 600 "$W/victim"
ln -s "$W/victim" "$W/snap/.iotrace-000001.$WPID.tmp"
kill -USR1 $WPID
wfiles 1
wsettle
F=$(ls "$W/snap"/iotrace-*.iot 2> /dev/null | head -1)
wstop
{
	ls -lA "$W/snap" "$W/victim"; cat "$W/log"
} > "$W/why" 2>&1
[ $WS = 0 ] && [ "$(cat "$W/victim")" = "not for the watcher" ] &&
	[ "$(stat -c %a "$W/victim")" = 600 ] && [ -f "$F" ] && [ ! -L "$F" ] &&
	[ "$(stat -c %a "$F")" = 640 ] && wcli info "$F" > /dev/null 2>> "$W/why"
result $? "watch_snapshot_temporary_file_follows_no_symlink$SFX" "$W/why"

# 1c. a client of the control socket that trickles its line, a byte
# every 0.8 s, is answered with an error once its time (1 s in all) is
# up: another client's "snapshot nullb0" is answered meanwhile, and
# SIGTERM while a second one trickles stops the watcher (bounds, not
# measures: a watcher that waited for the trickling clients took 30 s)
trickle() { # trickle SECONDS OUT: a slow client, in the background
	python3 - "$W/run/watch.sock" "$1" > "$2" 2>&1 <<'EOF_PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print("connected", flush=True)
s.settimeout(0.8)
end = time.monotonic() + float(sys.argv[2])
got = b"(no reply)"
try:
    while time.monotonic() < end:
        s.send(b"s")
        try:
            got = s.recv(1024)
            break
        except socket.timeout:
            pass
except OSError as e:
    got = str(e).encode()
print("slow client: %r" % got)
EOF_PY
	TRICKLE=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q connected "$2" 2> /dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}
ms() {
	echo $(($(date +%s%N) / 1000000))
}
wstart slow "" -- --post 0 nullb0
WS=$?
trickle 30 "$W/slow1"
S1=$TRICKLE
t0=$(ms)
wsnap nullb0 > "$W/reply" 2>&1
t1=$(ms)
trickle 30 "$W/slow2"
S2=$TRICKLE
t2=$(ms)
kill -TERM $WPID
i=0
while [ $i -lt 300 ] && kill -0 $WPID 2> /dev/null; do
	sleep 0.1
	i=$((i + 1))
done
t3=$(ms)
wstop
wait $S1 $S2
{
	echo "snapshot answered after $((t1 - t0)) ms: $(cat "$W/reply")"
	echo "SIGTERM: the watcher gone after $((t3 - t2)) ms"
	cat "$W/slow1" "$W/slow2" "$W/log"
} > "$W/why"
[ $WS = 0 ] && [ $((t1 - t0)) -lt 10000 ] &&
	[ "$(cat "$W/reply")" = "nullb0: started" ] &&
	[ $((t3 - t2)) -lt 10000 ] && [ $WRC = 0 ] &&
	grep -q "^slow client: b'error: no request line within 1000 ms" "$W/slow1"
result $? "watch_slow_client_holds_neither_clients_nor_sigterm$SFX" "$W/why"

# 1b. SIGUSR1 with 30 disks: one snapshot, saved under a name that stays
# short (the first disk's and "+29-more"), that holds every disk
WDISKS=30 wstart many "" -- --post 0 $(seq -f 'nullb%g' 0 29)
WS=$?
kill -USR1 $WPID
wfiles 1
F=$(ls "$W/snap"/iotrace-*.iot 2> /dev/null | head -1)
wcli info -o json "$F" > "$W/info.json" 2> "$W/err"
wcli show -o csv "$F" > "$W/snap.csv" 2>> "$W/err"
wstop
cat "$W/log" >> "$W/err"
[ $WS = 0 ] && [ "$(nfiles)" = 1 ] &&
	case "$(basename "$F")" in iotrace-*-nullb0+29-more-000001.iot) ;; *) false ;; esac &&
	python3 - "$W/info.json" "$W/snap.csv" >> "$W/err" 2>&1 <<'EOF_PY'
import csv, json, sys
want = ["nullb%d" % i for i in range(30)]
j = json.load(open(sys.argv[1]))
assert [d["name"] for d in j["disks"]] == want, j["disks"]
assert sorted(t["disk"] for t in j["triggers"]) == sorted(want), j["triggers"]
rows = list(csv.DictReader(open(sys.argv[2])))
n = {}
for r in rows:
    n[r["disk"]] = n.get(r["disk"], 0) + 1
assert sorted(n) == sorted(want) and set(n.values()) == {256}, n
EOF_PY
result $? "watch_snapshot_of_30_disks_short_name$SFX ($(basename "${F:-none}"))" "$W/err"

# 2. records completed during --post are in the snapshot, after the ring's
wstart post "" -- --post 3 nullb0
wcli show -o csv nullb0 > "$W/ring.csv" 2> "$W/err"
kill -USR1 $WPID
wlog 'trigger (manual)'
sleep 0.3
build/gen push "$W/dfs/nullb0/ring" 20
wfiles 1
F=$(ls "$W/snap"/iotrace-*.iot 2> /dev/null | head -1)
wcli show -o csv "$F" > "$W/snap.csv" 2>> "$W/err"
python3 - "$W/ring.csv" "$W/snap.csv" > "$W/why" 2>&1 <<'EOF_PY'
import csv, sys
ring = list(csv.DictReader(open(sys.argv[1])))
snap = list(csv.DictReader(open(sys.argv[2])))
old = [r for r in snap if int(r["complete_ns"]) < 1500000000]
new = [r for r in snap if int(r["complete_ns"]) >= 1500000000]
assert len(ring) == 256 and old == ring, (len(ring), len(old))
assert len(new) == 20, len(new)
EOF_PY
result $? "watch_post_records_in_snapshot$SFX" "$W/why"
wstop

# 3. two triggers within the episode window: one snapshot, one extra
wstart episode "" -- --post 2 --episode 3 nullb0
kill -USR1 $WPID
wlog 'trigger (manual)'
sleep 0.3
kill -USR1 $WPID
wlog 'trigger (manual)' 2
wfiles 1
wsettle
n=$(nfiles)
F=$(ls "$W/snap"/iotrace-*.iot 2> /dev/null | head -1)
wcli info -o json "$F" > "$W/info.json" 2>&1
wstop
[ "$n" = 1 ] && python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["triggers"][0]
assert t["extra"] == 1, t' "$W/info.json" > "$W/why" 2>&1
result $? "watch_episode_two_triggers_one_snapshot$SFX ($n files)" "$W/why"

# 4. a trigger while the snapshot is being saved: within the window it
# joins, after it queues one next snapshot, which later ones join.  The
# second must come within the 3 s episode and the last before the first
# snapshot's --post (8 s) ends: room for client starts on a loaded host
# (the sanitized binary beside two guests and builds took over 1 s)
wstart queue "" -- --post 8 --episode 3 nullb0
{
	wsnap nullb0
	sleep 0.2
	wsnap nullb0
	sleep 3.3
	wsnap nullb0
	sleep 0.1
	wsnap nullb0
} > "$W/replies" 2>&1
wfiles 2 40
wsettle
ls "$W/snap"/iotrace-*.iot > "$W/list" 2>&1
: > "$W/info.jsonl"
for f in $(cat "$W/list"); do
	wcli info -o json "$f" >> "$W/info.jsonl" 2>&1
done
wstop
python3 - "$W/replies" "$W/info.jsonl" > "$W/why" 2>&1 <<'EOF_PY'
import json, sys
rep = open(sys.argv[1]).read().splitlines()
assert rep == ["nullb0: started", "nullb0: joined", "nullb0: queued",
               "nullb0: joined the queued snapshot"], rep
t = sorted((json.loads(l)["triggers"][0] for l in open(sys.argv[2])),
           key=lambda t: t["number"])
assert [x["number"] for x in t] == [1, 2], t
assert t[0]["extra"] == 1 and not t[0]["queued"], t[0]
assert t[1]["extra"] == 1 and t[1]["queued"], t[1]
# the queued snapshot's trigger is the first queued one, 3.5 s after
# (plus two client starts)
assert 3.4e9 < t[1]["mono_ns"] - t[0]["mono_ns"] < 7.5e9, t
EOF_PY
result $? "watch_trigger_while_saving_joins_or_queues_one$SFX" "$W/why"

# 4b. one saver per disk: a trigger of nullb1 while nullb0's snapshot is
# in its --post starts at once (not after it), while a later one of nullb0
# waits for nullb0's (queued): its copy begins after that --post ended
WDISK2=1 wstart perdisk "" -- --post 4 --episode 1 nullb0 nullb1
{
	wsnap nullb0
	sleep 0.3
	wsnap nullb1
	sleep 1.3
	wsnap nullb0
} > "$W/replies" 2>&1
wfiles 3 20
wsettle
: > "$W/info.jsonl"
for f in "$W/snap"/iotrace-*.iot; do
	printf '%s ' "$(basename "$f")" >> "$W/info.jsonl"
	wcli info -o json "$f" | tr -d '\n' >> "$W/info.jsonl" 2>&1
	echo >> "$W/info.jsonl"
done
wstop
python3 - "$W/replies" "$W/info.jsonl" > "$W/why" 2>&1 <<'EOF_PY'
import json, sys
rep = open(sys.argv[1]).read().splitlines()
assert rep == ["nullb0: started", "nullb1: started", "nullb0: queued"], rep
snaps = {}
for l in open(sys.argv[2]):
    name, j = l.split(" ", 1)
    t = json.loads(j)["triggers"]
    assert len(t) == 1, (name, t)
    disk = "nullb1" if "-nullb1-" in name else "nullb0"
    snaps[(disk, t[0]["number"])] = t[0]
assert sorted(snaps) == [("nullb0", 1), ("nullb0", 3), ("nullb1", 2)], snaps
a, b, q = snaps[("nullb0", 1)], snaps[("nullb1", 2)], snaps[("nullb0", 3)]
end = a["mono_ns"] + a["post_ns"]
# nullb1 was saved beside nullb0, not after it
assert b["save_mono_ns"] < end, ("nullb1 waited", b["save_mono_ns"] - end)
# nullb0's queued snapshot waited for nullb0's first
assert q["queued"] and q["save_mono_ns"] >= end, ("two savers of nullb0", q)
print("nullb1 began %.3f s before nullb0's post ended" %
      ((end - b["save_mono_ns"]) / 1e9))
EOF_PY
result $? "watch_one_saver_per_disk_others_beside$SFX" "$W/why"

# 5. a storm of 50 triggers: at most --max-files files, the oldest removed
wstart storm "" -- --post 0 --episode 0 --max-files 5 --max-per-hour 1000 nullb0
i=0
while [ $i -lt 50 ]; do
	wsnap nullb0 > /dev/null 2>> "$W/err"
	i=$((i + 1))
done
wsettle
saved=$(grep -c ': snapshot [0-9]*: ' "$W/log")
: > "$W/nums"
for f in "$W/snap"/iotrace-*.iot; do
	wcli info -o json "$f" | python3 -c 'import json, sys
print(json.load(sys.stdin)["triggers"][0]["number"])' >> "$W/nums" 2>&1
done
wstop
last=$(grep ': snapshot [0-9]*: ' "$W/log" | tail -1 | sed 's/.*snapshot \([0-9]*\): .*/\1/')
sort -n "$W/nums" | tr '\n' ' ' > "$W/got"
seq $((last - 4)) "$last" | tr '\n' ' ' > "$W/want"
[ "$(nfiles)" = 5 ] && [ "$saved" -ge 6 ] && cmp -s "$W/got" "$W/want" &&
	[ "$(grep -c 'removed iotrace-' "$W/log")" = $((saved - 5)) ]
result $? "watch_storm_max_files_oldest_removed$SFX ($saved saved, kept $(cat "$W/got"))" "$W/log"
wstart bytes "" -- --post 0 --episode 0 --max-bytes 100K nullb0
for i in 1 2 3 4 5 6; do
	wsnap nullb0 > /dev/null 2>> "$W/err"
	sleep 0.2
done
wsettle
total=$(cat "$W/snap"/iotrace-*.iot | wc -c)
# as many of the newest as fit, and no fewer: one more would not
one=$(wc -c < "$(ls "$W/snap"/iotrace-*.iot | tail -n 1)")
wstop
[ "$(nfiles)" -ge 1 ] && [ "$(nfiles)" -lt 6 ] && [ "$total" -le 102400 ] &&
	[ $((total + one)) -gt 102400 ] &&
	[ "$(grep -c 'removed iotrace-' "$W/log")" = $((6 - $(nfiles))) ]
result $? "watch_max_bytes_oldest_removed$SFX ($(nfiles) files of $one bytes, $total bytes)" "$W/log"
wstart rate "" -- --post 0 --episode 0 --max-per-hour 3 nullb0
i=0
while [ $i -lt 50 ]; do
	wsnap nullb0 >> "$W/replies" 2>> "$W/err"
	i=$((i + 1))
done
wsettle
wstop
# 3 snapshots (started or queued); the rest refused, but those that
# joined a queued snapshot (no new snapshot: not counted)
ref=$(grep -c ': refused (max-per-hour)$' "$W/replies")
new=$(grep -cE ': (started|queued)$' "$W/replies")
joined=$(grep -c ': joined' "$W/replies")
[ "$(nfiles)" = 3 ] && [ "$new" = 3 ] && [ $((ref + new + joined)) = 50 ] &&
	[ "$ref" -ge 1 ] && [ "$(grep -c 'trigger refused' "$W/log")" = 1 ] &&
	grep -q "stopped: 3 snapshots saved, $ref triggers refused by max-per-hour" "$W/log"
result $? "watch_max_per_hour_refused_said_once$SFX ($ref refused, $joined joined)" "$W/log"

# 6. show --around-trigger: N records each side of the trigger
wstart around "" -- --post 3 nullb0
build/gen push "$W/dfs/nullb0/ring" 30 now
sleep 0.1
kill -USR1 $WPID
wlog 'trigger (manual)'
sleep 0.1
build/gen push "$W/dfs/nullb0/ring" 30 now
wfiles 1
F=$(ls "$W/snap"/iotrace-*.iot 2> /dev/null | head -1)
wcli info -o json "$F" > "$W/info.json" 2>&1
wcli show -o csv --around-trigger=5 "$F" > "$W/a5.csv" 2>&1
wcli show -o csv --around-trigger "$F" > "$W/a20.csv" 2>&1
wcli show --around-trigger=3 "$F" > "$W/a3.txt" 2>&1
wstop
python3 - "$W/info.json" "$W/a5.csv" "$W/a20.csv" > "$W/why" 2>&1 <<'EOF_PY'
import csv, json, sys
tm = json.load(open(sys.argv[1]))["triggers"][0]["mono_ns"]
for f, n in ((sys.argv[2], 5), (sys.argv[3], 20)):
    rows = list(csv.DictReader(open(f)))
    before = [r for r in rows if int(r["complete_ns"]) < tm]
    after = [r for r in rows if int(r["complete_ns"]) >= tm]
    assert len(before) == n and len(after) == n, (f, len(before), len(after))
EOF_PY
[ $? = 0 ] && [ "$(wc -l < "$W/a3.txt")" = 7 ]
result $? "watch_show_around_trigger$SFX" "$W/why"
refuse around_not_snapshot "has no trigger" show --around-trigger f.trace

# 7. SIGTERM during --post: the snapshot is finished at once, no partial
# file; the trigger chunk says the post was cut short
wstart term "" -- --post 20 nullb0
kill -USR1 $WPID
wlog 'trigger (manual)'
sleep 0.3
t0=$(date +%s)
wstop
t1=$(date +%s)
ls "$W/snap" > "$W/list"
F=$(ls "$W/snap"/iotrace-*.iot 2> /dev/null | head -1)
[ $WRC = 0 ] && [ $((t1 - t0)) -le 3 ] && [ "$(wc -l < "$W/list")" = 1 ] &&
	wcli info -o json "$F" | python3 -c 'import json, sys
t = json.load(sys.stdin)["triggers"][0]
assert t["post_cut"] and t["post_ns"] == 20 * 10**9, t' > "$W/why" 2>&1
result $? "watch_sigterm_during_post_whole_file$SFX (exit $WRC)" "$W/log"

# 8. the configuration: disks by serial and wwn, flags over the file,
# conditions kept (no trigger command in this module: said), FILE:LINE
wstart conf "post = 3
[disk serial=SN123]
[disk wwn=naa.5000c500a1b2c3d4]" -- --post 0.2
WS=$?
wstop
[ $WS = 1 ] && [ $WRC = 2 ] &&
	grep -q 'watch: wwn=naa.5000c500a1b2c3d4 (.*conf:3) is nullb0, already watched as serial=SN123 (.*conf:2)' "$W/log"
result $? "watch_config_same_disk_by_serial_and_wwn_refused$SFX (exit $WRC)" "$W/log"

# A watcher that cannot do its job does not start: every error of the
# configuration is found before a disk is changed (exit 2, as the other
# usage errors), and without the module (no netlink family, no debugfs
# directory) it says so (exit 1), never "ready".
# wrefuse NAME RC PATTERN CONF-LINES [ARGS...]: the watcher, on a fake
# debugfs whose enable files are empty, exits RC within 10 s saying
# PATTERN, without "ready", with no enable file written, no directory made
wrefuse() {
	W="$T/w-$1$SFX"
	rm -rf "$W"
	mkdir -p "$W/sys/block/nullb0/device" "$W/sys/block/sda/device"
	cp -r "$T/dfs" "$W/dfs"
	: > "$W/dfs/nullb0/enable"
	: > "$W/dfs/sda/enable"
	echo "SN123" > "$W/sys/block/nullb0/device/serial"
	echo "naa.5000c500a1b2c3d4" > "$W/sys/block/nullb0/wwid"
	# WCONFDIR: the file in that directory under $W (a long path)
	wconf=$W/${WCONFDIR:+$WCONFDIR/}conf
	mkdir -p "$(dirname "$wconf")"
	printf '%s\n' "$4" > "$wconf"
	want=$2
	pat=$3
	name=$1
	shift 4
	IOTRACE_DEBUGFS="${WDFS:-$W/dfs}" IOTRACE_SYSFS="$W/sys" IOTRACE_RUN_DIR="$W/run" \
		timeout 10 "$ROOT/$BIN" watch --config "$wconf" --dir "$W/snap" "$@" \
		> "$W/out" 2> "$W/log"
	rc=$?
	echo "exit $rc (want $want); enable: $(cat "$W/dfs/nullb0/enable" "$W/dfs/sda/enable" | tr '\n' ' ')" >> "$W/log"
	[ $rc = "$want" ] && grep -q -- "$pat" "$W/log" && ! grep -q 'ready:' "$W/log" &&
		[ ! -s "$W/dfs/nullb0/enable" ] && [ ! -s "$W/dfs/sda/enable" ] &&
		[ ! -e "$W/snap" ]
	result $? "watch_refused_at_start_$name$SFX" "$W/log"
}
wrefuse same_section_twice 2 'conf:3: \[disk nullb0\] given again (first at line 1)' \
	"[disk nullb0]
[disk sda]
[disk nullb0]"
# a path of more than 300 bytes: "FILE:LINE" is cut before its line
WCONFDIR=$(printf 'long-directory-name-%02d/' $(seq 14)) \
	wrefuse same_section_twice_long_path 2 \
	'given again (first at line 1)' \
	"[disk nullb0]
[disk sda]
[disk nullb0]"
wrefuse same_disk_resolved_twice 2 'wwn=naa.5000c500a1b2c3d4 (.*conf:3) is nullb0, already watched as serial=SN123' \
	"[disk sda]
[disk serial=SN123]
[disk wwn=naa.5000c500a1b2c3d4]"
wrefuse same_disk_on_command_line 2 'nullb0 (command line) is nullb0, already watched' "" sda nullb0 nullb0
wrefuse ring_size_below_range 2 "conf:2: ring-size '1K': 0 (metrics only) or 64K to 1G" \
	"[disk sda]
ring-size = 1K"
wrefuse ring_size_above_range 2 "conf:1: ring-size '5G': 0 (metrics only) or 64K to 1G" \
	"ring-size = 5G
[disk sda]"
wrefuse ring_size_just_below 2 "conf:3: ring-size '65535'" \
	"[disk sda]
[disk nullb0]
ring-size = 65535"
WDFS="$T/no-such-debugfs" wrefuse no_module 1 \
	"the iotrace module is not loaded (no generic netlink family \"iotrace\", no $T/no-such-debugfs)" \
	"[disk nullb0]
trigger = read-lat=10ms"
! grep -q 'not supported by this module' "$W/log"
result $? "watch_no_module_not_said_unsupported$SFX" "$W/log"
wstart conf2 "post = 3
episode = 250ms
max-files = 7
[disk serial=SN123]
ring-size = 1M
[disk wwn=nope]
[disk sda]
trigger = off" -- --post 0.2 nullb0
WS=$?
wstop
[ $WS = 0 ] && grep -q 'watching nullb0 (nullb0; model "FakeDisk 9000"' "$W/log" &&
	! grep -q 'watching sda' "$W/log" &&
	grep -q "post 0.200 s, episode 0.250 s, at most 12 an hour, 7 files" "$W/log"
result $? "watch_config_flags_and_disks_on_command_line_override$SFX" "$W/log"
wstart byid "[disk by-id=fake-SN123]" -- --post 0
WS=$?
wstop
[ $WS = 0 ] && grep -q 'watching nullb0 (by-id=fake-SN123; model "FakeDisk 9000"' "$W/log"
result $? "watch_config_disk_by_id$SFX" "$W/log"
printf 'post = 3\n[disk serial=SN123]\nring-size = 1M\ntrigger = read-lat=10ms error=EIO,ETIMEDOUT timeout\n[disk serial=SDA-SERIAL]\ntrigger = off\n' > "$T/wconf-ok"
wstart conf4 "$(cat "$T/wconf-ok")" -- --post 0.2
WS=$?
kill -USR1 $WPID
wfiles 1
sleep 0.5
wcli info "$T/w-conf4$SFX/snap/"iotrace-*.iot > "$W/info" 2>&1
wstop
[ $WS = 0 ] && grep -q 'watching nullb0 (serial=SN123' "$W/log" &&
	grep -q 'watching sda (serial=SDA-SERIAL' "$W/log" &&
	grep -q "nullb0: trigger conditions 'read-lat=10ms error=EIO,ETIMEDOUT timeout' not given to the kernel: no iotrace netlink family (is the iotrace module loaded?)" "$W/log" &&
	! grep -q "sda: trigger conditions" "$W/log" &&
	grep -q 'nullb0: ring-size 1048576 not applied' "$W/log" &&
	grep -q '^trigger:  nullb0: manual' "$W/info" &&
	grep -q '^trigger:  sda: manual' "$W/info" &&
	grep -q '  thresholds: read-lat=10000000ns error=EIO,ETIMEDOUT timeout' "$W/info" &&
	grep -q '  thresholds: none' "$W/info" &&
	grep -q 'post 0.200 s' "$W/log"
result $? "watch_config_serial_thresholds_in_file$SFX" "$W/info"
printf 'post = 3\n# comment\n\nbogus = 1\n' > "$T/wc-unknown"
refuse watch_conf_unknown_key "wc-unknown:4: unknown key 'bogus'" watch --config wc-unknown --dir wsnap nullb0
printf 'post = abc\n' > "$T/wc-post"
refuse watch_conf_bad_post "wc-post:1: post 'abc': a duration" watch --config wc-post --dir wsnap nullb0
printf '[disk nullb0]\ndir = /tmp\n' > "$T/wc-place"
refuse watch_conf_key_in_disk "wc-place:2: 'dir' is not a key of a \[disk\] section" watch --config wc-place --dir wsnap nullb0
printf '[disk nullb0]\ntrigger = read-lat=fast\n' > "$T/wc-trig"
refuse watch_conf_bad_trigger "wc-trig:2: trigger: read-lat=fast: a latency" watch --config wc-trig --dir wsnap nullb0
printf '[disk nullb0]\ntrigger = frobnicate\n' > "$T/wc-cond"
refuse watch_conf_unknown_condition "wc-cond:2: trigger: unknown condition 'frobnicate'" watch --config wc-cond --dir wsnap nullb0
printf '[disk uuid=1234]\n' > "$T/wc-sect"
refuse watch_conf_bad_section "wc-sect:1: \[disk uuid=1234\]: a disk name" watch --config wc-sect --dir wsnap nullb0
printf 'max-bytes = 0\n' > "$T/wc-bytes"
refuse watch_conf_bad_max_bytes "wc-bytes:1: max-bytes '0'" watch --config wc-bytes --dir wsnap nullb0
: > "$T/wc-empty"
refuse watch_flag_bad_post "--post: post '-1'" watch --config wc-empty --dir wsnap --post -1 nullb0
refuse watch_flag_bad_max_files "--max-files: max-files '0'" watch --config wc-empty --dir wsnap --max-files 0 nullb0
refuse watch_config_missing "cannot read nosuch.conf" watch --config nosuch.conf --dir wsnap nullb0
refuse watch_no_disk "no disk to watch" watch --config wc-empty --dir wsnap
# a disk given by its identity that is not there at the start: said, the
# others watched and saved, a trigger of every disk says it is not
# present; looked for again every second: a disk that has the serial
# later is watched (watch_readd.sh, in a guest: made ready), a by-id=
# link made later to a disk another section watches is not (said once)
wstart absent "[disk serial=NOPE]
[disk wwn=naa.0000000000000009]
[disk by-id=nope]
[disk nullb0]" -- --post 0
WS=$?
wsnap > "$W/reply" 2>&1
wfiles 1
wsettle
mkdir -p "$W/sys/block/nullb7/device"
echo NOPE > "$W/sys/block/nullb7/device/serial"
wlog 'watching nullb7 (serial=NOPE;'
ln -s ../dev/nullb0 "$W/by-id/nope"
wlog 'by-id=nope (.*conf:3) is nullb0, already watched as nullb0'
sleep 2.5
wstop
cat "$W/reply" >> "$W/log"
[ $WS = 0 ] && [ "$(nfiles)" = 1 ] &&
	grep -q 'serial=NOPE (.*conf:1) is present: nullb7' "$W/log" &&
	grep -q 'watching nullb7 (serial=NOPE;' "$W/log" &&
	[ "$(grep -c 'by-id=nope (.*conf:3) is nullb0, already watched as nullb0 (.*conf:4): not watched' "$W/log")" = 1 ] &&
	! grep -q 'watching nullb0 (by-id' "$W/log" &&
	grep -q 'serial=NOPE (.*conf:1): no disk in .* has serial NOPE: not present; watched for, made ready when it appears' "$W/log" &&
	grep -q 'wwn=naa.0000000000000009 (.*conf:2): no disk in .* has wwid naa.0000000000000009: not present' "$W/log" &&
	grep -q 'by-id=nope (.*conf:3): .*by-id/nope: No such file or directory: not present' "$W/log" &&
	grep -q 'watching nullb0 (nullb0;' "$W/log" &&
	[ "$(grep -c ': watching ' "$W/log")" = 2 ] &&
	grep -q 'serial=NOPE: not present; wwn=naa.0000000000000009: not present; by-id=nope: not present; nullb0: started' "$W/reply"
result $? "watch_disk_absent_at_start_watched_for$SFX" "$W/log"
# An NVMe multipath head's serial and wwid are its paths' too: a disk
# given by them is the head (resolved twice here: refused, naming it),
# whatever order the directory lists them in: eight paths, the head's
# directory made first, then last (ext4 lists by a hash of the name:
# nvme0c5n1 first here).  Two namespaces of one controller share its
# serial: refused, naming both.
mpwatch() { # CONF-LINES
	printf '%s\n' "$1" > "$W/conf"
	IOTRACE_DEBUGFS="$W/nodfs" IOTRACE_SYSFS="$W/sys" IOTRACE_RUN_DIR="$W/run" \
		timeout 10 "$ROOT/$BIN" watch --config "$W/conf" --dir "$W/snap" \
		> /dev/null 2> "$W/log"
	echo "exit $?" >> "$W/log"
}
mpp="nvme0c0n1 nvme0c1n1 nvme0c2n1 nvme0c3n1 nvme0c4n1 nvme0c5n1 nvme0c6n1 nvme0c7n1"
for order in "nvme0n1 $mpp" "$mpp nvme0n1"; do
	W="$T/w-mpath-${order%% *}$SFX"
	rm -rf "$W"
	for d in $order nvme1n1 nvme1n2; do
		mkdir -p "$W/sys/block/$d/device"
		echo "MP-SER" > "$W/sys/block/$d/device/serial"
		echo "eui.00mp" > "$W/sys/block/$d/wwid"
	done
	for d in nvme1n1 nvme1n2; do
		echo "NS-SER" > "$W/sys/block/$d/device/serial"
		echo "eui.$d" > "$W/sys/block/$d/wwid"
	done
	mpwatch "[disk nvme0n1]
[disk serial=MP-SER]"
	grep -q 'serial=MP-SER (.*conf:2) is nvme0n1, already watched as nvme0n1' "$W/log" &&
		grep -q '^exit 2$' "$W/log"
	result $? "watch_disk_by_serial_is_the_multipath_head_${order%% *}_first$SFX" "$W/log"
	mpwatch "[disk wwn=eui.00mp]
[disk nvme0n1]"
	grep -q 'nvme0n1 (.*conf:2) is nvme0n1, already watched as wwn=eui.00mp' "$W/log"
	result $? "watch_disk_by_wwn_is_the_multipath_head_${order%% *}_first$SFX" "$W/log"
done
mpwatch "[disk serial=NS-SER]"
grep -q 'serial=NS-SER (.*conf:1): nvme1n[12] and nvme1n[12] both have serial NS-SER: give the disk by wwn= or by name' "$W/log" &&
	grep -q '^exit 1$' "$W/log"
result $? "watch_disk_by_serial_of_two_namespaces_refused$SFX" "$W/log"
IOTRACE_RUN_DIR="$T/norun" "$BIN" snapshot --config "$T/wc-empty" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q 'no watcher listens on' "$T/err"
result $? "snapshot_without_watcher$SFX" "$T/err"
wstart unwatched "" -- --post 0 nullb0
wsnap sda > "$W/out2" 2> "$W/err"
rc=$?
wstop
[ $rc = 1 ] && grep -q 'snapshot: sda is not watched (watching: nullb0)' "$W/err"
result $? "snapshot_of_unwatched_disk_refused$SFX" "$W/err"

# a second watcher while the first saves a snapshot (its --post): one of
# the same run dir is refused before it touches a disk or a file; one of
# another run dir (and the same snapshot directory) leaves the first's
# temporary file alone, and removes a dead watcher's
wstart second "" -- --post 3 nullb0
kill -USR1 $WPID
wlog 'trigger (manual)'
i=0
while [ $i -lt 50 ] && ! ls -A "$W/snap" | grep -q '^\.iotrace-.*\.tmp$'; do
	sleep 0.1
	i=$((i + 1))
done
ls -A "$W/snap" > "$W/tmp-before"
dead=$(sh -c 'echo $$')
: > "$W/snap/.iotrace-000007.$dead.Xy12Zw.tmp"
IOTRACE_DEBUGFS="$W/dfs" IOTRACE_SYSFS="$W/sys" IOTRACE_RUN_DIR="$W/run" \
	"$ROOT/$BIN" watch --config "$W/conf" --dir "$W/snap" --post 0 nullb0 \
	> "$W/out2" 2> "$W/log2"
rc2=$?
ls -A "$W/snap" > "$W/tmp-mid"
IOTRACE_DEBUGFS="$W/dfs" IOTRACE_SYSFS="$W/sys" IOTRACE_RUN_DIR="$W/run3" \
	"$ROOT/$BIN" watch --config "$W/conf" --dir "$W/snap" --post 0 nullb0 \
	> "$W/out3" 2> "$W/log3" &
P3=$!
i=0
while [ $i -lt 100 ] && ! grep -q 'ready:' "$W/log3" 2> /dev/null; do
	kill -0 $P3 2> /dev/null || break
	sleep 0.1
	i=$((i + 1))
done
kill -TERM $P3 2> /dev/null
wait $P3
wfiles 1
wsettle
wstop
{
	echo "second (same run dir): exit $rc2"; cat "$W/log2"
	echo "before: $(cat "$W/tmp-before" | tr '\n' ' ')"
	echo "after it: $(cat "$W/tmp-mid" | tr '\n' ' ')"
	echo "third (other run dir):"; cat "$W/log3"
	echo "first:"; cat "$W/log"
} > "$W/why"
[ $rc2 = 1 ] && [ "$(wc -l < "$W/log2")" = 1 ] &&
	grep -q 'another watcher' "$W/log2" &&
	grep -q '^\.iotrace-000001\.[0-9]*\.[A-Za-z0-9]\{6\}\.tmp$' "$W/tmp-before" &&
	grep -q '^\.iotrace-000001\.[0-9]*\.[A-Za-z0-9]\{6\}\.tmp$' "$W/tmp-mid" &&
	grep -q "^\.iotrace-000007\.$dead\.Xy12Zw\.tmp$" "$W/tmp-mid" &&
	grep -q "removed .*/\.iotrace-000007\.$dead\.Xy12Zw\.tmp, left by a" "$W/log3" &&
	[ "$(grep -c 'removed' "$W/log3")" = 1 ] &&
	grep -q ': snapshot 1: ' "$W/log" && ! grep -q 'not saved' "$W/log" &&
	[ "$(nfiles)" = 1 ] && [ "$(ls -A "$W/snap" | grep -c tmp)" = 0 ]
result $? "watch_second_watcher_leaves_the_first_alone$SFX" "$W/why"

# SIGUSR1 while the watcher starts (here: it waits for its configuration,
# a FIFO) neither kills it nor is lost: the snapshot comes once it is
# ready.  The signal is sent once the watcher blocks it, or after 5 s.
W="$T/w-early$SFX"
rm -rf "$W"
mkdir -p "$W"
cp -r "$T/dfs" "$W/dfs"
mkfifo "$W/conf"
IOTRACE_DEBUGFS="$W/dfs" IOTRACE_SYSFS="$W/sys" IOTRACE_RUN_DIR="$W/run" \
	"$ROOT/$BIN" watch --config "$W/conf" --dir "$W/snap" --post 0 nullb0 \
	> "$W/out" 2> "$W/log" &
WPID=$!
i=0
while [ $i -lt 50 ]; do
	blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/$WPID/status 2> /dev/null)
	[ -n "$blk" ] && [ $((0x$blk & 0x200)) != 0 ] && break
	sleep 0.1
	i=$((i + 1))
done
kill -USR1 $WPID
timeout 10 sh -c 'echo "# nothing" > "$1"' - "$W/conf"
wlog 'ready:'
wfiles 1
wstop
[ $WRC = 0 ] && grep -q 'ready:' "$W/log" && [ "$(nfiles)" = 1 ] &&
	grep -q 'trigger (manual): nullb0: started' "$W/log"
result $? "watch_sigusr1_during_start_taken_once_ready$SFX (exit $WRC)" "$W/log"

# the configuration's comments: '#' at the start of a line or after a
# space or tab, to the end of the line (a '#' inside a word is the word's)
wstart comments "post = 2s   # the records after a trigger
episode = 250ms	# a tab before it
[disk nullb0]   # the first disk
trigger = read-lat=10ms error # a latency, an error" --
WS=$?
wstop
[ $WS = 0 ] && grep -q 'watching nullb0 (nullb0;' "$W/log" &&
	grep -q "ready: snapshots in $W/snap (post 2.000 s, episode 0.250 s," "$W/log" &&
	grep -q "nullb0: trigger conditions 'read-lat=10ms error' not given" "$W/log"
result $? "watch_config_trailing_comments$SFX" "$W/log"
# refused: a number that is not decimal, a key given twice in one place,
# 'off' with another word
printf 'post = 0x10\n' > "$T/wc-hex"
refuse watch_conf_hex_post "wc-hex:1: post '0x10': a duration" watch --config wc-hex --dir wsnap nullb0
printf 'episode = 1e3ms\n' > "$T/wc-exp"
refuse watch_conf_exponent_episode "wc-exp:1: episode '1e3ms': a duration" watch --config wc-exp --dir wsnap nullb0
printf '[disk nullb0]\ntrigger = read-lat=0x10\n' > "$T/wc-hexlat"
refuse watch_conf_hex_latency "wc-hexlat:2: trigger: read-lat=0x10: a latency" watch --config wc-hexlat --dir wsnap nullb0
printf 'post = 1\nmax-files = 3\npost = 2\n' > "$T/wc-dup"
refuse watch_conf_duplicate_key "wc-dup:3: 'post' given again (first at line 1)" watch --config wc-dup --dir wsnap nullb0
printf 'ring-size = 1M\n[disk nullb0]\nring-size = 2M\ntrigger = off\n[disk sda]\ntrigger = error\ntrigger = off\n' > "$T/wc-dup2"
refuse watch_conf_duplicate_key_in_section "wc-dup2:7: 'trigger' given again (first at line 6)" watch --config wc-dup2 --dir wsnap nullb0
printf '[disk nullb0]\ntrigger = off hold=max\n' > "$T/wc-offhold"
refuse watch_conf_off_with_hold "wc-offhold:2: trigger: 'off' stands alone" watch --config wc-offhold --dir wsnap nullb0
# "iotracectl trigger" reads its durations the same way
refuse trigger_hex_latency "trigger: read-lat=0x10: a latency" trigger nullb0 read-lat=0x10

# a disk's identity is checked again at each snapshot: another disk that
# took the name of serial=SN123 (nullb0: it went, the next disk got its
# name) is not saved under SN123's identity; a disk given by name (sda)
# is saved with the identity it has now
wstart ident "[disk serial=SN123]
[disk sda]" -- --post 0
WS=$?
echo "OTHER-1" > "$W/sys/block/nullb0/device/serial"
echo "Foreign 1" > "$W/sys/block/nullb0/device/model"
echo "naa.0000000000000001" > "$W/sys/block/nullb0/wwid"
echo "SDA-NEW" > "$W/sys/block/sda/device/serial"
kill -USR1 $WPID
wlog 'trigger (manual)'
wfiles 1
wsettle
F=$(ls "$W/snap"/iotrace-*.iot 2> /dev/null | head -1)
wcli info -o json "$F" > "$W/info.json" 2> "$W/err"
wstop
cat "$W/log" >> "$W/err"
[ $WS = 0 ] && [ "$(nfiles)" = 1 ] &&
	grep -q 'nullb0: no snapshot: serial=SN123 is not nullb0 any more' "$W/log" &&
	python3 - "$W/info.json" >> "$W/err" 2>&1 <<'EOF_PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = {x["disk"]: x for x in j["triggers"]}
assert sorted(t) == ["sda"], sorted(t)
assert t["sda"]["serial"] == "SDA-NEW", t["sda"]
EOF_PY
result $? "watch_identity_checked_at_each_snapshot$SFX" "$W/err"

# the log prints what the kernel and the disks tell as the text outputs
# do: a model (a device's own bytes) with a carriage return and terminal
# escapes is escaped in "is another disk now", no byte a terminal acts on;
# snapshot prints the watcher's reply so too (a disk not watched)
wstart escape "" -- --post 0 nullb0
WS=$?
printf 'Evil\033[2J\rX\033]0;t\007\n' > "$W/sys/block/nullb0/device/model"
kill -USR1 $WPID
wlog 'is another disk now'
wfiles 1
wsettle
wsnap "$(printf 'x\033[31m\r')" > "$W/snapout" 2>&1
wstop
{ [ $WS = 0 ] && [ "$(nfiles)" = 1 ] ||
	{ echo "started: $WS, $(nfiles) files" && cat "$W/log" && false; }; } > "$W/err" &&
	python3 - "$W/log" "$W/snapout" >> "$W/err" 2>&1 <<'EOF_PY'
import sys
for f in sys.argv[1:]:
	b = open(f, "rb").read()
	bad = [c for c in b if c != 10 and not 32 <= c < 127]
	assert not bad, ("a byte to a terminal", bad[:8], b)
want = ('iotracectl watch: nullb0 (nullb0) is another disk now: '
	'model "Evil\\x1b[2J\\x0dX\\x1b]0;t\\x07", serial "SN123"')
assert want in open(sys.argv[1]).read(), open(sys.argv[1]).read()
s = open(sys.argv[2]).read()
assert s == "iotracectl: snapshot: x\\x1b[31m\\x0d is not watched (watching: nullb0)\n", s
EOF_PY
result $? "watch_log_escapes_names_and_identities$SFX" "$W/err"

# the watchers' logs: no sanitizer report (the _san run), no crash
grep -l -e 'Sanitizer' -e 'runtime error' "$T"/w-*"$SFX"/log > "$T/why" 2>&1
[ ! -s "$T/why" ]
result $? "watch_logs_clean$SFX" "$T/why"

# the example configuration installed as /etc/iotrace/iotrace.conf: as
# shipped (all commented) and with every example line uncommented as it
# is (its description a trailing comment), every key and value is
# accepted (disks from the command line)
wstart example "$(cat "$ROOT/systemd/iotrace.conf")" -- --post 0 nullb0
WS=$?
wstop
sed -nE 's/^# ((\[disk [^]]*\]|[a-z-]+ = ).*)$/\1/p' \
	"$ROOT/systemd/iotrace.conf" > "$T/wconf-example"
wstart example2 "$(cat "$T/wconf-example")" -- --post 0 nullb0
WS2=$?
wstop
[ $WS = 0 ] && [ $WS2 = 0 ] && [ "$(grep -c ' = ' "$T/wconf-example")" -ge 10 ] &&
	grep -q "ready: snapshots in $W/snap (post 0.000 s, episode 1.000 s, at most 12 an hour, 100 files, 1073741824 bytes)" "$W/log" &&
	grep -q "nullb0: trigger conditions 'read-lat=20ms error timeout' not given" "$W/log"
result $? "watch_example_configuration_accepted$SFX" "$W/log"
