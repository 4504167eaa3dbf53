package distmap

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// cpuMask is a CPU affinity mask (sched_getaffinity) of up to 1024 CPUs.
type cpuMask [16]uint64

// threadMask returns the affinity of the calling thread, which for the
// thread that owns MPI is the binding its launcher gave the rank
// (OpenMPI's mpirun binds each of 2 ranks to a core of its own).
func threadMask() (cpuMask, bool) {
	var m cpuMask
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m)))
	return m, e == 0
}

// setProcessMask sets the affinity of every thread of this process to
// m, and returns whether it could. Threads that the runtime starts
// meanwhile copy the mask of the thread that starts them, so the tasks
// are listed again until none is left with another mask.
func setProcessMask(m cpuMask) bool {
	for range 4 {
		d, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return false
		}
		changed := false
		for _, t := range d {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			var cur cpuMask
			if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, uintptr(tid), unsafe.Sizeof(cur), uintptr(unsafe.Pointer(&cur))); e != 0 || cur == m {
				continue // gone, or done
			}
			if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m))); e == 0 {
				changed = true
			}
		}
		if !changed {
			return true
		}
	}
	return true
}
