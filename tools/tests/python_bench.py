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
    """The shortest wall-clock and CPU times of @runs runs of @fn, and
    its value.  The CPU time (the process's, one thread) is the figure
    of a machine other work keeps busy."""
    wall, cpu = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        value = fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return min(wall), min(cpu), value


def rate(what, n, wall, cpu, extra=""):
    print("python %s: %d records in %.2f s (%.2f s of CPU): %.2f M records/s"
          " (%.2f M/s of CPU)%s" % (what, n, wall, cpu, n / wall / 1e6,
                                    n / cpu / 1e6, extra))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000000
    tmp = tempfile.mkdtemp(prefix="iotrace-python-bench.", dir="/var/tmp")
    try:
        path = os.path.join(tmp, "big.trace")
        subprocess.run([os.path.join(TOOLS, "build", "gen"), "big", path,
                        str(n)], check=True)
        with iotrace.open(path) as t:
            wall, cpu, df = best(t.to_pandas, 3)
            rate("to_pandas", len(df), wall, cpu,
                 ", best of 3; %d columns, %.0f MB" %
                 (df.shape[1], df.memory_usage(deep=False).sum() / 1e6))
            del df
            m = min(n, 1000000)

            def first_m():
                k = 0
                for _ in t:
                    k += 1
                    if k == m:
                        break
                return k
            wall, cpu, k = best(first_m, 1)
            rate("iteration", k, wall, cpu)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
