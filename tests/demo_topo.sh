#!/usr/bin/env bash
# Adoption without source changes: the topology interposer on the two-node
# test cluster. The same unmodified binary (tests/testdata/topo_stencil.c:
# MPI_Cart_create or MPI_Dist_graph_create_adjacent with reorder = 1, then
# a halo exchange on the new communicator) runs without and with
# libgpumap_topo.so preloaded; 16 ranks, --map-by node, two faked sockets
# per node, 400 Mbit/s between nodes, 1 MiB halos. J is gpumap's cost in
# the constructor's units (GPUMAP_CART_WEIGHTS=1048576: bytes for the
# Cartesian grid; the program's weights, KiB, for the dist graph).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
[[ $(id -u) == 0 ]] || { echo "demo: needs root (network namespaces)"; exit 1; }
[[ -x build/tests/topo_stencil && -f build/lib/libgpumap_topo.so ]] || { echo "demo: build/tests/topo_stencil missing: run make demo"; exit 1; }
C=tests/cluster/cluster.sh
$C up 2 --rate 400mbit >/dev/null
trap '$C down >/dev/null' EXIT

stencil() { # extra mpirun arguments..., then -- program arguments
  local extra=()
  while [[ $1 != -- ]]; do extra+=("$1"); shift; done
  shift
  $C exec node0 mpirun.openmpi --allow-run-as-root --oversubscribe -np 16 -H node0:8,node1:8 \
    --map-by node --bind-to core:overload-allowed \
    --mca mpi_yield_when_idle 1 --mca pml ob1 --mca btl self,vader,tcp \
    --mca btl_tcp_if_include gc0 --mca oob_tcp_if_include gc0 \
    --mca plm_rsh_agent "$ROOT/tests/cluster/rsh" \
    -x HWLOC_XMLFILE="$ROOT/hwdetect/testdata/two-sockets.xml" -x HWLOC_THISSYSTEM=1 \
    "${extra[@]}" "$ROOT/build/tests/topo_stencil" "$@" 2>&1
}

echo
echo "gpumap topology interposer: the same binary without and with LD_PRELOAD=build/lib/libgpumap_topo.so"
for mode in cart graph; do
  for grid in "4 4 1" "2 2 4"; do
    without=$(stencil -- $grid 3 1048576 $mode)
    with=$(stencil -x LD_PRELOAD="$ROOT/build/lib/libgpumap_topo.so" -x GPUMAP_VERBOSE=1 \
      -x GPUMAP_CART_WEIGHTS=1048576:1048576:1048576 -- $grid 3 1048576 $mode)
    for out in "$without" "$with"; do
      grep -q "DONE errors 0" <<<"$out" || { echo "demo: the program's checks failed:"; echo "$out"; exit 1; }
    done
    ctor=MPI_Cart_create; [[ $mode == graph ]] && ctor=MPI_Dist_graph_create_adjacent
    echo
    echo "== $ctor(reorder = 1), stencil ${grid// /x}"
    awk -v W="$(grep -o 'EXCHANGE ms=[0-9.]*' <<<"$without" | cut -d= -f2)" \
        -v P="$(grep -o 'EXCHANGE ms=[0-9.]*' <<<"$with" | cut -d= -f2)" '
      /^gpumap topo:/ {
        for (i = 1; i <= NF; i++) if ($i == "J") { b = $(i + 1); a = $(i + 3); sub(",", "", a) }
        sub(/.*reordered, /, ""); call = $0; sub(/;.*/, "", call)
        m = $0; sub(/.*machine /, "", m) }
      END {
        printf "  without the interposer   J %14.0f               halo exchange %7.1f ms\n", b, W
        printf "  with libgpumap_topo.so   J %14.0f (%5.1f%%)      halo exchange %7.1f ms (%.2fx)  call %s\n", a, 100 * a / b, P, W / P, call
        printf "  machine: %s\n", m }' <<<"$with"
  done
done
