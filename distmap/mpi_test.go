package distmap

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/gpumap/gpumap/mpirank/mpi"
	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
	"github.com/gpumap/gpumap/topology"
)

// The Go API on 3 ranks (mpitest): a graph where rank 0 owns nothing
// maps to the hand-computed optimum, and each kind of bad input gives
// every rank the same error, never a hang.
func TestAPI(t *testing.T) {
	if !mpitest.Child() {
		out := mpitest.Run(t, 3, "TestAPI")
		// Every error with its kind (KindOf): the C call's status.
		want := map[string]string{
			"path":     "J=11 feasible=true",
			"vtxdist":  "kind 3: rank 2: vtxdist[1] = 1 differs from rank 0's 0: every rank must pass the same vtxdist",
			"asym":     "kind 5: asymmetric edge: vertex 2 lists neighbour 0, but vertex 0 does not list 2",
			"options":  "kind 3: rank 1: seed 7 differs from rank 0's 0: every rank must pass the same options",
			"take":     "kind 3: rank 2: taking CPUs on, rank 0's off: every rank must pass the same options",
			"machine":  "kind 3: rank 2: hierarchy 4 differs from rank 0's 2:2: every rank must pass the same options",
			"distance": "kind 3: rank 1: distances 1:100 differ from rank 0's 1:10: every rank must pass the same options",
			"eps":      "kind 3: rank 2: eps 0.5 differs from rank 0's 0.03: every rank must pass the same options",
			"xadj":     "kind 5: rank 1: xadj has 1 entries for 2 local vertices (want 3)",
			"weight":   "kind 5: vertex 1 has negative weight -4",
			"coverage": "kind 5: rank 0: vtxdist has 3 entries for 3 ranks (want 4)",
			"start":    "kind 5: rank 0: vtxdist[0] is 1, not 0",
			"edgew":    "kind 5: asymmetric edge weight: vertex 2 gives edge to 1 weight 1, but vertex 1 gives it weight 5",
			"wsum":     "kind 5: the vertex weights sum to more than 2305843009213693952 (2^61), the limit of c(V)",
			// 2^60 + (2^60+1): summed as floats, 2^61 passed.
			"wsum1": "kind 5: the vertex weights sum to more than 2305843009213693952 (2^61), the limit of c(V)",
			// Checked per vertex, vertex 0's edges ran past adjncy.
			"xadjdec": "kind 5: rank 1: xadj decreases at local vertex 1 (global 1)",
			// The attack of the Go API (issue 24). Rank 0, without
			// vertices, passes nil xadj as C passes NULL: an error
			// before.
			"nilxadj": "J=11 feasible=true",
			// The coarsest graph's gpumap.Map found these: KindOther,
			// no rank.
			"preset":  "kind 4: rank 0: unknown preset 99",
			"threads": "kind 4: rank 2: thread count -5 must be in [0, 4096]",
			// A panic before: the whole job aborted (exit 70).
			"zerotop":     "kind 4: rank 0: no topology (nil, or not built by topology.Parse)",
			"nilgraph":    "kind 1: no graph (nil, or not built by New or ReadGraph)",
			"zerograph":   "kind 1: no graph (nil, or not built by New or ReadGraph)",
			"writezero":   "kind 1: no graph (nil, or not built by New or ReadGraph)",
			"mapwholenil": "kind 1: no graph (nil)",
			// MPI_COMM_NULL or no communicator: New said so, the
			// readers aborted the job (exit 5).
			"readnull":    "kind 2: the communicator is MPI_COMM_NULL, no communicator or an inter-communicator",
			"readgarbage": "kind 2: the communicator is MPI_COMM_NULL, no communicator or an inter-communicator",
			// After MPI_Finalize: OpenMPI aborted the job in the first
			// MPI call before.
			"finalized":     "kind 6: MPI is not initialized (call MPI_Init first) or already finalized",
			"readfinalized": "kind 6: MPI is not initialized (call MPI_Init first) or already finalized",
		}
		re := regexp.MustCompile(`(?m)^rank (\d) (\w+): (.*)$`)
		got := map[string][]string{}
		for _, m := range re.FindAllStringSubmatch(out, -1) {
			got[m[2]] = append(got[m[2]], m[3])
		}
		sameOnEveryRank(t, "", 3, got, want, out)
		return
	}
	defer rankRecover()
	c, _, rank := rankComm(t)
	top, _ := topology.Parse("2:2", "1:10")
	sayOn := func(name string, g *Graph, err error, top *topology.Topology, opt Options) {
		if err == nil {
			var res *Result
			if res, err = Map(g, top, opt); err == nil {
				fmt.Printf("rank %d %s: J=%d feasible=%v\n", rank, name, res.Metrics.J, res.Metrics.Feasible)
				return
			}
		}
		fmt.Printf("rank %d %s: kind %d: %s\n", rank, name, KindOf(err), strings.ReplaceAll(err.Error(), "\n", " "))
	}
	say := func(name string, g *Graph, err error, opt Options) { sayOn(name, g, err, top, opt) }
	opt := Options{Eps: 0.03}
	// The path 0-1-2: rank 0 owns nothing, rank 1 owns 0 and 1, rank 2
	// owns 2. Each vertex needs a PE of its own (Lmax 1); the best costs
	// 1 + 10.
	vtx := []int64{0, 0, 2, 3}
	parts := [][3][]int64{
		{{0}, nil, nil},
		{{0, 1, 3}, {1, 0, 2}, nil},
		{{0, 1}, {1}, nil},
	}
	p := parts[rank]
	g, err := New(c, vtx, p[0], p[1], nil, nil)
	say("path", g, err, opt)
	// Rank 2 sees another distribution.
	v2 := vtx
	if rank == 2 {
		v2 = []int64{0, 1, 2, 3}
	}
	g, err = New(c, v2, p[0], p[1], nil, nil)
	say("vtxdist", g, err, opt)
	// 2 lists 0 and 1, 0 lists 1 only (and 1 lists 0 and 2).
	asym := [][3][]int64{
		{{0}, nil, nil},
		{{0, 1, 3}, {1, 0, 2}, nil},
		{{0, 2}, {0, 1}, nil},
	}
	a := asym[rank]
	g, err = New(c, vtx, a[0], a[1], nil, nil)
	say("asym", g, err, opt)
	g, err = New(c, vtx, p[0], p[1], nil, nil)
	o := opt
	if rank == 1 {
		o.Seed = 7
	}
	say("options", g, err, o)
	// TakeCPUs decides whether rank 1 lends its CPUs (mapWhole).
	g, err = New(c, vtx, p[0], p[1], nil, nil)
	o = opt
	o.TakeCPUs = rank == 2
	say("take", g, err, o)
	x := p[0]
	if rank == 1 {
		x = []int64{0}
	}
	g, err = New(c, vtx, x, p[1], nil, nil)
	say("xadj", g, err, opt)
	var vw []int64
	switch rank {
	case 1:
		vw = []int64{1, -4}
	case 2:
		vw = []int64{1}
	}
	g, err = New(c, vtx, p[0], p[1], vw, nil)
	say("weight", g, err, opt)
	g, err = New(c, vtx[:3], p[0], p[1], nil, nil)
	say("coverage", g, err, opt)
	g, err = New(c, []int64{1, 1, 3, 4}, p[0], p[1], nil, nil)
	say("start", g, err, opt)
	// Each rank its own machine, distances or eps: before the check,
	// ranks mapped onto different machines and exchanged PEs that did
	// not exist elsewhere.
	g, err = New(c, vtx, p[0], p[1], nil, nil)
	mt := top
	if rank == 2 {
		mt, _ = topology.Parse("4", "1")
	}
	sayOn("machine", g, err, mt, opt)
	g, err = New(c, vtx, p[0], p[1], nil, nil)
	dt := top
	if rank == 1 {
		dt, _ = topology.Parse("2:2", "1:100")
	}
	sayOn("distance", g, err, dt, opt)
	g, err = New(c, vtx, p[0], p[1], nil, nil)
	o = opt
	if rank == 2 {
		o.Eps = 0.5
	}
	say("eps", g, err, o)
	// Edge 1-2 weighs 5 at vertex 1 and 1 at vertex 2.
	var ew []int64
	switch rank {
	case 1:
		ew = []int64{1, 1, 5}
	case 2:
		ew = []int64{1}
	}
	g, err = New(c, vtx, p[0], p[1], nil, ew)
	say("edgew", g, err, opt)
	// Vertex weights each within int64 whose sum is not.
	switch rank {
	case 1:
		vw = []int64{math.MaxInt64, math.MaxInt64}
	case 2:
		vw = []int64{math.MaxInt64}
	}
	g, err = New(c, vtx, p[0], p[1], vw, nil)
	say("wsum", g, err, opt)
	switch rank {
	case 1:
		vw = []int64{1 << 60, 0}
	case 2:
		vw = []int64{1<<60 + 1}
	}
	g, err = New(c, vtx, p[0], p[1], vw, nil)
	say("wsum1", g, err, opt)
	x = p[0]
	if rank == 1 {
		x = []int64{0, 4, 3}
	}
	g, err = New(c, vtx, x, p[1], nil, nil)
	say("xadjdec", g, err, opt)
	x = p[0]
	if rank == 0 {
		x = nil
	}
	g, err = New(c, vtx, x, p[1], nil, nil)
	say("nilxadj", g, err, opt)
	g, err = New(c, vtx, p[0], p[1], nil, nil)
	o = opt
	o.Preset = 99
	say("preset", g, err, o)
	o = opt
	if rank == 2 {
		o.Threads = -5
	}
	say("threads", g, err, o)
	sayOn("zerotop", g, err, &topology.Topology{}, opt)
	say("nilgraph", nil, nil, opt)
	say("zerograph", &Graph{}, nil, opt)
	err = WriteMapping(&Graph{}, nil, "zero.map")
	fmt.Printf("rank %d writezero: kind %d: %v\n", rank, KindOf(err), err)
	_, _, err = MapWhole(c, nil, top, opt)
	fmt.Printf("rank %d mapwholenil: kind %d: %v\n", rank, KindOf(err), err)
	for name, bad := range map[string]mpi.Comm{"readnull": mpi.CommNull(), "readgarbage": mpi.Comm(12345)} {
		_, err = ReadGraph(bad, "g.graph")
		fmt.Printf("rank %d %s: kind %d: %v\n", rank, name, KindOf(err), err)
	}
	if err := mpi.Finalize(); err != nil {
		t.Fatal(err)
	}
	say("finalized", g, nil, opt)
	_, err = ReadGraph(c, "g.graph")
	fmt.Printf("rank %d readfinalized: kind %d: %v\n", rank, KindOf(err), err)
}

// sameOnEveryRank checks that each of np ranks reported want[name] for
// every name: got holds the texts the ranks printed under each name, out
// the whole output for the message, and prefix starts every message.
func sameOnEveryRank(t *testing.T, prefix string, np int, got map[string][]string, want map[string]string, out string) {
	t.Helper()
	for name, w := range want {
		if len(got[name]) != np {
			t.Errorf("%s%s: %d of %d ranks reported:\n%s", prefix, name, len(got[name]), np, out)
			continue
		}
		for _, g := range got[name] {
			if g != w {
				t.Errorf("%s%s: got %q, want %q on every rank", prefix, name, g, w)
			}
		}
	}
}
