#!/bin/bash
# mpich-topo.sh: MPICH's own topology tests with and without the topology
# interposer, on both MPI stacks (issue 9's conformance check; not part of
# make test, which runs the reduced programs in tests/testdata/topo_*).
#
#   tests/conformance/mpich-topo.sh MPICH_SOURCE [WORKDIR]
#
# MPICH_SOURCE is an MPICH checkout (its test/mpi is used: topo/*.c,
# coll/neighb_*.c, f77 and f08 topo). Needs `make lib` and
# `make lib MPI=mpich` first. Prints one line per test, stack, process
# count and configuration (base: no interposer; topo: preloaded, the
# machine as detected; topoH: preloaded with GPUMAP_HIERARCHY forcing a
# hierarchy, so that calls do reorder) with PASS/FAIL/HANG and the
# interposer's reordered/kept calls. A test that checks neighbours against
# MPI_COMM_WORLD ranks after reorder = 1 (distgraph1) can only pass where
# no order is cheaper: MPI allows the reordering it then sees.
set -u
SRC=$(cd "$1" && pwd)/test/mpi
W=${2:-/tmp/gpumap-mpich-topo}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$W/cfg"
printf '#define HAVE_STRING_H 1\n#define HAVE_UNISTD_H 1\n#define HAVE_STDARG_H 1\n#define HAVE_SYS_TIME_H 1\n#define HAVE_MPI_INIT_THREAD 1\n#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX\n' > "$W/cfg/mpitestconf.h"
: > "$W/cfg/mtest_mpix.h"
OMPI_FLAGS="--allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 --mca pml ob1 --mca btl self,vader,tcp"
for st in openmpi mpich; do
  B=$W/$st; mkdir -p "$B"; cd "$B" || exit 1
  if [ $st = openmpi ]; then CC=mpicc.openmpi FC=mpifort.openmpi LIB=$ROOT/build/lib; else CC=mpicc.mpich FC=mpifort.mpich LIB=$ROOT/build/mpich/lib; fi
  CF="-O1 -w -I$W/cfg -I$SRC/include -I$SRC/dtpools/include"
  for f in mtest mtest_common mtest_single; do $CC $CF -c "$SRC/util/$f.c" -o $f.o; done
  $FC -O1 -w -c "$SRC/util/mtest_f77.f" -o mtest_f77.o
  $FC -O1 -w -c "$SRC/util/mtest_f08.f90" -o mtest_f08.o 2>/dev/null
  MT="mtest.o mtest_common.o mtest_single.o"
  progs=()
  for src in "$SRC"/topo/*.c "$SRC"/coll/neighb_*.c; do
    n=$(basename "$src" .c); $CC $CF "$src" $MT -o "$n" -lm 2>/dev/null && progs+=("$n")
  done
  for src in "$SRC"/f77/topo/*.f; do
    n=$(basename "$src" .f); $FC -O1 -w -fallow-argument-mismatch "$src" mtest_f77.o $MT -o "$n" 2>/dev/null && progs+=("$n")
  done
  for src in "$SRC"/f08/topo/*.f90; do
    n=$(basename "$src" .f90)_08; $FC -O1 -w "$src" mtest_f08.o $MT -o "$n" 2>/dev/null && progs+=("$n")
  done
  for t in "${progs[@]}"; do
    for cfg in base topo topoH; do
      pre=()
      if [ $cfg != base ]; then
        pre=(LD_PRELOAD=$LIB/libgpumap_topo.so GPUMAP_VERBOSE=1)
        [ $cfg = topoH ] && pre+=(GPUMAP_HIERARCHY=2:2)
      fi
      args=()
      for e in "${pre[@]}"; do
        if [ $st = openmpi ]; then args+=(-x "$e"); else args+=(-genv "${e%%=*}" "${e#*=}"); fi
      done
      if [ $st = openmpi ]; then out=$(timeout -s KILL 60 mpirun.openmpi $OMPI_FLAGS -np 4 "${args[@]}" ./"$t" 2>&1); rc=$?
      else out=$(timeout -s KILL 60 mpiexec.mpich -n 4 "${args[@]}" ./"$t" 2>&1); rc=$?; fi
      if grep -q "No Errors" <<<"$out"; then s=PASS; elif [ $rc = 137 ]; then s=HANG; else s=FAIL; fi
      printf '%-8s %-24s np 4 %-6s %-5s reordered %d kept %d\n' $st "$t" $cfg $s \
        "$(grep -c 'reordered,' <<<"$out")" "$(grep -c 'order kept' <<<"$out")"
    done
  done
done
