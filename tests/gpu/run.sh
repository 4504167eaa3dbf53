#!/usr/bin/env bash
# run.sh: the GPU checks, on a machine with an NVIDIA GPU and a driver but
# no Go. Build here with `make gpucheck`, copy build/gpu there, run
#
#   build/gpu/run.sh [OUT]
#
# It runs the cuda package's tests (not the PTX hash test nor the model's
# fit, which read the repository's files: none there; the tests that need
# the emulator's counters skip): kernels against the CPU, the whole
# mapping against the CPU backend (identical), reproducibility, the
# defects of issue 10, GPU-HM. Then
# BenchmarkIntegrated (2^18..2^24 vertices onto 4:8:6, GPU and CPU on
# every core, per-phase times, and the H100 model's table from the
# counters, which a real run can be compared with), BenchmarkMultisection
# (GPU-HM and GPU-HM-ultra), and maps every graph in GRAPHS (default:
# build/gpu/graphs, if copied) with the command on both backends, keeping
# the "gpu:" line (BENCH narrows the benchmarks: patterns separated by
# spaces, each run on its own, e.g. BENCH='Integrated/rgg2d_2\^22/gpu
# Profile'; BENCHTIME, 3x, the runs of each). BenchmarkProfile times every
# kernel beside the model (the model's check on a real device); GRAPHS=none
# skips the command runs. Logs land in OUT (default: build/gpu/out).
#
# The check of the kernels and the model, about 2 minutes on an H200:
#
#   BENCH='Profile Integrated/(rgg2d_2\^2[02]|grid3d_2\^21)/gpu Multisection/rgg2d_2\^22/default' \
#   BENCHTIME=1x GRAPHS=none build/gpu/run.sh "$OUT"
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/out}
graphs=${GRAPHS:-$here/graphs}
mkdir -p "$out"
nvidia-smi -L >"$out/device.txt" 2>&1
nproc >>"$out/device.txt"
"$here/cuda.test" -test.v -test.run . -test.skip 'TestPTXMatchesSource|TestModelFitsTheH200' -test.count 1 2>&1 | tee "$out/tests.txt"
rc=${PIPESTATUS[0]}
read -r -a pats <<<"${BENCH:-Integrated|Multisection}"
for pat in "${pats[@]}"; do
	"$here/cuda.test" -test.run xxx -test.bench "$pat" -test.benchtime "${BENCHTIME:-3x}" 2>&1
done | tee "$out/bench.txt"
if [ -d "$graphs" ]; then
	for g in "$graphs"/*.graph; do
		for a in im hm; do
			for b in gpu cpu; do
				for h in 4:8:1 4:8:6; do
					base="$out/$(basename "$g" .graph)-$h-$a-$b"
					"$here/gpumap" map -g "$g" -h "$h" -d 1:10:100 -e 0.03 -a "$a" --backend "$b" \
						-m "$base.map" >"$base.out" 2>"$base.log"
					echo "$(basename "$g") $h -a $a $b: $(grep -E '^(time_ms|backend)=' "$base.out" | tr '\n' ' ')"
					grep '^gpu:' "$base.log"
					"$here/gpumap" eval -g "$g" -h "$h" -d 1:10:100 -e 0.03 -m "$base.map" | head -1
				done
			done
		done
	done 2>&1 | tee "$out/graphs.txt"
fi
exit "$rc"
