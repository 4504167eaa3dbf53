// Command example is a halo exchange written with gompi that lets gpumap
// place its ranks first. Each rank is one point of an NX x NY x NZ grid
// and exchanges HALO bytes with its neighbours along the axes:
//
//	go build -o halo ./mpirank/gompi/example
//	mpirun -np 16 ./halo 4 4 1 [halo-bytes]
//
// It reorders with gompi.Reorder, runs the exchange on the new
// communicator and checks every message: it comes from the neighbouring
// task, and its bytes are the ones that task sent. Rank 0 prints
// "J <before> <after>" and every rank "HALO OK task T world W host H
// messages M" (M checked messages);
// if gpumap fails, every rank prints the same error and exits with 1.
// Build it without tags: gompi v0.2.0 links OpenMPI.
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strconv"

	"github.com/gpumap/gpumap/mpirank/gompi"
	mpi "github.com/sbromberger/gompi"
)

// MPI from the main thread only: keep main's goroutine on it.
func init() { runtime.LockOSThread() }

type grid [3]int

func (g grid) coords(t int) [3]int {
	return [3]int{t / (g[1] * g[2]), (t / g[2]) % g[1], t % g[2]}
}

// neighbour along axis a in direction dir (+1/-1), or -1 at the border.
func (g grid) neighbour(t, a, dir int) int {
	c := g.coords(t)
	c[a] += dir
	if c[a] < 0 || c[a] >= g[a] {
		return -1
	}
	return (c[0]*g[1]+c[1])*g[2] + c[2]
}

// message is what task from sends to task to: a header naming both, then
// bytes that depend on both and on the position.
func message(from, to, size int) []byte {
	b := make([]byte, size)
	binary.LittleEndian.PutUint32(b, uint32(from))
	binary.LittleEndian.PutUint32(b[4:], uint32(to))
	for i := 8; i < size; i++ {
		b[i] = byte(from*7 + to*13 + i)
	}
	return b
}

func main() {
	mpi.Start(false)
	defer mpi.Stop()
	world := mpi.NewCommunicator(nil)
	rank, size := mpi.WorldRank(), mpi.WorldSize()
	fail := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "rank %d: "+format+"\n", append([]any{rank}, a...)...)
		world.Abort(1)
	}
	var g grid
	if len(os.Args) < 4 {
		fail("usage: example NX NY NZ [halo-bytes]")
	}
	for i := range g {
		g[i], _ = strconv.Atoi(os.Args[1+i])
	}
	halo := 1 << 20
	if len(os.Args) > 4 {
		halo, _ = strconv.Atoi(os.Args[4])
	}
	if g[0]*g[1]*g[2] != size || halo < 8 {
		fail("grid %dx%dx%d does not have %d points, or halo %d < 8 bytes", g[0], g[1], g[2], size, halo)
	}

	// The pattern of world rank r is that of task r.
	var nb []int32
	var vol []float64
	for a := 0; a < 3; a++ {
		for _, dir := range []int{-1, 1} {
			if u := g.neighbour(rank, a, dir); u >= 0 {
				nb, vol = append(nb, int32(u)), append(vol, float64(halo))
			}
		}
	}
	comm, res, err := gompi.Reorder(nb, vol, gompi.DefaultOptions())
	if err != nil {
		// Every rank has the same error: all can stop cleanly.
		fmt.Printf("rank %d: gpumap: %v\n", rank, err)
		mpi.Stop()
		os.Exit(1)
	}
	t := comm.Rank() // the task this process plays now
	if t == 0 {
		fmt.Printf("J %.0f %.0f\nMACHINE %s\n", res.JBefore, res.JAfter, res.Machine)
	}

	// The exchange on comm, deadlock-free with blocking calls: per axis
	// and direction, even coordinates send first, odd ones receive first.
	c := g.coords(t)
	got := 0
	for a := 0; a < 3; a++ {
		for _, dir := range []int{1, -1} {
			to, from := g.neighbour(t, a, dir), g.neighbour(t, a, -dir)
			send := func() {
				if to >= 0 {
					comm.SendBytes(message(t, to, halo), to, a)
				}
			}
			recv := func() {
				if from < 0 {
					return
				}
				buf := make([]byte, halo)
				st := comm.RecvPreallocBytes(buf, from, a)
				want := message(from, t, halo)
				if st.GetSource() != from || string(buf) != string(want) {
					fail("task %d: the message from task %d (axis %d) came from rank %d with header %d->%d",
						t, from, a, st.GetSource(), binary.LittleEndian.Uint32(buf), binary.LittleEndian.Uint32(buf[4:]))
				}
				got++
			}
			if c[a]%2 == 0 {
				send()
				recv()
			} else {
				recv()
				send()
			}
		}
	}
	host, _ := os.Hostname()
	comm.Barrier()
	fmt.Printf("HALO OK task %d world %d host %s messages %d\n", t, rank, host, got)
}
