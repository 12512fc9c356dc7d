#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""iotracectl previous on persistent regions made here from abi.rst's
layout (not from the module's code): a region holding a 2.0 ring and an
in-flight table, the same inside an ELF core, and regions to refuse.
Then the same regions as the sources of the commands that read a trace
(a region copy, an ELF core, "previous" for the module's copy): what
they show is what they show of the trace file "previous -o" writes.

usage: pregcheck.py IOTRACECTL RING2 TMPDIR
       pregcheck.py --region RING2 OUT   (writes the region to OUT)
       pregcheck.py --region-id RING2 OUT   (the same, layout 1.1, with
                                             the disk's identity)
       pregcheck.py --region-left RING2 OUT   (two disks, the ring of
                                               sdr overwritten)
       pregcheck.py --region-room RING2 OUT   (layout 1.4: 3 allocations
                                               refused, 2 rings evicted)
Prints "PASS name" or "FAIL name why" per check (run-host-tests.sh).
"""
import csv
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import time

MAKE = sys.argv[1] in ("--region", "--region-id", "--region-left",
                       "--region-room")
IOT, RING, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
PAGE = 4096
MAGIC = 0x4745525052544f49


def crc32c(data, crc=0):
    """CRC-32C (Castagnoli), initial value and final xor all ones."""
    crc ^= 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff


def crc32c_fast(data):
    """crc32c() with a table (the ring image is large)."""
    tab = crc32c_fast.tab
    crc = 0xffffffff
    for b in data:
        crc = tab[(crc ^ b) & 0xff] ^ (crc >> 8)
    return crc ^ 0xffffffff


crc32c_fast.tab = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ (0x82f63b78 if c & 1 else 0)
    crc32c_fast.tab.append(c)

assert crc32c(b"123456789") == 0xe3069283


ID_OFF = 4096 + 128 * 512


def header(size, nr, data_used, boot_id, panicked=True, major=1, minor=0,
           anchor=None, refused=0, evicted=0):
    """Layout 1.@minor; 1.1 has the identity table at ID_OFF.  @anchor:
    (anchor_seq, mono, real, previous mono, previous real; 1.2).
    @refused: allocations that found no room; @evicted: removed disks'
    rings cleared for room (1.4; written whatever @minor)."""
    seq, mono, real, pmono, preal = anchor or (
        2, 5_000_000_000, 1_767_225_600_000_000_000, 0, 0)
    data_off = ID_OFF + (128 * 512 if minor else 0)
    h = bytearray(4096)
    struct.pack_into("<QHHIQII", h, 0, MAGIC, major, minor, 4096, size, 1,
                     1 if panicked else 0)
    h[32:48] = boot_id
    rel = b"6.12.0-test"
    h[48:48 + len(rel)] = rel
    # anchor_seq, max_disks, disk_entry_size, nr_disks
    struct.pack_into("<IIII", h, 112, seq, 128, 512, nr)
    # anchor mono, real; disk_off, data_off, data_used; refused
    struct.pack_into("<QQQQQI", h, 128, mono, real, 4096, data_off,
                     data_used, refused)
    struct.pack_into("<I", h, 188, evicted)
    if minor:
        struct.pack_into("<QI", h, 192, ID_OFF, 512)
    if minor >= 2:
        struct.pack_into("<QQ", h, 208, pmono, preal)
    hc = crc32c(bytes(h[0:24]))
    hc = crc32c_cont(hc, bytes(h[32:112]))
    struct.pack_into("<I", h, 172, hc)
    return h


def crc32c_cont(prev, data):
    """crc32c of (what gave @prev) followed by @data."""
    crc = prev ^ 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff


def entry(name, flags, slots_off=0, nr_slots=0, ring_off=0, ring_size=0,
          gen=1, disk_gen=1, sectors=0, torn_mark=False):
    """@torn_mark: the checksum is of the entry without flag 32, as a
    crash between the module's mark and its checksum leaves it."""
    e = bytearray(512)
    e[0:len(name)] = name
    struct.pack_into("<IIIIQ", e, 32, 251, 0,
                     flags & ~32 if torn_mark else flags, 512, sectors)
    struct.pack_into("<QII", e, 440, slots_off, nr_slots,
                     192 if nr_slots else 0)
    struct.pack_into("<QQQQ", e, 456, ring_off, ring_size, gen, disk_gen)
    struct.pack_into("<I", e, 508, crc32c_fast(bytes(e[0:508])))
    struct.pack_into("<I", e, 40, flags)
    return e


def slot(gen, op, sector, nbytes, issue_ns, cmd):
    s = bytearray(192)
    struct.pack_into("<II", s, 0, gen, 1)
    r = bytearray(128)
    # seq, bytes, issue, complete, sector, queue, dev_status, dev_result,
    # error, rflags, opflags, issue_cpu, hwq, tag, op, retries, cmd_type,
    # cmd_len, pid
    struct.pack_into("<IIQQQIIIhHHHHHBBBBI", r, 0, 0, nbytes, issue_ns, 0,
                     sector, 1000, 0, 0, 0, 0x21, 0, 0, 0, 17, op, 0, 2,
                     len(cmd), 4242)
    r[64:64 + len(cmd)] = cmd
    s[64:192] = r
    return s


def ident(gen, model, serial, wwn):
    """An identity of the table (layout 1.1), its checksum first."""
    b = bytearray(512)
    struct.pack_into("<Q", b, 8, gen)
    b[16:16 + len(model)] = model
    b[144:144 + len(serial)] = serial
    b[272:272 + len(wwn)] = wwn
    struct.pack_into("<I", b, 0, crc32c(bytes(b[4:])))
    return b


def region(minor=0, ids=None, sectors=0, anchor=None, counts=(0, 0)):
    """@ids: {table index: an ident()} (layout 1.1, @minor 1); @anchor and
    @counts (refused, evicted) as header()'s."""
    ring = open(RING, "rb").read()
    data_off = ID_OFF + (128 * 512 if minor else 0)
    ring_off = data_off
    ring_pages = (len(ring) + PAGE - 1) // PAGE * PAGE
    slots_off = ring_off + ring_pages
    slots = bytearray(4 * 192)
    # a READ(10) of 8 blocks at 616 in flight, a torn slot, two empty
    cdb = bytes.fromhex("28000000026800000800")
    slots[0:192] = slot(2, 0, 616, 4096, 4_900_000_000, cdb)
    slots[192:384] = slot(1, 1, 1, 512, 4_950_000_000, b"")
    end = slots_off + PAGE
    size = end + 8 * PAGE
    img = bytearray(size)
    boot_id = bytes(range(16))
    img[0:4096] = header(size, 2, end - data_off, boot_id, minor=minor,
                         anchor=anchor, refused=counts[0],
                         evicted=counts[1])
    img[4096:4608] = entry(b"sdq", 1 | 2, ring_off=ring_off,
                           ring_size=len(ring), sectors=sectors)
    img[4608:5120] = entry(b"sdq", 1 | 4, slots_off=slots_off, nr_slots=4,
                           gen=2, sectors=sectors)
    for i, b in (ids or {}).items():
        img[ID_OFF + i * 512:ID_OFF + (i + 1) * 512] = b
    img[ring_off:ring_off + len(ring)] = ring
    img[slots_off:slots_off + len(slots)] = slots
    return img


def core(img, at):
    """An ELF64 core of two RAM segments, the region at physical @at of
    the second (QEMU's dump-guest-memory is such a file)."""
    seg1 = bytearray(os.urandom(3 * PAGE))
    seg2 = bytearray(at + len(img) + 2 * PAGE)
    seg2[at:at + len(img)] = img
    phoff, phnum = 64, 3
    off1 = 4096
    off2 = off1 + len(seg1)
    eh = bytearray(64)
    eh[0:4] = b"\x7fELF"
    eh[4], eh[5], eh[6] = 2, 1, 1
    struct.pack_into("<HHIQQQIHHHHHH", eh, 16, 4, 62, 1, 0, phoff, 0, 0,
                     64, 56, phnum, 0, 0, 0)
    ph = bytearray()
    # a note segment, then the two loads
    ph += struct.pack("<IIQQQQQQ", 4, 0, 0, 0, 0, 0, 0, 1)
    ph += struct.pack("<IIQQQQQQ", 1, 7, off1, 0, 0, len(seg1), len(seg1),
                      PAGE)
    ph += struct.pack("<IIQQQQQQ", 1, 7, off2, 0, 0x100000000, len(seg2),
                      len(seg2), PAGE)
    f = eh + ph
    f += bytes(off1 - len(f))
    return bytes(f + seg1 + seg2)


def huge_core():
    """A core of 1 MiB whose one PT_LOAD segment claims 64 GiB, holding at
    its start a region header that claims 48 GiB."""
    seg = bytearray(1 << 20)
    seg[0:4096] = header(48 << 30, 0, 0, bytes(range(16)))
    eh = bytearray(64)
    eh[0:4] = b"\x7fELF"
    eh[4], eh[5], eh[6] = 2, 1, 1
    struct.pack_into("<HHIQQQIHHHHHH", eh, 16, 4, 62, 1, 0, 64, 0, 0,
                     64, 56, 1, 0, 0, 0)
    ph = struct.pack("<IIQQQQQQ", 1, 7, 4096, 0, 0, 64 << 30, 64 << 30,
                     PAGE)
    f = eh + ph
    f += bytes(4096 - len(f))
    return bytes(f + seg)


def run(path, *args):
    p = subprocess.run([IOT, "previous", *args, path], capture_output=True,
                       text=True, check=False)
    return p.returncode, p.stdout, p.stderr


def check(name, ok, why=""):
    print(("PASS %s" if ok else "FAIL %s " + why.replace("\n", " | ")[:300])
          % name)


def durable(reg):
    """The trace file of "previous -o" is on the disk, its name in its
    directory, before the command goes on (to --release the only other
    copy): fsync of both, seen by strace."""
    if not shutil.which("strace"):
        print("PASS previous_output_durable # SKIP no strace")
        return
    log = os.path.join(TMP, "durable.strace")
    out = os.path.join(TMP, "durable.iot")
    # LeakSanitizer cannot work under ptrace: no leak check in this run
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:" +
               os.environ.get("ASAN_OPTIONS", ""))
    p = subprocess.run(["strace", "-f", "-y", "-e", "trace=fsync,fdatasync",
                        "-o", log, IOT, "previous", "-o", out, reg],
                       capture_output=True, text=True, check=False, env=env)
    got = open(log).read() if os.path.exists(log) else ""
    synced = [ln for ln in got.splitlines() if "sync(" in ln and "= 0" in ln]
    check("previous_output_durable",
          p.returncode == 0 and
          any("<%s>" % out in ln for ln in synced) and
          any("<%s>" % TMP in ln for ln in synced), p.stderr + got)


def main():
    img = region()
    reg = os.path.join(TMP, "region")
    open(reg, "wb").write(img)
    trace = os.path.join(TMP, "prev.iot")
    rc, out, err = run(reg, "--rings", os.path.join(TMP, "prevout"),
                       "-o", trace)
    check("previous_region_reads", rc == 0, err)
    durable(reg)
    check("previous_region_boot",
          "previous boot 00010203-0405-0607-0809-0a0b0c0d0e0f, kernel "
          "6.12.0-test, panicked" in out, out)
    infl = [ln.split() for ln in out.splitlines() if ln.startswith("  sdq")]
    check("previous_region_inflight_read_cdb",
          len(infl) == 1 and infl[0][3] == "read" and infl[0][4] == "616"
          and infl[0][5] == "4096" and infl[0][8] == "4242"
          and "READ(10)" in " ".join(infl[0]), out)
    check("previous_region_counts",
          "1 in flight, 1 torn in-flight slots, 0 damaged entries" in out,
          out)
    check("previous_region_room_counts_before_1_4",
          "\n0 allocations refused for want of room\n" in out, out)
    # layout 1.4 counts the removed disks' rings evicted; before, a
    # reader does not take the reserved word for a count
    for minor, want in ((4, "3 allocations refused for want of room, "
                            "2 rings of removed disks evicted for room"),
                        (3, "3 allocations refused for want of room")):
        p = os.path.join(TMP, "counts.region")
        t = os.path.join(TMP, "counts.iot")
        open(p, "wb").write(region(minor=minor, counts=(3, 2)))
        if os.path.exists(t):
            os.unlink(t)
        rc, o, err = run(p, "-o", t)
        check("previous_region_room_counts_1_%d" % minor,
              rc == 0 and ("\n%s\n" % want) in o, err + o)
        # kept in the trace file's boot chunk, after the region is gone:
        # info of the file, and of the region read as that file
        for what, src in (("file", t), ("region", p)):
            ri, oi, ei = cmd("info", src)
            rj, oj, ej = cmd("info", "-o", "json", src)
            pb = json.loads(oj or b"{}").get("previous_boot", {}) \
                if rj == 0 else {}
            keys = {k: pb.get(k) for k in ("refused", "evicted") if k in pb}
            check("info_%s_room_counts_1_%d" % (what, minor),
                  ri == 0 and ("\nregion:   %s\n" % want) in oi.decode()
                  and keys == ({"refused": 3, "evicted": 2} if minor >= 4
                               else {"refused": 3}),
                  "%s %s %s" % (keys, ei, oi.decode()))
    ring = open(RING, "rb").read()
    got = open(os.path.join(TMP, "prevout", "sdq.ring"), "rb").read()
    check("previous_region_ring_copy_is_the_ring", got == ring)
    shown = subprocess.run([IOT, "show", os.path.join(TMP, "prevout",
                                                      "sdq.ring")],
                           capture_output=True, text=True, check=False)
    direct = subprocess.run([IOT, "show", RING], capture_output=True,
                            text=True, check=False)
    check("previous_region_ring_copy_shows",
          shown.returncode == 0 and shown.stdout == direct.stdout and
          len(shown.stdout.splitlines()) > 100, shown.stderr)

    # -o: a trace file of the same records, dated by the region's anchor
    tf = subprocess.run([IOT, "show", "-o", "csv", trace],
                        capture_output=True, text=True, check=False)
    rf = subprocess.run([IOT, "show", "-o", "csv", RING],
                        capture_output=True, text=True, check=False)

    def rows(text):
        return sorted(ln.split(",", 1)[1] for ln in text.splitlines()[1:])
    check("previous_trace_file_same_records",
          tf.returncode == 0 and rows(tf.stdout) == rows(rf.stdout) and
          len(rows(tf.stdout)) > 100, tf.stderr)
    info = subprocess.run([IOT, "info", trace], capture_output=True,
                          text=True, check=False)
    check("previous_trace_file_is_that_boots",
          info.returncode == 0 and "6.12.0-test" in info.stdout and
          "2026-01-01" in info.stdout, info.stdout + info.stderr)

    # an ELF core: the same, found at physical 4 GiB + 5 pages
    cf = os.path.join(TMP, "vm.core")
    open(cf, "wb").write(core(img, 5 * PAGE))
    rc, out2, err = run(cf)
    check("previous_core_found",
          rc == 0 and "found the region at physical 0x100005000" in out2,
          err + out2)
    strip = [ln for ln in out2.splitlines()
             if not ln.startswith(("found", "last clock"))]
    want = [ln for ln in out.splitlines()
            if not ln.startswith(("last clock", "wrote"))]
    check("previous_core_same_as_region", strip == want,
          "\n".join(strip[:4]))

    # regions to refuse, each with the check that failed
    bad = [("magic", 0, b"\0" * 8, "no persistent region magic"),
           ("major", 8, b"\x02\x00", "another layout major version"),
           ("header_crc", 60, b"X", "header checksum"),
           ("garbage", 0, os.urandom(4096), "no persistent region magic")]
    for name, off, data, msg in bad:
        b = bytearray(img)
        b[off:off + len(data)] = data
        p = os.path.join(TMP, "bad-" + name)
        open(p, "wb").write(b)
        rc, o, err = run(p)
        check("previous_refuses_" + name,
              rc == 1 and msg in err and "DISK" not in o, err + o)
    # a damaged entry: left out and counted, the rest read
    b = bytearray(img)
    b[4608 + 100] ^= 1
    p = os.path.join(TMP, "bad-entry")
    open(p, "wb").write(b)
    rc, o, err = run(p)
    check("previous_damaged_entry_counted",
          rc == 0 and "0 in flight, 0 torn in-flight slots, 1 damaged "
          "entries" in o and "sdq " in o, err + o)
    # a core without a region
    p = os.path.join(TMP, "empty.core")
    open(p, "wb").write(core(bytes(PAGE * 2), 0))
    rc, o, err = run(p)
    check("previous_core_without_region",
          rc == 1 and "no iotrace persistent region in the core" in err,
          err + o)
    # a disk name that would leave the --rings directory
    b = region()
    ring = open(RING, "rb").read()
    b[4096:4608] = entry(b"../../escaped", 1 | 2, ring_off=4096 + 128 * 512,
                         ring_size=len(ring))
    p = os.path.join(TMP, "trav.region")
    open(p, "wb").write(b)
    out_dir = os.path.join(TMP, "t1", "t2", "rings")
    shutil.rmtree(os.path.join(TMP, "t1"), ignore_errors=True)
    os.makedirs(os.path.dirname(out_dir))
    rc, o, err = run(p, "--rings", out_dir)
    check("previous_rings_stay_in_their_directory",
          rc == 0 and not os.path.exists(os.path.join(TMP, "t1",
                                                      "escaped.ring")) and
          os.listdir(out_dir) == ["!.!..!escaped.ring"],
          err + o + str(os.listdir(out_dir) if os.path.isdir(out_dir)
                        else ""))
    # a core holding the module's copy of the boot before (state KEPT, in
    # vmalloc pages) below the region itself: the region is read
    old = region()
    struct.pack_into("<I", old, 24, 2)
    old[48:64] = b"OLD-BOOT-KERNEL\0"
    hc = crc32c_cont(crc32c(bytes(old[0:24])), bytes(old[32:112]))
    struct.pack_into("<I", old, 172, hc)
    live = region()
    p = os.path.join(TMP, "kept.core")
    open(p, "wb").write(core(bytes(old) + bytes(live), 5 * PAGE))
    rc, o, err = run(p)
    check("previous_core_skips_the_modules_copy",
          rc == 0 and "kernel 6.12.0-test" in o and "OLD-BOOT" not in o,
          err + o)
    # an in-flight table off a page boundary (a misaligned read otherwise)
    b = region()
    off = struct.unpack_from("<Q", b, 4608 + 440)[0]
    b[4608:5120] = entry(b"sdq", 1 | 4, slots_off=off + 1, nr_slots=4,
                         gen=2)
    p = os.path.join(TMP, "unaligned.region")
    open(p, "wb").write(b)
    rc, o, err = run(p)
    check("previous_unaligned_table_refused",
          rc == 0 and "1 damaged entries" in o, err + o)
    # a truncated core
    p = os.path.join(TMP, "cut.core")
    open(p, "wb").write(core(img, 5 * PAGE)[:PAGE * 5])
    rc, o, err = run(p)
    check("previous_core_truncated", rc == 1 and "cut short" in err,
          err + o)
    # a core cut in the region: the region's bytes past the end said
    c = core(img, 5 * PAGE)
    at = 4096 + 3 * PAGE + 5 * PAGE
    cut = at + len(img) // 2
    open(p, "wb").write(c[:cut])
    rc, o, err = run(p)
    want = ("cut.core: the persistent region at byte %d claims %d bytes "
            "past the end of the file: cut short or not an ELF core of "
            "this machine" % (at, len(img) - len(img) // 2))
    check("previous_core_cut_in_the_region", rc == 1 and want in err,
          err + o)
    # a 1 MiB core whose segment claims 64 GiB and whose region header
    # 48 GiB: said as such, nothing allocated for what is not there (it
    # was "out of memory", an abort under ASan)
    p = os.path.join(TMP, "huge.core")
    open(p, "wb").write(huge_core())
    rc, o, err = run(p)
    want = ("huge.core: the persistent region at byte 4096 claims %d "
            "bytes past the end of the file: cut short or not an ELF core "
            "of this machine" % ((48 << 30) - (1 << 20)))
    check("previous_core_claims_more_than_the_file",
          rc == 1 and want in err and "memory" not in err, err + o)
    sources(img, reg, trace, cf)
    inflight(reg, trace, cf)
    inflight_pid()
    identity()
    left_out(trace)
    anchor_torn()
    removed_disk(trace)


def cmd(*args, env=None, stdin=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([IOT, *args], capture_output=True, env=e, stdin=stdin,
                       check=False)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def same(name, a, b, label_a=None, label_b=None):
    """@a and @b, (rc, stdout, stderr) of two commands, both succeed and
    print the same bytes (the source's name, a stats line's prefix, made
    alike)."""
    oa, ob = a[1], b[1]
    if label_a:
        oa = oa.replace(label_a.encode() + b":", b"SRC:")
        ob = ob.replace(label_b.encode() + b":", b"SRC:")
    check(name, a[0] == 0 and b[0] == 0 and oa == ob and len(oa) > 1000,
          "rc %d %d, %d and %d bytes, %s" % (a[0], b[0], len(oa), len(ob),
                                             a[2] + b[2]))


def boot_span(kind, tf):
    """The previous boot's span in trace file @tf (its boot chunk), in
    info's JSON and text: the oldest and newest completion of its records
    (show's), dated by the header's anchor."""
    rc, o, err = cmd("show", "-o", "csv", tf)
    rows = list(csv.DictReader(io.StringIO(o.decode())))
    done = [int(r["complete_ns"]) for r in rows]
    rj, oj, errj = cmd("info", "-o", "json", tf)
    try:
        pb = json.loads(oj)["previous_boot"]
        hdr = json.loads(oj)
    except (ValueError, KeyError):
        pb, hdr = {}, {}
    ok = rc == 0 and rj == 0 and done and \
        pb.get("first_mono_ns") == min(done) and \
        pb.get("last_mono_ns") == max(done)
    if ok:
        real0 = hdr["start_real_ns"] - (hdr["start_mono_ns"] - min(done))
        t = time.strftime("%Y-%m-%dT%H:%M:%S",
                          time.gmtime(real0 // 1000000000))
        ok = pb.get("first_utc") == "%s.%06dZ" % (
            t, real0 % 1000000000 // 1000)
    check("source_%s_saved_file_span_is_its_records" % kind, ok,
          err + errj + oj.decode())
    rc, o, err = cmd("info", tf)
    check("source_%s_saved_file_says_anchor_not_start" % kind,
          rc == 0 and b"\nanchor:   " in o and b"\nstart:" not in o and
          b"\nrecords:  " in o and b"s recorded" not in o,
          err + o.decode())


def sources(img, reg, trace, cf):
    """A region as the source of the commands that read a trace."""
    ctrace = os.path.join(TMP, "core.iot")
    rc, _, err = run(cf, "-o", ctrace)
    check("source_core_trace_written", rc == 0, err)
    for kind, src, tf in (("region", reg, trace), ("core", cf, ctrace)):
        same("source_%s_show_csv_is_the_trace_files" % kind,
             cmd("show", "-o", "csv", src), cmd("show", "-o", "csv", tf))
        same("source_%s_stats_is_the_trace_files" % kind,
             cmd("stats", src), cmd("stats", tf), src, tf)
        same("source_%s_export_csv_is_the_trace_files" % kind,
             cmd("export", "-f", "csv", src), cmd("export", "-f", "csv", tf))
        rc, o, err = cmd("info", src)
        rt, ot, errt = cmd("info", tf)

        def rest(text):
            return [ln for ln in text.splitlines()
                    if not ln.startswith((b"file:", b"previous:"))]
        check("source_%s_info_is_the_trace_files" % kind,
              rc == 0 and rt == 0 and rest(o) == rest(ot) and
              len(rest(o)) > 8, err + errt)
        check("source_%s_info_names_the_previous_boot" % kind,
              rc == 0 and b"previous: boot 00010203-0405-0607-0809-"
              b"0a0b0c0d0e0f, kernel 6.12.0-test, panicked" in o and
              b"kernel:   6.12.0-test" in o, err + o.decode())
        # what iotrace.service keeps once the region is freed: the file
        check("source_%s_saved_file_names_the_previous_boot" % kind,
              rt == 0 and b"previous: boot 00010203-0405-0607-0809-"
              b"0a0b0c0d0e0f, kernel 6.12.0-test, panicked (saved from "
              b"its persistent region)" in ot, errt + ot.decode())
        boot_span(kind, tf)
    same("source_region_on_standard_input", cmd("show", "-o", "csv", "-",
                                                stdin=open(reg, "rb")),
         cmd("show", "-o", "csv", trace))
    # the word previous: the module's copy, debugfs, else the device
    dfs = os.path.join(TMP, "dfs")
    dev = os.path.join(TMP, "dev")
    for d in (dfs, dev):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    shutil.copy(reg, os.path.join(dfs, "previous"))
    env = {"IOTRACE_DEBUGFS": dfs, "IOTRACE_DEV": dev}
    same("source_previous_from_debugfs",
         cmd("show", "-o", "csv", "previous", env=env),
         cmd("show", "-o", "csv", trace))
    rc, o, err = cmd("info", "-o", "json", "previous", env=env)
    check("source_previous_info_json_names_the_boot",
          rc == 0 and b'"previous_boot":{"boot_id":"00010203-0405-0607-'
          b'0809-0a0b0c0d0e0f","release":"6.12.0-test","panicked":true,'
          in o, err + o.decode())
    os.rename(os.path.join(dfs, "previous"), os.path.join(dev, "previous"))
    same("source_previous_from_the_device_under_lockdown",
         cmd("stats", "previous", env=env), cmd("stats", trace),
         "previous", trace)
    os.unlink(os.path.join(dev, "previous"))
    rc, o, err = cmd("show", "previous", env=env)
    check("source_previous_without_one_says_so",
          rc == 1 and not o and "no previous boot's trace: neither " + dfs +
          "/previous nor " + dev + "/previous can be read" in err, err)
    # refused as previous refuses them, with its message
    for name, off, data, msg in (
            ("header_crc", 60, b"X", "not an iotrace persistent region "
             "(header checksum)"),
            ("major", 8, b"\x02\x00", "not an iotrace persistent region "
             "(another layout major version")):
        b = bytearray(img)
        b[off:off + len(data)] = data
        p = os.path.join(TMP, "src-bad-" + name)
        open(p, "wb").write(b)
        rc, o, err = cmd("show", p)
        rp, op, errp = run(p)
        check("source_refuses_damaged_%s" % name,
              rc == 1 and not o and p + ": " + msg in err and
              rp == 1 and err.split(": ", 1)[1] ==
              errp.split(": previous: ", 1)[1], err + " / " + errp)
    rc, o, err = cmd("stats", os.path.join(TMP, "empty.core"))
    check("source_core_without_region_refused",
          rc == 1 and not o and "no iotrace persistent region in the "
          "core" in err, err)
    # a disk's ring resized: the newest (highest allocation number) is
    # read, not the one it replaced (here bytes that are no ring)
    b = bytearray(img)
    ring_off = 4096 + 128 * 512
    old_off = len(b) - 8 * PAGE
    b[old_off:old_off + PAGE] = b"\xa5" * PAGE
    b[4096:4608] = entry(b"sdq", 1 | 2, ring_off=ring_off,
                         ring_size=len(open(RING, "rb").read()), gen=3)
    b[5120:5632] = entry(b"sdq", 1 | 2, ring_off=old_off, ring_size=PAGE,
                         gen=1)
    p = os.path.join(TMP, "src-resized")
    open(p, "wb").write(b)
    same("source_resized_reads_the_newest_ring",
         cmd("show", "-o", "csv", p), cmd("show", "-o", "csv", trace))
    # a region of in-flight tables only: nothing to read as a trace
    b = bytearray(img)
    b[4096:4608] = bytes(512)
    p = os.path.join(TMP, "src-noring")
    open(p, "wb").write(b)
    rc, o, err = cmd("show", p)
    check("source_region_without_ring_refused",
          rc == 1 and not o and "holds no ring, only requests in flight"
          in err, err)


def inflight(reg, trace, cf):
    """The in-flight table in the trace file "previous -o" writes, and
    "inflight" on it and on the region's other forms."""
    rc, o, err = cmd("inflight", trace)
    rows = [ln.split() for ln in o.decode().splitlines()[1:]]
    # DISK ISSUE_NS AGE_US OP SECTOR BYTES HWQ TAG CPU PID COMMAND...
    check("inflight_trace_file_has_the_stuck_read",
          rc == 0 and len(rows) == 1 and
          rows[0][:10] == ["nullb0", "4900000000", "100000.0", "read",
                           "616", "4096", "0", "17", "0", "4242"] and
          " ".join(rows[0][10:]) == "READ(10) lba=616 len=8", err + o.decode())
    check("inflight_trace_file_counts_the_torn_slot",
          "1 in-flight slot was being written when it stopped" in err, err)
    want = cmd("inflight", "-o", "csv", trace)
    check("inflight_csv", want[0] == 0 and want[1].decode().splitlines() ==
          ["disk,issue_ns,age_us,op,sector,bytes,hwq,tag,cpu,pid,command",
           "nullb0,4900000000,100000.0,read,616,4096,0,17,0,4242,"
           "READ(10) lba=616 len=8"], want[1].decode() + want[2])
    for kind, src in (("region", reg), ("core", cf)):
        got = cmd("inflight", "-o", "csv", src)
        check("inflight_%s_is_the_trace_files" % kind,
              got[0] == 0 and got[1] == want[1], got[1].decode() + got[2])
    got = cmd("inflight", "-o", "csv", "-", stdin=open(trace, "rb"))
    check("inflight_standard_input", got[0] == 0 and got[1] == want[1],
          got[2])
    dfs = os.path.join(TMP, "dfs-infl")
    shutil.rmtree(dfs, ignore_errors=True)
    os.makedirs(dfs)
    shutil.copy(reg, os.path.join(dfs, "previous"))
    got = cmd("inflight", "-o", "csv", "previous",
              env={"IOTRACE_DEBUGFS": dfs,
                   "IOTRACE_DEV": os.path.join(TMP, "nodev")})
    check("inflight_previous_is_the_trace_files",
          got[0] == 0 and got[1] == want[1], got[1].decode() + got[2])
    rc, o, err = cmd("inflight", "-o", "json", trace)
    check("inflight_json", rc == 0 and o.decode().strip() ==
          '[{"disk":"nullb0","issue_ns":4900000000,"age_us":100000.0,'
          '"op":"read","sector":616,"bytes":4096,"hwq":0,"tag":17,"cpu":0,'
          '"pid":4242,"command":"READ(10) lba=616 len=8"}]', o.decode())
    rc, o, err = cmd("info", trace)
    check("inflight_info_counts_them",
          rc == 0 and b"in flight at its end 1, torn slots 1\n" in o,
          o.decode() + err)
    rc, o, err = cmd("inflight", RING)
    check("inflight_ring_copy_refused",
          rc == 1 and not o and "a ring copy holds no requests in flight"
          in err, err)
    # the section damaged: skipped and said, exit 3; the records stay
    b = bytearray(open(trace, "rb").read())
    at = b.find(struct.pack("<I", 0x544c4649))
    b[at + 40 + 32 + 20] ^= 0x40    # a record's byte: its checksum fails
    p = os.path.join(TMP, "infl-damaged.iot")
    open(p, "wb").write(b)
    rc, o, err = cmd("inflight", p)
    check("inflight_damaged_section_said",
          at > 0 and rc == 3 and len(o.splitlines()) == 1 and
          "1 damaged in-flight section skipped" in err, err)
    a = cmd("show", "-o", "csv", p)
    check("inflight_damaged_section_records_read",
          a[0] == 3 and a[1] == cmd("show", "-o", "csv", trace)[1], a[2])
    # a header no writer makes (16 bytes: its checksum cannot be taken)
    b = bytearray(open(trace, "rb").read())
    struct.pack_into("<I", b, at + 4, 16)
    p = os.path.join(TMP, "infl-hdr16.iot")
    open(p, "wb").write(b)
    rc, o, err = cmd("inflight", p)
    ri, oi, erri = cmd("info", p)
    check("inflight_short_chunk_header_said_not_read",
          rc == 3 and len(o.splitlines()) == 1 and "damaged trace file"
          in err and ri == 3 and b"salvaged:" in oi, err + erri)
    # damage before it: the parse resyncs, the section is still read
    b = bytearray(open(trace, "rb").read())
    rec = b.find(struct.pack("<I", 0x4b4e4843))
    struct.pack_into("<I", b, rec + 4, 48)
    p = os.path.join(TMP, "infl-after-damage.iot")
    open(p, "wb").write(b)
    rc, o, err = cmd("inflight", "-o", "csv", p)
    ri, oi, erri = cmd("info", p)
    check("inflight_read_past_damage_before_it",
          rc == 3 and o == want[1] and "damaged trace file" in err and
          ri == 3 and b"in flight at its end 1, torn slots 1\n" in oi,
          o.decode() + err + erri)
    # a table whose disk has no ring in the region: said, not lost silently
    b = region()
    off = struct.unpack_from("<Q", b, 4608 + 440)[0]
    b[4608:5120] = entry(b"sdq", 1 | 4, slots_off=off, nr_slots=4, gen=2,
                         disk_gen=7)
    p = os.path.join(TMP, "orphan.region")
    open(p, "wb").write(b)
    rc, o, err = run(p, "-o", os.path.join(TMP, "orphan.iot"))
    check("inflight_without_ring_said",
          rc == 0 and "1 request in flight of disks without a ring in the "
          "region (listed above) not in" in err and "READ(10)" in o, err)


def inflight_pid():
    """A request in flight whose submitter was not noted (pid 0) is shown
    without one, as "inflight DISK" shows it; the kernel's own (pid 0,
    IOTRACE_RF_KERNEL) is pid 0."""
    img = region()
    slots = struct.unpack_from("<Q", img, 4608 + 440)[0]
    for kind, rflags, text, csv, js in (
            ("unnoted", 0, "-", "", "null"),
            ("kernel", 1 << 14, "0", "0", "0")):
        b = bytearray(img)
        # the record's rflags and pid (slot(): the record at 64)
        rflags |= struct.unpack_from("<H", b, slots + 64 + 46)[0]
        struct.pack_into("<H", b, slots + 64 + 46, rflags)
        struct.pack_into("<I", b, slots + 64 + 60, 0)
        reg = os.path.join(TMP, "pid-%s.region" % kind)
        trace = os.path.join(TMP, "pid-%s.iot" % kind)
        open(reg, "wb").write(b)
        rc, o, err = run(reg, "-o", trace)
        infl = [ln.split() for ln in o.splitlines() if ln.startswith("  sdq")]
        check("previous_inflight_pid_%s" % kind,
              rc == 0 and len(infl) == 1 and infl[0][8] == text, err + o)
        a = cmd("inflight", trace)
        rows = [ln.split() for ln in a[1].decode().splitlines()[1:]]
        c = cmd("inflight", "-o", "csv", trace)
        j = cmd("inflight", "-o", "json", trace)
        check("inflight_pid_%s" % kind,
              a[0] == 0 and len(rows) == 1 and rows[0][9] == text and
              c[0] == 0 and c[1].decode().splitlines()[1].split(",")[9] == csv
              and j[0] == 0 and ('"pid":%s,' % js) in j[1].decode(),
              (a[1] + c[1] + j[1]).decode() + a[2] + c[2] + j[2])


def two_disks(bad=(), older=False, removed=False, torn_mark=False,
              came_back=False):
    """A region of two disks, sdq (disk 1, the ring RING) and sdr (disk 2,
    RING renamed nullb1); the rings of those in @bad do not validate
    (their magic zeroed, as bytes written over them would leave them).
    @older: sdr's ring is also in the region as it was before a resize
    (allocation 1, valid), its newest allocation 3.  @removed: sdr's
    newest ring is kept after its disk was removed (layout 1.3), its mark
    not covered by its checksum with @torn_mark; @came_back: the first
    sdr (disk 2, minor 7) at table entry 0, a later sdr (disk 4, minor 9)
    at entry 2."""
    ring = open(RING, "rb").read()
    other = bytearray(ring)
    other[104:136] = b"nullb1".ljust(32, b"\0")
    pages = (len(ring) + PAGE - 1) // PAGE * PAGE
    data_off = ID_OFF
    offs = [data_off + i * pages for i in range(3)]
    end = offs[2] + pages
    size = end + 2 * PAGE
    img = bytearray(size)
    img[0:4096] = header(size, 3 if older else 2, end - data_off,
                         bytes(range(16)))
    # name, disk number, allocation number, bytes, the disk's newest
    rings = [(b"sdq", 1, 1, ring, 1), (b"sdr", 2, 3, other, 1)]
    if older:
        rings.append((b"sdr", 2, 1, other, 0))
    if came_back:
        gone = bytearray(other)
        struct.pack_into("<I", gone, 80, 7)
        back = bytearray(other)
        struct.pack_into("<I", back, 80, 9)
        rings = [(b"sdr", 2, 3, gone, 1), (b"sdq", 1, 1, ring, 1),
                 (b"sdr", 4, 4, back, 1)]
        img[0:4096] = header(size, 3, end - data_off, bytes(range(16)))
    for i, (name, dgen, gen, data, newest) in enumerate(rings):
        gone = 32 if removed and name == b"sdr" and dgen == 2 else 0
        img[4096 + i * 512:4096 + (i + 1) * 512] = entry(
            name, 1 | 2 | gone, ring_off=offs[i], ring_size=len(data),
            gen=gen, disk_gen=dgen, torn_mark=torn_mark and gone)
        img[offs[i]:offs[i] + len(data)] = data
        if name in bad and newest:
            img[offs[i]:offs[i] + 4] = bytes(4)
    return img


def left_out(trace):
    """A ring that does not validate (overwritten: kexec segments, a crash
    between its entry and its header) is left out and said, naming its
    disk; the other disks' records are read, exit 0."""
    rows = cmd("show", "-o", "csv", trace)[1].decode().splitlines()[1:]
    p = os.path.join(TMP, "left.region")
    t = os.path.join(TMP, "left.iot")
    open(p, "wb").write(two_disks((b"sdr",)))
    rc, o, err = run(p, "-o", t)
    said = "iotracectl: previous: ring of sdr left out: not an iotrace ring"
    got = cmd("show", "-o", "csv", t) if os.path.exists(t) else (1, b"", "")
    check("previous_ring_left_out_other_disks_written",
          rc == 0 and said in err and "sdq " in o and
          "nullb0: %d records written to " % len(rows) in err and
          got[0] == 0 and got[1].decode().splitlines()[1:] == rows,
          "rc %d: %s" % (rc, err))
    check("previous_ring_left_out_said_once",
          err.count("ring of sdr") == 1 and "sdq" not in err, err)
    rc, o, err = run(p)
    check("previous_ring_left_out_listed_exit_0",
          rc == 0 and "ring of sdr" in err and "sdq " in o, err + o)
    # as a source: the same records, the same words, exit 0
    rc, o, err = cmd("show", "-o", "csv", p)
    check("source_ring_left_out_others_read",
          rc == 0 and o.decode().splitlines()[1:] == rows and
          p + ": ring of sdr left out: not an iotrace ring" in err,
          "rc %d: %s" % (rc, err))
    # the newest ring bad, the one a resize replaced whole: read instead
    open(p, "wb").write(two_disks((b"sdr",), older=True))
    if os.path.exists(t):
        os.unlink(t)
    rc, o, err = run(p, "-o", t)
    got = cmd("show", "-o", "csv", t) if os.path.exists(t) else (1, b"", "")
    mine = [ln.split(",", 1)[1] for ln in got[1].decode().splitlines()[1:]
            if ln.startswith("nullb1,")]
    check("previous_ring_left_out_older_ring_read",
          rc == 0 and said in err and "its ring a resize replaced "
          "(allocation 1) read instead" in err and
          sorted(mine) == sorted(ln.split(",", 1)[1] for ln in rows),
          "rc %d: %s" % (rc, err))
    # --release (the unit's, unattended at every start): a ring left out
    # is in the module's copy only, which is not freed; a fake debugfs
    # (previous, previous_release) and an empty /dev/iotrace
    fake = os.path.join(TMP, "fakedbg")
    nodev = os.path.join(TMP, "fakedev")
    for d in (fake, nodev):
        os.makedirs(d, exist_ok=True)
    env = {"IOTRACE_DEBUGFS": fake, "IOTRACE_DEV": nodev}
    rel = os.path.join(fake, "previous_release")
    for bad, name, want_rc, want_rel in (
            ((b"sdr",), "previous_release_keeps_a_ring_left_out", 1, ""),
            ((), "previous_release_frees_a_copy_read_whole", 0, "1\n")):
        open(os.path.join(fake, "previous"), "wb").write(two_disks(bad))
        open(rel, "w").close()
        if os.path.exists(t):
            os.unlink(t)
        rc, o, err = cmd("previous", "--release", "-o", t, env=env)
        got = cmd("show", "-o", "csv", t) if os.path.exists(t) else \
            (1, b"", "")
        check(name, rc == want_rc and open(rel).read() == want_rel and
              ("not released: 1 ring left out" in err) == bool(bad) and
              got[0] == 0 and "nullb0," in got[1].decode(),
              "rc %d, release %r: %s" % (rc, open(rel).read(), err))
    # every ring bad: refused as before, naming one
    open(p, "wb").write(two_disks((b"sdq", b"sdr")))
    if os.path.exists(t):
        os.unlink(t)
    rc, o, err = run(p, "-o", t)
    check("previous_every_ring_left_out_refused",
          rc == 1 and "not an iotrace ring" in err and
          not os.path.exists(t), "rc %d: %s" % (rc, err))
    rc, o, err = cmd("show", p)
    check("source_every_ring_left_out_refused",
          rc == 1 and not o and "ring of sdq: not an iotrace ring" in err,
          "rc %d: %s" % (rc, err))


MODEL, SERIAL, WWN = b"QEMU HARDDISK", b"QM00001", b"naa.5000c500a1b2c3d4"
ID_LINE = ('2097152 sectors, model "QEMU HARDDISK", serial "QM00001", '
           'wwn "naa.5000c500a1b2c3d4"')


def identity():
    """Layout 1.1: who the disk is, beside its entries, with a checksum of
    its own: shown by previous, kept in the trace file (info), and a torn
    or stale one costs the identity, never the ring."""
    def prev(name, img):
        p = os.path.join(TMP, name + ".region")
        t = os.path.join(TMP, name + ".iot")
        open(p, "wb").write(img)
        rc, o, err = run(p, "-o", t)
        return rc, o, err, t

    good = ident(1, MODEL, SERIAL, WWN)
    rc, o, err, t = prev("id", region(1, {0: good}, 2097152))
    check("identity_previous_shows_it",
          rc == 0 and ("\n  " + ID_LINE + "\n") in o, err + o)
    ri, oi, ei = cmd("info", t)
    check("identity_trace_file_keeps_it",
          ri == 0 and ("\n    " + ID_LINE + "\n").encode() in oi,
          oi.decode() + ei)
    ri, oj, ei = cmd("info", "-o", "json", t)
    check("identity_info_json",
          ri == 0 and b'"identity":{"sectors":2097152,"model":"QEMU HARDDISK",'
          b'"serial":"QM00001","wwn":"naa.5000c500a1b2c3d4"}' in oj,
          oj.decode() + ei)
    recs = cmd("show", "-o", "csv", t)
    check("identity_records_unchanged",
          recs[0] == 0 and recs[1] == cmd("show", "-o", "csv",
                                          os.path.join(TMP, "prev.iot"))[1],
          recs[2])
    # beside the in-flight table's entry only: still the disk's
    rc, o, err, _ = prev("id-table", region(1, {1: ident(2, MODEL, SERIAL,
                                                         WWN)}, 2097152))
    check("identity_of_the_table_entry_is_the_disks",
          rc == 0 and ("\n  " + ID_LINE + "\n") in o, err + o)
    # core: found by the magic, the same
    img = region(1, {0: good}, 2097152)
    p = os.path.join(TMP, "id.core")
    open(p, "wb").write(core(img, 5 * PAGE))
    rc, o, err = run(p)
    check("identity_from_a_core", rc == 0 and ("\n  " + ID_LINE + "\n") in o,
          err + o)
    # torn by the crash: said; the ring and the table whole
    torn = bytearray(good)
    torn[20] ^= 1
    rc, o, err, t = prev("id-torn", region(1, {0: torn}, 2097152))
    ri, oi, ei = cmd("info", t)
    check("identity_torn_said_ring_kept",
          rc == 0 and "2097152 sectors, identity torn by the crash" in o and
          "1 in flight, 1 torn in-flight slots, 0 damaged entries" in o and
          cmd("show", "-o", "csv", t)[1] == recs[1] and
          b"    2097152 sectors (model, serial and wwn not known)\n" in oi,
          err + o + oi.decode())
    # another entry's (a stale gen): not this disk's
    rc, o, err, _ = prev("id-stale", region(1, {0: ident(9, MODEL, SERIAL,
                                                         WWN)}, 2097152))
    check("identity_of_another_gen_ignored",
          rc == 0 and "2097152 sectors, no identity given" in o and
          "QEMU" not in o, err + o)
    # the table where the data is (a foreign header): not read
    img = region(1, {0: good}, 2097152)
    struct.pack_into("<Q", img, 192, 4096 + 128 * 512 + 8 * PAGE)
    rc, o, err, _ = prev("id-off", img)
    check("identity_table_outside_its_place_ignored",
          rc == 0 and "no identity given" in o and "QEMU" not in o and
          "1 in flight," in o, err + o)
    # layout 1.0 (no table): nothing, no chunk in the trace file
    rc, o, err, t = prev("id-10", region())
    ri, oi, ei = cmd("info", t)
    check("identity_layout_1_0_none",
          rc == 0 and "  0 sectors, no identity given" in o and
          b"sectors" not in oi and ri == 0, err + o + oi.decode())


def anchor_torn():
    """Layout 1.2: a crash in the middle of the clock anchor's rewrite
    (anchor_seq odd) leaves the anchor half written; the previous one,
    whole, dates the records.  An even count: the anchor itself."""
    jan1, mar1 = 1_767_225_600_000_000_000, 1_772_323_200_000_000_000
    for seq, when, mono, said in ((3, "2026-01-01", "5.000000000", True),
                                  (4, "2026-03-01", "6.000000000", False)):
        p = os.path.join(TMP, "anchor%d.region" % seq)
        t = os.path.join(TMP, "anchor%d.iot" % seq)
        open(p, "wb").write(region(2, anchor=(seq, 6_000_000_000, mar1,
                                              5_000_000_000, jan1)))
        rc, o, err = run(p, "-o", t)
        ri, oi, ei = cmd("info", t)
        check("anchor_seq_%s_dates_by_%s" % (
            "odd" if seq & 1 else "even",
            "the_previous_one" if said else "the_anchor"),
              rc == 0 and ("last clock anchor %sT00:00:00Z = %s s monotonic"
                           % (when, mono)) in o and
              ("the crash came while the anchor was rewritten" in o) == said
              and ri == 0 and when.encode() in oi, err + o + oi.decode())


def removed_disk(trace):
    """Layout 1.3: the ring of a disk removed before the crash, kept
    (IOTRACE_PREG_D_REMOVED): listed as such, its ring copy named apart
    from a disk of the same name that came back, its records in the trace
    file as any disk's."""
    rows = cmd("show", "-o", "csv", trace)[1].decode().splitlines()[1:]
    p = os.path.join(TMP, "removed.region")
    t = os.path.join(TMP, "removed.iot")
    d = os.path.join(TMP, "removed.rings")
    shutil.rmtree(d, ignore_errors=True)
    open(p, "wb").write(two_disks(removed=True))
    rc, o, err = run(p, "--rings", d, "-o", t)
    lines = {ln.split()[0]: ln for ln in o.splitlines()
             if ln.startswith(("sdq ", "sdr "))}
    check("previous_removed_disk_listed_as_removed",
          rc == 0 and lines.get("sdr", "").endswith(
              " (its disk was removed)") and
          "removed" not in lines.get("sdq", "removed"), err + o)
    check("previous_removed_disk_ring_named_apart",
          os.path.exists(os.path.join(d, "sdr.removed.3.ring")) and
          not os.path.exists(os.path.join(d, "sdr.ring")) and
          os.path.exists(os.path.join(d, "sdq.ring")),
          " ".join(sorted(os.listdir(d))) if os.path.isdir(d) else "no dir")
    got = cmd("show", "-o", "csv", t) if os.path.exists(t) else (1, b"", "")
    mine = [ln.split(",", 1)[1] for ln in got[1].decode().splitlines()[1:]
            if ln.startswith("nullb1,")]
    check("previous_removed_disk_records_in_trace_file",
          rc == 0 and got[0] == 0 and mine and
          sorted(mine) == sorted(ln.split(",", 1)[1] for ln in rows),
          "rc %d: %s" % (rc, err))
    # a crash between the mark and its checksum: the entry is whole
    open(p, "wb").write(two_disks(removed=True, torn_mark=True))
    rc, o, err = run(p)
    check("previous_removed_mark_torn_entry_whole",
          rc == 0 and "(its disk was removed)" in o and
          " 0 damaged entries" in o, err + o)
    # a disk of the same name came back: found first by its name, its
    # copy DISK.ring, the removed one's apart; both in the trace file
    shutil.rmtree(d, ignore_errors=True)
    open(p, "wb").write(two_disks(removed=True, came_back=True))
    if os.path.exists(t):
        os.unlink(t)
    rc, o, err = run(p, "--rings", d, "-o", t)
    ri, oi, ei = cmd("info", "-o", "json", t)
    devs = [x.get("dev") for x in json.loads(oi or b"{}").get("disks", [])
            if x.get("name") == "nullb1"] if ri == 0 else []
    check("previous_removed_disk_after_the_one_that_came_back",
          rc == 0 and devs == ["252:9", "252:7"], "%s %s" % (devs, err))
    check("previous_removed_disk_copy_apart_from_the_one_that_came_back",
          sorted(os.listdir(d)) == ["sdq.ring", "sdr.removed.3.ring",
                                    "sdr.ring"] if os.path.isdir(d) else 0,
          " ".join(sorted(os.listdir(d))) if os.path.isdir(d) else "no dir")
    # unmarked (removed while a reader held it, then the crash): the
    # first one's copy is named by its allocation, not overwritten
    shutil.rmtree(d, ignore_errors=True)
    open(p, "wb").write(two_disks(came_back=True))
    rc, o, err = run(p, "--rings", d)
    check("previous_same_name_unmarked_copies_apart",
          rc == 0 and sorted(os.listdir(d)) == ["sdq.ring", "sdr.3.ring",
                                                "sdr.ring"],
          " ".join(sorted(os.listdir(d))) if os.path.isdir(d) else "no dir")


if MAKE and sys.argv[1] == "--region-id":
    open(TMP, "wb").write(region(1, {0: ident(1, MODEL, SERIAL, WWN)},
                                 2097152))
elif MAKE and sys.argv[1] == "--region-left":
    open(TMP, "wb").write(two_disks((b"sdr",)))
elif MAKE and sys.argv[1] == "--region-room":
    open(TMP, "wb").write(region(minor=4, counts=(3, 2)))
elif MAKE:
    open(TMP, "wb").write(region())
else:
    main()
