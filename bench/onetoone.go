package main

// The one-to-one table (rank reordering, n = k, eps 0):
//
//	go run ./bench -onetoone ../shared/one-to-one -presets default,strong [-viem /path/to/viem] [-reps 3]
//
// For every *.graph in the folder it prints the J of the identity (vertex i
// on PE i, the application's own order), of Scotch (run here: tleaf target,
// -b0 -Cd), of VieM eco (run here when -viem names a binary, else read
// from peers.csv) and of every gpumap preset, with CPU times (median of
// -reps runs) and the ratios to VieM eco, Scotch and the identity, then
// geometric means per family (irregular: names starting q_; stencil: s*
// and w*) and overall. The hierarchy comes from peers.csv when it lists
// the instance, else from n: 256 -> 16:2:8, 1024 -> 16:2:32, 4096 ->
// 32:2:64 (the conventions of ../shared/one-to-one). Every mapping is
// checked to be a permutation and its J recomputed here.

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/topology"
)

type otoPeer struct {
	H      string
	J      map[string]int64
	CPU    map[string]float64
	hasCPU map[string]bool
}

func readOneToOnePeers(path string) map[string]*otoPeer {
	out := map[string]*otoPeer{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		return out
	}
	for _, r := range rows[1:] {
		if len(r) < 8 {
			continue
		}
		p := out[r[0]]
		if p == nil {
			p = &otoPeer{H: r[3], J: map[string]int64{}, CPU: map[string]float64{}, hasCPU: map[string]bool{}}
			out[r[0]] = p
		}
		j, _ := strconv.ParseInt(r[6], 10, 64)
		p.J[r[5]] = j
		if c, err := strconv.ParseFloat(r[7], 64); err == nil {
			p.CPU[r[5]], p.hasCPU[r[5]] = c, true
		}
	}
	return out
}

func defaultHierarchy(n int) string {
	switch n {
	case 256:
		return "16:2:8"
	case 1024:
		return "16:2:32"
	case 4096:
		return "32:2:64"
	}
	return ""
}

func family(name string) string {
	switch {
	case strings.HasPrefix(name, "q_"):
		return "irregular"
	case strings.HasPrefix(name, "s") || strings.HasPrefix(name, "w"):
		return "stencil"
	}
	return "other"
}

// median runs f reps times and returns the result of the last run with the
// median CPU time.
func median(reps int, f func() (result, error)) (result, error) {
	var rs []result
	for i := 0; i < max(reps, 1); i++ {
		r, err := f()
		if err != nil {
			return r, err
		}
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].CPU < rs[j].CPU })
	return rs[len(rs)/2], nil
}

type logs map[string][]float64

func (l logs) add(key string, v float64) { l[key] = append(l[key], math.Log(v)) }

func runOneToOne(dir, dist, presetList, bin string, threads int, noScotch bool, viem, work string, reps int) error {
	work, bin, cleanup, err := setup(work, bin)
	if err != nil {
		return err
	}
	defer cleanup()
	peers := readOneToOnePeers(filepath.Join(dir, "peers.csv"))
	files, _ := filepath.Glob(filepath.Join(dir, "*.graph"))
	sort.Strings(files)
	if len(files) == 0 {
		return fmt.Errorf("no *.graph in %s", dir)
	}
	presets := strings.Split(presetList, ",")
	src := "peers.csv"
	if viem != "" {
		src = "run here"
	}
	fmt.Printf("# one-to-one: %d instances in %s, D=%s, eps=0, presets=%s, gpumap threads=%d, VieM eco %s, cpu = median of %d\n",
		len(files), dir, dist, presetList, threads, src, max(reps, 1))
	fmt.Printf("%-24s %-9s %8s %11s %11s %6s %11s %6s", "instance", "family", "H", "J_id", "J_scotch", "t_sc", "J_viem", "t_vi")
	for _, p := range presets {
		fmt.Printf(" | %11s %6s %6s %6s %6s %6s", "J_"+p, "t", "J/vi", "t/vi", "J/sc", "J/id")
	}
	fmt.Println()
	lg := map[string]logs{}
	worstID := map[string]float64{}
	strongWorse := 0
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".graph")
		g, err := graph.ReadFile(path)
		if err != nil {
			return err
		}
		pr := peers[name]
		h := defaultHierarchy(g.N())
		if pr != nil {
			h = pr.H
		}
		if h == "" {
			fmt.Printf("# %s: n=%d has no hierarchy, skipped\n", name, g.N())
			continue
		}
		top, err := topology.Parse(h, dist)
		if err != nil {
			return err
		}
		if top.K() != g.N() {
			return fmt.Errorf("%s: n=%d but %s has %d PEs", name, g.N(), h, top.K())
		}
		id := make([]int32, g.N())
		for i := range id {
			id[i] = int32(i)
		}
		mid, _ := graph.Evaluate(g, top, id, 0)
		fam := family(name)
		var sc result
		if !noScotch {
			grf, err := scotchGraph(work, name, path)
			if err != nil {
				return err
			}
			if sc, err = median(reps, func() (result, error) { return runScotch(g, top, grf, work, 0) }); err != nil {
				return fmt.Errorf("%s: scotch: %w", name, err)
			}
		}
		var vi result
		haveVi := false
		if viem != "" {
			if vi, err = median(reps, func() (result, error) { return runViem(viem, g, top, path, h, dist, work) }); err != nil {
				return fmt.Errorf("%s: viem: %w", name, err)
			}
			haveVi = true
		} else if pr != nil && pr.hasCPU["viem_eco"] {
			vi = result{J: pr.J["viem_eco"], CPU: pr.CPU["viem_eco"], OK: true}
			haveVi = true
		}
		fmt.Printf("%-24s %-9s %8s %11d %11d %6.3f %11d %6.2f", name, fam, h, mid.J, sc.J, sc.CPU, vi.J, vi.CPU)
		js := map[string]int64{}
		for _, p := range presets {
			r, err := median(reps, func() (result, error) {
				return runGpumap(bin, g, top, path, h, dist, 0, p, threads, work)
			})
			if err != nil {
				return fmt.Errorf("%s %s: %w", name, p, err)
			}
			mark := " "
			if !r.OK {
				mark = "!"
			}
			js[p] = r.J
			jv, tv := ratio(r.J, vi.J), r.CPU/vi.CPU
			js2, jid := ratio(r.J, sc.J), ratio(r.J, mid.J)
			fmt.Printf(" | %11d%s%6.3f %6.3f %6.3f %6.3f %6.3f", r.J, mark, r.CPU, jv, tv, js2, jid)
			for _, key := range []string{fam, "all"} {
				if lg[key+"/"+p] == nil {
					lg[key+"/"+p] = logs{}
				}
				l := lg[key+"/"+p]
				if haveVi {
					l.add("J/viem", jv)
					l.add("cpu/viem", tv)
				}
				if !noScotch {
					l.add("J/scotch", js2)
				}
				l.add("J/identity", jid)
				worstID[key+"/"+p] = math.Max(worstID[key+"/"+p], jid)
			}
		}
		if js["strong"] > 0 && js["default"] > 0 && js["strong"] > js["default"] {
			strongWorse++
			fmt.Print("  strong>default")
		}
		if pr != nil && pr.J["tiled"] > 0 {
			fmt.Printf("  tiled=%d", pr.J["tiled"])
		}
		fmt.Println()
	}
	fmt.Println("# geometric means of the ratios (< 1: gpumap better / faster)")
	var keys []string
	for k := range lg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("# %-20s", k)
		for _, m := range []string{"J/viem", "cpu/viem", "J/scotch", "J/identity"} {
			if v := lg[k][m]; len(v) > 0 {
				fmt.Printf("  %s %.4f", m, gmean(v))
			}
		}
		fmt.Printf("  worst J/identity %.4f  (%d instances)\n", worstID[k], len(lg[k]["J/identity"]))
	}
	if len(presets) > 1 {
		fmt.Printf("# instances where strong > default: %d\n", strongWorse)
	}
	return nil
}

// runViem runs VieM eco with the settings of ../shared/one-to-one/README.md
// and evaluates its mapping (one PE per line) here.
func runViem(viem string, g *graph.Graph, top *topology.Topology, path, h, dist, work string) (result, error) {
	out := filepath.Join(work, "viem.map")
	cpu, wall, msg, err := timed(exec.Command(viem, path, "--hierarchy_parameter_string="+h,
		"--distance_parameter_string="+dist, "--preconfiguration_mapping=eco",
		"--distance_construction_algorithm=hierarchy", "--seed=0", "--output_filename="+out))
	if err != nil {
		return result{}, fmt.Errorf("%v\n%s", err, msg)
	}
	m, err := evalMapFile(out, g, top, 0)
	if err != nil {
		return result{}, err
	}
	return result{J: m.J, CPU: cpu, Wall: wall, OK: m.Feasible}, nil
}
