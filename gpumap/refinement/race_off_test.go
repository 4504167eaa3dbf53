//go:build !race

package refinement

const underRace = false // see race_on_test.go
