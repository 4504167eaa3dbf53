package hwdetect

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpumap/gpumap/topology"
)

// UnknownSocket marks a process not bound within one socket.
const UnknownSocket = -1

// Record is the location of one process.
type Record struct {
	Host   string // processor name
	BootID string // kernel boot id of the host ("" if unknown)
	Switch string // network switch or rack ("" if unknown)
	Socket int    // package index on the host, or UnknownSocket
	Core   int    // core index on the host, or -1
}

// Spec overrides detection.
type Spec struct {
	// Hierarchy, when set, is a regular a1:...:aL whose product must equal
	// the number of processes; PEs are the processes in location order.
	Hierarchy string
	// Distance, when set, gives one distance per level (default:
	// topology.DefaultDistances, 1:10:100 for socket, node and machine).
	Distance string
}

// Machine is the inferred topology with the process behind every PE.
type Machine struct {
	Top    *topology.Topology
	Rank   []int // Rank[p]: the process (rank) that PE p stands for
	Slot   []int // Slot[r]: the PE of rank r (inverse of Rank)
	Levels []string
	Hosts  int
}

// Infer builds the machine of records[r] = location of rank r.
func Infer(records []Record, spec Spec) (*Machine, error) {
	n := len(records)
	if n == 0 {
		return nil, fmt.Errorf("no processes")
	}
	hostKey := func(r Record) string { return r.Switch + "\x00" + r.Host + "\x00" + r.BootID }
	// Number switches and hosts in order of first appearance of their
	// sorted keys, so the result does not depend on rank order.
	keys := make([]string, 0, n)
	seen := map[string]bool{}
	for _, r := range records {
		if k := hostKey(r); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	hostIdx := map[string]int{}
	for i, k := range keys {
		hostIdx[k] = i
	}
	switches := map[string]bool{}
	for _, r := range records {
		switches[r.Switch] = true
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sockKey := func(r int) int {
		if records[r].Socket == UnknownSocket {
			return 1<<30 + r // a socket of its own
		}
		return records[r].Socket
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := records[order[a]], records[order[b]]
		if ha, hb := hostIdx[hostKey(ra)], hostIdx[hostKey(rb)]; ha != hb {
			return ha < hb
		}
		if sa, sb := sockKey(order[a]), sockKey(order[b]); sa != sb {
			return sa < sb
		}
		if ra.Core != rb.Core {
			return ra.Core < rb.Core
		}
		return order[a] < order[b]
	})
	m := &Machine{Rank: order, Slot: make([]int, n), Hosts: len(keys)}
	for p, r := range order {
		m.Slot[r] = p
	}
	if spec.Hierarchy != "" {
		arity, err := topology.ParseHierarchy(spec.Hierarchy)
		if err != nil {
			return nil, fmt.Errorf("GPUMAP_HIERARCHY: %w", err)
		}
		k := 1
		for _, a := range arity {
			k *= a
		}
		if k != n {
			return nil, fmt.Errorf("hierarchy %s has %d PEs but the communicator has %d processes", spec.Hierarchy, k, n)
		}
		dist, err := distances(spec.Distance, len(arity))
		if err != nil {
			return nil, err
		}
		top, err := topology.NewRegular(arity, dist)
		if err != nil {
			return nil, err
		}
		m.Top = top
		m.Levels = []string{"given " + spec.Hierarchy}
		return m, nil
	}
	// Group ids per level in PE order.
	socket := make([]int, n)
	node := make([]int, n)
	sw := make([]int, n)
	for p := 0; p < n; p++ {
		if p == 0 {
			continue
		}
		a, b := order[p-1], order[p]
		ra, rb := records[a], records[b]
		sw[p] = sw[p-1]
		node[p] = node[p-1]
		socket[p] = socket[p-1]
		switch {
		case ra.Switch != rb.Switch:
			sw[p]++
			node[p]++
			socket[p]++
		case hostKey(ra) != hostKey(rb):
			node[p]++
			socket[p]++
		case sockKey(a) != sockKey(b):
			socket[p]++
		}
	}
	groups := [][]int{socket, node}
	m.Levels = []string{"socket", "node"}
	if len(switches) > 1 {
		groups = append(groups, sw)
		m.Levels = append(m.Levels, "switch")
	}
	dist, err := distances(spec.Distance, len(groups)+1)
	if err != nil {
		return nil, err
	}
	top, err := topology.NewTree(groups, dist)
	if err != nil {
		return nil, fmt.Errorf("building the machine tree: %w", err)
	}
	m.Top = top
	return m, nil
}

func distances(s string, levels int) ([]int64, error) {
	if s == "" {
		return topology.DefaultDistances(levels), nil
	}
	d, err := topology.ParseDistances(s)
	if err != nil {
		return nil, fmt.Errorf("GPUMAP_DISTANCE: %w", err)
	}
	if len(d) != levels {
		return nil, fmt.Errorf("GPUMAP_DISTANCE %q has %d levels but the machine has %d (%s)",
			s, len(d), levels, "socket:node[:switch]:machine")
	}
	return d, nil
}

// Describe renders the machine for logs: "2 hosts, 16 PEs, tree(k=16, L=3) / 1:10:100".
func (m *Machine) Describe() string {
	return fmt.Sprintf("%d hosts, %d PEs, levels %s, %s", m.Hosts, m.Top.K(), strings.Join(m.Levels, "<"), m.Top)
}
