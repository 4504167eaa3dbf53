/* gpumap_dl.c - see gpumap_dl.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "gpumap_abi.h"
#include "gpumap_dl.h"

#ifndef GPUMAP_SONAME
#define GPUMAP_SONAME "libgpumap.so.0"
#endif

/* Appends "; " and a formatted reason to why[n] (the reasons of all the
 * candidates, in the order they were tried). */
static void reason(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void reason(char *why, size_t n, const char *fmt, ...) {
    size_t l = strnlen(why, n);
    if (l && l + 2 < n) {
        memcpy(why + l, "; ", 3);
        l += 2;
    }
    if (l + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + l, n - l, fmt, ap);
    va_end(ap);
}

/* Whether the ELF image f[0..size) may be loaded into this process: the
 * class, byte order and machine of the caller's own image (self), and a
 * gpumap note naming the caller's MPI. NULL when it may, else why not
 * (mpi[] holds the MPI the note names, if any). Every offset is checked
 * against size: the file is not trusted. */
static const char *elf_verdict(const unsigned char *f, size_t size, const ElfW(Ehdr) *self, char mpi[32]) {
    mpi[0] = 0;
    const ElfW(Ehdr) *e = (const ElfW(Ehdr) *)f;
    if (size < EI_NIDENT || memcmp(f, ELFMAG, SELFMAG) != 0) return "not an ELF file";
    if (size < sizeof *e || e->e_ident[EI_CLASS] != self->e_ident[EI_CLASS] ||
        e->e_ident[EI_DATA] != self->e_ident[EI_DATA] || e->e_machine != self->e_machine)
        return "an ELF file for another kind of machine";
    if (e->e_type != ET_DYN) return "not a shared library";
    if (e->e_phentsize != sizeof(ElfW(Phdr)) || e->e_phoff > size ||
        (size - e->e_phoff) / sizeof(ElfW(Phdr)) < e->e_phnum)
        return "a damaged ELF file (program headers)";
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(f + e->e_phoff);
    for (int i = 0; i < e->e_phnum; i++) {
        if (ph[i].p_type != PT_NOTE || ph[i].p_offset > size || ph[i].p_filesz > size - ph[i].p_offset) continue;
        size_t align = ph[i].p_align == 8 ? 8 : 4, off = ph[i].p_offset, end = off + ph[i].p_filesz;
        while (end - off >= 12) {
            const uint32_t *h = (const uint32_t *)(f + off);
            size_t name = off + 12, desc = name + ((h[0] + align - 1) & ~(align - 1));
            if (h[0] > end - name || desc > end || h[1] > end - desc) break;
            if (h[2] == GPUMAP_NOTE_MPI && h[0] == sizeof GPUMAP_NOTE_OWNER &&
                memcmp(f + name, GPUMAP_NOTE_OWNER, sizeof GPUMAP_NOTE_OWNER) == 0) {
                size_t k = h[1] < 31 ? h[1] : 31;
                memcpy(mpi, f + desc, k);
                mpi[k] = 0;
                return strcmp(mpi, GPUMAP_MPI_ABI) == 0 ? NULL : "built for another MPI";
            }
            off = desc + ((h[1] + align - 1) & ~(align - 1));
            if (off > end) break;
        }
    }
    return "no gpumap note (not a libgpumap.so, or one older than 0.2)";
}

/* Loads path if its file says it fits this process (elf_verdict), else
 * appends why not (and what, where the path came from) to why[n] and
 * returns NULL. The file is only read
 * (mapped read-only, never executed) until the verdict is in. */
static void *try_load(const char *path, const char *what, char *why, size_t n) {
    Dl_info self;
    if (!dladdr((void *)try_load, &self) || !self.dli_fbase) {
        reason(why, n, "%.600s: cannot read this library's own ELF header%s", path, what);
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block us */
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        reason(why, n, "cannot load %.600s: %s%s", path, strerror(errno), what);
        if (fd >= 0) close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || st.st_size == 0) {
        reason(why, n, "%.600s: not a regular file%s", path, what);
        close(fd);
        return NULL;
    }
    void *f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (f == MAP_FAILED) {
        reason(why, n, "%.600s: cannot be read: %s%s", path, strerror(errno), what);
        return NULL;
    }
    char mpi[32];
    const char *no = elf_verdict(f, (size_t)st.st_size, (const ElfW(Ehdr) *)self.dli_fbase, mpi);
    munmap(f, (size_t)st.st_size);
    if (no && mpi[0]) {
        reason(why, n, "%.600s was built for %s, this program runs %s: use the library of the same MPI%s", path, mpi,
               GPUMAP_MPI_ABI, what);
        return NULL;
    }
    if (no) {
        reason(why, n, "%.600s: %s%s", path, no, what);
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) reason(why, n, "cannot load %.600s: %.300s%s", path, dlerror(), what);
    return h;
}

/* The soname in the directories dlopen would search from this library
 * (LD_LIBRARY_PATH, its run path, the system directories: dlinfo's
 * RTLD_DI_SERINFO); ld.so.cache is not searched, as its entries are
 * installed next to this library anyway (make install). */
static void *try_search_path(char *why, size_t n) {
    Dl_info self;
    void *me = NULL;
    Dl_serinfo size, *info = NULL;
    if (dladdr((void *)try_search_path, &self) && self.dli_fname)
        me = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (me && dlinfo(me, RTLD_DI_SERINFOSIZE, &size) == 0 && (info = malloc(size.dls_size))) {
        *info = size; /* dls_size and dls_cnt as RTLD_DI_SERINFO wants them */
        if (dlinfo(me, RTLD_DI_SERINFO, info) != 0) info->dls_cnt = 0;
    }
    if (me) dlclose(me);
    void *h = NULL;
    char path[PATH_MAX], dirs[512] = "";
    for (unsigned i = 0; info && !h && i < info->dls_cnt; i++) {
        const char *dir = info->dls_serpath[i].dls_name;
        snprintf(path, sizeof path, "%s/%s", dir, GPUMAP_SONAME);
        if (access(path, F_OK) == 0)
            h = try_load(path, "", why, n);
        else
            snprintf(dirs + strlen(dirs), sizeof dirs - strlen(dirs), "%s%s", dirs[0] ? ":" : "", dir);
    }
    if (!h && dirs[0]) reason(why, n, "%s: not in %.400s", GPUMAP_SONAME, dirs);
    if (!h && !info) reason(why, n, "%s: the library search path is unknown", GPUMAP_SONAME);
    free(info);
    return h;
}

void *gpumap_dl_open(char *why, size_t n) {
    if (n) why[0] = 0;
    const char *env = getenv("GPUMAP_LIBRARY");
    if (env && *env) return try_load(env, " (GPUMAP_LIBRARY)", why, n);
    /* Linked into the program already: nothing new is loaded. */
    void *h = dlopen(GPUMAP_SONAME, RTLD_NOW | RTLD_NOLOAD);
    if (h) {
        const char *(*abi)(void) = (const char *(*)(void))dlsym(h, "gpumap_mpi_abi");
        if (abi && strcmp(abi(), GPUMAP_MPI_ABI) == 0) return h;
        reason(why, n, "the %s the program is linked with was built for %s, this program runs %s", GPUMAP_SONAME,
               abi ? abi() : "another MPI", GPUMAP_MPI_ABI);
        return NULL;
    }
    Dl_info self;
    char dir[PATH_MAX], path[PATH_MAX + 32];
    if (dladdr((void *)gpumap_dl_open, &self) && self.dli_fname && realpath(self.dli_fname, dir)) {
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        const char *names[] = {GPUMAP_SONAME, "libgpumap.so"};
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            if ((h = try_load(path, "", why, n))) return h;
        }
    } else {
        reason(why, n, "the directory of this library is unknown");
    }
    return try_search_path(why, n);
}

void *gpumap_dl_next(const char *name, void **cache) {
    /* Racing threads store the same value. */
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f;
}

int gpumap_dl_private_comm(MPI_Comm comm, int key, MPI_Comm *out) {
    int rc = PMPI_Comm_split(comm, 0, key, out);
    if (rc != MPI_SUCCESS) {
        *out = MPI_COMM_NULL;
        return rc;
    }
    PMPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
    return MPI_SUCCESS;
}
