package distmap

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// Where a graph is renumbered (mapRenumbered), the breadth-first order
// must leave fewer of its entries across the ranks than the input's
// numbering did: a 3D grid in its natural numbering at P=4 has about
// (P-1)/(3a) of its entries across the ranks (above spreadMax for a
// side a below 20), a share that grows with P for any numbering.
func TestRenumberingLowersSpread(t *testing.T) {
	if !mpitest.Child() {
		runRank0(t, 4, "TestRenumberingLowersSpread", "spread ok")
		return
	}
	defer rankRecover()
	c, size, rank := rankComm(t)
	top, _ := topology.Parse("4:4:2", "1:10:100")
	whole := graph.Grid(16, 16, 16)
	g := spreadEvenly(c, size, rank, whole)
	var tr bytes.Buffer
	res, err := Map(g, top, Options{Preset: gpumap.Default, Eps: 0.03, Seed: 1, Threads: 1, Coarsest: 300, Trace: &tr})
	if err != nil {
		rankFail("%v", err)
	}
	if rank == 0 {
		in := regexp.MustCompile(`([\d.]+)% of the input's adjacency entries lay across`)
		lvl0 := regexp.MustCompile(`(?m)^level +0 vtxdist .*\(([\d.]+)%\) across the ranks$`)
		for _, note := range res.Notes {
			if m := in.FindStringSubmatch(note); m != nil {
				l := lvl0.FindStringSubmatch(tr.String())
				if l == nil {
					rankFail("no level 0 traced:\n%s", tr.String())
				}
				before, _ := strconv.ParseFloat(m[1], 64)
				after, _ := strconv.ParseFloat(l[1], 64)
				if after >= before {
					rankFail("renumbered from %.1f%% to %.1f%% of the entries across the ranks", before, after)
				}
			}
		}
		fmt.Println("spread ok")
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
}
