package cuda

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The model's figures are the fit to the H200's per-kernel times on file
// (bench/results-h200/3-merged-run.txt, BenchmarkProfile: each row a
// kernel's launches, counted bytes and gathers, measured time and the
// first fit's time). The first fit's time less its launches, streamed
// bytes and gathers is its serial terms (rows without gathers) or its
// gathers from memory (rows with them); priced by Device's figures for
// the H200 and kindOf, every instance the fit used comes out within 8%
// of the measured total. Changing a figure without fitting again fails
// here.
func TestModelFitsTheH200(t *testing.T) {
	f, err := os.Open("../../../bench/results-h200/3-merged-run.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The first fit: 11.5 us a synchronised launch, 1.66 TB/s, sectors at
	// 7.8 TB/s from L2 (every array of these runs fits half of it), 0.2 us
	// a round trip.
	const launch1, bw1, l2bw1, latency1 = 11.5e-6, 1.66e12, 7.8e12, 0.2e-6
	d := H200
	sync := profiledSync.Seconds()
	real, model := map[string]float64{}, map[string]float64{}
	inst := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, " on cuda (NVIDIA H200"); i > 0 {
			inst = line[:i]
			continue
		}
		fs := strings.Fields(line)
		if inst == "" || len(fs) != 9 || fs[0] == "kernel" {
			continue
		}
		n, err1 := strconv.ParseFloat(fs[2], 64)
		bytes, err2 := strconv.ParseFloat(fs[3], 64)
		gathers, err3 := strconv.ParseFloat(fs[4], 64)
		ms, err4 := strconv.ParseFloat(fs[5], 64)
		first, err5 := strconv.ParseFloat(fs[6], 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil {
			continue
		}
		k := kindOf(fs[0])
		traffic := (bytes-4*gathers)/bw1 + gathers*float64(d.SectorBytes)/l2bw1
		rest := first/1e3 - n*launch1 - traffic
		var m float64
		switch {
		case k == KindMemset:
			m = n*(d.Memset+sync) + d.factor(k)*traffic
		case gathers == 0:
			m = n*(d.Launch+sync) + d.factor(k)*traffic + rest*d.Latency/latency1
		default:
			m = n*(d.Launch+sync) + d.factor(k)*(traffic+rest)
		}
		real[inst] += ms / 1e3
		model[inst] += m
	}
	for _, in := range []string{"im/rgg2d_2^20", "im/rgg2d_2^22", "im/grid3d_2^21", "hm/rgg2d_2^22"} {
		r := model[in] / real[in]
		t.Logf("%s: measured %.1f ms, model %.1f ms (%.2f)", in, 1e3*real[in], 1e3*model[in], r)
		if real[in] == 0 || r < 0.92 || r > 1.08 {
			t.Errorf("%s: the model gives %.2f times the measured %.1f ms", in, r, 1e3*real[in])
		}
	}
}
