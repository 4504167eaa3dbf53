#!/usr/bin/env bash
# stop43-device.sh: run 11 (stop 43, the merged head), from a folder with make gpucheck's cuda.test and gpumap: the cuda
# tests, the upload's three ways, the IM/GPU-HM benchmarks, then the wide and 2^22 instances through the command (GPU-IM,
# GPU-IM under -c fast, GPU-HM, GPU-HM-ultra), each GPU run twice (determinism) and the CPU backend's IM once (identity).
# stop42-device.sh with GPU-HM (default and ultra) and the CPU default on a 2D and a 3D grid added (issue 26: GPU-HM's J on grids).
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p $O
{ nvidia-smi; nproc; date; } > $O/device.txt 2>&1
timeout 150 ./cuda.test -test.v -test.run . -test.skip "TestPTXMatchesSource|TestModelFitsTheH200" -test.count 1 > $O/tests.txt 2>&1; echo "rc=$?" >> $O/tests.txt
grep -E "^(--- FAIL|FAIL|ok|PASS|rc=)" $O/tests.txt | head; grep -c -- "--- PASS" $O/tests.txt
timeout 150 ./cuda.test -test.run xxx -test.bench 'Upload|Integrated/(rgg2d_2\^20|rgg2d_2\^22|grid3d_2\^21)/gpu|Multisection/rgg2d_2\^22/default' -test.benchtime 3x > $O/bench.txt 2>&1; echo "rc=$?" >> $O/bench.txt
grep -E "^Benchmark.*-16 |rc=" $O/bench.txt | cut -c1-330
m() { /usr/bin/time -f "wall=%e user=%U sys=%S" timeout 60 ./gpumap map "$@" 2>&1 | grep -vE "^(progress|  )" | head -40; }
{
./gpumap gen -t rgg -n 121192 -o /tmp/w.graph
./gpumap gen -t rgg -n 4194304 -o /tmp/r22.graph
W="-g /tmp/w.graph -h 4:8:64:8:6 -d 1:10:100:1000:10000 -e 0.03"
for b in gpu gpu2 cpu; do echo "== wide -a im $b"; m $W -a im --backend ${b%2} -m /tmp/w-$b.map; done
for b in gpu gpu2; do echo "== wide -a im -c fast $b"; m $W -a im -c fast --backend gpu -m /tmp/wf-$b.map; done; cmp /tmp/wf-gpu.map /tmp/wf-gpu2.map && echo "repeatable wide fast"
cmp /tmp/w-gpu.map /tmp/w-gpu2.map && echo "repeatable wide"; cmp /tmp/w-gpu.map /tmp/w-cpu.map && echo "identical wide im"
echo "== wide default cpu"; m $W --backend cpu -m /tmp/w-def.map
R="-g /tmp/r22.graph -h 4:8:6 -d 1:10:100 -e 0.03"
for b in gpu gpu2 cpu; do echo "== rgg 2^22 -a im $b"; m $R -a im --backend ${b%2} -m /tmp/r-im-$b.map; done
cmp /tmp/r-im-gpu.map /tmp/r-im-gpu2.map && echo "repeatable im"; cmp /tmp/r-im-gpu.map /tmp/r-im-cpu.map && echo "identical im"
for c in default strong; do for b in gpu gpu2; do echo "== rgg 2^22 -a hm -c $c $b"; m $R -a hm -c $c --backend gpu -m /tmp/h-$c-$b.map; done
 cmp /tmp/h-$c-gpu.map /tmp/h-$c-gpu2.map && echo "repeatable hm $c"; done
for G in "grid 2048x2048" "grid3d 128x128x128"; do set -- $G; f=/tmp/$1.graph
 ./gpumap gen -t grid -dims $2 -o $f
 for H in 4:8:2 4:8:6; do A="-g $f -h $H -d 1:10:100 -e 0.03"
  echo "== $1 $H default cpu"; m $A --backend cpu -m /tmp/$1-$H-cpu.map
  for c in default strong; do for b in gpu gpu2; do echo "== $1 $H -a hm -c $c $b"; m $A -a hm -c $c --backend gpu -m /tmp/$1-$H-$c-$b.map; done
   cmp /tmp/$1-$H-$c-gpu.map /tmp/$1-$H-$c-gpu2.map && echo "repeatable $1 $H hm $c"; done; done; done
} > $O/cmd.txt 2>&1
grep -E "^==|J=|gpu:|wall=|identical|repeatable|differ|integrated|gpu-hm|refine-J|time_ms" $O/cmd.txt | cut -c1-300
