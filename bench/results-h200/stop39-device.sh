#!/usr/bin/env bash
# stop39-device.sh: the lead's device call of stop 39 (main 2f624a5), from a folder with make gpucheck's cuda.test and
# gpumap: the cuda tests, the IM/GPU-HM/Table2 benchmarks, then the wide and 2^22 instances through the command
# (GPU-IM, GPU-HM, GPU-HM-ultra; the GPU runs twice where determinism is checked, the CPU backend once for identity)
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p $O
{ nvidia-smi; nproc; date; } > $O/device.txt 2>&1
timeout 150 ./cuda.test -test.v -test.run . -test.skip "TestPTXMatchesSource|TestModelFitsTheH200" -test.count 1 > $O/tests.txt 2>&1; echo "rc=$?" >> $O/tests.txt
grep -E "^(--- FAIL|FAIL|ok|PASS|rc=)" $O/tests.txt | head; grep -c -- "--- PASS" $O/tests.txt
timeout 120 ./cuda.test -test.run xxx -test.bench 'Integrated/(rgg2d_2\^20|rgg2d_2\^22|grid3d_2\^21)/gpu|Profile/im/rgg2d_2\^22|Multisection/rgg2d_2\^2[02]/default|Table2' -test.benchtime 1x > $O/bench.txt 2>&1; echo "rc=$?" >> $O/bench.txt
grep -E "^Benchmark|rc=" $O/bench.txt | cut -c1-330
m() { /usr/bin/time -f "wall=%e user=%U sys=%S" timeout 60 ./gpumap map "$@" 2>&1 | grep -vE "^(progress|  )" | head -40; }
{
./gpumap gen -t rgg -n 121192 -o /tmp/w.graph
./gpumap gen -t rgg -n 4194304 -o /tmp/r22.graph
W="-g /tmp/w.graph -h 4:8:64:8:6 -d 1:10:100:1000:10000 -e 0.03"
for a in im auto; do for b in gpu cpu; do echo "== wide -a $a $b"; m $W -a $a --backend $b -m /tmp/w-$a-$b.map; done
 cmp /tmp/w-$a-gpu.map /tmp/w-$a-cpu.map && echo "identical wide $a"; done
R="-g /tmp/r22.graph -h 4:8:6 -d 1:10:100 -e 0.03"
for a in im hm; do for b in gpu gpu2 cpu; do echo "== rgg 2^22 -a $a $b"; m $R -a $a --backend ${b%2} -m /tmp/r-$a-$b.map; done
 cmp /tmp/r-$a-gpu.map /tmp/r-$a-gpu2.map && echo "repeatable $a"; cmp /tmp/r-$a-gpu.map /tmp/r-$a-cpu.map && echo "identical $a"; done
for b in gpu gpu2; do echo "== rgg 2^22 -a hm -c strong $b"; m $R -a hm -c strong --backend gpu -m /tmp/u-$b.map; done
cmp /tmp/u-gpu.map /tmp/u-gpu2.map && echo "repeatable ultra"
} > $O/cmd.txt 2>&1
grep -E "^==|J=|gpu:|wall=|identical|repeatable|differ|integrated|gpu-hm|time_ms" $O/cmd.txt | cut -c1-300
