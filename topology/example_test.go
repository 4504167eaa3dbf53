package topology_test

import (
	"fmt"

	"github.com/gpumap/gpumap/topology"
)

func Example() {
	top, err := topology.Parse("4:8:6", "1:10:100")
	if err != nil {
		panic(err)
	}
	fmt.Println(top.K(), "PEs")
	fmt.Println("same socket:", top.Distance(0, 3))
	fmt.Println("same node:  ", top.Distance(0, 4))
	fmt.Println("other node: ", top.Distance(0, 32))
	// Output:
	// 192 PEs
	// same socket: 1
	// same node:   10
	// other node:  100
}
