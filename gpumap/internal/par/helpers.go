package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Parallel loops (For, Each) hand their extra chunks to helpers:
// goroutines that, once a chunk is done, keep polling for the next one for
// spinFor before they block. A goroutine started per loop, as before,
// lands on a core that has gone idle and must be woken, and so must the
// caller when it blocks for the chunk's end. Under a hypervisor each
// wake-up took 50-100 us, the whole gain of the second thread on loops of
// up to a few hundred microseconds: on the 2-core development VM two
// goroutines did 2 x 35 us of work in 52-72 us (34-35 us with a polling
// helper) and 2 x 150 us in 240-250 us (132-139 us). A mapping runs
// thousands of loops (8,257 on a 2^20-vertex rgg at -t 2, 6,919 on the
// 3D grid), and the parallel FM's batches are among the shortest
// (BenchmarkFMCutParallel: -10%). There are GOMAXPROCS-1 helpers; a loop
// that finds none free starts goroutines as before. The chunks and their
// order do not change, so neither do the results.

// spinFor is how long an idle helper, and a caller waiting for its
// helpers, poll before they block.
const spinFor = 100 * time.Microsecond

const (
	idle    int32 = iota // polling for a job
	parked               // blocked on wake
	claimed              // given a job, or about to be
)

type helper struct {
	state atomic.Int32
	job   atomic.Pointer[job]
	wake  chan struct{} // a claim of a parked helper sends here
}

type job struct {
	f    func(i int)
	i    int
	left *atomic.Int32 // jobs of the loop not finished
	wg   *sync.WaitGroup
}

func (j *job) finish() {
	j.left.Add(-1)
	j.wg.Done()
}

var pool struct {
	mu      sync.Mutex
	helpers atomic.Pointer[[]*helper]
}

// helpers returns the pool, grown to GOMAXPROCS-1 helpers.
func helpers() []*helper {
	want := runtime.GOMAXPROCS(0) - 1
	if p := pool.helpers.Load(); p != nil && len(*p) >= want {
		return *p
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	var hs []*helper
	if p := pool.helpers.Load(); p != nil {
		hs = *p
	}
	for len(hs) < want {
		h := &helper{wake: make(chan struct{}, 1)}
		go h.loop()
		hs = append(hs[:len(hs):len(hs)], h)
	}
	pool.helpers.Store(&hs)
	return hs
}

// claim gives h the job if h is free.
func (h *helper) claim(j *job) bool {
	for {
		s := h.state.Load()
		if s == claimed {
			return false
		}
		if h.state.CompareAndSwap(s, claimed) {
			h.job.Store(j)
			if s == parked {
				h.wake <- struct{}{}
			}
			return true
		}
	}
}

func (h *helper) loop() {
	for {
		j := h.await()
		h.job.Store(nil)
		j.f(j.i)
		h.state.Store(idle) // free before the caller learns the job is done
		j.finish()
	}
}

// await polls for a job for spinFor, then blocks until one is given.
func (h *helper) await() *job {
	given := func() bool { return h.job.Load() != nil }
	if !poll(given) && h.state.CompareAndSwap(idle, parked) {
		<-h.wake
	}
	for !given() { // claimed as the polling ended: the job is on its way
		runtime.Gosched()
	}
	return h.job.Load()
}

// poll calls done until it reports true or spinFor has passed, yielding
// the processor now and then, and returns done's last answer.
func poll(done func() bool) bool {
	deadline := time.Now().Add(spinFor)
	for i := 1; ; i++ {
		if done() {
			return true
		}
		if i%32 == 0 {
			if time.Now().After(deadline) {
				return false
			}
			runtime.Gosched()
		}
	}
}

// run calls f(i) for i in [0,n): f(0) on the caller's goroutine, the others
// on free helpers or new goroutines, and returns when all have returned.
func run(n int, f func(i int)) {
	if n <= 1 {
		if n == 1 {
			f(0)
		}
		return
	}
	var left atomic.Int32
	var wg sync.WaitGroup
	left.Store(int32(n - 1))
	wg.Add(n - 1)
	i := 1
	for _, h := range helpers() {
		if i == n {
			break
		}
		if h.claim(&job{f: f, i: i, left: &left, wg: &wg}) {
			i++
		}
	}
	for ; i < n; i++ {
		j := &job{f: f, i: i, left: &left, wg: &wg}
		go func() {
			defer j.finish()
			j.f(j.i)
		}()
	}
	f(0)
	poll(func() bool { return left.Load() == 0 })
	wg.Wait()
}
