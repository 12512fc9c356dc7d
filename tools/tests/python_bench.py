#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Throughput of the Python binding: to_pandas() and iteration over a
trace file of RECORDS records (default 5,000,000: "gen big", one disk,
two CPUs' parts, as the recorder writes them).  Figures only, no
assertion.

    tests/python_bench.py [RECORDS]    (tests/python.sh bench, make bench)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOOLS, "python"))

import iotrace  # noqa: E402


def best(fn, runs):
    """The shortest of @runs runs of @fn, and its value."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return min(times), value


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000000
    tmp = tempfile.mkdtemp(prefix="iotrace-python-bench.", dir="/var/tmp")
    try:
        path = os.path.join(tmp, "big.trace")
        subprocess.run([os.path.join(TOOLS, "build", "gen"), "big", path,
                        str(n)], check=True)
        with iotrace.open(path) as t:
            secs, df = best(t.to_pandas, 3)
            print("python to_pandas: %d records in %.2f s: %.2f M records/s"
                  " (best of 3; %d columns, %.0f MB)" %
                  (len(df), secs, len(df) / secs / 1e6, df.shape[1],
                   df.memory_usage(deep=False).sum() / 1e6))
            del df
            m = min(n, 1000000)

            def first_m():
                k = 0
                for _ in t:
                    k += 1
                    if k == m:
                        break
                return k
            secs, k = best(first_m, 1)
            print("python iteration: %d records in %.2f s: %.2f M records/s"
                  % (k, secs, k / secs / 1e6))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
