#!/usr/bin/env bash
# stop42b-device.sh: the merged head of stop 42 (integ) on the device: the cuda tests, then GPU-HM (default, ultra) on
# wiki-Vote onto 4:8:2 (infeasible before the host's check) and R-MAT 2^16 s3 (downloads over 8n + 4 MiB before),
# each twice (determinism), and GPU-IM on the wide instance and rgg 2^22 (unchanged paths, timing)
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p $O
{ nvidia-smi -L; nproc; date; } > $O/device.txt 2>&1
timeout 150 ./cuda.test -test.v -test.run . -test.skip "TestPTXMatchesSource|TestModelFitsTheH200" -test.count 1 > $O/tests.txt 2>&1; echo "rc=$?" >> $O/tests.txt
grep -E "^(--- FAIL|FAIL|ok|PASS|rc=)" $O/tests.txt | head; grep -c -- "--- PASS" $O/tests.txt
m() { /usr/bin/time -f "wall=%e user=%U sys=%S" timeout 60 ./gpumap map "$@" 2>&1 | grep -vE "^(progress|  )" | head -40; }
{
for g in wiki-Vote rm16; do for h in 4:8:2 4:8:6; do for c in default strong; do for r in 1 2; do
 echo "== $g $h hm $c run $r"; m -g $g.graph -h $h -d 1:10:100 -e 0.03 --backend gpu -a hm -c $c -m /tmp/$g-$h-$c-$r.map; done
 cmp /tmp/$g-$h-$c-1.map /tmp/$g-$h-$c-2.map && echo "repeatable $g $h $c"; done; done; done
./gpumap gen -t rgg -n 121192 -o /tmp/w.graph; ./gpumap gen -t rgg -n 4194304 -o /tmp/r22.graph
echo "== wide -a im gpu"; m -g /tmp/w.graph -h 4:8:64:8:6 -d 1:10:100:1000:10000 -e 0.03 -a im --backend gpu -m /tmp/w.map
echo "== rgg 2^22 -a im gpu"; m -g /tmp/r22.graph -h 4:8:6 -d 1:10:100 -e 0.03 -a im --backend gpu -m /tmp/r.map
echo "== rgg 2^22 -a hm gpu"; m -g /tmp/r22.graph -h 4:8:6 -d 1:10:100 -e 0.03 -a hm --backend gpu -m /tmp/rh.map
} > $O/cmd.txt 2>&1
grep -E "^==|J=|gpu:|gpu-hm:|wall=|repeatable|integrated on" $O/cmd.txt | cut -c1-250
