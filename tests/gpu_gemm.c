/* gpu_gemm.c - the prefill GEMM paths (TETRA_PATH_MMA_SYNC, TETRA_PATH_WGMMA,
 * TETRA_PATH_WGMMA_T) through the
 * public tetra_gemm, against the FP64 CPU oracle (small/medium shapes) and the GPU
 * reference path (large shapes).
 *
 * Gate (PROTOCOL.md step 3): pass iff no non-finite output and normwise and
 * max|err|/max|ref| are each <= 2 x the same-dtype floor (the oracle rounded to D's
 * dtype) + slack. slack: BF16/FP16 outputs 1e-5 (their floor, ~1e-3, dominates);
 * FP32 outputs 32 * 2^-24 * sqrt(K) (see gate_slack below and docs/notes/gemm.md).
 *
 * Every case also checks: output poisoned (0xFF = NaN) before the run, sentinel guards
 * around every device buffer, D's padding (ld and batch-stride gaps) left untouched,
 * and a second run bit-identical to the first. Inputs are seeded (seed printed); padding
 * of A and B's data and linear scales is filled with NaN-producing bytes, so a kernel
 * that reads past a row shows up as a non-finite output.
 *
 * Exit 77 (skip) without a device. A path that returns TETRA_ERR_UNSUPPORTED for its
 * very first case is reported as skipped (e.g. WGMMA off Hopper).
 * TETRA_GEMM_TEST_ONLY=wgmma_t runs only the WGMMA_T path's cases (a focused device run).
 * The WGMMA_T section includes v7.7's cluster-K cases (ck_cases; build switch TETRA_GEMM_T_CK),
 * each byte-compared with the ordinary split path. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "format/float16.h"
#include "ref/errstats.h"
#include "testutil.h"

#define NAME "gpu_gemm"

typedef struct {
    int64_t m, n, k, l;
    tetra_dtype a_dtype;       /* BF16, FP16 (W4A16) or NVFP4 (W4A4) */
    tetra_scale_layout layout; /* of B's (and an NVFP4 A's) block scales */
    tetra_dtype d_dtype;
    int bias;                  /* 0: none; else bias_dtype is used */
    tetra_dtype bias_dtype;
    float alpha;
    int dev_gscale;            /* global scales passed as device pointers */
    int padded;                /* non-default ld, scale_ld and batch strides; D's: 1 odd (n + 3),
                                  2 16-byte aligned (n rounded up to 8, + 8) */
} gcase;

static const char *path_name(tetra_gemm_path p) {
    return p == TETRA_PATH_MMA_SYNC ? "mma_sync"
           : p == TETRA_PATH_WGMMA  ? "wgmma"
           : p == TETRA_PATH_WGMMA_T ? "wgmma_t"
           : p == TETRA_PATH_AUTO   ? "auto"
                                     : "reference";
}
/* the two Hopper kernel families (gemm_sm90.cu): same takes and refusals */
static int is_sm90_path(tetra_gemm_path p) { return p == TETRA_PATH_WGMMA || p == TETRA_PATH_WGMMA_T; }

static double gate_slack(tetra_dtype d, int64_t k) {
    /* FP32 output: the floor is FP32 rounding (~3e-8) but the kernel accumulates K
     * products in FP32 (tensor-core adds of 16-term chunks): a random-walk error of
     * about 2^-24 * sqrt(K/16) relative, times a margin of 128 for the tensor core's
     * truncating internal adds and unlucky elements. 32 * 2^-24 * sqrt(K) is that.
     * A real defect (a lost block, a wrong scale) errs by > 1e-3. */
    if (d == TETRA_DTYPE_FP32) return 32.0 * ldexp(1.0, -24) * sqrt((double)k);
    return 1e-5;
}

/* Whether `path` must take case c (else TETRA_ERR_UNSUPPORTED is a documented refusal).
 * mma.sync takes every case here. wgmma (gemm_sm90.cu) takes K % 32 == 0 (its TMA copies
 * of B's packed rows need 16-byte row strides: ld and batch stride multiples of 32
 * elements, which these cases have whenever K is), W4A16, and W4A4 through the BF16
 * staging of A (gemm_api.c) unless A's global scale is a device pointer. */
static int path_must_take(tetra_gemm_path path, const gcase *c) {
    if (!is_sm90_path(path)) return 1;
    return c->k % 32 == 0 && !(c->a_dtype == TETRA_DTYPE_NVFP4 && c->dev_gscale);
}

static size_t dsize(tetra_dtype d) { return d == TETRA_DTYPE_FP32 ? 4 : 2; }

static uint16_t to16(tetra_dtype d, float x) {
    return d == TETRA_DTYPE_FP16 ? tetra_f32_to_f16(x) : tetra_f32_to_bf16(x);
}
static float from16(tetra_dtype d, uint16_t h) {
    return d == TETRA_DTYPE_FP16 ? tetra_f16_to_f32(h) : tetra_bf16_to_f32(h);
}

/* One operand on host and device: descriptor with host pointers (h) and with device
 * pointers (g), and the two blobs behind them. */
typedef struct {
    tetra_matrix h, g;
    void *hdata, *hscales;
    size_t data_bytes, scale_bytes;
    tu_devbuf ddata, dscales, dgscale;
} operand;

static void free_operand(operand *o) {
    free(o->hdata);
    free(o->hscales);
    if (o->ddata.base) tu_dev_free(&o->ddata);
    if (o->dscales.base) tu_dev_free(&o->dscales);
    if (o->dgscale.base) tu_dev_free(&o->dgscale);
}

/* NVFP4 operand [rows, k] x l quantized from normal(0, sigma) values with a few outliers. */
static int make_nvfp4(operand *o, tetra_rng *rng, int64_t rows, int64_t k, int64_t l,
                      tetra_scale_layout layout, int padded, float sigma) {
    tetra_matrix src;
    float *x = (float *)malloc((size_t)(rows * k * l) * sizeof(float));
    int64_t ld = k + (padded ? 32 : 0);
    memset(o, 0, sizeof *o);
    for (int64_t i = 0; i < rows * k * l; i++)
        x[i] = (float)(sigma * tetra_rng_normal(rng) * (tetra_rng_uniform(rng) < 0.002 ? 16 : 1));
    src = tetra_matrix_dense(TETRA_DTYPE_FP32, x, rows, k);
    src.batch = l;
    o->h = tetra_matrix_nvfp4(NULL, NULL, layout, rows, k, 0.0f);
    o->h.batch = l;
    o->h.ld = ld;
    o->h.batch_stride = rows * ld + (padded ? 64 : 0);
    if (layout == TETRA_SCALE_LINEAR && padded) o->h.scale_ld = k / 16 + 1; /* unaligned rows */
    {
        size_t one = tetra_nvfp4_scale_bytes(rows, k, layout);
        if (layout == TETRA_SCALE_LINEAR && padded) one = (size_t)(rows * (k / 16 + 1));
        if (padded) o->h.scale_batch_stride = (int64_t)one + 3;
        o->scale_bytes = (size_t)(l - 1) * (size_t)(padded ? (int64_t)one + 3 : (int64_t)one) + one;
    }
    o->data_bytes = (size_t)(((l - 1) * o->h.batch_stride + rows * ld) / 2);
    o->hdata = malloc(o->data_bytes);
    o->hscales = malloc(o->scale_bytes);
    memset(o->hdata, 0xFF, o->data_bytes);     /* padding: -6 codes */
    memset(o->hscales, 0x7F, o->scale_bytes);  /* padding: NaN scales */
    o->h.data = o->hdata;
    o->h.scales = o->hscales;
    if (tetra_quantize_host(&src, &o->h, TETRA_GLOBAL_SCALE_FROM_AMAX) != TETRA_OK) {
        fprintf(stderr, "quantize: %s\n", tetra_last_error());
        free(x);
        return 0;
    }
    free(x);
    o->ddata = tu_dev_alloc(o->data_bytes, 0);
    o->dscales = tu_dev_alloc(o->scale_bytes, 0);
    tu_dev_upload(&o->ddata, o->hdata, o->data_bytes);
    tu_dev_upload(&o->dscales, o->hscales, o->scale_bytes);
    o->g = o->h;
    o->g.data = o->ddata.ptr;
    o->g.scales = o->dscales.ptr;
    return 1;
}

/* Dense BF16/FP16 operand [rows, k] x l, normal(0,1), padding NaN. */
static void make_dense(operand *o, tetra_rng *rng, tetra_dtype dt, int64_t rows, int64_t k,
                       int64_t l, int padded) {
    int64_t ld = k + (padded ? 8 : 0), bs = rows * ld + (padded ? 64 : 0);
    uint16_t *h;
    memset(o, 0, sizeof *o);
    o->data_bytes = (size_t)((l - 1) * bs + rows * ld) * 2;
    h = (uint16_t *)malloc(o->data_bytes);
    for (size_t i = 0; i < o->data_bytes / 2; i++) h[i] = dt == TETRA_DTYPE_FP16 ? 0x7E00 : 0x7FC0;
    for (int64_t b = 0; b < l; b++)
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < k; c++) h[b * bs + r * ld + c] = to16(dt, (float)tetra_rng_normal(rng));
    o->hdata = h;
    o->h = tetra_matrix_dense(dt, h, rows, k);
    o->h.ld = ld;
    o->h.batch = l;
    o->h.batch_stride = bs;
    o->ddata = tu_dev_alloc(o->data_bytes, 0);
    tu_dev_upload(&o->ddata, h, o->data_bytes);
    o->g = o->h;
    o->g.data = o->ddata.ptr;
}

/* Pass the NVFP4 global scale through a device pointer; the host field is set to a
 * wrong value so a kernel that reads it fails. */
static void use_dev_gscale(operand *o) {
    o->dgscale = tu_dev_alloc(sizeof(float), 0);
    tu_dev_upload(&o->dgscale, &o->h.global_scale, sizeof(float));
    o->g.global_scale_dev = (float *)o->dgscale.ptr;
    o->g.global_scale = 1234.5f;
}

/* The D layout of a case; packs the [l, m, n] outputs out of a blob, and checks that
 * everything else in the blob still holds the 0xFF poison. */
typedef struct { int64_t ldd, bs; size_t bytes; } dlayout;

static dlayout d_layout(const gcase *c) {
    dlayout d;
    d.ldd = c->padded == 2 ? (c->n + 7) / 8 * 8 + 8 : c->n + (c->padded ? 3 : 0);
    d.bs = c->m * d.ldd + (c->padded == 2 ? 16 : c->padded ? 5 : 0);
    d.bytes = (size_t)((c->l - 1) * d.bs + c->m * d.ldd) * dsize(c->d_dtype);
    return d;
}

static int unpack_d(const gcase *c, const dlayout *dl, const uint8_t *blob, uint8_t *out) {
    size_t es = dsize(c->d_dtype);
    int64_t total = (int64_t)(dl->bytes / es);
    int touched = 0;
    char *inside = (char *)calloc((size_t)total, 1);
    for (int64_t b = 0; b < c->l; b++)
        for (int64_t r = 0; r < c->m; r++) {
            int64_t e = b * dl->bs + r * dl->ldd;
            memcpy(out + (size_t)(((b * c->m + r) * c->n)) * es, blob + (size_t)e * es, (size_t)c->n * es);
            memset(inside + e, 1, (size_t)c->n);
        }
    for (int64_t e = 0; e < total; e++) {
        if (inside[e]) continue;
        for (size_t j = 0; j < es; j++) touched |= blob[(size_t)e * es + j] != 0xFF;
    }
    free(inside);
    return !touched;
}

enum { RUN_PASS = 0, RUN_FAIL = 1, RUN_UNSUPPORTED = 2 };
/* opts.tile_m / opts.splits for run_case (0: the path chooses; set only around the
 * pinned oracle cases below) */
static int g_case_tile_m, g_case_splits;
/* the cluster-K cases (ck_cases): g_case_frag, b converted on the host to
 * TETRA_SCALE_FRAGMENT_128X64 for the device calls (the oracle reads the standard copy, same
 * values); g_case_ck_twin, the call once more with the cluster-K mode pinned to 0 (the
 * ordinary split path), whose whole D blob must equal the first call's byte for byte */
static int g_case_frag, g_case_ck_twin;

/* gemm_sm90.cu (internal, for this test): v7.7 cluster-K's mode, the pin of it (returns 0 where
 * the build lacks it), its launches so far, and the clusters of S CTAs resident at once (BF16
 * standard-weight instance at tile bt, current device) */
int tetra_gemm_t_ck_mode(void);
int tetra_gemm_t_ck_pin(int mode);
long long tetra_gemm_t_ck_launches(void);
int tetra_gemm_t_ck_resident_clusters(int bt, int S);

/* TETRA_GEMM_TEST_HASH=1 prints an FNV-1a hash of every output (D's elements, padding
 * excluded): the same test file built against two library trees compares their kernels'
 * outputs bit for bit (diff the "hash" lines; the inputs are seeded). */
static void print_hash(const char *what, tetra_gemm_path path, int64_t m, int64_t n, int64_t k, int64_t l,
                       tetra_dtype d, const void *p, size_t bytes) {
    const char *env = getenv("TETRA_GEMM_TEST_HASH");
    uint64_t h = 1469598103934665603ull;
    if (!env || !atoi(env)) return;
    for (size_t i = 0; i < bytes; i++) h = (h ^ ((const uint8_t *)p)[i]) * 1099511628211ull;
    printf("  hash %-9s %s M=%lld N=%lld K=%lld L=%lld d=%s %016llx\n", path_name(path), what, (long long)m,
           (long long)n, (long long)k, (long long)l, tu_dtype_name(d), (unsigned long long)h);
}

/* Run one case on `path`, compare to ref (FP64, packed [l, m, n]); ref NULL: compute it
 * with the CPU oracle. */
static int run_case(tetra_context *ctx, tetra_gemm_path path, const gcase *c, uint64_t seed) {
    tetra_rng rng;
    operand A, B;
    dlayout dl = d_layout(c);
    tetra_matrix hd, gd;
    tu_devbuf dd, dbias = {0}, dfrag = {0}, dfsc = {0};
    float *hbias = NULL;
    uint8_t *hblob, *hblob2, *out;
    double *ref;
    int64_t count = c->l * c->m * c->n;
    tetra_gemm_options o = tetra_gemm_options_default();
    tetra_status st;
    tetra_err_stats s, fl;
    int rc = RUN_PASS, padding_ok, same;
    double slack = gate_slack(c->d_dtype, c->k);

    rng.s = seed;
    if (!make_nvfp4(&B, &rng, c->n, c->k, c->l, c->layout, c->padded, 0.02f)) return RUN_FAIL;
    if (c->a_dtype == TETRA_DTYPE_NVFP4) {
        if (!make_nvfp4(&A, &rng, c->m, c->k, c->l, c->layout, c->padded, 1.0f)) return RUN_FAIL;
    } else {
        make_dense(&A, &rng, c->a_dtype, c->m, c->k, c->l, c->padded);
    }
    if (g_case_frag) {
        const size_t fb = tetra_nvfp4_fragment_bytes(c->n, c->k) * (size_t)c->l;
        const size_t sb = tetra_nvfp4_scale_bytes(c->n, c->k, TETRA_SCALE_FRAGMENT_128X64) * (size_t)c->l;
        void *hf = tu_xmalloc(fb), *hs = tu_xmalloc(sb);
        tetra_matrix fm = tetra_matrix_nvfp4(hf, hs, TETRA_SCALE_FRAGMENT_128X64, c->n, c->k, 0.0f);
        fm.batch = c->l;
        if (tetra_convert_weights_host(&B.h, &fm) != TETRA_OK) {
            fprintf(stderr, "convert_weights_host: %s\n", tetra_last_error());
            free(hf);
            free(hs);
            free_operand(&A);
            free_operand(&B);
            return RUN_FAIL;
        }
        dfrag = tu_dev_alloc(fb, 0);
        dfsc = tu_dev_alloc(sb, 0);
        tu_dev_upload(&dfrag, hf, fb);
        tu_dev_upload(&dfsc, hs, sb);
        B.g = fm;
        B.g.data = dfrag.ptr;
        B.g.scales = dfsc.ptr;
        free(hf);
        free(hs);
    }
    if (c->dev_gscale) {
        use_dev_gscale(&B);
        if (c->a_dtype == TETRA_DTYPE_NVFP4) use_dev_gscale(&A);
    }
    if (c->bias) {
        uint16_t *b16 = (uint16_t *)malloc((size_t)c->n * 4);
        float *b32 = (float *)b16;
        hbias = (float *)malloc((size_t)c->n * sizeof(float));
        for (int64_t i = 0; i < c->n; i++) {
            float v = (float)(0.5 * tetra_rng_normal(&rng));
            if (c->bias_dtype == TETRA_DTYPE_FP32) b32[i] = v;
            else v = from16(c->bias_dtype, b16[i] = to16(c->bias_dtype, v));
            hbias[i] = v;
        }
        dbias = tu_dev_alloc((size_t)c->n * dsize(c->bias_dtype), 0);
        tu_dev_upload(&dbias, b16, (size_t)c->n * dsize(c->bias_dtype));
        free(b16);
        o.bias = dbias.ptr;
        o.bias_dtype = c->bias_dtype;
    }
    o.alpha = c->alpha;
    o.path = path;
    o.tile_m = g_case_tile_m;
    o.splits = g_case_splits;

    /* oracle */
    ref = (double *)malloc((size_t)count * sizeof(double));
    hblob = (uint8_t *)malloc(dl.bytes);
    hblob2 = (uint8_t *)malloc(dl.bytes);
    out = (uint8_t *)malloc((size_t)count * dsize(c->d_dtype));
    hd = tetra_matrix_dense(c->d_dtype, hblob, c->m, c->n);
    hd.ld = dl.ldd;
    hd.batch = c->l;
    hd.batch_stride = dl.bs;
    if (tetra_gemm_host(&A.h, &B.h, &hd, c->alpha, hbias, ref, 0) != TETRA_OK) {
        fprintf(stderr, "oracle: %s\n", tetra_last_error());
        rc = RUN_FAIL;
        goto done;
    }

    dd = tu_dev_alloc(dl.bytes, 0xFF);
    gd = hd;
    gd.data = dd.ptr;
    st = tetra_gemm(ctx, &A.g, &B.g, &gd, &o);
    if (st == TETRA_ERR_UNSUPPORTED) {
        printf("  %-9s unsupported: %s\n", path_name(path), tetra_last_error());
        rc = RUN_UNSUPPORTED;
        tu_dev_free(&dd);
        goto done;
    }
    CHECK_MSG(st == TETRA_OK, "tetra_gemm: %s", tetra_last_error());
    tu_dev_download(&dd, hblob, dl.bytes);
    padding_ok = unpack_d(c, &dl, hblob, out);
    CHECK_MSG(padding_ok, "D padding was written");
    /* repeat: bit-identical */
    cudaMemset(dd.ptr, 0xFF, dl.bytes);
    st = tetra_gemm(ctx, &A.g, &B.g, &gd, &o);
    CHECK(st == TETRA_OK);
    tu_dev_download(&dd, hblob2, dl.bytes);
    same = memcmp(hblob, hblob2, dl.bytes) == 0;
    CHECK_MSG(same, "two runs differ");
    if (g_case_ck_twin) {
        /* cluster-K's twin: the ordinary split path (mode pinned to 0), then the pin back to 2 */
        const long long before = tetra_gemm_t_ck_launches();
        tetra_gemm_t_ck_pin(0);
        cudaMemset(dd.ptr, 0xFF, dl.bytes);
        st = tetra_gemm(ctx, &A.g, &B.g, &gd, &o);
        tetra_gemm_t_ck_pin(2);
        CHECK_MSG(st == TETRA_OK, "twin: %s", tetra_last_error());
        CHECK_MSG(tetra_gemm_t_ck_launches() == before, "the twin ran cluster-K");
        tu_dev_download(&dd, hblob2, dl.bytes);
        CHECK_MSG(memcmp(hblob, hblob2, dl.bytes) == 0, "cluster-K and the ordinary split path differ");
        same = same && memcmp(hblob, hblob2, dl.bytes) == 0;
    }
    CHECK(tu_dev_check_guards(&dd, "d"));
    tu_dev_free(&dd);

    print_hash("case", path, c->m, c->n, c->k, c->l, c->d_dtype, out, (size_t)count * dsize(c->d_dtype));
    s = tetra_err_compare(ref, out, (int)c->d_dtype, count, 0);
    fl = tetra_err_dtype_floor(ref, c->d_dtype, count);
    {
        int pass = tetra_err_pass(&s, &fl, 2.0, slack) && padding_ok && same && st == TETRA_OK;
        printf("  %-9s M=%-5lld N=%-5lld K=%-5lld L=%lld a=%-5s %-4s d=%s%s%s alpha=%g%s%s  "
               "norm %.2e (floor %.2e) maxrel %.2e (floor %.2e) p99 %.2e  %s\n",
               path_name(path), (long long)c->m, (long long)c->n, (long long)c->k, (long long)c->l,
               tu_dtype_name(c->a_dtype), c->layout ? "swz" : "lin", tu_dtype_name(c->d_dtype),
               c->bias ? " bias=" : "", c->bias ? tu_dtype_name(c->bias_dtype) : "", (double)c->alpha,
               c->dev_gscale ? " gdev" : "", c->padded == 2 ? " padded16" : c->padded ? " padded" : "", s.normwise, fl.normwise,
               s.max_rel, fl.max_rel, s.rel_p99, pass ? "PASS" : "FAIL");
        CHECK_MSG(tetra_err_pass(&s, &fl, 2.0, slack), "error gate");
        if (!pass) rc = RUN_FAIL;
    }
done:
    free(ref); free(hblob); free(hblob2); free(out); free(hbias);
    if (dbias.base) tu_dev_free(&dbias);
    if (dfrag.base) tu_dev_free(&dfrag);
    if (dfsc.base) tu_dev_free(&dfsc);
    free_operand(&A);
    free_operand(&B);
    return rc;
}

/* The gate must catch a real defect: take the oracle's own BF16 output, perturb one
 * element by 2% of max|ref| (a missing K-block does far more), and expect a FAIL. */
static void gate_catches_defect(void) {
    tetra_rng rng = {7};
    enum { n = 4096 };
    static double ref[n];
    static uint16_t out[n];
    tetra_err_stats s, fl;
    double mx = 0;
    for (int i = 0; i < n; i++) {
        ref[i] = tetra_rng_normal(&rng);
        out[i] = tetra_f32_to_bf16((float)ref[i]);
        mx = fmax(mx, fabs(ref[i]));
    }
    fl = tetra_err_dtype_floor(ref, TETRA_DTYPE_BF16, n);
    s = tetra_err_compare(ref, out, TETRA_DTYPE_BF16, n, 0);
    CHECK(tetra_err_pass(&s, &fl, 2.0, 1e-5));
    out[123] = tetra_f32_to_bf16((float)(ref[123] + 0.02 * mx));
    s = tetra_err_compare(ref, out, TETRA_DTYPE_BF16, n, 0);
    CHECK_MSG(!tetra_err_pass(&s, &fl, 2.0, 1e-5), "gate passed a 2%% defect");
}

/* Large shape: the path's BF16 and FP32 outputs against the GPU reference path's FP32. */
static int g_sm90; /* the device runs the wgmma path */

static void pinned_case(tetra_context *ctx, tetra_gemm_path path, int64_t M, int64_t N, int64_t K,
                        tetra_dtype a_dtype, int tile_m, int splits) {
    tetra_rng rng = {2024};
    operand A, B;
    tu_devbuf dref, dout;
    tetra_matrix gref, gout;
    tetra_gemm_options o = tetra_gemm_options_default();
    float *href = (float *)malloc((size_t)(M * N) * 4);
    double *ref = (double *)malloc((size_t)(M * N) * 8);
    void *hout = malloc((size_t)(M * N) * 4);
    uint16_t *hout16 = (uint16_t *)malloc((size_t)(M * N) * 2);
    tetra_status st;
    const tetra_dtype outs[2] = {TETRA_DTYPE_BF16, TETRA_DTYPE_FP32};

    make_nvfp4(&B, &rng, N, K, 1, TETRA_SCALE_SWIZZLED_128X4, 0, 0.02f);
    if (a_dtype == TETRA_DTYPE_NVFP4) make_nvfp4(&A, &rng, M, K, 1, TETRA_SCALE_SWIZZLED_128X4, 0, 1.0f);
    else make_dense(&A, &rng, a_dtype, M, K, 1, 0);
    dref = tu_dev_alloc((size_t)(M * N) * 4, 0xFF);
    gref = tetra_matrix_dense(TETRA_DTYPE_FP32, dref.ptr, M, N);
    o.path = TETRA_PATH_REFERENCE;
    st = tetra_gemm(ctx, &A.g, &B.g, &gref, &o);
    if (st == TETRA_ERR_UNSUPPORTED) {
        printf("  large %lldx%lldx%lld: SKIPPED: the GPU reference path is unsupported (%s)\n",
               (long long)M, (long long)N, (long long)K, tetra_last_error());
        goto done;
    }
    CHECK_MSG(st == TETRA_OK, "reference: %s", tetra_last_error());
    tu_dev_download(&dref, href, (size_t)(M * N) * 4);
    for (int64_t i = 0; i < M * N; i++) ref[i] = href[i];
    for (int t = 0; t < 2; t++) {
        tetra_err_stats s, fl;
        size_t bytes = (size_t)(M * N) * dsize(outs[t]);
        int pass;
        dout = tu_dev_alloc(bytes, 0xFF);
        gout = tetra_matrix_dense(outs[t], dout.ptr, M, N);
        o.path = path;
        o.tile_m = tile_m;
        o.splits = splits;
        st = tetra_gemm(ctx, &A.g, &B.g, &gout, &o);
        o.tile_m = o.splits = 0;
        if (st == TETRA_ERR_UNSUPPORTED) {
            printf("  %-9s large: unsupported: %s\n", path_name(path), tetra_last_error());
            /* a pinned configuration of a path this device runs must be taken */
            CHECK_MSG(!(tile_m || splits) || (is_sm90_path(path) && !g_sm90), "pinned configuration refused");
            tu_dev_free(&dout);
            break;
        }
        CHECK_MSG(st == TETRA_OK, "%s", tetra_last_error());
        tu_dev_download(&dout, hout, bytes);
        if (tile_m || splits || path == TETRA_PATH_WGMMA_T || path == TETRA_PATH_AUTO) {
            /* a pinned configuration, and the transposed kernel's and AUTO's own choices
             * (split counts by shape), repeat bit for bit */
            void *again = malloc(bytes);
            o.tile_m = tile_m;
            o.splits = splits;
            CHECK_MSG(tetra_gemm(ctx, &A.g, &B.g, &gout, &o) == TETRA_OK, "%s", tetra_last_error());
            o.tile_m = o.splits = 0;
            tu_dev_download(&dout, again, bytes);
            CHECK_MSG(memcmp(again, hout, bytes) == 0, "%s tile_m %d splits %d: repeat differs", path_name(path),
                      tile_m, splits);
            free(again);
        }
        if (path == TETRA_PATH_WGMMA_T && splits > 1) {
            /* the transposed kernel sums split-K partials in its last CTA per tile when the
             * workspace also holds the tile counters; a user workspace of exactly the
             * partials leaves no room, so the reduce kernel runs: same adds, same order,
             * same bits (D poisoned first, so a run that writes nothing cannot pass) */
            const size_t wsb = (size_t)splits * (size_t)(M * N) * 4;
            void *ws = NULL, *again = malloc(bytes);
            CHECK(cudaMalloc(&ws, wsb) == cudaSuccess);
            CHECK(cudaMemset(dout.ptr, 0xFF, bytes) == cudaSuccess);
            CHECK(tetra_context_set_workspace(ctx, ws, wsb) == TETRA_OK);
            o.tile_m = tile_m;
            o.splits = splits;
            CHECK_MSG(tetra_gemm(ctx, &A.g, &B.g, &gout, &o) == TETRA_OK, "%s", tetra_last_error());
            o.tile_m = o.splits = 0;
            tu_dev_download(&dout, again, bytes);
            CHECK(cudaDeviceSynchronize() == cudaSuccess);
            CHECK(tetra_context_set_workspace(ctx, NULL, 0) == TETRA_OK);
            cudaFree(ws);
            CHECK_MSG(memcmp(again, hout, bytes) == 0, "tile_m %d splits %d: the reduce kernel and the in-kernel reduce differ",
                      tile_m, splits);
            free(again);
        }
        CHECK(tu_dev_check_guards(&dout, "large d"));
        tu_dev_free(&dout);
        print_hash(splits ? "pinned" : "large", path, M, N, K, 1, outs[t], hout, bytes);
        if (outs[t] == TETRA_DTYPE_BF16) memcpy(hout16, hout, bytes);
        if (path == TETRA_PATH_WGMMA_T && outs[t] == TETRA_DTYPE_FP32) {
            /* both outputs are the same FP32 value (scale, bias), rounded or not: the BF16
             * one must be the FP32 one rounded, bit for bit, although the two went through
             * different staging code (stmatrix of 16-bit pairs, scalar FP32 stores; under
             * split-K the same reduce kernel) */
            int64_t bad = 0;
            for (int64_t i = 0; i < M * N; i++) bad += tetra_f32_to_bf16(((const float *)hout)[i]) != hout16[i];
            CHECK_MSG(bad == 0, "BF16 D is not the FP32 D rounded in %lld elements", (long long)bad);
        }
        s = tetra_err_compare(ref, hout, (int)outs[t], M * N, 0);
        fl = tetra_err_dtype_floor(ref, outs[t], M * N);
        /* the reference's own FP32 rounding doubles the FP32 floor: the factor 2 covers it */
        pass = tetra_err_pass(&s, &fl, 2.0, gate_slack(outs[t], K));
        printf("  %-9s large M=%lld N=%lld K=%lld a=%s tile_m %d splits %d d=%s vs GPU reference: norm %.2e "
               "(floor %.2e) maxrel %.2e (floor %.2e) %s\n",
               path_name(path), (long long)M, (long long)N, (long long)K, tu_dtype_name(a_dtype), tile_m, splits,
               tu_dtype_name(outs[t]), s.normwise, fl.normwise, s.max_rel, fl.max_rel, pass ? "PASS" : "FAIL");
        CHECK_MSG(pass, "large-shape gate");
    }
done:
    tu_dev_free(&dref);
    free(href); free(ref); free(hout); free(hout16);
    free_operand(&A);
    free_operand(&B);
}

static void large_case(tetra_context *ctx, tetra_gemm_path path, int64_t M, int64_t N, int64_t K,
                       tetra_dtype a_dtype) {
    pinned_case(ctx, path, M, N, K, a_dtype, 0, 0);
}

/* v7.7, cluster-K (build switch TETRA_GEMM_T_CK; gemm_sm90.cu): the K-splits of one output tile
 * in one cluster, summed from its shared memory. Each case pinned to BT 64 / 128 and S splits
 * with the mode pinned to 2 (everywhere), against the FP64 oracle (D poisoned, padding, repeat)
 * and byte for byte against its twin (the same call with the mode pinned to 0: the ordinary
 * split path, the reduce kernel or at 2 splits the last CTA's reduce). Standard (swizzled and
 * linear scales) and fragment-ordered weights; S = 2, 3, 4, 8, 16; M = 1, 37, 64, 100 (M <= BT /
 * 2: the half-tile A loads); N = 768, 2048, 1003 (not a multiple of 128 nor of 4); K = 6144 and
 * 4000 (63 K-tiles: uneven splits, a K tail); L = 2; bias; padded D. Where the device can keep a
 * cluster of S resident the calls must have taken cluster-K (the launch count; S = 16 needs 16
 * free SMs of one GPC: logged). Own seeds; under TETRA_TEST_QUICK the N = 2048 and K = 6144 x
 * M >= 37 cases are left out. Built without the switch: skipped. */
static void ck_cases(tetra_context *ctx, uint64_t seed) {
    enum { BF = TETRA_DTYPE_BF16, H = TETRA_DTYPE_FP16, F32 = TETRA_DTYPE_FP32 };
    static const int64_t cc[][13] = {
        /* M, N, K, L, tile_m, splits, frag, A, D, bias dtype + 1 (0: none), padded, swizzled, quick */
        {64, 768, 6144, 1, 64, 16, 1, BF, BF, 0, 0, 1, 1},     /* glm5 tp8 q */
        {64, 2048, 6144, 1, 64, 8, 1, BF, BF, 0, 0, 1, 0},     /* glm5 tp8 */
        {1, 768, 6144, 1, 64, 16, 0, BF, F32, 0, 0, 1, 1},
        {37, 2048, 6144, 1, 64, 4, 0, H, H, 1 + BF, 1, 0, 0}, /* linear scales: the lanes' cp.asyncs */
        {100, 768, 6144, 1, 128, 8, 1, BF, BF, 0, 0, 1, 1},
        {100, 2048, 6144, 1, 128, 2, 0, BF, F32, 0, 0, 1, 0},
        {37, 1003, 4000, 1, 64, 3, 1, BF, BF, 0, 0, 1, 1},
        {64, 1003, 4000, 2, 64, 16, 0, BF, BF, 0, 2, 1, 1},
        {100, 768, 4000, 2, 128, 3, 1, H, F32, 0, 0, 1, 1},
        {1, 2048, 6144, 1, 128, 4, 1, BF, BF, 0, 0, 1, 1},
        {64, 768, 6144, 1, 128, 16, 0, BF, BF, 0, 0, 1, 0},
        {37, 768, 6144, 1, 64, 2, 1, BF, F32, 1 + F32, 0, 1, 1},
        {100, 1003, 4000, 1, 128, 16, 1, BF, BF, 0, 1, 1, 1}};
    if (!tetra_gemm_t_ck_pin(2)) {
        printf("  cluster-K (TETRA_GEMM_T_CK): not built, its cases skipped\n");
        return;
    }
    if (g_sm90) { /* a log line: clusters of S CTAs resident at once, BT 64 / 128 */
        for (int bt = 64; bt <= 128; bt *= 2) {
            printf("  cluster-K clusters resident at once, BT %d, S = 2..16:", bt);
            for (int S = 2; S <= 16; S++) printf(" %d", tetra_gemm_t_ck_resident_clusters(bt, S));
            printf("\n");
        }
    }
    for (size_t i = 0; i < sizeof cc / sizeof cc[0]; i++) {
        gcase c = {0};
        long long before;
        int rc;
        if (tu_quick() && !cc[i][12]) continue;
        c.m = cc[i][0];
        c.n = cc[i][1];
        c.k = cc[i][2];
        c.l = cc[i][3];
        c.a_dtype = (tetra_dtype)cc[i][7];
        c.d_dtype = (tetra_dtype)cc[i][8];
        c.bias = cc[i][9] != 0;
        c.bias_dtype = c.bias ? (tetra_dtype)(cc[i][9] - 1) : TETRA_DTYPE_FP32;
        c.padded = (int)cc[i][10];
        c.layout = cc[i][11] ? TETRA_SCALE_SWIZZLED_128X4 : TETRA_SCALE_LINEAR;
        c.alpha = i % 3 == 1 ? 0.375f : 1.0f;
        g_case_tile_m = (int)cc[i][4];
        g_case_splits = (int)cc[i][5];
        g_case_frag = (int)cc[i][6];
        g_case_ck_twin = 1;
        printf("  cluster-K case %d: tile_m %d splits %d %s weights\n", (int)i, g_case_tile_m, g_case_splits,
               g_case_frag ? "fragment" : "standard");
        before = tetra_gemm_t_ck_launches();
        rc = run_case(ctx, TETRA_PATH_WGMMA_T, &c, seed + 700 + (uint64_t)i);
        g_case_tile_m = g_case_splits = g_case_frag = g_case_ck_twin = 0;
        if (!g_sm90) {
            CHECK_MSG(rc == RUN_UNSUPPORTED || rc == RUN_PASS, "cluster-K case %d", (int)i);
            continue;
        }
        CHECK_MSG(rc == RUN_PASS, "cluster-K case %d", (int)i);
        {
            const long long taken = tetra_gemm_t_ck_launches() - before; /* the call and its repeat */
            const int must = tetra_gemm_t_ck_resident_clusters((int)cc[i][4], (int)cc[i][5]) > 0;
            printf("    cluster-K launches %lld%s\n", taken, must ? "" : " (no cluster of S resident here)");
            CHECK_MSG(!must || taken == 2, "cluster-K case %d: not taken (%lld launches)", (int)i, taken);
        }
    }
    tetra_gemm_t_ck_pin(-1);
}

/* opts.batch_invariant: row m of D is bit-identical for every M (AUTO path, so across the
 * M = 16 GEMV/GEMM boundary and the wgmma tile/split choices); pins the path cannot take
 * are refused. */
static void batch_invariant_case(tetra_context *ctx) {
    const int64_t MMAX = 300, N = 520, K = 2048;
    const int64_t ms[] = {1, 2, 16, 17, 64, 65, 129, 299};
    tetra_rng rng = {77};
    operand A, B;
    tu_devbuf dfull = tu_dev_alloc((size_t)(MMAX * N) * 2, 0xFF), dpart;
    tetra_matrix gfull = tetra_matrix_dense(TETRA_DTYPE_BF16, dfull.ptr, MMAX, N), gpart, Am;
    tetra_gemm_options o = tetra_gemm_options_default();
    uint16_t *full = (uint16_t *)malloc((size_t)(MMAX * N) * 2), *part = (uint16_t *)malloc((size_t)(MMAX * N) * 2);
    make_nvfp4(&B, &rng, N, K, 1, TETRA_SCALE_SWIZZLED_128X4, 0, 0.02f);
    make_dense(&A, &rng, TETRA_DTYPE_BF16, MMAX, K, 1, 0);
    o.batch_invariant = 1;
    CHECK_MSG(tetra_gemm(ctx, &A.g, &B.g, &gfull, &o) == TETRA_OK, "%s", tetra_last_error());
    tu_dev_download(&dfull, full, (size_t)(MMAX * N) * 2);
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        int64_t diff = 0;
        Am = A.g;
        Am.rows = ms[i];
        dpart = tu_dev_alloc((size_t)(ms[i] * N) * 2, 0xFF);
        gpart = tetra_matrix_dense(TETRA_DTYPE_BF16, dpart.ptr, ms[i], N);
        CHECK_MSG(tetra_gemm(ctx, &Am, &B.g, &gpart, &o) == TETRA_OK, "%s", tetra_last_error());
        tu_dev_download(&dpart, part, (size_t)(ms[i] * N) * 2);
        CHECK(tu_dev_check_guards(&dpart, "batch-invariant d"));
        tu_dev_free(&dpart);
        for (int64_t j = 0; j < ms[i] * N; j++) diff += part[j] != full[j];
        printf("  batch-invariant: M=%lld rows vs the same rows of M=%lld: %lld of %lld values differ %s\n",
               (long long)ms[i], (long long)MMAX, (long long)diff, (long long)(ms[i] * N), diff ? "FAIL" : "PASS");
        CHECK_MSG(diff == 0, "batch-invariant mode: row values depend on M = %lld", (long long)ms[i]);
    }
    /* pins: AUTO + pin and batch_invariant + split are argument errors; pins the path
     * cannot take are refused */
    o = tetra_gemm_options_default();
    o.tile_m = 64;
    CHECK_ERR(tetra_gemm(ctx, &A.g, &B.g, &gfull, &o), TETRA_ERR_INVALID_ARGUMENT, "opts.path");
    o.path = TETRA_PATH_WGMMA;
    o.batch_invariant = 1;
    o.tile_m = 0;
    o.splits = 2;
    CHECK_ERR(tetra_gemm(ctx, &A.g, &B.g, &gfull, &o), TETRA_ERR_INVALID_ARGUMENT, "batch_invariant");
    o.batch_invariant = 0;
    o.splits = 17;
    CHECK(tetra_gemm(ctx, &A.g, &B.g, &gfull, &o) == TETRA_ERR_UNSUPPORTED);
    o.splits = 0;
    o.tile_m = 96;
    CHECK(tetra_gemm(ctx, &A.g, &B.g, &gfull, &o) == TETRA_ERR_UNSUPPORTED);
    o.path = TETRA_PATH_MMA_SYNC;
    o.tile_m = 0;
    o.splits = 2;
    CHECK_ERR(tetra_gemm(ctx, &A.g, &B.g, &gfull, &o), TETRA_ERR_UNSUPPORTED, "one configuration");
    CHECK(tu_dev_check_guards(&dfull, "batch-invariant d"));
    tu_dev_free(&dfull);
    free(full); free(part);
    free_operand(&A);
    free_operand(&B);
}

/* The small/medium case list: every A type x D dtype x scale layout on two small shapes,
 * then the odd shapes with rotating variants (bias dtypes, alpha, device global scales,
 * padded strides, L = 3). */
static int build_cases(gcase *cs) {
    static const int64_t odd[][3] = {
        {1, 129, 64},     {17, 100, 48},   {100, 255, 16},   {129, 17, 4112},  {255, 1000, 4096},
        {1000, 255, 4112}, {1000, 1000, 64}, {129, 129, 4096}, {17, 1000, 4112}, {255, 129, 48},
        {1000, 17, 16},   {100, 100, 4096},
        /* wgmma configurations (gemm_sm90.cu choose_config): BM = 64 with split-K (8, 4),
         * BM = 256 (M >= 256) with split-K 4, BM = 128 with split-K 16 */
        {64, 520, 2048},  {1, 300, 1024},  {1000, 512, 1024}, {128, 200, 4096},
        /* [17]: W4A4 with L = 3 and a host global scale: wgmma through the staging of A */
        {96, 264, 640},   {257, 300, 2048},
        /* K = 32 (half a K-tile), N = 200 (not a multiple of 128), and M past one 256-token
         * tile with K = 4128 (a multiple of 32, not of 64) */
        {100, 200, 32},   {513, 1000, 4128}, {1, 200, 96}};
    static const tetra_dtype at[3] = {TETRA_DTYPE_BF16, TETRA_DTYPE_FP16, TETRA_DTYPE_NVFP4};
    static const tetra_dtype dt[3] = {TETRA_DTYPE_BF16, TETRA_DTYPE_FP16, TETRA_DTYPE_FP32};
    int n = 0;
    for (int s = 0; s < 2; s++)
        for (int a = 0; a < 3; a++)
            for (int d = 0; d < 3; d++)
                for (int lay = 0; lay < 2; lay++) {
                    gcase c = {0};
                    c.m = s ? 200 : 33;
                    c.n = s ? 136 : 65;
                    c.k = s ? 320 : 96;
                    c.l = s ? 3 : 1;
                    c.a_dtype = at[a];
                    c.d_dtype = dt[d];
                    c.layout = (tetra_scale_layout)lay;
                    c.alpha = 1.0f;
                    c.padded = s; /* the batched ones with gaps everywhere */
                    c.bias = (a + d + lay) % 2;
                    c.bias_dtype = dt[(a + lay) % 3];
                    c.dev_gscale = (d + lay) % 2;
                    cs[n++] = c;
                }
    for (int i = 0; i < (int)(sizeof odd / sizeof odd[0]); i++) {
        gcase c = {0};
        c.m = odd[i][0];
        c.n = odd[i][1];
        c.k = odd[i][2];
        c.l = (i % 4 == 1) ? 3 : 1;
        c.a_dtype = at[i % 3];
        c.d_dtype = dt[(i / 3) % 3];
        c.layout = (tetra_scale_layout)((i / 2) % 2);
        c.bias = i % 3 != 2;
        c.bias_dtype = dt[(i + 1) % 3];
        c.alpha = (i % 2) ? 0.375f : 1.0f;
        c.dev_gscale = i % 4 >= 2;
        c.padded = i % 5 == 3;
        cs[n++] = c;
    }
    {
        /* D rows 16-byte aligned but padded, N not a multiple of 8 (4 for FP32): the
         * transposed kernel's vector row stores with a partial last chunk, and D's padding
         * next to them (M, N, K, L, A, D, bias dtype) */
        static const int64_t al[][7] = {{300, 201, 1024, 3, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16},
                                        {513, 100, 2048, 1, TETRA_DTYPE_FP16, TETRA_DTYPE_FP16, TETRA_DTYPE_FP32},
                                        {257, 203, 512, 2, TETRA_DTYPE_NVFP4, TETRA_DTYPE_FP32, TETRA_DTYPE_FP16},
                                        /* batched with the transposed kernel's in-kernel 2-split
                                         * reduce at BT = 256 (10 K-tiles: at most 2 splits, 8 CTAs:
                                         * choose_config_t takes 2), swizzled scales */
                                        {300, 201, 640, 2, TETRA_DTYPE_FP16, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32}};
        for (int i = 0; i < (int)(sizeof al / sizeof al[0]); i++) {
            gcase c = {0};
            c.m = al[i][0];
            c.n = al[i][1];
            c.k = al[i][2];
            c.l = al[i][3];
            c.a_dtype = (tetra_dtype)al[i][4];
            c.d_dtype = (tetra_dtype)al[i][5];
            c.layout = (tetra_scale_layout)(i % 2);
            c.bias = 1;
            c.bias_dtype = (tetra_dtype)al[i][6];
            c.alpha = i == 1 ? 0.375f : 1.0f;
            c.padded = 2;
            cs[n++] = c;
        }
    }
    return n;
}

int main(void) {
    tetra_context *ctx = tu_gpu_or_skip(NAME);
    tetra_device_info info;
    static gcase cs[80];
    int ncases = build_cases(cs);
    const tetra_gemm_path paths[3] = {TETRA_PATH_MMA_SYNC, TETRA_PATH_WGMMA, TETRA_PATH_WGMMA_T};
    uint64_t seed = 1234;
    const char *only = getenv("TETRA_GEMM_TEST_ONLY");
    const int only_t = only && strcmp(only, "wgmma_t") == 0;

    tetra_device_info_get(tetra_context_device(ctx), &info);
    g_sm90 = info.major == 9;
    printf("%s: %s sm_%d%d, seed %llu, %d cases per path\n", NAME, info.name, info.major, info.minor,
           (unsigned long long)seed, ncases);
    gate_catches_defect();

    for (int p = 0; p < 3; p++) {
        int ran = 0, unsupported = 0;
        if (only_t && paths[p] != TETRA_PATH_WGMMA_T) continue;
        for (int i = 0; i < ncases; i++) {
            int rc = run_case(ctx, paths[p], &cs[i], seed + (uint64_t)i);
            if (rc == RUN_UNSUPPORTED && i > 0 && !path_must_take(paths[p], &cs[i])) {
                unsupported++; /* documented limit of this path: the dispatcher falls back */
                continue;
            }
            if (rc == RUN_UNSUPPORTED) {
                unsupported++;
                if (i == 0) {
                    printf("%s: %s path SKIPPED (unsupported on this device/build)\n", NAME,
                           path_name(paths[p]));
                    break;
                }
                /* after the first case, the fast paths must take every aligned problem */
                CHECK_MSG(0, "%s refused case %d", path_name(paths[p]), i);
            } else {
                ran++;
            }
        }
        if (ran == 0) continue;
        if (tu_quick()) {
            printf("  large cases skipped (TETRA_TEST_QUICK)\n");
            continue;
        }
        large_case(ctx, paths[p], 2048, 4096, 4096, TETRA_DTYPE_BF16);
        large_case(ctx, paths[p], 2048, 4096, 4096, TETRA_DTYPE_NVFP4);
        large_case(ctx, paths[p], 1000, 4096, 4112, TETRA_DTYPE_FP16);
        /* K a multiple of 32 but not of 64, M and N not multiples of the tiles (wgmma takes it) */
        large_case(ctx, paths[p], 1000, 4000, 4128, TETRA_DTYPE_FP16);
        /* the small-M wgmma configurations at bench shapes: BM = 64 + split-K 8, BM = 128 + split-K 8 */
        large_case(ctx, paths[p], 64, 4096, 4096, TETRA_DTYPE_BF16);
        large_case(ctx, paths[p], 128, 4096, 7168, TETRA_DTYPE_BF16);
    }
    /* the dispatcher's own routes at sizes where the transposed kernel's token tile
     * changes (BT 256 from M = 129; W4A4 through staging) */
    if (!only_t && !tu_quick()) {
        large_case(ctx, TETRA_PATH_AUTO, 2048, 4096, 4096, TETRA_DTYPE_NVFP4);
        large_case(ctx, TETRA_PATH_AUTO, 1000, 4000, 4128, TETRA_DTYPE_FP16);
        large_case(ctx, TETRA_PATH_AUTO, 256, 1000, 2048, TETRA_DTYPE_BF16);
        large_case(ctx, TETRA_PATH_AUTO, 255, 1000, 2048, TETRA_DTYPE_BF16);
    }

    /* the transposed kernel's configurations, pinned: the 256-token tile (x 128 weight
     * rows) unsplit and split (odd and maximal), W4A4 through staging with a split, tails in
     * M, N (392: not a multiple of 128) and K (2080: a multiple of 32, not of 64) with FP16,
     * and K-tile counts (14, 23, 33) that wrap every ring mid-way (the 256-token tile runs
     * v10.1: A 4 stages, W tiles 4, raw 6), a single K-tile and 3 K-tiles (fewer than the
     * raw producer's lead of 4 and than the A stages it may issue ahead). 2-CTA
     * clusters along N: odd weight-tile counts (520, 264, 300: the last pair's second CTA
     * lies past N), token halves partly or wholly past M (130, 40; 129: one row in the
     * second CTA's half), one weight tile (8: the pair's second CTA has no row) */
    {
        static const int64_t t_pins[][5] = {
            /* M, N, K, tile_m, splits */
            {200, 520, 2048, 256, 1}, {200, 520, 2048, 0, 3},   {200, 520, 2048, 256, 16},
            {600, 392, 2080, 256, 1}, {600, 392, 2080, 256, 3}, {300, 264, 64, 256, 1},
            {300, 264, 864, 256, 1},  {130, 300, 1472, 256, 1}, {40, 300, 1472, 256, 5},
            {129, 136, 1472, 256, 3}, {256, 8, 640, 256, 1},  {300, 264, 192, 256, 1},
            /* BT = 64 and 128 (m64n64k16 / m64n128k16; A rings of 8 / 6 stages, raw rings of
             * 24 / 20): unsplit, odd and maximal splits; M = 1, 63, 65 (a second token tile
             * of one row: its second cluster half wholly past M), 100, 129; N = 200 and 8
             * (a pair with one weight row); K = 32 (half a K-tile), 4128 (65 K-tiles: odd,
             * wraps every ring mid-way) and 1472 (23) */
            {1, 200, 4128, 64, 1},    {63, 200, 2048, 64, 3},   {65, 520, 2048, 64, 1},
            {100, 200, 32, 64, 1},    {64, 264, 1472, 64, 16},  {33, 8, 640, 64, 1},
            {100, 392, 2080, 128, 2}, {129, 200, 4128, 128, 5}, {128, 520, 864, 128, 1},
            {128, 136, 1472, 128, 3}, {65, 200, 4128, 128, 16}, {1, 200, 96, 128, 1},
            /* split-K reduced in the kernel's last CTA per tile at 2 splits (fused, checked
             * against the reduce kernel bit for bit; 3 and 16 splits take the reduce kernel in
             * both runs): M = 17 and 128; N % 4 != 0 (its element path: 198, 202), N tails */
            {17, 202, 1472, 64, 2},   {128, 264, 4128, 128, 16}, {64, 198, 2048, 64, 2},
            {65, 198, 2048, 128, 3},  {128, 7168, 2048, 128, 2}, {1, 264, 2048, 64, 16}};
        for (size_t i = 0; i < sizeof t_pins / sizeof t_pins[0]; i++)
            pinned_case(ctx, TETRA_PATH_WGMMA_T, t_pins[i][0], t_pins[i][1], t_pins[i][2],
                        i == 3 || i == 18 ? TETRA_DTYPE_FP16 : TETRA_DTYPE_BF16, (int)t_pins[i][3],
                        (int)t_pins[i][4]);
        pinned_case(ctx, TETRA_PATH_WGMMA_T, 200, 520, 2048, TETRA_DTYPE_NVFP4, 256, 3);
        pinned_case(ctx, TETRA_PATH_WGMMA_T, 600, 392, 2080, TETRA_DTYPE_FP16, 256, 2);
        /* W4A4 (A staged in BF16) at BT = 64 and 128, split and not; FP16 A at BT = 64 */
        pinned_case(ctx, TETRA_PATH_WGMMA_T, 100, 520, 2048, TETRA_DTYPE_NVFP4, 128, 3);
        pinned_case(ctx, TETRA_PATH_WGMMA_T, 40, 520, 2048, TETRA_DTYPE_NVFP4, 64, 1);
        pinned_case(ctx, TETRA_PATH_WGMMA_T, 63, 392, 2080, TETRA_DTYPE_FP16, 64, 4);
        /* v7 with linear scales (the raw producer warp's per-lane scale loads: 4-byte
         * cp.asyncs, and byte loads for unaligned rows when padded) at split ranges of odd
         * length starting at odd K-tiles (TETRA_GEMM_V7_STAGE_KT = 2: stages count from the
         * range's start; a last stage of one K-tile), against the CPU oracle: 33 x 200 x 1472
         * at BT 64, 3 splits (K-tiles 0-6, 7-14, 15-22); 100 x 264 x 2080, L = 2, at BT 128, 5
         * splits (0-5, 6-12, 13-18, 19-25, 26-32; K % 128 == 32) */
        {
            static const int64_t lc[][8] = {/* M, N, K, L, tile_m, splits, A, D */
                                            {33, 200, 1472, 1, 64, 3, TETRA_DTYPE_BF16, TETRA_DTYPE_FP16},
                                            {100, 264, 2080, 2, 128, 5, TETRA_DTYPE_FP16, TETRA_DTYPE_BF16}};
            for (size_t i = 0; i < sizeof lc / sizeof lc[0]; i++) {
                gcase c = {0};
                c.m = lc[i][0];
                c.n = lc[i][1];
                c.k = lc[i][2];
                c.l = lc[i][3];
                c.a_dtype = (tetra_dtype)lc[i][6];
                c.d_dtype = (tetra_dtype)lc[i][7];
                c.layout = TETRA_SCALE_LINEAR;
                c.bias = 1;
                c.bias_dtype = TETRA_DTYPE_FP32;
                c.alpha = 1.0f;
                c.padded = (int)i; /* the second: unaligned scale rows */
                g_case_tile_m = (int)lc[i][4];
                g_case_splits = (int)lc[i][5];
                CHECK_MSG(run_case(ctx, TETRA_PATH_WGMMA_T, &c, seed + 600 + (uint64_t)i) == RUN_PASS || !g_sm90,
                          "v7 linear-scale pinned case %d", (int)i);
            }
            g_case_tile_m = g_case_splits = 0;
        }
        /* v7.7: the splits reduced in the cluster (build switch TETRA_GEMM_T_CK) */
        ck_cases(ctx, seed);
        /* v10.8, the persistent BT-256 kernel (BT 256, 16-bit D, no split, more units than
         * clusters, D and its pitches 16-byte aligned for the TMA store; ctest's
         * gpu_gemm_persistent runs these with TETRA_GEMM_SS_CLUSTERS=3, which makes every
         * cluster walk many units and leaves the last round ragged; at the default cluster
         * count they are too small and run v10.3). Against the CPU oracle, pinned to
         * BT 256 / 1 split (the cost rule takes BT 128 at these sizes): units across batch
         * entries, FP16 and BF16 D, padded D (odd ld: v10.3's element stores; 16-byte rows:
         * the TMA store), N = 520 (the store clips a half tile and skips whole ones),
         * linear scales (the transform warp loads the raw ring), 1 and 2 K-tiles per unit
         * (fewer than the A and W rings hold), NVFP4 A, bias, alpha, device global scale;
         * FP32 D with the same pins stays on v10.3 */
        {
            static const int64_t pc[][11] = {
                /* M, N, K, L, A, D, scale layout, padded, bias, bias dtype, dev gscale */
                {600, 520, 320, 2, TETRA_DTYPE_BF16, TETRA_DTYPE_FP16, 1, 2, 1, TETRA_DTYPE_FP32, 0},
                {520, 264, 448, 3, TETRA_DTYPE_FP16, TETRA_DTYPE_BF16, 0, 1, 1, TETRA_DTYPE_BF16, 1},
                {700, 1000, 64, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP16, 1, 0, 0, TETRA_DTYPE_FP32, 0},
                {300, 600, 96, 2, TETRA_DTYPE_NVFP4, TETRA_DTYPE_BF16, 0, 2, 1, TETRA_DTYPE_FP16, 0},
                {600, 520, 320, 2, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1, 2, 1, TETRA_DTYPE_FP32, 0}};
            g_case_tile_m = 256;
            g_case_splits = 1;
            for (size_t i = 0; i < sizeof pc / sizeof pc[0]; i++) {
                gcase c = {0};
                c.m = pc[i][0];
                c.n = pc[i][1];
                c.k = pc[i][2];
                c.l = pc[i][3];
                c.a_dtype = (tetra_dtype)pc[i][4];
                c.d_dtype = (tetra_dtype)pc[i][5];
                c.layout = (tetra_scale_layout)pc[i][6];
                c.padded = (int)pc[i][7];
                c.bias = (int)pc[i][8];
                c.bias_dtype = (tetra_dtype)pc[i][9];
                c.alpha = i % 2 ? 0.375f : 1.0f;
                c.dev_gscale = (int)pc[i][10];
                CHECK_MSG(run_case(ctx, TETRA_PATH_WGMMA_T, &c, seed + 500 + (uint64_t)i) == RUN_PASS ||
                              !g_sm90,
                          "persistent-kernel pinned case %d", (int)i);
            }
            g_case_tile_m = g_case_splits = 0;
        }
        /* the persistent kernel at scale (GPU reference): 48 units (1000 x 3000: 4 token tiles, the last of
         * 232 rows; 12 weight-tile pairs, the last CTA's rows partly past N; 17 K-tiles: the
         * rings wrap mid-unit; v10.3 unless the clusters are capped) and 96 (2000 x 3000,
         * FP16 A: more than an H200's 66 resident clusters, so the persistent kernel with a
         * ragged second round at the default count); each with FP32 D too (v10.3), 1000 x 3000 also
         * pinned to 2 splits (v10.3, the in-kernel reduce); the 96-unit one not under
         * TETRA_TEST_QUICK (sanitizer runs) */
        pinned_case(ctx, TETRA_PATH_WGMMA_T, 1000, 3000, 1088, TETRA_DTYPE_BF16, 256, 1);
        pinned_case(ctx, TETRA_PATH_WGMMA_T, 1000, 3000, 1088, TETRA_DTYPE_BF16, 256, 2);
        if (!tu_quick()) pinned_case(ctx, TETRA_PATH_WGMMA_T, 2000, 3000, 1088, TETRA_DTYPE_FP16, 256, 1);
        /* the transposed kernel's own choice (BT by M, split-K by the cost rule and, since
         * session 26, cluster-K where its estimate is cheaper), at the bench shapes of issue 5
         * scaled down in N (64 x 4096 x 4096: BT 64, 32 CTAs, 3 splits as cluster-K;
         * 128 x 7168 x 2048: cluster-K BT 128 with 2 splits, over the rules' unsplit BT 64; on
         * the H200's resident clusters, docs/notes/dispatch-ck.py), and AUTO itself there
         * (M >= 17 routes to this kernel on sm_90) */
        large_case(ctx, TETRA_PATH_WGMMA_T, 64, 4096, 4096, TETRA_DTYPE_BF16);
        large_case(ctx, TETRA_PATH_WGMMA_T, 128, 7168, 2048, TETRA_DTYPE_BF16);
        if (!tu_quick()) {
            large_case(ctx, TETRA_PATH_AUTO, 64, 4096, 4096, TETRA_DTYPE_BF16);
            large_case(ctx, TETRA_PATH_AUTO, 128, 4096, 4096, TETRA_DTYPE_BF16);
            large_case(ctx, TETRA_PATH_AUTO, 64, 7168, 2048, TETRA_DTYPE_FP16);
            large_case(ctx, TETRA_PATH_AUTO, 128, 7168, 2048, TETRA_DTYPE_NVFP4);
        }
        if (g_sm90) { /* pins it does not have are refused */
            tetra_rng rng = {5};
            operand A, B;
            tu_devbuf dd = tu_dev_alloc(64 * 128 * 2, 0xFF);
            tetra_matrix gd = tetra_matrix_dense(TETRA_DTYPE_BF16, dd.ptr, 64, 128);
            tetra_gemm_options o = tetra_gemm_options_default();
            make_nvfp4(&B, &rng, 128, 256, 1, TETRA_SCALE_LINEAR, 0, 0.02f);
            make_dense(&A, &rng, TETRA_DTYPE_BF16, 64, 256, 1, 0);
            o.path = TETRA_PATH_WGMMA_T;
            o.tile_m = 96; /* it has 64, 128 and 256 */
            CHECK_ERR(tetra_gemm(ctx, &A.g, &B.g, &gd, &o), TETRA_ERR_UNSUPPORTED, "tile_m");
            o.tile_m = 0;
            o.splits = 5; /* K = 256: 4 K-tiles */
            CHECK_ERR(tetra_gemm(ctx, &A.g, &B.g, &gd, &o), TETRA_ERR_UNSUPPORTED, "splits");
            o.splits = 17;
            CHECK_ERR(tetra_gemm(ctx, &A.g, &B.g, &gd, &o), TETRA_ERR_UNSUPPORTED, "splits");
            CHECK(tu_dev_check_guards(&dd, "refused d"));
            tu_dev_free(&dd);
            free_operand(&A);
            free_operand(&B);
        }
    }
    if (only_t) {
        tetra_context_destroy(ctx);
        return tu_finish(NAME);
    }

    /* every configuration the wgmma launcher can pick, pinned, against the GPU reference:
     * all three tiles, no split, odd and maximal splits; then the mma.sync's one configuration */
    {
        static const int pins[][2] = {{64, 1},   {64, 3},  {64, 16},  {128, 1},
                                      {128, 2},  {128, 16}, {256, 1}, {256, 2}, {256, 16}};
        for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++)
            pinned_case(ctx, TETRA_PATH_WGMMA, 200, 520, 2048, TETRA_DTYPE_BF16, pins[i][0], pins[i][1]);
        /* W4A4 through the staging of A, with a split */
        pinned_case(ctx, TETRA_PATH_WGMMA, 200, 520, 2048, TETRA_DTYPE_NVFP4, 64, 3);
        /* the 256 x 128 tile over several M tiles with tails in M, N (not a multiple of 128)
         * and K (a multiple of 32, not of 64), FP16 A, unsplit and split */
        pinned_case(ctx, TETRA_PATH_WGMMA, 600, 392, 2080, TETRA_DTYPE_FP16, 256, 1);
        pinned_case(ctx, TETRA_PATH_WGMMA, 600, 392, 2080, TETRA_DTYPE_BF16, 256, 3);
        /* K-tile counts that are not multiples of any ring length (A: 4/5/6 stages, raw B:
         * 5/8, B tiles: 3), so every ring wraps mid-way, and a single K-tile (v6 keeps ring
         * slots and phases as running counters) */
        pinned_case(ctx, TETRA_PATH_WGMMA, 300, 264, 64, TETRA_DTYPE_BF16, 256, 1);
        pinned_case(ctx, TETRA_PATH_WGMMA, 300, 264, 864, TETRA_DTYPE_BF16, 256, 1);
        pinned_case(ctx, TETRA_PATH_WGMMA, 130, 300, 864, TETRA_DTYPE_FP16, 128, 1);
        pinned_case(ctx, TETRA_PATH_WGMMA, 40, 300, 1472, TETRA_DTYPE_BF16, 64, 1);
        pinned_case(ctx, TETRA_PATH_WGMMA, 300, 264, 1472, TETRA_DTYPE_BF16, 256, 5);
        pinned_case(ctx, TETRA_PATH_MMA_SYNC, 200, 520, 2048, TETRA_DTYPE_BF16, 128, 1);
        /* the GEMV's split-K counts (K = 2048: at most 4 splits of 4 segments) */
        for (int s = 1; s <= 4; s *= 2) pinned_case(ctx, TETRA_PATH_GEMV, 8, 520, 2048, TETRA_DTYPE_BF16, 0, s);
    }
    batch_invariant_case(ctx);

    /* alignment the fast path cannot take is refused with a message, never mis-computed */
    {
        tetra_rng rng = {99};
        operand A, B;
        tu_devbuf dd = tu_dev_alloc(64 * 64 * 2, 0xFF);
        tetra_matrix gd = tetra_matrix_dense(TETRA_DTYPE_BF16, dd.ptr, 64, 64);
        tetra_gemm_options o = tetra_gemm_options_default();
        make_nvfp4(&B, &rng, 64, 48, 1, TETRA_SCALE_LINEAR, 0, 0.02f);
        make_dense(&A, &rng, TETRA_DTYPE_BF16, 65, 48, 1, 0);
        A.g.data = (uint16_t *)A.g.data + 1; /* 2-byte aligned rows; the view is 64 rows */
        A.g.rows = 64;
        o.path = TETRA_PATH_MMA_SYNC;
        CHECK_ERR(tetra_gemm(ctx, &A.g, &B.g, &gd, &o), TETRA_ERR_UNSUPPORTED, "aligned");
        CHECK(tu_dev_check_guards(&dd, "unaligned d"));
        tu_dev_free(&dd);
        free_operand(&A);
        free_operand(&B);
    }

    tetra_context_destroy(ctx);
    return tu_finish(NAME);
}
