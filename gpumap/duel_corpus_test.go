package gpumap

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gpumap/gpumap/gpumap/backend/cpu"
	"github.com/gpumap/gpumap/gpumap/graph"
	"github.com/gpumap/gpumap/gpumap/internal/par"
	"github.com/gpumap/gpumap/topology"
)

// TestDuelCorpus prints, for every instance of the real corpus in
// $GPUMAP_DUEL_CORPUS (corpus.csv; onto 4:8:{1,2,4,6}, D 1:10:100, eps
// 3%, -t 1), what default's duel (duels) measures: -a hm's and -a im's J,
// HM's top cut after its split of the whole machine, IM's cut there, the
// predicted excess of HM's J (hmStops), the cost of HM's splits of the
// top's children and IM's there with the excess predicted from both
// stages (hmStopsSecond), and the CPU time of HM, of HM up to its top
// split and up to its children's splits, and of IM. The data that
// duelMargin and duelSecondMargin are fit on
// (bench/results-duel-2core.txt); skipped without the variable.
func TestDuelCorpus(t *testing.T) {
	dir := os.Getenv("GPUMAP_DUEL_CORPUS")
	if dir == "" {
		t.Skip("set GPUMAP_DUEL_CORPUS to the corpus folder")
	}
	f, err := os.Open(filepath.Join(dir, "corpus.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	cpuTime := func() float64 {
		var r syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &r)
		return float64(r.Utime.Nano()+r.Stime.Nano()) / 1e9
	}
	fmt.Printf("%-16s %-6s %-5s %5s %10s %10s %7s %7s %4s %7s %-5s %6s %6s %6s %s\n",
		"graph", "half", "H", "duel", "J_hm", "J_im", "hmTop", "imTop", "d", "pred", "run", "t_hm", "t_top", "t_im", "L2 hmSec imSec pred2 t_sec")
	for _, r := range rows[1:] {
		g, err := graph.ReadFile(filepath.Join(dir, r[0]+".graph"))
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range strings.Split("4:8:1,4:8:2,4:8:4,4:8:6", ",") {
			top, _ := topology.Parse(h, "1:10:100")
			opt := Options{Preset: Default, Eps: 0.03, Threads: 1, Backend: CPU, Algorithm: Integrated}
			x := par.New(1)
			im := newPipeline(x, g, top, opt, &tracker{})
			im.backend = cpu.New(1)
			c0 := cpuTime()
			imPE := im.integrated()
			tIM := cpuTime() - c0
			mIM, _ := graph.Evaluate(g, top, imPE, opt.Eps)
			opt.Algorithm = Multisection
			hm := newPipeline(x, g, top, opt, &tracker{})
			hm.backend = cpu.New(1)
			var level int
			var hmTop int64
			var tTop float64
			c0 = cpuTime()
			hm.afterTop = func(l int, part []int32) bool {
				tTop = cpuTime() - c0
				level = l
				hmTop = cutWeight(x, g, func(u, v int32) bool { return part[u] != part[v] })
				return true
			}
			var secLevel int
			var hmSec int64
			var tSec float64
			hm.afterSecond = func(l int, cost int64) bool {
				tSec = cpuTime() - c0
				secLevel, hmSec = l, cost
				return true
			}
			hmPE := hm.multisection()
			tHM := cpuTime() - c0
			mHM, _ := graph.Evaluate(g, top, hmPE, opt.Eps)
			duel := level > 0 && !hm.imUncoarsened() && g.M() < bothMaxEdges // as duels() under -a auto
			run, pred, pred2, d, imTop, imSec := "both", 0.0, 0.0, int64(0), int64(0), int64(0)
			if duel {
				d = top.Distances()[level-1]
				imTop = imCutAt(x, g, top, level, imPE)
				pred = float64(d) * float64(hmTop-imTop) / float64(mIM.J)
				if secLevel > 0 {
					imSec = imCostBetween(x, g, top, secLevel, level, imPE)
					pred2 = (float64(d)*float64(hmTop-imTop) + float64(hmSec-imSec)) / float64(mIM.J)
				}
				switch {
				case hmStops(d, hmTop, imTop, mIM.J):
					run = "im@1"
				case secLevel > 0 && hmStopsSecond(d*(hmTop-imTop), hmSec-imSec, mIM.J):
					run = "im@2"
				}
			}
			fmt.Printf("%-16s %-6s %-5s %5v %10d %10d %7d %7d %4d %+7.3f %-5s %6.3f %6.3f %6.3f %d %10d %10d %+7.3f %6.3f\n",
				r[0], r[7], h, duel, mHM.J, mIM.J, hmTop, imTop, d, pred, run, tHM, tTop, tIM, secLevel, hmSec, imSec, pred2, tSec)
			im.backend.Close()
			hm.backend.Close()
		}
	}
}
