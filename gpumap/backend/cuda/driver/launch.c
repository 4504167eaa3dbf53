// Kernel launch with arguments copied into C memory (cgo forbids keeping
// Go pointers in C arrays), one slot pointer per argument.
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef void *CUfunction;
typedef void *CUstream;

CUresult gm_launch_ptr(CUfunction f, unsigned gx, unsigned bx, unsigned shared, CUstream s, void **args);

CUresult gm_launch_args(CUfunction f, unsigned gx, unsigned bx, unsigned shared, CUstream s,
                        const void *blob, int bloblen, const int *offsets, int nargs) {
    char *copy = malloc(bloblen > 0 ? bloblen : 8);
    void **slots = malloc(sizeof(void *) * (nargs ? nargs : 1));
    if (!copy || !slots) { free(copy); free(slots); return 2; /* CUDA_ERROR_OUT_OF_MEMORY */ }
    if (bloblen > 0) memcpy(copy, blob, bloblen);
    for (int i = 0; i < nargs; i++) slots[i] = copy + offsets[i];
    CUresult r = gm_launch_ptr(f, gx, bx, shared, s, slots);
    free(copy);
    free(slots);
    return r;
}
