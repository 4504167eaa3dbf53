package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/report"
	"github.com/gpumap/gpumap/mpirank/record"
	"github.com/gpumap/gpumap/topology"
)

// cmdPlace maps a recorded pattern one-to-one onto the slots of the given
// hosts and writes the launcher's input:
//
//	gpumap place -g PATTERN --hosts node0:8,node1:8 [-h 4:2] [-d 1:10:100] [-c preset] --rankfile OUT [--machinefile OUT]
//
// PEs are the slots, host by host. -h describes a host from the inside
// (4:2: sockets of 4 slots, 2 per host), or the whole machine in the
// CLI's usual form (4:2:2, the last level being the hosts); without it
// every host is one group. A host may have fewer slots than -h describes
// (a partly used node: its slots fill the groups in order). A machine
// file fixes hosts only (see machineFile), so J_machinefile, not J_placed,
// is what it gives. --svg draws
// the traffic between hosts (or --svg-level) before (the recorded order,
// else --map-by slot) and after, side by side.
func cmdPlace(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("gpumap place", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pattern := fs.String("g", "", "recorded pattern (METIS graph, one vertex per rank; GPUMAP_RECORD of libgpumap_record.so)")
	hostList := fs.String("hosts", "", "hosts and their slots, as mpirun -H takes them: node0:8,node1:8")
	hier := fs.String("h", "", "hierarchy inside a host, innermost first (4:2: sockets of 4 slots, 2 sockets), or a1:...:hosts")
	dist := fs.String("d", "", "distances d1:...:dL, one per level, the hosts' last (default 1:10:100:... by level)")
	preset := fs.String("c", "default", "preset: fast, default or strong")
	seed := fs.Uint64("s", 0, "random seed")
	threads := fs.Int("t", 0, fmt.Sprintf("threads (0: all %d cores)", runtime.NumCPU()))
	rankfile := fs.String("rankfile", "", "write an OpenMPI rankfile (rank i=HOST slot=S)")
	machinefile := fs.String("machinefile", "", "write an MPICH/Hydra machine file (one host per line, in rank order)")
	quiet := fs.Bool("q", false, "no progress on stderr")
	var svg svgFlags
	svg.register(fs)
	if err := fs.Parse(args); err != nil {
		return 0, usageError{err}
	}
	switch {
	case fs.NArg() > 0:
		return 0, usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	case *pattern == "":
		return 0, usageError{errors.New("missing -g pattern file")}
	case *hostList == "":
		return 0, usageError{errors.New("missing --hosts (e.g. --hosts node0:8,node1:8)")}
	case *rankfile == "" && *machinefile == "":
		return 0, usageError{errors.New("missing --rankfile or --machinefile: nothing to write")}
	case *threads < 0:
		return 0, usageError{fmt.Errorf("-t %d: thread count must be >= 0", *threads)}
	}
	opt := gpumap.DefaultOptions()
	var err error
	if opt.Preset, err = gpumap.ParsePreset(*preset); err != nil {
		return 0, usageError{err}
	}
	opt.Eps, opt.Seed, opt.Threads = 0, *seed, *threads
	if !*quiet {
		opt.Progress = stderr
	}
	hosts, err := parseHosts(*hostList)
	if err != nil {
		return 0, usageError{err}
	}
	m, err := newSlots(hosts, *hier, *dist)
	if err != nil {
		return 0, usageError{err}
	}
	level, err := m.svgLevel(svg)
	if err != nil {
		return 0, err
	}
	g, hdr, err := record.ReadFile(*pattern)
	if err != nil {
		return 0, err
	}
	pl, err := place(g, hdr, m, opt, stderr)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "ranks=%d slots=%d hosts=%d machine=%s\n", g.N(), m.top.K(), len(hosts), m.top)
	for _, c := range pl.launch {
		fmt.Fprintf(stdout, "J_%s=%.0f\n", c.name, c.j)
	}
	fmt.Fprintf(stdout, "J_placed=%.0f\n", pl.placed.j)
	var byHost candidate
	if *machinefile != "" {
		byHost = m.machineFile(g, pl)
		fmt.Fprintf(stdout, "J_machinefile=%.0f\n", byHost.j)
		if byHost.j > pl.placed.j {
			fmt.Fprintf(stderr, "gpumap: a machine file fixes only the host of each rank (J %.0f); the slots of J_placed (%.0f) need the rankfile: mpirun --rankfile (OpenMPI)\n",
				byHost.j, pl.placed.j)
		}
	}
	if svg.out != "" {
		if err := m.draw(svg.out, level, g, hdr, *pattern, pl); err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "svg=%s\n", svg.out)
	}
	if *rankfile != "" {
		if err := writeLines(*rankfile, g.N(), func(r int) string {
			p := int(pl.placed.pe[r])
			h := m.hostOf[p]
			return fmt.Sprintf("rank %d=%s slot=%d", r, hosts[h].name, p-m.first[h])
		}); err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "rankfile=%s\n", *rankfile)
	}
	if *machinefile != "" {
		if err := writeLines(*machinefile, g.N(), func(r int) string { return hosts[m.hostOf[byHost.pe[r]]].name }); err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "machinefile=%s\n", *machinefile)
	}
	return exitOK, nil
}

type host struct {
	name  string
	slots int
}

// parseHosts reads mpirun's -H syntax: name[:slots],... (no slot count: 1).
func parseHosts(s string) ([]host, error) {
	var hosts []host
	seen := map[string]bool{}
	for i, f := range strings.Split(s, ",") {
		name, count, hasCount := strings.Cut(strings.TrimSpace(f), ":")
		h := host{name: name, slots: 1}
		if hasCount {
			n, err := strconv.Atoi(count)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("--hosts %q: entry %d: slot count %q is not a positive integer", s, i+1, count)
			}
			h.slots = n
		}
		switch {
		case name == "" || strings.ContainsAny(name, " \t="):
			return nil, fmt.Errorf("--hosts %q: entry %d: %q is not a host name", s, i+1, name)
		case seen[name]:
			return nil, fmt.Errorf("--hosts %q: host %s is given twice", s, name)
		}
		seen[name] = true
		hosts = append(hosts, h)
	}
	total := 0
	for _, h := range hosts {
		if total += h.slots; total > topology.MaxPEs {
			return nil, fmt.Errorf("--hosts %q: more than %d slots", s, topology.MaxPEs)
		}
	}
	return hosts, nil
}

// slots is the machine of the placement: one PE per slot, host by host.
type slots struct {
	hosts  []host
	top    *topology.Topology
	first  []int   // first PE of every host
	hostOf []int   // host of every PE
	groups [][]int // groups[i][p]: PE p's group at inside level i+1 (sockets, ...)
}

func newSlots(hosts []host, hier, dist string) (*slots, error) {
	m := &slots{hosts: hosts, first: make([]int, len(hosts))}
	maxSlots := 0
	for i, h := range hosts {
		m.first[i] = len(m.hostOf)
		for j := 0; j < h.slots; j++ {
			m.hostOf = append(m.hostOf, i)
		}
		maxSlots = max(maxSlots, h.slots)
	}
	inside := []int{maxSlots} // no -h: a host is one group
	if hier != "" {
		a, err := topology.ParseHierarchy(hier)
		if err != nil {
			return nil, fmt.Errorf("-h: %w", err)
		}
		inside = a
		if prod(a) == len(m.hostOf) && len(a) >= 2 && a[len(a)-1] == len(hosts) {
			inside = a[:len(a)-1] // the whole machine, hosts last
		}
		for _, h := range hosts {
			if h.slots > prod(inside) {
				return nil, fmt.Errorf("host %s has %d slots but -h %s describes hosts of %d", h.name, h.slots, hier, prod(inside))
			}
		}
	}
	// Groups per level: inside a host, slot j of the host is in group
	// j / (a1*...*ai) at level i; the last inside level is the host.
	levels := len(inside) + 1
	groups := make([][]int, len(inside))
	for i := range groups {
		size, next := prod(inside[:i+1]), 0
		groups[i] = make([]int, len(m.hostOf))
		for h, hs := range hosts {
			for j := 0; j < hs.slots; j++ {
				groups[i][m.first[h]+j] = next + j/size
			}
			next += (hs.slots + size - 1) / size
		}
	}
	d := topology.DefaultDistances(levels)
	if dist != "" {
		var err error
		if d, err = topology.ParseDistances(dist); err != nil {
			return nil, fmt.Errorf("-d: %w", err)
		}
		if len(d) != levels {
			return nil, fmt.Errorf("-d %s has %d levels but the machine has %d (%d inside a host, then between hosts)", dist, len(d), levels, len(inside))
		}
	}
	top, err := topology.NewTree(groups, d)
	if err != nil {
		return nil, err
	}
	m.top, m.groups = top, groups[:len(groups)-1] // the last inside level is the host
	return m, nil
}

func prod(a []int) int {
	p := 1
	for _, x := range a {
		p *= x
	}
	return p
}

// candidate is one placement of the ranks: pe[r] is rank r's slot.
type candidate struct {
	name string
	pe   []int32
	j    float64
}

type placement struct {
	launch []candidate // the launch orders: recorded (when known), --map-by slot, --map-by node
	placed candidate
}

// place maps g (one vertex per rank) one-to-one onto m's slots and
// evaluates the launch orders it replaces. A launch order that is cheaper
// than the mapping is kept instead (with a note), so the placement never
// costs more than what it is compared with.
func place(g *graph.Graph, hdr record.Header, m *slots, opt gpumap.Options, stderr io.Writer) (*placement, error) {
	n, k := g.N(), m.top.K()
	if n == 0 {
		return nil, errors.New("the pattern has no ranks")
	}
	if n > k {
		return nil, fmt.Errorf("the pattern has %d ranks but --hosts gives %d slots", n, k)
	}
	for v, w := range g.VW {
		if w != 1 {
			return nil, fmt.Errorf("rank %d has vertex weight %d: a pattern has one vertex of weight 1 per rank", v, w)
		}
	}
	// Spare slots get isolated dummy tasks, so that the instance stays
	// one-to-one (c(V) = k).
	padded := &graph.Graph{XAdj: append([]int64(nil), g.XAdj...), Adj: g.Adj, VW: make([]int64, k)}
	padded.SetEdgeWeights(g.EdgeWeights())
	for len(padded.XAdj) < k+1 {
		padded.XAdj = append(padded.XAdj, g.XAdj[n])
	}
	for i := range padded.VW {
		padded.VW[i] = 1
	}
	pl := &placement{}
	if pe, why := recordedOrder(hdr, m, n); pe != nil {
		pl.launch = append(pl.launch, candidate{name: "recorded", pe: pe})
	} else if why != "" {
		fmt.Fprintf(stderr, "gpumap: no J for the recorded order: %s\n", why)
	}
	bySlot := make([]int32, n)
	for r := range bySlot {
		bySlot[r] = int32(r)
	}
	pl.launch = append(pl.launch, candidate{name: "map_by_slot", pe: bySlot}, candidate{name: "map_by_node", pe: byNode(m, n)})
	mapped, err := gpumap.Map(scaled(padded, m.top), m.top, opt)
	if err != nil {
		return nil, err
	}
	if !mapped.Metrics.Feasible {
		return nil, fmt.Errorf("internal error: the mapping is not one-to-one (max load %d)", mapped.Metrics.MaxBlock)
	}
	pl.placed = candidate{name: "placed", pe: mapped.PE[:n]}
	pl.placed.j = cost(g, m.top, pl.placed.pe)
	for i := range pl.launch {
		c := &pl.launch[i]
		if c.j = cost(g, m.top, c.pe); c.j < pl.placed.j {
			fmt.Fprintf(stderr, "gpumap: the %s order (J %.0f) beats the mapping (J %.0f): placing ranks that way\n", c.name, c.j, pl.placed.j)
			pl.placed = candidate{name: "placed", pe: c.pe, j: c.j}
		}
	}
	return pl, nil
}

// byNode is mpirun's --map-by node: ranks dealt to the hosts in turn,
// skipping full ones, each host's slots filled in order.
func byNode(m *slots, n int) []int32 {
	hosts := len(m.first)
	used := make([]int, hosts)
	pe := make([]int32, n)
	h := 0
	for r := range pe {
		for m.first[h]+used[h] >= m.end(h) {
			h = (h + 1) % hosts
		}
		pe[r] = int32(m.first[h] + used[h])
		used[h]++
		h = (h + 1) % hosts
	}
	return pe
}

// end is one past host h's last PE.
func (m *slots) end(h int) int {
	if h+1 < len(m.first) {
		return m.first[h+1]
	}
	return len(m.hostOf)
}

// recordedOrder places every rank on the host it was recorded on (slots
// filled in rank order), or says why that is not possible.
func recordedOrder(hdr record.Header, m *slots, n int) ([]int32, string) {
	if hdr.RankHost == nil {
		return nil, ""
	}
	hostIdx := map[string]int{}
	for i := range m.first {
		hostIdx[m.hosts[i].name] = i
	}
	used := make([]int, len(m.first))
	pe := make([]int32, n)
	for r := range pe {
		name := hdr.Hosts[hdr.RankHost[r]]
		h, ok := hostIdx[name]
		if !ok {
			return nil, fmt.Sprintf("rank %d ran on %s, which is not in --hosts", r, name)
		}
		if m.first[h]+used[h] >= m.end(h) {
			return nil, fmt.Sprintf("more ranks ran on %s than --hosts gives it slots", name)
		}
		pe[r] = int32(m.first[h] + used[h])
		used[h]++
	}
	return pe, ""
}

// launched is where the launcher runs the ranks of a machine file (MPICH's
// -f, OpenMPI's --hostfile with --map-by seq) that puts rank r on host
// host[r]: the file names hosts only, so the ranks of a host take its
// slots in rank order whatever order a mapping had chosen inside it.
func (m *slots) launched(host []int) []int32 {
	used := make([]int, len(m.first))
	pe := make([]int32, len(host))
	for r, h := range host {
		pe[r] = int32(m.first[h] + used[h])
		used[h]++
	}
	return pe
}

// machineFile chooses the hosts of the machine file by the J of the
// placement the launcher will really make of it (launched), not by the J
// of a placement inside the hosts that the file cannot express. It starts
// from the cheapest of the placement's hosts and the launch orders' (each
// launched as the file would be), then exchanges the hosts of groups of
// ranks while that lowers the launched J: the placement's groups inside a
// host (sockets first, then single ranks), because breaking a group that
// the mapping kept together rarely pays; and it moves single ranks to
// spare slots. A budget of work keeps large patterns fast.
func (m *slots) machineFile(g *graph.Graph, pl *placement) candidate {
	n, hosts := g.N(), len(m.first)
	hostsOf := func(pe []int32) []int {
		h := make([]int, n)
		for r := range h {
			h[r] = m.hostOf[pe[r]]
		}
		return h
	}
	var best []int
	bestJ := math.Inf(1)
	for _, c := range append([]candidate{pl.placed}, pl.launch...) {
		h := hostsOf(c.pe)
		if j := cost(g, m.top, m.launched(h)); j < bestJ {
			best, bestJ = h, j
		}
	}
	spare := make([]int, hosts)
	for h := range spare {
		spare[h] = m.end(h) - m.first[h]
	}
	for _, h := range best {
		spare[h]--
	}
	// The units exchanged: the placement's groups at each inside level,
	// outermost first, then single ranks.
	var levels [][][]int
	for i := len(m.groups) - 1; i >= 0; i-- {
		byGroup := map[int][]int{}
		for r, p := range pl.placed.pe {
			byGroup[m.groups[i][p]] = append(byGroup[m.groups[i][p]], r)
		}
		units := make([][]int, 0, len(byGroup))
		for _, u := range byGroup {
			units = append(units, u)
		}
		slices.SortFunc(units, func(a, b []int) int { return a[0] - b[0] })
		levels = append(levels, units)
	}
	singles := make([][]int, n)
	for r := range singles {
		singles[r] = []int{r}
	}
	levels = append(levels, singles)
	// Every try costs one evaluation, O(n + m).
	budget := int64(1<<25) / (int64(n) + int64(len(g.Adj)) + 1)
	try := func() bool {
		budget--
		if j := cost(g, m.top, m.launched(best)); j < bestJ {
			bestJ = j
			return true
		}
		return false
	}
	// hostOfUnit is the host all of u is on, or -1.
	hostOfUnit := func(u []int) int {
		for _, r := range u[1:] {
			if best[r] != best[u[0]] {
				return -1
			}
		}
		return best[u[0]]
	}
	assign := func(u []int, h int) {
		for _, r := range u {
			best[r] = h
		}
	}
	for improved := true; improved && budget > 0; {
		improved = false
		for _, units := range levels {
			for a := 0; a < len(units) && budget > 0; a++ {
				for b := a + 1; b < len(units) && budget > 0; b++ {
					ha, hb := hostOfUnit(units[a]), hostOfUnit(units[b])
					if ha < 0 || hb < 0 || ha == hb || len(units[a]) != len(units[b]) {
						continue
					}
					assign(units[a], hb)
					assign(units[b], ha)
					if try() {
						improved = true
					} else {
						assign(units[a], ha)
						assign(units[b], hb)
					}
				}
			}
		}
		for r := 0; r < n && budget > 0; r++ {
			for h := 0; h < hosts && budget > 0; h++ {
				if from := best[r]; h != from && spare[h] > 0 {
					best[r] = h
					if try() {
						spare[h]--
						spare[from]++
						improved = true
					} else {
						best[r] = from
					}
				}
			}
		}
	}
	pe := m.launched(best)
	return candidate{name: "machinefile", pe: pe, j: cost(g, m.top, pe)}
}

// scaled returns g itself when J sums cannot overflow int64, else a copy
// with edge weights scaled down (the mapper works in int64; costs are
// reported from the original weights).
func scaled(g *graph.Graph, top *topology.Topology) *graph.Graph {
	total := float64(g.TotalEdgeWeight()) * float64(top.MaxDistance())
	if total < 1<<60 {
		return g
	}
	f := float64(1<<60) / total
	ew := g.EdgeWeights()
	for i, w := range ew {
		ew[i] = int64(math.Round(float64(w) * f))
	}
	c := &graph.Graph{XAdj: g.XAdj, Adj: g.Adj, VW: g.VW}
	c.SetEdgeWeights(ew)
	return c
}

// cost is J of ranks placed on pe (each undirected edge once), in float64
// so that recorded byte counts cannot overflow it.
func cost(g *graph.Graph, top *topology.Topology, pe []int32) float64 {
	var j float64
	for v := 0; v < g.N(); v++ {
		for e := g.XAdj[v]; e < g.XAdj[v+1]; e++ {
			if u := g.Adj[e]; int(u) > v {
				j += float64(g.W(e)) * float64(top.Distance(int(pe[v]), int(pe[u])))
			}
		}
	}
	return j
}

func writeLines(path string, n int, line func(r int) string) error {
	return graph.WriteFile(path, func(f io.Writer) error {
		w := bufio.NewWriter(f)
		for r := 0; r < n; r++ {
			w.WriteString(line(r))
			w.WriteByte('\n')
		}
		return w.Flush()
	})
}

// levelNames names the levels of the slots' machine for pictures: the
// hosts' level is "node", the one below "socket" (report's names), deeper
// inside levels are numbered.
func (m *slots) levelNames() []string {
	names := report.LevelNames(m.top)
	if L := m.top.Levels(); L > 3 {
		for i := 1; i < L-1; i++ {
			names[i] = "level " + strconv.Itoa(i)
		}
		names[L-1] = "node"
	}
	return names
}

// svgLevel checks --svg-level before any work is done.
func (m *slots) svgLevel(s svgFlags) (int, error) {
	if s.out == "" {
		return 0, nil
	}
	l, err := report.ParseLevel(s.level, m.levelNames())
	if err != nil {
		return 0, usageError{fmt.Errorf("--svg-level: %w", err)}
	}
	return l, nil
}

// draw writes the before/after picture: the first launch order (the
// recorded one when the header has it, else --map-by slot) against the
// placement, groups named after the hosts.
func (m *slots) draw(path string, level int, g *graph.Graph, hdr record.Header, file string, pl *placement) error {
	names := m.levelNames()
	var groups []string
	prev, i := -1, 0 // host of the previous group, index of this one in its host
	for _, gr := range report.Groups(m.top, level) {
		h := m.hostOf[gr.Lo]
		if h != prev {
			prev, i = h, 0
		}
		name := m.hosts[h].name
		switch {
		case level == 0:
			name += " slot " + strconv.Itoa(gr.Lo-m.first[h])
		case level < m.top.Levels()-1:
			name += " " + names[level] + " " + strconv.Itoa(i)
		}
		groups = append(groups, name)
		i++
	}
	title := "gpumap place: " + filepath.Base(file)
	if hdr.Program != "" {
		title = "gpumap place: " + hdr.Program
	}
	before := pl.launch[0]
	p := &report.Picture{Title: title, Traffic: report.FromGraph(g), Top: m.top, Level: level, LevelNames: names,
		GroupNames: groups, Bytes: hdr.Ranks > 0,
		Panels: []report.Panel{{Title: "before (" + strings.ReplaceAll(before.name, "_", " ") + ")", PE: before.pe},
			{Title: "after (gpumap place)", PE: pl.placed.pe}}}
	return p.WriteFile(path)
}
