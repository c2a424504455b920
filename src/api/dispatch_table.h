/* dispatch_table.h - per-shape GEMM configurations written by `tetra tune` (internal).
 *
 * A table is plain text (docs/tuning.md):
 *     tetra-dispatch-table 1
 *     device NVIDIA H200            (the name the CUDA driver reports; must match to be used)
 *     sm 90
 *     driver 580.159.04             (free text lines: driver, commit, date, tuned-on)
 *     match nearest                 (or exact; nearest if absent)
 *     entry bf16 64 14336 4096 wgmma 64 2 41.3
 *            a    M  N     K    path  tile_m splits [us]
 * a is bf16, fp16 or nvfp4, with ":frag" for an entry timed on fragment-ordered weights
 * (TETRA_SCALE_FRAGMENT_128X64); a plain entry serves standard-layout weights (and, GEMV
 * entries only, interleaved ones), a ":frag" entry fragment-ordered weights only. A nearest
 * table serves a query with the entry of the same activation kind and layout nearest in
 * log2 space, M weighted twice (the configuration follows M first). An exact table serves
 * only the shape an entry was timed on (M, N, K equal too) and leaves every other shape to
 * the launchers' rules: nearest entries lost to those rules on held-out shapes (runs 15,
 * 23, 111); an entry on its own shape is a measurement. */
#ifndef TETRA_DISPATCH_TABLE_H
#define TETRA_DISPATCH_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "tetra.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tetra_dispatch_entry {
    int a_nvfp4;  /* 0: BF16/FP16 activations (W4A16), 1: NVFP4 (W4A4) */
    int fragment; /* 1: timed on fragment-ordered weights (":frag"), which it alone serves */
    int64_t m, n, k;
    tetra_gemm_path path; /* GEMV, MMA_SYNC or WGMMA */
    int tile_m, splits;   /* as tetra_gemm_options (0 = the path's choice) */
    double us;            /* the time tune measured (informational), NaN if absent */
    double lm, ln, lk;    /* log2 of m, n, k: computed once at parse, not per lookup */
} tetra_dispatch_entry;

typedef struct tetra_dispatch_table {
    char device[128];
    int sm;                 /* major*10 + minor, 0 if absent */
    int exact;              /* "match exact": entries serve their own shape only */
    char origin[160];       /* "built-in" or the file path it came from */
    tetra_dispatch_entry *e;
    int n;
} tetra_dispatch_table;

/* Parse a table. 0 ok; -1 with a message naming the line in err. *t is owned by the
 * caller (tetra_dispatch_free). */
int tetra_dispatch_parse(const char *text, tetra_dispatch_table *t, char *err, size_t errlen);
/* Read and parse a file. */
int tetra_dispatch_load(const char *path, tetra_dispatch_table *t, char *err, size_t errlen);
void tetra_dispatch_free(tetra_dispatch_table *t);
/* The entry that serves a problem (fragment: its weights are fragment-ordered), or NULL:
 * the nearest (t->exact 0) or the one of its shape (t->exact 1). */
const tetra_dispatch_entry *tetra_dispatch_lookup(const tetra_dispatch_table *t, int a_nvfp4, int fragment,
                                                  int64_t m, int64_t n, int64_t k);
/* Path names in tables: "gemv", "mma_sync", "wgmma". NULL / -1 if unknown. */
const char *tetra_dispatch_path_name(tetra_gemm_path p);
int tetra_dispatch_path_parse(const char *name, tetra_gemm_path *p);
/* The tables compiled into tetra (the .txt files of data/dispatch): the one whose device line equals
 * `device`, parsed into *t; 0 found, -1 none. */
int tetra_dispatch_builtin(const char *device, tetra_dispatch_table *t);

#ifdef __cplusplus
}
#endif

#endif /* TETRA_DISPATCH_TABLE_H */
