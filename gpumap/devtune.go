package gpumap

import (
	"github.com/gpumap/gpumap/gpumap/partition"
	"os"
	"strconv"
	"strings"
)

// TEMPORARY tuning hook (removed before release): GPUMAP_DEV="key=val,...".
func devTune(c *presetConfig, alg *Algorithm) {
	spec := os.Getenv("GPUMAP_DEV")
	if spec == "" {
		return
	}
	for _, kv := range strings.Split(spec, ",") {
		f := strings.SplitN(kv, "=", 2)
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "alg":
			*alg = Algorithm(v)
		case "tries":
			c.partition.Tries = v
		case "palpha":
			c.partition.FM.Alpha = v
		case "pseeds":
			c.partition.FM.Seeds = v
		case "prec":
			c.partition.Recursive = v != 0
		case "pc":
			c.partition.CoarsenC = v
		case "flat":
			c.partition.FlatSize = v
		case "prounds":
			c.partition.FMRounds = v
		case "plp":
			c.partition.LPRounds = v
		case "ts":
			c.slackDepth = float64(v) / 100
		case "tt":
			c.topTries = v
		case "ltries":
			c.lower.Tries = v
			c.lower.FM.Alpha = c.partition.FM.Alpha
			c.lower.FMRounds = c.partition.FMRounds
			c.lower.LPRounds = c.partition.LPRounds
		case "seedmin":
			c.partition.FM.SeedFilter = v != 0
			c.finalFM.SeedFilter = v != 0
		case "fcap":
			partition.FlatAlphaCap = v
		case "frnd":
			partition.FlatRounds = v
		case "pfine":
			c.partition.FineFMRounds = v
		case "skipx":
			c.partition.FM.SkipExplored = v&1 != 0
			c.finalFM.SkipExplored = v&2 != 0
			c.lower.FM.SkipExplored = v&1 != 0
		case "active":
			c.partition.FM.Active = v&1 != 0
			c.finalFM.Active = v&2 != 0
		case "th":
			c.topH = v
		case "tc":
			c.topC = v
		case "tp":
			c.topPrune = v
		case "btries":
			c.bottom = c.partition
			c.bottom.Tries = v
		case "bfm":
			c.bottom.FMRounds = v
		case "blp":
			c.bottom.LPRounds = v
		case "balpha":
			c.bottom.FM.Alpha = v
		case "jit":
			c.integrated.Jet.Iterations = v
		case "ic":
			c.integrated.CoarsenC = v
		case "icap":
			c.integrated.CapDiv = int64(v)
		case "falpha":
			c.finalFM.Alpha = v
		case "frounds":
			c.finalFM.Rounds = v
		}
	}
}
