#!/bin/bash
# measure.sh BIN OUT GRAPH...: the rows of results-distreal2-2core.txt for
# each METIS graph: gpumap map -t 2 and gpumap-mpi at P=2 and P=4 with
# seeds 1 and 2, then PT-Scotch's dgpart at P=2 (-Cr: a seed of its own,
# -b0.03, k=192 parts with block b on PE b, as bench/dist.go runs it) for
# the 0.8x bound. BIN holds gpumap and gpumap-mpi; J and feasibility come
# from `gpumap eval` of the written mapping. Wall, user and sys are GNU
# time's around the command (mpirun's include the ranks it waits for).
# Prints one line per run: graph run seed J feasible wall user sys.
# Runs one command at a time (the machine has 2 cores; P=4 oversubscribes),
# each holding the bench's lock (/tmp/gpumap-bench.lock, as bench/dist.go's
# runs do), so that timed runs of engineers sharing the machine do not
# overlap; the 1-minute load average before each graph is printed.
set -euo pipefail
bin=$1 out=$2
shift 2
H=4:8:6 D=1:10:100 E=0.03 K=192
M=(mpirun.openmpi --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 --mca pml ob1 --mca btl self,vader,tcp)
mkdir -p "$out"
tm() { flock /tmp/gpumap-bench.lock /usr/bin/time -f "%e %U %S" -o "$out/time" "$@" >"$out/log" 2>&1 || [[ $? == 3 ]]; cat "$out/time"; }
ev() { "$bin/gpumap" eval -g "$1" -h $H -d $D -e $E -m "$2" | awk -F= '$1=="J"{j=$2} $1=="feasible"{f=($2=="true")?"yes":"no"} END{print j, f}'; }
for g in "$@"; do
  name=$(basename "$g" .graph)
  echo "# $name load $(cut -d" " -f1-3 /proc/loadavg) $(date -u +%H:%M:%S)"
  for s in 1 2; do
    t=$(tm "$bin/gpumap" map -q -g "$g" -h $H -d $D -e $E -s $s -t 2 -m "$out/m")
    echo "$name map-t2 $s $(ev "$g" "$out/m") $t"
    for p in 2 4; do
      t=$(tm "${M[@]}" -np $p "$bin/gpumap-mpi" map -q -g "$g" -h $H -d $D -e $E -s $s -t 1 -m "$out/m")
      echo "$name mpi-P$p $s $(ev "$g" "$out/m") $t"
    done
  done
  [[ -s "$out/$name.grf" ]] || gcv -ic "$g" "$out/$name.grf"
  t=$(tm "${M[@]}" -np 2 dgpart -Cr -b$E $K "$out/$name.grf" "$out/dg")
  # Scotch's mapping: a count line, then "vertex part" lines (labels from 0 or 1).
  awk 'NR>1 && NF==2 {print $1, $2}' "$out/dg" | sort -n -k1,1 | awk '{print $2}' >"$out/m"
  echo "$name dgpart-P2 - $(ev "$g" "$out/m") $t"
done
