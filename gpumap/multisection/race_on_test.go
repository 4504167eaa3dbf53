//go:build race

package multisection

// underRace: the race detector is on (go test -race, make test), where
// every memory access costs about ten times more: the largest tests shrink
// their graphs and keep their thread counts.
const underRace = true
