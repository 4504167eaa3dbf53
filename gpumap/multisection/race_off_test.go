//go:build !race

package multisection

const underRace = false // see race_on_test.go
