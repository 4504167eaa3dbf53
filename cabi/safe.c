// Reading the caller's memory without trusting it: an array shorter than
// the count that comes with it, a garbage pointer in an uninitialised
// gpumap_options or a string without its NUL must give an error, not a
// fault inside the Go runtime (which kills the whole MPI job).
//
// process_vm_readv on our own process reads through the kernel, which
// reports memory that is not mapped or not readable as EFAULT instead of
// raising SIGSEGV. Where the system call is not permitted (ENOSYS, EPERM:
// some seccomp profiles) the checks say "readable" and the library reads
// directly, as it did before.
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "safe.h"

enum { PAGE = 4096, BATCH = 1024 };

// probe reads the bytes at the n addresses in at; 1 when all were
// readable, 0 when one was not, -1 when the kernel would not say.
static int probe(struct iovec *at, int n) {
    char sink[BATCH];
    struct iovec local = {sink, (size_t)n};
    ssize_t got = process_vm_readv(getpid(), &local, 1, at, (unsigned long)n, 0);
    if (got == n) return 1;
    if (got < 0 && (errno == ENOSYS || errno == EPERM)) return -1;
    return 0;
}

int gpumap_readable(const void *p, size_t n) {
    if (n == 0) return 1;
    if (!p) return 0;
    uintptr_t q = (uintptr_t)p, last = q + (n - 1);
    if (last < q) return 0; // wraps around the address space
    // One byte per page: protection is per page.
    struct iovec at[BATCH];
    int k = 0;
    for (;;) {
        at[k].iov_base = (void *)q;
        at[k++].iov_len = 1;
        uintptr_t next = (q | (PAGE - 1)) + 1; // the next page (0 past the top)
        int done = next == 0 || next > last;
        if (done || k == BATCH) {
            int r = probe(at, k);
            if (r <= 0) return r < 0; // -1: the kernel would not say
            k = 0;
        }
        if (done) return 1;
        q = next;
    }
}

long gpumap_strlen(const char *s) {
    if (!s) return -1;
    char buf[PAGE];
    long len = 0;
    for (uintptr_t a = (uintptr_t)s;;) {
        size_t n = PAGE - (a & (PAGE - 1)); // up to the end of this page
        struct iovec local = {buf, n}, remote = {(void *)a, n};
        ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        if (got < 0 && (errno == ENOSYS || errno == EPERM)) return (long)strlen(s);
        if (got != (ssize_t)n) return -1;
        char *z = memchr(buf, 0, n);
        if (z) return len + (long)(z - buf);
        len += (long)n;
        a += n;
    }
}

int gpumap_write(void *dst, const void *src, size_t n) {
    if (n == 0) return 0;
    struct iovec local = {(void *)src, n}, remote = {dst, n};
    size_t done = 0;
    while (done < n) {
        local.iov_base = (char *)src + done;
        remote.iov_base = (char *)dst + done;
        local.iov_len = remote.iov_len = n - done;
        ssize_t put = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);
        if (put < 0 && (errno == ENOSYS || errno == EPERM) && done == 0) {
            memcpy(dst, src, n);
            return 0;
        }
        if (put <= 0) return -1;
        done += (size_t)put;
    }
    return 0;
}
