#!/usr/bin/env bash
# The main job: reorder a real MPI program on the two-node test cluster.
#
# A halo-exchange program (tests/testdata/stencil.c; 16 ranks as a 4x4 and
# as a 2x2x4 grid, 1 MiB halos) is started with a deliberately bad
# placement (mpirun --map-by node deals neighbours to alternate nodes) on
# two namespace "nodes" whose link is limited to 400 Mbit/s. It measures
# the exchange, calls gpumap_reorder, measures again, and does the same
# with OpenMPI's treematch (MPI_Dist_graph_create, reorder=1, weights).
# Sockets are faked with an hwloc XML topology (two per node).
# GPUMAP_REPORT makes rank 0 draw the traffic between the nodes before and
# after each reordering: tests/out/demo/stencil-NXxNYxNZ.svg.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
[[ $(id -u) == 0 ]] || { echo "demo: needs root (network namespaces)"; exit 1; }
[[ -x build/tests/stencil ]] || { echo "demo: build/tests/stencil missing: run make demo"; exit 1; }
C=tests/cluster/cluster.sh
$C up 2 --rate 400mbit >/dev/null
trap '$C down >/dev/null' EXIT
SVG=$ROOT/tests/out/demo
mkdir -p "$SVG"
echo "gpumap demo: 2 nodes x 8 ranks, 400 Mbit/s between nodes, 1 MiB halos, --map-by node"
for grid in "4 4 1" "2 2 4"; do
  echo
  echo "== stencil ${grid// /x}"
  $C exec node0 mpirun.openmpi --allow-run-as-root --oversubscribe -np 16 -H node0:8,node1:8 \
    --map-by node --bind-to core:overload-allowed \
    --mca mpi_yield_when_idle 1 --mca pml ob1 --mca btl self,vader,tcp \
    --mca btl_tcp_if_include gc0 --mca oob_tcp_if_include gc0 \
    --mca plm_rsh_agent "$ROOT/tests/cluster/rsh" --mca topo treematch \
    -x HWLOC_XMLFILE="$ROOT/hwdetect/testdata/two-sockets.xml" -x HWLOC_THISSYSTEM=1 \
    -x GPUMAP_REPORT="$SVG/stencil-${grid// /x}.svg" \
    "$ROOT/build/tests/stencil" $grid 3 1048576 treematch 2>&1 |
    grep -v -e '^LOCATION' -e 'nodeid from the modex' |
    awk '/^PLACEMENT/ {
           split($3, j, "="); split($4, e, "="); split($5, c, "=");
           if ($2 == "launch") { j0 = j[2]; e0 = e[2] }
           printf "  %-10s cost J %12.0f (%5.1f%% of launch)  halo exchange %7.1f ms (%4.2fx)  call %6.1f ms\n",
                  $2, j[2], 100 * j[2] / j0, e[2], e0 / e[2], c[2]; next }
         { print "  " $0 }'
done
echo
echo "before/after pictures of the traffic between nodes: $(cd "$SVG" && ls stencil-*.svg | sed "s|^|tests/out/demo/|" | tr '\n' ' ')"
echo "(treematch also printed \"Unable to extract peer nodeid from the modex\" on every rank; filtered above)"
