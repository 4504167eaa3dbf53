// Command bench runs gpumap and Scotch (scotch_gmap) side by side on METIS
// benchmark graphs and prints, per instance, the cost J and the CPU time
// (user+sys of the whole process) of both, their ratios and geometric means.
// Every mapping is checked twice: by "gpumap eval" and by an independent
// recomputation of J here.
//
//	go run ./bench -graphs ../shared/graphs -presets fast,default,strong
//
// Scotch gets the tleaf target of the hierarchy ('tleaf L aL (dL-dL-1) ...
// a1 d1', levels of size 1 left out) with -b<eps> -cb -Cd. peers.csv, when
// present beside the graphs, adds the best published peer (KaHIP and
// SharedMap eco) to the strong preset's comparison.
package main

import (
	"bufio"
	"context"
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
	"time"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

func main() {
	graphsDir := flag.String("graphs", "../shared/graphs", "folder with *.graph files")
	only := flag.String("only", "", "comma-separated graph names (default: those in peers.csv, else all)")
	hiers := flag.String("H", "4:8:1,4:8:2,4:8:4,4:8:6", "comma-separated hierarchies")
	dist := flag.String("D", "1:10:100", "distances")
	eps := flag.Float64("e", 0.03, "imbalance")
	presets := flag.String("presets", "default", "comma-separated gpumap presets")
	bin := flag.String("gpumap", "", "gpumap binary (default: build ./cmd/gpumap)")
	threads := flag.Int("t", 0, "gpumap threads (0: all cores)")
	noScotch := flag.Bool("noscotch", false, "skip Scotch")
	work := flag.String("work", "", "scratch folder (default: a temporary one)")
	oto := flag.String("onetoone", "", "folder of one-to-one instances: print the one-to-one table instead (see onetoone.go)")
	viem := flag.String("viem", "", "one-to-one: a VieM binary to run in the same run (eco)")
	reps := flag.Int("reps", 1, "one-to-one: runs per tool and instance (the median CPU time is reported); scale: runs per tool and graph (the fastest is reported)")
	scale := flag.String("scale", "", "print the scale table instead, for generated graphs of these sizes (base-2 logarithms, e.g. 18,20,22; see scale.go)")
	scaleSeed := flag.Uint64("scale-seed", 7, "scale: seed of the generated rgg graphs")
	flag.StringVar(&scaleGrid, "scale-grid", "", "scale: extents of the 3D grid, e.g. 90x120x97 (default: 2^lg vertices)")
	distSizes := flag.String("dist", "", "print the distributed table instead (issue 24), for generated graphs of these sizes (base-2 logarithms, e.g. 20,22, or none; see dist.go)")
	distRMAT := flag.Int("dist-rmat", 16, "dist: base-2 logarithm of the R-MAT graph's ids (0: none; see dist.go for why not 20)")
	distReal := flag.String("dist-real", "", "dist: comma-separated METIS files of real graphs to add")
	distLimit := flag.Duration("dist-limit", 10*time.Minute, "dist: wall-time limit of one gpumap-mpi or dgpart run (its row says so)")
	distProcs := flag.String("dist-procs", "1,2,4", "dist: process counts of gpumap-mpi and dgpart")
	distShort := flag.Int("dist-short", 22, "dist: generated graphs of 2^N vertices and more run map -t 2 and P > 1 only (0: every row; see dist.go)")
	distDgRuns := flag.Int("dist-dgpart-runs", 3, "dist: dgpart runs at each P, each with a seed of its own (its median and lowest J are printed; see dist.go)")
	distDgStrat := flag.String("dist-dgpart-strat", "", "dist: dgpart's strategy flags (-c; \"\": Scotch's default); b enforces the balance, which keeps its mappings within Lmax (see dist.go)")
	distMPI := flag.String("gpumap-mpi", "", "dist: gpumap-mpi binary (default: beside -gpumap)")
	lock := flag.String("lock", "/tmp/gpumap-bench.lock", "dist: lock held during each timed run (\"\": none)")
	flag.Parse()
	if *distSizes != "" {
		o := distOpts{rmat: *distRMAT, hier: "4:8:6", dist: *dist, eps: *eps, seed: *scaleSeed,
			bin: *bin, mpi: *distMPI, work: *work, lock: *lock, noScotch: *noScotch, limit: *distLimit, short: *distShort,
			dgRuns: max(*distDgRuns, 1), dgContext: "r", dgStrategy: *distDgStrat}
		if *distReal != "" {
			o.real = strings.Split(*distReal, ",")
		}
		flag.Visit(func(f *flag.Flag) {
			if f.Name == "H" {
				o.hier = *hiers
			}
		})
		err := func() error {
			for _, f := range strings.Split(*distSizes, ",") {
				if f == "none" {
					continue // real graphs (and R-MAT) only
				}
				lg, err := strconv.Atoi(f)
				if err != nil || lg < 4 || lg > 30 {
					return fmt.Errorf("-dist %q: want base-2 logarithms like 20,22", *distSizes)
				}
				o.sizes = append(o.sizes, lg)
			}
			for _, f := range strings.Split(*distProcs, ",") {
				p, err := strconv.Atoi(f)
				if err != nil || p < 1 || p > 1024 {
					return fmt.Errorf("-dist-procs %q: want process counts like 1,2,4", *distProcs)
				}
				o.procs = append(o.procs, p)
			}
			return runDist(o)
		}()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *scale != "" {
		h := "4:8:6" // the machine, unless -H names one
		flag.Visit(func(f *flag.Flag) {
			if f.Name == "H" {
				h = *hiers
			}
		})
		preset := strings.Split(*presets, ",")[0]
		if err := runScale(*scale, h, *dist, *eps, preset, *bin, *work, *scaleSeed, *reps); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *realCorpus != "" {
		// The held-out check maps onto all four; -H 4:8:2,4:8:6 gives the
		// rows of the tables before 4:8:1 and 4:8:4 were added (the
		// corpus's peers.csv holds those two only).
		h := "4:8:1,4:8:2,4:8:4,4:8:6"
		flag.Visit(func(f *flag.Flag) {
			if f.Name == "H" {
				h = *hiers
			}
		})
		if *rcFrom != "" {
			h = "the rows of " + *rcFrom
		}
		if err := runRealCorpus(*realCorpus, h, *dist, *eps, *bin, *threads, *work); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *oto != "" {
		if err := runOneToOne(*oto, *dist, *presets, *bin, *threads, *noScotch, *viem, *work, *reps); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*graphsDir, *only, *hiers, *dist, *eps, *presets, *bin, *threads, *noScotch, *work); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type result struct {
	J    int64
	CPU  float64
	Wall float64
	OK   bool
}

func run(graphsDir, only, hiers, dist string, eps float64, presetList, bin string, threads int, noScotch bool, work string) error {
	work, bin, cleanup, err := setup(work, bin)
	if err != nil {
		return err
	}
	defer cleanup()
	peers, _ := readPeers(filepath.Join(graphsDir, "peers.csv"))
	names := selectGraphs(graphsDir, only, peers)
	if len(names) == 0 {
		return fmt.Errorf("no graphs in %s", graphsDir)
	}
	if !noScotch {
		if _, err := exec.LookPath("scotch_gmap"); err != nil {
			return fmt.Errorf("scotch_gmap not found (apt-get install scotch), or pass -noscotch")
		}
	}
	presetNames := strings.Split(presetList, ",")
	fmt.Printf("# bench: %d graphs, H=%s, D=%s, eps=%g, presets=%s, gpumap threads=%d, %s\n",
		len(names), hiers, dist, eps, presetList, threads, time.Now().Format(time.RFC3339))
	fmt.Printf("%-16s %-6s %10s %7s", "graph", "H", "J_scotch", "t_sc")
	for _, p := range presetNames {
		fmt.Printf(" | %10s %7s %6s %6s", "J_"+p, "t", "J/sc", "t/sc")
	}
	fmt.Printf(" | %10s %s\n", "J_peer", "peer")
	logJ := map[string][]float64{}
	logT := map[string][]float64{}
	var logPeer []float64
	var logPeerStrong []float64
	logTool := map[string][]float64{}
	worstT := map[string]float64{}
	for _, name := range names {
		path := filepath.Join(graphsDir, name+".graph")
		g, err := graph.ReadFile(path)
		if err != nil {
			return err
		}
		grf := filepath.Join(work, name+".grf")
		if !noScotch {
			if _, err := scotchGraph(work, name, path); err != nil {
				return err
			}
		}
		for _, h := range strings.Split(hiers, ",") {
			top, err := topology.Parse(h, dist)
			if err != nil {
				return err
			}
			var sc result
			if !noScotch {
				sc, err = runScotch(g, top, grf, work, eps)
				if err != nil {
					return fmt.Errorf("%s %s: scotch: %w", name, h, err)
				}
			}
			fmt.Printf("%-16s %-6s %10d %7.3f", name, h, sc.J, sc.CPU)
			for _, p := range presetNames {
				r, err := runGpumap(bin, g, top, path, h, dist, eps, p, threads, work)
				if err != nil {
					return fmt.Errorf("%s %s %s: %w", name, h, p, err)
				}
				mark := " "
				if !r.OK {
					mark = "!"
				}
				jr, tr := ratio(r.J, sc.J), r.CPU/sc.CPU
				fmt.Printf(" | %10d%s%6.3f %6.3f %6.3f", r.J, mark, r.CPU, jr, tr)
				if !noScotch {
					logJ[p] = append(logJ[p], math.Log(jr))
					logT[p] = append(logT[p], math.Log(tr))
				}
				worstT[p] = math.Max(worstT[p], r.CPU)
				if pb, ok := peers[name+"/"+h]; ok && p == "strong" {
					logPeerStrong = append(logPeerStrong, math.Log(float64(r.J)/float64(pb.J)))
					for tool, j := range pb.All {
						logTool[tool] = append(logTool[tool], math.Log(float64(r.J)/float64(j)))
					}
				}
			}
			if pb, ok := peers[name+"/"+h]; ok {
				fmt.Printf(" | %10d %s", pb.J, pb.Tool)
				if !noScotch {
					logPeer = append(logPeer, math.Log(ratio(pb.J, sc.J)))
				}
			}
			fmt.Println()
		}
	}
	fmt.Println("# geometric means over all instances (ratios < 1: gpumap better / faster than Scotch)")
	for _, p := range presetNames {
		fmt.Printf("# %-8s J/scotch %.4f   cpu/scotch %.3f   slowest instance %.2f s\n",
			p, gmean(logJ[p]), gmean(logT[p]), worstT[p])
	}
	if len(logPeer) > 0 {
		fmt.Printf("# best eco peer (peers.csv) J/scotch %.4f\n", gmean(logPeer))
	}
	if len(logPeerStrong) > 0 {
		fmt.Printf("# strong J / per-instance best eco peer %.4f over %d instances\n", gmean(logPeerStrong), len(logPeerStrong))
		var tools []string
		for t := range logTool {
			tools = append(tools, t)
		}
		sort.Strings(tools)
		for _, t := range tools {
			fmt.Printf("# strong J / %s %.4f (geometric mean of ratios over %d instances)\n", t, gmean(logTool[t]), len(logTool[t]))
		}
	}
	return nil
}

func ratio(a, b int64) float64 {
	if b == 0 {
		if a == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return float64(a) / float64(b)
}

func gmean(logs []float64) float64 {
	if len(logs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, l := range logs {
		s += l
	}
	return math.Exp(s / float64(len(logs)))
}

// timed runs cmd and returns its CPU (user+sys) and wall seconds.
func timed(cmd *exec.Cmd) (cpu, wall float64, out []byte, err error) {
	start := time.Now()
	out, err = cmd.CombinedOutput()
	wall = time.Since(start).Seconds()
	if cmd.ProcessState != nil {
		cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	return
}

func tleaf(top *topology.Topology) string {
	a, _ := top.Arity()
	d := top.Distances()
	var parts []string
	levels := 0
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] == 1 {
			continue
		}
		prev := int64(0)
		if i > 0 {
			prev = d[i-1]
		}
		parts = append(parts, strconv.Itoa(a[i]), strconv.FormatInt(d[i]-prev, 10))
		levels++
	}
	return fmt.Sprintf("tleaf %d %s", levels, strings.Join(parts, " "))
}

func runScotch(g *graph.Graph, top *topology.Topology, grf, work string, eps float64) (result, error) {
	return runScotchLimit(g, top, grf, work, eps, 0)
}

// runScotchLimit runs scotch_gmap -cb on the tleaf target of top and
// evaluates its mapping; past limit (> 0) of wall time it is stopped and
// the result has J = -1.
func runScotchLimit(g *graph.Graph, top *topology.Topology, grf, work string, eps float64, limit time.Duration) (result, error) {
	tgt := filepath.Join(work, "target.tgt")
	if err := os.WriteFile(tgt, []byte(tleaf(top)+"\n"), 0o644); err != nil {
		return result{}, err
	}
	out := filepath.Join(work, "scotch.map")
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if limit > 0 {
		ctx, cancel = context.WithTimeout(ctx, limit)
	}
	defer cancel()
	cpu, wall, msg, err := timed(exec.CommandContext(ctx, "scotch_gmap", fmt.Sprintf("-b%g", eps), "-cb", "-Cd", grf, tgt, out))
	if ctx.Err() != nil {
		return result{J: -1, CPU: cpu, Wall: wall}, nil
	}
	if err != nil {
		return result{}, fmt.Errorf("%v\n%s", err, msg)
	}
	pe, err := readScotchMap(out, g.N())
	if err != nil {
		return result{}, err
	}
	m, err := graph.Evaluate(g, top, pe, eps)
	if err != nil {
		return result{}, err
	}
	return result{J: m.J, CPU: cpu, Wall: wall, OK: m.Feasible}, nil
}

// readScotchMap reads scotch_gmap output: a count, then "label part" lines.
func readScotchMap(path string, n int) ([]int32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("empty scotch mapping")
	}
	labels := make([]int64, 0, n)
	parts := make([]int32, 0, n)
	minL := int64(math.MaxInt64)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		l, _ := strconv.ParseInt(f[0], 10, 64)
		p, _ := strconv.ParseInt(f[1], 10, 32)
		labels = append(labels, l)
		parts = append(parts, int32(p))
		minL = min(minL, l)
	}
	if len(labels) != n {
		return nil, fmt.Errorf("scotch mapping has %d entries for %d vertices", len(labels), n)
	}
	pe := make([]int32, n)
	for i, l := range labels {
		pe[l-minL] = parts[i]
	}
	return pe, nil
}

func runGpumap(bin string, g *graph.Graph, top *topology.Topology, path, h, dist string, eps float64, preset string, threads int, work string) (result, error) {
	out := filepath.Join(work, "gpumap.map")
	cpu, wall, msg, err := timed(exec.Command(bin, "map", "-q", "-g", path, "-h", h, "-d", dist,
		"-e", fmt.Sprint(eps), "-c", preset, "-t", strconv.Itoa(threads), "-m", out))
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			return result{}, fmt.Errorf("%v\n%s", err, msg)
		}
	}
	m, err := evalMapFile(out, g, top, eps)
	if err != nil {
		return result{}, err
	}
	// The tool's own evaluation must agree with the recomputation here.
	ev, _ := exec.Command(bin, "eval", "-g", path, "-h", h, "-d", dist, "-e", fmt.Sprint(eps), "-m", out).Output()
	if !strings.Contains(string(ev), fmt.Sprintf("J=%d\n", m.J)) {
		return result{}, fmt.Errorf("gpumap eval disagrees with the recomputed J=%d:\n%s", m.J, ev)
	}
	return result{J: m.J, CPU: cpu, Wall: wall, OK: m.Feasible}, nil
}

type peer struct {
	J    int64
	Tool string
	All  map[string]int64 // every eco tool's J on the instance
}

// readPeers returns, per "graph/H", the best feasible eco result of KaHIP
// (kaffpa, global multisection) and SharedMap.
func readPeers(path string) (map[string]peer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	best := map[string]peer{}
	for _, r := range rows[1:] {
		if len(r) < 10 {
			continue
		}
		tool := r[5]
		if tool != "kaffpa_eco" && tool != "gms_eco" && tool != "sharedmap_eco" {
			continue
		}
		j, _ := strconv.ParseInt(r[7], 10, 64)
		key := r[0] + "/" + r[4]
		b, ok := best[key]
		if !ok {
			b = peer{J: j, Tool: tool, All: map[string]int64{}}
		} else if j < b.J {
			b.J, b.Tool = j, tool
		}
		b.All[tool] = j
		best[key] = b
	}
	return best, nil
}

func selectGraphs(dir, only string, peers map[string]peer) []string {
	if only != "" {
		return strings.Split(only, ",")
	}
	seen := map[string]bool{}
	for k := range peers {
		seen[strings.Split(k, "/")[0]] = true
	}
	var names []string
	if len(seen) > 0 {
		for n := range seen {
			names = append(names, n)
		}
	} else {
		files, _ := filepath.Glob(filepath.Join(dir, "*.graph"))
		for _, f := range files {
			names = append(names, strings.TrimSuffix(filepath.Base(f), ".graph"))
		}
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// setup makes the scratch folder (a temporary one when work is empty) and
// builds gpumap when no binary is given.
func setup(work, bin string) (string, string, func(), error) {
	cleanup := func() {}
	if work == "" {
		d, err := os.MkdirTemp("", "gpumap-bench-")
		if err != nil {
			return "", "", nil, err
		}
		cleanup = func() { os.RemoveAll(d) }
		work = d
	}
	if bin == "" {
		bin = filepath.Join(work, "gpumap")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/gpumap").CombinedOutput(); err != nil {
			cleanup()
			return "", "", nil, fmt.Errorf("building gpumap: %v\n%s", err, out)
		}
	}
	return work, bin, cleanup, nil
}

// evalMapFile reads a mapping file (one PE per line) and evaluates it.
func evalMapFile(path string, g *graph.Graph, top *topology.Topology, eps float64) (graph.Metrics, error) {
	f, err := os.Open(path)
	if err != nil {
		return graph.Metrics{}, err
	}
	pe, err := graph.ReadMapping(f, g.N(), top.K())
	f.Close()
	if err != nil {
		return graph.Metrics{}, err
	}
	return graph.Evaluate(g, top, pe, eps)
}

// scotchGraph converts the METIS graph at path to Scotch's format with gcv
// and returns the file it wrote, work/name.grf.
func scotchGraph(work, name, path string) (string, error) {
	grf := filepath.Join(work, name+".grf")
	if out, err := exec.Command("gcv", "-ic", path, grf).CombinedOutput(); err != nil {
		return "", fmt.Errorf("gcv %s: %v\n%s", name, err, out)
	}
	return grf, nil
}

// genGraph writes the graph of `bin gen args` (bin: a gpumap binary) to
// path.
func genGraph(bin, name, path string, args []string) error {
	if out, err := exec.Command(bin, append(append([]string{"gen"}, args...), "-o", path)...).CombinedOutput(); err != nil {
		return fmt.Errorf("gen %s: %v\n%s", name, err, out)
	}
	return nil
}
