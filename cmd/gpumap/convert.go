package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// cmdConvert writes a METIS graph in ParHIP's binary format (the one
// KaHIP's graph2binary writes), which gpumap-mpi's processes read in
// pieces by offset. The format holds no weights, so a graph with weights
// other than 1 is refused: dropping them would map another graph.
func cmdConvert(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("gpumap convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("g", "", "input graph in METIS format (gzip or zstd compressed input is fine)")
	out := fs.String("o", "", "output file in ParHIP's binary format (by convention G.bgf)")
	var maxBytes byteSize
	fs.Var(&maxBytes, "max-graph-bytes", "largest graph text after decompression, e.g. 40G (default as for gpumap map)")
	if err := fs.Parse(args); err != nil {
		return 0, usageError{err}
	}
	switch {
	case fs.NArg() > 0:
		return 0, usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	case *in == "":
		return 0, usageError{errors.New("missing -g graph file")}
	case *out == "":
		return 0, usageError{errors.New("missing -o output file")}
	}
	g, err := graph.ReadFileLimit(*in, int64(maxBytes))
	if errors.Is(err, graph.ErrTooLarge) {
		return 0, fmt.Errorf("%w (a larger limit: -max-graph-bytes)", err)
	}
	if err != nil {
		return 0, err
	}
	if vw, ew := g.UnitWeights(); !vw || !ew {
		return 0, fmt.Errorf("%s: %w (map the METIS file itself: gpumap-mpi reads it in byte ranges)", *in, graph.ErrWeighted)
	}
	return exitOK, graph.WriteFile(*out, func(w io.Writer) error { return graph.WriteBinary(w, g) })
}
