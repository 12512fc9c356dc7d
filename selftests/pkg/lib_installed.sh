#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lib_installed: the packaged libiotrace as a program outside the tree
# uses it.  selftests/pkg/lib_count.c is built with nothing but
# "pkg-config --cflags --libs libiotrace" (no -I or -L of the tree; the
# compiler's and pkg-config's search variables unset), against the
# libiotrace-dev and libiotrace1 installed on this machine, and also
# statically (pkg-config's --cflags and its libdir's libiotrace.a); both
# count the records per disk of generated trace files, compared with
# what the packaged /usr/sbin/iotracectl shows of the same files; so does
# the Python binding of python3-iotrace when it is installed.
# Run by deb.sh while the .debs are installed; alone it skips (exit 4)
# unless libiotrace-dev and iotrace-tools are installed, or when cc,
# pkg-config, make or python3 is missing.
# Oracles: dpkg -S (the package that holds each file), ldd (the program
# loads libiotrace1's libiotrace.so.1), "iotracectl show -o csv".
# The trace files are written by tools/tests/gen, built in a scratch
# folder (the tree's tools/build is not touched).
# usage: selftests/pkg/lib_installed.sh
. "$(dirname "$0")/lib.sh"
set -u
echo "TAP version 13"
for t in cc pkg-config make python3; do
	command -v "$t" > /dev/null || { echo "# SKIP $t is not installed"; exit 4; }
done
for p in libiotrace-dev libiotrace1 iotrace-tools; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2> /dev/null)
	[ "$st" = installed ] ||
		{ echo "# SKIP $p is not installed (selftests/pkg/deb.sh installs the .debs)"; exit 4; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ver=$(cat "$top/VERSION")
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || gcc -print-multiarch)
libdir=/usr/lib/$ma
# what the packages installed, not what this environment adds
unset CPATH C_INCLUDE_PATH LIBRARY_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH \
	PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR

# owned_by PACKAGE FILE... - dpkg says PACKAGE holds each FILE
owned_by() {
	local p=$1 f o
	shift
	for f in "$@"; do
		o=$(dpkg -S "$f" 2> /dev/null | sed -n 's/^\([^:]*\)\(:[^:]*\)\?: .*/\1/p')
		[ "$o" = "$p" ] || { echo "# $f: held by '${o:-nothing}', not $p"; return 1; }
	done
}

# --- the packaged files --------------------------------------------------------
check "lib: libiotrace1 holds $libdir/libiotrace.so.1" \
	owned_by libiotrace1 "$libdir/libiotrace.so.1"
check "lib: libiotrace-dev holds <iotrace/libiotrace.h>, libiotrace.so, libiotrace.a, libiotrace.pc" \
	owned_by libiotrace-dev /usr/include/iotrace/libiotrace.h "$libdir/libiotrace.so" \
	"$libdir/libiotrace.a" "$libdir/pkgconfig/libiotrace.pc"
pcver=$(pkg-config --modversion libiotrace 2> "$tmp/pc.err")
pcdir=$(pkg-config --variable=pcfiledir libiotrace 2>> "$tmp/pc.err")
pclib=$(pkg-config --variable=libdir libiotrace 2>> "$tmp/pc.err")
sed 's/^/# pkg-config: /' "$tmp/pc.err"
echo "# pkg-config libiotrace: version $pcver, in $pcdir, libdir $pclib"
check "lib: pkg-config finds libiotrace $ver in $libdir/pkgconfig, libdir $libdir" \
	eval '[ "$pcver" = "$ver" ] && [ "$pcdir" = "$libdir/pkgconfig" ] && [ "$pclib" = "$libdir" ]'

# --- the program: of pkg-config alone, shared and static ------------------------
flags=$(pkg-config --cflags --libs libiotrace 2>&1)
echo "# pkg-config --cflags --libs libiotrace: $flags"
# shellcheck disable=SC2086 # the flags are words
cc -Wall -Wextra -Werror -o "$tmp/lib_count" "$top/selftests/pkg/lib_count.c" \
	$flags > "$tmp/cc.log" 2>&1
rc=$?
sed 's/^/# cc: /' "$tmp/cc.log" | head -n 20
check "lib: lib_count.c builds with cc -Wall -Wextra -Werror and pkg-config --cflags --libs libiotrace" \
	test "$rc" = 0
so=$(ldd "$tmp/lib_count" 2> /dev/null | awk '$1 == "libiotrace.so.1" { print $3 }')
echo "# ldd lib_count: libiotrace.so.1 => ${so:-not found}"
check "lib: lib_count loads libiotrace1's $libdir/libiotrace.so.1" \
	eval '[ -n "$so" ] && [ "$(readlink -f "$so")" = "$(readlink -f "$libdir/libiotrace.so.1")" ]'
# shellcheck disable=SC2046 # the flags are words
cc -Wall -Wextra -Werror -o "$tmp/lib_count_static" $(pkg-config --cflags libiotrace) \
	"$top/selftests/pkg/lib_count.c" "$pclib/libiotrace.a" > "$tmp/cc.log" 2>&1 &&
	! ldd "$tmp/lib_count_static" 2> /dev/null | grep -q libiotrace
rc=$?
sed 's/^/# cc: /' "$tmp/cc.log" | head -n 20
check "lib: lib_count.c builds statically with pkg-config --cflags and \$libdir/libiotrace.a" \
	test "$rc" = 0

# --- what it counts equals what iotracectl shows --------------------------------
# two disks; a lost stretch; every operation; a file in issue order (the
# reading window's reordering)
if { make -s -C "$top/tools" B="$tmp/b" "$tmp/b/gen" &&
     "$tmp/b/gen" file "$tmp/two_disks.trace" 3000 2 &&
     "$tmp/b/gen" gaps "$tmp/gaps.trace" 500 1 &&
     "$tmp/b/gen" ops "$tmp/ops.trace" 300 3 &&
     "$tmp/b/gen" bigissue "$tmp/issue_order.trace" 40000; } > "$tmp/gen.log" 2>&1; then
	ok "lib: trace files written (tools/tests/gen)"
else
	tail -n 20 "$tmp/gen.log" | sed 's/^/# | /'
	fail "lib: trace files written (tools/tests/gen)"
	finish
fi
# same_counts COUNTS CSV - lib_count's lines against the CSV's rows per disk
same_counts() {
	python3 - "$1" "$2" <<'EOF'
import csv, sys
got = {}
for line in open(sys.argv[1]):
    name, n = line.rsplit(" ", 1)
    got[name] = int(n)
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
want = {}
for r in rows:
    want[r["disk"]] = want.get(r["disk"], 0) + 1
total = got.pop("total", None)
bad = total != len(rows) or not rows
for d in sorted(set(got) | set(want)):
    if d not in got or got[d] != want.get(d, 0):
        bad = True
print("# lib_count: %s, total %s; iotracectl: %s, total %d" %
      (" ".join("%s %d" % kv for kv in got.items()), total,
       " ".join("%s %d" % kv for kv in sorted(want.items())), len(rows)))
sys.exit(1 if bad else 0)
EOF
}
# the Python binding of python3-iotrace, when installed: from a scratch
# folder (not the tree's tools/python), the loader finding libiotrace1's
# libiotrace.so.1 (no IOTRACE_LIBRARY)
# Debian's interpreter, the one the package is for (not one of a pyenv or
# a virtualenv earlier on PATH)
PY=/usr/bin/python3
py_count() { # TRACE OUT - records per disk as lib_count prints them
	(cd "$tmp" && env -u PYTHONPATH -u IOTRACE_LIBRARY "$PY" -I - "$1" > "$2" <<'EOF'
import collections, sys
import iotrace
n = collections.Counter()
with iotrace.open(sys.argv[1]) as t:
    for r in t:
        n[r.disk] += 1
for d, k in sorted(n.items()):
    print(d, k)
print("total", sum(n.values()))
EOF
	)
}
py=0
if [ "$(dpkg-query -W -f='${db:Status-Status}' python3-iotrace 2> /dev/null)" = installed ]; then
	py=1
	check "lib: python3-iotrace holds the module iotrace in /usr/lib/python3/dist-packages" \
		owned_by python3-iotrace /usr/lib/python3/dist-packages/iotrace/__init__.py \
		/usr/lib/python3/dist-packages/iotrace/_lib.py
	where=$(cd "$tmp" && env -u PYTHONPATH "$PY" -I -c 'import iotrace; print(iotrace.__file__)' 2>&1)
	echo "# $PY -I: import iotrace: $where"
	check "lib: $PY imports iotrace from python3-iotrace" \
		test "$where" = /usr/lib/python3/dist-packages/iotrace/__init__.py
fi
for f in two_disks gaps ops issue_order; do
	if [ "$py" = 1 ]; then
		if py_count "$tmp/$f.trace" "$tmp/$f.py" 2> "$tmp/py.err" &&
		   /usr/sbin/iotracectl show -o csv "$tmp/$f.trace" > "$tmp/$f.csv" 2>> "$tmp/py.err"; then
			check "lib: $f.trace: the Python binding's records per disk are iotracectl show's" \
				same_counts "$tmp/$f.py" "$tmp/$f.csv"
		else
			sed 's/^/# | /' "$tmp/py.err" | head -n 5
			fail "lib: $f.trace: the Python binding's records per disk are iotracectl show's"
		fi
	fi
	/usr/sbin/iotracectl show -o csv "$tmp/$f.trace" > "$tmp/$f.csv" 2> "$tmp/show.err"
	rc=$?
	sed 's/^/# iotracectl: /' "$tmp/show.err" | head -n 5
	for prog in lib_count lib_count_static; do
		if [ "$rc" = 0 ] && [ -x "$tmp/$prog" ] &&
		   "$tmp/$prog" "$tmp/$f.trace" > "$tmp/$f.$prog" 2> "$tmp/$prog.err"; then
			check "lib: $f.trace: $prog's records per disk are iotracectl show's" \
				same_counts "$tmp/$f.$prog" "$tmp/$f.csv"
		else
			sed 's/^/# | /' "$tmp/$prog.err" 2> /dev/null | head -n 5
			fail "lib: $f.trace: $prog's records per disk are iotracectl show's (iotracectl exit $rc)"
		fi
	done
done
finish
