#!/usr/bin/env python3
"""The estimate-vs-measured table of docs/estimates.md ("The standard library's estimates")
from the runs run_all.sh leaves in OUT/runs/*/. Usage: make_table.py OUT"""
import json
import math
import os
import sys

T = sys.argv[1]
MiB = 1 << 20

# (run id stem, algorithm, what the script is)
ROWS = [
    ('random_edges', 'random.edges', 'bench/estimates/scripts/random_edges.flow'),
    ('degrees.ex', 'random.edges + graph.symmetric + graph.dedup + graph.degrees (+ stats.frequencies)', 'examples/degrees.flow'),
    ('uniform', 'random.uniform', 'bench/estimates/scripts/uniform.flow'),
    ('permutation', 'random.permutation', 'bench/estimates/scripts/permutation.flow'),
    ('symmetric', 'graph.symmetric', 'bench/estimates/scripts/symmetric.flow'),
    ('dedup', 'graph.dedup', 'bench/estimates/scripts/dedup.flow'),
    ('degrees', 'graph.degrees (unsorted input)', 'bench/estimates/scripts/degrees.flow'),
    ('relabel', 'graph.relabel', 'bench/estimates/scripts/relabel.flow'),
    ('mis', 'graph.mis', 'bench/estimates/scripts/mis.flow'),
    ('mis_handwritten.ex', '(hand-written MIS, same algorithm as graph.mis)', 'examples/mis.flow'),
    ('colouring', 'graph.colouring', 'bench/estimates/scripts/colouring.flow'),
    ('coloring_handwritten.ex', '(hand-written colouring, same algorithm as graph.colouring)', 'examples/coloring.flow'),
    ('triangles', 'graph.triangles', 'bench/estimates/scripts/triangles.flow'),
    ('components.ex', 'graph.components', 'examples/components.flow'),
    ('components_external.ex', 'graph.components_external', 'examples/components.flow'),
    ('components_external', 'graph.components_external', 'bench/estimates/scripts/components_external.flow'),
    ('bfs.ex', 'graph.bfs', 'examples/bfs.flow'),
    ('spanning_forest.ex', 'graph.spanning_forest', 'examples/spanning_forest.flow'),
    ('list_rank', 'list.list_rank', 'bench/estimates/scripts/list_rank.flow'),
    ('smallest_k', 'stats.smallest_k', 'bench/estimates/scripts/smallest_k.flow'),
    ('largest_k', 'stats.largest_k', 'bench/estimates/scripts/largest_k.flow'),
    ('largest_k_by', 'stats.largest_k_by', 'bench/estimates/scripts/largest_k_by.flow'),
    ('top_k.ex', 'random.uniform + stats.largest_k + stats.frequencies + stats.largest_k_by', 'examples/top_k.flow'),
    ('frequencies', 'stats.frequencies', 'bench/estimates/scripts/frequencies.flow'),
    ('histogram', 'stats.histogram', 'bench/estimates/scripts/histogram.flow'),
    ('histogram_in_memory', 'stats.histogram_in_memory', 'bench/estimates/scripts/histogram_in_memory.flow'),
    ('sa_doubling', 'text.suffix_array_doubling', 'bench/estimates/scripts/sa_doubling.flow'),
    ('sa_dc3', 'text.suffix_array_dc3', 'bench/estimates/scripts/sa_dc3.flow'),
    ('suffix_array.ex', 'text.suffix_array_dc3 + text.check_suffix_array', 'examples/suffix_array.flow (text.txt: random a..d, scripts/gen_text.flow)'),
]


def mib(b):
    x = b / MiB
    if x == 0:
        return '0'
    d = 3 - int(math.floor(math.log10(abs(x)))) - 1
    r = round(x, d)
    return f'{r:.{max(d, 0)}f}'


def ratio(e, m):
    if e is None or m is None:
        return 'n/a'
    if m == 0:
        return 'n/a (measured 0)' if e else '0 / 0'
    p = (e / m - 1) * 100
    s = f'{abs(p):.1f}' if abs(p) < 10 else f'{abs(p):.0f}'
    if s in ('0.0',):
        return '±0%'
    return ('+' if p > 0 else '\u2212') + s + '%'


def load(path):
    try:
        with open(path) as f:
            txt = f.read()
        return json.loads(txt) if txt.strip() else None
    except Exception:
        return None


def first_error(path):
    try:
        lines = [l.rstrip() for l in open(path) if l.strip() and not l.startswith('rc=')]
    except Exception:
        return 'no output'
    errs = [l for l in lines if 'error' in l.lower()]
    return (errs or lines or ['no output'])[0]


def row(rid):
    d = os.path.join(T, 'runs', rid)
    if not os.path.isdir(d):
        return None
    r = {'id': rid}
    script, sets = open(os.path.join(d, 'meta.txt')).read().strip().split('|')
    r['sets'] = sets
    st = load(os.path.join(d, 'static.json'))
    if st:
        r['static'] = st['total']['read_bytes'] + st['total']['write_bytes']
        r['static_ub'] = bool(st['total'].get('upper_bound'))
    else:
        r['static'] = None
        r['static_err'] = first_error(os.path.join(d, 'static.err'))
    ca = load(os.path.join(d, 'calib.json'))
    if ca:
        r['calib'] = ca['total']['read_bytes'] + ca['total']['write_bytes']
        r['calib_ub'] = bool(ca['total'].get('upper_bound'))
        r['calib_by'] = ', '.join(ca.get('calibration', {}).get('scaled', [])) or 'not scaled'
    else:
        r['calib'] = None
        r['calib_err'] = first_error(os.path.join(d, 'calib.err'))
    ms = load(os.path.join(d, 'stats.json'))
    if ms and ms.get('status') == 'ok':
        r['meas'] = ms['read_bytes'] + ms['write_bytes']
        e = ms.get('estimate') or {}
        r['prog_est'] = (e.get('read_bytes', 0) + e.get('write_bytes', 0)) if e else None
    else:
        r['meas'] = None
        r['meas_err'] = (ms or {}).get('error') or first_error(os.path.join(d, 'stderr.txt'))
    try:
        r['wall'] = open(os.path.join(d, 'wall.txt')).read().strip()
    except Exception:
        r['wall'] = '?'
    return r


def cell(v, ub, err):
    if v is None:
        return f'error: `{err}`'
    return ('≤ ' if ub else '') + mib(v)


out = []
out.append('Bytes read + written in MiB (2^20 bytes), 3 significant figures. static: `flowc explain` total; '
           'calibrated: `flowc explain --calibrate` total; measured: the program\'s `--stats=json` '
           '`read_bytes + write_bytes` (every disk: temporary disk, files written, standard output). '
           '"≤" marks a total explain labels an upper bound (`"upper_bound": true` on `total`). '
           'Ratios are estimate / measured − 1. Sizes: d = the default, 4x = four times its size param.')
out.append('')
out.append('| algorithm | script and params | static | calibrated | measured | static/measured | calibrated/measured |')
out.append('|---|---|---|---|---|---|---|')
allrows = []
for stem, alg, script in ROWS:
    for sz in ('d', 'q', 't'):
        r = row(f'{stem}.{sz}')
        if r is None:
            continue
        r['alg'] = alg
        r['script'] = script
        allrows.append(r)
        params = r['sets'].replace(' ', ', ')
        out.append(f"| {alg} | `{script}` {params}{' (4x)' if sz == 'q' else ' (3.5x: 4x does not fit)' if sz == 't' else ''} | "
                   f"{cell(r['static'], r.get('static_ub'), r.get('static_err'))} | "
                   f"{cell(r['calib'], r.get('calib_ub'), r.get('calib_err'))} | "
                   f"{cell(r['meas'], False, r.get('meas_err'))} | "
                   f"{ratio(r['static'], r['meas'])} | {ratio(r['calib'], r['meas'])} |")
out.append('')
print('\n'.join(out))
