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

CONFIGS = ['none', 'loaded', 'metricsonly', 'enabled', 'record', 'blktrace',
           'bpftrace', 'ftrace']
PEERS = ['blktrace', 'bpftrace', 'ftrace']
LABEL = {
    'none': 'no tracing',
    'loaded': 'iotrace loaded, disk disabled',
    'metricsonly': 'iotrace enabled, metrics only (buf_size 0)',
    'enabled': 'iotrace enabled (default ring)',
    'record': 'iotrace enabled + iotracectl record to tmpfs',
    'blktrace': 'blktrace -b 1024 to tmpfs',
    'bpftrace': 'bpftrace issue/complete pairing, printf per I/O',
    'ftrace': 'ftrace block_rq_issue+complete, 2 x 4 MiB ring',
    'none16': '16 disks, no tracing',
    'enabled16': '16 disks, iotrace enabled on all',
}


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
    with open(os.path.join(d, 'fio.json')) as f:
        text = f.read()
    # fio may print notes before the JSON object
    fio = json.loads(text[text.index('{'):])
    meta['iops'] = fio['jobs'][0]['read']['iops']
    meta['fio_ios'] = fio['jobs'][0]['read']['total_ios']
    return meta


def bytes_per_req(cfg, runs):
    """Bytes stored per request, and how it was obtained."""
    vals = []
    for r in runs:
        req = r.get('requests') or 0
        if cfg == 'enabled' or cfg == 'enabled16':
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
    out = []
    for r in runs:
        if cfg in ('enabled', 'enabled16'):
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


def kernel_report(d):
    env = kv(os.path.join(d, 'out', 'bench.env'))
    runs = {}
    base = os.path.join(d, 'out', 'runs')
    for name in sorted(os.listdir(base)):
        if not os.path.isdir(os.path.join(base, name)):
            continue
        cfg, rnd = name.rsplit('.', 1)
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
    for cfg in CONFIGS + ['none16', 'enabled16']:
        if cfg not in runs:
            continue
        rr = runs[cfg]
        iops = [r['iops'] for r in rr]
        base_cfg = 'none16' if cfg.endswith('16') else 'none'
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
            'instr_per_io': round(1e9 / med),
            'extra_instr_per_io': round(1e9 / med - 1e9 / bmed) if bmed else None,
            'ratio_min': round(min(iops) / bmed, 4) if bmed else None,
            'ratio_max': round(max(iops) / bmed, 4) if bmed else None,
            'bytes_per_request': (round(bytes_per_req(cfg, rr), 1)
                                  if bytes_per_req(cfg, rr) is not None
                                  else None),
            'requests_per_round': [r['requests'] for r in rr],
        }
        if cfg == 'loaded' and 'probes' in rr[0]:
            c['probes_attached'] = rr[0]['probes']
        if ls:
            c['lost_per_round'] = [a + b for a, b, _ in ls]
            c['lost_pct_max'] = round(max(100.0 * (a + b) / n if n else 0
                                          for a, b, n in ls), 3)
            if cfg in ('enabled', 'enabled16'):
                c['overwritten_per_round'] = [a for a, _, _ in ls]
                c['dropped_per_round'] = [b for _, b, _ in ls]
                c['ring_records'] = rr[0].get('ring_records')
                c['record_size'] = rr[0].get('record_size')
            if cfg == 'record':
                c['kernel_dropped_per_round'] = [b for _, b, _ in ls]
                c['reader_lost_per_round'] = [a for a, _, _ in ls]
        rep['configs'][cfg] = c
    cf = rep['configs']
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
        lost_s = 'n/a'
        if cfg in ('enabled', 'enabled16'):
            lost_s = ('dropped %d; overwritten %d (%.1f%%, ring of %s)'
                      % (max(c['dropped_per_round']),
                         max(c['overwritten_per_round']), c['lost_pct_max'],
                         c['ring_records']))
        elif cfg == 'record':
            lost_s = ('%d (kernel dropped %d, reader lost %d)'
                      % (max(c['lost_per_round']),
                         max(c['kernel_dropped_per_round']),
                         max(c['reader_lost_per_round'])))
        elif cfg == 'ftrace':
            lost_s = ('%d events overrun (%.1f%% of events)'
                      % (max(c['lost_per_round']), c['lost_pct_max']))
        elif 'lost_per_round' in c:
            lost_s = '%d (%.2f%%)' % (max(c['lost_per_round']),
                                     c['lost_pct_max'])
        elif cfg in ('none', 'loaded', 'none16'):
            lost_s = '-'
        lines.append('%-48s %8.0f %8.0f..%-7.0f %7s %15s %7s %9s  %s' % (
            c['label'], c['iops_median'], c['iops_min'], c['iops_max'],
            fmt(c['ratio'], '%.4f'),
            ('%.4f..%.4f' % (c['ratio_min'], c['ratio_max']))
            if c['ratio'] is not None else 'n/a',
            fmt(c['extra_instr_per_io'], '%d'),
            fmt(c['bytes_per_request'], '%.1f')
            if cfg not in ('none', 'loaded', 'none16') else '-',
            lost_s))
    t = rep.get('targets', {})
    if t:
        lines.append('targets: ' + ', '.join('%s=%s' % kv_ for kv_ in t.items()))
    s = rep.get('stats_large_file')
    if s:
        lines.append('iotracectl stats on a %d-record file (%d bytes): %.0f '
                     'records per guest second (per 1e9 guest instructions)'
                     % (s['records'], s['file_bytes'], s['records_per_s']))
    return '\n'.join(lines)


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
