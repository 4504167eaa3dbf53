// Package cuda is the GPU implementation of backend.Backend. Its kernels
// (kernels/gpumap.cu, compiled to the committed kernels/gpumap.ptx and
// embedded) run every data-parallel phase of integrated mapping on the
// device: two-hop matching, contraction by hashing with compare-and-swap,
// projection, and the Jet refinement loop (label propagation with the
// afterburner, cost and block-weight reductions, rebalancing candidates;
// the cheap per-block selection of rebalancing moves runs on the host).
//
// The CUDA driver is loaded at run time (package driver); on a machine
// without one, Open fails with a reason and gpumap uses the CPU. Graphs
// whose working set exceeds the free device memory are refused with
// ErrTooLarge, and the caller falls back to the CPU as well.
//
// A Backend binds its goroutine to one OS thread (CUDA contexts are per
// thread) from Open to Close.
package cuda
