package mpirank

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gpumap/gpumap/gpumap/report"
	"github.com/gpumap/gpumap/hwdetect"
	"github.com/gpumap/gpumap/mpirank/mpi"
)

// cgetenv reads the environment as it is at call time (mpi.Getenv): Go's
// os.Getenv sees a copy taken when the library was loaded, not a later
// setenv of the program.
func cgetenv(name string) string {
	v, _ := mpi.Getenv(name)
	return v
}

// program is the name of the running program.
func program() string {
	if len(os.Args) > 0 && os.Args[0] != "" {
		return filepath.Base(os.Args[0])
	}
	return "MPI program"
}

// writeReport draws the traffic before and after the reordering into the
// file GPUMAP_REPORT names, at the level GPUMAP_REPORT_LEVEL names (node
// by default), on rank 0. keys[r] is the new rank of process r. A report
// that cannot be written is a warning, never a failure of the call.
func writeReport(log io.Writer, w *weighted, m *hwdetect.Machine, recs []hwdetect.Record, keys []int32) {
	path := cgetenv("GPUMAP_REPORT")
	if path == "" {
		return
	}
	top := m.Top
	names := report.LevelNames(top)
	if len(m.Levels) == top.Levels()-1 && m.Levels[0] == "socket" { // inferred: socket, node[, switch]
		names = append(append([]string{"PE"}, m.Levels...), "machine")
	}
	level := report.DefaultLevel(names)
	if s := cgetenv("GPUMAP_REPORT_LEVEL"); s != "" {
		l, err := report.ParseLevel(s, names)
		if err != nil {
			fmt.Fprintf(log, "gpumap: warning: GPUMAP_REPORT_LEVEL: %v; drawing %ss\n", err, names[level])
		} else {
			level = l
		}
	}
	// Task r ran on the PE of process r; after, task keys[r] does.
	before, after := make([]int32, w.n), make([]int32, w.n)
	for r, k := range keys {
		before[r], after[k] = int32(m.Slot[r]), int32(m.Slot[r])
	}
	var groups []string
	if names[level] == "node" || names[level] == "socket" {
		for _, g := range report.Groups(top, level) {
			rec := recs[m.Rank[g.Lo]]
			name := rec.Host
			if names[level] == "socket" {
				name += " socket " + strconv.Itoa(rec.Socket)
				if rec.Socket == hwdetect.UnknownSocket {
					name = rec.Host + " unbound"
				}
			}
			groups = append(groups, name)
		}
	}
	p := &report.Picture{
		Title:   fmt.Sprintf("%s: gpumap_reorder of %d ranks on %d hosts", program(), w.n, m.Hosts),
		Traffic: report.Traffic{N: w.n, U: w.u, V: w.v, W: w.vol},
		Top:     top, Level: level, LevelNames: names, GroupNames: groups, Bytes: true,
		Panels: []report.Panel{{Title: "before (launch order)", PE: before}, {Title: "after (gpumap)", PE: after}},
	}
	if err := p.WriteFile(path); err != nil {
		fmt.Fprintf(log, "gpumap: warning: GPUMAP_REPORT: %v\n", err)
	}
}
