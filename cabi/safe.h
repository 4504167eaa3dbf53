// safe.c: checks on the caller's memory before the library reads it.
#ifndef GPUMAP_SAFE_H
#define GPUMAP_SAFE_H
#include <stddef.h>

// 1 when the n bytes at p can be read (or the kernel will not tell), 0
// when some cannot (or p is NULL and n > 0).
int gpumap_readable(const void *p, size_t n);

// The length of the NUL-terminated string at s, read page by page; -1
// when s is NULL or memory before its NUL cannot be read.
long gpumap_strlen(const char *s);

// Copies n bytes from src to dst (the caller's memory); -1 when some of
// dst cannot be written.
int gpumap_write(void *dst, const void *src, size_t n);

#endif
