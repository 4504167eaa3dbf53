package hwdetect

/*
#cgo pkg-config: hwloc
#include <hwloc.h>
#include <pthread.h>
#include <stdlib.h>

// The topology, loaded on the first call and kept: loading it took 0.12 s
// a call on a 2-core virtual machine (BenchmarkLocate with the load in
// every call; 60 us without), which 16 ranks on those 2 cores paid at
// every gpumap call, one after the other. The
// machine does not change under a running process; its binding may, and
// is read at every call. Only packages, cores and PUs matter: caches,
// groups, I/O and misc objects, which are most of the discovery work, are
// skipped.
static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;
static hwloc_topology_t topo;
static int topo_state; // 0 not loaded, 1 loaded, -1 failed

static int load_topology(void) {
	if (topo_state != 0) return topo_state;
	topo_state = -1;
	if (hwloc_topology_init(&topo) != 0) return topo_state;
	hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(topo, HWLOC_OBJ_GROUP, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(topo, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
	if (hwloc_topology_load(topo) != 0) {
		hwloc_topology_destroy(topo);
		return topo_state;
	}
	return topo_state = 1;
}

// locate fills the package and core logical indexes that contain the
// process's CPU binding (-1 when the binding spans several), and the
// number of PUs it may run on. Returns 0 on success.
static int gpumap_locate(int *package, int *core, int *pus) {
	*package = -1; *core = -1; *pus = 0;
	pthread_mutex_lock(&topo_lock);
	if (load_topology() != 1) {
		pthread_mutex_unlock(&topo_lock);
		return -1;
	}
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int rc = hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS);
	if (rc != 0) {
		// Fall back to the thread's binding (some systems refuse process queries).
		rc = hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
	}
	if (rc == 0) {
		// Restrict to PUs the topology knows (a faked topology may be smaller).
		hwloc_bitmap_and(set, set, hwloc_topology_get_complete_cpuset(topo));
		*pus = hwloc_bitmap_weight(set);
		if (*pus > 0) {
			hwloc_obj_t obj = hwloc_get_obj_covering_cpuset(topo, set);
			for (hwloc_obj_t o = obj; o; o = o->parent) {
				if (o->type == HWLOC_OBJ_CORE && *core < 0) *core = (int)o->logical_index;
				if (o->type == HWLOC_OBJ_PACKAGE) { *package = (int)o->logical_index; break; }
			}
		}
	}
	hwloc_bitmap_free(set);
	pthread_mutex_unlock(&topo_lock);
	return rc;
}
*/
import "C"

import (
	"os"
	"strings"
)

// Locate returns the calling process's record. host is its processor name
// (from MPI); the boot id, switch (SLURM_TOPOLOGY_ADDR) and binding are
// read here.
func Locate(host string) Record {
	r := Record{Host: host, Socket: UnknownSocket, Core: -1}
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		r.BootID = strings.TrimSpace(string(b))
	}
	r.Switch = slurmSwitch(os.Getenv("SLURM_TOPOLOGY_ADDR"))
	var pkg, core, pus C.int
	if C.gpumap_locate(&pkg, &core, &pus) == 0 && pus > 0 {
		r.Socket, r.Core = int(pkg), int(core)
		if r.Socket < 0 {
			r.Socket = UnknownSocket
		}
	}
	return r
}

// slurmSwitch keeps the switch part of SLURM_TOPOLOGY_ADDR ("s1.s2.node7"
// becomes "s1.s2"); "" when there is none.
func slurmSwitch(addr string) string {
	i := strings.LastIndexByte(addr, '.')
	if i <= 0 {
		return ""
	}
	return addr[:i]
}
