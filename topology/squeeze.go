package topology

// Squeezed returns the machine t without its levels of arity 1 (levels
// whose every group has a single child: 4:8:64:8:6:1, 4:1:8, a tree whose
// nodes hold one socket each): the same PEs, numbered the same, in the
// same groups, at the same distance from each other, since no two PEs
// have such a level as their lowest common one (its distance never
// counts). A mapping onto t is one onto the squeezed machine and costs the
// same there. Every split of the mapper is a split of a group into two or
// more children: an arity-1 level adds none, and keeping it changed the
// mapping (the wide paths tell the top's children by their level). t
// itself where it has no such level, or where every level is (k = 1).
func (t *Topology) Squeezed() *Topology {
	L := t.Levels()
	// count(i): the groups of level i (level 0: the PEs, level L: one).
	count := func(i int) int {
		switch {
		case i == 0:
			return t.k
		case i == L:
			return 1
		case t.arity != nil:
			return t.k / t.span[i]
		}
		return len(t.starts[i-1])
	}
	var keep []int // levels, 1..L, whose groups have two or more children
	for i := 1; i <= L; i++ {
		if count(i) != count(i-1) {
			keep = append(keep, i)
		}
	}
	if len(keep) == L || len(keep) == 0 {
		return t
	}
	dist := make([]int64, len(keep))
	for j, i := range keep {
		dist[j] = t.dist[i-1]
	}
	if t.arity != nil || len(keep) == 1 {
		// One level left in a tree: its root's children are the PEs.
		arity := make([]int, len(keep))
		for j, i := range keep {
			arity[j] = count(i-1) / count(i)
		}
		s, err := NewRegular(arity, dist)
		if err != nil {
			panic("topology: squeezing a valid machine: " + err.Error())
		}
		return s
	}
	// The last level kept holds one group (the levels above it hold one
	// each too): the new root, implicit in a tree.
	groups := make([][]int, len(keep)-1)
	for j, i := range keep[:len(keep)-1] {
		row := make([]int, t.k)
		g := 0
		for p := range row {
			if next := g + 1; next < len(t.starts[i-1]) && int(t.starts[i-1][next]) == p {
				g = next
			}
			row[p] = g
		}
		groups[j] = row
	}
	s, err := NewTree(groups, dist)
	if err != nil {
		panic("topology: squeezing a valid machine: " + err.Error())
	}
	return s
}
