#!/usr/bin/env python3
# table.py CORPUS_CSV RUNS...: the table of results-distreal2-2core.txt from
# measure.sh's lines (graph run seed J feasible wall user sys): per graph and
# seed, gpumap-mpi's J at P=2 and 4 over `gpumap map -t 2`'s at the same
# seed (issue 24's bound: 1.08), its wall and CPU at P=2 over map -t 2's
# (wall bound: 1.25), and its J at P=2 over dgpart's at P=2 (bound: 0.8);
# then the geometric means of each half (fit, report) and of all graphs,
# and the graphs past each bound. A run that appears more than once (a
# rerun) counts by its median wall and CPU; gpumap's J is the same every
# run (checked: a differing J is an error). dgpart draws a seed of its own
# each run: its J is the lower median of its runs (as bench/dist.go's
# summary), feasible only if every run was, and P2/dg min is over its
# lowest J.
import csv, math, statistics, sys
from collections import defaultdict


def gm(xs):
    xs = [x for x in xs if x is not None]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def main():
    corpus = {r['name']: r for r in csv.DictReader(open(sys.argv[1]))}
    runs = defaultdict(list)  # (graph, run, seed) -> [(J, feas, wall, cpu)]
    for path in sys.argv[2:]:
        for line in open(path):
            t = line.split()
            if len(t) != 8 or line.startswith('#'):
                continue
            g, run, seed, j, feas, wall, user, sys_ = t
            runs[(g, run, seed)].append((int(j), feas == 'yes', float(wall), float(user) + float(sys_)))

    def get(g, run, seed):
        rs = runs.get((g, run, seed))
        if not rs:
            return None
        js = sorted(r[0] for r in rs)
        if run.startswith('dgpart'):
            j = js[(len(js) - 1) // 2]
        elif js[0] != js[-1]:
            raise SystemExit(f'{g} {run} seed {seed}: J differs between runs: {js}')
        else:
            j = js[0]
        return j, all(r[1] for r in rs), statistics.median(r[2] for r in rs), statistics.median(r[3] for r in rs), js[0], len(rs)

    def wrange(g, seed):
        # measure.sh runs map -t 2 and then P=2 back to back: pair them by
        # sitting (their order in the files) and give the ratios' range.
        a, b = runs.get((g, 'map-t2', seed), []), runs.get((g, 'mpi-P2', seed), [])
        rs = [y[2] / x[2] for x, y in zip(a, b)]
        return f"{min(rs):.2f}-{max(rs):.2f}" if rs else '-'

    rows = []
    # The fit half first, then the report half; by family and size within.
    for g, c in sorted(corpus.items(), key=lambda kv: (kv[1]['half'] != 'fit', kv[1]['family'], int(kv[1]['n']))):
        dg = get(g, 'dgpart-P2', '-')
        for seed in ('1', '2'):
            t2, p2, p4 = get(g, 'map-t2', seed), get(g, 'mpi-P2', seed), get(g, 'mpi-P4', seed)
            if not (t2 and p2 and p4):
                continue
            rows.append(dict(g=g, fam=c['family'], half=c['half'], n=int(c['n']), m=int(c['m']), seed=seed,
                             t2=t2, p2=p2, p4=p4, dg=dg,
                             j2=p2[0] / t2[0], j4=p4[0] / t2[0], w2=p2[2] / t2[2], c2=p2[3] / t2[3],
                             jdg=p2[0] / dg[0] if dg else None, jdgmin=p2[0] / dg[4] if dg else None, wr=wrange(g, seed)))
    print(f"{'graph':8} {'family':7} {'half':6} {'n':>8} {'m':>8} {'s':>1} {'J t2':>10} {'J P2/t2':>7} {'J P4/t2':>7} {'feas':>5} "
          f"{'wall t2':>7} {'wall P2':>7} {'wall P4':>7} {'W P2/t2':>7} {'range':>9} {'C P2/t2':>7} {'J dgpart':>10} {'dg feas':>7} {'dg wall':>7} {'P2/dg':>6} {'P2/dgmin':>8} {'dg n':>4}")
    for i, r in enumerate(rows):
        if i == 0 or rows[i - 1]['half'] != r['half']:
            print(f"# {r['half']} half")
        feas = ''.join('y' if x[1] else 'N' for x in (r['t2'], r['p2'], r['p4']))
        dg = r['dg'] or (0, False, 0, 0, 0, 0)
        print(f"{r['g']:8} {r['fam']:7} {r['half']:6} {r['n']:8d} {r['m']:8d} {r['seed']:>1} {r['t2'][0]:10d} {r['j2']:7.3f} {r['j4']:7.3f} {feas:>5} "
              f"{r['t2'][2]:7.2f} {r['p2'][2]:7.2f} {r['p4'][2]:7.2f} {r['w2']:7.3f} {r['wr']:>9} {r['c2']:7.3f} {dg[0]:10d} {'yes' if dg[1] else 'no':>7} {dg[2]:7.2f} "
              + (f"{r['jdg']:6.3f} {r['jdgmin']:8.3f} {dg[5]:4d}" if r['jdg'] else '     -'))
    print()
    print('# geometric means over graphs and seeds; the last five columns count the runs past each bound')
    print(f"{'set':14} {'runs':>4} {'J P2/t2':>7} {'J P4/t2':>7} {'W P2/t2':>7} {'C P2/t2':>7} {'P2/dg':>6}  {'J P2>1.08':>9} {'J P4>1.08':>9} {'W P2>1.25':>9} {'P2/dg>0.8':>9} {'P2 wall>dg':>10}")
    sets = [('fit', [r for r in rows if r['half'] == 'fit']), ('report', [r for r in rows if r['half'] == 'report']), ('all', rows)]
    for fam in sorted({r['fam'] for r in rows}):
        sets.append(('  ' + fam, [r for r in rows if r['fam'] == fam]))
    for name, rs in sets:
        if not rs:
            continue
        cnt = lambda f: f"{sum(1 for r in rs if f(r))}/{len(rs)}"
        print(f"{name:14} {len(rs):4d} {gm(r['j2'] for r in rs):7.3f} {gm(r['j4'] for r in rs):7.3f} {gm(r['w2'] for r in rs):7.3f} {gm(r['c2'] for r in rs):7.3f} "
              + (f"{gm(r['jdg'] for r in rs):6.3f}" if any(r['jdg'] for r in rs) else '     -')
              + f"  {cnt(lambda r: r['j2'] > 1.08):>9} {cnt(lambda r: r['j4'] > 1.08):>9} {cnt(lambda r: r['w2'] > 1.25):>9} {cnt(lambda r: r['jdg'] and r['jdg'] > 0.8):>9} {cnt(lambda r: r['dg'] and r['p2'][2] >= r['dg'][2]):>10}")


if __name__ == '__main__':
    main()
