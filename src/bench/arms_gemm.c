/* arms_gemm.c - the GEMM arms: tetra_gemm (W4A16, W4A4 pre-packed, W4A4 full call with
 * activation quantization), cuBLASLt BF16 (default heuristic and tuned), cuBLASLt FP8
 * E4M3 (tensor-wide scales), cuBLASLt NVFP4 block-scaled, and broken-gemm (drops the
 * last K block: the gate must fail it).
 *
 * Convention: D[M,N] = A[M,K] * B[N,K]^T, A activations, B weights, row-major with K
 * contiguous. cuBLASLt is column-major, so it computes D^T[N,M] = B * A^T: its "A" is
 * our B stored as a KxN column-major matrix (ld K) with TRANSA=T, its "B" is our A as
 * KxM (ld K) with TRANSB=N, and D^T is NxM with ld N, i.e. our row-major D.
 *
 * Inputs are seeded and identical across arms of a row (so all GEMM arms of a shape
 * share one oracle): the NVFP4 weights use global scale 2^-6, so the BF16 baseline's
 * weights (the dequantized NVFP4 values) are exact. Every input set is a copy of set 0
 * at a different address; the sets together span at least env->rotate_bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "bench.h"
#include "format/float16.h"
#include "format/nvfp4_codec.h"
#include "kernels.h"
#include "ref/rng.h"

#define MAX_SETS 64
#define G_WEIGHTS 0.015625f   /* 2^-6 */
#define G_ACT_NVFP4 0.25f     /* 2^-2: pre-packed NVFP4 activations */
#define G_ACT_SUPPLIED 0.001953125f /* 2^-9: supplied g for quantizing BF16 activations (|x| < 3.5) */
#define FP8_SCALE_A 0.5f
#define FP8_SCALE_B 0.25f
#define TUNE_CANDIDATES 16

typedef enum {
    K_TETRA_W4A16, K_TETRA_W4A4, K_TETRA_W4A4_FULL,
    K_LT_BF16, K_LT_BF16_TUNED, K_LT_FP8, K_LT_NVFP4, K_BROKEN
} gemm_kind;

typedef struct {
    gemm_kind kind;
    bench_env env;
    int64_t m, n, k, l;                 /* l: batch count; every buffer holds l batches */
    int nsets, cur;
    void *a[MAX_SETS], *as[MAX_SETS];   /* activations, NVFP4 scales */
    void *aq[MAX_SETS], *aqs[MAX_SETS]; /* full call: quantized activations */
    void *b[MAX_SETS], *bs[MAX_SETS];   /* weights, NVFP4 scales */
    void *d[MAX_SETS];
    tetra_matrix ma[MAX_SETS], maq[MAX_SETS], mb[MAX_SETS], md[MAX_SETS];
    float *fp8_scales;                  /* device [scale_a, scale_b] */
    tetra_scale_layout layout;
    /* host copies of set 0 for the oracle: NVFP4 with linear scales, l batches packed */
    uint8_t *hb, *hbs, *ha, *has;
    /* cuBLASLt */
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
    float alpha;
    tetra_gemm_path path; /* tetra arms: AUTO, or one kernel family forced */
    int batch_invariant;  /* tetra arms: opts.batch_invariant */
    int tile_m, splits;   /* tetra arms: a pinned configuration (bench_gemm_pin), 0 = none */
    int interleaved;      /* B prepared as TETRA_SCALE_INTERLEAVED_32X128 (converted once in setup) */
    int fragment;         /* B prepared as TETRA_SCALE_FRAGMENT_128X64 (converted once in setup) */
    int il_copy_probe;    /* run the GEMV's copy-only probe on the interleaved B instead of tetra_gemm */
    int probe_splits;     /* the probe's split count */
    tetra_status tst; /* status of the last tetra call */
    char note[160];
} gemm_state;

static int is_tetra(gemm_kind k) { return k <= K_TETRA_W4A4_FULL; }
static int a_is_nvfp4(gemm_kind k) { return k == K_TETRA_W4A4 || k == K_LT_NVFP4; }
static int b_is_nvfp4(gemm_kind k) { return is_tetra(k) || k == K_LT_NVFP4; }

static size_t nv_data(int64_t r, int64_t k) { return (size_t)(r * k / 2); }
static size_t nv_scales(int64_t r, int64_t k, tetra_scale_layout l) { return tetra_nvfp4_scale_bytes(r, k, l); }

/* Per-set sizes, all l batches: data (values) and NVFP4 scales of A and B, and D. */
static size_t a_data_bytes(const gemm_state *s) {
    if (a_is_nvfp4(s->kind)) return nv_data(s->m, s->k) * (size_t)s->l;
    return (size_t)(s->m * s->k * s->l * (s->kind == K_LT_FP8 ? 1 : 2));
}
static size_t b_data_bytes(const gemm_state *s) {
    if (s->interleaved) return tetra_nvfp4_interleaved_bytes(s->n, s->k) * (size_t)s->l;
    if (s->fragment) return tetra_nvfp4_fragment_bytes(s->n, s->k) * (size_t)s->l;
    if (b_is_nvfp4(s->kind)) return nv_data(s->n, s->k) * (size_t)s->l;
    return (size_t)(s->n * s->k * s->l * (s->kind == K_LT_FP8 ? 1 : 2));
}
static size_t a_scale_bytes(const gemm_state *s) { return nv_scales(s->m, s->k, s->layout) * (size_t)s->l; }
static size_t b_scale_bytes(const gemm_state *s) {
    if (s->fragment) return nv_scales(s->n, s->k, TETRA_SCALE_FRAGMENT_128X64) * (size_t)s->l;
    return s->interleaved ? 0 : nv_scales(s->n, s->k, s->layout) * (size_t)s->l;
}
static size_t d_bytes(const gemm_state *s) { return (size_t)(s->m * s->n * s->l * 2); }
static size_t set_bytes(const gemm_state *s) {
    size_t x = a_data_bytes(s) + b_data_bytes(s) + d_bytes(s);
    if (a_is_nvfp4(s->kind)) x += a_scale_bytes(s);
    if (b_is_nvfp4(s->kind)) x += b_scale_bytes(s);
    if (s->kind == K_TETRA_W4A4_FULL) x += nv_data(s->m, s->k) * (size_t)s->l + a_scale_bytes(s);
    return x;
}

/* Random NVFP4 on the host: any nibble; linear scale codes 0x30..0x3F (0.5 .. 1.875). */
static void host_nvfp4(tetra_rng *r, uint8_t *data, uint8_t *scales, int64_t rows, int64_t k) {
    size_t nd = nv_data(rows, k), ns = (size_t)(rows * k / 16);
    for (size_t i = 0; i < nd; i += 8) {
        uint64_t v = tetra_rng_next(r);
        for (size_t j = 0; j < 8 && i + j < nd; j++) data[i + j] = (uint8_t)(v >> (8 * j));
    }
    for (size_t i = 0; i < ns; i++) scales[i] = (uint8_t)(0x30 + (tetra_rng_next(r) & 15u));
}

/* Upload `batch` packed NVFP4 matrices (linear host scales, batches back to back) into
 * data/scales device buffers in `layout` (per batch, batches back to back: the
 * tetra_matrix default strides). */
static int upload_nvfp4(const uint8_t *data, const uint8_t *lin, int64_t rows, int64_t k, int64_t batch,
                        tetra_scale_layout layout, void *ddata, void *dscales, char *msg, size_t len) {
    size_t sb = nv_scales(rows, k, layout) * (size_t)batch;
    if (cudaMemcpy(ddata, data, nv_data(rows, k) * (size_t)batch, cudaMemcpyHostToDevice) != cudaSuccess) goto fail;
    if (layout == TETRA_SCALE_LINEAR) {
        if (cudaMemcpy(dscales, lin, sb, cudaMemcpyHostToDevice) != cudaSuccess) goto fail;
    } else {
        uint8_t *sw = (uint8_t *)malloc(sb);
        tetra_matrix src = tetra_matrix_nvfp4((void *)data, (void *)lin, TETRA_SCALE_LINEAR, rows, k, 1.0f);
        tetra_matrix dst = tetra_matrix_nvfp4((void *)data, sw, TETRA_SCALE_SWIZZLED_128X4, rows, k, 1.0f);
        src.batch = dst.batch = batch;
        if (!sw) return bench_set_msg(msg, len, "out of host memory"), -1;
        if (tetra_convert_scales_host(&src, &dst) != TETRA_OK) {
            free(sw);
            return bench_set_msg(msg, len, "convert scales: %s", tetra_last_error()), -1;
        }
        if (cudaMemcpy(dscales, sw, sb, cudaMemcpyHostToDevice) != cudaSuccess) { free(sw); goto fail; }
        free(sw);
    }
    return 0;
fail:
    bench_set_msg(msg, len, "upload: %s", cudaGetErrorString(cudaGetLastError()));
    return -1;
}

static void gemm_teardown(void *p) {
    gemm_state *s = (gemm_state *)p;
    if (!s) return;
    cudaStreamSynchronize((cudaStream_t)s->env.stream);
    for (int i = 0; i < MAX_SETS; i++) {
        cudaFree(s->a[i]); cudaFree(s->as[i]); cudaFree(s->aq[i]); cudaFree(s->aqs[i]);
        cudaFree(s->b[i]); cudaFree(s->bs[i]); cudaFree(s->d[i]);
    }
    cudaFree(s->fp8_scales);
    if (s->la) cublasLtMatrixLayoutDestroy(s->la);
    if (s->lb) cublasLtMatrixLayoutDestroy(s->lb);
    if (s->lc) cublasLtMatrixLayoutDestroy(s->lc);
    if (s->op) cublasLtMatmulDescDestroy(s->op);
    free(s->hb); free(s->hbs); free(s->ha); free(s->has);
    free(s);
}

static int lt_call(gemm_state *s, int set, const cublasLtMatmulAlgo_t *algo) {
    float beta = 0.0f;
    cublasStatus_t st;
    if (s->kind == K_LT_NVFP4) {
        /* block scales live per set: the descriptor's scale pointers follow the set */
        cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &s->bs[set], sizeof(void *));
        cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &s->as[set], sizeof(void *));
    }
    st = cublasLtMatmul((cublasLtHandle_t)s->env.lt, s->op, &s->alpha, s->b[set], s->la, s->a[set], s->lb,
                        &beta, s->d[set], s->lc, s->d[set], s->lc, algo, s->env.lt_workspace,
                        s->env.lt_workspace_bytes, (cudaStream_t)s->env.stream);
    return st == CUBLAS_STATUS_SUCCESS ? 0 : (int)st;
}

/* src/cuda/gemv.cu: the interleaved-W GEMV's ring without dequantization or mma (an
 * instrument probe, not public API); returns a cudaError_t */
int tetra_gemv_il_copy_probe(const void *w, int64_t n, int64_t k, int64_t batch, int sms, int splits_pin,
                             uint32_t never, uint32_t *sink, int *splits_out, void *stream);

static int gemm_run_set(gemm_state *s, int i) {
    tetra_gemm_options o = tetra_gemm_options_default();
    if (s->il_copy_probe) /* sink: the output buffer, written only if the XOR hits `never` */
        return tetra_gemv_il_copy_probe(s->b[i], s->n, s->k, s->l, s->env.sms, s->splits, 0x9e3779b9u,
                                        (uint32_t *)s->d[i], &s->probe_splits, s->env.stream);
    o.path = s->path;
    o.batch_invariant = s->batch_invariant;
    o.tile_m = s->tile_m;
    o.splits = s->splits;
    switch (s->kind) {
    case K_TETRA_W4A16:
    case K_TETRA_W4A4:
        s->tst = s->env.gemm(s->env.gemm_ctx, &s->ma[i], &s->mb[i], &s->md[i], &o);
        return s->tst == TETRA_OK ? 0 : -1;
    case K_TETRA_W4A4_FULL: /* the quantization pass is this build's; the GEMM the side's */
        s->tst = tetra_quantize(s->env.ctx, &s->ma[i], &s->maq[i], TETRA_GLOBAL_SCALE_SUPPLIED);
        if (s->tst != TETRA_OK) return -1;
        s->tst = s->env.gemm(s->env.gemm_ctx, &s->maq[i], &s->mb[i], &s->md[i], &o);
        return s->tst == TETRA_OK ? 0 : -1;
    default:
        return lt_call(s, i, &s->algo);
    }
}

static int gemm_run(void *p) {
    gemm_state *s = (gemm_state *)p;
    int i = s->cur;
    s->cur = (s->cur + 1) % s->nsets;
    return gemm_run_set(s, i);
}

/* one call of a candidate algorithm, for bench_capture_calls: set i % nsets */
typedef struct {
    gemm_state *s;
    const cublasLtMatmulAlgo_t *algo;
} algo_call;
static int algo_call_run(void *ctx, int i) {
    const algo_call *c = (const algo_call *)ctx;
    return lt_call(c->s, i % c->s->nsets, c->algo) != 0;
}

/* Median time of `reps` timed samples of one algorithm (rotating sets), in us per call; <0 on
 * error. Short kernels (< 50 us) take 20 calls per sample captured in a CUDA graph, as the
 * runner times them: launched one by one, the candidates read 10.76-13.71 us per call at
 * 64x768x6144 where the graph-timed kernels take 7.40-9.45 us (runs 98-101): the host's cost
 * per cuBLASLt call decided the pick, which moved between processes. */
static double time_algo(gemm_state *s, const cublasLtMatmulAlgo_t *algo, int reps) {
    cudaEvent_t e0, e1;
    cudaGraphExec_t gx = NULL;
    double t[16];
    int calls = 1, n = 0;
    float ms;
    cudaStream_t st = (cudaStream_t)s->env.stream;
    if (reps > 16) reps = 16;
    for (int w = 0; w < 2; w++)
        if (lt_call(s, w % s->nsets, algo)) return -1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0, st);
    lt_call(s, 0, algo);
    cudaEventRecord(e1, st);
    if (cudaEventSynchronize(e1) != cudaSuccess) n = -1;
    cudaEventElapsedTime(&ms, e0, e1);
    if (n >= 0 && ms * 1000.0f < 50.0f) {
        calls = 20;
        algo_call ac = {s, algo};
        gx = (cudaGraphExec_t)bench_capture_calls(st, algo_call_run, &ac, calls);
        if (gx && cudaGraphLaunch(gx, st) != cudaSuccess) n = -1; /* warm-up */
    }
    for (int r = 0; r < reps && n >= 0; r++) {
        cudaEventRecord(e0, st);
        if (gx) {
            if (cudaGraphLaunch(gx, st) != cudaSuccess) { n = -1; break; }
        } else {
            for (int c = 0; c < calls; c++) lt_call(s, (r * calls + c) % s->nsets, algo);
        }
        cudaEventRecord(e1, st);
        if (cudaEventSynchronize(e1) != cudaSuccess) { n = -1; break; }
        cudaEventElapsedTime(&ms, e0, e1);
        t[n++] = ms * 1000.0 / calls;
    }
    if (gx) cudaGraphExecDestroy(gx);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (n <= 0) { cudaGetLastError(); return -1; }
    return bench_median(t, n);
}

/* fp8_alpha_only: give cuBLASLt the FP8 tensor scales folded into alpha instead of as
 * scale pointers (a second configuration, tried when the first is refused). */
static int lt_prepare_config(gemm_state *s, char *msg, size_t len, int fp8_alpha_only) {
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    cudaDataType_t in_t = CUDA_R_16BF;
    int64_t kk = s->kind == K_BROKEN ? s->k - 16 : s->k;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t res[TUNE_CANDIDATES];
    int want = s->kind == K_LT_BF16_TUNED ? TUNE_CANDIDATES : 1, got = 0;
    cublasStatus_t st;
    if (s->kind == K_LT_FP8) in_t = CUDA_R_8F_E4M3;
    if (s->kind == K_LT_NVFP4) in_t = CUDA_R_4F_E2M1;
    s->alpha = s->kind == K_LT_NVFP4 ? G_ACT_NVFP4 * G_WEIGHTS : 1.0f;
    if (s->kind == K_LT_FP8 && fp8_alpha_only) s->alpha = FP8_SCALE_A * FP8_SCALE_B;
    if ((st = cublasLtMatmulDescCreate(&s->op, CUBLAS_COMPUTE_32F, CUDA_R_32F)) != CUBLAS_STATUS_SUCCESS) goto lt_fail;
    cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    if (s->kind == K_LT_FP8 && !fp8_alpha_only) {
        float *sa = s->fp8_scales, *sb = s->fp8_scales + 1;
        /* cuBLAS's A is our B (weights) and vice versa */
        cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sb, sizeof sb);
        cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sa, sizeof sa);
    }
    if (s->kind == K_LT_NVFP4) {
        cublasLtMatmulMatrixScale_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
        if ((st = cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode)) ||
            (st = cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode))) {
            bench_set_msg(msg, len, "cuBLASLt refuses block-scaled NVFP4 here (status %d)", (int)st);
            return BENCH_UNSUPPORTED;
        }
        cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &s->bs[0], sizeof(void *));
        cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &s->as[0], sizeof(void *));
    }
    if ((st = cublasLtMatrixLayoutCreate(&s->la, in_t, (uint64_t)kk, (uint64_t)s->n, s->k)) ||
        (st = cublasLtMatrixLayoutCreate(&s->lb, in_t, (uint64_t)kk, (uint64_t)s->m, s->k)) ||
        (st = cublasLtMatrixLayoutCreate(&s->lc, CUDA_R_16BF, (uint64_t)s->n, (uint64_t)s->m, s->n)))
        goto lt_fail;
    if (s->l > 1) {
        /* strided batch: every layout carries the count and its batch stride in elements
         * (broken-gemm's A keeps the full K pitch: only its rows are cut short) */
        int32_t count = (int32_t)s->l;
        int64_t sa = s->n * s->k, sb = s->m * s->k, sc = s->m * s->n;
        if ((st = cublasLtMatrixLayoutSetAttribute(s->la, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count)) ||
            (st = cublasLtMatrixLayoutSetAttribute(s->lb, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count)) ||
            (st = cublasLtMatrixLayoutSetAttribute(s->lc, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count)) ||
            (st = cublasLtMatrixLayoutSetAttribute(s->la, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sa, sizeof sa)) ||
            (st = cublasLtMatrixLayoutSetAttribute(s->lb, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sb, sizeof sb)) ||
            (st = cublasLtMatrixLayoutSetAttribute(s->lc, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sc, sizeof sc)))
            goto lt_fail;
    }
    if ((st = cublasLtMatmulPreferenceCreate(&pref))) goto lt_fail;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                         &s->env.lt_workspace_bytes, sizeof(size_t));
    st = cublasLtMatmulAlgoGetHeuristic((cublasLtHandle_t)s->env.lt, s->op, s->la, s->lb, s->lc, s->lc,
                                        pref, want, res, &got);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || got < 1) {
        bench_set_msg(msg, len, "cuBLASLt has no algorithm for this problem on this device (status %d, %d candidates)",
                      (int)st, got);
        return BENCH_UNSUPPORTED;
    }
    s->algo = res[0].algo;
    if (s->kind == K_LT_BF16_TUNED) {
        double best = -1, dflt = -1;
        int besti = -1, timed = 0;
        for (int i = 0; i < got; i++) {
            double t;
            if (res[i].state != CUBLAS_STATUS_SUCCESS) continue;
            t = time_algo(s, &res[i].algo, 5);
            if (t < 0) continue;
            timed++;
            if (i == 0) dflt = t;
            if (besti < 0 || t < best) { best = t; besti = i; }
        }
        if (besti < 0) {
            bench_set_msg(msg, len, "cuBLASLt: none of %d heuristic candidates ran", got);
            return BENCH_ERROR;
        }
        s->algo = res[besti].algo;
        snprintf(s->note, sizeof s->note, "tuned: candidate %d of %d timed (%.2f us; heuristic default %.2f us)",
                 besti, timed, best, dflt);
    } else {
        snprintf(s->note, sizeof s->note, "heuristic default (1st of %d)", got);
    }
    /* a trial call: NVFP4 (and others) may be refused only here */
    if ((st = (cublasStatus_t)lt_call(s, 0, &s->algo)) != CUBLAS_STATUS_SUCCESS) {
        bench_set_msg(msg, len, "cuBLASLt matmul refused (status %d)", (int)st);
        return st == CUBLAS_STATUS_NOT_SUPPORTED ? BENCH_UNSUPPORTED : BENCH_ERROR;
    }
    return BENCH_OK;
lt_fail:
    bench_set_msg(msg, len, "cuBLASLt setup failed (status %d)", (int)st);
    return st == CUBLAS_STATUS_NOT_SUPPORTED ? BENCH_UNSUPPORTED : BENCH_ERROR;
}

static void lt_release(gemm_state *s) {
    if (s->la) cublasLtMatrixLayoutDestroy(s->la);
    if (s->lb) cublasLtMatrixLayoutDestroy(s->lb);
    if (s->lc) cublasLtMatrixLayoutDestroy(s->lc);
    if (s->op) cublasLtMatmulDescDestroy(s->op);
    s->la = s->lb = s->lc = NULL;
    s->op = NULL;
}

static int lt_prepare(gemm_state *s, char *msg, size_t len) {
    int rc = lt_prepare_config(s, msg, len, 0);
    if (rc == BENCH_UNSUPPORTED && s->kind == K_LT_FP8) {
        char first[256];
        snprintf(first, sizeof first, "%s", msg);
        lt_release(s);
        rc = lt_prepare_config(s, msg, len, 1);
        if (rc == BENCH_OK) {
            size_t used = strlen(s->note);
            snprintf(s->note + used, sizeof s->note - used,
                     "; FP8 scales folded into alpha (scale pointers refused: %s)", first);
        }
    }
    return rc;
}

/* B in TETRA_SCALE_INTERLEAVED_32X128 or TETRA_SCALE_FRAGMENT_128X64 (s->fragment): the
 * standard upload, then tetra_convert_weights of the arm's build (--lib-a / --lib-b: that
 * build's layout) into set 0 (before any timing; the other sets are copies). */
static int prepare_interleaved_b(gemm_state *s, char *msg, size_t len) {
    void *td = NULL, *ts = NULL;
    int rc = -1;
    tetra_matrix src, dst;
    if (cudaMalloc(&td, nv_data(s->n, s->k) * (size_t)s->l) ||
        cudaMalloc(&ts, nv_scales(s->n, s->k, s->layout) * (size_t)s->l)) {
        cudaGetLastError();
        bench_set_msg(msg, len, "cudaMalloc failed for the standard copy of B");
        goto done;
    }
    if (upload_nvfp4(s->hb, s->hbs, s->n, s->k, s->l, s->layout, td, ts, msg, len)) goto done;
    src = tetra_matrix_nvfp4(td, ts, s->layout, s->n, s->k, G_WEIGHTS);
    dst = s->fragment ? tetra_matrix_nvfp4(s->b[0], s->bs[0], TETRA_SCALE_FRAGMENT_128X64, s->n, s->k, G_WEIGHTS)
                      : tetra_matrix_nvfp4(s->b[0], NULL, TETRA_SCALE_INTERLEAVED_32X128, s->n, s->k, G_WEIGHTS);
    src.batch = dst.batch = s->l;
    /* the whole device: the copies to the other sets run on env.stream afterwards */
    if (s->env.convert_weights(s->env.gemm_ctx, &src, &dst) != TETRA_OK || cudaDeviceSynchronize() != cudaSuccess) {
        bench_set_msg(msg, len, "tetra_convert_weights: %s", s->env.gemm_last_error());
        goto done;
    }
    rc = 0;
done:
    cudaFree(td);
    cudaFree(ts);
    return rc;
}

/* prepared: 0 standard B, 1 interleaved B, 2 fragment B */
static int gemm_setup_b(gemm_kind kind, tetra_gemm_path path, int prepared, const bench_env *env,
                        const bench_shape *sh, void **out, char *msg, size_t len);
static int gemm_setup(gemm_kind kind, tetra_gemm_path path, const bench_env *env, const bench_shape *sh,
                      void **out, char *msg, size_t len) {
    return gemm_setup_b(kind, path, 0, env, sh, out, msg, len);
}

static int gemm_setup_b(gemm_kind kind, tetra_gemm_path path, int prepared, const bench_env *env,
                        const bench_shape *sh, void **out, char *msg, size_t len) {
    gemm_state *s;
    tetra_rng rng;
    size_t per;
    int rc = BENCH_ERROR;
    cudaStream_t st = (cudaStream_t)env->stream;
    *out = NULL;
    if (sh->l < 1 || sh->l > INT32_MAX) return bench_set_msg(msg, len, "batch count L = %lld is out of range", (long long)sh->l), BENCH_ERROR;
    if (sh->l > 1 && kind == K_LT_NVFP4)
        return bench_set_msg(msg, len, "batched block-scaled cuBLASLt (l > 1) is not benchmarked"), BENCH_UNSUPPORTED;
    if (sh->k % 16) return bench_set_msg(msg, len, "K = %lld is not a multiple of 16", (long long)sh->k), BENCH_ERROR;
    if (kind == K_BROKEN && sh->k < 32) return bench_set_msg(msg, len, "broken-gemm needs K >= 32"), BENCH_UNSUPPORTED;
    if (!(s = (gemm_state *)calloc(1, sizeof *s))) return bench_set_msg(msg, len, "out of host memory"), BENCH_ERROR;
    s->path = path;
    s->kind = kind;
    s->env = *env;
    s->m = sh->m;
    s->n = sh->n;
    s->k = sh->k;
    s->l = sh->l;
    s->layout = kind == K_LT_NVFP4 ? TETRA_SCALE_SWIZZLED_128X4 : env->scale_layout;
    s->interleaved = prepared == 1;
    s->fragment = prepared == 2;
    per = set_bytes(s);
    if (!(s->nsets = bench_rotation_sets(env, per, MAX_SETS, msg, len))) {
        free(s);
        return BENCH_UNSUPPORTED;
    }
    rng.s = env->seed;
    /* weights: NVFP4 on the host (also the oracle's copy), BF16/FP8 variants on the device */
    if (kind != K_LT_FP8) {
        if (!(s->hb = (uint8_t *)malloc(nv_data(s->n * s->l, s->k))) ||
            !(s->hbs = (uint8_t *)malloc((size_t)(s->n * s->l * s->k / 16)))) {
            bench_set_msg(msg, len, "out of host memory");
            goto done;
        }
        host_nvfp4(&rng, s->hb, s->hbs, s->n * s->l, s->k);
    }
    if (a_is_nvfp4(kind)) {
        tetra_rng ra = {env->seed ^ 0xa5a5a5a5ull};
        if (!(s->ha = (uint8_t *)malloc(nv_data(s->m * s->l, s->k))) ||
            !(s->has = (uint8_t *)malloc((size_t)(s->m * s->l * s->k / 16)))) {
            bench_set_msg(msg, len, "out of host memory");
            goto done;
        }
        host_nvfp4(&ra, s->ha, s->has, s->m * s->l, s->k);
    }
    for (int i = 0; i < s->nsets; i++) {
        int e = 0;
        e |= cudaMalloc(&s->a[i], a_data_bytes(s));
        if (a_is_nvfp4(kind)) e |= cudaMalloc(&s->as[i], a_scale_bytes(s));
        if (kind == K_TETRA_W4A4_FULL) {
            e |= cudaMalloc(&s->aq[i], nv_data(s->m, s->k) * (size_t)s->l);
            e |= cudaMalloc(&s->aqs[i], a_scale_bytes(s));
        }
        e |= cudaMalloc(&s->b[i], b_data_bytes(s));
        if (b_is_nvfp4(kind) && !s->interleaved) e |= cudaMalloc(&s->bs[i], b_scale_bytes(s));
        e |= cudaMalloc(&s->d[i], d_bytes(s));
        if (e) {
            cudaGetLastError();
            bench_set_msg(msg, len, "cudaMalloc failed for input set %d", i);
            goto done;
        }
    }
    /* set 0 */
    if (a_is_nvfp4(kind)) {
        if (upload_nvfp4(s->ha, s->has, s->m, s->k, s->l, s->layout, s->a[0], s->as[0], msg, len)) goto done;
    } else if (kind == K_LT_FP8) {
        bench_fill_e4m3((uint8_t *)s->a[0], s->m * s->k * s->l, env->seed ^ 0x1111, st);
    } else {
        bench_fill_bf16((uint16_t *)s->a[0], s->m * s->k * s->l, env->seed ^ 0x2222, st);
    }
    if (s->interleaved || s->fragment) {
        if (prepare_interleaved_b(s, msg, len)) goto done;
    } else if (b_is_nvfp4(kind)) {
        if (upload_nvfp4(s->hb, s->hbs, s->n, s->k, s->l, s->layout, s->b[0], s->bs[0], msg, len)) goto done;
    } else if (kind == K_LT_FP8) {
        bench_fill_e4m3((uint8_t *)s->b[0], s->n * s->k * s->l, env->seed ^ 0x3333, st);
    } else {
        /* BF16 weights = the dequantized NVFP4 weights (exact: g is a power of two); the l
         * batches with linear scales are one [l*n, k] matrix */
        void *dd = NULL, *ds = NULL;
        int64_t nl = s->n * s->l;
        if (cudaMalloc(&dd, nv_data(nl, s->k)) || cudaMalloc(&ds, (size_t)(nl * s->k / 16)) ||
            cudaMemcpy(dd, s->hb, nv_data(nl, s->k), cudaMemcpyHostToDevice) ||
            cudaMemcpy(ds, s->hbs, (size_t)(nl * s->k / 16), cudaMemcpyHostToDevice) ||
            bench_nvfp4_to_bf16((const uint8_t *)dd, (const uint8_t *)ds, nl, s->k, G_WEIGHTS,
                                (uint16_t *)s->b[0], st) ||
            cudaStreamSynchronize(st)) {
            cudaFree(dd); cudaFree(ds);
            bench_set_msg(msg, len, "building BF16 weights: %s", cudaGetErrorString(cudaGetLastError()));
            goto done;
        }
        cudaFree(dd); cudaFree(ds);
    }
    if (kind == K_LT_FP8) {
        float sc[2] = {FP8_SCALE_A, FP8_SCALE_B};
        if (cudaMalloc((void **)&s->fp8_scales, sizeof sc) ||
            cudaMemcpy(s->fp8_scales, sc, sizeof sc, cudaMemcpyHostToDevice)) {
            bench_set_msg(msg, len, "cudaMalloc failed");
            goto done;
        }
    }
    /* the other sets: copies of set 0 at other addresses */
    for (int i = 1; i < s->nsets; i++) {
        cudaMemcpyAsync(s->a[i], s->a[0], a_data_bytes(s), cudaMemcpyDeviceToDevice, st);
        cudaMemcpyAsync(s->b[i], s->b[0], b_data_bytes(s), cudaMemcpyDeviceToDevice, st);
        if (a_is_nvfp4(kind)) cudaMemcpyAsync(s->as[i], s->as[0], a_scale_bytes(s), cudaMemcpyDeviceToDevice, st);
        if (b_is_nvfp4(kind) && !s->interleaved)
            cudaMemcpyAsync(s->bs[i], s->bs[0], b_scale_bytes(s), cudaMemcpyDeviceToDevice, st);
    }
    for (int i = 0; i < s->nsets; i++) cudaMemsetAsync(s->d[i], 0xff, d_bytes(s), st);
    if (cudaStreamSynchronize(st) != cudaSuccess) {
        bench_set_msg(msg, len, "preparing inputs: %s", cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    /* descriptors */
    /* descriptors: l batches back to back (batch_stride 0 = rows*ld, scale_batch_stride
     * 0 = one batch's scales in the layout: exactly how set 0 was packed) */
    for (int i = 0; i < s->nsets; i++) {
        if (kind == K_TETRA_W4A4)
            s->ma[i] = tetra_matrix_nvfp4(s->a[i], s->as[i], s->layout, s->m, s->k, G_ACT_NVFP4);
        else
            s->ma[i] = tetra_matrix_dense(TETRA_DTYPE_BF16, s->a[i], s->m, s->k);
        s->maq[i] = tetra_matrix_nvfp4(s->aq[i], s->aqs[i], s->layout, s->m, s->k, G_ACT_SUPPLIED);
        s->mb[i] = s->interleaved
                       ? tetra_matrix_nvfp4(s->b[i], NULL, TETRA_SCALE_INTERLEAVED_32X128, s->n, s->k, G_WEIGHTS)
                       : tetra_matrix_nvfp4(s->b[i], s->bs[i], s->fragment ? TETRA_SCALE_FRAGMENT_128X64 : s->layout,
                                            s->n, s->k, G_WEIGHTS);
        s->md[i] = tetra_matrix_dense(TETRA_DTYPE_BF16, s->d[i], s->m, s->n);
        s->ma[i].batch = s->maq[i].batch = s->mb[i].batch = s->md[i].batch = s->l;
    }
    if (is_tetra(kind)) {
        if (gemm_run_set(s, 0) != 0 || cudaStreamSynchronize(st) != cudaSuccess) {
            bench_set_msg(msg, len, "%s: %s", tetra_status_string(s->tst), s->env.gemm_last_error());
            rc = s->tst == TETRA_ERR_UNSUPPORTED ? BENCH_UNSUPPORTED : BENCH_ERROR;
            goto done;
        }
        snprintf(s->note, sizeof s->note, "tetra_gemm %s, %s scales",
                 path == TETRA_PATH_MMA_SYNC ? "path MMA_SYNC" : path == TETRA_PATH_WGMMA ? "path WGMMA"
                 : path == TETRA_PATH_WGMMA_T                               ? "path WGMMA_T"
                 : path == TETRA_PATH_SKINNY                                ? "path SKINNY"
                 : path == TETRA_PATH_GEMV                                  ? "path GEMV"
                                                                             : "AUTO",
                 s->interleaved ? "interleaved-32x128 (prepared from swizzled/linear)"
                 : s->fragment  ? "fragment-128x64 (prepared from swizzled/linear)"
                 : s->layout == TETRA_SCALE_LINEAR ? "linear" : "swizzled-128x4");
        if (s->env.gemm_lib) { /* --lib-a / --lib-b: the GEMM runs in another build */
            const size_t used = strlen(s->note);
            snprintf(s->note + used, sizeof s->note - used, "; GEMM of the build %s", s->env.gemm_lib);
        }
    } else if ((rc = lt_prepare(s, msg, len)) != BENCH_OK) {
        goto done;
    }
    rc = BENCH_OK;
    *out = s;
done:
    if (rc != BENCH_OK) gemm_teardown(s);
    return rc;
}

/* ---------------------------------------------------------------- the gate */

/* Rows the oracle checks: all when M*N*K fits the budget, else evenly spaced rows
 * including the first and the last. */
static int64_t *pick_rows(int64_t m, int64_t n, int64_t k, int64_t budget, int64_t *nr) {
    int64_t want = m, *rows;
    if ((double)m * n * k > (double)budget) {
        want = budget / (n * k);
        if (want < 2) want = 2;
        if (want > m) want = m;
    }
    if (!(rows = (int64_t *)malloc((size_t)want * sizeof *rows))) return NULL;
    for (int64_t i = 0; i < want; i++) rows[i] = want == 1 ? 0 : i * (m - 1) / (want - 1);
    *nr = want;
    return rows;
}

static int download_rows(const void *dev, int64_t ld_bytes, int64_t row_bytes, const int64_t *rows, int64_t nr,
                         void *host) {
    for (int64_t i = 0; i < nr; i++)
        if (cudaMemcpy((char *)host + i * row_bytes, (const char *)dev + rows[i] * ld_bytes, (size_t)row_bytes,
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            return -1;
    return 0;
}

/* Rows i0 .. i0+n-1 of a contiguous host matrix (dense, or NVFP4 with linear scales). */
static tetra_matrix sub_rows(const tetra_matrix *m, int64_t i0, int64_t n) {
    tetra_matrix r = *m;
    r.rows = n;
    if (m->dtype == TETRA_DTYPE_NVFP4) {
        r.data = (uint8_t *)m->data + i0 * m->cols / 2;
        r.scales = (uint8_t *)m->scales + i0 * m->cols / 16;
    } else {
        r.data = (char *)m->data + i0 * m->cols * (m->dtype == TETRA_DTYPE_FP32 ? 4 : 2);
    }
    return r;
}

/* The CPU oracle on the arm's set 0. Batches are back to back, so A and D are [L*M, K]
 * and [L*M, N] row-major and a "row" below is a composite index l*M + i; the sampled
 * rows are sorted, so each batch's rows are one run and get one oracle call with that
 * batch's B. */
static int gemm_check(void *p, bench_check *c, char *msg, size_t len) {
    gemm_state *s = (gemm_state *)p;
    int64_t M = s->m, N = s->n, K = s->k, L = s->l, T = s->m * s->l;
    int64_t nr = 0, *rows = pick_rows(T, N, K, s->env.oracle_macs, &nr);
    cudaStream_t st = (cudaStream_t)s->env.stream;
    uint16_t *dout = NULL;
    float *af = NULL, *bf = NULL, *dtmp = NULL;
    uint8_t *a8 = NULL, *asub = NULL, *assub = NULL;
    uint16_t *a16 = NULL;
    tetra_matrix ha, hb;
    float alpha = 1.0f;
    int rc = -1;
    memset(c, 0, sizeof *c);
    if (!rows) return bench_set_msg(msg, len, "out of host memory"), -1;
    /* poison set 0's output, run once on set 0, read it back */
    cudaMemsetAsync(s->d[0], 0xff, d_bytes(s), st);
    if (gemm_run_set(s, 0) != 0 || cudaStreamSynchronize(st) != cudaSuccess) {
        bench_set_msg(msg, len, "run for the gate failed: %s", is_tetra(s->kind) ? tetra_last_error() : "cuBLASLt");
        goto done;
    }
    c->ref = (double *)malloc((size_t)(nr * N) * sizeof(double));
    c->out = (double *)malloc((size_t)(nr * N) * sizeof(double));
    dout = (uint16_t *)malloc((size_t)(nr * N) * 2);
    dtmp = (float *)malloc((size_t)(nr * N) * sizeof(float));
    if (!c->ref || !c->out || !dout || !dtmp) { bench_set_msg(msg, len, "out of host memory"); goto done; }
    if (download_rows(s->d[0], N * 2, N * 2, rows, nr, dout)) { bench_set_msg(msg, len, "download failed"); goto done; }
    for (int64_t i = 0; i < nr * N; i++) c->out[i] = tetra_bf16_to_f32(dout[i]);

    /* the oracle's operands: exactly the arm's inputs (set 0), rows picked; hb holds all
     * L batches of B back to back */
    if (s->kind == K_LT_FP8) {
        a8 = (uint8_t *)malloc((size_t)(nr * K));
        af = (float *)malloc((size_t)(nr * K) * sizeof(float));
        bf = (float *)malloc((size_t)(L * N * K) * sizeof(float));
        uint8_t *b8 = (uint8_t *)malloc((size_t)(L * N * K));
        if (!a8 || !af || !bf || !b8) { free(b8); bench_set_msg(msg, len, "out of host memory"); goto done; }
        if (download_rows(s->a[0], K, K, rows, nr, a8) ||
            cudaMemcpy(b8, s->b[0], (size_t)(L * N * K), cudaMemcpyDeviceToHost)) {
            free(b8);
            bench_set_msg(msg, len, "download failed");
            goto done;
        }
        {
            float lut[256]; /* all E4M3 codes decoded once: B can be 2^28 elements */
            for (int i = 0; i < 256; i++) lut[i] = tetra_e4m3_to_float((unsigned)i);
            for (int64_t i = 0; i < nr * K; i++) af[i] = lut[a8[i]];
            for (int64_t i = 0; i < L * N * K; i++) bf[i] = lut[b8[i]];
        }
        free(b8);
        ha = tetra_matrix_dense(TETRA_DTYPE_FP32, af, nr, K);
        hb = tetra_matrix_dense(TETRA_DTYPE_FP32, bf, L * N, K);
        alpha = FP8_SCALE_A * FP8_SCALE_B;
    } else {
        hb = tetra_matrix_nvfp4(s->hb, s->hbs, TETRA_SCALE_LINEAR, L * N, K, G_WEIGHTS);
        if (a_is_nvfp4(s->kind)) {
            asub = (uint8_t *)malloc((size_t)(nr * K / 2));
            assub = (uint8_t *)malloc((size_t)(nr * K / 16));
            if (!asub || !assub) { bench_set_msg(msg, len, "out of host memory"); goto done; }
            for (int64_t i = 0; i < nr; i++) {
                memcpy(asub + i * K / 2, s->ha + rows[i] * K / 2, (size_t)(K / 2));
                memcpy(assub + i * K / 16, s->has + rows[i] * K / 16, (size_t)(K / 16));
            }
            ha = tetra_matrix_nvfp4(asub, assub, TETRA_SCALE_LINEAR, nr, K, G_ACT_NVFP4);
        } else {
            a16 = (uint16_t *)malloc((size_t)(nr * K) * 2);
            if (!a16) { bench_set_msg(msg, len, "out of host memory"); goto done; }
            if (download_rows(s->a[0], K * 2, K * 2, rows, nr, a16)) { bench_set_msg(msg, len, "download failed"); goto done; }
            ha = tetra_matrix_dense(TETRA_DTYPE_BF16, a16, nr, K);
            if (s->kind == K_TETRA_W4A4_FULL) {
                /* the full call quantizes A with the supplied g (row by row, so rows can be
                 * picked first): so does the oracle */
                tetra_matrix hq;
                asub = (uint8_t *)malloc((size_t)(nr * K / 2));
                assub = (uint8_t *)malloc((size_t)(nr * K / 16));
                if (!asub || !assub) { bench_set_msg(msg, len, "out of host memory"); goto done; }
                hq = tetra_matrix_nvfp4(asub, assub, TETRA_SCALE_LINEAR, nr, K, G_ACT_SUPPLIED);
                if (tetra_quantize_host(&ha, &hq, TETRA_GLOBAL_SCALE_SUPPLIED) != TETRA_OK) {
                    bench_set_msg(msg, len, "host quantize: %s", tetra_last_error());
                    goto done;
                }
                ha = hq;
            }
        }
        if (s->kind == K_LT_NVFP4) alpha = 1.0f; /* the oracle applies both global scales itself */
    }
    for (int64_t i0 = 0; i0 < nr;) {
        int64_t l = rows[i0] / M, i1 = i0;
        tetra_matrix sa, sb, sd;
        while (i1 < nr && rows[i1] / M == l) i1++;
        sa = sub_rows(&ha, i0, i1 - i0);
        sb = sub_rows(&hb, l * N, N);
        sd = tetra_matrix_dense(TETRA_DTYPE_FP32, dtmp + i0 * N, i1 - i0, N);
        if (tetra_gemm_host(&sa, &sb, &sd, alpha, NULL, c->ref + i0 * N, 0) != TETRA_OK) {
            bench_set_msg(msg, len, "oracle: %s", tetra_last_error());
            goto done;
        }
        i0 = i1;
    }
    c->n = nr * N;
    c->out_dtype = TETRA_DTYPE_BF16;
    c->k = K;
    c->rows_checked = nr;
    c->rows_total = T;
    snprintf(c->method, sizeof c->method, "%s FP64 CPU oracle, %lld of %lld rows%s", nr == T ? "full" : "sampled",
             (long long)nr, (long long)T, L > 1 ? " (all batches)" : "");
    rc = 0;
done:
    if (rc) {
        free(c->ref); free(c->out);
        c->ref = c->out = NULL;
    }
    free(rows); free(dout); free(af); free(bf); free(dtmp); free(a8); free(asub); free(assub); free(a16);
    return rc;
}

/* The GPU reference (tetra_gemm of the arm's build, TETRA_PATH_REFERENCE, FP32 output: it
 * reads that build's prepared layouts) for tetra arms whose problems are too large for the
 * full CPU oracle; falls back to sampled CPU rows when the reference kernel is not there. */
static int tetra_gemm_check(void *p, bench_check *c, char *msg, size_t len) {
    gemm_state *s = (gemm_state *)p;
    int64_t M = s->m * s->l, N = s->n, nr = 0, *rows = NULL; /* M: all batches' rows */
    float *dref = NULL, *href = NULL;
    uint16_t *dout = NULL;
    tetra_matrix md;
    tetra_gemm_options o = tetra_gemm_options_default();
    cudaStream_t st = (cudaStream_t)s->env.stream;
    int rc = -1;
    if ((double)M * N * s->k <= (double)s->env.oracle_macs || s->kind == K_TETRA_W4A4_FULL)
        return gemm_check(p, c, msg, len);
    if (cudaMalloc((void **)&dref, (size_t)(M * N) * sizeof(float)) != cudaSuccess) {
        cudaGetLastError();
        return gemm_check(p, c, msg, len);
    }
    md = tetra_matrix_dense(TETRA_DTYPE_FP32, dref, s->m, N);
    md.batch = s->l;
    o.path = TETRA_PATH_REFERENCE;
    if (s->env.gemm(s->env.gemm_ctx, &s->ma[0], &s->mb[0], &md, &o) != TETRA_OK || cudaStreamSynchronize(st)) {
        cudaFree(dref);
        cudaGetLastError();
        return gemm_check(p, c, msg, len); /* reference kernel absent: CPU, sampled rows */
    }
    memset(c, 0, sizeof *c);
    cudaMemsetAsync(s->d[0], 0xff, d_bytes(s), st);
    if (gemm_run_set(s, 0) || cudaStreamSynchronize(st)) { bench_set_msg(msg, len, "%s", s->env.gemm_last_error()); goto done; }
    rows = pick_rows(M, N, 1, (int64_t)1 << 26, &nr); /* compare up to 64 M elements */
    href = (float *)malloc((size_t)(nr * N) * sizeof(float));
    dout = (uint16_t *)malloc((size_t)(nr * N) * 2);
    c->ref = (double *)malloc((size_t)(nr * N) * sizeof(double));
    c->out = (double *)malloc((size_t)(nr * N) * sizeof(double));
    if (!rows || !href || !dout || !c->ref || !c->out) { bench_set_msg(msg, len, "out of host memory"); goto done; }
    if (download_rows(dref, N * 4, N * 4, rows, nr, href) || download_rows(s->d[0], N * 2, N * 2, rows, nr, dout)) {
        bench_set_msg(msg, len, "download failed");
        goto done;
    }
    for (int64_t i = 0; i < nr * N; i++) {
        c->ref[i] = href[i];
        c->out[i] = tetra_bf16_to_f32(dout[i]);
    }
    c->n = nr * N;
    c->out_dtype = TETRA_DTYPE_BF16;
    c->k = s->k;
    c->rows_checked = nr;
    c->rows_total = M;
    snprintf(c->method, sizeof c->method, "GPU reference (FP64 accumulation, FP32 out), %lld of %lld rows",
             (long long)nr, (long long)M);
    rc = 0;
done:
    if (rc) { free(c->ref); free(c->out); c->ref = c->out = NULL; }
    cudaFree(dref);
    free(rows); free(href); free(dout);
    return rc;
}

static const char *gemm_describe(void *p) { return ((gemm_state *)p)->note; }

tetra_status bench_gemm_pin(void *state, tetra_gemm_path path, int tile_m, int splits) {
    gemm_state *s = (gemm_state *)state;
    if (!s || !is_tetra(s->kind)) return TETRA_ERR_INVALID_ARGUMENT;
    s->path = path;
    s->tile_m = tile_m;
    s->splits = splits;
    if (gemm_run_set(s, 0) != 0) return s->tst;
    return cudaStreamSynchronize((cudaStream_t)s->env.stream) == cudaSuccess ? TETRA_OK : TETRA_ERR_CUDA;
}

/* ---------------------------------------------------------------- flops and bytes */

static double g_flops(const bench_shape *s) { return 2.0 * s->m * s->n * s->k * s->l; }
static double nvb(int64_t r, int64_t k) { return (double)r * k / 2 + (double)r * k / 16; }
static double bytes_w4a16(const bench_shape *s) { return s->l * (2.0 * s->m * s->k + nvb(s->n, s->k) + 2.0 * s->m * s->n); }
/* prepared weights: the interleaved buffer as read (values, scales, flags, padding) */
static double bytes_w4a16_il(const bench_shape *s) {
    return s->l * (2.0 * s->m * s->k + (double)tetra_nvfp4_interleaved_bytes(s->n, s->k) + 2.0 * s->m * s->n);
}
/* prepared weights: the fragment values as read (padding included) and their swizzled scales */
static double bytes_w4a16_frag(const bench_shape *s) {
    return s->l * (2.0 * s->m * s->k + (double)tetra_nvfp4_fragment_bytes(s->n, s->k) +
                   (double)tetra_nvfp4_scale_bytes(s->n, s->k, TETRA_SCALE_FRAGMENT_128X64) + 2.0 * s->m * s->n);
}
static double bytes_w4a4(const bench_shape *s) { return s->l * (nvb(s->m, s->k) + nvb(s->n, s->k) + 2.0 * s->m * s->n); }
static double bytes_w4a4_frag(const bench_shape *s) {
    return s->l * (nvb(s->m, s->k) + (double)tetra_nvfp4_fragment_bytes(s->n, s->k) +
                   (double)tetra_nvfp4_scale_bytes(s->n, s->k, TETRA_SCALE_FRAGMENT_128X64) + 2.0 * s->m * s->n);
}
static double bytes_w4a4_il(const bench_shape *s) {
    return s->l * (nvb(s->m, s->k) + (double)tetra_nvfp4_interleaved_bytes(s->n, s->k) + 2.0 * s->m * s->n);
}
static double bytes_bf16(const bench_shape *s) { return s->l * 2.0 * ((double)s->m * s->k + (double)s->n * s->k + (double)s->m * s->n); }
static double bytes_fp8(const bench_shape *s) { return s->l * ((double)s->m * s->k + (double)s->n * s->k + 2.0 * s->m * s->n); }

#define SETUP(name, kind, path)                                                                     \
    static int name(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) {      \
        return gemm_setup(kind, path, e, s, st, m, l);                                             \
    }
SETUP(setup_w4a16, K_TETRA_W4A16, TETRA_PATH_AUTO)
SETUP(setup_w4a16_mma, K_TETRA_W4A16, TETRA_PATH_MMA_SYNC)
SETUP(setup_w4a16_wgmma, K_TETRA_W4A16, TETRA_PATH_WGMMA)
SETUP(setup_w4a16_wgmma_t, K_TETRA_W4A16, TETRA_PATH_WGMMA_T)
/* batch-invariant mode: one configuration for every M; its cost is this arm against tetra-gemm */
static int setup_w4a16_batchinv(const bench_env *e, const bench_shape *sh, void **st, char *m, size_t l) {
    int rc;
    if ((rc = gemm_setup(K_TETRA_W4A16, TETRA_PATH_AUTO, e, sh, st, m, l)) != BENCH_OK) return rc;
    ((gemm_state *)*st)->batch_invariant = 1;
    snprintf(((gemm_state *)*st)->note, sizeof ((gemm_state *)*st)->note,
             "tetra_gemm AUTO, batch_invariant = 1, %s scales",
             ((gemm_state *)*st)->layout == TETRA_SCALE_LINEAR ? "linear" : "swizzled-128x4");
    return BENCH_OK;
}
/* B prepared in TETRA_SCALE_INTERLEAVED_32X128 (the GEMV for M <= 16; larger M is refused
 * by the pinned GEMV / the W4A4 route, so the arms report unsupported there); the W4A4 pair
 * with X already NVFP4 (kernel) or quantized in the call (full call) */
/* $TETRA_BENCH_GEMV_SPLITS = S (an instrument knob for grid sweeps): these arms and the copy
 * probe pin the GEMV with S splits instead of AUTO's rule; -1 with a message if malformed */
static int il_split_pin(int *splits, char *m, size_t l) {
    const char *v = getenv("TETRA_BENCH_GEMV_SPLITS");
    char *end;
    long x;
    *splits = 0;
    if (!v) return 0;
    x = strtol(v, &end, 10);
    if (*v == '\0' || *end || x < 1 || x > 4096)
        return bench_set_msg(m, l, "TETRA_BENCH_GEMV_SPLITS = '%s' is not an integer in [1, 4096]", v), -1;
    *splits = (int)x;
    return 0;
}
/* The W4A16 arm pins the GEMV path: AUTO gives prepared weights to the skinny kernel at
 * M = 17..64 (tetra-gemm-skinny times that), and at M <= 16 AUTO is the GEMV (no dispatch
 * table ships). The W4A4 arms keep AUTO (the staging pass in front of the GEMV). */
static int setup_il(gemm_kind kind, const bench_env *e, const bench_shape *sh, void **st, char *m, size_t l) {
    int splits, rc;
    if (il_split_pin(&splits, m, l)) return BENCH_ERROR;
    rc = gemm_setup_b(kind, splits || kind == K_TETRA_W4A16 ? TETRA_PATH_GEMV : TETRA_PATH_AUTO, 1, e, sh, st, m,
                      l);
    if (rc == BENCH_OK && splits) {
        gemm_state *s = (gemm_state *)*st;
        s->splits = splits;
        snprintf(s->note, sizeof s->note, "GEMV pinned to %d split(s) by TETRA_BENCH_GEMV_SPLITS", splits);
    }
    return rc;
}
#define SETUP_IL(name, kind)                                                                        \
    static int name(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) {      \
        return setup_il(kind, e, s, st, m, l);                                                     \
    }
SETUP_IL(setup_w4a16_il, K_TETRA_W4A16)
SETUP_IL(setup_w4a4_il, K_TETRA_W4A4)
SETUP_IL(setup_w4a4_full_il, K_TETRA_W4A4_FULL)
/* the skinny-M wgmma GEMM (M <= 64, sm_90a): B prepared once as above, path pinned SKINNY
 * (AUTO does not choose it); gated against the reference kernel like the others */
static int setup_w4a16_skinny(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) {
    return gemm_setup_b(K_TETRA_W4A16, TETRA_PATH_SKINNY, 1, e, s, st, m, l);
}
/* B prepared once as TETRA_SCALE_FRAGMENT_128X64 (the wgmma-T GEMM's layout), path AUTO;
 * gated against the reference kernel, which reads the layout too */
static int setup_w4a16_frag(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) {
    return gemm_setup_b(K_TETRA_W4A16, TETRA_PATH_AUTO, 2, e, s, st, m, l);
}
/* the same prepared B with the path pinned WGMMA_T: the transposed GEMM where AUTO would take the
 * GEMV (M <= 16), so that one process times both sides of the GEMV / GEMM switch, paired */
static int setup_w4a16_frag_wgmma_t(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) {
    return gemm_setup_b(K_TETRA_W4A16, TETRA_PATH_WGMMA_T, 2, e, s, st, m, l);
}
static int setup_w4a4_frag(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) {
    return gemm_setup_b(K_TETRA_W4A4, TETRA_PATH_AUTO, 2, e, s, st, m, l);
}
/* the copy-only probe of the interleaved GEMV's ring (same grid, ring and copies as the BF16
 * kernel, no X, dequantization or mma): its GB/s beside the kernel's says which binds */
static int setup_il_copy_probe(const bench_env *e, const bench_shape *sh, void **st, char *m, size_t l) {
    gemm_state *s;
    int splits, rc;
    if (il_split_pin(&splits, m, l)) return BENCH_ERROR;
    rc = gemm_setup_b(K_TETRA_W4A16, TETRA_PATH_AUTO, 1, e, sh, st, m, l);
    if (rc != BENCH_OK) return rc;
    s = (gemm_state *)*st;
    s->il_copy_probe = 1;
    s->splits = splits;
    if (gemm_run_set(s, 0) || cudaStreamSynchronize((cudaStream_t)e->stream)) {
        bench_set_msg(m, l, "copy probe: %s", cudaGetErrorString(cudaGetLastError()));
        gemm_teardown(s);
        *st = NULL;
        return BENCH_ERROR;
    }
    snprintf(s->note, sizeof s->note, "copy-only probe of the interleaved GEMV ring, %d split(s)", s->probe_splits);
    return BENCH_OK;
}
static double probe_flops(const bench_shape *s) { (void)s; return 0; }
/* the probe reads the blocks (values and scales), not X, flags or Y */
static double bytes_il_blocks(const bench_shape *s) {
    return s->l * (double)tetra_nvfp4_interleaved_bytes(s->n, s->k);
}
SETUP(setup_w4a4, K_TETRA_W4A4, TETRA_PATH_AUTO)
SETUP(setup_w4a4_full, K_TETRA_W4A4_FULL, TETRA_PATH_AUTO)
SETUP(setup_lt_bf16, K_LT_BF16, TETRA_PATH_AUTO)
SETUP(setup_lt_bf16_tuned, K_LT_BF16_TUNED, TETRA_PATH_AUTO)
SETUP(setup_lt_fp8, K_LT_FP8, TETRA_PATH_AUTO)
SETUP(setup_lt_nvfp4, K_LT_NVFP4, TETRA_PATH_AUTO)
SETUP(setup_broken, K_BROKEN, TETRA_PATH_AUTO)

const bench_arm bench_arm_tetra_gemm = {"tetra-gemm", "gemm", "w4a16", "kernel", 0, setup_w4a16, gemm_run,
    tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a16, 0, gemm_describe};
/* one kernel family forced: the portable mma.sync GEMM (the sm_80/sm_120 path) and the
   Hopper wgmma GEMM, timed where AUTO would pick something else */
const bench_arm bench_arm_tetra_gemm_mma = {"tetra-gemm-mma", "gemm", "w4a16", "kernel", 0, setup_w4a16_mma,
    gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a16, 0, gemm_describe};
const bench_arm bench_arm_tetra_gemm_wgmma = {"tetra-gemm-wgmma", "gemm", "w4a16", "kernel", 0, setup_w4a16_wgmma,
    gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a16, 0, gemm_describe};
/* the transposed Hopper GEMM (dequantized weights as wgmma's register operand), not in AUTO yet */
const bench_arm bench_arm_tetra_gemm_wgmma_t = {"tetra-gemm-wgmma-t", "gemm", "w4a16", "kernel", 0,
    setup_w4a16_wgmma_t, gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a16, 0, gemm_describe};
const bench_arm bench_arm_tetra_gemm_batchinv = {"tetra-gemm-batchinv", "gemm", "w4a16", "kernel", 0,
    setup_w4a16_batchinv, gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a16, 0, gemm_describe};
const bench_arm bench_arm_tetra_gemm_gemv_interleaved = {"tetra-gemm-gemv-interleaved", "gemm", "w4a16", "kernel",
    0, setup_w4a16_il, gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a16_il, 0, gemm_describe};
const bench_arm bench_arm_tetra_gemm_skinny = {"tetra-gemm-skinny", "gemm", "w4a16", "kernel", 0,
    setup_w4a16_skinny, gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a16_il, 0, gemm_describe};
const bench_arm bench_arm_tetra_gemm_frag = {"tetra-gemm-frag", "gemm", "w4a16", "kernel", 0, setup_w4a16_frag,
    gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a16_frag, 0, gemm_describe};
const bench_arm bench_arm_tetra_gemm_frag_wgmma_t = {"tetra-gemm-frag-wgmma-t", "gemm", "w4a16", "kernel", 0,
    setup_w4a16_frag_wgmma_t, gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a16_frag, 0, gemm_describe};
const bench_arm bench_arm_probe_gemv_il_copy = {"probe-gemv-interleaved-copy", "mem", "interleaved-copy", "kernel", 0,
    setup_il_copy_probe, gemm_run, NULL, gemm_teardown, probe_flops, bytes_il_blocks, 0, gemm_describe};
const bench_arm bench_arm_tetra_gemm_w4a4 = {"tetra-gemm-w4a4", "gemm", "w4a4", "kernel", 0, setup_w4a4, gemm_run,
    tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a4, 0, gemm_describe};
const bench_arm bench_arm_tetra_gemm_w4a4_frag = {"tetra-gemm-w4a4-frag", "gemm", "w4a4", "kernel", 0,
    setup_w4a4_frag, gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a4_frag, 0, gemm_describe};
const bench_arm bench_arm_tetra_gemm_w4a4_full = {"tetra-gemm-w4a4-full", "gemm", "w4a4", "full-call", 0,
    setup_w4a4_full, gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a16, 0, gemm_describe};
const bench_arm bench_arm_tetra_gemm_w4a4_interleaved = {"tetra-gemm-w4a4-interleaved", "gemm", "w4a4", "kernel",
    0, setup_w4a4_il, gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a4_il, 0, gemm_describe};
const bench_arm bench_arm_tetra_gemm_w4a4_full_interleaved = {"tetra-gemm-w4a4-full-interleaved", "gemm", "w4a4",
    "full-call", 0, setup_w4a4_full_il, gemm_run, tetra_gemm_check, gemm_teardown, g_flops, bytes_w4a16_il, 0,
    gemm_describe};
const bench_arm bench_arm_lt_bf16 = {"cublaslt-bf16", "gemm", "bf16", "kernel", 0, setup_lt_bf16, gemm_run,
    gemm_check, gemm_teardown, g_flops, bytes_bf16, 0, gemm_describe};
const bench_arm bench_arm_lt_bf16_tuned = {"cublaslt-bf16-tuned", "gemm", "bf16", "kernel", 0, setup_lt_bf16_tuned,
    gemm_run, gemm_check, gemm_teardown, g_flops, bytes_bf16, 0, gemm_describe};
const bench_arm bench_arm_lt_fp8 = {"cublaslt-fp8", "gemm", "fp8", "kernel", 0, setup_lt_fp8, gemm_run, gemm_check,
    gemm_teardown, g_flops, bytes_fp8, 0, gemm_describe};
const bench_arm bench_arm_lt_nvfp4 = {"cublaslt-nvfp4", "gemm", "nvfp4", "kernel", 0, setup_lt_nvfp4, gemm_run,
    gemm_check, gemm_teardown, g_flops, bytes_w4a4, 0, gemm_describe};
const bench_arm bench_arm_broken_gemm = {"broken-gemm", "gemm", "bf16", "kernel", 1, setup_broken, gemm_run,
    gemm_check, gemm_teardown, g_flops, bytes_bf16, 0, gemm_describe};
