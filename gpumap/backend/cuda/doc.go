// Package cuda is the GPU implementation of backend.Backend. Its kernels
// (kernels/gpumap.cu, compiled to the committed kernels/gpumap.ptx and
// embedded) run every data-parallel phase of integrated mapping on the
// device: two-hop matching, contraction by hashing with compare-and-swap,
// projection, and the whole Jet refinement loop (label propagation with
// the afterburner, J and balance, weak and strong rebalancing). The host
// maps only the coarsest graph; per refinement iteration it reads one
// small block of scalars.
//
// Every phase computes exactly what the CPU backend computes (the same
// matching, coarse graphs, moves): a GPU mapping equals the CPU backend's
// IM mapping, and the same graph, seed and device give the same mapping.
//
// Device memory of a mapping: the input graph, one workspace allocation
// for every scratch array (sized for the input graph), one for the
// per-block arrays of refinement, and per coarse level its graph and
// vertex map. The upload copies from page-locked memory.
//
// The CUDA driver is loaded at run time (package driver); on a machine
// without one, Open fails with a reason and gpumap uses the CPU. Graphs
// whose working set exceeds the free device memory are refused with
// ErrTooLarge, an allocation that fails during a mapping is reported as
// ErrOutOfMemory, and the caller falls back to the CPU in both cases.
//
// A Backend may be used from any goroutine, one call at a time: every
// method makes the context current on its OS thread for the call (CUDA
// contexts are per thread).
//
// Stats counts what each phase did (launches, synchronisations, transfers,
// the kernels' memory traffic) and estimates the time on an H100; see
// model.go.
package cuda
