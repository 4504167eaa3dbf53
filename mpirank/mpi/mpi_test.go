package mpi

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gpumap/gpumap/mpirank/mpi/mpitest"
)

// The collectives are checked by this test binary itself under mpirun
// (mpitest): on 1 and 3 ranks, each of which prints one line.

func TestCollectives(t *testing.T) {
	if !mpitest.Child() {
		for _, np := range []int{1, 3} {
			out := mpitest.Run(t, np, "TestCollectives")
			if strings.Count(out, "collectives ok") != np {
				t.Errorf("np=%d: want %d ranks ok:\n%s", np, np, out)
			}
		}
		return
	}
	runtime.LockOSThread()
	if err := Init(); err != nil {
		t.Fatal(err)
	}
	// A failing rank takes the job down: its peers would wait for it.
	check := func(err error) {
		if err != nil {
			fmt.Println("FAIL:", err)
			Abort(World(), 1)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			check(fmt.Errorf("panic: %v", r))
		}
	}()
	c, err := Copy(World(), true)
	check(err)
	check(collectives(c))
	// The same with pieces of 5 bytes: Bcast, Send, Recv, Allgatherv and Alltoallv
	// take their multi-round paths, as they would past 2^31 bytes.
	chunk = 5
	check(collectives(c))
	check(Free(c))
	check(Finalize())
	fmt.Println("collectives ok")
}

// collectives checks every typed collective against values computed by
// hand from the rank alone.
func collectives(c Comm) error {
	_, _, _, size, rank := Inspect(c)
	fail := func(what string, got, want any) error {
		return fmt.Errorf("rank %d of %d: %s: got %v, want %v", rank, size, what, got, want)
	}
	s := []int64{int64(rank + 1), int64(-rank)}
	if err := Allreduce(c, s, Sum); err != nil {
		return err
	}
	if want := int64(size * (size + 1) / 2); s[0] != want || s[1] != -want+int64(size) {
		return fail("Allreduce sum", s, want)
	}
	f := []float64{float64(rank) + 0.5}
	if err := Allreduce(c, f, Max); err != nil {
		return err
	}
	if f[0] != float64(size-1)+0.5 {
		return fail("Allreduce max", f, size)
	}
	m, who, err := MinLoc(c, int64(10-rank%2))
	if err != nil {
		return err
	}
	if wantM, wantWho := int64(10-min(size-1, 1)), min(size-1, 1); m != wantM || who != wantWho {
		return fail("MinLoc", [2]int64{m, int64(who)}, [2]int64{wantM, int64(wantWho)})
	}
	ex, err := Scan(c, []int64{int64(rank + 1)}, Sum, true)
	if err != nil {
		return err
	}
	if ex[0] != int64(rank*(rank+1)/2) {
		return fail("Exscan", ex[0], rank*(rank+1)/2)
	}
	in, err := Scan(c, []int32{int32(rank + 1)}, Sum, false)
	if err != nil {
		return err
	}
	if in[0] != int32((rank+1)*(rank+2)/2) {
		return fail("Scan", in[0], (rank+1)*(rank+2)/2)
	}
	buf := make([]byte, 23)
	if rank == size-1 {
		for i := range buf {
			buf[i] = byte(i * 7)
		}
	}
	if err := Bcast(c, buf, size-1); err != nil {
		return err
	}
	for i := range buf {
		if buf[i] != byte(i*7) {
			return fail("Bcast", buf, "i*7")
		}
	}
	// Send and Recv along a chain: rank r receives 13 bytes 3(r-1)+i
	// from rank r-1, then sends 3r+i to rank r+1.
	got := make([]byte, 13)
	if rank > 0 {
		if err := Recv(c, got, rank-1, 7); err != nil {
			return err
		}
		for i := range got {
			if got[i] != byte(3*(rank-1)+i) {
				return fail("Send/Recv", got, "3(r-1)+i")
			}
		}
	}
	if rank+1 < size {
		for i := range got {
			got[i] = byte(3*rank + i)
		}
		if err := Send(c, got, rank+1, 7); err != nil {
			return err
		}
	}
	// After a barrier every message sent before it has been received:
	// none waits.
	if err := Barrier(c, time.Millisecond); err != nil {
		return err
	}
	if rank > 0 {
		if waits, err := Probe(c, rank-1, 7); err != nil || waits {
			return fail("Probe after the barrier", waits, false)
		}
	}
	// Rank r contributes r elements of value 100r+i; it sends rank d
	// (d+r)%3 elements 1000r+10d+i.
	mine := make([]int64, rank)
	for i := range mine {
		mine[i] = int64(100*rank + i)
	}
	all, offs, err := Allgatherv(c, mine, size)
	if err != nil {
		return err
	}
	for r := 0; r < size; r++ {
		if offs[r+1]-offs[r] != int64(r) {
			return fail("Allgatherv offsets", offs, "r")
		}
		for i := int64(0); i < int64(r); i++ {
			if all[offs[r]+i] != int64(100*r)+i {
				return fail("Allgatherv", all, "100r+i")
			}
		}
	}
	var send []int64
	sendOff := []int64{0}
	for d := 0; d < size; d++ {
		for i := 0; i < (d+rank)%3; i++ {
			send = append(send, int64(1000*rank+10*d+i))
		}
		sendOff = append(sendOff, int64(len(send)))
	}
	recv, recvOff, err := Alltoallv(c, send, sendOff, size)
	if err != nil {
		return err
	}
	for r := 0; r < size; r++ {
		if recvOff[r+1]-recvOff[r] != int64((rank+r)%3) {
			return fail("Alltoallv offsets", recvOff, "(rank+r)%3")
		}
		for i := int64(0); i < recvOff[r+1]-recvOff[r]; i++ {
			if recv[recvOff[r]+i] != int64(1000*r+10*rank)+i {
				return fail("Alltoallv", recv, "1000r+10rank+i")
			}
		}
	}
	return nil
}

// TestLibrary: the MPI library's file is found (it defines MPI_Init) and
// exists.
func TestLibrary(t *testing.T) {
	lib := Library()
	if lib == "" {
		t.Fatal("dladdr found no file for MPI_Init")
	}
	if _, err := os.Stat(lib); err != nil {
		t.Fatalf("Library() = %q: %v", lib, err)
	}
	t.Logf("MPI library: %s", lib)
}

// TestLaunched: the launcher's rank, size and ranks on this node, read
// with C's getenv at call time (a Go os.Setenv sets C's environment
// too); a pair that is no valid rank of size, or a number with text
// around it, is no answer.
func TestLaunched(t *testing.T) {
	for _, c := range []struct {
		rank, size, local string
		r, s              int
		ok, oneNode       bool
	}{
		{"1", "2", "2", 1, 2, true, true},
		{"0", " 4 ", "2", 0, 4, true, false},
		{"0", "1", "", 0, 1, true, false},
		{"2", "2", "2", 0, 0, false, false},
		{"-1", "2", "2", 0, 0, false, false},
		{"0", "2x", "2", 0, 0, false, false},
		{"", "2", "2", 0, 0, false, false},
	} {
		for k, v := range map[string]string{rankVar: c.rank, sizeVar: c.size, localVar: c.local} {
			if t.Setenv(k, v); v == "" {
				os.Unsetenv(k)
			}
		}
		r, s, ok := Launched()
		if r != c.r || s != c.s || ok != c.ok || LaunchedOnOneNode() != c.oneNode {
			t.Errorf("%s=%q %s=%q %s=%q: Launched %d, %d, %v, on one node %v; want %d, %d, %v, %v",
				rankVar, c.rank, sizeVar, c.size, localVar, c.local, r, s, ok, LaunchedOnOneNode(), c.r, c.s, c.ok, c.oneNode)
		}
	}
}
