#!/usr/bin/env bash
# Record, then place, on the two-node test cluster (part of make demo).
#
# The halo exchange of the main demo, written for MPI_COMM_WORLD only and
# with no gpumap call (tests/testdata/stencil_world.c), is started with
# --map-by node and libgpumap_record.so preloaded. gpumap place turns the
# recorded pattern into a rankfile, and the same binary is started again
# from it; every rank checks that it runs on the host the rankfile names.
# The pattern, rankfile and before/after picture land in tests/out/record.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
[[ $(id -u) == 0 ]] || { echo "demo: needs root (network namespaces)"; exit 1; }
for f in build/tests/stencil_world build/lib/libgpumap_record.so bin/gpumap; do
  [[ -x $f ]] || { echo "demo: $f missing: run make demo"; exit 1; }
done
OUT=tests/out/record
mkdir -p "$OUT"
C=tests/cluster/cluster.sh
$C up 2 --rate 400mbit >/dev/null
trap '$C down >/dev/null' EXIT
mpirun() {
  $C exec node0 mpirun.openmpi --allow-run-as-root --oversubscribe -np 16 -H node0:8,node1:8 \
    --mca mpi_yield_when_idle 1 --mca pml ob1 --mca btl self,vader,tcp \
    --mca btl_tcp_if_include gc0 --mca oob_tcp_if_include gc0 \
    --mca plm_rsh_agent "$ROOT/tests/cluster/rsh" "$@" 2>&1
}
field() { sed -n "s/^$1=//p"; }
echo
echo "gpumap demo, record then place: the same stencil with no gpumap call, MPI_COMM_WORLD only"
for grid in "4 4 1" "2 2 4"; do
  name=${grid// /x}
  pattern=$ROOT/$OUT/$name.graph rankfile=$ROOT/$OUT/$name.rankfile
  echo
  echo "== stencil $name"
  before=$(mpirun --map-by node -x LD_PRELOAD="$ROOT/build/lib/libgpumap_record.so" -x GPUMAP_RECORD="$pattern" \
    "$ROOT/build/tests/stencil_world" $grid 3 1048576)
  echo "  1. mpirun --map-by node -x LD_PRELOAD=libgpumap_record.so: $(grep '^gpumap record:' <<<"$before" | sed 's/^gpumap record: //')"
  placed=$(bin/gpumap place -q -g "$pattern" --hosts node0:8,node1:8 -h 4:2 -d 1:10:100 \
    --rankfile "$rankfile" --svg "$ROOT/$OUT/$name.svg")
  echo "  2. gpumap place -g $OUT/$name.graph --hosts node0:8,node1:8 -h 4:2 -d 1:10:100 --rankfile $OUT/$name.rankfile --svg $OUT/$name.svg"
  after=$(mpirun --rankfile "$rankfile" --mca hwloc_base_topo_file "$ROOT/tests/testdata/eight-cores.xml" \
    "$ROOT/build/tests/stencil_world" $grid 3 1048576 "$rankfile")
  echo "  3. mpirun --rankfile $OUT/$name.rankfile: $(grep -c ' ok$' <<<"$after") of 16 ranks on the host the rankfile names;" \
    "results $(cmp -s <(grep ^RESULT <<<"$before") <(grep ^RESULT <<<"$after") && echo identical || echo DIFFERENT)"
  jn=$(field J_map_by_node <<<"$placed") js=$(field J_map_by_slot <<<"$placed") jp=$(field J_placed <<<"$placed")
  hb=$(field 'HALO exchange_ms' <<<"$before") ha=$(field 'HALO exchange_ms' <<<"$after")
  awk -v jn="$jn" -v js="$js" -v jp="$jp" -v hb="$hb" -v ha="$ha" 'BEGIN {
    printf "  %-24s cost J %12.0f (%5.1f%% of launch)  halo exchange %7.1f ms\n", "launch (--map-by node)", jn, 100, hb
    printf "  %-24s cost J %12.0f (%5.1f%% of launch)\n", "(--map-by slot)", js, 100 * js / jn
    printf "  %-24s cost J %12.0f (%5.1f%% of launch)  halo exchange %7.1f ms (%4.2fx)\n", "placed (rankfile)", jp, 100 * jp / jn, ha, hb / ha }'
done
echo
echo "(the launch run had the recorder preloaded; the placed run is unbound: the fake 8-core topology mpirun needs for slot numbers >= 2 cannot be bound to)"
