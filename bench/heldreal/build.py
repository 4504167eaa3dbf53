#!/usr/bin/env python3
# build.py MIRRORS OUT: rebuilds the held-out real-graph set (issue 25) in OUT
# from the fetched mirrors of the public repositories named in SOURCES
# (MIRRORS/<owner>+<name>/repo; `fetch github:owner/name` makes them). Writes
# OUT/<name>.graph (METIS, unit weights) and OUT/corpus.csv, every row
# half=heldout.
#
# The conversion is the corpus's (bench/realcorpus/build.py: symmetrised; self
# loops, duplicates, weights and isolated vertices dropped), imported rather
# than copied so both sets stay made the same way. Added here are the formats
# only this set needs: compressed files (.bz2, .xz, .gz), the PACE 2016 road
# graphs, adjacency lists "v: u u ...", edge lists headed by "n m", square
# matrices stored as hypergraphs (one net per row), Scotch source graphs
# (.grf), and meshes (Wavefront .obj surfaces, Medit .mesh tetrahedra) taken
# as their node graph: two nodes are adjacent when an element joins them.
#
# A held-out set is only held out if it shares no graph with what the mapper
# was tuned on: main() refuses a graph named in the corpus's SOURCES or whose
# (n, m) equals a graph of ../shared/graphs or of the corpus.
import bz2, glob, gzip, lzma, os, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'realcorpus'))
import build as rc  # noqa: E402

# name, family, repo, path, format. None of these graphs is in /work/corpus
# (bench/realcorpus/build.py's SOURCES) or in ../shared/graphs, checked by
# name and by (n, m).
SOURCES = [
    # structural matrices (bundle adjustment: dense camera/point blocks)
    ('bundle1', 'matrix', 'kahypar/kahypar', 'tests/end_to_end/test_instances/bundle1.mtx.hgr', 'hgrmatrix'),
    ('shuttle_eddy', 'matrix', 'ibara1454/pyss', 'matrix/shuttle_eddy.mtx', 'mtx'),
    ('bcsstk16', 'matrix', 'paralab/Saena', 'data/FloridaCollection/bcsstk16.mtx', 'mtx'),
    # finite-element meshes of real geometry: an adaptive 2D mesh (AG-Monien),
    # a 3D tetrahedral mesh and triangulated surfaces of scanned objects
    # (Scotch's grf/bump.grf.gz was tried: it is Walshaw's whitaker3, in
    # ../shared/graphs)
    ('shock-9', 'fe', 'kwilli29/coarsen_comparison', 'suitesparse/shock-9.mtx', 'mtx'),
    ('hand', 'fe', 'libigl/libigl-tutorial-data', 'hand.mesh', 'medit'),
    ('stanford-bunny', 'fe', 'alecjacobson/common-3d-test-models', 'data/stanford-bunny.obj', 'obj'),
    ('nefertiti', 'fe', 'alecjacobson/common-3d-test-models', 'data/nefertiti.obj', 'obj'),
    # optimisation models: LP constraint matrices as bipartite row-column graphs
    ('pds-06', 'opt', 'lpoo/PCx', 'mps/kennington-pds-06.mps.bz2', 'mps'),
    ('ken-11', 'opt', 'lpoo/PCx', 'mps/kennington-ken-11.mps.bz2', 'mps'),
    ('ken-13', 'opt', 'lpoo/PCx', 'mps/kennington-ken-13.mps.bz2', 'mps'),
    ('osa-07', 'opt', 'lpoo/PCx', 'mps/kennington-osa-07.mps.bz2', 'mps'),
    ('cre-b', 'opt', 'lpoo/PCx', 'mps/kennington-cre-b.mps.bz2', 'mps'),
    ('dfl001', 'opt', 'lpoo/PCx', 'mps/netlib-dfl001.mps.bz2', 'mps'),
    ('world', 'opt', 'lpoo/PCx', 'mps/meszaros-world.mps.bz2', 'mps'),
    # circuit and power-system simulation
    ('powersim', 'circuit', 'kahypar/mt-kahypar', 'tests/instances/powersim.mtx.hgr', 'hgrmatrix'),
    # road networks (DIMACS9 TIGER/Line graphs)
    ('NY', 'road', 'ben-strasser/road-graphs-pace16', 'NY.gr.xz', 'pace'),
    ('BAY', 'road', 'ben-strasser/road-graphs-pace16', 'BAY.gr.xz', 'pace'),
    # social, communication and internet graphs
    ('email-Enron', 'social', 'denduuyum/collective-attacker', 'data/email-Enron.txt', 'adjcolon'),
    ('as-22july06', 'social', 'denduuyum/collective-attacker', 'data/internet.txt', 'adjcolon'),
    ('facebook', 'social', 'kappybar/DensestSubgraphDiscovery', 'data/facebook_combined.txt', 'edgeshead'),
]


def parse(text, fmt):
    if fmt == 'pace':
        # PACE 2016: "p tw n m", then one "u v" line per edge (1-based).
        edges = []
        for l in text.splitlines():
            t = l.split()
            if len(t) == 2 and t[0] != 'c':
                edges.append((int(t[0]) - 1, int(t[1]) - 1))
        return None, edges
    if fmt == 'adjcolon':
        # First line n, then "v: u u ..." (0-based).
        edges = []
        for l in text.splitlines()[1:]:
            if ':' not in l:
                continue
            v, rest = l.split(':', 1)
            v = int(v)
            edges.extend((v, int(u)) for u in rest.split())
        return None, edges
    if fmt == 'edgeshead':
        # An edge list whose first line is "n m", not an edge.
        return rc.parse(text.split('\n', 1)[1], 'edges')
    if fmt == 'hgrmatrix':
        # A square sparse matrix written as a hypergraph: net i holds the
        # columns of row i's nonzeros. The graph is the matrix's own (edge
        # i-j per nonzero), not the netlist model of rc.parse's 'hgr'.
        lines = text.splitlines()
        nets, n = map(int, lines[0].split()[:2])
        edges = []
        for i, l in enumerate(lines[1:1 + nets]):
            edges.extend((i, int(p) - 1) for p in l.split())
        return n, edges
    if fmt == 'grf':
        # Scotch: version, "n arcs", "base flags", then per vertex [label]
        # [load] degree and its neighbours, each [weight] end; flags are
        # three digits: labels, edge weights, vertex loads.
        t = text.split()
        n, base, flags = int(t[1]), int(t[3]), t[4].rjust(3, '0')
        lab, ew, vw = flags[0] == '1', flags[1] == '1', flags[2] == '1'
        i, edges = 5, []
        for v in range(n):
            u = int(t[i]) - base if lab else v
            i += lab + vw
            d = int(t[i])
            i += 1
            for _ in range(d):
                i += ew
                edges.append((u, int(t[i]) - base))
                i += 1
        return n, edges
    if fmt == 'obj':
        # Faces "f a b c ..." (1-based, "a/t/n" forms allowed): the graph is
        # the mesh's edges, each polygon's consecutive corners.
        edges = []
        for l in text.splitlines():
            if l.startswith('f '):
                c = [int(x.split('/')[0]) - 1 for x in l.split()[1:]]
                edges.extend((c[k], c[(k + 1) % len(c)]) for k in range(len(c)))
        return None, edges
    if fmt == 'medit':
        # Medit: a "Tetrahedra" section of "a b c d ref" lines (1-based);
        # every pair of a tetrahedron's corners is an edge of the mesh.
        lines = text.splitlines()
        k = next(i for i, l in enumerate(lines) if l.strip() == 'Tetrahedra')
        edges = []
        for l in lines[k + 2:k + 2 + int(lines[k + 1])]:
            c = [int(x) - 1 for x in l.split()[:4]]
            edges.extend((c[a], c[b]) for a in range(4) for b in range(a + 1, 4))
        return None, edges
    return rc.parse(text, fmt)


def seen_sizes():
    """(n, m) -> name of every graph the mapper was tuned or reported on."""
    here = os.path.dirname(os.path.abspath(__file__))
    sizes = {}
    for pat in (os.path.join(here, '..', '..', '..', 'shared', 'graphs', '*.graph'),
                os.path.join(here, '..', 'realcorpus', 'corpus.csv')):
        for path in glob.glob(pat):
            with open(path) as f:
                if path.endswith('.csv'):
                    next(f)
                    for l in f:
                        t = l.split(',')
                        sizes[(int(t[2]), int(t[3]))] = t[0]
                else:
                    h = f.readline().split()
                    sizes[(int(h[0]), int(h[1]))] = os.path.basename(path)
    return sizes


def main():
    mirrors, out = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3:])
    os.makedirs(out, exist_ok=True)
    tuned = {s[0] for s in rc.SOURCES}
    sizes = seen_sizes()
    rows = []
    for name, fam, repo, path, fmt in SOURCES:
        gd = os.path.join(mirrors, repo.replace('/', '+'), 'repo')
        if not os.path.isdir(os.path.join(gd, 'objects')) and os.path.isdir(os.path.join(gd, '.git')):
            gd = os.path.join(gd, '.git')
        commit = subprocess.run(['git', '--git-dir', gd, 'rev-parse', 'HEAD'], capture_output=True, text=True, check=True).stdout.strip()
        gpath = os.path.join(out, name + '.graph')
        if (only and name not in only) and os.path.exists(gpath):
            with open(gpath) as f:
                n, m = map(int, f.readline().split()[:2])
        else:
            raw = subprocess.run(['git', '--git-dir', gd, 'show', f'{commit}:{path}'], capture_output=True, check=True).stdout
            if path.endswith('.bz2'):
                raw = bz2.decompress(raw)
            elif path.endswith('.xz'):
                raw = lzma.decompress(raw)
            elif path.endswith('.gz'):
                raw = gzip.decompress(raw)
            n0, edges = parse(raw.decode('latin-1'), fmt)
            n, m = rc.write(gpath, rc.simple(n0, edges))
            print(f'{name}: n={n} m={m}', flush=True)
        if name in tuned or (n, m) in sizes:
            sys.exit(f'{name}: n={n} m={m} is not held out (as {sizes.get((n, m), name)})')
        rows.append([name, fam, n, m, repo, commit, path, 'heldout'])
    tmp = os.path.join(out, 'corpus.csv.tmp')
    with open(tmp, 'w') as f:
        f.write('name,family,n,m,repo,commit,path,half\n')
        for r in rows:
            f.write(','.join(map(str, r)) + '\n')
    os.replace(tmp, os.path.join(out, 'corpus.csv'))


if __name__ == '__main__':
    main()
