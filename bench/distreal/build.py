#!/usr/bin/env python3
# build.py MIRRORS OUT: builds the real graphs of the distributed table
# (issue 24, go run ./bench -dist ... -dist-real OUT/FLA.graph) in OUT from
# the fetched mirrors (MIRRORS/<owner>+<name>/repo, bare git directories;
# `fetch github:owner/name` makes them). They are made simple exactly as the
# real-graph corpus's are (bench/realcorpus/build.py: symmetrised, self loops,
# duplicates and isolated vertices dropped, unit weights) and written as METIS.
import lzma, os, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'realcorpus'))
from build import parse, simple, write  # noqa: E402

# name, repo, path: PACE 2016 conversions of the 9th DIMACS challenge's road
# graphs (TIGER/Line, public domain; FLA.gr.xz at commit d65496ca1e6a), xz-compressed "p tw n m" then "u v"
# lines, which the corpus's edge-list format reads (the p line is skipped).
SOURCES = [
    ('FLA', 'ben-strasser/road-graphs-pace16', 'FLA.gr.xz'),
]


def main():
    mirrors, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for name, repo, path in SOURCES:
        gd = os.path.join(mirrors, repo.replace('/', '+'), 'repo')
        commit = subprocess.run(['git', '--git-dir', gd, 'rev-parse', 'HEAD'], capture_output=True, text=True, check=True).stdout.strip()
        data = subprocess.run(['git', '--git-dir', gd, 'show', f'{commit}:{path}'], capture_output=True, check=True).stdout
        n0, edges = parse(lzma.decompress(data).decode('latin-1'), 'edges')
        n, m = write(os.path.join(out, name + '.graph'), simple(n0, edges))
        print(f'{name}: n={n} m={m} from {repo}@{commit}:{path}', flush=True)


if __name__ == '__main__':
    main()
