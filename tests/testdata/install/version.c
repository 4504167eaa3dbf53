/* version: prints gpumap_version() (no MPI needed). */
#include <stdio.h>
#include "gpumap.h"

int main(void) {
    printf("%s\n", gpumap_version());
    return 0;
}
