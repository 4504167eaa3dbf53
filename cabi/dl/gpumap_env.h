/*
 * gpumap_env.h - the one rule for GPUMAP_* variables that are switches
 * (GPUMAP_TOPO, GPUMAP_DISABLE, GPUMAP_MPI_SHM) or levels (GPUMAP_VERBOSE),
 * used by the topology interposer, the recorder and, through cgo
 * (package mpirank/env), the Go library (mpirank) and the command
 * gpumap-mpi, so that a value means the same everywhere:
 *
 *   blanks around the value are ignored, letters in any case;
 *   1, true, yes, on       on (level 1);
 *   0, false, no, off      off (level 0);
 *   a level also takes any decimal number (2: more detail);
 *   unset, or only blanks  the variable's default;
 *   anything else          the default, and a warning on rank 0 that
 *                          names the variable and its value.
 *
 * An unknown value is a warning, not an error: the variable's default
 * keeps a working program working, and the warning says why the setting
 * had no effect. Internal, handwritten; static, so every library that
 * includes it has its own private copy.
 */
#ifndef GPUMAP_ENV_H
#define GPUMAP_ENV_H

#include <stdio.h>
#include <stdlib.h>

enum {
    GPUMAP_ENV_UNSET = -1,   /* unset or blank: the default applies */
    GPUMAP_ENV_UNKNOWN = -2, /* not a value of the rule: warn, the default applies */
    GPUMAP_ENV_MAX_LEVEL = 1000000
};

/* Parses value (NULL: unset) by the rule above: 0 or 1 for a switch word,
 * 0..max for a number (max 1 for a switch, GPUMAP_ENV_MAX_LEVEL for a
 * level, larger numbers capped to it), else GPUMAP_ENV_UNSET or
 * GPUMAP_ENV_UNKNOWN. */
static inline int gpumap_env_parse(const char *value, int max) {
    if (!value) return GPUMAP_ENV_UNSET;
    const char *b = value, *e;
    while (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r') b++;
    for (e = b; *e; e++) {}
    while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r')) e--;
    if (b == e) return GPUMAP_ENV_UNSET;
    if (*b >= '0' && *b <= '9') {
        long long v = 0;
        for (const char *p = b; p < e; p++) {
            if (*p < '0' || *p > '9') return GPUMAP_ENV_UNKNOWN;
            if (v <= GPUMAP_ENV_MAX_LEVEL) v = 10 * v + (*p - '0');
        }
        if (max <= 1 && v > 1) return GPUMAP_ENV_UNKNOWN; /* a switch is 0 or 1 */
        return v > max ? max : (int)v;
    }
    static const char *const words[] = {"off", "no", "false", "on", "yes", "true"};
    for (int w = 0; w < 6; w++) {
        const char *p = b, *q = words[w];
        while (p < e && *q && (*p | 0x20) == *q) p++, q++;
        if (p == e && !*q) return w >= 3;
    }
    return GPUMAP_ENV_UNKNOWN;
}

/* Reads variable name now (getenv: a setenv of the program counts) and
 * returns its value by the rule, def when it is unset or unknown. An
 * unknown value is written into warning[n] (when warning is not NULL) as
 * the line rank 0 prints; warning is "" otherwise. */
static inline int gpumap_env_get(const char *name, int max, int def, char *warning, size_t n) {
    const char *value = getenv(name);
    int v = gpumap_env_parse(value, max);
    if (warning && n) warning[0] = 0;
    if (v == GPUMAP_ENV_UNKNOWN && warning && n)
        snprintf(warning, n, "%s=\"%.64s\" is not %s (1, true, yes, on; 0, false, no, off%s): its default, %s, applies",
                 name, value, max <= 1 ? "a switch" : "a level", max <= 1 ? "" : "; or a number",
                 max <= 1 ? (def ? "on" : "off") : def ? "1" : "0");
    return v < 0 ? def : v;
}

#endif
