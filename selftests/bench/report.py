#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw results of selftests/bench/bench.sh into a table and JSON.

usage: report.py [--json OUT.json] [--rst OUT.rst] RESULTS_DIR...
Each RESULTS_DIR is a run-test results directory of bench.sh (one kernel).
Nothing is asserted: the targets are printed next to the figures.
"""
import json
import os
import statistics
import sys

CONFIGS = ['none', 'loaded', 'metricsonly', 'nosub', 'nometrics', 'lean',
           'enabled', 'persist', 'triggers',
           'record',
           'blktrace', 'bpftrace', 'ftrace', 'floor0', 'floor1', 'floor2',
           'floor3', 'floor4', 'floor5', 'floor6']
# the configurations whose figures are those of an enabled ring
RING = ('enabled', 'persist', 'triggers', 'enabled16', 'nosub', 'nometrics',
        'lean')
PEERS = ['blktrace', 'bpftrace', 'ftrace']
# the configurations that store nothing, lose nothing (bench.sh)
NOTHING = ('none', 'loaded', 'none16', 'floor0', 'floor1', 'floor2',
           'floor3', 'floor4', 'floor5', 'floor6')
LABEL = {
    'none': 'no tracing',
    'loaded': 'iotrace loaded, disk disabled',
    'metricsonly': 'iotrace enabled, metrics only (buf_size 0)',
    'nosub': 'iotrace enabled, submitter=N (no block_io_start)',
    'nometrics': 'iotrace enabled, metrics=N (no in-kernel metrics)',
    'lean': 'iotrace enabled, submitter=N metrics=N',
    'enabled': 'iotrace enabled (default ring)',
    'persist': 'iotrace enabled, rings in reserved memory (persist=)',
    'triggers': 'iotrace enabled + triggers armed, none firing',
    'record': 'iotrace enabled + iotracectl record to tmpfs',
    'blktrace': 'blktrace -b 1024 to tmpfs',
    'bpftrace': 'bpftrace issue/complete pairing, printf per I/O',
    'ftrace': 'ftrace block_rq_issue+complete, 2 x 4 MiB ring',
    'floor0': 'floor: empty probes (tracepoint dispatch)',
    'floor1': 'floor: + preempt_disable/enable',
    'floor2': 'floor: + ktime_get_ns at issue and completion',
    'floor3': 'floor: + 128 bytes stored per request',
    'floor4': 'floor: + ktime_get_ns at block_io_start',
    'floor5': 'floor: + per-tag slots carrying the issue',
    'floor6': 'floor4 + the default features at their least (spike)',
    'none16': '16 disks, no tracing',
    'enabled16': '16 disks, iotrace enabled on all',
}
# The polled io_uring pass (bench.sh): its runs are named uring-<config>,
# its baseline is uring-none.
URING = 'uring-'
URING_CONFIGS = ['none', 'loaded', 'nosub', 'nometrics', 'lean', 'enabled',
                 'record', 'ftrace', 'floor0', 'floor1', 'floor2', 'floor3',
                 'floor4', 'floor5', 'floor6']
PASSES = ((URING, 'io_uring polled: ', URING_CONFIGS),)
for _pre, _what, _cfgs in PASSES:
    for _c in _cfgs:
        LABEL[_pre + _c] = _what + LABEL[_c]


def pass_of(cfg):
    """The prefix of the pass a run belongs to ('' for the first)."""
    for pre, _, _ in PASSES:
        if cfg.startswith(pre):
            return pre
    return ''


def kind(cfg):
    """The configuration a run of any pass is (uring-enabled: enabled)."""
    return cfg[len(pass_of(cfg)):]


def baseline(cfg):
    """The untraced configuration of the pass of cfg."""
    if cfg.endswith('16'):
        return 'none16'
    return pass_of(cfg) + 'none'


def kv(path):
    d = {}
    try:
        with open(path) as f:
            for line in f:
                if '=' in line:
                    k, v = line.rstrip('\n').split('=', 1)
                    d[k] = v
    except OSError:
        pass
    return d


def num(s):
    try:
        return int(s)
    except (TypeError, ValueError):
        try:
            return float(s)
        except (TypeError, ValueError):
            return None


def load_run(d):
    meta = {k: num(v) if num(v) is not None else v
            for k, v in kv(os.path.join(d, 'meta')).items()}
    if 'config' not in meta:
        # bench.sh writes it after fio: the run did not finish
        raise ValueError('no meta file: the run did not finish')
    with open(os.path.join(d, 'fio.json')) as f:
        text = f.read()
    # fio may print notes before the JSON object
    fio = json.loads(text[text.index('{'):])
    meta['iops'] = fio['jobs'][0]['read']['iops']
    meta['fio_ios'] = fio['jobs'][0]['read']['total_ios']
    return meta


def bytes_per_req(cfg, runs):
    """Bytes stored per request, and how it was obtained."""
    cfg = kind(cfg)
    vals = []
    for r in runs:
        req = r.get('requests') or 0
        if cfg in RING:
            present = r.get('iot_present') or 0
            if present:
                # ring bytes holding records / records: the record size
                vals.append(present * r['record_size'] / present)
        elif cfg == 'record':
            if r.get('rec_written'):
                vals.append(r['file_bytes'] / r['rec_written'])
        elif cfg == 'blktrace':
            if req:
                vals.append(r['file_bytes'] / req)
        elif cfg == 'bpftrace':
            # bytes of output per request printed (lost ones print nothing)
            if r.get('bpf_lines'):
                vals.append(r['file_bytes'] / r['bpf_lines'])
        elif cfg == 'ftrace':
            if r.get('ft_entries'):
                # two events per request
                vals.append(2 * r['ft_bytes'] / r['ft_entries'])
    return statistics.median(vals) if vals else None


def lost(cfg, runs):
    """Events (requests) lost per run: max over the rounds, and total."""
    cfg = kind(cfg)
    out = []
    for r in runs:
        if cfg in RING:
            out.append((r['iot_overwritten'], r['iot_dropped'],
                        r['requests']))
        elif cfg == 'record':
            out.append((r.get('rec_lost', 0), r.get('rec_kdropped', 0),
                        r['requests']))
        elif cfg == 'blktrace':
            out.append((0, r.get('bt_dropped') or 0, r['requests']))
        elif cfg == 'bpftrace':
            out.append((0, r.get('bpf_lost') or 0, r['requests']))
        elif cfg == 'ftrace':
            # overrun counts events: two per request
            out.append((r.get('ft_overrun') or 0, 0, 2 * r['requests']))
    return out


def instr_per_io(iops):
    """Guest instructions per I/O: icount shift=0 gives one guest ns per
    instruction and the vCPUs run in turn, so 1e9 / IOPS."""
    return 1e9 / iops


def triggers_cost(runs, cf):
    """Issue 21's cost line: triggers armed (none firing) against enabled,
    in extra guest instructions per request: of the medians, and per round
    (the two configurations run one after the other in each round)."""
    en = {r.get('round'): r['iops'] for r in runs['enabled']}
    per_round = [round(instr_per_io(r['iops']) - instr_per_io(en[r.get('round')]))
                 for r in runs['triggers'] if r.get('round') in en]
    extra = round(instr_per_io(cf['triggers']['iops_median']) -
                  instr_per_io(cf['enabled']['iops_median']))
    return {'extra_instr_per_io': extra, 'per_round': per_round,
            'trigger_hits_per_round': [r.get('trigger_hits')
                                       for r in runs['triggers']],
            'le_10': extra <= 10}


# The floor: what each level of the floor module adds to the one below.
# The floor of iotrace's design is floor4 where its block_io_start probe
# reads the clock for the queue time (IOTRACE_QUEUE_STAMP, 6.9+), floor3
# before; issue 52 gives iotrace's own work above it 150 instructions.
FLOOR = [('floor0', 'tracepoint dispatch'), ('floor1', 'preemption guard'),
         ('floor2', 'two clock reads'), ('floor3', '128-byte store'),
         ('floor4', 'allocation stamp'), ('floor5', 'per-tag slots')]
BUDGET = 150
QUEUE_STAMP_SINCE = (6, 9)


def design_floor(kernel):
    """The floor level of iotrace's design on kernel release @kernel."""
    try:
        ver = tuple(int(x) for x in kernel.split('-')[0].split('.')[:2])
    except (AttributeError, ValueError):
        return 'floor4'
    return 'floor4' if ver >= QUEUE_STAMP_SINCE else 'floor3'


# Issue 52's targets, extra guest instructions per request, per pass:
# enabled <= 400, enabled + record <= 700 (and iotrace's own work above
# the design's floor <= 150: floor_report()), loaded (idle) no probe
# attached; with the NVMe command captured <= 500 (the profile's, PROF_CMD).
COST_TARGETS = (('enabled', 400), ('record', 700))
COST_CMD = 500


def cost_report(cf):
    """Per pass (libaio, io_uring polled) the targets of issue 52 against
    the figures; {} without the configurations."""
    out = {}
    for name, pre in (('libaio', ''), ('io_uring', URING)):
        t = {}
        for cfg, limit in COST_TARGETS:
            c = cf.get(pre + cfg)
            if c and c['extra_instr_per_io'] is not None:
                t[cfg] = {'extra_instr_per_io': c['extra_instr_per_io'],
                          'limit': limit,
                          'met': c['extra_instr_per_io'] <= limit}
        if 'enabled' in t and 'record' in t:
            # the recorder's own share: its copy-out to the file
            t['recorder'] = (t['record']['extra_instr_per_io'] -
                             t['enabled']['extra_instr_per_io'])
        c = cf.get(pre + 'loaded')
        if c and 'probes_attached' in c:
            t['loaded'] = {'extra_instr_per_io': c['extra_instr_per_io'],
                           'probes_attached': c['probes_attached'],
                           'met': str(c['probes_attached']) == '0'}
        if t:
            out[name] = t
    return out


# What each feature on by default adds, as enabled minus the
# configuration without it, in the same boot.
FEATURES = (('nosub', 'the submitter (block_io_start, block_rq_merge)'),
            ('nometrics', 'the metrics (counts, sums, histograms)'),
            ('metricsonly', 'the record (ring: reserve, fill, publish)'))


def features_report(runs, cf):
    """Per pass and feature, its share of enabled's extra instructions per
    request (enabled's medians minus the configuration's, and per round:
    the two run one after the other in each round); {} without them."""
    out = {}
    for pre in ('',) + tuple(p for p, _, _ in PASSES):
        en = cf.get(pre + 'enabled')
        if not en or en['extra_instr_per_io'] is None:
            continue
        for cfg, what in FEATURES:
            c = cf.get(pre + cfg)
            if c and c['extra_instr_per_io'] is not None:
                wo = {r.get('round'): r['iops'] for r in runs[pre + cfg]}
                per_round = [round(instr_per_io(r['iops']) -
                                   instr_per_io(wo[r.get('round')]))
                             for r in runs[pre + 'enabled']
                             if r.get('round') in wo]
                out[pre + cfg] = {'what': what,
                                  'pass': 'io_uring' if pre else 'libaio',
                                  'instr_per_io': (en['extra_instr_per_io'] -
                                                   c['extra_instr_per_io']),
                                  'per_round': per_round,
                                  'without': c['extra_instr_per_io']}
    return out


def floor_report(cf, pre='', kernel=None):
    """The floor levels' extra instructions per request in the pass of
    prefix pre, each level's increment over the one below (floor0's over
    none), the design's floor on @kernel and iotrace's own work above it
    (enabled minus that floor); None without the floor configurations
    (floor4 may be missing: then floor3 ends them)."""
    have = [(f, w) for f, w in FLOOR
            if pre + f in cf and cf[pre + f]['extra_instr_per_io'] is not None]
    if [f for f, _ in have] != [f for f, _ in FLOOR[:len(have)]] or \
       len(have) < 4:
        return None
    below = 0
    steps = []
    for f, what in have:
        extra = cf[pre + f]['extra_instr_per_io']
        steps.append({'config': pre + f, 'what': what,
                      'extra_instr_per_io': extra,
                      'increment': extra - below})
        below = extra
    out = {'levels': steps, 'budget': BUDGET}
    want = design_floor(kernel)
    got = [s for s in steps if s['config'] == pre + want]
    if got:
        out['design_floor'] = {'config': pre + want,
                               'extra_instr_per_io':
                               got[0]['extra_instr_per_io']}
        en = cf.get(pre + 'enabled')
        if en and en['extra_instr_per_io'] is not None:
            own = en['extra_instr_per_io'] - got[0]['extra_instr_per_io']
            out['own_work'] = {'extra_instr_per_io': own, 'limit': BUDGET,
                               'met': own <= BUDGET}
        # floor6: the default features at their least, above the same floor
        f6 = cf.get(pre + 'floor6')
        if f6 and f6['extra_instr_per_io'] is not None:
            out['least_features'] = {
                'config': pre + 'floor6',
                'extra_instr_per_io': f6['extra_instr_per_io'],
                'above_design_floor': (f6['extra_instr_per_io'] -
                                       got[0]['extra_instr_per_io'])}
    return out


# The profile's figures (module/prof.c): whole probes from the run with
# prof_parts=0, the parts from the one with prof_parts=1.
PROF_ROWS = [
    (0, 'io_start', 'block_io_start, whole'),
    (1, 'io_start.lookup', '- lookup'),
    (1, 'io_start.clock', '- allocation stamp (6.9+)'),
    (0, 'issue', 'block_rq_issue, whole'),
    (1, 'issue.lookup', '- lookup'),
    (1, 'issue.clock', '- ktime_get_ns()'),
    (0, 'complete', 'block_rq_complete, whole'),
    (1, 'complete.lookup', '- lookup'),
    (1, 'complete.clock', '- clock'),
    (1, 'complete.metrics', '- metrics'),
    (1, 'complete.trigger', '- trigger test'),
    (1, 'complete.record', '- record, in all (the four below)'),
    (1, 'complete.record.tests', '- its tests (state, CPU, filter)'),
    (1, 'complete.record.reserve', '- its reserve'),
    (1, 'complete.record.fill', '- its fill (and slot release)'),
    (1, 'complete.record.commit', '- its publication'),
    (0, 'nvme.cmd', 'nvme_setup_cmd (command noted)'),
    (0, 'nvme.status', 'nvme_complete_rq (status noted)'),
]
PROF_WHOLE = ('io_start', 'issue', 'complete')
# with the NVMe command and status captured: the two NVMe hooks as well
PROF_CMD = ('nvme.cmd', 'nvme.status')
PROF_RUNS = {'prof': 'no triggers', 'prof-triggers': 'triggers armed',
             'prof-nometrics': 'metrics=N', 'prof-nvme': 'NVMe'}


def prof_file(path):
    """One iotrace/prof file: per part (n, skipped, sum), and key values."""
    parts, keys = {}, {}
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) == 5 and all(x.isdigit() for x in w[1:]):
                    parts[w[0]] = tuple(int(x) for x in w[1:4])
                elif len(w) == 2:
                    keys[w[0]] = w[1]
                elif '=' in line:
                    k, v = line.strip().split('=', 1)
                    keys[k] = v
    except OSError:
        return None
    return {'parts': parts, 'keys': keys}


def prof_report(d, name):
    """Guest instructions per call of each probe and part, the clock
    reads' own cost (clock_pair, measured in the same file) subtracted."""
    files = [prof_file(os.path.join(d, 'out', '%s.%d.txt' % (name, i)))
             for i in (0, 1)]
    if not all(files):
        return None
    avg, calibs = {}, []
    for i, f in enumerate(files):
        n, _, tot = f['parts'].get('clock_pair', (0, 0, 0))
        calib = tot / n if n else 0
        calibs.append(round(calib, 1))
        for key, (n, skipped, tot) in f['parts'].items():
            if key != 'clock_pair' and n and \
               any(r[0] == i and r[1] == key for r in PROF_ROWS):
                avg[key] = {'instr': round(tot / n - calib, 1), 'n': n,
                            'skipped': skipped}
    # every part is a leaf (an outer part would also count its inner
    # parts' clock reads): the record is the sum of its four
    rec = [avg.get('complete.record.' + k, {}).get('instr')
           for k in ('tests', 'reserve', 'fill', 'commit')]
    if None not in rec:
        avg['complete.record'] = {'instr': round(sum(rec), 1),
                                  'n': avg['complete.record.fill']['n'],
                                  'skipped': 0}
    out = {'parts': avg,
           'clock_pair': calibs,
           'tsc_per_ns': [f['keys'].get('tsc_per_ns') for f in files]}
    if all(k in avg for k in PROF_WHOLE):
        out['three_probes'] = round(sum(avg[k]['instr'] for k in PROF_WHOLE), 1)
        if all(k in avg for k in PROF_CMD):
            # per request: each hook runs once per command issued and
            # completed (as the block probes do)
            out['with_command'] = round(
                out['three_probes'] +
                sum(avg[k]['instr'] for k in PROF_CMD), 1)
    hits = files[1]['keys'].get('trigger_hits')
    if hits is not None:
        out['trigger_hits'] = num(hits)
    for k in ('records', 'cmd_records', 'status_records'):
        if k in files[1]['keys']:
            out[k] = num(files[1]['keys'][k])
    return out


def kernel_report(d):
    env = kv(os.path.join(d, 'out', 'bench.env'))
    runs = {}
    base = os.path.join(d, 'out', 'runs')
    for name in sorted(os.listdir(base)):
        if not os.path.isdir(os.path.join(base, name)):
            continue
        cfg, rnd = name.rsplit('.', 1)
        if cfg not in LABEL:
            continue    # the profile's runs (prof_report)
        try:
            run = load_run(os.path.join(base, name))
            runs.setdefault(cfg, []).append(run)
        except (OSError, ValueError, KeyError) as e:
            print('# %s: %s: %s' % (d, name, e), file=sys.stderr)
    rep = {'kernel': env.get('kernel'), 'runtime': env.get('runtime'),
           'vcpus': num(env.get('nproc')),
           'rounds': num(env.get('rounds')), 'ramp': env.get('ramp'),
           'bpftrace_one_process': env.get('bpf_session') == '1', 'fio': env.get('fio'),
           'blktrace': env.get('blktrace'), 'bpftrace': env.get('bpftrace'),
           'configs': {}}
    for cfg in CONFIGS + ['none16', 'enabled16'] + \
            [pre + c for pre, _, cfgs in PASSES for c in cfgs]:
        if cfg not in runs:
            continue
        rr = runs[cfg]
        iops = [r['iops'] for r in rr]
        base_cfg = baseline(cfg)
        bmed = statistics.median([r['iops'] for r in runs.get(base_cfg, [])]) \
            if base_cfg in runs else None
        med = statistics.median(iops)
        ls = lost(cfg, rr)
        c = {
            'label': LABEL[cfg],
            'iops_median': round(med, 1),
            'iops_min': round(min(iops), 1),
            'iops_max': round(max(iops), 1),
            'iops_rounds': [round(x, 1) for x in iops],
            'spread_pct': round(100 * (max(iops) - min(iops)) / med, 3),
            'ratio': round(med / bmed, 4) if bmed else None,
            # icount shift=0: one guest ns per instruction, vCPUs run in
            # turn, so 1e9 / IOPS is instructions per I/O
            'instr_per_io': round(instr_per_io(med)),
            'extra_instr_per_io': (round(instr_per_io(med) - instr_per_io(bmed))
                                   if bmed else None),
            'ratio_min': round(min(iops) / bmed, 4) if bmed else None,
            'ratio_max': round(max(iops) / bmed, 4) if bmed else None,
            'bytes_per_request': (round(bytes_per_req(cfg, rr), 1)
                                  if bytes_per_req(cfg, rr) is not None
                                  else None),
            'requests_per_round': [r['requests'] for r in rr],
        }
        if cfg == 'triggers':
            c['trigger_hits_per_round'] = [r.get('trigger_hits') for r in rr]
        if kind(cfg) == 'loaded' and 'probes' in rr[0]:
            c['probes_attached'] = rr[0]['probes']
        if ls:
            c['lost_per_round'] = [a + b for a, b, _ in ls]
            c['lost_pct_max'] = round(max(100.0 * (a + b) / n if n else 0
                                          for a, b, n in ls), 3)
            if kind(cfg) in RING:
                c['overwritten_per_round'] = [a for a, _, _ in ls]
                c['dropped_per_round'] = [b for _, b, _ in ls]
                c['ring_records'] = rr[0].get('ring_records')
                c['record_size'] = rr[0].get('record_size')
            if kind(cfg) == 'record':
                c['kernel_dropped_per_round'] = [b for _, b, _ in ls]
                c['reader_lost_per_round'] = [a for a, _, _ in ls]
        rep['configs'][cfg] = c
    cf = rep['configs']
    if 'triggers' in cf and 'enabled' in cf:
        rep['triggers_vs_enabled'] = triggers_cost(runs, cf)
        rep['triggers'] = env.get('triggers')
    if floor_report(cf, kernel=rep.get('kernel')):
        rep['floor'] = floor_report(cf, kernel=rep.get('kernel'))
    if floor_report(cf, URING, rep.get('kernel')):
        rep['floor_uring'] = floor_report(cf, URING, rep.get('kernel'))
    ct = cost_report(cf)
    if ct:
        rep['cost'] = ct
    ft = features_report(runs, cf)
    if ft:
        rep['features'] = ft
    prof = {name: prof_report(d, name) for name in PROF_RUNS}
    rep['prof'] = {k: v for k, v in prof.items() if v}
    nv = nvme_report(rep['prof'], cf)
    if nv:
        cf['nvme-enabled'] = nv
    if prof_triggers_diff(rep['prof']) is not None:
        rep['prof_triggers_vs_enabled'] = prof_triggers_diff(rep['prof'])
    if 'none' in cf:
        peers = [cf[p]['ratio'] for p in PEERS if p in cf]
        t = {}
        if 'enabled' in cf:
            t['enabled_ratio_ge_0.98'] = cf['enabled']['ratio'] >= 0.98
        if 'loaded' in cf:
            t['loaded_ratio_ge_0.995'] = cf['loaded']['ratio'] >= 0.995
        if 'enabled' in cf and peers:
            cheapest = max(peers)
            ov = 1 - cf['enabled']['ratio']
            pov = 1 - cheapest
            t['enabled_overhead'] = round(ov, 4)
            t['cheapest_peer_overhead'] = round(pov, 4)
            t['overhead_le_third_of_cheapest_peer'] = ov <= pov / 3
        if 'enabled' in cf and cf['enabled'].get('record_size'):
            t['bytes_per_request_le_128'] = cf['enabled']['record_size'] <= 128
        rep['targets'] = t
    st = kv(os.path.join(d, 'out', 'stats-big.env'))
    if st:
        secs = float(st['end']) - float(st['start'])
        rep['stats_large_file'] = {
            'records': int(st['records']),
            'file_bytes': int(st['file_bytes']),
            'guest_seconds': round(secs, 3),
            'records_per_s': round(int(st['records']) / secs) if secs else None,
        }
    return rep


def fmt(v, f='%s'):
    return 'n/a' if v is None else f % v


def table(rep):
    lines = []
    lines.append('Kernel %s, %s vCPUs, fio %s, %s of guest time per run, %s rounds '
                 '(QEMU -icount: IOPS = inverse of guest instructions per '
                 'I/O; cache effects are not modelled)'
                 % (rep['kernel'], rep['vcpus'], rep['fio'], rep['runtime'],
                    rep['rounds']))
    hdr = ('%-48s %8s %17s %7s %15s %7s %9s  %s'
           % ('configuration', 'IOPS med', 'min..max', 'ratio',
              'ratio min..max', '+ins/IO', 'B/request', 'lost (max of rounds)'))
    lines.append(hdr)
    lines.append('-' * len(hdr))
    for cfg, c in rep['configs'].items():
        if 'iops_median' not in c:
            continue    # nvme-enabled: no IOPS (nvme_report())
        lost_s = 'n/a'
        k = kind(cfg)
        if k in RING:
            lost_s = ('dropped %d; overwritten %d (%.1f%%, ring of %s)'
                      % (max(c['dropped_per_round']),
                         max(c['overwritten_per_round']), c['lost_pct_max'],
                         c['ring_records']))
        elif k == 'record':
            lost_s = ('%d (kernel dropped %d, reader lost %d)'
                      % (max(c['lost_per_round']),
                         max(c['kernel_dropped_per_round']),
                         max(c['reader_lost_per_round'])))
        elif k == 'ftrace':
            lost_s = ('%d events overrun (%.1f%% of events)'
                      % (max(c['lost_per_round']), c['lost_pct_max']))
        elif 'lost_per_round' in c:
            lost_s = '%d (%.2f%%)' % (max(c['lost_per_round']),
                                     c['lost_pct_max'])
        elif k in NOTHING:
            lost_s = '-'
        lines.append('%-48s %8.0f %8.0f..%-7.0f %7s %15s %7s %9s  %s' % (
            c['label'], c['iops_median'], c['iops_min'], c['iops_max'],
            fmt(c['ratio'], '%.4f'),
            ('%.4f..%.4f' % (c['ratio_min'], c['ratio_max']))
            if c['ratio'] is not None else 'n/a',
            fmt(c['extra_instr_per_io'], '%d'),
            fmt(c['bytes_per_request'], '%.1f')
            if k not in NOTHING else '-',
            lost_s))
    t = rep.get('targets', {})
    if t:
        lines.append('targets: ' + ', '.join('%s=%s' % kv_ for kv_ in t.items()))
    for name, t in rep.get('cost', {}).items():
        parts = []
        for cfg, limit in COST_TARGETS:
            if cfg in t:
                parts.append('%s %+d (<= %d %s)' % (
                    cfg, t[cfg]['extra_instr_per_io'], limit,
                    'met' if t[cfg]['met'] else 'NOT met'))
        if 'recorder' in t:
            parts.append('of which the recorder %+d' % t['recorder'])
        if 'loaded' in t:
            parts.append('idle %+d, %s probes attached (%s)' % (
                t['loaded']['extra_instr_per_io'],
                t['loaded']['probes_attached'],
                'met' if t['loaded']['met'] else 'NOT met'))
        lines.append('issue 52, %s: %s' % (name, '; '.join(parts)))
    for cfg, f in rep.get('features', {}).items():
        lines.append('%s, per feature: %s %+d instructions/'
                     'request (rounds: %s; enabled without it, %s: %+d)'
                     % (f['pass'], f['what'], f['instr_per_io'],
                        ', '.join('%+d' % x for x in f['per_round']), cfg,
                        f['without']))
    tc = rep.get('triggers_vs_enabled')
    if tc:
        lines.append('triggers armed vs enabled: %+d instructions/request '
                     '(rounds: %s; trigger hits: %s; issue 21: <= 10 %s)'
                     % (tc['extra_instr_per_io'],
                        ', '.join('%+d' % x for x in tc['per_round']),
                        ', '.join(str(x) for x in tc['trigger_hits_per_round']),
                        'met' if tc['le_10'] else 'NOT met'))
        lines.append('  triggers armed: %s' % rep.get('triggers'))
    for key, what in (('floor', 'floor'), ('floor_uring', 'floor, io_uring')):
        fl = rep.get(key)
        if not fl:
            continue
        line = what + ': ' + ', '.join(
            '%s %+d' % (x['what'], x['increment']) for x in fl['levels']) + \
            ' = %d' % fl['levels'][-1]['extra_instr_per_io']
        df = fl.get('design_floor')
        if df:
            line += '; the design\'s floor (%s) %+d' % (
                df['config'], df['extra_instr_per_io'])
        ow = fl.get('own_work')
        if ow:
            line += '; iotrace\'s own work above it %+d (<= %d %s)' % (
                ow['extra_instr_per_io'], ow['limit'],
                'met' if ow['met'] else 'NOT met')
        lf = fl.get('least_features')
        if lf:
            line += '; the default features at their least (%s) %+d above ' \
                'it' % (lf['config'], lf['above_design_floor'])
        lines.append(line)
    if rep.get('prof'):
        lines.extend(prof_table(rep['prof']))
    nv = rep['configs'].get('nvme-enabled')
    if nv:
        lines.append('issue 52, NVMe, every command and status captured: '
                     '%+d instructions/request (<= %d %s): the probes and '
                     'hooks %.1f, their five dispatches %.1f' % (
                         nv['extra_instr_per_io'], nv['limit'],
                         'met' if nv['met'] else 'NOT met',
                         nv['probes_and_hooks'], nv['dispatch']))
    pd = prof_triggers_diff(rep.get('prof', {}))
    if pd is not None:
        lines.append('triggers armed vs enabled, probe profile: %+.1f '
                     'instructions/request in the three probes (issue 21: '
                     '<= 10 %s)' % (pd, 'met' if pd <= 10 else 'NOT met'))
    s = rep.get('stats_large_file')
    if s:
        lines.append('iotracectl stats on a %d-record file (%d bytes): %.0f '
                     'records per guest second (per 1e9 guest instructions)'
                     % (s['records'], s['file_bytes'], s['records_per_s']))
    return '\n'.join(lines)


def nvme_report(prof, cf):
    """The NVMe pass: the emulated NVMe disk completes in host time, so
    its IOPS are not the inverse of guest instructions; its extra
    instructions per request are the profile's (the three probes and the
    two command hooks, prof-nvme) plus the dispatch of those five
    tracepoints (floor0's three, per tracepoint; the polled pass's where it
    ran).  None without them."""
    p = prof.get('prof-nvme', {})
    # the polled pass's floor0 where there is one: its rounds agree
    # (7.3's libaio rounds do not, see "What moves 7.3's untraced baseline")
    f0 = cf.get(URING + 'floor0') or cf.get('floor0')
    if 'with_command' not in p or not f0 or \
       f0['extra_instr_per_io'] is None:
        return None
    dispatch = max(f0['extra_instr_per_io'], 0) * 5 / 3.0
    extra = round(p['with_command'] + dispatch)
    return {'extra_instr_per_io': extra,
            'probes_and_hooks': p['with_command'],
            'dispatch': round(dispatch, 1),
            'method': 'profile (prof-nvme) + 5 x floor0 / 3 (uring-floor0 '
                      'where run)',
            'limit': COST_CMD, 'met': extra <= COST_CMD}


def prof_triggers_diff(prof):
    """The three probes with triggers armed minus without, or None."""
    try:
        return round(prof['prof-triggers']['three_probes'] -
                     prof['prof']['three_probes'], 1)
    except KeyError:
        return None


def prof_table(prof):
    """The per-probe breakdown, one column per profile run."""
    cols = [k for k in PROF_RUNS if k in prof]
    # the triggers' difference: armed against not
    both = 'prof' in cols and 'prof-triggers' in cols
    hdr = '%-36s' % 'guest instructions per call' + \
        ''.join('%16s' % PROF_RUNS[k] for k in cols) + \
        ('%12s' % 'triggers' if both else '')
    lines = ['probe profile (IOTRACE_PROF build, clock reads subtracted):',
             hdr, '-' * len(hdr)]
    rows = [(key, label) for _, key, label in PROF_ROWS] + \
        [('three_probes', 'three probes'),
         ('with_command', 'three probes + NVMe hooks')]
    for key, label in rows:
        vals = [prof[k]['parts'].get(key, {}).get('instr')
                if key not in ('three_probes', 'with_command')
                else prof[k].get(key)
                for k in cols]
        if all(v is None for v in vals):
            continue
        line = '%-36s' % label + ''.join('%16s' % fmt(v, '%.1f') for v in vals)
        if both:
            a = vals[cols.index('prof')]
            b = vals[cols.index('prof-triggers')]
            if a is not None and b is not None:
                line += '%+12.1f' % (b - a)
        lines.append(line)
    for k in cols:
        p = prof[k]
        skipped = max(v['skipped'] for v in p['parts'].values())
        lines.append('  %s: clock pair %s, TSC/ns %s, at most %d samples '
                     'skipped%s' % (PROF_RUNS[k], '/'.join(map(str, p['clock_pair'])),
                                    ', '.join(map(str, p['tsc_per_ns'])), skipped,
                                    '; trigger hits %s' % p['trigger_hits']
                                    if 'trigger_hits' in p else ''))
        if 'cmd_records' in p:
            lines.append('  %s: of %d records in the ring, %d carry their '
                         'command, %d their status' % (
                             PROF_RUNS[k], p['records'], p['cmd_records'],
                             p['status_records']))
    return lines


def main(argv):
    jpath = None
    args = []
    i = 1
    while i < len(argv):
        if argv[i] == '--json':
            jpath = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    reps = []
    for d in args:
        if not os.path.isdir(os.path.join(d, 'out', 'runs')):
            print('# %s: no results' % d, file=sys.stderr)
            continue
        reps.append(kernel_report(d))
    for r in reps:
        print(table(r))
        print()
    if jpath:
        with open(jpath, 'w') as f:
            json.dump({'benchmark': 'iotrace make bench', 'kernels': reps},
                      f, indent=1)
            f.write('\n')
    return 0 if reps else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
