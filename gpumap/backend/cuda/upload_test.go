package cuda

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/gpumap/gpumap/gpumap/graph"
)

// GPUMAP_BENCH_UPLOAD=pinned|staged|pageable picks the way the test
// binary's uploads go (uploadMethod), so that a device run compares whole
// mappings (BenchmarkIntegrated, BenchmarkMultisection) each way;
// GPUMAP_BENCH_PAGEABLE=1 is GPUMAP_BENCH_UPLOAD=pageable.
func init() {
	if os.Getenv("GPUMAP_BENCH_PAGEABLE") == "1" {
		uploadMethod = uploadPageable
	}
	if s := os.Getenv("GPUMAP_BENCH_UPLOAD"); s != "" {
		w, err := parseUploadWay(s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "GPUMAP_BENCH_UPLOAD: %v\n", err)
			os.Exit(2)
		}
		uploadMethod = w
	}
}

// BenchmarkUpload uploads generated graphs to the device each way
// (uploadMethod: page-locking each array, through the staging buffers
// at several sizes and fill threads, unlocked) and reports the wall time
// of UploadGraph (check, allocation, copies, edge_sources; first_ms the
// first upload of the sub-benchmark, which allocates the staging
// buffers) and, from the profile, of its host steps: locking, copying
// (for the staged way only queueing the copies) and unlocking, filling
// the staging buffers and waiting for their copies. The model prices
// pinned and pageable copies; only a real device shows what locking and
// filling cost.
//
//	go test -run xxx -bench Upload -benchtime 3x ./gpumap/backend/cuda
func BenchmarkUpload(b *testing.B) {
	gpu, err := Open()
	if err != nil {
		b.Skipf("no GPU: %v", err)
	}
	defer gpu.Close()
	defer func(w uploadWay, bytes int64, t int) { uploadMethod, stageBytes, stageThreads = w, bytes, t }(uploadMethod, stageBytes, stageThreads)
	type way struct {
		w       uploadWay
		bytes   int64
		threads int
	}
	ways := []way{{w: uploadPinned}, {w: uploadPageable}, {uploadStaged, stageBytes, stageThreads}}
	for _, mib := range []int64{4, 64} {
		ways = append(ways, way{uploadStaged, mib << 20, stageThreads})
	}
	for _, t := range []int{1, 4, 16} {
		if t != stageThreads && t <= runtime.GOMAXPROCS(0) {
			ways = append(ways, way{uploadStaged, stageBytes, t})
		}
	}
	steps := []string{"host_register", "copy_h2d", "host_unregister", "host_alloc", "stage_fill", "stage_wait"}
	for _, size := range []int{20, 22} {
		var g *graph.Graph
		for _, w := range ways {
			name := fmt.Sprintf("rgg2d_2^%d/way=%v", size, w.w)
			if w.w == uploadStaged {
				name += fmt.Sprintf("/buf=%dMiB/threads=%d", w.bytes>>20, min(w.threads, runtime.GOMAXPROCS(0)))
			}
			b.Run(name, func(b *testing.B) {
				if g == nil {
					g = graph.RandomGeometric(1<<size, 1)
				}
				uploadMethod, stageBytes, stageThreads = w.w, w.bytes, w.threads
				gpu.SetProfile(true)
				defer gpu.SetProfile(false)
				upload := func() (time.Duration, map[string]time.Duration) {
					start := time.Now()
					dg, err := gpu.UploadGraph(g)
					if err == nil {
						defer gpu.Free(dg)
						// UploadGraph unlocked the thread: the sync binds
						// the context again (unbound, a goroutine moved to
						// another thread failed with CUDA error 201).
						var done func()
						if done, err = gpu.bind(PhaseUpload); err == nil {
							err = gpu.sync()
							done()
						}
					}
					wall := time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
					st := map[string]time.Duration{}
					for _, k := range gpu.prof.kernels { // this upload's (reset by UploadGraph)
						st[k.Name] += k.Wall
					}
					return wall, st
				}
				if w.w == uploadStaged { // the first upload allocates them, as the command's does
					done, err := gpu.bind(PhaseUpload)
					if err != nil {
						b.Fatal(err)
					}
					err = gpu.stageFree()
					done()
					if err != nil {
						b.Fatal(err)
					}
				}
				first, firstSteps := upload()
				var total time.Duration
				sum := map[string]time.Duration{}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					wall, st := upload()
					total += wall
					for k, d := range st {
						sum[k] += d
					}
				}
				ms := func(d time.Duration, n int) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
				b.ReportMetric(ms(total, b.N), "upload_ms")
				b.ReportMetric(ms(first, 1), "first_ms")
				for _, s := range steps {
					if s == "host_alloc" {
						b.ReportMetric(ms(firstSteps[s], 1), s+"_ms")
						continue
					}
					b.ReportMetric(ms(sum[s], b.N), s+"_ms")
				}
			})
		}
	}
}

// BenchmarkUploadFill fills staging buffers with rgg 2^22's arrays (as
// a staged upload of it would, 310 MB, no device needed) and reports the
// host's fill rate by buffer size and goroutines: the staged upload
// takes at least the fill's time, and hides the copies behind it only
// where the fill outruns the bus (52 GB/s pinned on the H200).
//
//	go test -run xxx -bench UploadFill -benchtime 3x ./gpumap/backend/cuda
func BenchmarkUploadFill(b *testing.B) {
	g := graph.RandomGeometric(1<<22, 1)
	w32, w64, _ := weights(g)
	var pieces []hostPiece
	off := int64(0)
	for _, c := range []struct {
		h unsafe.Pointer
		n int64
	}{{unsafe.Pointer(&g.XAdj[0]), 8 * int64(len(g.XAdj))}, {ptr64(g.VW), 8 * int64(len(g.VW))},
		{ptr32(g.Adj), 4 * int64(len(g.Adj))}, {ptr32(w32), 4 * int64(len(w32))}, {ptr64(w64), 8 * int64(len(w64))}} {
		if c.n > 0 {
			pieces = append(pieces, hostPiece{off: off, src: c.h, n: c.n})
			off += (c.n + 255) &^ 255
		}
	}
	end := pieces[len(pieces)-1].off + pieces[len(pieces)-1].n
	for _, mib := range []int64{4, 16, 64} {
		buf := make([]byte, mib<<20)
		for _, t := range []int{1, 2, 4, 8, 16} {
			b.Run(fmt.Sprintf("buf=%dMiB/threads=%d", mib, t), func(b *testing.B) {
				b.SetBytes(end)
				for i := 0; i < b.N; i++ {
					for lo := int64(0); lo < end; lo += mib << 20 {
						fillStage(buf[:min(mib<<20, end-lo)], pieces, lo, t)
					}
				}
			})
		}
	}
}
