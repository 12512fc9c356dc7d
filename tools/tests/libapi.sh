#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# libiotrace's public API, as another program uses it: tests/libapi_test.c
# built with the public header (include/iotrace/) alone, against the
# shared library (build/libiotrace.so.1), the static one
# (build/normal/libiotrace.a) and the installed one (make install-lib
# into a scratch root, pkg-config --cflags --libs libiotrace); its output
# on generated trace files and rings compared with "iotracectl show -o
# csv" and "iotracectl info -o json"; the shared library's exports
# compared with the header's functions (nm -D).  Prints KTAP.
#   tests/libapi.sh
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
CC=${CC:-cc}
SO=build/libiotrace.so.1
N=0
FAILS=0

result() { # result 0|1 name [diagnostic file]
	N=$((N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $N $2"
	else
		echo "not ok $N $2"
		FAILS=$((FAILS + 1))
		[ -n "${3:-}" ] && [ -s "$3" ] && sed 's/^/# /' "$3" | head -40
	fi
}

T=$(mktemp -d /tmp/iotrace-libapi.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
echo "KTAP version 1"

# 1. the exports: the header's functions, each of version LIBIOTRACE_1,
# those after the header's lines that name LIBIOTRACE_1.1 to 1.4 of
# those versions, and nothing else
awk '/symbol version LIBIOTRACE_1\.1/ { v = "1.1" }
	/symbol version LIBIOTRACE_1\.2/ { v = "1.2" }
	/symbol version LIBIOTRACE_1\.3/ { v = "1.3" }
	/symbol version LIBIOTRACE_1\.4/ { v = "1.4" }
	match($0, /^[a-z].*[ *]iotrace_[a-z0-9_]*\(/) {
		f = substr($0, RSTART, RLENGTH - 1); sub(/.*[ *]/, "", f)
		print f "@@LIBIOTRACE_" (v ? v : "1") }' \
	include/iotrace/libiotrace.h | sort -u > "$T/header"
nm -D --defined-only "$SO" | awk '{ print $NF }' | sort > "$T/exports"
{ cat "$T/header"; echo LIBIOTRACE_1; echo LIBIOTRACE_1.1; echo LIBIOTRACE_1.2
	echo LIBIOTRACE_1.3; echo LIBIOTRACE_1.4; } |
	sort > "$T/want"
echo "# $(grep -c '@@LIBIOTRACE_1$' "$T/header") functions of LIBIOTRACE_1" \
	"$(grep -c '@@LIBIOTRACE_1.1$' "$T/header") of LIBIOTRACE_1.1" \
	"$(grep -c '@@LIBIOTRACE_1.2$' "$T/header") of LIBIOTRACE_1.2" \
	"$(grep -c '@@LIBIOTRACE_1.3$' "$T/header") of LIBIOTRACE_1.3" \
	"and $(grep -c '@@LIBIOTRACE_1.4$' "$T/header") of LIBIOTRACE_1.4" \
	"in libiotrace.h, $(wc -l < "$T/exports") symbols exported by $SO"
diff "$T/want" "$T/exports" > "$T/why" 2>&1
result $? "libapi_exports_are_the_header_functions_of_LIBIOTRACE_1_to_1.4" "$T/why"
# the 18 functions of LIBIOTRACE_1 stay there
[ "$(grep -c '@@LIBIOTRACE_1$' "$T/exports")" = 18 ] &&
	objdump -T "$SO" | grep -q 'LIBIOTRACE_1\.1 *iotrace_source_read$'
result $? "libapi_18_functions_of_LIBIOTRACE_1_and_the_batch_read_of_1.1"
soname=$(objdump -p "$SO" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libiotrace.so.1 ]
result $? "libapi_soname_libiotrace.so.1 ($soname)"

# 2. the program, of the header alone: with the .so, the .a, pkg-config
WARN="-Wall -Wextra -Werror -std=c11 -D_POSIX_C_SOURCE=200809L"
$CC $WARN -Iinclude -o "$T/dyn" tests/libapi_test.c -Lbuild -liotrace \
	-Wl,-rpath,"$ROOT/build" -lpthread > "$T/why" 2>&1 &&
	ldd "$T/dyn" | grep -q "libiotrace.so.1 => $ROOT/build/" >> "$T/why" 2>&1
result $? "libapi_program_of_header_and_so" "$T/why"
$CC $WARN -Iinclude -o "$T/static" tests/libapi_test.c \
	build/normal/libiotrace.a -lpthread > "$T/why" 2>&1 &&
	! ldd "$T/static" | grep -q libiotrace >> "$T/why" 2>&1
result $? "libapi_program_of_header_and_static_library" "$T/why"
# installed into a scratch root, found by pkg-config there
R=$T/root
if make -s --no-print-directory install-lib DESTDIR="$R" PREFIX=/usr \
	> "$T/why" 2>&1; then
	flags=$(PKG_CONFIG_SYSROOT_DIR=$R PKG_CONFIG_LIBDIR=$R/usr/lib/pkgconfig \
		pkg-config --cflags --libs libiotrace 2>> "$T/why")
	echo "# pkg-config --cflags --libs libiotrace: $flags" | sed "s|$R|ROOT|g"
	# shellcheck disable=SC2086 # the flags are words
	$CC $WARN -o "$T/pc" tests/libapi_test.c $flags -lpthread \
		>> "$T/why" 2>&1 &&
		[ -L "$R/usr/lib/libiotrace.so" ] && [ -f "$R/usr/lib/libiotrace.a" ]
fi
result $? "libapi_program_of_installed_library_by_pkg_config" "$T/why"
# and of the ASan+UBSan build of the library (make check's san variant)
SAN="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
# shellcheck disable=SC2086 # the flags are words
$CC $WARN $SAN -Iinclude -o "$T/san" tests/libapi_test.c \
	build/san/libiotrace.a -lpthread > "$T/why" 2>&1
result $? "libapi_program_of_sanitized_static_library" "$T/why"
for f in dyn static pc san; do
	[ -x "$T/$f" ] || cp "$T/dyn" "$T/$f" 2> /dev/null
done

# 3. what the program reads equals what iotracectl shows
build/gen file "$T/f2.trace" 40 2 &&
build/gen file "$T/m.trace" 200 2 &&
build/gen ops "$T/ops.trace" 60 3 &&
build/gen edges "$T/e.trace" 40 1 &&
build/gen gaps "$T/g.trace" 200 1 &&
build/gen trig "$T/trig.trace" 50 2 &&
build/gen names "$T/names.trace" 30 2 &&
build/gen bigissue "$T/bi.trace" 40000 &&
build/gen ring "$T/r.ring" 300 2 128 &&
build/gen ring2 "$T/r2.ring" 1000 2 32 16 > "$T/why" 2>&1
result $? "libapi_inputs" "$T/why"
head -c 300000 "$T/bi.trace" > "$T/cut.trace"

# compare NAME PROGRAM SOURCE: rec lines (all, in completion order) and
# count lines against show -o csv, loss lines against info -o json
compare() {
	LD_LIBRARY_PATH=$R/usr/lib "$2" show "$3" > "$T/api" 2> "$T/why" &&
	{ iotracectl/iotracectl show -o csv "$3" > "$T/csv" 2>> "$T/why"
	  rc=$?; [ $rc = 0 ] || [ $rc = 3 ]; } &&
	{ case $3 in *.ring) echo '{}' ;;
	  *) iotracectl/iotracectl info -o json "$3"
	     [ $? != 1 ] ;; esac; } > "$T/info" 2>> "$T/why" &&
	python3 - "$T/api" "$T/csv" "$T/info" > "$T/why" 2>&1 <<'EOF'
import csv, json, re, sys
def unescape(s):
    return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n"}.get(m.group(1),
                  m.group(1)), s)
api = [[unescape(f) for f in l.rstrip("\n").split("\t")]
       for l in open(sys.argv[1])]
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
info = json.load(open(sys.argv[3]))
recs = [a[1:] for a in api if a[0] == "rec"]
bad = 0
if len(recs) != len(rows):
    print("records: api %d, csv %d" % (len(recs), len(rows)))
    bad = 1
for i, (a, c) in enumerate(zip(recs, rows)):
    want = [c["disk"], c["seq"], c["op"], c["sector"], c["bytes"],
            c["status"] or "-", c["dev_status_str"], c["command"],
            c["comm"] or "-"]
    got = a[:8] + [a[8] if a[8] != "[kernel]" else "-"]
    if got != want:
        print("record %d: api %s" % (i, got))
        print("record %d: csv %s" % (i, want))
        bad += 1
        if bad > 5:
            break
counts = {a[1]: int(a[2]) for a in api if a[0] == "count"}
for d in counts:
    n = sum(1 for c in rows if c["disk"] == d)
    if counts[d] != n:
        print("disk %s: api %d records, csv %d" % (d, counts[d], n))
        bad = 1
for d in info.get("disks", []):
    l = [a for a in api if a[0] == "loss" and a[1] == d["name"]][0]
    got = dict(zip(["completed", "present", "overwritten", "dropped",
                    "torn", "valid", "written", "lost", "late"],
                   map(int, l[2:])))
    for k in ("completed", "overwritten", "dropped", "torn", "written",
              "lost"):
        if d["loss"] and k in d["loss"] and got[k] != d["loss"][k]:
            print("disk %s: loss %s api %d, info %d" %
                  (d["name"], k, got[k], d["loss"][k]))
            bad = 1
    if got["valid"] != d["records"] or counts[d["name"]] != d["records"]:
        print("disk %s: api valid %d, handed out %d; info records %d" %
              (d["name"], got["valid"], counts[d["name"]], d["records"]))
        bad = 1
print("%d records, %d disks" % (len(recs), len(counts)))
sys.exit(1 if bad else 0)
EOF
	rc=$?
	result $rc "libapi_$1 ($(tail -n 1 "$T/why"))" "$T/why"
}
compare two_disks_so "$T/dyn" "$T/f2.trace"
compare two_disks_static "$T/static" "$T/f2.trace"
compare two_disks_pkg_config "$T/pc" "$T/f2.trace"
compare 200_records "$T/dyn" "$T/m.trace"
compare every_op_nvme_scsi_ata_commands "$T/dyn" "$T/ops.trace"
compare edges_no_completion_no_sector "$T/dyn" "$T/e.trace"
compare gaps "$T/dyn" "$T/g.trace"
compare trigger_chunks "$T/dyn" "$T/trig.trace"
compare names_to_escape "$T/dyn" "$T/names.trace"
compare issue_order_file_reordered "$T/static" "$T/bi.trace"
compare truncated_file_read_as_far_as_it_goes "$T/dyn" "$T/cut.trace"
compare ring_1x "$T/dyn" "$T/r.ring"
compare ring_2_0 "$T/dyn" "$T/r2.ring"
compare every_op_asan_ubsan "$T/san" "$T/ops.trace"
# the word previous: the module's copy of the previous boot's persistent
# region, here a region of tests/pregcheck.py in a stand-in debugfs (the
# program passes $IOTRACE_DEBUGFS on as its debugfs option); read as the
# trace file "iotracectl previous -o" writes of it
mkdir -p "$T/dfs" "$T/nodfs"
python3 tests/pregcheck.py --region "$T/r2.ring" "$T/dfs/previous"
export IOTRACE_DEBUGFS="$T/dfs"
compare previous_region_from_debugfs "$T/dyn" previous
compare previous_region_asan_ubsan "$T/san" previous
"$T/dyn" show previous | grep '^source' > "$T/out"
grep -q "$(printf '^source\t1\t1\t[^\t]*\t6.12.0-test\t5000000000$')" \
	"$T/out"
result $? "libapi_previous_is_a_trace_file_of_that_boot" "$T/out"
# the requests in flight at its end (iotrace_source_inflight()): those
# "iotracectl inflight" lists, from the region and from the trace file
# "previous -o" writes of it
iotracectl/iotracectl previous -o "$T/prev.iot" > /dev/null 2>&1
for s in previous "$T/prev.iot"; do
	for p in dyn san; do
		"$T/$p" inflight "$s" > "$T/api" 2> "$T/why"
		rc=$?
		iotracectl/iotracectl inflight -o csv "$s" > "$T/csv" 2>> "$T/why"
		[ $rc = 0 ] && grep -v '^#' "$T/api" | diff - "$T/csv" >> "$T/why" &&
			grep -q '^# requests 1 at 5000000000 torn 1 damaged 0$' "$T/api" &&
			[ "$(wc -l < "$T/csv")" = 2 ]
		result $? "libapi_inflight_${p}_$(basename "$s") ($(sed -n 2p "$T/csv"))" "$T/why"
	done
done
# the same file as major 1 minor 2 wrote it (build/gen major1, 144-byte
# in-flight and records): the same requests in flight, the same records
build/gen major1 "$T/prev.iot" "$T/prev.m1" > "$T/why" 2>&1
rc=$?
for c in "inflight -o csv" "show -o hex" "info -o json"; do
	# shellcheck disable=SC2086
	iotracectl/iotracectl $c "$T/prev.iot" 2>&1 |
		sed 's/"version":"2\.0"//; s/prev\.iot/X/g' > "$T/a"
	# shellcheck disable=SC2086
	iotracectl/iotracectl $c "$T/prev.m1" 2>&1 |
		sed 's/"version":"1\.2"//; s/prev\.m1/X/g' > "$T/b"
	diff "$T/a" "$T/b" >> "$T/why" || rc=1
done
[ $rc = 0 ] && iotracectl/iotracectl inflight -o csv "$T/prev.m1" |
	diff - "$T/csv" >> "$T/why" && [ "$(wc -l < "$T/csv")" = 2 ]
result $? "libapi_inflight_major1_file_reads_the_same" "$T/why"
# a source without any: none, and no error
"$T/dyn" inflight "$T/f2.trace" > "$T/api" 2> "$T/why" &&
	grep -q '^# requests 0 at 0 torn 0 damaged 0$' "$T/api"
result $? "libapi_inflight_none_in_a_recording" "$T/api"
# who the disk was: the region's identity, from the region and from the
# trace file written of it, in the disk table (as info says it)
python3 tests/pregcheck.py --region-id "$T/r2.ring" "$T/dfs/previous"
iotracectl/iotracectl previous -o "$T/prev-id.iot" > /dev/null 2>&1
for s in previous "$T/prev-id.iot"; do
	"$T/dyn" show "$s" > "$T/api" 2> "$T/why"
	grep '^disk' "$T/api" > "$T/disk"
	printf 'disk\t0\tnullb0\t252:0\t512\tQEMU HARDDISK\tQM00001\tnaa.5000c500a1b2c3d4\n' |
		diff - "$T/disk" >> "$T/why"
	result $? "libapi_identity_$(basename "$s")" "$T/why"
done
# which boot (iotrace_source_boot()): the region's and the file's, as
# "iotracectl info" says it; a recording and a ring are this boot's
for s in previous "$T/prev-id.iot"; do
	for p in dyn san; do
		"$T/$p" boot "$s" > "$T/api" 2> "$T/why"
		rc=$?
		iotracectl/iotracectl info -o json "$s" > "$T/info" 2>> "$T/why"
		[ $rc = 0 ] && python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["previous_boot"]
want = "boot %s %s %d %d" % (b["boot_id"], "panicked" if b["panicked"] else "-",
			     b.get("first_mono_ns", 0), b.get("last_mono_ns", 0))
got = open(sys.argv[2]).read().strip()
assert got == want and b["boot_id"] != "00000000-0000-0000-0000-000000000000", (got, want)' \
			"$T/info" "$T/api" >> "$T/why" 2>&1
		result $? "libapi_boot_${p}_$(basename "$s") ($(cat "$T/api"))" "$T/why"
	done
done
for s in "$T/f2.trace" "$T/r2.ring" "$T/cut.trace"; do
	"$T/dyn" boot "$s" > "$T/api" 2> "$T/why"
	rc=$?
	cat "$T/api" >> "$T/why"
	[ $rc = 0 ] && [ "$(cat "$T/api")" = "boot none" ]
	result $? "libapi_boot_none_$(basename "$s")" "$T/why"
done
# what its region had no room for (iotrace_source_room()): the counts
# "iotracectl info" gives, "-" for one the source does not hold; none
# for a recording and a ring
room() { # room SOURCE TEST-NAME: a previous boot's
	for p in dyn san; do
		"$T/$p" room "$1" > "$T/api" 2> "$T/why"
		rc=$?
		iotracectl/iotracectl info -o json "$1" > "$T/info" 2>> "$T/why"
		[ $rc = 0 ] && python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["previous_boot"]
want = "room %s %s" % (b.get("refused", "-"), b.get("evicted", "-"))
got = open(sys.argv[2]).read().strip()
assert got == want, (got, want)' "$T/info" "$T/api" >> "$T/why" 2>&1
		result $? "libapi_room_${p}_$2 ($(cat "$T/api"))" "$T/why"
	done
}
python3 tests/pregcheck.py --region-room "$T/r2.ring" "$T/room.region"
iotracectl/iotracectl previous "$T/room.region" -o "$T/room.iot" \
	> /dev/null 2>&1
for s in previous "$T/prev-id.iot" "$T/room.region" "$T/room.iot"; do
	room "$s" "$(basename "$s")"
done
for s in "$T/f2.trace" "$T/r2.ring"; do
	"$T/dyn" room "$s" > "$T/api" 2> "$T/why"
	rc=$?
	cat "$T/api" >> "$T/why"
	[ $rc = 0 ] && [ "$(cat "$T/api")" = "room none" ]
	result $? "libapi_room_none_$(basename "$s")" "$T/why"
done
unset IOTRACE_DEBUGFS
compare truncated_asan_ubsan "$T/san" "$T/cut.trace"
compare ring_2_0_asan_ubsan "$T/san" "$T/r2.ring"

# the batch read: iotrace_source_read() gives what iotrace_source_foreach()
# does (records, order, loss and late counts), in batches of 1, 7 and
# 4096, in every order; iotrace_rec_columns() every field of the CSV
# record schema as the record and the per-record functions give it
# (libapi_test checks them)
batches() { # batches NAME PROGRAM SOURCE
	: > "$T/why"
	for o in complete start stored; do
		"$2" show "$3" "$o" > "$T/each" 2>&1
		rc=$?
		for b in 1 7 4096; do
			"$2" show "$3" "$o" 1000000000 "$b" > "$T/batch" 2>&1
			rcb=$?
			if [ $rc != $rcb ] || ! cmp -s "$T/each" "$T/batch"; then
				echo "order $o, batches of $b: exit $rcb, foreach's $rc" >> "$T/why"
				diff "$T/each" "$T/batch" | head -5 >> "$T/why"
			fi
		done
	done
	[ ! -s "$T/why" ]
	result $? "libapi_batch_read_$1 ($(grep -c '^rec' "$T/each") records)" "$T/why"
}
batches two_disks "$T/dyn" "$T/f2.trace"
batches every_op_nvme_scsi_ata_commands "$T/dyn" "$T/ops.trace"
batches edges_no_completion_no_sector "$T/dyn" "$T/e.trace"
batches gaps_trigger_chunks "$T/dyn" "$T/trig.trace"
batches names_to_escape "$T/dyn" "$T/names.trace"
batches issue_order_file_reordered "$T/static" "$T/bi.trace"
batches truncated_file "$T/dyn" "$T/cut.trace"
batches ring_1x "$T/dyn" "$T/r.ring"
batches ring_2_0 "$T/dyn" "$T/r2.ring"
batches every_op_asan_ubsan "$T/san" "$T/ops.trace"
batches issue_order_asan_ubsan "$T/san" "$T/bi.trace"
batches ring_2_0_asan_ubsan "$T/san" "$T/r2.ring"

# standard input, and the disk table's identities of a snapshot
"$T/dyn" show - < "$T/f2.trace" | grep -v '^source' > "$T/stdin" &&
	"$T/dyn" show "$T/f2.trace" | grep -v '^source' | cmp -s - "$T/stdin"
result $? "libapi_standard_input_as_the_file"
"$T/dyn" show "$T/trig.trace" 2>&1 | grep '^disk' > "$T/disks"
grep -q "$(printf 'disk\t0\tdisk0\t259:0\t512\tQEMU NVMe Ctrl\tiotrace0\t')" \
	"$T/disks"
result $? "libapi_disk_model_serial_from_trigger_chunk" "$T/disks"
# the start order: export's (its CSV is in start order)
"$T/dyn" show "$T/ops.trace" start | awk -F'\t' '$1 == "rec" { print $3 }' \
	> "$T/a" &&
	iotracectl/iotracectl export -f csv "$T/ops.trace" |
	python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin): print(r["seq"])' > "$T/b" &&
	cmp -s "$T/a" "$T/b"
result $? "libapi_start_order_is_export_order ($(wc -l < "$T/a") records)"

# 4. errors: returned with a message, nothing printed on stderr
check_err() { # check_err NAME WANT ARGS...: exit 1, "error: ...WANT..."
	name=$1 want=$2
	shift 2
	"$T/dyn" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	{ cat "$T/out"; cat "$T/err"; } > "$T/why"
	[ $rc = 1 ] && grep -q "^error: .*$want" "$T/out" && [ ! -s "$T/err" ] &&
		! grep -q iotracectl "$T/out"
	result $? "libapi_error_$name" "$T/why"
}
printf 'hello, this is not a trace\n' > "$T/foreign"
: > "$T/empty"
check_err no_such_file "$T/none: No such file or directory" open "$T/none"
check_err no_such_disk "no traced disk of that name" open nosuchdisk0
check_err foreign_file "not an iotrace trace file or ring" open "$T/foreign"
check_err empty_file "empty file" open "$T/empty"
check_err strict_refuses_truncated "truncated trace file" open "$T/cut.trace" strict
export IOTRACE_DEBUGFS="$T/nodfs" IOTRACE_DEV="$T/nodfs"
check_err previous_without_one "no previous boot's trace: neither $T/nodfs/previous nor" \
	open previous
unset IOTRACE_DEBUGFS IOTRACE_DEV
check_err unknown_disk "holds no disk named sdz (it holds: disk0, disk1)" \
	disk "$T/f2.trace" sdz
"$T/dyn" open "$T/cut.trace" > "$T/out" 2>&1 &&
	grep -q "^ok: truncated trace file" "$T/out"
result $? "libapi_truncated_file_opens_with_a_warning" "$T/out"
# a persistent region one disk's ring of which does not validate: the
# other disk's records read, the ring left out the warning
python3 tests/pregcheck.py --region-left "$T/r2.ring" "$T/left.region"
"$T/dyn" open "$T/left.region" > "$T/out" 2>&1 &&
	grep -q "^ok: ring of sdr left out: not an iotrace ring" "$T/out"
result $? "libapi_region_ring_left_out_opens_with_a_warning" "$T/out"
compare region_ring_left_out_other_disk_read "$T/dyn" "$T/left.region"
"$T/dyn" stop "$T/m.trace" 7 > "$T/out" 2>&1 && grep -qx "42 0" "$T/out"
result $? "libapi_callback_stops_the_walk_with_its_value" "$T/out"

# 5. handles in threads at once, each its own
"$T/dyn" threads "$T/bi.trace" 4 > "$T/out" 2>&1
result $? "libapi_four_threads_four_handles ($(cat "$T/out"))" "$T/out"
"$T/san" threads "$T/m.trace" 3 > "$T/out" 2>&1
result $? "libapi_three_threads_asan_ubsan ($(head -n 1 "$T/out"))" "$T/out"
for a in "open $T/none" "open $T/foreign" "open $T/cut.trace strict" \
	"disk $T/f2.trace sdz" "stop $T/r2.ring 3" "open nosuchdisk0"; do
	# shellcheck disable=SC2086 # the words are the arguments
	"$T/san" $a > "$T/out" 2>&1
	[ $? -le 1 ] && ! grep -q "Sanitizer\|runtime error" "$T/out" ||
		{ echo "$a" >> "$T/why2"; cat "$T/out" >> "$T/why2"; }
done
[ ! -s "$T/why2" ]
result $? "libapi_errors_asan_ubsan" "$T/why2"

# 6. uninstall leaves nothing
make -s --no-print-directory uninstall-lib DESTDIR="$R" PREFIX=/usr \
	> "$T/why" 2>&1
find "$R" -type f -o -type l >> "$T/why"
[ ! -s "$T/why" ]
result $? "libapi_uninstall_lib_leaves_no_file" "$T/why"
# the build's pkg-config file as make all makes it
make -s --no-print-directory build/libiotrace.pc > /dev/null 2>&1

echo "1..$N"
[ "$FAILS" = 0 ]
