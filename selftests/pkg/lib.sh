#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the packaging tests (sourced): KTAP lines and the list of
# kernels to test.  Each test script takes the kernel releases as
# arguments (default: every kernel with /boot/vmlinuz and headers).

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
__n=0
__failed=0

ok() { __n=$((__n + 1)); echo "ok $__n $*"; }
fail() { __n=$((__n + 1)); __failed=$((__failed + 1)); echo "not ok $__n $*"; }
skip_one() { __n=$((__n + 1)); echo "ok $__n $1 # SKIP ${2:-}"; }
check() { # DESC CMD...
	local __desc=$1
	shift
	if "$@"; then ok "$__desc"; else fail "$__desc"; fi
}
finish() {
	echo "1..$__n"
	echo "# totals: $((__n - __failed)) ok, $__failed not ok"
	[ "$__failed" -eq 0 ]
	exit
}

# kernels [KVER...] - the kernels to test, one per line.
kernels() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@"
		return
	fi
	local b k
	for b in $(ls -d /lib/modules/*/build 2> /dev/null | sort -V); do
		k=$(basename "$(dirname "$b")")
		[ -e "/boot/vmlinuz-$k" ] && echo "$k"
	done
}

# vermagic_is FILE KVER - the module's vermagic names KVER and its version
# is the one in VERSION (modinfo's own reading of the .ko, compressed or not).
vermagic_is() {
	local v mv
	v=$(modinfo -F vermagic "$1" 2> /dev/null) || { echo "# modinfo $1 failed"; return 1; }
	mv=$(modinfo -F version "$1" 2> /dev/null)
	echo "# $(basename "$1"): vermagic $v, version $mv"
	[ "${v%% *}" = "$2" ] && [ "$mv" = "$(cat "$top/VERSION")" ]
}

# tool_version_is BIN - BIN --version names the version in VERSION.
tool_version_is() {
	local out
	out=$("$1" --version 2> /dev/null) || { echo "# $1 --version failed"; return 1; }
	echo "# $out"
	[ "${out#iotracectl $(cat "$top/VERSION") }" != "$out" ]
}

# ko_in DIR - the iotrace module file in DIR (iotrace.ko, .ko.xz, .ko.zst).
ko_in() {
	local f
	for f in "$1"/iotrace.ko "$1"/iotrace.ko.xz "$1"/iotrace.ko.zst "$1"/iotrace.ko.gz; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}
