/* arms_misc.c - quantize/dequantize arms (tetra public API), the memory arms, and the
 * arm registry. To add an arm: define a bench_arm and list it in g_arms below. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench.h"
#include "format/float16.h"
#include "format/nvfp4_codec.h"
#include "kernels.h"
#include "ref/rng.h"

#define MAX_SETS 64
#define G_QUANT 0.001953125f /* 2^-9: supplied global scale; the BF16 inputs have |x| < 3.5 */

/* ---------------------------------------------------------------- quantize / dequantize */

typedef struct {
    int dequant; /* 0: BF16 -> NVFP4, 1: NVFP4 -> BF16 */
    bench_env env;
    int64_t m, k;
    int nsets, cur;
    void *dense[MAX_SETS], *q[MAX_SETS], *qs[MAX_SETS];
    tetra_matrix md[MAX_SETS], mq[MAX_SETS];
    uint8_t *hq, *hqs; /* dequantize: host NVFP4 input (linear scales) */
    tetra_status tst;
} conv_state;

static int conv_run_set(conv_state *s, int i) {
    s->tst = s->dequant ? tetra_dequantize(s->env.ctx, &s->mq[i], &s->md[i])
                        : tetra_quantize(s->env.ctx, &s->md[i], &s->mq[i], TETRA_GLOBAL_SCALE_SUPPLIED);
    return s->tst == TETRA_OK ? 0 : -1;
}
static int conv_run(void *p) {
    conv_state *s = (conv_state *)p;
    int i = s->cur;
    s->cur = (s->cur + 1) % s->nsets;
    return conv_run_set(s, i);
}
static void conv_teardown(void *p) {
    conv_state *s = (conv_state *)p;
    if (!s) return;
    cudaStreamSynchronize((cudaStream_t)s->env.stream);
    for (int i = 0; i < MAX_SETS; i++) { cudaFree(s->dense[i]); cudaFree(s->q[i]); cudaFree(s->qs[i]); }
    free(s->hq); free(s->hqs);
    free(s);
}

static int conv_setup(int dequant, const bench_env *env, const bench_shape *sh, void **out, char *msg, size_t len) {
    conv_state *s;
    size_t db, qb, sb, per;
    cudaStream_t st = (cudaStream_t)env->stream;
    int rc = BENCH_ERROR;
    *out = NULL;
    if (sh->k % 16) return bench_set_msg(msg, len, "K = %lld is not a multiple of 16", (long long)sh->k), BENCH_ERROR;
    if (!(s = (conv_state *)calloc(1, sizeof *s))) return bench_set_msg(msg, len, "out of host memory"), BENCH_ERROR;
    s->dequant = dequant;
    s->env = *env;
    s->m = sh->m * sh->l;
    s->k = sh->k;
    db = (size_t)(s->m * s->k * 2);
    qb = (size_t)(s->m * s->k / 2);
    sb = tetra_nvfp4_scale_bytes(s->m, s->k, env->scale_layout);
    per = db + qb + sb;
    if (!(s->nsets = bench_rotation_sets(env, per, MAX_SETS, msg, len))) {
        rc = BENCH_UNSUPPORTED;
        goto done;
    }
    for (int i = 0; i < s->nsets; i++) {
        if (cudaMalloc(&s->dense[i], db) || cudaMalloc(&s->q[i], qb) || cudaMalloc(&s->qs[i], sb)) {
            cudaGetLastError();
            bench_set_msg(msg, len, "cudaMalloc failed");
            goto done;
        }
        s->md[i] = tetra_matrix_dense(TETRA_DTYPE_BF16, s->dense[i], s->m, s->k);
        s->mq[i] = tetra_matrix_nvfp4(s->q[i], s->qs[i], env->scale_layout, s->m, s->k, G_QUANT);
    }
    if (!dequant) {
        bench_fill_bf16((uint16_t *)s->dense[0], s->m * s->k, env->seed ^ 0x4444, st);
        for (int i = 1; i < s->nsets; i++) cudaMemcpyAsync(s->dense[i], s->dense[0], db, cudaMemcpyDeviceToDevice, st);
        for (int i = 0; i < s->nsets; i++) { cudaMemsetAsync(s->q[i], 0xff, qb, st); cudaMemsetAsync(s->qs[i], 0xff, sb, st); }
    } else {
        /* random NVFP4 input: any nibble, scale codes 0x30..0x3F, uploaded in the layout */
        tetra_rng r = {env->seed ^ 0x5555};
        uint8_t *hs;
        tetra_matrix src, dst;
        s->hq = (uint8_t *)malloc(qb);
        s->hqs = (uint8_t *)malloc((size_t)(s->m * s->k / 16));
        hs = (uint8_t *)malloc(sb);
        if (!s->hq || !s->hqs || !hs) { free(hs); bench_set_msg(msg, len, "out of host memory"); goto done; }
        for (size_t i = 0; i < qb; i++) s->hq[i] = (uint8_t)tetra_rng_next(&r);
        for (int64_t i = 0; i < s->m * s->k / 16; i++) s->hqs[i] = (uint8_t)(0x30 + (tetra_rng_next(&r) & 15u));
        src = tetra_matrix_nvfp4(s->hq, s->hqs, TETRA_SCALE_LINEAR, s->m, s->k, G_QUANT);
        dst = tetra_matrix_nvfp4(s->hq, hs, env->scale_layout, s->m, s->k, G_QUANT);
        if (tetra_convert_scales_host(&src, &dst) != TETRA_OK) { free(hs); bench_set_msg(msg, len, "%s", tetra_last_error()); goto done; }
        for (int i = 0; i < s->nsets; i++) {
            cudaMemcpy(s->q[i], s->hq, qb, cudaMemcpyHostToDevice);
            cudaMemcpy(s->qs[i], hs, sb, cudaMemcpyHostToDevice);
            cudaMemsetAsync(s->dense[i], 0xff, db, st);
        }
        free(hs);
    }
    if (cudaStreamSynchronize(st) != cudaSuccess) { bench_set_msg(msg, len, "%s", cudaGetErrorString(cudaGetLastError())); goto done; }
    if (conv_run_set(s, 0) || cudaStreamSynchronize(st) != cudaSuccess) {
        bench_set_msg(msg, len, "%s: %s", tetra_status_string(s->tst), tetra_last_error());
        rc = s->tst == TETRA_ERR_UNSUPPORTED ? BENCH_UNSUPPORTED : BENCH_ERROR;
        goto done;
    }
    rc = BENCH_OK;
    *out = s;
done:
    if (rc != BENCH_OK) conv_teardown(s);
    return rc;
}

/* Quantize: the output must equal tetra_quantize_host bit for bit (compared as decoded
 * values). Dequantize: BF16 output vs the exact FP64 values, rows sampled when large. */
static int conv_check(void *p, bench_check *c, char *msg, size_t len) {
    conv_state *s = (conv_state *)p;
    cudaStream_t st = (cudaStream_t)s->env.stream;
    int64_t M = s->m, K = s->k, nr = M > 4096 ? 4096 : M, nkb = K / 16;
    size_t sb = tetra_nvfp4_scale_bytes(M, K, s->env.scale_layout);
    uint8_t *q = NULL, *qs = NULL, *hq = NULL, *hqs = NULL;
    uint16_t *dense = NULL;
    int rc = -1;
    memset(c, 0, sizeof *c);
    if (s->dequant) cudaMemsetAsync(s->dense[0], 0xff, (size_t)(M * K * 2), st);
    else { cudaMemsetAsync(s->q[0], 0xff, (size_t)(M * K / 2), st); cudaMemsetAsync(s->qs[0], 0xff, sb, st); }
    if (conv_run_set(s, 0) || cudaStreamSynchronize(st)) { bench_set_msg(msg, len, "%s", tetra_last_error()); return -1; }
    c->ref = (double *)malloc((size_t)(nr * K) * sizeof(double));
    c->out = (double *)malloc((size_t)(nr * K) * sizeof(double));
    dense = (uint16_t *)malloc((size_t)(nr * K) * 2);
    if (!c->ref || !c->out || !dense) { bench_set_msg(msg, len, "out of host memory"); goto done; }
    /* rows 0..nr-1 (a prefix: the conversion is row-independent) */
    if (s->dequant) {
        if (cudaMemcpy(dense, s->dense[0], (size_t)(nr * K * 2), cudaMemcpyDeviceToHost)) goto dl;
        for (int64_t r = 0; r < nr; r++)
            for (int64_t k = 0; k < K; k++) {
                uint8_t b = s->hq[(r * K + k) / 2];
                unsigned code = (k & 1) ? (b >> 4) : (b & 15u);
                c->ref[r * K + k] = (double)tetra_e2m1_to_float(code) *
                                    (double)tetra_e4m3_to_float(s->hqs[r * nkb + k / 16]) * (double)G_QUANT;
                c->out[r * K + k] = tetra_bf16_to_f32(dense[r * K + k]);
            }
        c->out_dtype = TETRA_DTYPE_BF16;
        snprintf(c->method, sizeof c->method, "exact FP64 values, %lld of %lld rows", (long long)nr, (long long)M);
    } else {
        tetra_matrix src, dst;
        q = (uint8_t *)malloc((size_t)(nr * K / 2));
        qs = (uint8_t *)malloc(sb);
        hq = (uint8_t *)malloc((size_t)(nr * K / 2));
        hqs = (uint8_t *)malloc((size_t)(nr * nkb));
        if (!q || !qs || !hq || !hqs) { bench_set_msg(msg, len, "out of host memory"); goto done; }
        if (cudaMemcpy(dense, s->dense[0], (size_t)(nr * K * 2), cudaMemcpyDeviceToHost) ||
            cudaMemcpy(q, s->q[0], (size_t)(nr * K / 2), cudaMemcpyDeviceToHost) ||
            cudaMemcpy(qs, s->qs[0], sb, cudaMemcpyDeviceToHost))
            goto dl;
        src = tetra_matrix_dense(TETRA_DTYPE_BF16, dense, nr, K);
        dst = tetra_matrix_nvfp4(hq, hqs, TETRA_SCALE_LINEAR, nr, K, G_QUANT);
        if (tetra_quantize_host(&src, &dst, TETRA_GLOBAL_SCALE_SUPPLIED) != TETRA_OK) {
            bench_set_msg(msg, len, "host quantize: %s", tetra_last_error());
            goto done;
        }
        for (int64_t r = 0; r < nr; r++)
            for (int64_t k = 0; k < K; k++) {
                int64_t i = r * K + k;
                unsigned hc = (k & 1) ? (hq[i / 2] >> 4) : (hq[i / 2] & 15u);
                unsigned dc = (k & 1) ? (q[i / 2] >> 4) : (q[i / 2] & 15u);
                unsigned dsc = qs[tetra_scale_offset((int)s->env.scale_layout, r, k / 16, nkb, nkb)];
                c->ref[i] = tetra_nvfp4_decode_element(hc, hqs[r * nkb + k / 16], G_QUANT);
                c->out[i] = tetra_nvfp4_decode_element(dc, dsc, G_QUANT);
                /* a different code with the same value (+0 / -0) is still a defect */
                if (hc != dc && c->out[i] == c->ref[i]) c->out[i] = c->ref[i] + 1e-30;
            }
        c->exact = 1;
        c->out_dtype = TETRA_DTYPE_FP32;
        snprintf(c->method, sizeof c->method, "bit-exact vs tetra_quantize_host, %lld of %lld rows", (long long)nr,
                 (long long)M);
    }
    c->n = nr * K;
    c->k = 1;
    c->rows_checked = nr;
    c->rows_total = M;
    rc = 0;
    goto done;
dl:
    bench_set_msg(msg, len, "download failed");
done:
    if (rc) { free(c->ref); free(c->out); c->ref = c->out = NULL; }
    free(q); free(qs); free(hq); free(hqs); free(dense);
    return rc;
}

static int setup_quant(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) { return conv_setup(0, e, s, st, m, l); }
static int setup_dequant(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) { return conv_setup(1, e, s, st, m, l); }
static double no_flops(const bench_shape *s) { (void)s; return 0; }
static double conv_bytes(const bench_shape *s) { return (double)s->m * s->l * s->k * (2.0 + 0.5 + 1.0 / 16); }

static const bench_arm arm_quant = {"tetra-quantize", "quantize", "bf16-nvfp4", "kernel", 0, setup_quant, conv_run,
    conv_check, conv_teardown, no_flops, conv_bytes, 0, NULL};
static const bench_arm arm_dequant = {"tetra-dequantize", "dequantize", "nvfp4-bf16", "kernel", 0, setup_dequant,
    conv_run, conv_check, conv_teardown, no_flops, conv_bytes, 0, NULL};

/* ---------------------------------------------------------------- memory arms */

/* mem-read streams a BF16 [N,K] matrix (n*k*2 bytes, the weight stream of a GEMV);
 * mem-copy copies one; mem-read-nvfp4 streams the bytes of the prepared NVFP4 weights of
 * [N,K] x L (tetra_nvfp4_interleaved_bytes: what the decode GEMV reads besides X), the
 * pure-read reference for a GEMV of the same shape, with $TETRA_BENCH_READ_CTAS CTAs of
 * 512 threads per SM (default 4, the read ceiling's grid). The shape's M is ignored. */
typedef struct {
    int copy, ctas_per_sm;
    bench_env env;
    int64_t bytes;
    int nsets, cur;
    void *src[MAX_SETS], *dst[MAX_SETS];
    uint32_t *sink;
} mem_state;

static void mem_teardown(void *p) {
    mem_state *s = (mem_state *)p;
    if (!s) return;
    cudaStreamSynchronize((cudaStream_t)s->env.stream);
    for (int i = 0; i < MAX_SETS; i++) { cudaFree(s->src[i]); cudaFree(s->dst[i]); }
    cudaFree(s->sink);
    free(s);
}
static int mem_run(void *p) {
    mem_state *s = (mem_state *)p;
    int i = s->cur;
    s->cur = (s->cur + 1) % s->nsets;
    if (s->copy) return bench_mem_copy(s->dst[i], s->src[i], s->bytes, s->env.sms, s->env.stream);
    return bench_mem_read_grid(s->src[i], s->bytes, 0x9e3779b9u, s->sink, s->env.sms, s->ctas_per_sm,
                               s->env.stream);
}
/* mode 0 read, 1 copy, 2 read of the prepared NVFP4 bytes */
static int mem_setup(int mode, const bench_env *env, const bench_shape *sh, void **out, char *msg, size_t len) {
    mem_state *s;
    size_t per;
    int ctas = 4;
    const char *env_ctas = getenv("TETRA_BENCH_READ_CTAS");
    *out = NULL;
    if (mode == 2 && env_ctas) {
        char *end;
        long v = strtol(env_ctas, &end, 10);
        if (*env_ctas == '\0' || *end || v < 1 || v > 64)
            return bench_set_msg(msg, len, "TETRA_BENCH_READ_CTAS = '%s' is not an integer in [1, 64]", env_ctas),
                   BENCH_ERROR;
        ctas = (int)v;
    }
    if (!(s = (mem_state *)calloc(1, sizeof *s))) return bench_set_msg(msg, len, "out of host memory"), BENCH_ERROR;
    s->copy = mode == 1;
    s->ctas_per_sm = ctas;
    s->env = *env;
    s->bytes = mode == 2 ? (int64_t)tetra_nvfp4_interleaved_bytes(sh->n, sh->k) * sh->l / 16 * 16
                         : (sh->n * sh->k * 2 * sh->l) / 16 * 16;
    if (s->bytes < 16) { free(s); return bench_set_msg(msg, len, "shape too small for the memory arm"), BENCH_ERROR; }
    per = (size_t)s->bytes * (s->copy ? 2 : 1);
    if (!(s->nsets = bench_rotation_sets(env, per, MAX_SETS, msg, len))) {
        free(s);
        return BENCH_UNSUPPORTED;
    }
    if (cudaMalloc((void **)&s->sink, 16)) goto oom;
    for (int i = 0; i < s->nsets; i++) {
        if (cudaMalloc(&s->src[i], (size_t)s->bytes) || (s->copy && cudaMalloc(&s->dst[i], (size_t)s->bytes)))
            goto oom;
        bench_fill_bf16((uint16_t *)s->src[i], s->bytes / 2, env->seed + (uint64_t)i, env->stream);
    }
    if (mem_run(s) || cudaStreamSynchronize((cudaStream_t)env->stream)) goto oom;
    *out = s;
    return BENCH_OK;
oom:
    bench_set_msg(msg, len, "memory arm: %s", cudaGetErrorString(cudaGetLastError()));
    mem_teardown(s);
    return BENCH_ERROR;
}
static int setup_read(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) { return mem_setup(0, e, s, st, m, l); }
static int setup_copy(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) { return mem_setup(1, e, s, st, m, l); }
static int setup_read_nvfp4(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) { return mem_setup(2, e, s, st, m, l); }
static double read_nvfp4_bytes(const bench_shape *s) {
    return (double)((int64_t)tetra_nvfp4_interleaved_bytes(s->n, s->k) * s->l / 16 * 16);
}
static double read_bytes(const bench_shape *s) { return (double)(s->n * s->k * 2 * s->l / 16 * 16); }
static double copy_bytes(const bench_shape *s) { return 2.0 * (double)(s->n * s->k * 2 * s->l / 16 * 16); }

static const bench_arm arm_mem_read = {"mem-read", "mem", "read", "kernel", 0, setup_read, mem_run, NULL, mem_teardown,
    no_flops, read_bytes, 0, NULL};
static const bench_arm arm_mem_copy = {"mem-copy", "mem", "copy", "kernel", 0, setup_copy, mem_run, NULL, mem_teardown,
    no_flops, copy_bytes, 1, NULL};
static const bench_arm arm_mem_read_nvfp4 = {"mem-read-nvfp4", "mem", "read-nvfp4", "kernel", 0, setup_read_nvfp4,
    mem_run, NULL, mem_teardown, no_flops, read_nvfp4_bytes, 0, NULL};

/* ---------------------------------------------------------------- registry */

extern const bench_arm bench_arm_tetra_gemm, bench_arm_tetra_gemm_mma, bench_arm_tetra_gemm_wgmma,
    bench_arm_tetra_gemm_wgmma_t,
    bench_arm_tetra_gemm_batchinv, bench_arm_tetra_gemm_gemv_interleaved, bench_arm_probe_gemv_il_copy, bench_arm_tetra_gemm_w4a4, bench_arm_tetra_gemm_w4a4_full,
    bench_arm_tetra_gemm_w4a4_interleaved, bench_arm_tetra_gemm_w4a4_full_interleaved, bench_arm_tetra_gemm_skinny,
    bench_arm_tetra_gemm_frag, bench_arm_tetra_gemm_frag_wgmma_t, bench_arm_tetra_gemm_w4a4_frag,
    bench_arm_lt_bf16, bench_arm_lt_bf16_tuned, bench_arm_lt_fp8, bench_arm_lt_nvfp4, bench_arm_broken_gemm;
/* arms_attention.c */
extern const bench_arm bench_arm_attn_tetra_bf16, bench_arm_attn_tetra_bf16_c, bench_arm_attn_tetra_f16,
    bench_arm_attn_tetra_f16_c, bench_arm_attn_port_bf16, bench_arm_attn_port_bf16_c, bench_arm_attn_port_f16,
    bench_arm_attn_port_f16_c, bench_arm_attn_dnn_bf16, bench_arm_attn_dnn_bf16_c, bench_arm_attn_dnn_f16,
    bench_arm_attn_dnn_f16_c, bench_arm_attn_broken,
    bench_arm_attn_sm90_rows128, bench_arm_attn_sm90_rows192;

static const bench_arm *const g_arms[] = {
    &bench_arm_tetra_gemm, &bench_arm_tetra_gemm_mma, &bench_arm_tetra_gemm_wgmma, &bench_arm_tetra_gemm_wgmma_t,
    &bench_arm_tetra_gemm_batchinv, &bench_arm_tetra_gemm_gemv_interleaved, &bench_arm_probe_gemv_il_copy,
    &bench_arm_tetra_gemm_w4a4, &bench_arm_tetra_gemm_w4a4_full,
    &bench_arm_tetra_gemm_w4a4_interleaved, &bench_arm_tetra_gemm_w4a4_full_interleaved, &bench_arm_tetra_gemm_skinny,
    &bench_arm_tetra_gemm_frag, &bench_arm_tetra_gemm_frag_wgmma_t, &bench_arm_tetra_gemm_w4a4_frag,
    &arm_quant, &arm_dequant,
    &bench_arm_lt_bf16, &bench_arm_lt_bf16_tuned, &bench_arm_lt_fp8, &bench_arm_lt_nvfp4,
    &arm_mem_read, &arm_mem_copy, &arm_mem_read_nvfp4,
    &bench_arm_attn_tetra_bf16, &bench_arm_attn_tetra_bf16_c, &bench_arm_attn_tetra_f16, &bench_arm_attn_tetra_f16_c,
    &bench_arm_attn_port_bf16, &bench_arm_attn_port_bf16_c, &bench_arm_attn_port_f16, &bench_arm_attn_port_f16_c,
    &bench_arm_attn_dnn_bf16, &bench_arm_attn_dnn_bf16_c, &bench_arm_attn_dnn_f16, &bench_arm_attn_dnn_f16_c,
    &bench_arm_broken_gemm, &bench_arm_attn_broken, &bench_arm_attn_sm90_rows128, &bench_arm_attn_sm90_rows192,
};

const bench_arm *const *bench_arms(int *n) {
    *n = (int)(sizeof g_arms / sizeof g_arms[0]);
    return g_arms;
}

int bench_rotation_sets(const bench_env *env, size_t per_set, int max_sets, char *msg, size_t len) {
    size_t free_b = 0, total_b = 0;
    int n = (int)((env->rotate_bytes + per_set - 1) / per_set);
    if (n < 1) n = 1;
    if (n > max_sets) n = max_sets;
    cudaMemGetInfo(&free_b, &total_b);
    while (n > 1 && (double)per_set * n > 0.8 * (double)free_b) n--;
    if ((double)per_set > 0.8 * (double)free_b) {
        bench_set_msg(msg, len, "needs %.1f GiB of device memory, %.1f GiB free", per_set / 1073741824.0,
                      free_b / 1073741824.0);
        return 0;
    }
    return n;
}

const bench_arm *bench_arm_find(const char *name) {
    int n;
    const bench_arm *const *a = bench_arms(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(a[i]->name, name)) return a[i];
    return NULL;
}
