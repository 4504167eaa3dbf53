#!/bin/sh
# gen.sh SOURCE OUTDIR: lists the kernels of a CUDA source for the
# emulator. Writes OUTDIR/kernels.inc (one K(name, team) line per
# `extern "C" __global__` kernel; team is 1 when the kernel's body uses
# __syncthreads or __shared__, so its blocks need real threads that meet
# at barriers), OUTDIR/rename.h and OUTDIR/unrename.h (the per-team
# symbol names). A __device__ function that uses __syncthreads or
# __shared__ is refused: the classification looks at kernel bodies only.
set -eu
src=$1
out=$2
mkdir -p "$out"
awk -v out="$out" '
function flush() {
	if (kernel != "") {
		print "K(" kernel ", " team ")" > (out "/kernels.inc")
		print "#define " kernel " EMU_NAME(" kernel ")" > (out "/rename.h")
		print "#undef " kernel > (out "/unrename.h")
	}
	kernel = ""; team = 0
}
BEGIN { kernel = ""; device = 0; n = 0 }
/^extern "C" __global__ void [A-Za-z_][A-Za-z_0-9]*\(/ {
	flush()
	s = $0
	sub(/^extern "C" __global__ void /, "", s)
	sub(/\(.*/, "", s)
	kernel = s; device = 0; n++
	next
}
/^(static )?__device__/ { flush(); device = 1; devline = NR }
/__syncthreads|__shared__/ {
	if (device) {
		printf "%s:%d: __syncthreads/__shared__ in a __device__ function (line %d starts it): the emulator classifies kernels by their own bodies\n", FILENAME, NR, devline > "/dev/stderr"
		exit 2
	}
	if (kernel != "") team = 1
}
END { flush(); if (n == 0) { print "no kernels in " FILENAME > "/dev/stderr"; exit 3 } }
' "$src"
