//go:build !race

package gpumap

const underRace = false // see race_on_test.go
