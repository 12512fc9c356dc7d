#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the Python binding (tools/python/iotrace) on generated
trace files and rings: to_pandas() against "iotracectl export -f csv"
(and "show -o csv") read by pandas.read_csv(), column by column (names,
dtypes, values); iteration against the CSV's rows; errors as Python
exceptions with libiotrace's message; make install-python.  Prints KTAP.

    tests/python_test.py      (from tools/, after make; tests/python.sh
                               runs it with the build's library)
"""
import csv
import ctypes
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tracemalloc
import warnings

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOOLS, "python"))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import iotrace  # noqa: E402

GEN = os.path.join(TOOLS, "build", "gen")
CTL = os.path.join(TOOLS, "iotracectl", "iotracectl")
T = tempfile.mkdtemp(prefix="iotrace-python-test.")
n_tests = 0
fails = 0


def result(ok, name, why=""):
    global n_tests, fails
    n_tests += 1
    print("%s %d %s" % ("ok" if ok else "not ok", n_tests, name))
    if not ok:
        fails += 1
        for line in str(why).splitlines()[:40]:
            print("# " + line)
    sys.stdout.flush()


def path(name):
    return os.path.join(T, name)


def gen(*args):
    subprocess.run([GEN] + [str(a) for a in args], check=True,
                   stdout=subprocess.DEVNULL)


def ctl_csv(*args):
    """iotracectl's CSV of a source (exit 0, or 3 for a salvaged file)."""
    p = subprocess.run([CTL] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode not in (0, 3):
        raise RuntimeError("iotracectl %s: exit %d: %s" %
                           (" ".join(args), p.returncode,
                            p.stderr.decode(errors="replace")))
    return p.stdout


def csv_of(src, order):
    """The CSV iotracectl writes in @order: export's (start), show's
    (complete)."""
    if order == "start":
        return ctl_csv("export", "-f", "csv", src)
    return ctl_csv("show", "-o", "csv", src)


def frame_diff(got, want):
    """What differs between two DataFrames, column by column: "" for
    nothing."""
    if list(got.columns) != list(want.columns):
        return "columns %s, want %s" % (list(got.columns),
                                        list(want.columns))
    if len(got) != len(want):
        return "%d rows, want %d" % (len(got), len(want))
    for c in want.columns:
        g, w = got[c], want[c]
        if g.dtype != w.dtype:
            return "column %s: dtype %s, want %s" % (c, g.dtype, w.dtype)
        if not g.equals(w):
            bad = ~((g == w) | (g.isna() & w.isna()))
            i = int(np.flatnonzero(bad.to_numpy())[0])
            return "column %s: row %d is %r, want %r" % (
                c, i, g.iloc[i], w.iloc[i])
    return ""


def record_fields(r):
    return ["" if v is None else str(v) for v in r]


def quiet_open(src, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", iotrace.IotraceWarning)
        return iotrace.open(src, **kw)


def make_inputs():
    gen("file", path("f2.trace"), 40, 2)
    gen("file", path("m.trace"), 200, 2)
    gen("ops", path("ops.trace"), 60, 3)
    gen("edges", path("e.trace"), 40, 1)
    gen("gaps", path("g.trace"), 200, 1)
    gen("trig", path("trig.trace"), 50, 2)
    gen("names", path("names.trace"), 30, 2)
    gen("minor1", path("o.trace"), 40, 1)
    gen("mixed", path("mix.trace"), 300, 2)
    gen("bigissue", path("bi.trace"), 40000)
    gen("big", path("big.trace"), 300000)
    gen("ring", path("r.ring"), 300, 2, 128)
    gen("ring2", path("r2.ring"), 1000, 2, 32, 16)
    with open(path("bi.trace"), "rb") as f:
        data = f.read()
    with open(path("cut.trace"), "wb") as f:
        f.write(data[:300000])
    with open(path("head.trace"), "wb") as f:
        f.write(data[:300])
    with open(path("foreign"), "w") as f:
        f.write("hello, this is not a trace\n")
    open(path("empty"), "w").close()


# name: source, what it holds
INPUTS = [
    ("two_disks", "f2.trace"),
    ("errors_nvme_scsi_ata_commands", "m.trace"),
    ("every_op_three_disks", "ops.trace"),
    ("edges_no_completion_no_sector_no_queue_time", "e.trace"),
    ("gaps", "g.trace"),
    ("trigger_chunks", "trig.trace"),
    ("names_csv_quotes", "names.trace"),
    ("minor1_no_submitters", "o.trace"),
    ("mixed_disks", "mix.trace"),
    ("issue_order_file_reordered", "bi.trace"),
    ("truncated_file_read_as_far_as_it_goes", "cut.trace"),
    ("ring_1x", "r.ring"),
    ("ring_2_0", "r2.ring"),
]


def test_to_pandas():
    for name, src in INPUTS:
        for order in ("start", "complete"):
            try:
                want = pd.read_csv(io.BytesIO(csv_of(path(src), order)))
                with quiet_open(path(src), order=order) as t:
                    got = t.to_pandas()
                why = frame_diff(got, want)
            except Exception as e:  # reported, the others go on
                why = "%s: %s" % (type(e).__name__, e)
            tool = "export" if order == "start" else "show"
            result(not why, "python_to_pandas_equals_%s_csv_%s (%d rows)" %
                   (tool, name, len(want)), why)


def test_dtypes_both_ways():
    """A column with a value missing is float64, without one int64; a text
    column of empty fields only float64: as read_csv makes them."""
    with quiet_open(path("e.trace")) as t:
        e = t.to_pandas()
    with quiet_open(path("f2.trace")) as t:
        f = t.to_pandas()
    with quiet_open(path("o.trace")) as t:
        o = t.to_pandas()
    why = []
    for c in ("complete_ns", "queue_ns", "latency_ns", "sector"):
        if e[c].dtype != np.float64 or not e[c].isna().any():
            why.append("edges: %s is %s" % (c, e[c].dtype))
        if f[c].dtype != np.int64:
            why.append("two disks: %s is %s" % (c, f[c].dtype))
    if o["comm"].dtype != np.float64 or not o["comm"].isna().all():
        why.append("minor1: comm is %s" % o["comm"].dtype)
    if f["command"].dtype != object:
        why.append("command is %s" % f["command"].dtype)
    result(not why, "python_to_pandas_dtypes_follow_missing_values",
           "\n".join(why))


def test_iteration():
    for name, src in INPUTS:
        for order in ("start", "complete"):
            try:
                rows = list(csv.reader(io.StringIO(
                    csv_of(path(src), order).decode())))
                with quiet_open(path(src), order=order) as t:
                    got = [record_fields(r) for r in t]
                why = ""
                if rows[0] != list(iotrace.CSV_COLUMNS):
                    why = "CSV header %s" % rows[0]
                elif len(got) != len(rows) - 1:
                    why = "%d records, CSV %d" % (len(got), len(rows) - 1)
                else:
                    for i, (g, w) in enumerate(zip(got, rows[1:])):
                        if g != w:
                            why = "record %d: %s\nCSV row: %s" % (i, g, w)
                            break
            except Exception as e:
                why = "%s: %s" % (type(e).__name__, e)
            tool = "export" if order == "start" else "show"
            result(not why, "python_iteration_equals_%s_csv_%s (%d records)"
                   % (tool, name, len(rows) - 1), why)


def test_iteration_named_fields():
    with quiet_open(path("m.trace")) as t:
        r = next(iter(t))
        errs = [x for x in t if x.error]
    why = ""
    if r._fields != iotrace.CSV_COLUMNS or not isinstance(r.command, str):
        why = repr(r)
    elif not errs or errs[0].status != "-EIO" or \
            "MEDIUM ERROR" not in "".join(x.dev_status_str for x in errs):
        why = "errors: %r" % errs[:2]
    result(not why, "python_record_named_fields_decoded_command_errors "
           "(%d errors)" % len(errs), why)


def test_iteration_memory():
    """Iteration holds a batch, not the records: its peak of traced
    memory stays far below what the 300,000 records take as a list."""
    tracemalloc.start()
    with iotrace.open(path("big.trace")) as t:
        n = 0
        for r in t:
            n += 1
        _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    result(n == 300000 and peak < 16 << 20,
           "python_iteration_bounded_memory (%d records, peak %.1f MB)" %
           (n, peak / 1e6), "peak %d bytes" % peak)


def expect_error(name, want, fn):
    try:
        fn()
    except iotrace.IotraceError as e:
        result(want in str(e), "python_error_" + name,
               "message: %s\nwant: %s" % (e, want))
        return
    except Exception as e:
        result(False, "python_error_" + name,
               "%s: %s" % (type(e).__name__, e))
        return
    result(False, "python_error_" + name, "no exception")


def read_all(src, **kw):
    with quiet_open(src, **kw) as t:
        return t.to_pandas()


def test_errors():
    expect_error("foreign_file", "not an iotrace trace file or ring",
                 lambda: read_all(path("foreign")))
    expect_error("empty_file", "empty file", lambda: read_all(path("empty")))
    expect_error("header_cut_short", "head.trace",
                 lambda: read_all(path("head.trace")))
    expect_error("no_such_file", "No such file or directory",
                 lambda: read_all(path("none.trace")))
    expect_error("strict_refuses_truncated", "truncated trace file",
                 lambda: read_all(path("cut.trace"), strict=True))

    # cut after it was opened: the read fails with the library's message
    shutil.copy(path("bi.trace"), path("shrink.trace"))

    def shrink(read):
        t = iotrace.open(path("shrink.trace"))
        os.truncate(path("shrink.trace"), 200000)
        try:
            read(t)
        finally:
            t.close()
            shutil.copy(path("bi.trace"), path("shrink.trace"))
    expect_error("cut_while_read_to_pandas", "cut while it was read",
                 lambda: shrink(lambda t: t.to_pandas()))
    expect_error("cut_while_read_iteration", "cut while it was read",
                 lambda: shrink(lambda t: sum(1 for _ in t)))

    def two_reads():
        # the first read's next batch fails (40,000 records: 10 batches)
        with iotrace.open(path("bi.trace")) as t:
            a = iter(t)
            next(a)
            t.to_pandas()
            sum(1 for _ in a)
    expect_error("second_read_ends_the_first", "ended by another read",
                 two_reads)

    def closed():
        t = iotrace.open(path("m.trace"))
        t.close()
        t.to_pandas()
    expect_error("closed_trace", "closed", closed)
    try:
        iotrace.open(path("m.trace"), order="sideways")
        why = "no exception"
    except ValueError as e:
        why = "" if "sideways" in str(e) else str(e)
    result(not why, "python_error_unknown_order_valueerror", why)


def test_truncated_warning():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = iotrace.open(path("cut.trace"))
    msgs = [str(x.message) for x in w
            if issubclass(x.category, iotrace.IotraceWarning)]
    ok = len(msgs) == 1 and "truncated trace file" in msgs[0] and \
        t.salvaged and t.warning in msgs[0]
    t.close()
    result(ok, "python_truncated_file_warns_with_the_library_message",
           "\n".join(msgs) or "no warning")


def test_source_info():
    with quiet_open(path("trig.trace")) as t:
        df = t.to_pandas()
        loss = t.loss()
        d0 = t.loss("disk0")
        disks = t.disks
    why = ""
    if [d.name for d in disks] != ["disk0", "disk1"]:
        why = "disks %s" % (disks,)
    elif disks[0].model != "QEMU NVMe Ctrl":
        why = "model %r" % disks[0].model
    elif loss["valid"] != len(df) or d0["valid"] != (df.disk == "disk0").sum():
        why = "loss %s, %d rows" % (loss, len(df))
    result(not why, "python_disks_and_loss_accounting", why)


def doc_example():
    """The example script of Documentation/python.rst."""
    doc = os.path.join(TOOLS, os.pardir, "Documentation", "python.rst")
    with open(doc) as f:
        lines = f.read().splitlines()
    start = lines.index("    #!/usr/bin/python3")
    code = []
    for line in lines[start:]:
        if line and not line.startswith("    "):
            break
        code.append(line[4:])
    return "\n".join(code).rstrip() + "\n"


def test_doc_example():
    script = path("example.py")
    with open(script, "w") as f:
        f.write(doc_example())
    env = dict(os.environ, PYTHONPATH=os.path.join(TOOLS, "python"))
    p = subprocess.run([sys.executable, script, path("m.trace")],
                       capture_output=True, text=True, env=env)
    out = p.stdout.splitlines()
    ok = p.returncode == 0 and len(out) >= 3 and \
        out[0].endswith(":00") and out[1].split() == ["who", "writes",
                                                      "p99_ms"]
    result(ok, "python_doc_example_worst_p99_write_latency_per_hour",
           p.stdout + p.stderr)


def test_install():
    root = path("root")
    env = dict(os.environ)
    env.pop("IOTRACE_LIBRARY", None)
    mk = ["make", "-s", "--no-print-directory", "-C", TOOLS]
    p = subprocess.run(mk + ["install-python", "install-lib",
                             "DESTDIR=" + root, "PREFIX=/usr"],
                       capture_output=True, text=True)
    pkg = os.path.join(root, "usr/lib/python3/dist-packages")
    why = p.stdout + p.stderr
    if not p.returncode:
        # the installed package, the installed library by the loader
        env["PYTHONPATH"] = pkg
        env["LD_LIBRARY_PATH"] = os.path.join(root, "usr/lib")
        q = subprocess.run(
            [sys.executable, "-c",
             "import iotrace, sys; t = iotrace.open(sys.argv[1]); "
             "print(iotrace.__file__, iotrace._lib.lib._name, "
             "len(t.to_pandas()))", path("m.trace")],
            capture_output=True, text=True, env=env, cwd=T)
        why = q.stdout + q.stderr
        ok = q.returncode == 0 and q.stdout.startswith(pkg) and \
            "libiotrace.so.1 400" in q.stdout
    else:
        ok = False
    result(ok, "python_install_python_dist_packages_and_soname", why)
    p = subprocess.run(mk + ["uninstall-python", "uninstall-lib",
                             "DESTDIR=" + root, "PREFIX=/usr"],
                       capture_output=True, text=True)
    left = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs]
    result(p.returncode == 0 and not left,
           "python_uninstall_python_leaves_no_file",
           p.stderr + "\n".join(left))


def region_and_file(kind, name, saved):
    """A region of tests/pregcheck.py (its option @kind) at @name, and
    the trace file "previous -o" writes of it at @saved: both paths."""
    reg = path(name)
    subprocess.run([sys.executable, os.path.join(TOOLS, "tests",
                                                 "pregcheck.py"),
                    kind, path("r2.ring"), reg], check=True)
    prev = path(saved)
    subprocess.run([CTL, "previous", reg, "-o", prev], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return reg, prev


def test_inflight():
    """Trace.inflight(): the requests in flight of a previous boot's
    region (tests/pregcheck.py's) and of the trace file "previous -o"
    writes of it, against "iotracectl inflight -o csv"."""
    reg, prev = region_and_file("--region", "region", "prev.iot")
    for name, src in (("region", reg), ("trace_file", prev)):
        want = list(csv.DictReader(io.StringIO(ctl_csv(
            "inflight", "-o", "csv", src).decode())))
        try:
            got, meta = iotrace.open(src).inflight()
        except iotrace.IotraceError as e:
            result(False, "inflight_" + name, e)
            continue
        rows = [{"disk": r.disk, "issue_ns": str(r.issue_ns),
                 "age_us": "%.1f" % ((meta["at_ns"] - r.issue_ns) // 1000),
                 "op": r.op, "sector": str(r.sector), "bytes": str(r.bytes),
                 "hwq": str(r.hwq), "tag": str(r.tag),
                 "cpu": str(r.issue_cpu), "pid": str(r.pid),
                 "command": r.command} for r in got]
        result(len(want) == 1 and rows == want and meta["torn"] == 1 and
               meta["damaged"] == 0 and
               all(r.complete_ns is None and r.latency_ns is None
                   for r in got),
               "inflight_%s (%s)" % (name, want[0]["command"] if want
                                     else "none"),
               "%s\n%s\n%s" % (rows, want, meta))
    got, meta = iotrace.open(path("f2.trace")).inflight()
    result(got == [] and meta == {"at_ns": 0, "torn": 0, "damaged": 0},
           "inflight_none_in_a_recording", "%s %s" % (got, meta))
    # which boot: as "iotracectl info -o json" says it
    for name, src in (("region", reg), ("trace_file", prev)):
        b = json.loads(ctl_csv("info", "-o", "json", src))["previous_boot"]
        want = {"boot_id": b["boot_id"], "panicked": b["panicked"],
                "first_ns": b.get("first_mono_ns", 0),
                "last_ns": b.get("last_mono_ns", 0)}
        got = {k: v for k, v in iotrace.open(src).previous_boot.items()
               if k in want}
        result(got == want and
               want["boot_id"] != "00000000-0000-0000-0000-000000000000",
               "previous_boot_%s (%s)" % (name, want["boot_id"]),
               "%s\n%s" % (got, want))
    got = iotrace.open(path("f2.trace")).previous_boot
    result(got is None, "previous_boot_none_in_a_recording", str(got))
    # what the region had no room for (iotrace_source_room()): a layout
    # 1.4 region's counts and the file saved of it; layout 1.0 counts no
    # evictions
    room, roomf = region_and_file("--region-room", "room.region", "room.iot")
    for name, src, want in (("region_1_4", room, (3, 2)),
                            ("trace_file_1_4", roomf, (3, 2)),
                            ("region_1_0", reg, (0, None)),
                            ("trace_file_1_0", prev, (0, None))):
        b = iotrace.open(src).previous_boot
        got = (b["refused"], b["evicted"])
        result(got == want, "previous_boot_room_%s %s" % (name, got),
               "%s, want %s" % (got, want))


# Run in a child: a use-after-free in the library kills it (SIGSEGV).
_THREADS = r"""
import sys, threading, time
sys.path.insert(0, sys.argv[1])
import iotrace
src, what = sys.argv[2], sys.argv[3]
t = iotrace.open(src)
ends = []

def read():
    n = 0
    try:
        for _ in t.records("complete"):
            n += 1
        ends.append(("all", n))
    except iotrace.IotraceError as e:
        ends.append(("ended", str(e)))

for _ in range(3):
    th = [threading.Thread(target=read) for _ in range(2)]
    for x in th:
        x.start()
    if what == "close":
        time.sleep(0.05)
        t.close()
    for x in th:
        x.join()
    if what == "close":
        break
print(ends)
"""


def test_threads():
    """One Trace shared by threads: two reads at a time (each ends the
    other's, which raises IotraceError), and close() under a read.  The
    binding's lock keeps the library from freeing what a call uses."""
    py = os.path.join(TOOLS, "python")
    for what in ("reads", "close"):
        p = subprocess.run([sys.executable, "-c", _THREADS, py,
                            path("big.trace"), what],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=600)
        out = p.stdout.decode()
        result(p.returncode == 0 and ("ended" in out or "all" in out),
               "threads_share_a_trace_%s (rc %d)" % (what, p.returncode),
               out + p.stderr.decode()[-2000:])


def test_paths_and_callbacks():
    """A path as bytes or with bytes that are not UTF-8 (os.fsencode()),
    and an exception raised while inflight() collects: raised, not lost
    in the C call."""
    src = path("f2.trace")
    try:
        n = len(list(iotrace.open(os.fsencode(src))))
        result(n == len(list(iotrace.open(src))), "open_bytes_path (%d)" % n)
    except iotrace.IotraceError as e:
        result(False, "open_bytes_path", e)
    odd = os.path.join(os.fsencode(T), b"\xff.trace")
    os.symlink(os.fsencode(src), odd)
    try:
        t = iotrace.open(os.fsdecode(odd))
        result(len(list(t)) > 0 and t.name == os.fsdecode(odd),
               "open_path_not_utf8 (%r)" % t.name)
    except (iotrace.IotraceError, UnicodeError) as e:
        result(False, "open_path_not_utf8", repr(e))
    reg, _ = region_and_file("--region", "region.cb", "prev.cb.iot")
    t = iotrace.open(reg)
    real = ctypes.string_at

    def boom(*_args):
        raise RuntimeError("boom")
    ctypes.string_at = boom
    try:
        t.inflight()
        result(False, "inflight_callback_exception_raised", "no exception")
    except RuntimeError as e:
        result(str(e) == "boom", "inflight_callback_exception_raised", e)
    except Exception as e:  # noqa: BLE001 (what else came out)
        result(False, "inflight_callback_exception_raised", repr(e))
    finally:
        ctypes.string_at = real


def main():
    print("KTAP version 1")
    make_inputs()
    try:
        test_to_pandas()
        test_dtypes_both_ways()
        test_iteration()
        test_iteration_named_fields()
        test_iteration_memory()
        test_errors()
        test_truncated_warning()
        test_source_info()
        test_inflight()
        test_threads()
        test_paths_and_callbacks()
        test_doc_example()
        test_install()
    finally:
        shutil.rmtree(T, ignore_errors=True)
    print("1..%d" % n_tests)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
