#!/usr/bin/env python3
# peers.py DIR: runs the peer mappers on the corpus DIR/*.graph (listed in
# DIR/corpus.csv, smallest first) and appends to DIR/peers.csv, one row per
# (graph, H, tool) as it finishes, in the format of bench/heldout/peers.csv.
# Rows already in peers.csv are skipped, so a stopped run resumes.
#
#   HS='4:8:2 4:8:6' TOOLS=scotch,scotch_b,kaffpa_eco,gms_eco,sharedmap_eco peers.py /work/corpus
#   HS=4:8:6 HALF=report TOOLS=sharedmap_strong,gms_strong peers.py /work/corpus
# A run that fails (a caller's `ulimit -t` cap kills it with SIGXCPU) is
# appended to DIR/peers-failed.txt and skipped by later sittings (RETRY=1
# tries it again). GRAPHS=a,b limits a sitting to those graphs.
#
# Tools (one thread each; D and eps from the environment, default 1:10:100 and 3%):
#   scotch, scotch_b  scotch_gmap -Cd, default strategy / -cb, on the tleaf
#                     target of H (distances cumulative, see ../shared/graphs/README.md)
#   kaffpa_eco        kaffpa --preconfiguration=eco --enable_mapping
#   gms_eco, gms_strong     global_multisection --preconfiguration=eco|strong
#   sharedmap_eco, sharedmap_strong  SharedMap -c eco|strong -t 1 -s naive
# J, max block and feasibility come from `gpumap eval` (each undirected edge
# once). cpu_s is user+sys of the tool's process: measured on a loaded
# shared machine, it is not comparable across rows; J is exact.
import csv, os, resource, subprocess, sys

d = sys.argv[1]
HS = os.environ.get('HS', '4:8:2 4:8:6').split()
D = os.environ.get('D', '1:10:100')
EPS = float(os.environ.get('EPS', '0.03'))
TOOLS = os.environ.get('TOOLS', 'scotch,scotch_b,kaffpa_eco,gms_eco,sharedmap_eco').split(',')
HALF = os.environ.get('HALF', '')
TIMEOUT = int(os.environ.get('TIMEOUT', '900'))
B = os.environ.get('GPUMAP', 'bin/gpumap')
K = os.environ.get('KAHIP', '/work/peers/KaHIP/build/')
S = os.environ.get('SHAREDMAP', '/work/peers/SharedMap/build/SharedMap')
work = os.environ.get('WORK', '/tmp/realcorpus-peers')
os.makedirs(work, exist_ok=True)

out_path = os.path.join(d, os.environ.get('OUTF', 'peers.csv'))
done = set()
if os.path.exists(out_path):
    with open(out_path) as f:
        for r in csv.DictReader(f):
            done.add((r['graph'], r['H'], r['tool']))
# A run that failed (most often killed at the caller's CPU cap) is listed in
# peers-failed.txt so the table can say why a peer is missing; it is not tried
# again unless RETRY=1, or a resumed sitting would spend its cap once more.
failed_path = os.path.join(d, 'peers-failed.txt')
if os.path.exists(failed_path) and not os.environ.get('RETRY'):
    with open(failed_path) as f:
        for r in csv.DictReader(f):
            done.add((r['graph'], r['H'], r['tool']))


def record_failure(g, H, tool, why):
    new = not os.path.exists(failed_path)
    with open(failed_path, 'a') as f:
        if new:
            f.write('graph,H,tool,why\n')
        f.write(f'{g},{H},{tool},{why}\n')


new = not os.path.exists(out_path)
out = open(out_path, 'a')
if new:
    out.write('graph,n,m,k,H,tool,cpu_s,J,maxblock,feasible_ceil\n')
    out.flush()

corpus = list(csv.DictReader(open(os.path.join(d, 'corpus.csv'))))
# REVERSE=1: largest first, for a second process meeting the first halfway.
corpus.sort(key=lambda r: int(r['m']), reverse=bool(os.environ.get('REVERSE')))
if HALF:
    corpus = [r for r in corpus if r['half'] == HALF]
# GRAPHS=a,b: only these graphs (a graph just added to the set goes first).
if os.environ.get('GRAPHS'):
    corpus = [r for r in corpus if r['name'] in os.environ['GRAPHS'].split(',')]


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def tleaf(H):
    # Scotch lists levels top-down with the distance each level adds.
    a = [int(x) for x in H.split(':')]
    dist = [int(x) for x in D.split(':')]
    parts = []
    for i in range(len(a) - 1, -1, -1):
        if a[i] == 1:
            continue
        parts += [a[i], dist[i] - (dist[i - 1] if i > 0 else 0)]
    return 'tleaf %d %s' % (len(parts) // 2, ' '.join(map(str, parts)))


def scotch_map(raw, mp, n):
    # scotch_gmap writes "label part" lines; gcv's labels start at 0 or 1.
    with open(raw) as f:
        f.readline()
        lp = [l.split() for l in f if len(l.split()) == 2]
    base = min(int(v) for v, _ in lp)
    pe = [None] * n
    for v, p in lp:
        pe[int(v) - base] = p
    with open(mp, 'w') as f:
        f.write('\n'.join(pe) + '\n')


for r in corpus:
    g, n, m = r['name'], int(r['n']), int(r['m'])
    path = os.path.join(d, g + '.graph')
    grf = os.path.join(work, g + '.grf')
    for H in HS:
        k = 1
        for a in H.split(':'):
            k *= int(a)
        mp = os.path.join(work, 'peer.map')
        for tool in TOOLS:
            if (g, H, tool) in done:
                continue
            if os.environ.get('REVERSE'):
                # The other process may have measured it since this one started.
                with open(out_path) as f:
                    if any(l.startswith(f'{g},') and f',{H},{tool},' in l for l in f):
                        continue
            if tool.startswith('scotch') and not os.path.exists(grf):
                subprocess.run(['gcv', '-ic', path, grf], check=True, capture_output=True)
            tgt = os.path.join(work, 'target.tgt')
            raw = os.path.join(work, 'scotch.map')
            pc = os.environ.get('KAHIP_PRECONF', '')
            cmds = {
                'scotch': ['scotch_gmap', f'-b{EPS:g}', '-Cd', grf, tgt, raw],
                'scotch_b': ['scotch_gmap', f'-b{EPS:g}', '-cb', '-Cd', grf, tgt, raw],
                'kaffpa_eco': [K + 'kaffpa', path, f'--k={k}', '--preconfiguration=eco', '--enable_mapping', f'--hierarchy_parameter_string={H}', f'--distance_parameter_string={D}', f'--imbalance={EPS * 100:g}', f'--output_filename={mp}'],
                'gms_eco': [K + 'global_multisection', path, '--preconfiguration=eco', f'--hierarchy_parameter_string={H}', f'--distance_parameter_string={D}', f'--imbalance={EPS * 100:g}', f'--output_filename={mp}'],
                'gms_strong': [K + 'global_multisection', path, '--preconfiguration=strong', f'--hierarchy_parameter_string={H}', f'--distance_parameter_string={D}', f'--imbalance={EPS * 100:g}', f'--output_filename={mp}'],
                'sharedmap_eco': [S, '-g', path, '-m', mp, '-h', H, '-d', D, '-e', f'{EPS:g}', '-c', 'eco', '-t', '1', '-s', 'naive'],
                'sharedmap_strong': [S, '-g', path, '-m', mp, '-h', H, '-d', D, '-e', f'{EPS:g}', '-c', 'strong', '-t', '1', '-s', 'naive'],
            }
            c = cmds[tool]
            if tool.startswith('scotch'):
                with open(tgt, 'w') as f:
                    f.write(tleaf(H) + '\n')
            for x in (mp, raw):
                if os.path.exists(x):
                    os.remove(x)
            c0 = cpu()
            try:
                res = subprocess.run(c, capture_output=True, text=True, timeout=TIMEOUT)
                ok, rc = res.returncode == 0, res.returncode
                err = res.stderr[-300:]
            except subprocess.TimeoutExpired:
                ok, rc, err = False, None, f'timed out after {TIMEOUT} s wall'
            t = cpu() - c0
            if ok and tool.startswith('scotch') and os.path.exists(raw):
                scotch_map(raw, mp, n)
            if not ok or not os.path.exists(mp):
                print(g, H, tool, 'FAILED', err, flush=True)
                if rc is not None and rc < 0:
                    # SIGXCPU (24) or, where the soft and hard limits are one,
                    # SIGKILL (9): the caller's `ulimit -t` cap.
                    why = f'killed by signal {-rc} after {t:.0f} s CPU (the ulimit -t cap)'
                else:
                    why = f'failed after {t:.0f} s CPU: ' + ' '.join(err.split())[-120:].replace(',', ';')
                record_failure(g, H, tool, why)
                continue
            ev = subprocess.run([B, 'eval', '-g', path, '-h', H, '-d', D, '-e', f'{EPS:g}', '-m', mp], capture_output=True, text=True)
            kv = {}
            for tok in ev.stdout.split():
                if '=' in tok:
                    a, b = tok.split('=', 1)
                    kv[a] = b
            if 'J' not in kv:
                print(g, H, tool, 'EVAL FAILED', ev.stderr[-300:], flush=True)
                continue
            row = f"{g},{n},{m},{k},{H},{tool},{t:.2f},{kv['J']},{kv.get('max_block')},{kv.get('feasible')}"
            out.write(row + '\n')
            out.flush()
            print(row, flush=True)
