# SPDX-License-Identifier: GPL-2.0
"""ctypes declarations of libiotrace.so.1 (include/iotrace/libiotrace.h).

The library is looked for, in this order, at the path in the environment
variable IOTRACE_LIBRARY, by the dynamic loader as "libiotrace.so.1"
(the installed library), and in the build tree this package sits in
(tools/build/libiotrace.so.1, for the tests and for use from a checkout).
"""

import ctypes
import os

SONAME = "libiotrace.so.1"
ENV_LIBRARY = "IOTRACE_LIBRARY"

# iotrace_open_opts.flags
OPEN_STRICT = 1 << 0

# iotrace_source_foreach()/_rewind() orders
ORDER_COMPLETE = 0
ORDER_START = 1
ORDER_STORED = 2
ORDERS = {"complete": ORDER_COMPLETE, "start": ORDER_START,
          "stored": ORDER_STORED}

# iotrace_source_info.kind
KINDS = {1: "file", 2: "ring", 3: "live"}

# iotrace_column.field: the CSV record schema's fields, in its order
FIELDS = (
    "disk", "seq", "issue_ns", "complete_ns", "queue_ns", "latency_ns",
    "op", "opflags", "sector", "bytes", "error", "status", "rflags",
    "issue_cpu", "complete_cpu", "hwq", "tag", "retries", "cmd_type",
    "dev_status", "dev_status_str", "command", "pid", "comm", "cgroup",
)
TEXT_FIELDS = ("disk", "op", "opflags", "status", "dev_status_str",
               "command", "comm")

# iotrace_column.type
COL_INT64 = 1
COL_UINT64 = 2
COL_STRING = 3

DISK_NAME_SIZE = 33
DISK_ID_SIZE = 128
INFO_STR_SIZE = 129
REC_CMD_LEN = 64


class OpenOpts(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint32),
                ("debugfs", ctypes.c_char_p),
                ("devdir", ctypes.c_char_p),
                ("tmpdir", ctypes.c_char_p)]


class SourceInfo(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_uint32),
                ("nr_disks", ctypes.c_uint32),
                ("salvaged", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32),
                ("start_ns", ctypes.c_uint64),
                ("anchor_real_ns", ctypes.c_uint64),
                ("host", ctypes.c_char * INFO_STR_SIZE),
                ("release", ctypes.c_char * INFO_STR_SIZE)]


class Disk(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * DISK_NAME_SIZE),
                ("dev_major", ctypes.c_uint32),
                ("dev_minor", ctypes.c_uint32),
                ("logical_block_size", ctypes.c_uint32),
                ("nr_parts", ctypes.c_uint32),
                ("part_records", ctypes.c_uint32),
                ("ring_flags", ctypes.c_uint32),
                ("generation", ctypes.c_uint64),
                ("model", ctypes.c_char * DISK_ID_SIZE),
                ("serial", ctypes.c_char * DISK_ID_SIZE),
                ("wwn", ctypes.c_char * DISK_ID_SIZE)]


class Loss(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "completed", "recorded", "present", "overwritten", "dropped",
        "filtered", "written", "lost", "torn", "valid", "gaps",
        "gap_records", "unread", "late")] + [
        ("flags", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


class Rec(ctypes.Structure):
    _fields_ = [("disk", ctypes.c_uint32),
                ("seq", ctypes.c_uint32),
                ("issue_ns", ctypes.c_uint64),
                ("complete_ns", ctypes.c_uint64),
                ("sector", ctypes.c_uint64),
                ("bytes", ctypes.c_uint32),
                ("queue_ns", ctypes.c_uint32),
                ("dev_status", ctypes.c_uint32),
                ("dev_result", ctypes.c_uint32),
                ("error", ctypes.c_int32),
                ("rflags", ctypes.c_uint16),
                ("opflags", ctypes.c_uint16),
                ("issue_cpu", ctypes.c_uint16),
                ("complete_cpu", ctypes.c_uint16),
                ("hwq", ctypes.c_uint16),
                ("tag", ctypes.c_uint16),
                ("op", ctypes.c_uint8),
                ("retries", ctypes.c_uint8),
                ("cmd_type", ctypes.c_uint8),
                ("cmd_len", ctypes.c_uint8),
                ("pid", ctypes.c_uint32),
                ("cgroup", ctypes.c_uint64),
                ("cmd", ctypes.c_uint8 * REC_CMD_LEN)]


class InflightInfo(ctypes.Structure):
    _fields_ = [("requests", ctypes.c_uint64),
                ("at_ns", ctypes.c_uint64),
                ("torn", ctypes.c_uint64),
                ("damaged", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32)]


class Boot(ctypes.Structure):
    _fields_ = [("boot_id", ctypes.c_char * 40),
                ("flags", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32),
                ("first_ns", ctypes.c_uint64),
                ("last_ns", ctypes.c_uint64)]


BOOT_PANICKED = 1 << 0


class Room(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint32),
                ("refused", ctypes.c_uint32),
                ("evicted", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32 * 5)]


ROOM_REFUSED = 1 << 0
ROOM_EVICTED = 1 << 1


# typedef iotrace_rec_fn
REC_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                          ctypes.POINTER(Rec))


class Column(ctypes.Structure):
    _fields_ = [("field", ctypes.c_uint32),
                ("type", ctypes.c_uint32),
                ("data", ctypes.c_void_p),
                ("present", ctypes.c_void_p)]


_P = ctypes.c_void_p
_SIGNATURES = {
    # LIBIOTRACE_1
    "iotrace_source_new": (_P, []),
    "iotrace_source_free": (None, [_P]),
    "iotrace_source_open": (ctypes.c_int,
                            [_P, ctypes.c_char_p, ctypes.POINTER(OpenOpts)]),
    "iotrace_source_close": (None, [_P]),
    "iotrace_source_error": (ctypes.c_char_p, [_P]),
    "iotrace_source_warning": (ctypes.c_char_p, [_P]),
    "iotrace_source_info": (ctypes.c_int, [_P, ctypes.POINTER(SourceInfo)]),
    "iotrace_source_disk": (ctypes.c_int,
                            [_P, ctypes.c_uint, ctypes.POINTER(Disk)]),
    "iotrace_source_loss": (ctypes.c_int,
                            [_P, ctypes.c_int, ctypes.POINTER(Loss)]),
    "iotrace_op_name": (ctypes.c_char_p, [ctypes.c_uint]),
    # LIBIOTRACE_1.1
    "iotrace_source_rewind": (ctypes.c_int, [_P, ctypes.c_int]),
    "iotrace_source_read": (ctypes.c_long, [_P, _P, ctypes.c_size_t]),
    "iotrace_strtab_new": (_P, []),
    "iotrace_strtab_free": (None, [_P]),
    "iotrace_strtab_count": (ctypes.c_size_t, [_P]),
    "iotrace_strtab_data": (ctypes.c_void_p,
                            [_P, ctypes.POINTER(ctypes.c_size_t)]),
    "iotrace_rec_columns": (ctypes.c_int, [_P, _P, ctypes.c_size_t, _P,
                                           ctypes.c_uint, _P]),
    # LIBIOTRACE_1.2
    "iotrace_source_inflight": (ctypes.c_int, [_P, REC_FN, _P,
                                               ctypes.POINTER(InflightInfo)]),
    # LIBIOTRACE_1.3
    "iotrace_source_boot": (ctypes.c_int, [_P, ctypes.POINTER(Boot)]),
    # LIBIOTRACE_1.4
    "iotrace_source_room": (ctypes.c_int, [_P, ctypes.POINTER(Room)]),
}


def _candidates():
    env = os.environ.get(ENV_LIBRARY)
    if env:
        yield env
    yield SONAME
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, os.pardir, os.pardir, "build", SONAME)


def _load():
    tried = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(str(e))
            continue
        try:
            for name, (res, args) in _SIGNATURES.items():
                fn = getattr(lib, name)
                fn.restype = res
                fn.argtypes = args
        except AttributeError as e:
            tried.append("%s: %s (libiotrace older than 1.4)" % (path, e))
            continue
        return lib
    raise ImportError("iotrace: cannot load %s: %s" %
                      (SONAME, "; ".join(tried)))


lib = _load()
