package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestReadAllPeersKeepsFeasibleRows: an infeasible peer result (KaHIP's
// rounding of the balance bound exceeds (1+eps)*ceil(n/k) on small graphs)
// must not become the bar strong is measured against.
func TestReadAllPeersKeepsFeasibleRows(t *testing.T) {
	p := filepath.Join(t.TempDir(), "peers.csv")
	csv := "graph,n,m,k,H,tool,cpu_s,J,maxblock,feasible_ceil\n" +
		"g,10,20,64,4:8:2,gms_eco,0.1,100,1,false\n" +
		"g,10,20,64,4:8:2,kaffpa_eco,0.1,120,1,true\n" +
		"g,10,20,192,4:8:6,sharedmap_strong,0.1,300,1,true\n"
	if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readAllPeers(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["g/4:8:2"]["gms_eco"]; ok {
		t.Errorf("the infeasible gms_eco row was kept: %v", got)
	}
	if got["g/4:8:2"]["kaffpa_eco"] != 120 || got["g/4:8:6"]["sharedmap_strong"] != 300 {
		t.Errorf("feasible rows: %v", got)
	}
	if m, err := readAllPeers(filepath.Join(t.TempDir(), "none.csv")); err != nil || len(m) != 0 {
		t.Errorf("a missing peers.csv must read as no peers, got %v, %v", m, err)
	}
}

// TestRCStat: the geometric mean and the worst instance of a ratio, with
// undefined ratios (a zero J against a zero J is 1, a positive J against
// zero is +Inf) left out rather than poisoning the mean.
func TestRCStat(t *testing.T) {
	var s rcStat
	s.add(0.5, "a")
	s.add(2, "b")
	s.add(math.Inf(1), "c")
	s.add(0.8, "d")
	if len(s.logs) != 3 || s.at != "b" || s.worst != 2 {
		t.Fatalf("logs %v, worst %g at %q", s.logs, s.worst, s.at)
	}
	if g := gmean(s.logs); math.Abs(g-math.Cbrt(0.8)) > 1e-12 {
		t.Errorf("gmean %g, want %g", g, math.Cbrt(0.8))
	}
}
