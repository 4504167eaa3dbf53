#!/usr/bin/env bash
# What libgpumap_record.so costs per message (make recbench), on one node:
#   1. msgrate (tests/testdata/msgrate.c), a message-rate benchmark run with
#      and without the recorder preloaded, alternately, REPS times each:
#      "self" (every rank sends to itself: the cheapest message MPI has) and
#      "pair" (2 ranks, windows of 64 8-byte messages, osu_mbw_mr style);
#   2. countbench (cabi/record/testdata/countbench.c): the counting path
#      alone, without the message, on MPI_COMM_WORLD and on another
#      communicator (one translation lookup more);
#   3. when valgrind is installed, the instructions one msgrate self message
#      executes with and without the recorder (callgrind, one process): a
#      count that machine load cannot disturb.
# Prints the best and the median ns per message of each. On a shared
# machine compare only numbers from the same run.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPS=${REPS:-7}
MSGS=${MSGS:-400000}
OUT=build/bench
mkdir -p "$OUT"
stat() { sort -g | awk '{ v[NR] = $1 } END { printf "best %7.1f  median %7.1f", v[1], v[int((NR + 1) / 2)] }'; }
for mpi in openmpi mpich; do
  if [[ $mpi == openmpi ]]; then
    dir=build cc=mpicc.openmpi
    launch() { mpirun.openmpi --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader "$@"; }
    pre() { echo -x LD_PRELOAD="$PWD/build/lib/libgpumap_record.so" -x GPUMAP_RECORD="$OUT/pattern.graph" -x GPUMAP_VERBOSE=0; }
  else
    dir=build/mpich cc=mpicc.mpich
    launch() { mpiexec.mpich "$@"; }
    pre() { echo -genv LD_PRELOAD "$PWD/build/mpich/lib/libgpumap_record.so" -genv GPUMAP_RECORD "$OUT/pattern.graph" -genv GPUMAP_VERBOSE 0; }
  fi
  [[ -x $dir/tests/msgrate && -f $dir/lib/libgpumap_record.so ]] || { echo "recbench: run make testprogs MPI=$mpi first"; exit 1; }
  $cc -O2 -Wall -Icabi/record -Icabi/dl cabi/record/testdata/countbench.c cabi/record/record.c cabi/dl/gpumap_dl.c -o "$OUT/countbench.$mpi" -ldl -lpthread
  echo "== $mpi ($REPS runs each, $MSGS messages per round, best of 5 rounds per run; ns per message)"
  for mode in self pair; do
    : >"$OUT/none" && : >"$OUT/rec"
    for ((i = 0; i < REPS; i++)); do
      for v in none rec; do
        # shellcheck disable=SC2046
        launch $([[ $v == rec ]] && pre) -n 2 "$dir/tests/msgrate" $mode "$MSGS" 64 8 |
          sed -n 's/.*ns_per_message=\([0-9.]*\).*/\1/p' >>"$OUT/$v"
      done
    done
    printf "  msgrate %-4s  without %s   with recorder %s\n" $mode "$(stat <"$OUT/none")" "$(stat <"$OUT/rec")"
  done
  for c in world other; do : >"$OUT/$c"; done
  for ((i = 0; i < REPS; i++)); do
    launch -n 8 "$OUT/countbench.$mpi" | sed -n 's/COUNT comm=\([a-z]*\) ns_per_message=\([0-9.]*\)/\2 \1/p' |
      while read -r v c; do echo "$v" >>"$OUT/$c"; done
  done
  printf "  counting alone: MPI_COMM_WORLD %s   other communicator %s\n" "$(stat <"$OUT/world")" "$(stat <"$OUT/other")"
  if command -v valgrind >/dev/null; then
    # msgrate runs 6 rounds; the slope between two message counts removes
    # start-up and finalize. The recorder's runs are dumped before its
    # MPI_Finalize (valgrind cannot follow the Go runtime loaded there).
    instr() { callgrind_annotate "$1" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,; }
    rm -f "$OUT"/cg.*
    for n in 10000 30000; do
      valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.none.$n" "$dir/tests/msgrate" self $n 64 8 >/dev/null 2>&1 || true
      LD_PRELOAD="$PWD/$dir/lib/libgpumap_record.so" GPUMAP_RECORD="$OUT/pattern.graph" GPUMAP_VERBOSE=0 \
        valgrind --tool=callgrind --dump-before=rec_finalize --callgrind-out-file="$OUT/cg.rec.$n" \
        "$dir/tests/msgrate" self $n 64 8 >/dev/null 2>&1 || true
    done
    a1=$(instr "$OUT/cg.none.10000") a2=$(instr "$OUT/cg.none.30000")
    b1=$(instr "$OUT/cg.rec.10000.1") b2=$(instr "$OUT/cg.rec.30000.1")
    if [[ -n $a1 && -n $a2 && -n $b1 && -n $b2 ]]; then
      awk -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" -v m=$((6 * 20000)) 'BEGIN {
        printf "  instructions per msgrate self message (callgrind): without %.0f, with recorder %.0f (+%.0f)\n",
          (a2 - a1) / m, (b2 - b1) / m, (b2 - b1 - a2 + a1) / m }'
    fi
  fi
done
