#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-fuzz.sh - run iotracectl's libFuzzer harnesses.
#   run-fuzz.sh check SECONDS   short run of each harness, seeded from
#                               corpus/<harness>; KTAP "ok"/"not ok" lines
#   run-fuzz.sh long RUNS       RUNS executions of each harness, figures
#                               (executions, crashes, exec/s) per harness;
#                               FUZZ_MAX_TIME=S stops each harness after S
#                               seconds, FUZZ_PARALLEL=1 runs them at once
#   run-fuzz.sh merge           minimize corpus/ + the long run's finds
#                               (build/work/<harness>*) into corpus/
#   run-fuzz.sh seeds           seed inputs from tools/tests/gen into corpus/
#   run-fuzz.sh regress         run every committed input once (crashers/
#                               included); KTAP
# New inputs found by a run go to build/work/<harness>, never into corpus/
# (make merge folds them in, minimized).  A crashing input is left in
# build/artifacts/ and printed.
set -u
cd "$(dirname "$0")" || exit 1
HARNESSES="file ring decode"
B=build
mode=${1:-check}
arg=${2:-}
N=0
FAILS=0

result() { # result 0|1 name [directive]
	N=$((N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $N $2${3:+ # $3}"
	else
		echo "not ok $N $2${3:+ # $3}"
		FAILS=$((FAILS + 1))
	fi
}

# clang with libFuzzer is needed; without it every harness is a skip
# (return 2).  A harness that does not build is a failure (return 1): the
# code it fuzzes broke clang's -Werror.
build() {
	if ! command -v "${CLANG:-clang}" > /dev/null; then
		echo "no clang"
		return 2
	fi
	make -s all B="$B" > "$B.log" 2>&1 || { tail -n 5 "$B.log"; return 1; }
}

# fuzz NAME ARGS...: run harness NAME, new inputs in $WORK/NAME, output
# in $B/log/NAME.log, crashers in $B/artifacts/NAME/.
WORK=$B/work
fuzz() {
	local h=$1
	shift
	mkdir -p "$WORK/$h" "$B/artifacts/$h" "$B/log"
	nice -n 19 "$B/fuzz_$h" -artifact_prefix="$B/artifacts/$h/" \
		-max_len="$(max_len "$h")" -timeout=25 -rss_limit_mb=2048 \
		-print_final_stats=1 "$@" "$WORK/$h" "corpus/$h" \
		> "$B/log/$h.log" 2>&1
}

# Largest input: the corpus stays small (compact ring seeds, see mkring.py).
max_len() {
	case $1 in
	file) echo 16384 ;;
	*) echo 4096 ;;
	esac
}

# Every committed input of harness $1 once: corpus/ and regress/ (crashers
# found and fixed; a directory may be absent).
regress_run() {
	local d=()
	mkdir -p "$B/log"
	[ -d "regress/$1" ] && d+=("regress/$1")
	"$B/fuzz_$1" -runs=0 "corpus/$1" "${d[@]}" > "$B/log/$1.regress.log" 2>&1
}

stat_of() { # stat_of NAME KEY
	sed -n "s/^stat::$2: *//p" "$B/log/$1.log" | tail -n1
}

crashes_of() {
	find "$B/artifacts/$1" -type f 2>/dev/null | wc -l
}

mkdir -p "$B"
case $mode in
check)
	echo "KTAP version 1"
	# own directories: a long run may be going on in the same tree
	B=$B/check
	WORK=$B/work
	rm -rf "$WORK"
	mkdir -p "$B"
	out=$(build)
	rc=$?
	if [ $rc -ne 0 ]; then
		for h in $HARNESSES; do
			if [ $rc = 2 ]; then
				result 0 "fuzz_$h" "SKIP ${out//$'\n'/ }"
			else
				result 1 "fuzz_$h" "cannot build the harnesses: ${out//$'\n'/ }"
			fi
		done
		echo "1..$N"
		[ $FAILS = 0 ]
		exit
	fi
	# the committed corpus, crashers included, must all pass first
	for h in $HARNESSES; do
		rm -rf "$B/artifacts/$h"
		mkdir -p "$B/log"
		regress_run "$h"
		r=$?
		[ $r = 0 ] || sed 's/^/# /' "$B/log/$h.regress.log" | tail -n 30
		result $r "fuzz_${h}_corpus_regressions"
	done
	for h in $HARNESSES; do
		rm -rf "$B/artifacts/$h"
		fuzz "$h" -max_total_time="${arg:-20}"
		r=$?
		n=$(stat_of "$h" number_of_executed_units)
		echo "# fuzz_$h: ${n:-?} executions in ${arg:-20} s, exit $r, $(crashes_of "$h") crashes"
		if [ $r != 0 ] || [ "$(crashes_of "$h")" != 0 ]; then
			grep -E 'ERROR|SUMMARY|#[0-9]+ in|Test unit written' \
				"$B/log/$h.log" | head -n 30 | sed 's/^/# /'
			result 1 "fuzz_$h"
		else
			result 0 "fuzz_$h"
		fi
	done
	# the guest leak scanner's own check (selftests/iotrace/leakscan.py):
	# planted kernel pointers are found, clean data is not flagged
	if command -v python3 > /dev/null; then
		python3 ../../selftests/iotrace/leakscan.py selftest > "$B/leakscan.log" 2>&1
		r=$?
		[ $r = 0 ] || grep -v '^ok' "$B/leakscan.log" | sed 's/^/# /'
		result $r "leakscan_selftest"
	else
		result 0 "leakscan_selftest" "SKIP no python3"
	fi
	echo "1..$N"
	[ $FAILS = 0 ]
	;;
long)
	runs=${arg:-10000000}
	build || exit 1
	lim=()
	[ -n "${FUZZ_MAX_TIME:-}" ] && lim=(-max_total_time="$FUZZ_MAX_TIME")
	t0=$(date +%s)
	for h in $HARNESSES; do
		rm -rf "$B/artifacts/$h"
		if [ -n "${FUZZ_PARALLEL:-}" ]; then
			fuzz "$h" -runs="$runs" "${lim[@]}" &
		else
			fuzz "$h" -runs="$runs" "${lim[@]}"
		fi
	done
	wait
	echo "$(date -u +%FT%TZ) $(( $(date +%s) - t0 )) s, ${FUZZ_PARALLEL:+parallel, }nice 19, $(nproc) CPUs"
	printf '%-8s %12s %8s %8s %6s %6s\n' HARNESS EXECUTIONS CRASHES EXEC/S COV FT
	for h in $HARNESSES; do
		n=$(stat_of "$h" number_of_executed_units)
		c=$(crashes_of "$h")
		cov=$(grep -o 'cov: [0-9]*' "$B/log/$h.log" | tail -n1 | cut -d' ' -f2)
		ft=$(grep -o 'ft: [0-9]*' "$B/log/$h.log" | tail -n1 | cut -d' ' -f2)
		printf '%-8s %12s %8s %8s %6s %6s\n' "$h" "${n:-?}" "$c" \
			"$(stat_of "$h" average_exec_per_sec)" "${cov:-?}" "${ft:-?}"
		[ "$c" = 0 ] || { FAILS=$((FAILS + 1)); ls "$B/artifacts/$h"; }
		grep -q 'SUMMARY\|ERROR: libFuzzer' "$B/log/$h.log" &&
			{ FAILS=$((FAILS + 1)); grep 'SUMMARY\|ERROR' "$B/log/$h.log"; }
	done
	[ $FAILS = 0 ]
	;;
merge)
	for h in $HARNESSES; do
		mkdir -p "$B/merged/$h" "$B/work/$h"
		rm -rf "$B/merged/$h"/*
		"$B/fuzz_$h" -merge=1 -max_len="$(max_len "$h")" "$B/merged/$h" \
			"corpus/$h" "$B/work/$h"* > "$B/log/$h.merge.log" 2>&1 ||
			{ tail "$B/log/$h.merge.log"; exit 1; }
		rm -rf "corpus/$h"
		mkdir -p "corpus/$h"
		cp "$B/merged/$h"/* "corpus/$h/"
		echo "$h: $(ls "corpus/$h" | wc -l) inputs, $(cat "corpus/$h"/* | wc -c) bytes"
	done
	;;
seeds)
	make -s -C .. build/gen || exit 1
	mkdir -p corpus/file corpus/ring corpus/decode
	../build/gen ring "$B/gen.ring" 300 2 128 &&
	python3 mkring.py "$B/gen.ring" corpus/ring &&
	../build/gen file corpus/file/seed-1disk 12 1 &&
	../build/gen file corpus/file/seed-2disks 12 2 &&
	../build/gen newer corpus/file/seed-newer-minor 6 &&
	../build/gen file corpus/file/seed-crc-minor2 12 1 &&
	../build/gen minor1 corpus/file/seed-minor1 12 1 &&
	../build/gen gaps corpus/file/seed-crc-gaps 70 1 &&
	../build/gen trig corpus/file/seed-triggers 12 2 &&
	../build/gen mixed corpus/file/seed-major2-short 12 2 &&
	../build/gen major1 corpus/file/seed-major2-short \
		corpus/file/seed-major1-minor2 || exit 1
	# the salvage path: checksummed files cut short, without a trailer,
	# with a damaged chunk (a flipped payload bit, a wrong nr_records)
	python3 - <<'PY' || exit 1
import struct
d = open("corpus/file/seed-crc-minor2", "rb").read()
hs = struct.unpack_from("<I", d, 12)[0]
ends, off = [], hs
while off + 40 <= len(d):
    off += sum(struct.unpack_from("<IIQ", d, off)[1:3])
    ends.append(off)
open("corpus/file/seed-crc-cut-in-chunk", "wb").write(d[:ends[1] + 100])
open("corpus/file/seed-crc-no-trailer", "wb").write(d[:ends[-2]])
b = bytearray(d)
b[ends[0] + 40 + 77] ^= 4
open("corpus/file/seed-crc-damaged-payload", "wb").write(b)
b = bytearray(d)
b[ends[0] + 20] ^= 1
open("corpus/file/seed-crc-damaged-header", "wb").write(b)
PY
	# decode: selector byte, status word, command bytes
	python3 - <<'PY'
import struct
def w(name, sel, status, cmd):
    open("corpus/decode/" + name, "wb").write(bytes([sel]) + struct.pack("<I", status) + cmd)
nvme_read = bytearray(64); nvme_read[0] = 0x02; struct.pack_into("<IQHH", nvme_read, 4, 1, 0, 0, 0)
struct.pack_into("<QH", nvme_read, 40, 2048, 7)
w("nvme-read", 0 | (6 << 2), 0x0002, bytes(nvme_read))
idc = bytearray(64); idc[0] = 0x06; struct.pack_into("<I", idc, 40, 1)
w("nvme-admin-identify", 0 | (6 << 2) | 0x20, 0, bytes(idc))
w("scsi-read10", 1 | (6 << 2), 0x00002402, bytes([0x28, 0, 0, 0, 8, 0, 0, 0, 8, 0]))
w("scsi-write16", 1 | (7 << 2), 0, bytes([0x8a, 0] + [0] * 6 + [0, 0, 1, 0] + [0, 0, 0, 16] + [0, 0]))
w("scsi-inquiry", 1 | (5 << 2), 0, bytes([0x12, 1, 0x80, 0, 0xff, 0]))
w("ata-read-dma-ext", 2 | (6 << 2), 0x0451, struct.pack("<BBBBBBHQ", 0x25, 0, 0, 0x40, 3, 0x1f, 8, 4096))
w("ata-identify", 2 | (6 << 2), 0x50, struct.pack("<BBBBBBHQ", 0xec, 0, 0, 0, 2, 0, 1, 0))
w("errno-op", 3 | (6 << 2), (-5) & 0xffffffff, b"write\0")
PY
	ls -l corpus/*
	;;
regress)
	build || exit 1
	echo "KTAP version 1"
	for h in $HARNESSES; do
		regress_run "$h"
		r=$?
		[ $r = 0 ] || tail -n 30 "$B/log/$h.regress.log" | sed 's/^/# /'
		result $r "fuzz_${h}_corpus_regressions"
	done
	echo "1..$N"
	[ $FAILS = 0 ]
	;;
*)
	echo "usage: $0 check SECONDS | long RUNS | merge | seeds | regress" >&2
	exit 2
	;;
esac
