#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Python binding's tests (tests/python_test.py, KTAP) or its benchmark
# (tests/python_bench.py), with Debian's python3 (which has python3-numpy
# and python3-pandas, .ci/install-deps) and the build's libiotrace.so.1.
#   tests/python.sh [bench [RECORDS]]
set -u
cd "$(dirname "$0")/.." || exit 1
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
export IOTRACE_LIBRARY="$(pwd)/build/libiotrace.so.1"
if ! "$PY" -c 'import numpy, pandas' 2> /dev/null; then
	echo "KTAP version 1"
	echo "ok 1 python_binding # SKIP python3-numpy or python3-pandas is not installed"
	echo "1..1"
	exit 0
fi
if [ "${1:-}" = bench ]; then
	shift
	exec "$PY" tests/python_bench.py "$@"
fi
exec "$PY" tests/python_test.py
