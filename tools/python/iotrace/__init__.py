# SPDX-License-Identifier: GPL-2.0
"""Read iotrace's block-I/O records from Python.

A binding of libiotrace (libiotrace.so.1, by ctypes): the records of a
trace file, a copy of a ring or a traced disk's live ring, as the C
library reads them.

    import iotrace

    with iotrace.open("sda.trace") as t:
        for r in t:                       # one Record at a time
            print(r.disk, r.op, r.latency_ns, r.command)
        df = t.to_pandas()                # every record, one DataFrame

The columns of to_pandas() and the fields of a Record are those of the
CSV record schema of "iotracectl export -f csv" (and "show -o csv"):
CSV_COLUMNS.  Documentation/python.rst describes them.
"""

import collections
import ctypes
import os
import threading
import warnings

import numpy as np

from . import _lib
from ._lib import lib

__all__ = ["open", "Trace", "Record", "IotraceError", "IotraceWarning",
           "CSV_COLUMNS"]

# The CSV record schema of iotracectl (iotracectl/util/out.c, rec_fields[]).
CSV_COLUMNS = (
    "disk", "seq", "issue_ns", "complete_ns", "queue_ns", "latency_ns",
    "op", "opflags", "sector", "bytes", "error", "status", "rflags",
    "issue_cpu", "complete_cpu", "hwq", "tag", "retries", "cmd_type",
    "dev_status", "dev_status_str", "command", "pid", "comm", "cgroup",
)

# how each field is asked of libiotrace (iotrace_rec_columns()): the
# numbers that may go beyond int64 as uint64 (read_csv() makes uint64 of
# such a column), the others as int64, the texts as numbers of strings;
# with the flags of where the CSV has a value, for those it may leave
# empty (a text's empty value is its string "")
_TYPES = {name: _lib.COL_STRING if name in _lib.TEXT_FIELDS else
          _lib.COL_UINT64 if name in ("issue_ns", "complete_ns",
                                      "latency_ns", "sector", "cgroup")
          else _lib.COL_INT64 for name in _lib.FIELDS}
_DTYPES = {_lib.COL_INT64: np.int64, _lib.COL_UINT64: np.uint64,
           _lib.COL_STRING: np.uint32}
_NULLABLE = ("complete_ns", "queue_ns", "latency_ns", "sector")

# records per batch: to_pandas(), and iteration
_BATCH = 1 << 13
_ITER_BATCH = 4096
_INT64_MAX = np.iinfo(np.int64).max
_REC_SIZE = ctypes.sizeof(_lib.Rec)

Record = collections.namedtuple("Record", CSV_COLUMNS)
Record.__doc__ = """One request, the fields of the CSV record schema.

Numbers are ints, texts str; a value the CSV leaves empty is None:
complete_ns and status of a request that did not complete, queue_ns
without a queue time, latency_ns without one, sector without a media
address, opflags without request flags, comm of a submitter the source
does not name.
"""

DiskInfo = collections.namedtuple("DiskInfo", (
    "index", "name", "dev_major", "dev_minor", "logical_block_size",
    "nr_parts", "part_records", "ring_flags", "generation", "model",
    "serial", "wwn"))


class IotraceError(Exception):
    """A failure of libiotrace, with its message (naming the source)."""


class IotraceWarning(UserWarning):
    """A trace file read as far as it goes: what it is missing."""


def _text(b):
    return b.decode("utf-8", "surrogateescape")


def open(what, order="start", strict=False, debugfs=None, devdir=None,
         tmpdir=None):
    """Open a source of records: a Trace.

    what: a trace file, a copy of a ring, "-" for standard input, or the
        name of a traced disk (its live ring).
    order: "start" (by issue time: the order of "iotracectl export"),
        "complete" (by completion time: "iotracectl show") or "stored"
        (as the file or ring holds them); the default of the Trace's reads.
    strict: refuse a trace file that is not whole (IotraceError); else it
        is read as far as it goes, with an IotraceWarning.
    debugfs, devdir, tmpdir: libiotrace's options (struct
        iotrace_open_opts); None for its defaults.
    """
    return Trace(what, order, strict, debugfs, devdir, tmpdir)


def _order(order):
    try:
        return _lib.ORDERS[order]
    except KeyError:
        raise ValueError("order: %r is none of %s" %
                         (order, ", ".join(_lib.ORDERS))) from None


def _nullable(values, present):
    """A column with missing values as pandas.read_csv makes it: int64
    when none is missing (uint64 beyond int64), else float64 with NaN."""
    if present.all():
        return _int_column(values)
    out = values.astype(np.float64)
    out[present == 0] = np.nan
    return out


def _int_column(values):
    if values.dtype == np.uint64:
        if len(values) and values.max() > _INT64_MAX:
            return values
        return values.view(np.int64)
    return values


class _Columns:
    """Every field of records, a numpy array each, filled by libiotrace
    a batch at a time (iotrace_rec_columns()): numbers, the texts'
    numbers in a table of strings, and where the CSV would be empty."""

    def __init__(self, cap):
        self.n = 0
        self.cap = cap
        self.data = {name: np.empty(cap, dtype=_DTYPES[_TYPES[name]])
                     for name in _lib.FIELDS}
        self.present = {name: np.empty(cap, dtype=np.uint8)
                        for name in _NULLABLE}
        self.desc = (_lib.Column * len(_lib.FIELDS))()
        for k, name in enumerate(_lib.FIELDS):
            self.desc[k].field = k
            self.desc[k].type = _TYPES[name]

    def grow(self, cap):
        for d in (self.data, self.present):
            for name, v in d.items():
                d[name] = np.empty(cap, dtype=v.dtype)
                d[name][:self.n] = v[:self.n]
        self.cap = cap

    def fill(self, trace, recs, k, tab):
        """Append the @k records at @recs."""
        if self.n + k > self.cap:
            self.grow(max(2 * self.cap, self.n + k))
        for i, name in enumerate(_lib.FIELDS):
            v = self.data[name]
            self.desc[i].data = v.ctypes.data + self.n * v.itemsize
            p = self.present.get(name)
            self.desc[i].present = None if p is None else \
                p.ctypes.data + self.n
        trace._call(lib.iotrace_rec_columns, recs, k, self.desc,
                    len(self.desc), tab)
        self.n += k

    def column(self, name):
        return self.data[name][:self.n]

    def present_of(self, name):
        return self.present[name][:self.n]


class Trace:
    """An open source of records (a libiotrace handle).

    Iterating over it reads its records anew, a batch at a time (memory
    that does not grow with the source), as Record tuples; to_pandas()
    reads them all into a pandas.DataFrame.  One read at a time: a new
    one ends the read under way (its iterator raises IotraceError).
    """

    def __init__(self, what, order="start", strict=False, debugfs=None,
                 devdir=None, tmpdir=None):
        # every call with the handle, and its error message, under the
        # lock: ctypes lets go of the GIL in a call, and another thread's
        # read or close() would free what this one's call is using
        self._lock = threading.RLock()
        self._h = None
        self.order = order
        _order(order)
        self._h = lib.iotrace_source_new()
        if not self._h:
            raise MemoryError("iotrace: out of memory")
        opts = _lib.OpenOpts(_lib.OPEN_STRICT if strict else 0,
                             *(None if v is None else os.fsencode(v)
                               for v in (debugfs, devdir, tmpdir)))
        if lib.iotrace_source_open(self._h, os.fsencode(what),
                                   ctypes.byref(opts)):
            msg = self._error()
            self.close()
            raise IotraceError(msg)
        self.name = os.fsdecode(what)
        self._reads = 0
        info = _lib.SourceInfo()
        self._check(lib.iotrace_source_info(self._h, ctypes.byref(info)))
        self.kind = _lib.KINDS.get(info.kind, str(info.kind))
        self.salvaged = bool(info.salvaged)
        self.start_ns = info.start_ns
        self.anchor_real_ns = info.anchor_real_ns
        self.host = _text(info.host)
        self.release = _text(info.release)
        boot = _lib.Boot()
        if self._check(lib.iotrace_source_boot(self._h, ctypes.byref(boot))):
            self.previous_boot = {
                "boot_id": _text(boot.boot_id),
                "panicked": bool(boot.flags & _lib.BOOT_PANICKED),
                "first_ns": boot.first_ns, "last_ns": boot.last_ns}
            room = _lib.Room()
            self._check(lib.iotrace_source_room(self._h,
                                                ctypes.byref(room)))
            self.previous_boot["refused"] = \
                room.refused if room.flags & _lib.ROOM_REFUSED else None
            self.previous_boot["evicted"] = \
                room.evicted if room.flags & _lib.ROOM_EVICTED else None
        else:
            self.previous_boot = None
        self.warning = _text(lib.iotrace_source_warning(self._h))
        self.disks = []
        for i in range(info.nr_disks):
            d = _lib.Disk()
            self._check(lib.iotrace_source_disk(self._h, i,
                                                ctypes.byref(d)))
            self.disks.append(DiskInfo(
                i, _text(d.name), d.dev_major, d.dev_minor,
                d.logical_block_size, d.nr_parts, d.part_records,
                d.ring_flags, d.generation, _text(d.model),
                _text(d.serial), _text(d.wwn)))
        if self.warning:
            warnings.warn("%s: %s" % (self.name, self.warning),
                          IotraceWarning, stacklevel=3)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def __repr__(self):
        return "<iotrace.Trace %r, %s, %d disks>" % (
            self.name, self.kind, len(self.disks))

    def close(self):
        """Close the source; its reads end."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._h:
                lib.iotrace_source_free(self._h)
                self._h = None

    def _error(self):
        return _text(lib.iotrace_source_error(self._h))

    def _check(self, ret):
        if ret < 0:
            raise IotraceError(self._error())
        return ret

    def _handle(self):
        if not self._h:
            raise IotraceError("%s: closed" % getattr(self, "name", "trace"))
        return self._h

    def _call(self, fn, *args):
        """fn(handle, *args) and its error, under the lock."""
        with self._lock:
            return self._check(fn(self._handle(), *args))

    def loss(self, disk=None):
        """A disk's loss accounting (struct iotrace_loss) as a dict: disk
        is an index or a name, None for the sum over every disk.  A trace
        file's counts are its trailer's; a ring's, and the late count,
        those of the last read."""
        if isinstance(disk, str):
            names = [d.name for d in self.disks]
            if disk not in names:
                raise KeyError("%s holds no disk named %s (it holds: %s)" %
                               (self.name, disk, ", ".join(names)))
            disk = names.index(disk)
        loss = _lib.Loss()
        self._call(lib.iotrace_source_loss, -1 if disk is None else disk,
                   ctypes.byref(loss))
        return {name: getattr(loss, name) for name, _ in loss._fields_
                if name != "reserved"}

    def _batches(self, order, size):
        """Begin a read of the records anew: its batches, (the address of
        the records, how many), each valid until the next is asked for."""
        with self._lock:
            self._call(lib.iotrace_source_rewind, _order(order))
            self._reads += 1
            return self._batch_gen(self._reads, size)

    def _batch_gen(self, read, size):
        buf = ctypes.create_string_buffer(size * _REC_SIZE)
        ptr = ctypes.addressof(buf)
        while True:
            with self._lock:
                if self._reads != read or not self._h:
                    raise IotraceError("%s: the read was ended by another "
                                       "read or by close()" % self.name)
                n = self._call(lib.iotrace_source_read, ptr, size)
            if not n:
                return
            yield ptr, n

    @staticmethod
    def _strings(tab):
        """The strings of a string table, in the order of their numbers."""
        size = ctypes.c_size_t()
        data = lib.iotrace_strtab_data(tab, ctypes.byref(size))
        if not size.value:
            return []
        raw = ctypes.string_at(data, size.value)
        return _text(raw[:-1]).split("\0")

    def records(self, order=None):
        """The records, one Record at a time, read in batches; order: as
        for open(), None for the Trace's."""
        tab = lib.iotrace_strtab_new()
        if not tab:
            raise MemoryError("iotrace: out of memory")
        try:
            strings = []
            for ptr, n in self._batches(order or self.order, _ITER_BATCH):
                cols = _Columns(n)
                cols.fill(self, ptr, n, tab)
                if lib.iotrace_strtab_count(tab) != len(strings):
                    strings = [s or None for s in self._strings(tab)]
                yield from self._batch_records(cols, strings)
        finally:
            lib.iotrace_strtab_free(tab)

    def __iter__(self):
        return self.records()

    def inflight(self):
        """The requests in flight when the trace ended (a previous boot's:
        its persistent region, or the trace file "iotracectl previous -o"
        wrote; a recording of "iotracectl record" or a snapshot of
        "iotracectl watch", as it ended), or a live disk's now, as
        Record tuples without a completion (complete_ns and latency_ns
        None), oldest issue first, disk by disk; and a dict: at_ns (the
        time they were still in flight at: age = at_ns - issue_ns), torn
        (slots being written, not given), damaged (sections of the file
        left out).  A ring copy has none."""
        got = []
        raised = []

        def keep(_arg, rec):
            # an exception cannot cross the C call: stop it, raise after
            try:
                got.append(ctypes.string_at(rec, _REC_SIZE))
            except BaseException as e:
                raised.append(e)
                return 1
            return 0
        fn = _lib.REC_FN(keep)
        info = _lib.InflightInfo()
        try:
            self._call(lib.iotrace_source_inflight, fn, None,
                       ctypes.byref(info))
        except IotraceError:
            if raised:
                raise raised[0] from None
            raise
        if raised:
            raise raised[0]
        meta = {"at_ns": info.at_ns, "torn": info.torn,
                "damaged": info.damaged}
        if not got:
            return [], meta
        buf = ctypes.create_string_buffer(b"".join(got))
        tab = lib.iotrace_strtab_new()
        if not tab:
            raise MemoryError("iotrace: out of memory")
        try:
            cols = _Columns(len(got))
            cols.fill(self, ctypes.addressof(buf), len(got), tab)
            strings = [s or None for s in self._strings(tab)]
            return list(self._batch_records(cols, strings)), meta
        finally:
            lib.iotrace_strtab_free(tab)

    @staticmethod
    def _batch_records(cols, strings):
        fields = []
        for name in _lib.FIELDS:
            v = cols.column(name).tolist()
            if name in _lib.TEXT_FIELDS:
                v = [strings[i] for i in v]
            elif name in _NULLABLE:
                v = [x if p else None
                     for x, p in zip(v, cols.present_of(name).tolist())]
            fields.append(v)
        return map(Record._make, zip(*fields))

    def to_pandas(self, order=None):
        """Every record as a pandas.DataFrame of the columns CSV_COLUMNS.

        The columns, their dtypes and values are those pandas.read_csv()
        makes of "iotracectl export -f csv" (order "start"; "complete":
        of "show -o csv"): int64 for numbers (uint64 for a column with a
        value beyond int64), float64 with NaN for a column of numbers
        with a value missing, object (str) for texts with NaN for an
        empty field, float64 for a text column of empty fields only.
        The records are read in batches into numpy arrays, libiotrace
        filling the columns; it numbers the texts' strings, each distinct
        string made once.
        """
        import pandas as pd

        tab = lib.iotrace_strtab_new()
        if not tab:
            raise MemoryError("iotrace: out of memory")
        try:
            batches = self._batches(order or self.order, _BATCH)
            # room for the records the read says the source holds
            cols = _Columns(max(self.loss()["valid"], _BATCH))
            for ptr, n in batches:
                cols.fill(self, ptr, n, tab)
            strings = self._strings(tab)
        finally:
            lib.iotrace_strtab_free(tab)
        if not cols.n:
            # pandas.read_csv() of a header alone: object columns
            return pd.DataFrame({c: np.array([], dtype=object)
                                 for c in CSV_COLUMNS})
        return pd.DataFrame(self._frame_columns(cols, strings), copy=False)

    @staticmethod
    def _frame_columns(cols, strings):
        """The columns of to_pandas(), as read_csv() makes them."""
        # an empty field is NaN, a column of empty fields only float64
        texts = np.array(strings, dtype=object)
        empty = strings.index("") if "" in strings else -1
        if empty >= 0:
            texts[empty] = np.nan
        out = {}
        for name in CSV_COLUMNS:
            v = cols.column(name)
            if name in _NULLABLE:
                out[name] = _nullable(v, cols.present_of(name))
            elif name not in _lib.TEXT_FIELDS:
                out[name] = _int_column(v)
            elif empty >= 0 and v[0] == empty and (v == empty).all():
                out[name] = np.full(len(v), np.nan)
            else:
                out[name] = _take(texts, v)
        return out


def _take(values, ids):
    """values[ids], a piece at a time: the index array numpy makes of a
    piece of @ids is small enough to be reused, not new memory each
    time (which the kernel must clear)."""
    out = np.empty(len(ids), dtype=values.dtype)
    step = 1 << 20
    for i in range(0, len(ids), step):
        values.take(ids[i:i + step], out=out[i:i + step])
    return out
