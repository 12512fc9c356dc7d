#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""export -f pftrace against the records and Perfetto's schema.

pftrace_check.py RAW CSV DISKS: RAW is ``protoc --decode_raw`` of the
export, CSV ``export -f csv`` of the same records (the oracle), DISKS the
names of the disks exported, separated by "/".  The field numbers are
those of Perfetto's published schema (protos/perfetto/trace/trace.proto,
trace_packet.proto, track_event/track_event.proto,
track_event/track_descriptor.proto, track_event/counter_descriptor.proto,
track_event/debug_annotation.proto, interned_data/interned_data.proto,
profiling/profile_common.proto),
written here again, not taken from the exporter.  Checks that every
record has one slice, with the right name, times, arguments and the
queue and device children that add up to it, on a lane of its disk where
no other slice overlaps it; that the tracks' uuids are declared once,
before use, in the disk's group; that the interned names are declared
before use, on a sequence cleared first; and that the queue depth
counter has, at every issue and completion time, the number of requests
issued and not completed computed from the records.  Prints what is
wrong and exits 1, or prints a summary and exits 0.
"""
import collections
import csv
import subprocess
import sys

# Trace
TRACE_PACKET = 1
# TracePacket
TIMESTAMP, SEQ_ID, TRACK_EVENT, INTERNED, SEQ_FLAGS, TRACK_DESC = \
    8, 10, 11, 12, 13, 60
CLEARED, NEEDS = 1, 2
# TrackDescriptor
TD_UUID, TD_NAME, TD_PARENT, TD_COUNTER, TD_CHILD_ORDER, TD_RANK = \
    1, 2, 5, 8, 11, 12
EXPLICIT = 3
# CounterDescriptor
CD_UNIT, UNIT_COUNT = 3, 2
# TrackEvent
TE_ANN, TE_TYPE, TE_NAME_IID, TE_TRACK, TE_NAME, TE_COUNTER = \
    4, 9, 10, 11, 23, 30
BEGIN, END, COUNTER = 1, 2, 4
# DebugAnnotation
DA_NAME_IID, DA_UINT, DA_INT, DA_STRING, DA_STRING_IID = 1, 3, 4, 6, 17
# InternedData; EventName, DebugAnnotationName, InternedString
# (profiling/profile_common.proto)
ID_EVENT_NAMES, ID_ANN_NAMES, ID_STRINGS, IID, IID_NAME = 2, 3, 29, 1, 2

RF_NO_ISSUE = 1 << 7
RF_KERNEL = 1 << 14

errors = []


def err(msg):
    if len(errors) < 30:
        errors.append(msg)


def unescape(s):
    """A string of protoc's text format (C escapes) as text."""
    out = bytearray()
    i = 0
    simple = {'n': 10, 'r': 13, 't': 9, '"': 34, "'": 39, '\\': 92,
              'a': 7, 'b': 8, 'f': 12, 'v': 11, '?': 63}
    while i < len(s):
        c = s[i]
        if c != '\\':
            out += c.encode('latin-1')
            i += 1
            continue
        n = s[i + 1]
        if n in simple:
            out.append(simple[n])
            i += 2
        elif n == 'x':
            j = i + 2
            while j < len(s) and j < i + 4 and s[j] in '0123456789abcdefABCDEF':
                j += 1
            out.append(int(s[i + 2:j], 16))
            i = j
        else:
            j = i + 1
            while j < len(s) and j < i + 4 and s[j] in '01234567':
                j += 1
            out.append(int(s[i + 1:j], 8))
            i = j
    return out.decode('utf-8', 'surrogateescape')


def parse_text(lines):
    """decode_raw's text: a message is {field: [values]}."""
    root = {}
    stack = [root]
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line == '}':
            stack.pop()
            continue
        if line.endswith(' {'):
            m = {}
            stack[-1].setdefault(int(line[:-2]), []).append(m)
            stack.append(m)
            continue
        f, v = line.split(': ', 1)
        if v.startswith('"'):
            val = unescape(v[1:-1])
        else:
            val = int(v, 0)
        stack[-1].setdefault(int(f), []).append(val)
    return root


def freeze(v):
    """A value of parse_text() as something hashable."""
    if isinstance(v, dict):
        return tuple(sorted((k, tuple(freeze(x) for x in vals))
                            for k, vals in v.items()))
    return v


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7f | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def rendered(strs):
    """
    What decode_raw prints for each of @strs as a string field: the
    string, or a message when its bytes parse as one (decode_raw cannot
    tell them apart): the form to compare the export's strings in.
    """
    strs = sorted(set(strs))
    data = b''
    for x in strs:
        b = x.encode('utf-8', 'surrogateescape')
        data += b'\x0a' + varint(len(b)) + b
    out = subprocess.run(['protoc', '--decode_raw'], input=data,
                         stdout=subprocess.PIPE, check=True).stdout
    vals = parse_text(out.decode('latin-1').split('\n')).get(1, [])
    assert len(vals) == len(strs), (len(vals), len(strs))
    return {x: freeze(v) for x, v in zip(strs, vals)}


def parse(path):
    """The packets of the export."""
    root = parse_text(open(path, encoding='latin-1'))
    if set(root) - {TRACE_PACKET}:
        err('Trace has fields other than packet: %s' % sorted(root))
    return root.get(TRACE_PACKET, [])


def subs(m, f):
    """The messages of field @f of @m (a value that is none is said)."""
    out = []
    for v in m.get(f, []):
        if isinstance(v, dict):
            out.append(v)
        else:
            err('field %d is no message: %r' % (f, v))
    return out


def one(m, f, default=None):
    v = m.get(f)
    if not v:
        return default
    if len(v) != 1:
        err('field %d repeated: %r' % (f, v))
    return v[0]


def text(m, f):
    """A string field, as decode_raw printed it (frozen)."""
    return freeze(one(m, f))


def size_name(op, n):
    if not n:
        return op
    if n % (1 << 20) == 0:
        return '%s %dM' % (op, n >> 20)
    if n % 1024 == 0:
        return '%s %dK' % (op, n >> 10)
    return '%s %dB' % (op, n)


STRING_ARGS = ('comm', 'status', 'opflags', 'dev_status', 'command')


def expected(rows, disks):
    """Per record: its slice as the export must write it; the counter."""
    want = collections.Counter()
    strs = list(disks)
    marks = collections.defaultdict(lambda: collections.defaultdict(int))
    recs = []
    for r in rows:
        fl = int(r['rflags'])
        s = int(r['complete_ns'] if fl & RF_NO_ISSUE else r['issue_ns'])
        hasq = r['queue_ns'] != '' and not fl & RF_NO_ISSUE
        lat = r['latency_ns'] != ''
        q = min(int(r['queue_ns']), s) if hasq else 0
        a = s - q
        end = int(r['complete_ns']) if lat else s
        kids = []
        if hasq:
            kids.append(('queue', a, s))
        if lat:
            kids.append(('device', s, end))
            # the queue depth: +1 at the issue, -1 at the completion
            marks[r['disk']][s] += 1
            marks[r['disk']][end] -= 1
        comm = '[kernel]' if fl & RF_KERNEL else (r['comm'] or '-')
        args = {'bytes': int(r['bytes']), 'tag': int(r['tag']),
                'hwq': int(r['hwq']), 'pid': int(r['pid']), 'comm': comm,
                'status': r['status'] or 'no completion'}
        if r['sector'] != '':
            args['sector'] = int(r['sector'])
        if r['opflags']:
            args['opflags'] = r['opflags']
        if r['cgroup'] != '0':
            args['cgroup'] = int(r['cgroup'])
        for k in ('dev_status_str', 'command'):
            if r[k] not in ('', '-'):
                args['dev_status' if k == 'dev_status_str' else k] = r[k]
        name = size_name(r['op'], int(r['bytes']))
        strs += [name] + [args[k] for k in STRING_ARGS if k in args]
        recs.append((r['disk'], name, a, end, kids, args))
    ren = rendered(strs + ['queue', 'device'])
    for disk, name, a, end, kids, args in recs:
        args = {k: ren[v] if k in STRING_ARGS else v for k, v in args.items()}
        kids = tuple((ren[n], s, e) for n, s, e in kids)
        want[(ren[disk], ren[name], a, end, kids,
              tuple(sorted(args.items())))] += 1
    depth = {}
    for disk, m in marks.items():
        v = 0
        pts = []
        for t in sorted(m):
            v += m[t]
            pts.append((t, v))
        depth[ren[disk]] = pts
    return want, depth, ren


def main():
    packets = parse(sys.argv[1])
    rows = list(csv.DictReader(open(sys.argv[2], newline='',
                                    encoding='utf-8',
                                    errors='surrogateescape')))
    disks = [d for d in sys.argv[3].split('/') if d]
    want, depth, ren = expected(rows, disks)
    event_names = {}
    ann_names = {}
    strings = {}
    cleared = False
    tracks = {}
    events = collections.defaultdict(list)	# track uuid: events
    order = 0
    for p in packets:
        if not isinstance(p, dict):
            err('a packet is no message: %r' % p)
            continue
        flags = one(p, SEQ_FLAGS, 0)
        if flags & CLEARED:
            cleared = True
            event_names.clear()
            ann_names.clear()
            strings.clear()
        if flags & NEEDS and not cleared:
            err('a packet needs incremental state before it was cleared')
        for idata in subs(p, INTERNED):
            for f, table in ((ID_EVENT_NAMES, event_names),
                             (ID_ANN_NAMES, ann_names),
                             (ID_STRINGS, strings)):
                for e in subs(idata, f):
                    iid, name = one(e, IID), text(e, IID_NAME)
                    if not iid or table.get(iid, name) != name:
                        err('interned %d: iid %r as %r, was %r' %
                            (f, iid, name, table.get(iid)))
                    table[iid] = name
            if not flags & NEEDS:
                err('interned data without SEQ_NEEDS_INCREMENTAL_STATE')
        for td in subs(p, TRACK_DESC):
            u = one(td, TD_UUID)
            if not u or u in tracks:
                err('track uuid %r missing or declared twice' % u)
            tracks[u] = td
        for te in subs(p, TRACK_EVENT):
            order += 1
            if one(p, SEQ_ID) != 1:
                err('track event on sequence %r' % one(p, SEQ_ID))
            u = one(te, TE_TRACK)
            if u not in tracks:
                err('event on track %r not declared before it' % u)
                continue
            name = None
            if TE_NAME_IID in te:
                if not flags & NEEDS:
                    err('an iid in a packet without '
                        'SEQ_NEEDS_INCREMENTAL_STATE')
                name = event_names.get(one(te, TE_NAME_IID))
                if name is None:
                    err('event name iid %r not interned' %
                        one(te, TE_NAME_IID))
            elif TE_NAME in te:
                name = text(te, TE_NAME)
            args = {}
            for da in subs(te, TE_ANN):
                an = ann_names.get(one(da, DA_NAME_IID))
                if an is None or an in args:
                    err('annotation name %r unknown or twice' %
                        one(da, DA_NAME_IID))
                for f in (DA_UINT, DA_INT, DA_STRING):
                    if f in da:
                        args[an] = freeze(one(da, f))
                if DA_STRING_IID in da:
                    if not flags & NEEDS:
                        err('an iid in a packet without '
                            'SEQ_NEEDS_INCREMENTAL_STATE')
                    args[an] = strings.get(one(da, DA_STRING_IID))
                    if args[an] is None:
                        err('string value iid %r not interned' %
                            one(da, DA_STRING_IID))
            events[u].append((one(p, TIMESTAMP), order, one(te, TE_TYPE),
                              name, args, one(te, TE_COUNTER)))

    # the tracks: a group per disk, a counter and lanes in it
    groups = {u: text(td, TD_NAME) for u, td in tracks.items()
              if TD_PARENT not in td}
    if sorted(groups.values()) != sorted(ren[d] for d in disks):
        err('disk tracks %r, wanted %r' % (sorted(groups.values()), disks))
    counters = {}
    lanes = {}
    for u, td in tracks.items():
        if u in groups:
            if one(td, TD_CHILD_ORDER) != EXPLICIT:
                err('disk track %r: child ordering not explicit' % u)
            if TD_COUNTER in td:
                err('disk track %r is a counter' % u)
            continue
        par = one(td, TD_PARENT)
        if par not in groups:
            err('track %r: parent %r is no disk track' % (u, par))
            continue
        if TD_COUNTER in td:
            cd = subs(td, TD_COUNTER)
            if not cd or one(cd[0], CD_UNIT) != UNIT_COUNT:
                err('counter %r: unit not UNIT_COUNT' % u)
            if groups[par] in counters:
                err('two counters on %s' % groups[par])
            counters[groups[par]] = u
        else:
            lanes[u] = groups[par]
    for d in disks:
        if ren[d] not in counters:
            err('no queue depth counter for %s' % d)
    names = collections.Counter((lanes[u], text(tracks[u], TD_NAME))
                                for u in lanes)
    if names and max(names.values()) > 1:
        err('lanes of one name in one disk: %r' % names.most_common(1))
    for u in groups:
        if events.get(u):
            err('events on the disk track %r itself' % u)

    # the slices of each lane, nested as Perfetto nests them: in time
    # order, ties in the order of the file
    got = collections.Counter()
    nslices = 0
    for u, d in lanes.items():
        stack = []
        top = []
        for ts, _, typ, name, args, _ in sorted(events.get(u, [])):
            if typ == BEGIN:
                sl = {'name': name, 'start': ts, 'args': args, 'kids': []}
                (stack[-1]['kids'] if stack else top).append(sl)
                stack.append(sl)
            elif typ == END:
                if not stack:
                    err('lane %r: an end with no slice open at %d' % (u, ts))
                    continue
                stack.pop()['end'] = ts
            else:
                err('lane %r: event of type %r' % (u, typ))
        if stack:
            err('lane %r: %d slices never end' % (u, len(stack)))
            continue
        prev = None
        for sl in top:
            nslices += 1
            if prev is not None and sl['start'] <= prev:
                err('lane %r: a slice at %d overlaps the one ending at %d'
                    % (u, sl['start'], prev))
            prev = sl['end']
            kids = []
            for k in sl['kids']:
                if k['kids']:
                    err('lane %r: %s at %d has children' %
                        (u, k['name'], k['start']))
                if k['args']:
                    err('lane %r: child %s has arguments' % (u, k['name']))
                kids.append((k['name'], k['start'], k['end']))
            if kids and sum(e - s for _, s, e in kids) != \
                    sl['end'] - sl['start']:
                err('lane %r: children of %s at %d do not add up: %r' %
                    (u, sl['name'], sl['start'], kids))
            got[(d, sl['name'], sl['start'], sl['end'], tuple(kids),
                 tuple(sorted(sl['args'].items())))] += 1

    if got != want:
        miss = want - got
        extra = got - want
        err('%d record slices missing, %d unexpected; e.g. missing %r, '
            'unexpected %r' % (sum(miss.values()), sum(extra.values()),
                               next(iter(miss), None),
                               next(iter(extra), None)))

    # the queue depth counter
    for d, u in counters.items():
        pts = [(ts, v) for ts, _, typ, _, _, v in events.get(u, [])]
        if any(typ != COUNTER for _, _, typ, _, _, _ in events.get(u, [])):
            err('%s: a counter track with other events' % d)
        if pts != depth.get(d, []):
            w = depth.get(d, [])
            bad = next((i for i, (x, y) in enumerate(zip(pts, w)) if x != y),
                       min(len(pts), len(w)))
            err('%s: queue depth: %d values, wanted %d; first difference '
                'at #%d: %r, wanted %r' % (d, len(pts), len(w), bad,
                                          pts[bad:bad + 2], w[bad:bad + 2]))

    if errors:
        print('\n'.join(errors))
        sys.exit(1)
    print('%d slices of %d records on %d lanes of %d disks, %d queue depth '
          'values' % (nslices, len(rows), len(lanes), len(groups),
                      sum(len(v) for v in depth.values())))


main()
