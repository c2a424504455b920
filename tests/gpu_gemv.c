/* gpu_gemv.c - the decode path (tetra_gemm with opts.path = TETRA_PATH_GEMV) against the
 * FP64 CPU oracle, with the PROTOCOL.md gate:
 *   pass iff tetra_err_pass(&s, &floor, 2.0, slack(K)),  floor = oracle rounded to Y's dtype,
 *   slack(K) = max(K * 2^-26, 1e-6).
 * Why that slack: the kernels accumulate in FP32. The mma path rounds the accumulator once
 * per 16-element K step; with truncation (tensor cores may truncate) each rounding is at
 * most 2^-23 of the running sum, and in the worst (coherent) case these add up to
 * (K/16) * 2^-23 = K * 2^-27 of the result; a factor 2 covers the split-K sums and the
 * epilogue. The scalar path (one RN FMA per element, random signs) is far below that. For
 * BF16/FP16 outputs the dtype floor (~1e-3 / ~3e-4 normwise) dominates; for FP32 outputs the
 * slack does (6e-5 at K = 4096), still 1000x below what a wrong block scale or a dropped
 * K block costs (>= 1e-2).
 *
 * Also: poisoned outputs and untouched padding, sentinel guards, bit-identical repeated
 * runs, pinned split counts 2 / 3 / 8 / 16 (last-CTA and second-launch reduce; the second
 * launch also after the W4A4 staging pass and over several waves), odd segment counts
 * per split (1, 3, 5, 9, 11 segments; a split beginning at an odd segment), batch invariance
 * (M = 16 once, then each row alone with M = 1, memcmp), M = 17
 * refused with UNSUPPORTED, and one call through TETRA_PATH_AUTO.
 * Prepared weights: every case also runs with W converted to TETRA_SCALE_INTERLEAVED_32X128
 * (tetra_convert_weights_host); where the standard W takes the mma kernel (K % 128 == 0,
 * aligned X) the whole Y buffer must be bit-identical to the standard run's, else the
 * interleaved run is gated against the oracle (it takes the mma kernel at any K, or the
 * scalar kernel for unaligned X); repeats and batch invariance are checked for it too.
 * Seed: fixed (TEST_SEED, printed); every case derives its inputs from it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/float16.h"
#include "format/nvfp4_codec.h" /* TETRA_GEMV_IL_PAIRS */
#include "ref/errstats.h"
#include "testutil.h"

#define TEST_SEED 20261130ull

#ifndef TETRA_GEMV_CLUSTER_K /* the build's default cluster-K mode (CMake sets it) */
#define TETRA_GEMV_CLUSTER_K 1
#endif

typedef struct {
    const char *name;
    long long M, N, K, L;
    tetra_dtype xdt;       /* BF16, FP16 or NVFP4 */
    tetra_scale_layout wl; /* W scale layout */
    tetra_scale_layout xl; /* X scale layout (NVFP4 X) */
    tetra_dtype ydt;
    int bias;              /* 0: none, else 1 + bias dtype */
    float alpha;
    int gdev;              /* global scales through device pointers */
    long long xpad;        /* extra elements per X row (dense X); odd multiples of 4 leave the fast path */
    tetra_gemm_path path;
} tcase;

/* One prepared problem: host inputs, the oracle result, device buffers and descriptors. */
typedef struct {
    tcase c;
    long long xld, xbs, yld, ybs;
    size_t wbytes, wsbytes, xbytes, xsbytes, ybytes, esz;
    uint8_t *wq, *ws, *xq, *xs;
    void *xh;       /* dense X bits (BF16/FP16) */
    float *bias_f;  /* bias values, exactly representable in the bias dtype */
    float wg, xg;
    double *ref;    /* L*M*N packed */
    tu_devbuf dw, dws, dx, dxs, dy, db, dg;
    tetra_matrix gx, gw, gy;
    tu_devbuf dwi;     /* W in TETRA_SCALE_INTERLEAVED_32X128 */
    tetra_matrix gwi;
    int use_il;        /* prob_run takes gwi instead of gw */
} prob;

static size_t dtype_bytes(tetra_dtype dt) {
    return dt == TETRA_DTYPE_FP32 ? 4 : 2;
}

static double slack_for(long long K) {
    double s = (double)K * 0x1p-26;
    return s > 1e-6 ? s : 1e-6;
}

static uint16_t to_half_bits(float f, tetra_dtype dt) {
    return dt == TETRA_DTYPE_BF16 ? tetra_f32_to_bf16(f) : tetra_f32_to_f16(f);
}
static float from_half_bits(uint16_t h, tetra_dtype dt) {
    return dt == TETRA_DTYPE_BF16 ? tetra_bf16_to_f32(h) : tetra_f16_to_f32(h);
}

static void prob_free(prob *p) {
    free(p->wq); free(p->ws); free(p->xq); free(p->xs); free(p->xh); free(p->bias_f); free(p->ref);
    tu_dev_free(&p->dw); tu_dev_free(&p->dws); tu_dev_free(&p->dy); tu_dev_free(&p->dg);
    if (p->dwi.base) tu_dev_free(&p->dwi);
    if (p->dx.base) tu_dev_free(&p->dx);
    if (p->dxs.base) tu_dev_free(&p->dxs);
    if (p->db.base) tu_dev_free(&p->db);
}

/* Build inputs from `seed`, run the oracle, upload. Returns 0 on a setup failure. */
static int prob_make(prob *p, const tcase *c, uint64_t seed) {
    tetra_rng rng;
    long long M = c->M, N = c->N, K = c->K, L = c->L;
    float *wf, *xf;
    tetra_matrix hw, hx, hy, src;
    uint8_t *yh;
    memset(p, 0, sizeof *p);
    p->c = *c;
    rng.s = seed;

    /* W: normal with rare 20x outliers, quantized batched (FROM_AMAX) */
    wf = malloc((size_t)(L * N * K) * sizeof *wf);
    for (long long i = 0; i < L * N * K; i++)
        wf[i] = (float)(0.02 * tetra_rng_normal(&rng) * (tetra_rng_uniform(&rng) < 0.001 ? 20 : 1));
    p->wbytes = (size_t)L * tetra_nvfp4_data_bytes(N, K);
    p->wsbytes = (size_t)L * tetra_nvfp4_scale_bytes(N, K, c->wl);
    p->wq = malloc(p->wbytes);
    p->ws = malloc(p->wsbytes);
    src = tetra_matrix_dense(TETRA_DTYPE_FP32, wf, N, K);
    src.batch = L;
    hw = tetra_matrix_nvfp4(p->wq, p->ws, c->wl, N, K, 0.0f);
    hw.batch = L;
    if (tetra_quantize_host(&src, &hw, TETRA_GLOBAL_SCALE_FROM_AMAX) != TETRA_OK) {
        fprintf(stderr, "%s: quantize W: %s\n", c->name, tetra_last_error());
        free(wf);
        return 0;
    }
    free(wf);
    p->wg = hw.global_scale;
    {
        /* the prepared copy, converted on the host (gpu_interleaved.c checks the device
         * conversion writes the same bytes) */
        size_t ib = tetra_nvfp4_interleaved_bytes(N, K) * (size_t)L;
        uint8_t *il = malloc(ib);
        tetra_matrix him = tetra_matrix_nvfp4(il, NULL, TETRA_SCALE_INTERLEAVED_32X128, N, K, 0.0f);
        him.batch = L;
        if (tetra_convert_weights_host(&hw, &him) != TETRA_OK) {
            fprintf(stderr, "%s: convert W: %s\n", c->name, tetra_last_error());
            free(il);
            return 0;
        }
        p->dwi = tu_dev_alloc(ib, 0);
        tu_dev_upload(&p->dwi, il, ib);
        free(il);
    }

    /* X: standard normal; dense X rows padded by xpad (padding is NaN), batches by 24 */
    xf = malloc((size_t)(L * M * K) * sizeof *xf);
    tu_fill_normal(&rng, xf, L * M * K, 1.0f);
    if (c->xdt == TETRA_DTYPE_NVFP4) {
        p->xbytes = (size_t)L * tetra_nvfp4_data_bytes(M, K);
        p->xsbytes = (size_t)L * tetra_nvfp4_scale_bytes(M, K, c->xl);
        p->xq = malloc(p->xbytes);
        p->xs = malloc(p->xsbytes);
        src = tetra_matrix_dense(TETRA_DTYPE_FP32, xf, M, K);
        src.batch = L;
        hx = tetra_matrix_nvfp4(p->xq, p->xs, c->xl, M, K, 0.0f);
        hx.batch = L;
        if (tetra_quantize_host(&src, &hx, TETRA_GLOBAL_SCALE_FROM_AMAX) != TETRA_OK) {
            fprintf(stderr, "%s: quantize X: %s\n", c->name, tetra_last_error());
            free(xf);
            return 0;
        }
        p->xg = hx.global_scale;
    } else {
        uint16_t *xb, nan_bits = c->xdt == TETRA_DTYPE_BF16 ? 0x7FC0 : 0x7E00;
        p->xld = K + c->xpad;
        p->xbs = M * p->xld + (L > 1 ? 24 : 0);
        p->xbytes = (size_t)(L * p->xbs) * 2;
        xb = malloc(p->xbytes);
        for (long long i = 0; i < L * p->xbs; i++) xb[i] = nan_bits;
        for (long long l = 0; l < L; l++)
            for (long long m = 0; m < M; m++)
                for (long long k = 0; k < K; k++)
                    xb[l * p->xbs + m * p->xld + k] = to_half_bits(xf[(l * M + m) * K + k], c->xdt);
        p->xh = xb;
        hx = tetra_matrix_dense(c->xdt, xb, M, K);
        hx.ld = p->xld;
        hx.batch = L;
        hx.batch_stride = p->xbs;
    }
    free(xf);

    if (c->bias) {
        tetra_dtype bdt = (tetra_dtype)(c->bias - 1);
        p->bias_f = malloc((size_t)N * sizeof(float));
        for (long long n = 0; n < N; n++) {
            float v = (float)(0.1 * tetra_rng_normal(&rng));
            p->bias_f[n] = bdt == TETRA_DTYPE_FP32 ? v : from_half_bits(to_half_bits(v, bdt), bdt);
        }
    }

    /* the oracle, packed FP64 */
    p->esz = dtype_bytes(c->ydt);
    p->ref = malloc((size_t)(L * M * N) * sizeof(double));
    yh = malloc((size_t)(L * M * N) * p->esz);
    hy = tetra_matrix_dense(c->ydt, yh, M, N);
    hy.batch = L;
    if (tetra_gemm_host(&hx, &hw, &hy, c->alpha, p->bias_f, p->ref, 0) != TETRA_OK) {
        fprintf(stderr, "%s: oracle: %s\n", c->name, tetra_last_error());
        free(yh);
        return 0;
    }
    free(yh);

    /* device copies */
    p->dw = tu_dev_alloc(p->wbytes, 0);
    tu_dev_upload(&p->dw, p->wq, p->wbytes);
    p->dws = tu_dev_alloc(p->wsbytes, 0);
    tu_dev_upload(&p->dws, p->ws, p->wsbytes);
    p->dx = tu_dev_alloc(p->xbytes, 0);
    tu_dev_upload(&p->dx, c->xdt == TETRA_DTYPE_NVFP4 ? (void *)p->xq : p->xh, p->xbytes);
    if (c->xdt == TETRA_DTYPE_NVFP4) {
        p->dxs = tu_dev_alloc(p->xsbytes, 0);
        tu_dev_upload(&p->dxs, p->xs, p->xsbytes);
    }
    p->dg = tu_dev_alloc(2 * sizeof(float), 0);
    {
        float g[2] = {p->xg, p->wg};
        tu_dev_upload(&p->dg, g, sizeof g);
    }
    if (c->bias) {
        tetra_dtype bdt = (tetra_dtype)(c->bias - 1);
        size_t bsz = dtype_bytes(bdt);
        void *hb = malloc((size_t)N * bsz);
        for (long long n = 0; n < N; n++) {
            if (bdt == TETRA_DTYPE_FP32) ((float *)hb)[n] = p->bias_f[n];
            else ((uint16_t *)hb)[n] = to_half_bits(p->bias_f[n], bdt);
        }
        p->db = tu_dev_alloc((size_t)N * bsz, 0);
        tu_dev_upload(&p->db, hb, (size_t)N * bsz);
        free(hb);
    }
    /* Y: rows padded by 3 elements, batches by 40; all of it poisoned with 0xFF (NaN) */
    p->yld = N + 3;
    p->ybs = M * p->yld + 40;
    p->ybytes = (size_t)(L * p->ybs) * p->esz;
    p->dy = tu_dev_alloc(p->ybytes, 0xFF);

    if (c->xdt == TETRA_DTYPE_NVFP4) {
        p->gx = tetra_matrix_nvfp4(p->dx.ptr, p->dxs.ptr, c->xl, M, K, p->xg);
    } else {
        p->gx = tetra_matrix_dense(c->xdt, p->dx.ptr, M, K);
        p->gx.ld = p->xld;
        p->gx.batch_stride = p->xbs;
    }
    p->gx.batch = L;
    p->gw = tetra_matrix_nvfp4(p->dw.ptr, p->dws.ptr, c->wl, N, K, p->wg);
    p->gw.batch = L;
    p->gwi = tetra_matrix_nvfp4(p->dwi.ptr, NULL, TETRA_SCALE_INTERLEAVED_32X128, N, K, p->wg);
    p->gwi.batch = L;
    if (c->gdev) {
        if (c->xdt == TETRA_DTYPE_NVFP4) p->gx.global_scale_dev = (float *)p->dg.ptr;
        p->gw.global_scale_dev = (float *)p->dg.ptr + 1;
        p->gwi.global_scale_dev = (float *)p->dg.ptr + 1;
        p->gx.global_scale = p->gw.global_scale = p->gwi.global_scale = 0.0f; /* must not be used */
    }
    p->gy = tetra_matrix_dense(c->ydt, p->dy.ptr, M, N);
    p->gy.ld = p->yld;
    p->gy.batch = L;
    p->gy.batch_stride = p->ybs;
    return 1;
}

/* opts.splits for the next runs (0: the kernel's own choice); set around pinned cases only */
static int g_splits;

/* TETRA_GEMV_TEST_HASH=1 prints an FNV-1a hash of every gated output (the L x M x N
 * elements), so two builds (a branch and main, or two compile-time switches) can be
 * compared bit for bit by diffing the "hash" lines: the inputs are seeded, and equal split
 * counts must give equal bits. */
static int g_hash;

static unsigned long long fnv1a(const void *data, size_t n) {
    const unsigned char *b = data;
    unsigned long long h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static tetra_status prob_run(tetra_context *ctx, prob *p, const tetra_matrix *x, tetra_matrix *y) {
    tetra_gemm_options o = tetra_gemm_options_default();
    o.alpha = p->c.alpha;
    o.path = p->c.path;
    o.splits = g_splits;
    if (p->c.bias) {
        o.bias = p->db.ptr;
        o.bias_dtype = (tetra_dtype)(p->c.bias - 1);
    }
    return tetra_gemm(ctx, x, p->use_il ? &p->gwi : &p->gw, y, &o);
}

/* Whether the standard W takes the mma kernel (gemv.cu's fast-path constraints, for the
 * inputs prob_make builds): then the interleaved W must give the same bits. */
static int std_takes_mma(const tcase *c) {
    /* the pairs nibble order (option B) groups other products per mma k-step: gated */
    if (TETRA_GEMV_IL_PAIRS || c->K % 128) return 0;
    return c->xdt == TETRA_DTYPE_NVFP4 || c->xpad % 8 == 0;
}

static int gate_packed(prob *p, const uint8_t *y, const char *what);

/* gemv.cu (internal, for this test): cluster-K's piece count P for an unpinned fast-path
 * call of this shape on ctx now, 0 where the ordinary kernels run */
int tetra_gemv_ck_pieces(tetra_context *ctx, int64_t n, int64_t k, int64_t batch, int w_interleaved, int x_dtype);
/* gemv.cu (internal): clusters of S cluster-K CTAs resident at once on the current device */
int tetra_gemv_ck_resident_clusters(int S);

/* Whether cluster-K must be taken here: mode 2 (TETRA_GEMV_CK=0/1/2, else the build's
 * TETRA_GEMV_CLUSTER_K) on an sm_90+ device; in mode 1 (AUTO) it is taken where its rule says,
 * and every case that takes it is checked the same way. g_sm90: an sm_90+ device. */
static int g_ck_expected, g_sm90;

/* Cluster-K's twin: the unpinned call (cluster-K, P pieces) and the ordinary kernel pinned at
 * opts.splits = P must give the same bits in the whole Y buffer (fresh poisoned buffers, guard
 * bands checked), and the cluster-K output passes the oracle gate and leaves the padding
 * alone; for the standard W (where K % 128 == 0) and the interleaved W. Where cluster-K is
 * expected (g_ck_expected, >= 8 segments) P = 0 fails: the switch must not be silently off. */
static void check_ck_twin(tetra_context *ctx, const tcase *c, uint64_t seed) {
    prob p;
    if (!prob_make(&p, c, seed)) {
        tu_failures++;
        return;
    }
    for (int il = 0; il < 2; il++) {
        const long long nseg = il ? (c->K + 127) / 128 : c->K / 128;
        /* on sm_90+ NVFP4 X with host global scales is staged to BF16 (gemm_api.c) */
        const tetra_dtype kx = c->xdt == TETRA_DTYPE_NVFP4 && !c->gdev && g_sm90 ? TETRA_DTYPE_BF16 : c->xdt;
        int P;
        tu_devbuf d[2];
        uint8_t *y[2];
        tetra_status st[2];
        if (!il && c->K % 128) continue; /* the standard W takes the scalar kernel */
        P = tetra_gemv_ck_pieces(ctx, c->N, c->K, c->L, il, (int)kx);
        if (!P) {
            CHECK_MSG(!(g_ck_expected && nseg >= 8), "%s: cluster-K expected but not taken (%s W)", c->name,
                      il ? "interleaved" : "standard");
            printf("  %-30s %s W: cluster-K not taken here: skipped\n", c->name, il ? "interleaved" : "standard");
            continue;
        }
        p.use_il = il;
        for (int v = 0; v < 2; v++) { /* 0: cluster-K (unpinned), 1: the ordinary kernel pinned at P */
            tetra_matrix gy = p.gy;
            d[v] = tu_dev_alloc(p.ybytes, 0xFF);
            y[v] = malloc(p.ybytes);
            gy.data = d[v].ptr;
            g_splits = v ? P : 0;
            st[v] = prob_run(ctx, &p, &p.gx, &gy);
            g_splits = 0;
            CHECK_MSG(st[v] == TETRA_OK, "%s: %s: %s", c->name, v ? "pinned twin" : "cluster-K", tetra_last_error());
            tu_dev_download(&d[v], y[v], p.ybytes);
            tu_dev_check_guards(&d[v], v ? "pinned twin Y" : "cluster-K Y");
        }
        if (st[0] == TETRA_OK && st[1] == TETRA_OK) {
            const int same = memcmp(y[0], y[1], p.ybytes) == 0;
            char what[64];
            snprintf(what, sizeof what, "cluster-K P=%d %s W", P, il ? "il" : "std");
            gate_packed(&p, y[0], what);
            CHECK_MSG(same, "%s: cluster-K (P = %d, %s W) differs from the kernel pinned at %d splits", c->name, P,
                      il ? "interleaved" : "standard", P);
            printf("  %-30s %s W: cluster-K P=%d vs pinned splits=%d: %s\n", c->name, il ? "interleaved" : "standard",
                   P, P, same ? "bit-identical" : "DIFFERS");
        }
        for (int v = 0; v < 2; v++) {
            free(y[v]);
            tu_dev_free(&d[v]);
        }
        p.use_il = 0;
    }
    prob_free(&p);
}

/* The interleaved twin of a case: Y from the prepared W into a fresh poisoned buffer;
 * bit-identical to the standard run's whole buffer `ystd` where std_takes_mma, else gated. */
static void il_twin(tetra_context *ctx, prob *p, const uint8_t *ystd) {
    const tcase *c = &p->c;
    tu_devbuf dy = tu_dev_alloc(p->ybytes, 0xFF);
    tetra_matrix gy = p->gy;
    uint8_t *y = malloc(p->ybytes);
    tetra_status st;
    gy.data = dy.ptr;
    p->use_il = 1;
    st = prob_run(ctx, p, &p->gx, &gy);
    p->use_il = 0;
    CHECK_MSG(st == TETRA_OK, "%s: interleaved W: %s: %s", c->name, tetra_status_string(st), tetra_last_error());
    if (st == TETRA_OK) {
        tu_dev_download(&dy, y, p->ybytes);
        tu_dev_check_guards(&dy, "interleaved Y");
        if (std_takes_mma(c)) {
            int same = memcmp(y, ystd, p->ybytes) == 0;
            CHECK_MSG(same, "%s: interleaved W output differs from the standard W's", c->name);
            printf("  %-30s interleaved W: %s\n", c->name, same ? "bit-identical" : "DIFFERS");
        } else {
            gate_packed(p, y, "interleaved W (gated)");
        }
        if (g_hash) {
            long long M = c->M, N = c->N, L = c->L;
            uint8_t *packed = malloc((size_t)(L * M * N) * p->esz);
            for (long long l = 0; l < L; l++)
                for (long long m = 0; m < M; m++)
                    memcpy(packed + ((l * M + m) * N) * p->esz, y + (l * p->ybs + m * p->yld) * p->esz,
                           (size_t)N * p->esz);
            printf("  ihash %-29s M=%lld N=%lld K=%lld L=%lld splits=%d %016llx\n", c->name, M, N, c->K, L,
                   g_splits, fnv1a(packed, (size_t)(L * M * N) * p->esz));
            free(packed);
        }
    }
    free(y);
    tu_dev_free(&dy);
}

/* Gate a whole downloaded Y buffer against the oracle and check its padding. */
static int gate_packed(prob *p, const uint8_t *y, const char *what) {
    const tcase *c = &p->c;
    long long M = c->M, N = c->N, L = c->L;
    uint8_t *packed = malloc((size_t)(L * M * N) * p->esz);
    tetra_err_stats s, fl;
    int pad_ok = 1, ok;
    for (long long l = 0; l < L; l++)
        for (long long m = 0; m < M; m++)
            memcpy(packed + ((l * M + m) * N) * p->esz, y + (l * p->ybs + m * p->yld) * p->esz,
                   (size_t)N * p->esz);
    /* everything outside the L x M x N elements must still hold the poison */
    for (long long i = 0; i < L * p->ybs && pad_ok; i++) {
        long long l = i / p->ybs, r = i % p->ybs, m = r / p->yld, n = r % p->yld;
        int inside = l < L && m < M && n < N;
        if (!inside)
            for (size_t b = 0; b < p->esz; b++) pad_ok &= y[(size_t)i * p->esz + b] == 0xFF;
    }
    CHECK_MSG(pad_ok, "%s: %s wrote outside the output elements (row/batch padding)", c->name, what);
    fl = tetra_err_dtype_floor(p->ref, c->ydt, L * M * N);
    s = tetra_err_compare(p->ref, packed, c->ydt, L * M * N, 0);
    ok = tetra_err_pass(&s, &fl, 2.0, slack_for(c->K));
    printf("  %-30s M=%-2lld N=%-5lld K=%-5lld L=%lld  normwise %.2e (floor %.2e) max_rel %.2e "
           "(floor %.2e) p99 %.2e  %s%s%s\n",
           c->name, M, N, c->K, L, s.normwise, fl.normwise, s.max_rel, fl.max_rel, s.rel_p99,
           ok ? "pass" : "FAIL", what[0] ? "  " : "", what);
    CHECK_MSG(ok, "%s: %s outside the gate (slack %.2e)", c->name, what, slack_for(c->K));
    if (g_hash && !what[0])
        printf("  hash %-30s M=%lld N=%lld K=%lld L=%lld splits=%d %016llx\n", c->name, M, N, c->K,
               L, g_splits, fnv1a(packed, (size_t)(L * M * N) * p->esz));
    free(packed);
    return ok;
}

/* Run the case, gate it, check padding and guards, run its interleaved twin; *out
 * receives the whole Y buffer of the standard run. */
static int prob_check(tetra_context *ctx, prob *p, uint8_t **out) {
    const tcase *c = &p->c;
    tetra_status st = prob_run(ctx, p, &p->gx, &p->gy);
    uint8_t *y;
    int ok;
    CHECK_MSG(st == TETRA_OK, "%s: tetra_gemm: %s: %s", c->name, tetra_status_string(st),
              tetra_last_error());
    if (st != TETRA_OK) return 0;
    y = malloc(p->ybytes);
    tu_dev_download(&p->dy, y, p->ybytes);
    tu_dev_check_guards(&p->dy, c->name);
    ok = gate_packed(p, y, "");
    il_twin(ctx, p, y);
    if (out) *out = y;
    else free(y);
    return ok;
}

/* Y of the interleaved W into a fresh poisoned buffer (whole buffer, malloc'ed), or NULL. */
static uint8_t *il_output(tetra_context *ctx, prob *p, const tetra_matrix *x, long long rows) {
    tu_devbuf dy = tu_dev_alloc(p->ybytes, 0xFF);
    tetra_matrix gy = p->gy;
    uint8_t *y = malloc(p->ybytes);
    tetra_status st;
    gy.data = dy.ptr;
    gy.rows = rows;
    if (rows != p->c.M) gy.batch = 1;
    p->use_il = 1;
    st = prob_run(ctx, p, x, &gy);
    p->use_il = 0;
    CHECK_MSG(st == TETRA_OK, "%s: interleaved W: %s", p->c.name, tetra_last_error());
    tu_dev_download(&dy, y, p->ybytes);
    tu_dev_check_guards(&dy, "interleaved Y");
    tu_dev_free(&dy);
    if (st != TETRA_OK) {
        free(y);
        return NULL;
    }
    return y;
}

static void run_case(tetra_context *ctx, const tcase *c, uint64_t seed) {
    prob p;
    if (!prob_make(&p, c, seed)) {
        tu_failures++;
        return;
    }
    prob_check(ctx, &p, NULL);
    prob_free(&p);
}

/* Repeated runs are bit-identical (re-poisoning Y in between). */
static void check_repeat(tetra_context *ctx, const tcase *c, uint64_t seed) {
    prob p;
    uint8_t *first = NULL, *second;
    if (!prob_make(&p, c, seed)) {
        tu_failures++;
        return;
    }
    if (prob_check(ctx, &p, &first)) {
        second = malloc(p.ybytes);
        for (int rep = 0; rep < 3; rep++) {
            tetra_status st;
            tu_dev_free(&p.dy);
            p.dy = tu_dev_alloc(p.ybytes, 0xFF);
            p.gy.data = p.dy.ptr;
            st = prob_run(ctx, &p, &p.gx, &p.gy);
            CHECK(st == TETRA_OK);
            tu_dev_download(&p.dy, second, p.ybytes);
            CHECK_MSG(memcmp(first, second, p.ybytes) == 0, "%s: run %d differs from run 0",
                      c->name, rep + 1);
        }
        printf("  %-30s repeated runs bit-identical: %s\n", c->name,
               memcmp(first, second, p.ybytes) == 0 ? "yes" : "NO");
        free(second);
        {
            uint8_t *i0 = il_output(ctx, &p, &p.gx, c->M), *i1;
            int same = 1;
            for (int rep = 0; rep < 3 && i0; rep++) {
                i1 = il_output(ctx, &p, &p.gx, c->M);
                same &= i1 && memcmp(i0, i1, p.ybytes) == 0;
                free(i1);
            }
            CHECK_MSG(i0 && same, "%s: interleaved W: repeated runs differ", c->name);
            printf("  %-30s interleaved W repeated runs bit-identical: %s\n", c->name, i0 && same ? "yes" : "NO");
            free(i0);
        }
    }
    free(first);
    prob_free(&p);
}

/* Batch invariance: Y row m of the M-row product equals, bit for bit, the product of row m
 * alone (M = 1, X pointer moved to row m). NVFP4 X needs linear scales for the row view. */
static void check_invariance(tetra_context *ctx, const tcase *c, uint64_t seed) {
    prob p;
    uint8_t *full = NULL, *row;
    tu_devbuf d1;
    int bad = 0;
    if (!prob_make(&p, c, seed)) {
        tu_failures++;
        return;
    }
    if (!prob_check(ctx, &p, &full)) {
        free(full);
        prob_free(&p);
        return;
    }
    row = malloc((size_t)c->N * p.esz);
    d1 = tu_dev_alloc((size_t)c->N * p.esz, 0xFF);
    for (long long m = 0; m < c->M; m++) {
        tetra_matrix x1 = p.gx, y1 = tetra_matrix_dense(c->ydt, d1.ptr, 1, c->N);
        tetra_status st;
        x1.rows = 1;
        x1.batch = 1;
        x1.batch_stride = 0;
        if (c->xdt == TETRA_DTYPE_NVFP4) {
            x1.data = (uint8_t *)p.dx.ptr + m * (c->K / 2);
            x1.scales = (uint8_t *)p.dxs.ptr + m * (c->K / 16);
        } else {
            x1.data = (uint8_t *)p.dx.ptr + m * p.xld * 2;
        }
        st = prob_run(ctx, &p, &x1, &y1);
        CHECK_MSG(st == TETRA_OK, "%s: M=1 row %lld: %s", c->name, m, tetra_last_error());
        tu_dev_download(&d1, row, (size_t)c->N * p.esz);
        if (memcmp(row, full + m * p.yld * p.esz, (size_t)c->N * p.esz) != 0) bad++;
    }
    tu_dev_check_guards(&d1, "M=1 output");
    CHECK_MSG(bad == 0, "%s: %d of %lld rows differ between M=%lld and M=1", c->name, bad, c->M,
              c->M);
    printf("  %-30s batch invariance M=%lld vs M=1: %s\n", c->name, c->M, bad ? "DIFFERS" : "bit-identical");
    {
        /* the same with the interleaved W (its own full output: at K % 128 != 0 it takes
         * the mma kernel where the standard W takes the scalar one) */
        uint8_t *ifull = il_output(ctx, &p, &p.gx, c->M);
        int ibad = 0;
        for (long long m = 0; m < c->M && ifull; m++) {
            tetra_matrix x1 = p.gx;
            uint8_t *one;
            x1.rows = 1;
            x1.batch = 1;
            x1.batch_stride = 0;
            if (c->xdt == TETRA_DTYPE_NVFP4) {
                x1.data = (uint8_t *)p.dx.ptr + m * (c->K / 2);
                x1.scales = (uint8_t *)p.dxs.ptr + m * (c->K / 16);
            } else {
                x1.data = (uint8_t *)p.dx.ptr + m * p.xld * 2;
            }
            one = il_output(ctx, &p, &x1, 1);
            if (!one || memcmp(one, ifull + m * p.yld * p.esz, (size_t)c->N * p.esz) != 0) ibad++;
            free(one);
        }
        CHECK_MSG(ifull && ibad == 0, "%s: interleaved W: %d rows differ between M=%lld and M=1", c->name, ibad,
                  c->M);
        printf("  %-30s interleaved W batch invariance: %s\n", c->name, ifull && !ibad ? "bit-identical" : "DIFFERS");
        free(ifull);
    }
    tu_dev_free(&d1);
    free(row);
    free(full);
    prob_free(&p);
}

/* The cluster-K cases (session 16; sm_90+, TETRA_GEMV_CK=2 forces it, ctest
 * gpu_gemv_ck): bit-identical to the ordinary kernel pinned at its piece count P; M = 1, 5, 9,
 * 16, the decode shapes, a ragged N, L = 2, K % 128 != 0 (interleaved W), W4A4 with the staging
 * pass in front (a programmatic dependent cluster launch), clusters of 8, 14 and 16 CTAs. Own
 * seeds (TEST_SEED + 1000 + i), so the hash lines of the other cases stay main's and
 * TETRA_GEMV_TEST_ONLY=ck (these cases alone, e.g. under compute-sanitizer) sees the same
 * inputs. Where cluster-K is off the cases say "skipped". */
static void run_ck_cases(tetra_context *ctx) {
    const tetra_gemm_path G = TETRA_PATH_GEMV;
    const tetra_scale_layout LIN = TETRA_SCALE_LINEAR, SWZ = TETRA_SCALE_SWIZZLED_128X4;
    const tetra_dtype BF = TETRA_DTYPE_BF16, H = TETRA_DTYPE_FP16, F4 = TETRA_DTYPE_NVFP4, F32 = TETRA_DTYPE_FP32;
    {
        const char *ck_env = getenv("TETRA_GEMV_CK");
        tetra_device_info info;
        const int mode = ck_env && ck_env[0] >= '0' && ck_env[0] <= '2' && !ck_env[1] ? ck_env[0] - '0'
                                                                                 : TETRA_GEMV_CLUSTER_K;
        g_sm90 = tetra_device_info_get(tetra_context_device(ctx), &info) == TETRA_OK && info.major >= 9;
        g_ck_expected = mode == 2 && g_sm90;
        printf("gpu_gemv: cluster-K mode %d (%s)\n", mode,
               g_ck_expected ? "everywhere: must be taken" : mode == 1 && g_sm90 ? "AUTO: where its rule says" : "off or not sm_90+");
        if (g_sm90) { /* a log line, no check: cluster residency per S (session 16's open question) */
            printf("gpu_gemv: cluster-K clusters resident at once, S = 1..16:");
            for (int S = 1; S <= 16; S++) printf(" %d", tetra_gemv_ck_resident_clusters(S));
            printf("\n");
        }
        const tcase ck[] = {
            {"ck 1x768x6144", 1, 768, 6144, 1, BF, SWZ, LIN, BF, 0, 1.0f, 0, 0, G},
            {"ck 5x2048x6144 fp16", 5, 2048, 6144, 1, H, LIN, LIN, F32, 1 + TETRA_DTYPE_BF16, 0.5f, 0, 0, G},
            {"ck 9x4096x4096", 9, 4096, 4096, 1, BF, LIN, LIN, F32, 0, 1.0f, 0, 0, G},
            {"ck 16x4096x2048 fp4 gdev", 16, 4096, 2048, 1, F4, SWZ, LIN, BF, 0, 1.0f, 1, 0, G},
            {"ck 1x1000x6144 ragged", 1, 1000, 6144, 1, H, SWZ, LIN, H, 1 + TETRA_DTYPE_FP32, 1.0f, 0, 0, G},
            {"ck 16x1000x4096 ragged", 16, 1000, 4096, 1, BF, LIN, LIN, BF, 0, 1.0f, 0, 0, G},
            {"ck 9x768x4000 tail", 9, 768, 4000, 1, BF, LIN, LIN, F32, 0, 1.0f, 0, 0, G},
            {"ck 1x2048x4000 tail fp4", 1, 2048, 4000, 1, F4, LIN, SWZ, F32, 0, 1.0f, 1, 0, G},
            {"ck 5x1000x2048 L=2", 5, 1000, 2048, 2, BF, SWZ, LIN, F32, 0, 1.0f, 0, 0, G},
            {"ck 16x768x6144 W4A4 staged", 16, 768, 6144, 1, F4, LIN, LIN, BF, 0, 1.0f, 0, 0, G},
            {"ck 1x4096x14336", 1, 4096, 14336, 1, BF, SWZ, LIN, BF, 0, 1.0f, 0, 0, G},
            /* clusters of 8 and, with the non-portable size, 14 and 16 CTAs (on an H200) */
            {"ck 12x512x8192 S=8", 12, 512, 8192, 1, BF, SWZ, LIN, F32, 0, 1.0f, 0, 0, G},
            {"ck 1x768x14336 S=14", 1, 768, 14336, 1, BF, LIN, LIN, BF, 0, 1.0f, 0, 0, G},
            {"ck 3x256x16384 S=16 fp16", 3, 256, 16384, 1, H, SWZ, LIN, F32, 0, 2.0f, 0, 0, G},
        };
        for (size_t i = 0; i < sizeof ck / sizeof ck[0]; i++) {
            if (tu_quick() && !strcmp(ck[i].name, "ck 1x4096x14336")) {
                printf("  %s: skipped (TETRA_TEST_QUICK)\n", ck[i].name);
                continue;
            }
            check_ck_twin(ctx, &ck[i], TEST_SEED + 1000 + i);
        }
    }
}

int main(void) {
    tetra_context *ctx = tu_gpu_or_skip("gpu_gemv");
    const tetra_dtype xdts[3] = {TETRA_DTYPE_BF16, TETRA_DTYPE_FP16, TETRA_DTYPE_NVFP4};
    const tetra_dtype ydts[3] = {TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, TETRA_DTYPE_FP16};
    const tetra_gemm_path G = TETRA_PATH_GEMV;
    const tetra_scale_layout LIN = TETRA_SCALE_LINEAR, SWZ = TETRA_SCALE_SWIZZLED_128X4;
    const tetra_dtype BF = TETRA_DTYPE_BF16, H = TETRA_DTYPE_FP16, F4 = TETRA_DTYPE_NVFP4,
                      F32 = TETRA_DTYPE_FP32;
    uint64_t seed = TEST_SEED;
    const char *hash_env = getenv("TETRA_GEMV_TEST_HASH");
    g_hash = hash_env && hash_env[0] == '1';
    printf("gpu_gemv: seed %llu, interleaved nibble order %s\n", (unsigned long long)TEST_SEED,
           TETRA_GEMV_IL_PAIRS ? "pairs (option B: interleaved runs gated, not bit-compared)" : "natural");
    {
        /* TETRA_GEMV_TEST_ONLY=ck: the cluster-K cases alone (compute-sanitizer runs) */
        const char *only = getenv("TETRA_GEMV_TEST_ONLY");
        if (only && !strcmp(only, "ck")) {
            run_ck_cases(ctx);
            tetra_context_destroy(ctx);
            return tu_finish("gpu_gemv");
        }
    }

    /* every M in 1..16 on (256, 4096) and (4096, 4096), rotating X dtype, layouts, Y dtype */
    for (long long M = 1; M <= 16; M++) {
        for (int s = 0; s < 2; s++) {
            tcase c = {"sweep", M, s ? 4096 : 256, 4096, 1, xdts[(M + s) % 3],
                       (M % 2) ? SWZ : LIN, ((M / 2) % 2) ? SWZ : LIN, ydts[(M / 3 + s) % 3],
                       0, 1.0f, 0, 0, G};
            char name[64];
            snprintf(name, sizeof name, "sweep %s W%s->%s",
                     c.xdt == BF ? "bf16" : c.xdt == H ? "fp16" : "fp4",
                     c.wl == SWZ ? "swz" : "lin",
                     c.ydt == BF ? "bf16" : c.ydt == H ? "fp16" : "fp32");
            c.name = name;
            run_case(ctx, &c, seed++);
        }
    }

    /* every operand/output/layout combination once at (N, K) = (384, 2048), M = 11 */
    for (int xi = 0; xi < 3; xi++)
        for (int yi = 0; yi < 3; yi++)
            for (int wl = 0; wl < 2; wl++) {
                tcase c = {"combo", 11, 384, 2048, 1, xdts[xi], wl ? SWZ : LIN, wl ? LIN : SWZ,
                           ydts[yi], 0, 1.0f, 0, 0, G};
                run_case(ctx, &c, seed++);
            }

    {
        const tcase cases[] = {
            /* odd shapes: K = 16, 48, 4112 and N = 1, 7, 129 (scalar path where K % 128) */
            {"odd K=16", 5, 129, 16, 1, BF, LIN, LIN, F32, 0, 1.0f, 0, 0, G},
            {"odd K=48 fp4 swz", 16, 7, 48, 1, F4, SWZ, SWZ, BF, 0, 1.0f, 0, 0, G},
            {"odd K=4112", 3, 129, 4112, 1, H, SWZ, LIN, H, 0, 1.0f, 0, 0, G},
            {"odd K=4112 fp4", 16, 256, 4112, 1, F4, LIN, SWZ, F32, 0, 1.0f, 0, 0, G},
            {"odd N=1", 1, 1, 4096, 1, BF, LIN, LIN, BF, 0, 1.0f, 0, 0, G},
            {"odd N=1 M=16", 16, 1, 4096, 1, F4, SWZ, LIN, F32, 0, 1.0f, 0, 0, G},
            {"odd N=7", 9, 7, 4096, 1, H, SWZ, LIN, F32, 0, 1.0f, 0, 0, G},
            {"odd N=129", 16, 129, 1024, 1, BF, SWZ, LIN, F32, 0, 1.0f, 0, 0, G},
            {"odd N=129 fp4", 4, 129, 1024, 1, F4, LIN, SWZ, H, 0, 1.0f, 0, 0, G},
            /* X rows not 16-byte aligned: scalar path at a large K */
            {"x ld=K+4 (scalar path)", 7, 300, 4096, 1, BF, LIN, LIN, F32, 0, 1.0f, 0, 4, G},
            {"x ld=K+8 (fast path)", 13, 300, 4096, 1, H, SWZ, LIN, BF, 0, 1.0f, 0, 8, G},
            /* rows g + 8 of X are addressed 8 padded rows past row g (one-segment-ahead loads) */
            {"x ld=K+24 M=16 L=2", 16, 200, 1024, 2, BF, LIN, SWZ, F32, 0, 1.0f, 0, 24, G},
            /* L = 3 with padded batch strides, fast and scalar paths */
            {"L=3 bf16", 6, 1000, 2048, 3, BF, SWZ, LIN, BF, 0, 1.0f, 0, 8, G},
            {"L=3 fp4 swz", 12, 640, 1024, 3, F4, SWZ, SWZ, F32, 0, 1.0f, 0, 0, G},
            {"L=3 fp16 K=80", 16, 33, 80, 3, H, LIN, LIN, H, 0, 1.0f, 0, 0, G},
            /* bias (each dtype), alpha != 1, device global scales */
            {"bias fp32 alpha", 8, 512, 4096, 1, BF, LIN, LIN, F32, 1 + TETRA_DTYPE_FP32, 0.75f, 0, 0, G},
            {"bias bf16 gdev", 16, 512, 4096, 1, F4, SWZ, LIN, BF, 1 + TETRA_DTYPE_BF16, 1.0f, 1, 0, G},
            {"bias fp16 alpha gdev", 3, 512, 2048, 1, H, SWZ, LIN, H, 1 + TETRA_DTYPE_FP16, -2.5f, 1, 0, G},
            {"gdev fp4 L=2", 10, 256, 1024, 2, F4, LIN, SWZ, F32, 0, 0.5f, 1, 0, G},
            {"gdev scalar path", 5, 100, 272, 1, F4, SWZ, SWZ, F32, 1 + TETRA_DTYPE_FP32, 1.5f, 1, 0, G},
            /* the dispatcher sends M <= 16 here */
            {"AUTO path", 4, 1024, 4096, 1, BF, SWZ, LIN, BF, 0, 1.0f, 0, 0, TETRA_PATH_AUTO},
            /* benchmark shapes at M = 1 (the W4A16 decode case) */
            {"decode 14336x4096", 1, 14336, 4096, 1, BF, SWZ, LIN, BF, 0, 1.0f, 0, 0, G},
            {"decode 4096x14336", 8, 4096, 14336, 1, BF, LIN, LIN, F32, 0, 1.0f, 0, 0, G},
            {"decode 7168x16384 fp4", 1, 7168, 16384, 1, F4, SWZ, SWZ, BF, 0, 1.0f, 0, 0, G},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            if (tu_quick() && !strncmp(cases[i].name, "decode", 6)) {
                printf("  %s: skipped (TETRA_TEST_QUICK)\n", cases[i].name);
                continue;
            }
            run_case(ctx, &cases[i], seed++);
        }
    }

    /* pinned split counts: 2 splits reduce in the last CTA, more in gemv_splitk_reduce;
     * both against the oracle, repeat-identical, N not a multiple of the 128-row tile */
    {
        const int pins[] = {2, 3, 8};
        for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
            char name[64];
            tcase c = {NULL, 16, 300, 2048, 1, BF, SWZ, LIN, F32, 1 + TETRA_DTYPE_BF16, 0.5f, 0, 0, G};
            tcase c4 = {NULL, 9, 200, 2048, 2, F4, LIN, SWZ, BF, 0, 1.0f, 1, 0, G};
            g_splits = pins[i];
            snprintf(name, sizeof name, "splits=%d bf16", pins[i]);
            c.name = name;
            check_repeat(ctx, &c, seed++);
            snprintf(name, sizeof name, "splits=%d fp4 L=2", pins[i]);
            c4.name = name;
            run_case(ctx, &c4, seed++);
        }
        g_splits = 0;
    }

    /* odd segment counts per split (K / 128 = 1, 3, 9, 11): a ring that copies segments in
     * pairs would end such a split with half a pair, and a split may begin at an odd
     * segment (S = 2 at K = 1408: segments 0..4 and 5..10); both n-tile loops, every X dtype */
    {
        const struct {
            int splits;
            tcase c;
        } half[] = {
            {1, {"half pair K=1152 S=1", 16, 300, 1152, 1, BF, SWZ, LIN, F32, 0, 1.0f, 0, 0, G}},
            {2, {"half pair K=1408 S=2 fp4", 9, 200, 1408, 1, F4, LIN, SWZ, BF, 0, 1.0f, 1, 0, G}},
            {3, {"half pair K=1152 S=3 fp16", 5, 260, 1152, 2, H, SWZ, LIN, H, 1 + TETRA_DTYPE_FP32, 0.5f, 0, 0, G}},
            {4, {"half pair K=1152 S=4", 3, 129, 1152, 1, BF, LIN, LIN, BF, 0, 1.0f, 0, 0, G}},
            {1, {"one segment K=128", 16, 129, 128, 1, BF, LIN, LIN, F32, 0, 1.0f, 0, 0, G}},
            {1, {"three segments K=384 fp4", 8, 256, 384, 1, F4, SWZ, SWZ, F32, 0, 1.0f, 0, 0, G}},
        };
        for (size_t i = 0; i < sizeof half / sizeof half[0]; i++) {
            g_splits = half[i].splits;
            if (i == 0) check_repeat(ctx, &half[i].c, seed++);
            else run_case(ctx, &half[i].c, seed++);
        }
        g_splits = 0;
    }

    /* determinism */
    {
        const tcase r1 = {"repeat bf16 split-K", 16, 4096, 4096, 1, BF, SWZ, LIN, F32, 0, 1.0f, 0, 0, G};
        const tcase r2 = {"repeat fp4 L=2", 9, 2048, 6144, 2, F4, LIN, SWZ, BF, 0, 1.0f, 1, 0, G};
        const tcase r3 = {"repeat scalar", 16, 129, 4112, 1, H, LIN, LIN, F32, 0, 1.0f, 0, 0, G};
        check_repeat(ctx, &r1, seed++);
        check_repeat(ctx, &r2, seed++);
        check_repeat(ctx, &r3, seed++);
    }

    /* batch invariance */
    {
        const tcase inv[] = {
            {"inv bf16 4096", 16, 4096, 4096, 1, BF, SWZ, LIN, BF, 0, 1.0f, 0, 0, G},
            {"inv fp16 256", 16, 256, 4096, 1, H, LIN, LIN, F32, 1 + TETRA_DTYPE_FP32, 0.5f, 0, 0, G},
            {"inv fp4 4096", 16, 4096, 4096, 1, F4, SWZ, LIN, F32, 0, 1.0f, 1, 0, G},
            {"inv bf16 M=11", 11, 4096, 4096, 1, BF, LIN, LIN, F32, 0, 1.0f, 0, 0, G},
            {"inv scalar K=4112", 16, 129, 4112, 1, BF, LIN, LIN, F32, 0, 1.0f, 0, 0, G},
        };
        for (size_t i = 0; i < sizeof inv / sizeof inv[0]; i++) check_invariance(ctx, &inv[i], seed++);
    }

    /* M = 17 is not the GEMV path's */
    {
        prob p;
        const tcase c17 = {"M=17", 17, 128, 256, 1, BF, LIN, LIN, F32, 0, 1.0f, 0, 0, G};
        if (prob_make(&p, &c17, seed++)) {
            CHECK_ERR(prob_run(ctx, &p, &p.gx, &p.gy), TETRA_ERR_UNSUPPORTED, "M = 17");
            prob_free(&p);
        }
    }
    /* the interleaved W's partial last segment (K % 128 != 0) with NVFP4 X (K % 32 == 0:
     * the mma kernel's whole-chunk tail loads) and BF16 X with two n tiles; last, so the
     * seeds (and hash lines) of every case above stay main's */
    {
        const tcase tails[] = {
            {"tail K=1088 fp4 L=2", 9, 300, 1088, 2, F4, LIN, SWZ, F32, 0, 1.0f, 1, 0, G},
            {"tail K=4160 bf16 bias", 12, 1000, 4160, 1, BF, SWZ, LIN, BF, 1 + TETRA_DTYPE_FP32, 0.5f, 0, 0, G},
            {"tail K=176 fp16 M=16", 16, 129, 176, 1, H, LIN, LIN, F32, 0, 1.0f, 0, 0, G},
        };
        for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) run_case(ctx, &tails[i], seed++);
    }
    /* the split-K reduce kernel as the mma kernel's programmatic dependent (sm_90+, session
     * 10), pinned so that it runs on any device: the W4A4 chain (host global scales: staging
     * pass -> mma kernel -> reduce, each waiting on the one before) with L = 2 and with
     * M <= 8, and a grid of several waves (1792 CTAs: the reduce may only be placed once the
     * last wave has started). Each follows another problem in the workspace, so a reduce
     * that read too early would read stale partials (another problem's). Last: the hash
     * lines above stay main's. */
    {
        const struct {
            int splits;
            tcase c;
        } pdl[] = {
            {8, {"pdl W4A4 S=8 L=2", 9, 200, 2048, 2, F4, LIN, SWZ, BF, 0, 1.0f, 0, 0, G}},
            {3, {"pdl W4A4 S=3 M=4 bias", 4, 300, 1152, 1, F4, SWZ, LIN, F32, 1 + TETRA_DTYPE_BF16, 0.5f, 0, 0, G}},
            {16, {"pdl waves S=16 bf16", 1, 14336, 4096, 1, BF, SWZ, LIN, BF, 0, 1.0f, 0, 0, G}},
        };
        for (size_t i = 0; i < sizeof pdl / sizeof pdl[0]; i++) {
            g_splits = pdl[i].splits;
            if (i == 0) check_repeat(ctx, &pdl[i].c, seed++);
            else run_case(ctx, &pdl[i].c, seed++);
        }
        g_splits = 0;
    }
    run_ck_cases(ctx);
    tetra_context_destroy(ctx);
    return tu_finish("gpu_gemv");
}
