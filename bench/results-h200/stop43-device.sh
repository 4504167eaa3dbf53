#!/usr/bin/env bash
# stop43-device.sh: run 11 (stop 43, integ e9e8f60). Run 11 was stop42-device.sh with the grid block below added at the
# end of its cmd.txt group (so its output is in 11-stop43-cmd.txt after the 2^22 lines). Kept here as that delta, run
# after stop42-device.sh from the same folder: GPU-HM (default and ultra, each twice) and the CPU default on a 2048x2048
# and a 128^3 grid onto 4:8:2 and 4:8:6 (issue 26: GPU-HM's J on grids).
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p $O
bash ./stop42-device.sh
m() { /usr/bin/time -f "wall=%e user=%U sys=%S" timeout 60 ./gpumap map "$@" 2>&1 | grep -vE "^(progress|  )" | head -40; }
{
for G in "grid 2048x2048" "grid3d 128x128x128"; do set -- $G; f=/tmp/$1.graph
 ./gpumap gen -t grid -dims $2 -o $f
 for H in 4:8:2 4:8:6; do A="-g $f -h $H -d 1:10:100 -e 0.03"
  echo "== $1 $H default cpu"; m $A --backend cpu -m /tmp/$1-$H-cpu.map
  for c in default strong; do for b in gpu gpu2; do echo "== $1 $H -a hm -c $c $b"; m $A -a hm -c $c --backend gpu -m /tmp/$1-$H-$c-$b.map; done
   cmp /tmp/$1-$H-$c-gpu.map /tmp/$1-$H-$c-gpu2.map && echo "repeatable $1 $H hm $c"; done; done; done
} >> $O/cmd.txt 2>&1
grep -E "^==|J=|gpu:|wall=|repeatable|differ" $O/cmd.txt | tail -60 | cut -c1-300
