package multisection

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// Sub-problems that run at once share the threads (par.Share): on two
// threads, two running together get one each, and one left running alone
// gets both at its next Grow. Before, every sub-problem ran on all the
// mapping's threads, two at once oversubscribing the cores.
func TestSubproblemsShareThreads(t *testing.T) {
	top, _ := topology.Parse("2:2", "1:10")
	m := newMapper(par.New(2), graph.Grid(8, 8), top, Config{Eps: 0.03})
	var both sync.WaitGroup
	both.Add(2)
	secondDone, firstGrew := make(chan struct{}), make(chan struct{})
	var together [2]int
	var alone int
	m.pending = []func(x *par.Exec){
		func(x *par.Exec) { // taken second
			both.Done()
			both.Wait()
			together[1] = x.Grow()
			<-firstGrew
			close(secondDone)
		},
		func(x *par.Exec) { // taken first
			both.Done()
			both.Wait()
			together[0] = x.Grow()
			close(firstGrew)
			<-secondDone
			// The second leaves the share when its task returns.
			for deadline := time.Now().Add(10 * time.Second); alone != 2 && time.Now().Before(deadline); {
				alone = x.Grow()
				runtime.Gosched()
			}
		},
	}
	m.busy = 2
	m.work()
	if together != [2]int{1, 1} || alone != 2 {
		t.Fatalf("threads of two sub-problems at once %v, of one alone %d; want [1 1] and 2", together, alone)
	}
}
