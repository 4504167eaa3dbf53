#!/usr/bin/env bash
# stop35-device.sh: the lead's device call of stop 35, runs 5 and 6 (run 4 ran the same without BenchmarkProfile and
# skipped only TestPTXMatchesSource); run from a folder with make gpucheck's cuda.test and gpumap: cuda tests, benchmarks, the
# wide and 2^22 instances through the command
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p $O
{ nvidia-smi; nproc; date; } > $O/device.txt 2>&1
timeout 150 ./cuda.test -test.v -test.run . -test.skip "TestPTXMatchesSource|TestModelFitsTheH200" -test.count 1 > $O/tests.txt 2>&1; echo "rc=$?" >> $O/tests.txt
grep -E "^(--- FAIL|FAIL|ok|PASS|rc=)" $O/tests.txt | head; grep -c -- "--- PASS" $O/tests.txt
timeout 120 ./cuda.test -test.run xxx -test.bench 'Integrated/(rgg2d_2\^20|rgg2d_2\^22|grid3d_2\^21)/gpu|Profile/im/rgg2d_2\^22|Multisection/rgg2d_2\^2[02]/default|Table2' -test.benchtime 1x > $O/bench.txt 2>&1; echo "rc=$?" >> $O/bench.txt
grep -E "^Benchmark|rc=" $O/bench.txt | cut -c1-330
{
./gpumap gen -t rgg -n 121192 -o /tmp/w.graph
./gpumap gen -t rgg -n 4194304 -o /tmp/r22.graph
for b in gpu cpu; do
 echo "== wide 4:8:64:8:6 -a im $b"
 /usr/bin/time -f "wall=%e user=%U sys=%S" timeout 60 ./gpumap map -g /tmp/w.graph -h 4:8:64:8:6 -d 1:10:100:1000:10000 -e 0.03 -a im --backend $b -m /tmp/w-im-$b.map 2>&1 | grep -vE "^(progress|  )" | head -40
done
cmp /tmp/w-im-gpu.map /tmp/w-im-cpu.map && echo "identical wide im"
for a in im hm; do for b in gpu cpu; do
 echo "== rgg 2^22 4:8:6 -a $a $b"
 /usr/bin/time -f "wall=%e user=%U sys=%S" timeout 60 ./gpumap map -g /tmp/r22.graph -h 4:8:6 -d 1:10:100 -e 0.03 -a $a --backend $b -m /tmp/r-$a-$b.map 2>&1 | head -40
done; cmp /tmp/r-$a-gpu.map /tmp/r-$a-cpu.map && echo "identical $a"; done
} > $O/cmd.txt 2>&1
grep -E "^==|J=|gpu:|wall=|identical|differ|integrated|gpu-hm" $O/cmd.txt | cut -c1-300
