#!/usr/bin/env python3
# build.py MIRRORS OUT: rebuilds the real-graph corpus (issue 25) in OUT from
# the fetched mirrors of the public repositories named in SOURCES below
# (MIRRORS/<owner>+<name>/repo, bare git directories; `fetch github:owner/name`
# makes them). Writes OUT/<name>.graph (METIS, unit weights) and OUT/corpus.csv.
#
# Every graph is made simple and undirected the same way, whatever its source
# format: edges are symmetrised, self loops, duplicate edges and weights are
# dropped, and vertices without edges are removed (vertex ids are compacted in
# their original order). Weights are dropped because the sources mix meanings
# (matrix values, travel times, vote counts) that are no communication volume.
#
# Halves: within each family the graphs are ordered by sha1(name) and given
# fit, report, fit, ... in turn, so both halves hold every family and adding a
# graph moves at most the graphs of its own family.
import hashlib, os, subprocess, sys

# name, family, repo, path, format
SOURCES = [
    # FE meshes
    ('fe_body', 'fe', 'Skantz/expander-decomposition', 'graphs/fe_body.graph', 'metis'),
    ('fe_pwt', 'fe', 'Skantz/expander-decomposition', 'graphs/fe_pwt.graph', 'metis'),
    ('t60k', 'fe', 'Skantz/expander-decomposition', 'graphs/t60k.graph', 'metis'),
    ('wing', 'fe', 'Skantz/expander-decomposition', 'graphs/wing.graph', 'metis'),
    ('airfoil1', 'fe', 'networkit/networkit', 'input/airfoil1.graph', 'metis'),
    ('commanche', 'fe', 'Ideas-Laboratory/t-fdp', 'data/commanche.mtx', 'mtx'),
    # structural, acoustic, fluid and reservoir matrices
    ('bcsstk29', 'matrix', 'Skantz/expander-decomposition', 'graphs/bcsstk29.graph', 'metis'),
    ('vibrobox', 'matrix', 'Skantz/expander-decomposition', 'graphs/vibrobox.graph', 'metis'),
    ('bcsstk18', 'matrix', 'HicrestLaboratory/SPARTA', 'data/real_world/bcsstk18_r.el', 'edges'),
    ('bcsstk09', 'matrix', 'Ideas-Laboratory/t-fdp', 'data/bcsstk09.mtx', 'mtx'),
    ('dwt_1005', 'matrix', 'Ideas-Laboratory/t-fdp', 'data/dwt_1005.mtx', 'mtx'),
    ('fidapex6', 'matrix', 'Ideas-Laboratory/t-fdp', 'data/fidapex6.mtx', 'mtx'),
    ('cage8', 'matrix', 'Ideas-Laboratory/t-fdp', 'data/cage8.mtx', 'mtx'),
    ('orsreg_1', 'matrix', 'zhaoli0321/faspsolver', 'data/orsreg_1.mtx', 'mtx'),
    ('watt_1', 'matrix', 'zhaoli0321/faspsolver', 'data/watt__1.mtx', 'mtx'),
    # optimisation and economic models
    ('finan512', 'opt', 'Skantz/expander-decomposition', 'graphs/finan512.graph', 'metis'),
    ('lp_ship04l', 'opt', 'Ideas-Laboratory/t-fdp', 'data/lp_ship04l.mtx', 'mtx'),  # rows+columns, bipartite
    ('25fv47', 'opt', 'ERGO-Code/HiGHS', 'check/instances/25fv47.mps', 'mps'),
    ('80bau3b', 'opt', 'ERGO-Code/HiGHS', 'check/instances/80bau3b.mps', 'mps'),
    ('cplex1', 'opt', 'ERGO-Code/HiGHS', 'check/instances/cplex1.mps', 'mps'),
    ('greenbea', 'opt', 'ERGO-Code/HiGHS', 'check/instances/greenbea.mps', 'mps'),
    ('gesa2', 'opt', 'ERGO-Code/HiGHS', 'check/instances/gesa2.mps', 'mps'),
    ('perold', 'opt', 'ERGO-Code/HiGHS', 'check/instances/perold.mps', 'mps'),
    ('shell', 'opt', 'ERGO-Code/HiGHS', 'check/instances/shell.mps', 'mps'),
    # circuits and power networks
    ('circuit_1', 'circuit', 'double-flower/AMF-CSR', 'circuit_1.mtx', 'mtx'),
    ('1138_bus', 'circuit', 'Ideas-Laboratory/t-fdp', 'data/1138_bus.mtx', 'mtx'),
    ('bcspwr07', 'circuit', 'Ideas-Laboratory/t-fdp', 'data/bcspwr07.mtx', 'mtx'),
    ('qh1484', 'circuit', 'Ideas-Laboratory/t-fdp', 'data/qh1484.mtx', 'mtx'),
    ('power', 'circuit', 'networkit/networkit', 'input/power.graph', 'metis'),
    ('ibm01', 'circuit', 'kahypar/kahypar', 'tests/end_to_end/test_instances/ISPD98_ibm01.hgr', 'hgr'),
    # road networks
    ('luxembourg_osm', 'road', 'Ideas-Laboratory/t-fdp', 'data/luxembourg.mtx', 'mtx'),
    ('rome99', 'road', 'leonardoDian/Progetto-Laboratoio-II', 'rome99.gr', 'dimacs9'),
    ('OL', 'road', 'rsofaer/ind_study_fall_2012', 'data/OL.cedge', 'cedge'),
    ('TG', 'road', 'rsofaer/ind_study_fall_2012', 'data/TG.cedge', 'cedge'),
    ('cal', 'road', 'rsofaer/ind_study_fall_2012', 'data/cal.cedge', 'cedge'),
    # social, collaboration, web and peer-to-peer graphs
    ('PGPgiantcompo', 'social', 'networkit/networkit', 'input/PGPgiantcompo.graph', 'metis'),
    ('astro-ph', 'social', 'networkit/networkit', 'input/astro-ph.graph', 'metis'),
    ('hep-th', 'social', 'networkit/networkit', 'input/hep-th.graph', 'metis'),
    ('polblogs', 'social', 'networkit/networkit', 'input/polblogs.graph', 'metis'),
    ('MIT8', 'social', 'networkit/networkit', 'input/MIT8.edgelist', 'edges'),
    ('wiki-Vote', 'social', 'networkit/networkit', 'input/wiki-Vote.txt', 'edges'),
    ('ca-GrQc', 'social', 'Ideas-Laboratory/t-fdp', 'data/ca-GrQc.mtx', 'mtx'),
    ('EVA', 'social', 'Ideas-Laboratory/t-fdp', 'data/EVA.mtx', 'mtx'),
    ('CA-CondMat', 'social', 'shernaliu/CZ2001-Lab-4A', 'data/CA-CondMat.txt', 'edges'),
    ('CA-HepPh', 'social', 'shernaliu/CZ2001-Lab-4A', 'data/CA-HepPh.txt', 'edges'),
    ('CA-HepTh', 'social', 'shernaliu/CZ2001-Lab-4A', 'data/CA-HepTh.txt', 'edges'),
    ('p2p-Gnutella08', 'social', 'shernaliu/CZ2001-Lab-4A', 'data/p2p-Gnutella08.txt', 'edges'),
    ('bitcoin', 'social', 'shernaliu/CZ2001-Lab-4A', 'data/bitcoin.txt', 'edges'),
    ('social_location', 'social', 'HicrestLaboratory/SPARTA', 'data/real_world/social_location.el', 'edges'),
]


def ints(tok):
    try:
        return int(tok)
    except ValueError:
        return None


def parse(text, fmt):
    """Returns (n or None, list of (u, v)) with 0-based ids."""
    lines = text.splitlines()
    edges = []
    if fmt == 'metis':
        body = [l for l in lines if not l.startswith('%')]
        head = body[0].split()
        n = int(head[0])
        f = head[2] if len(head) > 2 else '0'
        f = f.rjust(3, '0')
        vw, ew = f[1] == '1', f[2] == '1'
        ncon = int(head[3]) if len(head) > 3 else (1 if vw else 0)
        for u in range(n):
            toks = body[1 + u].split() if 1 + u < len(body) else []
            toks = toks[ncon if vw else 0:]
            step = 2 if ew else 1
            for i in range(0, len(toks), step):
                edges.append((u, int(toks[i]) - 1))
        return n, edges
    if fmt == 'mtx':
        # faspsolver's copies lack the %%MatrixMarket banner: the size line
        # is then the first line that is no comment.
        it = iter(lines)
        for l in it:
            if not l.startswith('%'):
                r, c, _ = map(int, l.split()[:3])
                break
        rect = r != c
        for l in it:
            t = l.split()
            if len(t) < 2:
                continue
            i, j = int(t[0]) - 1, int(t[1]) - 1
            # A rectangular matrix (an LP's constraints) becomes its bipartite
            # row-column graph: rows 0..r-1, columns r..r+c-1.
            edges.append((i, r + j) if rect else (i, j))
        return (r + c if rect else r), edges
    if fmt == 'dimacs9':
        n = None
        for l in lines:
            t = l.split()
            if t and t[0] == 'p':
                n = int(t[2])
            elif t and t[0] == 'a':
                edges.append((int(t[1]) - 1, int(t[2]) - 1))
        return n, edges
    if fmt == 'cedge':
        # Li et al.'s road networks: edge id, node, node, length.
        for l in lines:
            t = l.split()
            if len(t) >= 3:
                edges.append((int(t[1]), int(t[2])))
        return None, edges
    if fmt == 'mps':
        # An LP or MIP model becomes the bipartite graph of its constraint
        # matrix: one vertex per constraint row, one per column, an edge per
        # nonzero. Objective rows (type N) are left out: every column is in
        # them, and they are not constraints.
        rows, cols, sec = {}, {}, None
        for l in lines:
            if not l.strip() or l.startswith('*'):
                continue
            if not l[0].isspace():
                sec = l.split()[0]
                continue
            t = l.split()
            if sec == 'ROWS':
                if t[0] != 'N':
                    rows[t[1]] = len(rows)
            elif sec == 'COLUMNS':
                if len(t) > 1 and t[1] == "'MARKER'":
                    continue
                c = cols.setdefault(t[0], len(cols))
                for i in range(1, len(t) - 1, 2):
                    if t[i] in rows:
                        edges.append((rows[t[i]], -1 - c))
        r = len(rows)
        return None, [(a, r - 1 - b) for a, b in edges]
    if fmt == 'hgr':
        # A circuit netlist (hMETIS): nets of at most 10 pins become cliques,
        # larger nets stars around their first pin, as a netlist's graph
        # model keeps the many small nets exact and the few clock or bus
        # nets from flooding the graph.
        head = lines[0].split()
        ne = int(head[0])
        for l in lines[1:1 + ne]:
            pins = [int(x) - 1 for x in l.split()]
            if len(pins) <= 10:
                for i in range(len(pins)):
                    for j in range(i + 1, len(pins)):
                        edges.append((pins[i], pins[j]))
            else:
                edges.extend((pins[0], q) for q in pins[1:])
        return int(head[1]), edges
    if fmt == 'edges':
        for l in lines:
            t = l.split()
            if len(t) < 2:
                continue
            a, b = ints(t[0]), ints(t[1])
            if a is None or b is None:
                continue
            edges.append((a, b))
        return None, edges
    raise ValueError(fmt)


def simple(n, edges):
    """Symmetric, loop-free, duplicate-free adjacency over the vertices that have edges."""
    ids = sorted({x for e in edges for x in e})
    rank = {x: i for i, x in enumerate(ids)}
    adj = [set() for _ in ids]
    for a, b in edges:
        if a == b:
            continue
        a, b = rank[a], rank[b]
        adj[a].add(b)
        adj[b].add(a)
    # Removing isolated vertices can leave none behind only for an empty graph.
    keep = [i for i in range(len(ids)) if adj[i]]
    if len(keep) != len(ids):
        re = {x: i for i, x in enumerate(keep)}
        adj = [{re[y] for y in adj[i]} for i in keep]
    return adj


def write(path, adj):
    m = sum(len(a) for a in adj) // 2
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(f'{len(adj)} {m}\n')
        for a in adj:
            f.write(' '.join(str(v + 1) for v in sorted(a)) + '\n')
    os.replace(tmp, path)
    return len(adj), m


def main():
    mirrors, out = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3:])
    os.makedirs(out, exist_ok=True)
    rows = []
    for name, fam, repo, path, fmt in SOURCES:
        gd = os.path.join(mirrors, repo.replace('/', '+'), 'repo')
        if not os.path.isdir(os.path.join(gd, 'objects')) and os.path.isdir(os.path.join(gd, '.git')):
            gd = os.path.join(gd, '.git')
        commit = subprocess.run(['git', '--git-dir', gd, 'rev-parse', 'HEAD'], capture_output=True, text=True, check=True).stdout.strip()
        gpath = os.path.join(out, name + '.graph')
        if only and name not in only and os.path.exists(gpath):
            with open(gpath) as f:
                n, m = map(int, f.readline().split()[:2])
        else:
            text = subprocess.run(['git', '--git-dir', gd, 'show', f'{commit}:{path}'], capture_output=True, check=True).stdout.decode('latin-1')
            n0, edges = parse(text, fmt)
            n, m = write(gpath, simple(n0, edges))
            print(f'{name}: n={n} m={m}', flush=True)
        rows.append([name, fam, n, m, repo, commit, path])
    half = {}
    for fam in sorted({r[1] for r in rows}):
        names = sorted((r[0] for r in rows if r[1] == fam), key=lambda s: hashlib.sha1(s.encode()).hexdigest())
        for i, s in enumerate(names):
            half[s] = 'fit' if i % 2 == 0 else 'report'
    tmp = os.path.join(out, 'corpus.csv.tmp')
    with open(tmp, 'w') as f:
        f.write('name,family,n,m,repo,commit,path,half\n')
        for r in rows:
            f.write(','.join(map(str, r + [half[r[0]]])) + '\n')
    os.replace(tmp, os.path.join(out, 'corpus.csv'))


if __name__ == '__main__':
    main()
