/* gpu_dispatch_table.c - tetra_gemm AUTO follows a loaded dispatch table (docs/tuning.md).
 *
 * On one set of operands (BF16 a, standard swizzled and fragment-ordered NVFP4 b, FP32 D):
 * 1. An exact table's entry (wgmma_t, 128 tokens per CTA, 5 splits: a configuration the
 *    rules do not choose at this M) makes AUTO give the pinned configuration's bits, on
 *    standard weights (a plain entry) and on fragment weights (a ":frag" entry); the
 *    precondition that those bits differ from the rules' is checked, else the test could
 *    not tell them apart.
 * 2. The exact table does not serve M - 1, nor the other layout (a plain entry never
 *    serves fragment weights): AUTO gives the bits it gives without a table.
 * 3. The same entry in a nearest table does serve M - 1 (the pinned bits there).
 * 4. A table whose device line names another GPU is refused, naming it; NULL goes back to
 *    the built-in table. Outputs poisoned before every run, guard bytes checked. Exit 77
 *    without a device; sections 1-3 say "skipped" where the wgmma-T path is unsupported
 *    (not sm_90a). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "format/float16.h"
#include "testutil.h"

#define NAME "gpu_dispatch_table"
enum { M = 96, N = 384, K = 1024, TILE = 128, SPLITS = 5 };

typedef struct {
    tetra_context *ctx;
    tetra_matrix x, w, wf; /* BF16 a [M, K]; b standard and fragment-ordered */
    tu_devbuf dy;
    float *h;              /* host copy of one run's D */
    char device[256];
} fixture;

/* D = x * b^T on the first m rows, as AUTO (path 0) or pinned wgmma_t TILE / SPLITS; its bits
 * into out. 0 ok. */
static int run(fixture *f, const tetra_matrix *b, int64_t m, int pinned, float *out) {
    tetra_gemm_options o = tetra_gemm_options_default();
    tetra_matrix a = f->x, d = tetra_matrix_dense(TETRA_DTYPE_FP32, f->dy.ptr, m, N);
    tetra_status st;
    a.rows = m;
    if (pinned) {
        o.path = TETRA_PATH_WGMMA_T;
        o.tile_m = TILE;
        o.splits = SPLITS;
    }
    cudaMemset(f->dy.ptr, 0xFF, (size_t)(M * N) * 4); /* poisoned: every element must be written */
    st = tetra_gemm(f->ctx, &a, b, &d, &o);
    if (st != TETRA_OK) return (int)st;
    tu_dev_download(&f->dy, out, (size_t)(m * N) * 4);
    tu_dev_check_guards(&f->dy, "D");
    return 0;
}

/* Writes a one-entry table (match exact / nearest) for this GPU to path; 0 ok. */
static int write_table(const fixture *f, const char *path, const char *match, const char *kind) {
    FILE *t = fopen(path, "w");
    if (!t) return -1;
    fprintf(t, "tetra-dispatch-table 1\ndevice %s\nmatch %s\nentry %s %d %d %d wgmma_t %d %d\n", f->device, match,
            kind, M, N, K, TILE, SPLITS);
    return fclose(t);
}

/* AUTO under `table` (a file, or NULL: none loaded) on b with m rows equals `want`? */
static int auto_equals(fixture *f, const char *table, const tetra_matrix *b, int64_t m, const float *want) {
    int rc;
    if (table) CHECK_MSG(tetra_context_load_dispatch_table(f->ctx, table) == TETRA_OK, "%s", tetra_last_error());
    rc = run(f, b, m, 0, f->h);
    CHECK_MSG(rc == 0, "AUTO m=%lld: %s", (long long)m, tetra_last_error());
    if (table) CHECK(tetra_context_load_dispatch_table(f->ctx, NULL) == TETRA_OK);
    return rc == 0 && memcmp(f->h, want, (size_t)(m * N) * 4) == 0;
}

static void layout_case(fixture *f, const tetra_matrix *b, const tetra_matrix *other, const char *kind,
                        const char *what) {
    const size_t bytes = (size_t)(M * N) * 4;
    float *pin = tu_xmalloc(bytes), *rules = tu_xmalloc(bytes), *pin1 = tu_xmalloc(bytes),
          *rules1 = tu_xmalloc(bytes), *rules_other = tu_xmalloc(bytes);
    const char *exact = "gpu_dispatch_table.exact.txt", *nearest = "gpu_dispatch_table.nearest.txt";
    int rc = run(f, b, M, 1, pin);
    if (rc == TETRA_ERR_UNSUPPORTED) {
        printf("  %-9s skipped: the wgmma-T path refuses here (%s)\n", what, tetra_last_error());
        goto done;
    }
    CHECK_MSG(rc == 0, "%s: pinned: %s", what, tetra_last_error());
    CHECK_MSG(run(f, b, M, 0, rules) == 0 && run(f, b, M - 1, 1, pin1) == 0 && run(f, b, M - 1, 0, rules1) == 0 &&
                  run(f, other, M, 0, rules_other) == 0,
              "%s: %s", what, tetra_last_error());
    CHECK_MSG(memcmp(pin, rules, bytes) != 0 && memcmp(pin1, rules1, (size_t)((M - 1) * N) * 4) != 0,
              "%s: the rules give the entry's bits at M = %d or %d: the test cannot tell them apart", what, M, M - 1);
    CHECK_MSG(write_table(f, exact, "exact", kind) == 0 && write_table(f, nearest, "nearest", kind) == 0,
              "cannot write the table files here");
    CHECK_MSG(auto_equals(f, exact, b, M, pin), "%s: AUTO under the exact entry is not the entry's configuration",
              what);
    CHECK_MSG(auto_equals(f, exact, b, M - 1, rules1), "%s: the exact entry served M = %d", what, M - 1);
    CHECK_MSG(auto_equals(f, exact, other, M, rules_other), "%s: the entry served the other weight layout", what);
    CHECK_MSG(auto_equals(f, nearest, b, M - 1, pin1), "%s: the nearest entry did not serve M = %d", what, M - 1);
    CHECK_MSG(auto_equals(f, NULL, b, M, rules), "%s: AUTO after the table is unloaded is not the rules'", what);
    printf("  %-9s exact entry followed at M = %d, not at M = %d nor the other layout; nearest at M = %d\n", what,
           M, M - 1, M - 1);
    remove(exact);
    remove(nearest);
done:
    free(pin); free(rules); free(pin1); free(rules1); free(rules_other);
}

int main(void) {
    fixture f;
    tetra_rng r = {0xd15a7c4ull};
    tetra_device_info info;
    tu_stdmat s;
    uint16_t *x = tu_xmalloc((size_t)(M * K) * 2);
    tu_devbuf dx, dw, dws, dfv, dfs;
    const char *other_gpu = "gpu_dispatch_table.other.txt";
    FILE *t;
    memset(&f, 0, sizeof f);
    f.ctx = tu_gpu_or_skip(NAME);
    CHECK(tetra_device_info_get(tetra_context_device(f.ctx), &info) == TETRA_OK);
    snprintf(f.device, sizeof f.device, "%s", info.name);
    s = tu_std_make(&r, N, K, 1, TETRA_SCALE_SWIZZLED_128X4, 0, 0.25f, 0x7F);
    for (long long i = 0; i < (long long)M * K; i++) x[i] = tetra_f32_to_bf16((float)tetra_rng_normal(&r));
    dx = tu_dev_alloc((size_t)(M * K) * 2, 0);
    dw = tu_dev_alloc(s.dbytes, 0);
    dws = tu_dev_alloc(s.sbytes, 0);
    dfv = tu_dev_alloc(tetra_nvfp4_fragment_bytes(N, K), 0x5A);
    dfs = tu_dev_alloc(tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_FRAGMENT_128X64), 0x5A);
    f.dy = tu_dev_alloc((size_t)(M * N) * 4, 0xFF);
    f.h = tu_xmalloc((size_t)(M * N) * 4);
    tu_dev_upload(&dx, x, (size_t)(M * K) * 2);
    tu_dev_upload(&dw, s.data, s.dbytes);
    tu_dev_upload(&dws, s.scales, s.sbytes);
    f.x = tetra_matrix_dense(TETRA_DTYPE_BF16, dx.ptr, M, K);
    f.w = s.m;
    f.w.data = dw.ptr;
    f.w.scales = dws.ptr;
    f.wf = tetra_matrix_nvfp4(dfv.ptr, dfs.ptr, TETRA_SCALE_FRAGMENT_128X64, N, K, f.w.global_scale);
    CHECK_MSG(tetra_convert_weights(f.ctx, &f.w, &f.wf) == TETRA_OK, "convert: %s", tetra_last_error());

    layout_case(&f, &f.w, &f.wf, "bf16", "standard");
    layout_case(&f, &f.wf, &f.w, "bf16:frag", "fragment");

    /* 4. a table for another GPU is refused, naming it; NULL: the built-in table again */
    if ((t = fopen(other_gpu, "w"))) {
        fprintf(t, "tetra-dispatch-table 1\ndevice Not A Real GPU\nentry bf16 1 64 64 gemv 0 0\n");
        fclose(t);
        CHECK_ERR(tetra_context_load_dispatch_table(f.ctx, other_gpu), TETRA_ERR_INVALID_ARGUMENT, "Not A Real GPU");
        remove(other_gpu);
    }
    CHECK(tetra_context_load_dispatch_table(f.ctx, NULL) == TETRA_OK);
    printf("  table in use after NULL: %s\n", tetra_context_dispatch_table(f.ctx));

    tu_dev_free(&dx); tu_dev_free(&dw); tu_dev_free(&dws); tu_dev_free(&dfv); tu_dev_free(&dfs);
    tu_dev_free(&f.dy);
    free(x); free(f.h); free(s.data); free(s.scales);
    tetra_context_destroy(f.ctx);
    return tu_finish(NAME);
}
