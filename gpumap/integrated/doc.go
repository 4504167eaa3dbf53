// Package integrated is the integrated multilevel mapper (IM) of the GPU
// process-mapping paper: it coarsens the task graph by two-hop matching and
// contraction, maps the coarsest graph by hierarchical multisection with
// adaptive imbalance (on the host: it is small), and projects the mapping
// back level by level, refining the communication cost J itself on every
// level with Jet-style label propagation, afterburner and weak/strong
// rebalancing.
//
// The orchestration here is written once against backend.Backend; the
// phases run wherever the backend lives (goroutines or a GPU).
package integrated
