package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"

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

// drawPlacement draws the launch order (before) against the new placement
// (after) of g's ranks, task r on PE before[r] and after[r], between the
// hosts of top (its top level below the machine), named hosts: what
// place --svg writes.
func drawPlacement(path string, g *graph.Graph, top *topology.Topology, hosts []string, beforeName string, before, after []int32) error {
	names := report.LevelNames(top)
	L := top.Levels()
	for l := 1; l < L; l++ { // hosts last, sockets below them, else numbers
		names[l] = "level " + strconv.Itoa(l)
	}
	if L >= 2 {
		names[L-1] = "node"
	}
	if L >= 3 {
		names[L-2] = "socket"
	}
	p := &report.Picture{Title: "gpumap place: " + strconv.Itoa(g.N()) + " ranks on " + strconv.Itoa(len(hosts)) + " hosts",
		Traffic: report.FromGraph(g), Top: top, Level: max(L-1, 0), LevelNames: names, GroupNames: hosts, Bytes: true,
		Panels: []report.Panel{{Title: "before (" + beforeName + ")", PE: before}, {Title: "after (gpumap place)", PE: after}}}
	return p.WriteFile(path)
}
