/*
 * fault.c - topo_fault (topo.h), in the test build of the interposer
 * only; the release build compiles nothing here.
 */
#include "topo.h"

#ifdef GPUMAP_FAULT_INJECT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int topo_fault(const topo_call *c, const char *site) {
    const char *e = getenv("GPUMAP_TEST_FAIL"); /* at call time, like every GPUMAP_* variable */
    char want[128];
    snprintf(want, sizeof want, "%s@%d", site, c->rank);
    return e && strcmp(e, want) == 0;
}
#else
typedef int topo_fault_unused; /* ISO C wants a declaration in every file */
#endif
