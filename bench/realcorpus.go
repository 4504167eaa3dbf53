package main

// The real-corpus table of issue 25: gpumap's presets and algorithms against
// Scotch (run here, in the same sitting) and against the peers measured by
// bench/realcorpus/peers.py (read from DIR/peers.csv), per family and per
// half of the corpus (DIR/corpus.csv, see bench/realcorpus/README.md).
//
//	go run ./bench -realcorpus /work/corpus   (onto 4:8:1, 4:8:2, 4:8:4 and 4:8:6; -H for others)
//
// Rules are fit on the fit half and reported on the report half, so the table
// prints both halves side by side; a rule that helps only on fit is dropped.

import (
	"encoding/csv"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

var (
	realCorpus = flag.String("realcorpus", "", "folder of the real-graph corpus (corpus.csv, peers.csv, *.graph): print the fit/report table instead (see realcorpus.go)")
	rcHalf     = flag.String("half", "", "realcorpus: only this half (fit or report)")
	rcFamily   = flag.String("family", "", "realcorpus: only these comma-separated families")
	rcJobs     = flag.Int("j", 1, "realcorpus: instances run at once")
	rcFrom     = flag.String("rc-from", "", "realcorpus: take the instance table from this earlier output instead of running (to compare with peers measured since)")
	rcRerun    = flag.String("rc-rerun", "", "realcorpus: with -rc-from, run these again (comma-separated: scotch, default, strong, hm, im) and keep the earlier table's other columns; without, run only these (the others print J -1 and stay out of the ratios)")
	rcOnly     = flag.String("rc-only", "", "realcorpus, with -rc-rerun: only these instances (comma-separated graph@H)")
)

type rcGraph struct{ name, family, half string }

// rcRuns are the gpumap runs of one instance: the presets, and the default
// preset with each algorithm forced, for the auto-versus-measured check.
var rcRuns = []struct{ key, preset, alg string }{
	{"default", "default", "auto"},
	{"strong", "strong", "auto"},
	{"hm", "default", "hm"},
	{"im", "default", "im"},
}

// rcPeerTools are the tools of peers.csv the table compares with; the eco
// ones make up "best eco peer".
var rcEco = []string{"kaffpa_eco", "gms_eco", "sharedmap_eco"}
var rcStrongPeers = []string{"sharedmap_strong", "gms_strong"}

func readCorpus(dir string) ([]rcGraph, error) {
	f, err := os.Open(filepath.Join(dir, "corpus.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) < 2 || len(rows[0]) < 8 || rows[0][0] != "name" || rows[0][1] != "family" || rows[0][7] != "half" {
		return nil, fmt.Errorf("%s/corpus.csv: want the header name,family,n,m,repo,commit,path,half", dir)
	}
	var gs []rcGraph
	for _, r := range rows[1:] {
		gs = append(gs, rcGraph{r[0], r[1], r[7]})
	}
	return gs, nil
}

// readAllPeers returns J per "graph/H" and tool, of feasible rows only: an
// infeasible peer result is no bar to compare with.
func readAllPeers(path string) (map[string]map[string]int64, error) {
	out := map[string]map[string]int64{}
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return out, nil
		}
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	for _, r := range rows[1:] {
		if len(r) < 10 || r[9] != "true" {
			continue
		}
		j, err := strconv.ParseInt(r[7], 10, 64)
		if err != nil {
			continue
		}
		key := r[0] + "/" + r[4]
		if out[key] == nil {
			out[key] = map[string]int64{}
		}
		out[key][r[5]] = j
	}
	return out, nil
}

func rcGpumap(bin, path, h, dist string, eps float64, preset, alg string, threads int, g *graph.Graph, top *topology.Topology, work string) (result, error) {
	out := filepath.Join(work, "gpumap.map")
	cpu, wall, msg, err := timed(exec.Command(bin, "map", "-q", "-g", path, "-h", h, "-d", dist,
		"-e", fmt.Sprint(eps), "-c", preset, "-a", alg, "-t", strconv.Itoa(threads), "-m", out))
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			return result{}, fmt.Errorf("%v\n%s", err, msg)
		}
	}
	m, err := evalMapFile(out, g, top, eps)
	if err != nil {
		return result{}, err
	}
	return result{J: m.J, CPU: cpu, Wall: wall, OK: m.Feasible}, nil
}

// rcStat collects the logs of one ratio and remembers its worst instance.
type rcStat struct {
	logs  []float64
	worst float64
	at    string
}

func (s *rcStat) add(v float64, inst string) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return
	}
	s.logs = append(s.logs, math.Log(v))
	if v > s.worst {
		s.worst, s.at = v, inst
	}
}

func (s *rcStat) String() string {
	if s == nil || len(s.logs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.4f (n=%d, worst %.3f %s)", gmean(s.logs), len(s.logs), s.worst, s.at)
}

// rcRatios are the table's columns, in print order.
var rcRatios = []string{
	"default J / scotch_b",
	"default cpu / scotch_b",
	"strong J / best eco peer",
	"strong J / sharedmap_strong",
	"strong J / gms_strong",
	"strong cpu / scotch_b",
	"strong wall s",
	"auto J / min(hm,im)",
	"hm J / scotch_b",
	"im J / scotch_b",
	"best eco peer J / scotch_b",
}

func runRealCorpus(dir, hiers, dist string, eps float64, bin string, threads int, work string) error {
	// redo: the runs of an instance to run again (-rc-rerun), nil: all.
	var redo map[string]bool
	if *rcRerun != "" {
		redo = map[string]bool{}
		for _, k := range strings.Split(*rcRerun, ",") {
			redo[k] = true
		}
	}
	only := map[string]bool{}
	for _, i := range strings.Split(*rcOnly, ",") {
		if i != "" {
			only[i] = true
		}
	}
	runs := func(in rcInst) bool {
		return *rcFrom == "" || redo != nil && (len(only) == 0 || only[in.g.name+"@"+in.h])
	}
	if *rcFrom == "" || redo != nil {
		var cleanup func()
		var err error
		if work, bin, cleanup, err = setup(work, bin); err != nil {
			return err
		}
		defer cleanup()
	}
	gs, err := readCorpus(dir)
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("scotch_gmap"); err != nil {
		return fmt.Errorf("scotch_gmap not found (apt-get install scotch)")
	}
	fams := map[string]bool{}
	for _, f := range strings.Split(*rcFamily, ",") {
		if f != "" {
			fams[f] = true
		}
	}
	// stats[group][ratio]; the groups are "family/half", "all/half" and "all/all".
	stats := map[string]map[string]*rcStat{}
	add := func(fam, half, ratio string, v float64, inst string) {
		for _, grp := range []string{fam + "/" + half, "all/" + half, "all/all"} {
			if stats[grp] == nil {
				stats[grp] = map[string]*rcStat{}
			}
			if stats[grp][ratio] == nil {
				stats[grp][ratio] = &rcStat{}
			}
			stats[grp][ratio].add(v, inst)
		}
	}
	fmt.Printf("# realcorpus: %s, H=%s, D=%s, eps=%g, gpumap threads=%d, %s\n", dir, hiers, dist, eps, threads, time.Now().Format(time.RFC3339))
	fmt.Printf("# Scotch is scotch_gmap -cb -Cd, run here; peers from %s/peers.csv (feasible rows only)\n", dir)
	fmt.Printf("%-16s %-7s %-6s %-6s %10s %7s", "graph", "family", "half", "H", "J_scotchb", "t_sc")
	for _, r := range rcRuns {
		fmt.Printf(" | %10s %7s", "J_"+r.key, "t")
	}
	fmt.Println()
	var insts []rcInst
	// Instances run concurrently (-j): each in its own scratch folder, the
	// CPU times are the processes' own and so unaffected, and a loaded
	// machine finishes the corpus in a fraction of the wall time.
	for _, gi := range gs {
		if (*rcHalf != "" && gi.half != *rcHalf) || (len(fams) > 0 && !fams[gi.family]) {
			continue
		}
		for _, h := range strings.Split(hiers, ",") {
			if *rcFrom == "" {
				insts = append(insts, rcInst{g: gi, h: h})
			}
		}
	}
	if *rcFrom != "" {
		// Re-summarise an earlier run's instance table against the peers
		// measured since.
		if insts, err = rcParse(*rcFrom, gs); err != nil {
			return err
		}
	}
	errs := make([]error, len(insts))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, *rcJobs); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = rcInstance(&insts[i], filepath.Join(work, strconv.Itoa(i)), dir, dist, eps, bin, threads, redo)
				if errs[i] == nil {
					fmt.Fprintf(os.Stderr, "%s@%s done\n", insts[i].g.name, insts[i].h)
				}
			}
		}()
	}
	for i := range insts {
		if runs(insts[i]) {
			next <- i
		}
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for _, in := range insts {
		gi, h, sc, res := in.g, in.h, in.sc, in.runs
		inst := gi.name + "@" + h
		fmt.Printf("%-16s %-7s %-6s %-6s %10d %7.3f", gi.name, gi.family, gi.half, h, sc.J, sc.CPU)
		for _, r := range rcRuns {
			x := res[r.key]
			mark := " "
			if !x.OK {
				mark = "!"
			}
			fmt.Printf(" | %10d%s%6.3f", x.J, mark, x.CPU)
		}
		fmt.Println()
		f, hf := gi.family, gi.half
		if sc.J >= 0 {
			add(f, hf, "default J / scotch_b", ratio(res["default"].J, sc.J), inst)
			add(f, hf, "default cpu / scotch_b", res["default"].CPU/sc.CPU, inst)
			add(f, hf, "strong cpu / scotch_b", res["strong"].CPU/sc.CPU, inst)
			add(f, hf, "hm J / scotch_b", ratio(res["hm"].J, sc.J), inst)
			add(f, hf, "im J / scotch_b", ratio(res["im"].J, sc.J), inst)
		}
		add(f, hf, "strong wall s", res["strong"].Wall, inst)
		add(f, hf, "auto J / min(hm,im)", ratio(res["default"].J, min(res["hm"].J, res["im"].J)), inst)
	}
	// The peers are read now, after the gpumap runs, so that a bench started
	// while peers.py still runs compares with everything measured by its end.
	peers, err := readAllPeers(filepath.Join(dir, "peers.csv"))
	if err != nil {
		return err
	}
	fmt.Printf("# peers (feasible rows of %s/peers.csv, read after the runs above)\n", dir)
	fmt.Printf("%-16s %-6s %10s | %10s %-13s %10s %10s\n", "graph", "H", "J_strong", "J_eco", "best eco", "J_smStrong", "J_gmsStrong")
	for _, in := range insts {
		p := peers[in.g.name+"/"+in.h]
		var eco int64 = -1
		ecoTool := "-"
		for _, t := range rcEco {
			if j, ok := p[t]; ok && (eco < 0 || j < eco) {
				eco, ecoTool = j, t
			}
		}
		fmt.Printf("%-16s %-6s %10d | %10d %-13s %10d %10d\n", in.g.name, in.h, in.runs["strong"].J, eco, ecoTool, orMinus(p, "sharedmap_strong"), orMinus(p, "gms_strong"))
		f, hf, inst, strong := in.g.family, in.g.half, in.g.name+"@"+in.h, in.runs["strong"].J
		if eco >= 0 {
			add(f, hf, "strong J / best eco peer", ratio(strong, eco), inst)
			if in.sc.J >= 0 {
				add(f, hf, "best eco peer J / scotch_b", ratio(eco, in.sc.J), inst)
			}
		}
		for _, t := range rcStrongPeers {
			if j, ok := p[t]; ok {
				add(f, hf, "strong J / "+t, ratio(strong, j), inst)
			}
		}
	}
	var groups []string
	for grp := range stats {
		groups = append(groups, grp)
	}
	// Families first (each with its fit and report rows together), then the
	// halves over all families, then everything.
	sort.Slice(groups, func(i, j int) bool {
		rank := func(g string) int {
			switch {
			case g == "all/all":
				return 2
			case strings.HasPrefix(g, "all/"):
				return 1
			}
			return 0
		}
		if ri, rj := rank(groups[i]), rank(groups[j]); ri != rj {
			return ri < rj
		}
		return groups[i] < groups[j]
	})
	fmt.Println("# geometric means (ratio < 1: gpumap better or faster); worst = the largest ratio and its instance")
	for _, ratioName := range rcRatios {
		fmt.Printf("# %s\n", ratioName)
		for _, grp := range groups {
			if s := stats[grp][ratioName]; s != nil {
				fmt.Printf("#   %-16s %s\n", grp, s)
			}
		}
	}
	return nil
}

type rcInst struct {
	g    rcGraph
	h    string
	sc   result
	runs map[string]result
}

// rcInstance runs Scotch and every gpumap run of one instance in work, or
// where redo is not nil only those it names ("scotch" for Scotch).
func rcInstance(in *rcInst, work, dir, dist string, eps float64, bin string, threads int, redo map[string]bool) error {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, in.g.name+".graph")
	g, err := graph.ReadFile(path)
	if err != nil {
		return err
	}
	top, err := topology.Parse(in.h, dist)
	if err != nil {
		return err
	}
	inst := in.g.name + "@" + in.h
	if redo == nil || redo["scotch"] {
		grf, err := scotchGraph(work, in.g.name, path)
		if err != nil {
			return err
		}
		// Scotch's -cb strategy can run for hours on some graphs
		// (social_location on this machine: over 15 minutes); past
		// rcScotchLimit the instance is compared without Scotch (J_scotchb
		// -1).
		if in.sc, err = rcScotch(g, top, grf, work, eps); err != nil {
			return fmt.Errorf("%s: scotch: %w", inst, err)
		}
	}
	if in.runs == nil {
		// A fresh instance: the columns not run (-rc-rerun) read as absent.
		in.runs = map[string]result{}
		for _, r := range rcRuns {
			in.runs[r.key] = result{J: -1}
		}
		if redo != nil && !redo["scotch"] {
			in.sc = result{J: -1}
		}
	}
	for _, r := range rcRuns {
		if redo != nil && !redo[r.key] {
			continue
		}
		x, err := rcGpumap(bin, path, in.h, dist, eps, r.preset, r.alg, threads, g, top, work)
		if err != nil {
			return fmt.Errorf("%s %s: %w", inst, r.key, err)
		}
		in.runs[r.key] = x
	}
	return nil
}

var rcScotchLimit = flag.Duration("scotch-limit", 10*time.Minute, "realcorpus: wall-time limit of one Scotch run")

func rcScotch(g *graph.Graph, top *topology.Topology, grf, work string, eps float64) (result, error) {
	return runScotchLimit(g, top, grf, work, eps, *rcScotchLimit)
}

// rcParse reads the instance rows of an earlier -realcorpus output.
func rcParse(path string, gs []rcGraph) ([]rcInst, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	known := map[string]rcGraph{}
	for _, g := range gs {
		known[g.name] = g
	}
	var insts []rcInst
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) != 1+len(rcRuns) || strings.HasPrefix(line, "#") {
			continue
		}
		head := strings.Fields(parts[0])
		g, ok := known[head[0]]
		if len(head) != 6 || !ok {
			continue
		}
		in := rcInst{g: g, h: head[3], runs: map[string]result{}}
		in.sc.J, _ = strconv.ParseInt(head[4], 10, 64)
		in.sc.CPU, _ = strconv.ParseFloat(head[5], 64)
		for i, r := range rcRuns {
			f := strings.Fields(strings.Replace(parts[1+i], "!", "! ", 1))
			if len(f) != 2 {
				return nil, fmt.Errorf("%s: cannot read %q", path, line)
			}
			x := result{OK: !strings.HasSuffix(f[0], "!")}
			x.J, _ = strconv.ParseInt(strings.TrimSuffix(f[0], "!"), 10, 64)
			x.CPU, _ = strconv.ParseFloat(f[1], 64)
			in.runs[r.key] = x
		}
		insts = append(insts, in)
	}
	if len(insts) == 0 {
		return nil, fmt.Errorf("%s: no instance rows", path)
	}
	return insts, nil
}

func orMinus(p map[string]int64, tool string) int64 {
	if j, ok := p[tool]; ok {
		return j
	}
	return -1
}
