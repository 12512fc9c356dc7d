#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# exporter: 'iotracectl exporter' (run as nobody: LIST and GET_METRICS need
# no privilege) scraped every second by a real Prometheus server during fio
# on null_blk with a 200 us completion latency.  Once the I/O stopped,
# PromQL through Prometheus' HTTP API agrees with 'iotracectl stats
# --kernel': increase(iotrace_requests_total) exactly, histogram_quantile(0.5)
# within one bucket; promtool finds nothing wrong with the exposition;
# null_blk bad blocks appear as iotrace_errors_total{status="errno:EIO"}; a
# 4.5 s null_blk completion raises iotrace_inflight_oldest_age_seconds.
# VM-CHECK: newest
# VM-CHECK: alone
# VM-TIMEOUT: 600
# VM-SMP: 2
. "$IOTRACE_SRC/selftests/iotrace/iotrace-test.sh"

require_cmd fio python3 setpriv prometheus promtool
# shellcheck disable=SC2119
ktap_header
out=$(mktemp -d)
chmod 777 "$out"
LAT=200000
PORT=9661
EXP=http://127.0.0.1:$PORT/metrics
PROM=http://127.0.0.1:9090
ip link set lo up 2> /dev/null || ifconfig lo 127.0.0.1 up 2> /dev/null

# get URL - the body of a GET, or fail
get() {
	python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())' "$1"
}

# promql QUERY [TIME] - the first value of an instant query, "" if none
promql() {
	python3 - "$PROM" "$1" "${2:-}" <<'EOF'
import json, sys, urllib.parse, urllib.request
p = {'query': sys.argv[2]}
if sys.argv[3]:
    p['time'] = sys.argv[3]
u = sys.argv[1] + '/api/v1/query?' + urllib.parse.urlencode(p)
r = json.load(urllib.request.urlopen(u, timeout=20))
res = r.get('data', {}).get('result', [])
print(res[0]['value'][1] if res else '')
EOF
}

# promts QUERY - the timestamp of the newest sample of an instant vector
promts() {
	python3 - "$PROM" "$1" <<'EOF'
import json, sys, urllib.parse, urllib.request
u = sys.argv[1] + '/api/v1/query?' + urllib.parse.urlencode({'query': sys.argv[2]})
res = json.load(urllib.request.urlopen(u, timeout=20))['data']['result']
print(res[0]['value'][0] if res else '')
EOF
}

# first_scrape - Prometheus has a sample of 0 reads of $disk
# shellcheck disable=SC2317  # called through until_ok
first_scrape() {
	test "$(promql "iotrace_requests_total{disk=\"$disk\",op=\"read\"}" 2> /dev/null)" = 0
}

# sample FILE NAME LABELS - a sample's value in an exposition
sample() {
	grep -F "$2{$3}" "$1" | awk '{ print $2 }'
}

nullb_mod nr_devices=1 submit_queues=2 irqmode=2 completion_nsec=$LAT gb=1
disk=nullb0
quiet_disk $disk
load_iotrace buf_size=64K disks=$disk
udevadm control --stop-exec-queue 2> /dev/null
"$IOTRACECTL" reset-metrics $disk
ktap_check "reset-metrics as root" test $? -eq 0
setpriv --reuid=65534 --regid=65534 --clear-groups "$IOTRACECTL" reset-metrics $disk 2> "$out/reset.err"
ktap_check "reset-metrics refused to nobody" grep -q 'Operation not permitted' "$out/reset.err"

setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$IOTRACECTL" exporter --listen 127.0.0.1:$PORT 2> "$out/exporter.log" &
exp_pid=$!
until_ok 30 sh -c "python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())' $EXP > $out/first.prom 2> /dev/null" ||
	log "exporter did not answer"
ktap_check "the exporter (as nobody) serves $disk" \
	grep -q "^iotrace_requests_total{disk=\"$disk\",op=\"read\"} 0\$" "$out/first.prom"
promtool check metrics < "$out/first.prom" > "$out/promtool" 2>&1
ktap_check "promtool check metrics: nothing to complain about" \
	test $? -eq 0 -a ! -s "$out/promtool"
sed 's/^/# promtool: /' "$out/promtool" | head -5

cat > "$out/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: iotrace
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
prometheus --config.file="$out/prometheus.yml" --storage.tsdb.path="$out/tsdb" \
	--web.listen-address=127.0.0.1:9090 > "$out/prometheus.log" 2>&1 &
prom_pid=$!
# scraped at least once before the I/O: its first sample is 0
until_ok 120 first_scrape ||
	{ tail -n 20 "$out/prometheus.log" | sed 's/^/# /'; log "prometheus did not scrape"; }
ktap_check "prometheus scraped the exporter" \
	test "$(promql "up{job=\"iotrace\"}")" = 1

fio --name=rr --filename=/dev/$disk --direct=1 --ioengine=libaio --iodepth=4 \
	--rw=randrw --bs=4k --size=256m --time_based --runtime=6 \
	--output="$out/fio" > /dev/null 2>&1
sleep 4	# a few scrapes after the I/O stopped
"$IOTRACECTL" stats --kernel -o json $disk > "$out/stats.json"
"$IOTRACECTL" stats --kernel $disk | sed 's/^/# /'
read -r kreq kp50 <<EOF
$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))[0]
r = [o for o in d["ops"] if o["op"] == "read"][0]
print(r["requests"], r["device"]["p50_ns"])' "$out/stats.json")
EOF
sel="disk=\"$disk\",op=\"read\""
ts=$(promts "iotrace_requests_total{$sel}")
inc=$(promql "increase(iotrace_requests_total{$sel}[1h])" "$ts")
delta=$(promql "max_over_time(iotrace_requests_total{$sel}[1h]) - min_over_time(iotrace_requests_total{$sel}[1h])" "$ts")
nsamp=$(promql "count_over_time(iotrace_requests_total{$sel}[1h])" "$ts")
last=$(promql "iotrace_requests_total{$sel}" "$ts")
log "kernel: $kreq reads, p50 $kp50 ns; prometheus at $ts: $last, delta $delta, increase $inc over $nsamp samples"
ktap_check "reads were done" test "${kreq:-0}" -gt 100
ktap_check "iotrace_requests_total ($last) = stats --kernel ($kreq)" \
	test "$last" = "$kreq"
ktap_check "its increase over the run ($delta: max - min over time) = stats --kernel ($kreq)" \
	test "$delta" = "$kreq"
# increase() extrapolates its samples' span to the window: not to the
# left, since the first sample is 0 (Prometheus stops at a counter's zero
# point); to the right, up to the evaluation time ($ts, now) when that is
# within 1.1 average scrape intervals of the last sample, else half of one.
# So between the exact delta and delta * (1 + 1.1/(n-1)).
ktap_check "increase(iotrace_requests_total[1h]) ($inc) is the exact count extrapolated (at most x (1 + 1.1/($nsamp-1)))" \
	python3 -c 'import sys
i, k, n = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
sys.exit(not (k - 1e-6 <= i <= k * (1 + 1.1 / (n - 1)) + 1e-6))' "${inc:-nan}" "$kreq" "${nsamp:-1}"
q50=$(promql "histogram_quantile(0.5, increase(iotrace_request_duration_seconds_bucket{$sel}[1h]))" "$ts")
log "histogram_quantile(0.5): $q50 s; stats --kernel p50: $kp50 ns"
ktap_check "histogram_quantile(0.5) ($q50 s) within one bucket of stats --kernel's p50 ($kp50 ns)" \
	python3 -c 'import sys
q, k = float(sys.argv[1]) * 1e9, float(sys.argv[2])
sys.exit(not (k > 0 and abs(q - k) <= k / 4))' "${q50:-nan}" "${kp50:-0}"
ktap_check "p50 is null_blk's latency or more ($kp50 ns >= $LAT ns)" \
	python3 -c 'import sys; sys.exit(float(sys.argv[1]) < float(sys.argv[2]) * 0.99)' "${kp50:-0}" $LAT

# ---- errors: null_blk bad blocks fail reads with EIO ------------------
bad=$(nullb_create nbbad size=64 memory_backed=1 irqmode=0)
echo 1 > "$IOT/$bad/enable"
echo "+0-7" > "/sys/kernel/config/nullb/nbbad/badblocks" || log "cannot set badblocks"
dd if=/dev/"$bad" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
get $EXP > "$out/bad.prom"
grep "iotrace_errors_total{disk=\"$bad\"" "$out/bad.prom" | sed 's/^/# /'
ktap_check "iotrace_errors_total{disk=$bad,op=read,status=errno:EIO} = 1" \
	test "$(sample "$out/bad.prom" iotrace_errors_total "disk=\"$bad\",op=\"read\",status=\"errno:EIO\"")" = 1
echo 0 > "$IOT/$bad/enable"
nullb_destroy nbbad

# ---- a slow request: the oldest in flight ages -------------------------
# 4.5 s, under null_blk's 5 s request timeout: a slower disk times out
# every read of the partition scan in nullb_create (each parser reads the
# first sector again: 12 reads of 15 s took 180 s).  Scraped until one
# scrape falls inside it (a loaded host once took more than 3 s for one).
slow=$(nullb_create nbslow size=64 irqmode=2 completion_nsec=4500000000)
echo 1 > "$IOT/$slow/enable"
# One scraper for the whole request, started (and past its first scrape)
# before it: a new python per scrape took more than 3 s on a loaded 5.10
# guest, longer than the request lives after its first second.
python3 - "$EXP" "$slow" "$out/scraper.ready" > "$out/slow.age" <<'EOF' &
import sys, time, urllib.request
url, disk, ready = sys.argv[1], sys.argv[2], sys.argv[3]
key = 'iotrace_inflight_oldest_age_seconds{disk="%s"}' % disk
age, end = 0.0, time.time() + 60
while time.time() < end:
    body = urllib.request.urlopen(url, timeout=20).read().decode()
    open(ready, 'w').close()
    for line in body.splitlines():
        if line.startswith(key + ' '):
            age = max(age, float(line.split()[1]))
    if age >= 1:
        break
    time.sleep(0.1)
print(age)
EOF
scraper=$!
until_ok 30 test -e "$out/scraper.ready" || log "the scraper made no scrape in 30 s"
dd if=/dev/"$slow" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null &
ddpid=$!
until_ok 10 grep -q READ "$IOT/$slow/inflight" || log "the slow read is not in flight"
wait $scraper
age=$(cat "$out/slow.age")
ktap_check "iotrace_inflight_oldest_age_seconds of a 4.5 s request reaches 1 while it is in flight ($age)" \
	python3 -c 'import sys; sys.exit(float(sys.argv[1]) < 1)' "${age:-0}"
wait $ddpid
echo 0 > "$IOT/$slow/enable"
nullb_destroy nbslow

# ---- a disk that goes away drops out ----------------------------------
ktap_check "a destroyed disk is not in the exposition" \
	sh -c "get() { python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())' \"\$1\"; }
! get $EXP | grep -q 'disk=\"$slow\"'"

kill "$prom_pid" "$exp_pid" 2> /dev/null
wait "$prom_pid" "$exp_pid" 2> /dev/null
ktap_check "the exporter logged nothing alarming" \
	sh -c "! grep -v -e 'serving http' '$out/exporter.log' | grep -q ."
sed 's/^/# exporter: /' "$out/exporter.log" | head -5
udevadm control --start-exec-queue 2> /dev/null
unload_iotrace
ktap_check "no kernel warning" no_kernel_splat
ktap_finish
