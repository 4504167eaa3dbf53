package main

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/report"
	"github.com/gpumap/gpumap/topology"
)

// svgFlags: eval --svg OUT.svg [--svg-level node] draws the communication
// matrix of the mapping between the groups of one level (gpumap/report).
type svgFlags struct{ out, level string }

func (s *svgFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.out, "svg", "", "also draw the traffic between groups of PEs as an SVG heat map into this file")
	fs.StringVar(&s.level, "svg-level", "node", "the level the picture aggregates at: pe, socket, node, switch or a level number (0 = PEs)")
}

// level checks --svg-level against the machine before any work is done.
func (s *svgFlags) parseLevel(top *topology.Topology) (int, error) {
	if s.out == "" {
		return 0, nil
	}
	names := report.LevelNames(top)
	if s.level == "node" && names[report.DefaultLevel(names)] != "node" {
		return report.DefaultLevel(names), nil // no node level (-h with one level): the PEs
	}
	l, err := report.ParseLevel(s.level, names)
	if err != nil {
		return 0, usageError{fmt.Errorf("--svg-level: %w", err)}
	}
	return l, nil
}

// write draws the mapping (a no-op without --svg).
func (s *svgFlags) write(g *graph.Graph, top *topology.Topology, pe []int32, level int, graphFile, mapFile string) error {
	if s.out == "" {
		return nil
	}
	p := &report.Picture{Title: "gpumap: " + filepath.Base(graphFile), Traffic: report.FromGraph(g), Top: top, Level: level,
		Panels: []report.Panel{{Title: "mapping " + filepath.Base(mapFile), PE: pe}}}
	return p.WriteFile(s.out)
}
