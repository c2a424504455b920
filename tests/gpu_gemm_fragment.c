/* gpu_gemm_fragment.c - tetra_gemm with b in TETRA_SCALE_FRAGMENT_128X64 (prepared,
 * fragment-ordered weights; docs/notes/fragment-layout.md).
 *
 * 1. Pinned wgmma-T configurations (64 / 128 tokens per CTA; no split, 2 splits = the
 *    in-kernel reduce, 3 and 5 = the reduce kernel): the kernel reading the fragment layout
 *    must give exactly the bits it gives on the same weights in the standard swizzled layout
 *    (same values, same block-scale multiply, same wgmma order). Shapes with M tails, odd N,
 *    K % 64 == 32, L = 2; BF16 / FP16 / NVFP4 activations; bias; FP32 and BF16 D. Weights:
 *    every code, rows of +-6, random scale codes with zeros and (in the bit-compare cases) a
 *    NaN code 0x7F. The standard path is itself checked against the FP64 oracle by gpu_gemm.
 * 2. AUTO (the GEMV at M <= 16 where it takes the problem, else v7, 128-token tiles above
 *    M = 64) against the FP64 CPU oracle of the exactly dequantized operands, gated as gpu_gemm
 *    gates.
 * 3. The GEMV reading the layout (gemv_nvfp4_mma_frag; M = 1..16, BF16 a, K % 128 == 0):
 *    pinned GEMV at 1 / 2 / 4 splits (2: the last-CTA reduce, 4: the reduce kernel) and AUTO
 *    against the FP64 oracle, N = 256 / 520 / 1000, K = 512 / 2048, L = 1 / 2; a NaN scale code
 *    makes its row NaN (every token, every batch) and no other output; W4A4 (NVFP4 a, host
 *    global scale) through AUTO; K % 128 != 0: the pinned GEMV refuses naming K, AUTO is still
 *    right (v7 or the reference kernel); FP16 a: the pinned GEMV refuses naming b's layout.
 *    Its bits differ from the standard GEMV's (another k-to-mma-step assignment): no bit
 *    comparison with it.
 *    3b. (build switch TETRA_GEMV_FRAG_X16) its two X loaders, 4-byte and 16-byte loads, give
 *    the same bits at M = 1 / 2 / 8 / 9 / 12 / 16, N not a multiple of 128 (one process: the
 *    threshold pinned through tetra_gemv_frag_x16_pin; ctest gpu_gemm_fragment_x16 also runs
 *    every case above through the 16-byte loader, and AUTO's GEMV up to M = 16 on sm_90).
 *    3c. (build switch TETRA_GEMV_FRAG_CK) its cluster-K variant (gemv_nvfp4_mma_frag_ck): M = 1 /
 *    5 / 9 / 16, N = 768 / 2048 / 1000 / 200, K = 6144 / 4096, L = 2, BF16 a and one W4A4 (staged)
 *    case, with each X loader: against the FP64 oracle and byte-identical to the ordinary
 *    fragment kernel pinned at the same split count (P = 4S). ctest gpu_gemm_fragment_ck forces
 *    it everywhere (TETRA_GEMV_FRAG_CK=2; every case above without pinned splits then runs it);
 *    without the switch the cases say "skipped". TETRA_GEMM_FRAGMENT_TEST_ONLY=gemv runs
 *    sections 3, 3b and 3c alone (sanitizers).
 * 4. Refusals naming b: the wgmma / mma.sync / skinny paths, the GEMV with FP16 a.
 * 5. The BT-256 kernels reading the layout (tile_m 256, AUTO, batch_invariant): bt256_case.
 * Outputs poisoned (0xFF) before every run, guard bytes checked, every run repeated bit for
 * bit. The fragment bytes are built here with the codec's tetra_frag_put (not with
 * tetra_convert_weights, which gpu_fragment tests). Exit 77 without a device; the wgmma-T
 * cases skip where the path is unsupported (not sm_90a). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/float16.h"
#include "format/nvfp4_codec.h"
#include "ref/errstats.h"
#include "ref/rng.h"
#include "testutil.h"

#define NAME "gpu_gemm_fragment"

typedef struct {
    int64_t m, n, k, l;
    tetra_dtype a_dtype, d_dtype;
    int bias, nan_scale;
} fcase;

typedef struct {
    uint8_t *val, *sc, *frag; /* host: standard values [l][n][k/2], swizzled scales, fragment values */
    size_t val_b, sc_b, frag_b; /* per batch */
    tu_devbuf dval, dsc, dsc2, dfrag;
    tetra_matrix std_m, frag_m;
} weights;

static unsigned code_at(const uint8_t *v, int64_t n, int64_t k, int64_t kc) {
    const uint8_t b = v[n * (kc / 2) + k / 2];
    return k % 2 ? b >> 4 : b & 15u;
}

static void make_weights(weights *w, tetra_rng *r, int64_t N, int64_t K, int64_t L, int nan_scale) {
    const int64_t nkb = K / 16;
    w->val_b = (size_t)(N * K / 2);
    w->sc_b = tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_SWIZZLED_128X4);
    w->frag_b = (size_t)tetra_frag_batch_bytes(N, K);
    w->val = (uint8_t *)tu_xmalloc(w->val_b * L);
    w->sc = (uint8_t *)calloc(w->sc_b * L, 1);
    w->frag = (uint8_t *)calloc(w->frag_b * L, 1);
    for (int64_t l = 0; l < L; l++) {
        uint8_t *v = w->val + l * w->val_b, *s = w->sc + l * w->sc_b;
        uint8_t *f = w->frag + l * w->frag_b;
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < K / 2; i++) /* every code; row 3 all +-6 (codes 7 / 15) */
                v[n * (K / 2) + i] = n == 3 ? (uint8_t)(0x77u | (tetra_rng_next(r) & 0x88u)) : (uint8_t)tetra_rng_next(r);
        for (int64_t n = 0; n < N; n++)
            for (int64_t kb = 0; kb < nkb; kb++) {
                const unsigned u = (unsigned)(tetra_rng_next(r) % 40);
                s[tetra_swizzled_offset(n, kb, nkb)] = u < 3 ? 0 : (uint8_t)(0x28 + u); /* 2^-3 .. ~2^1.5, some 0 */
            }
        if (nan_scale) s[tetra_swizzled_offset(N / 2, nkb - 1, nkb)] = 0x7F;
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < K; k++) {
                uint32_t *word = (uint32_t *)(f + tetra_frag_word_offset(n, k, K));
                *word = tetra_frag_put(*word, n, k, code_at(v, n, k, K));
            }
    }
    w->dval = tu_dev_alloc(w->val_b * L, 0);
    w->dsc = tu_dev_alloc(w->sc_b * L, 0);
    w->dsc2 = tu_dev_alloc(w->sc_b * L, 0);
    w->dfrag = tu_dev_alloc(w->frag_b * L, 0);
    tu_dev_upload(&w->dval, w->val, w->val_b * L);
    tu_dev_upload(&w->dsc, w->sc, w->sc_b * L);
    tu_dev_upload(&w->dsc2, w->sc, w->sc_b * L);
    tu_dev_upload(&w->dfrag, w->frag, w->frag_b * L);
    w->std_m = tetra_matrix_nvfp4(w->dval.ptr, w->dsc.ptr, TETRA_SCALE_SWIZZLED_128X4, N, K, 0.5f);
    w->std_m.batch = L;
    w->frag_m = tetra_matrix_nvfp4(w->dfrag.ptr, w->dsc2.ptr, TETRA_SCALE_FRAGMENT_128X64, N, K, 0.5f);
    w->frag_m.batch = L;
}

static void free_weights(weights *w) {
    tu_dev_free(&w->dval);
    tu_dev_free(&w->dsc);
    tu_dev_free(&w->dsc2);
    tu_dev_free(&w->dfrag);
    free(w->val);
    free(w->sc);
    free(w->frag);
}

/* Activations: dense BF16 / FP16 (host copy in `ha` as floats), or NVFP4 with linear scales. */
typedef struct {
    tu_devbuf d, ds;
    tetra_matrix g;
    double *ha; /* dequantized values x global scale, [l][m][k] */
} acts;

static void make_acts(acts *a, tetra_rng *r, tetra_dtype dt, int64_t M, int64_t K, int64_t L) {
    const int64_t cnt = M * K * L;
    a->ha = (double *)tu_xmalloc((size_t)cnt * sizeof(double));
    if (dt == TETRA_DTYPE_NVFP4) {
        uint8_t *v = (uint8_t *)tu_xmalloc((size_t)cnt / 2), *s = (uint8_t *)tu_xmalloc((size_t)cnt / 16);
        for (int64_t i = 0; i < cnt / 2; i++) v[i] = (uint8_t)tetra_rng_next(r);
        for (int64_t i = 0; i < cnt / 16; i++) s[i] = (uint8_t)(0x30 + tetra_rng_next(r) % 16);
        for (int64_t i = 0; i < cnt; i++) {
            const unsigned c = i % 2 ? v[i / 2] >> 4 : v[i / 2] & 15u;
            const double e = tetra_e2m1_magnitude(c & 7u) * (c & 8u ? -1.0 : 1.0);
            a->ha[i] = e * tetra_ue4m3_value(s[i / 16]) * 2.0;
        }
        a->d = tu_dev_alloc((size_t)cnt / 2, 0);
        a->ds = tu_dev_alloc((size_t)cnt / 16, 0);
        tu_dev_upload(&a->d, v, (size_t)cnt / 2);
        tu_dev_upload(&a->ds, s, (size_t)cnt / 16);
        a->g = tetra_matrix_nvfp4(a->d.ptr, a->ds.ptr, TETRA_SCALE_LINEAR, M, K, 2.0f);
        free(v);
        free(s);
    } else {
        void *h = tu_xmalloc((size_t)cnt * 2);
        for (int64_t i = 0; i < cnt; i++) {
            tu_put_dense(h, dt, i, (float)tetra_rng_normal(r));
            a->ha[i] = tu_get_dense(h, dt, i);
        }
        a->d = tu_dev_alloc((size_t)cnt * 2, 0);
        a->ds.ptr = NULL;
        a->ds.base = NULL;
        tu_dev_upload(&a->d, h, (size_t)cnt * 2);
        a->g = tetra_matrix_dense(dt, a->d.ptr, M, K);
        free(h);
    }
    a->g.batch = L;
}

static void free_acts(acts *a) {
    tu_dev_free(&a->d);
    if (a->ds.base) tu_dev_free(&a->ds);
    free(a->ha);
}

/* TETRA_GEMM_FRAGMENT_TEST_HASH=1 prints an FNV-1a hash of every successful run's output, with
 * a running call number: the inputs are seeded, so two builds that must give the same bits
 * (e.g. the GEMV PDL switch, TETRA_GEMV_PDL_ALL) are compared by diffing the "hash" lines. */
static int g_hash = -1;
static long g_calls;

/* One tetra_gemm into a poisoned D; returns the status, the output in `out` (bytes). */
static tetra_status run(tetra_context *ctx, const acts *a, const tetra_matrix *b, tetra_dtype dd, int64_t M,
                        int64_t N, int64_t L, const tetra_gemm_options *o, void *out) {
    const size_t bytes = (size_t)(M * N * L) * tu_dtype_size(dd);
    tu_devbuf d = tu_dev_alloc(bytes, 0xFF);
    tetra_matrix gd = tetra_matrix_dense(dd, d.ptr, M, N);
    tetra_status st;
    gd.batch = L;
    st = tetra_gemm(ctx, &a->g, b, &gd, o);
    if (st == TETRA_OK) {
        tu_dev_download(&d, out, bytes);
        CHECK(tu_dev_check_guards(&d, "d"));
    }
    if (g_hash < 0) {
        const char *e = getenv("TETRA_GEMM_FRAGMENT_TEST_HASH");
        g_hash = e && e[0] == '1';
    }
    g_calls++;
    if (g_hash && st == TETRA_OK) {
        unsigned long long h = 0xcbf29ce484222325ull;
        for (size_t i = 0; i < bytes; i++) h = (h ^ ((const uint8_t *)out)[i]) * 0x100000001b3ull;
        printf("  hash #%ld path %d M=%lld N=%lld L=%lld splits %d %016llx\n", g_calls, (int)o->path, (long long)M,
               (long long)N, (long long)L, o->splits, h);
    }
    tu_dev_free(&d);
    return st;
}

static int g_skip_sm90; /* the wgmma-T path is unsupported here */

/* 1: pinned configurations, fragment vs standard, bit for bit */
static void pinned_cases(tetra_context *ctx, const fcase *c, uint64_t seed) {
    static const int tiles[2] = {64, 128}, splits[5] = {0, 1, 2, 3, 5};
    tetra_rng r = {seed};
    weights w;
    acts a;
    tu_devbuf bias = {0};
    const size_t bytes = (size_t)(c->m * c->n * c->l) * tu_dtype_size(c->d_dtype);
    void *o_std = tu_xmalloc(bytes), *o_frag = tu_xmalloc(bytes), *again = tu_xmalloc(bytes);
    make_weights(&w, &r, c->n, c->k, c->l, c->nan_scale);
    make_acts(&a, &r, c->a_dtype, c->m, c->k, c->l);
    if (c->bias) {
        float *hb = (float *)tu_xmalloc((size_t)c->n * 4);
        for (int64_t i = 0; i < c->n; i++) hb[i] = (float)tetra_rng_normal(&r);
        bias = tu_dev_alloc((size_t)c->n * 4, 0);
        tu_dev_upload(&bias, hb, (size_t)c->n * 4);
        free(hb);
    }
    for (int t = 0; t < 2 && !g_skip_sm90; t++)
        for (int s = 0; s < 5; s++) {
            tetra_gemm_options o = tetra_gemm_options_default();
            tetra_status st;
            o.path = TETRA_PATH_WGMMA_T;
            o.tile_m = tiles[t];
            o.splits = splits[s];
            o.alpha = 0.75f;
            if (c->bias) o.bias = bias.ptr;
            if (splits[s] > (c->k + 63) / 64) continue;
            st = run(ctx, &a, &w.std_m, c->d_dtype, c->m, c->n, c->l, &o, o_std);
            if (st == TETRA_ERR_UNSUPPORTED) {
                printf("  wgmma_t unsupported here (%s): pinned cases skipped\n", tetra_last_error());
                g_skip_sm90 = 1;
                break;
            }
            CHECK_MSG(st == TETRA_OK, "standard: %s", tetra_last_error());
            st = run(ctx, &a, &w.frag_m, c->d_dtype, c->m, c->n, c->l, &o, o_frag);
            CHECK_MSG(st == TETRA_OK, "fragment: %s", tetra_last_error());
            CHECK(run(ctx, &a, &w.frag_m, c->d_dtype, c->m, c->n, c->l, &o, again) == TETRA_OK);
            if (st != TETRA_OK) continue;
            CHECK_MSG(memcmp(o_frag, again, bytes) == 0, "fragment repeat differs");
            CHECK_MSG(memcmp(o_std, o_frag, bytes) == 0,
                      "M=%lld N=%lld K=%lld L=%lld a=%s d=%s tile %d splits %d: fragment layout differs from standard",
                      (long long)c->m, (long long)c->n, (long long)c->k, (long long)c->l, tu_dtype_name(c->a_dtype),
                      tu_dtype_name(c->d_dtype), tiles[t], splits[s]);
        }
    printf("  pinned M=%lld N=%lld K=%lld L=%lld a=%s d=%s bias %d nan %d: fragment == standard bits\n",
           (long long)c->m, (long long)c->n, (long long)c->k, (long long)c->l, tu_dtype_name(c->a_dtype),
           tu_dtype_name(c->d_dtype), c->bias, c->nan_scale);
    if (c->bias) tu_dev_free(&bias);
    free_weights(&w);
    free_acts(&a);
    free(o_std);
    free(o_frag);
    free(again);
}

/* The FP64 reference of the exactly dequantized operands: ref[l][m][n] = alpha * sum_k a.ha *
 * w + (hb ? hb[n] : 0), the k sum in order. A NaN scale code's row gets a finite stand-in
 * (scale 1; its outputs are checked for NaN, oracle_ok). Not tetra_gemm_host (src/ref): that
 * one makes the row NaN and sums in another order. */
static void fp64_ref(const weights *w, const acts *a, int64_t M, int64_t N, int64_t K, int64_t L, double alpha,
                     const double *hb, double *ref) {
    const int64_t nkb = K / 16;
    double *wv = (double *)tu_xmalloc((size_t)(N * K) * 8);
    for (int64_t l = 0; l < L; l++) {
        const uint8_t *v = w->val + l * w->val_b, *sc = w->sc + l * w->sc_b;
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < K; k++) {
                const unsigned c = code_at(v, n, k, K);
                const uint8_t sb = sc[tetra_swizzled_offset(n, k / 16, nkb)];
                wv[n * K + k] = tetra_e2m1_magnitude(c & 7u) * (c & 8u ? -1.0 : 1.0) *
                                (sb == 0x7F ? 1.0 : tetra_ue4m3_value(sb)) * 0.5;
            }
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) {
                double acc = 0.0;
                for (int64_t k = 0; k < K; k++) acc += a->ha[(l * M + m) * K + k] * wv[n * K + k];
                ref[(l * M + m) * N + n] = alpha * acc + (hb ? hb[n] : 0.0);
            }
    }
    free(wv);
}

/* 2: AUTO against the FP64 oracle */
static void auto_case(tetra_context *ctx, int64_t M, int64_t N, int64_t K, int64_t L, tetra_dtype dd,
                      uint64_t seed) {
    tetra_rng r = {seed};
    weights w;
    acts a;
    tetra_gemm_options o = tetra_gemm_options_default();
    const int64_t cnt = M * N * L;
    const size_t bytes = (size_t)cnt * tu_dtype_size(dd);
    void *out = tu_xmalloc(bytes), *again = tu_xmalloc(bytes);
    double *ref = (double *)tu_xmalloc((size_t)cnt * 8);
    tetra_err_stats s, fl;
    int pass;
    make_weights(&w, &r, N, K, L, 0);
    make_acts(&a, &r, TETRA_DTYPE_BF16, M, K, L);
    fp64_ref(&w, &a, M, N, K, L, 1.0, NULL, ref);
    CHECK_MSG(run(ctx, &a, &w.frag_m, dd, M, N, L, &o, out) == TETRA_OK, "AUTO: %s", tetra_last_error());
    CHECK(run(ctx, &a, &w.frag_m, dd, M, N, L, &o, again) == TETRA_OK);
    CHECK_MSG(memcmp(out, again, bytes) == 0, "AUTO repeat differs");
    s = tetra_err_compare(ref, out, (int)dd, cnt, 0);
    fl = tetra_err_dtype_floor(ref, dd, cnt);
    pass = tetra_err_pass(&s, &fl, 2.0, dd == TETRA_DTYPE_FP32 ? 32.0 * ldexp(1.0, -24) * sqrt((double)K) : 1e-5);
    printf("  auto M=%lld N=%lld K=%lld L=%lld d=%s vs FP64 oracle: norm %.2e (floor %.2e) maxrel %.2e (floor %.2e) %s\n",
           (long long)M, (long long)N, (long long)K, (long long)L, tu_dtype_name(dd), s.normwise, fl.normwise,
           s.max_rel, fl.max_rel, pass ? "PASS" : "FAIL");
    CHECK_MSG(pass, "AUTO on fragment weights: oracle gate");
    free_weights(&w);
    free_acts(&a);
    free(out);
    free(again);
    free(ref);
}

/* 3: the GEMV on fragment weights. path AUTO (splits 0) or GEMV (splits pinned 1 / 2 / 4),
 * against the FP64 oracle; nan_scale: row N / 2 has a NaN scale code and must come out NaN
 * (every token and batch), every other output finite and within the gate. a: BF16 or NVFP4
 * (host global scale). expect_k_refusal: K % 128 != 0, the pinned GEMV must refuse naming K. */
static void gemv_case(tetra_context *ctx, int64_t M, int64_t N, int64_t K, int64_t L, tetra_dtype at,
                      tetra_dtype dd, int nan_scale, uint64_t seed) {
    static const int pins[4] = {0, 1, 2, 4}; /* 0: AUTO */
    tetra_rng r = {seed};
    weights w;
    acts a;
    const int64_t cnt = M * N * L;
    const size_t bytes = (size_t)cnt * tu_dtype_size(dd);
    void *out = tu_xmalloc(bytes), *again = tu_xmalloc(bytes);
    double *ref = (double *)tu_xmalloc((size_t)cnt * 8);
    make_weights(&w, &r, N, K, L, nan_scale);
    make_acts(&a, &r, at, M, K, L);
    fp64_ref(&w, &a, M, N, K, L, 1.0, NULL, ref);
    for (int i = 0; i < 4; i++) {
        tetra_gemm_options o = tetra_gemm_options_default();
        tetra_status st;
        tetra_err_stats s, fl;
        int pass, nan_ok = 1;
        if (pins[i]) {
            o.path = TETRA_PATH_GEMV;
            o.splits = pins[i];
            if (pins[i] > 1 && pins[i] > K / 128 / 2) continue; /* at most nseg / 2 splits */
        }
        st = run(ctx, &a, &w.frag_m, dd, M, N, L, &o, out);
        if (pins[i] && K % 128) {
            CHECK_MSG(st == TETRA_ERR_UNSUPPORTED && strstr(tetra_last_error(), "K = "),
                      "GEMV at K = %lld: status %d, %s", (long long)K, (int)st, tetra_last_error());
            continue;
        }
        if (pins[i] && at == TETRA_DTYPE_NVFP4 && st == TETRA_ERR_UNSUPPORTED) {
            /* before sm_90 W4A4 reaches the GEMV without the staging pass: refused */
            printf("  gemv M=%lld N=%lld K=%lld a=NVFP4 pinned: unsupported here (%s)\n", (long long)M,
                   (long long)N, (long long)K, tetra_last_error());
            continue;
        }
        CHECK_MSG(st == TETRA_OK, "%s splits %d: %s", pins[i] ? "GEMV" : "AUTO", pins[i], tetra_last_error());
        if (st != TETRA_OK) continue;
        CHECK(run(ctx, &a, &w.frag_m, dd, M, N, L, &o, again) == TETRA_OK);
        CHECK_MSG(memcmp(out, again, bytes) == 0, "GEMV on fragment weights: repeat differs (splits %d)", pins[i]);
        if (nan_scale) { /* row N / 2 NaN everywhere, nothing else; then the oracle's stand-in */
            for (int64_t l = 0; l < L; l++)
                for (int64_t m = 0; m < M; m++)
                    for (int64_t n = 0; n < N; n++) {
                        const int64_t j = (l * M + m) * N + n;
                        const float y = tu_get_dense(out, dd, j);
                        if ((n == N / 2) != (isnan(y) != 0)) nan_ok = 0;
                        if (n == N / 2) tu_put_dense(out, dd, j, (float)ref[j]);
                    }
            CHECK_MSG(nan_ok, "NaN scale code: row %lld must be NaN, every other output not (splits %d)",
                      (long long)(N / 2), pins[i]);
        }
        s = tetra_err_compare(ref, out, (int)dd, cnt, 0);
        fl = tetra_err_dtype_floor(ref, dd, cnt);
        pass = tetra_err_pass(&s, &fl, 2.0, dd == TETRA_DTYPE_FP32 ? 32.0 * ldexp(1.0, -24) * sqrt((double)K) : 1e-5);
        printf("  gemv M=%lld N=%lld K=%lld L=%lld a=%s d=%s %s %d%s vs FP64 oracle: norm %.2e (floor %.2e) "
               "maxrel %.2e (floor %.2e) %s\n",
               (long long)M, (long long)N, (long long)K, (long long)L, tu_dtype_name(at), tu_dtype_name(dd),
               pins[i] ? "GEMV splits" : "AUTO", pins[i], nan_scale ? (nan_ok ? " nan-row ok" : " nan-row WRONG") : "",
               s.normwise, fl.normwise, s.max_rel, fl.max_rel, pass ? "PASS" : "FAIL");
        CHECK_MSG(pass, "GEMV on fragment weights: oracle gate");
    }
    free_weights(&w);
    free_acts(&a);
    free(out);
    free(again);
    free(ref);
}

/* 5: the BT-256 kernels on fragment weights (the FRAG instances of v10.3 / v10.8; helper
 * v10frag): M = 129..1000, N not a multiple of 256, 1, 2 and >= 17 K-tiles, BF16 / FP16 a,
 * BF16 / FP16 / FP32 D, bias, L = 2, a NaN scale code in some cases. Runs: AUTO; WGMMA_T pinned
 * at tile_m 256 with splits 1 and 2 (2: the in-kernel reduce); batch_invariant (AUTO). Each
 * against the FP64 oracle (alpha 0.75, bias; the NaN row must be NaN at every token and batch,
 * nothing else), each repeated bit for bit, and each bit-identical to the same call on the
 * standard swizzled weights (batch_invariant: to WGMMA_T + batch_invariant on them, the same
 * BT-256 configuration; AUTO: only where AUTO gives fragment weights the standard weights'
 * tile, tetra_gemm_frag_bt256_auto()). batch_invariant also: the first 37 rows of each batch
 * computed alone equal the full product's rows bit for bit. With TETRA_GEMM_SS_CLUSTERS=2 (the
 * ctest entry gpu_gemm_fragment_ss2) the persistent kernel (16-bit D, no split) walks several
 * units per cluster. */
int tetra_gemm_frag_bt256_auto(void); /* src/cuda/gemm_sm90.cu (not a public entry point) */

static int oracle_ok(const double *ref, void *out, tetra_dtype dd, int64_t M, int64_t N, int64_t K, int64_t L,
                     int nan_scale, const char *what) {
    const int64_t cnt = M * N * L;
    tetra_err_stats s, fl;
    int pass, nan_ok = 1;
    if (nan_scale) /* column N / 2 NaN everywhere, nothing else; then the oracle's stand-in */
        for (int64_t j = 0; j < cnt; j++) {
            const int64_t n = j % N;
            const float y = tu_get_dense(out, dd, j);
            if ((n == N / 2) != (isnan(y) != 0)) nan_ok = 0;
            if (n == N / 2) tu_put_dense(out, dd, j, (float)ref[j]);
        }
    s = tetra_err_compare(ref, out, (int)dd, cnt, 0);
    fl = tetra_err_dtype_floor(ref, dd, cnt);
    pass = nan_ok && tetra_err_pass(&s, &fl, 2.0, dd == TETRA_DTYPE_FP32 ? 32.0 * ldexp(1.0, -24) * sqrt((double)K) : 1e-5);
    printf("    %-26s vs FP64 oracle: norm %.2e (floor %.2e) maxrel %.2e (floor %.2e)%s %s\n", what, s.normwise,
           fl.normwise, s.max_rel, fl.max_rel, nan_scale ? (nan_ok ? " nan-row ok" : " nan-row WRONG") : "",
           pass ? "PASS" : "FAIL");
    return pass;
}

static void bt256_case(tetra_context *ctx, const fcase *c, uint64_t seed) {
    enum { RUNS = 4 };
    static const char *names[RUNS] = {"AUTO", "WGMMA_T tile 256 splits 1", "WGMMA_T tile 256 splits 2",
                                      "batch_invariant"};
    const int64_t M = c->m, N = c->n, K = c->k, L = c->l, cnt = M * N * L;
    const size_t bytes = (size_t)cnt * tu_dtype_size(c->d_dtype);
    tetra_rng r = {seed};
    weights w;
    acts a;
    tu_devbuf bias = {0};
    double *hb = NULL;
    void *o_frag = tu_xmalloc(bytes), *o_std = tu_xmalloc(bytes), *again = tu_xmalloc(bytes);
    double *ref = (double *)tu_xmalloc((size_t)cnt * 8);
    make_weights(&w, &r, N, K, L, c->nan_scale);
    make_acts(&a, &r, c->a_dtype, M, K, L);
    if (c->bias) {
        float *hf = (float *)tu_xmalloc((size_t)N * 4);
        hb = (double *)tu_xmalloc((size_t)N * 8);
        for (int64_t i = 0; i < N; i++) hb[i] = hf[i] = (float)tetra_rng_normal(&r);
        bias = tu_dev_alloc((size_t)N * 4, 0);
        tu_dev_upload(&bias, hf, (size_t)N * 4);
        free(hf);
    }
    fp64_ref(&w, &a, M, N, K, L, 0.75, hb, ref);
    printf("  bt256 M=%lld N=%lld K=%lld L=%lld a=%s d=%s bias %d nan %d (AUTO at BT 256: %s)\n", (long long)M,
           (long long)N, (long long)K, (long long)L, tu_dtype_name(c->a_dtype), tu_dtype_name(c->d_dtype), c->bias,
           c->nan_scale, tetra_gemm_frag_bt256_auto() ? "on" : "off");
    for (int run_i = 0; run_i < RUNS; run_i++) {
        tetra_gemm_options o = tetra_gemm_options_default(), os;
        tetra_status st;
        int cmp_std = 1;
        o.alpha = 0.75f;
        if (c->bias) o.bias = bias.ptr;
        if (run_i == 1 || run_i == 2) {
            if (g_skip_sm90) continue;
            o.path = TETRA_PATH_WGMMA_T;
            o.tile_m = 256;
            o.splits = run_i;
            if (o.splits > (K + 63) / 64) continue;
        }
        if (run_i == 3) o.batch_invariant = 1;
        os = o;
        if (run_i == 0) cmp_std = !g_skip_sm90 && tetra_gemm_frag_bt256_auto();
        if (run_i == 3) {
            cmp_std = !g_skip_sm90;
            os.path = TETRA_PATH_WGMMA_T; /* standard weights' AUTO takes v6 for batch_invariant */
        }
        st = run(ctx, &a, &w.frag_m, c->d_dtype, M, N, L, &o, o_frag);
        if (st == TETRA_ERR_UNSUPPORTED && (run_i == 1 || run_i == 2)) {
            printf("    %s: unsupported here (%s)\n", names[run_i], tetra_last_error());
            continue;
        }
        CHECK_MSG(st == TETRA_OK, "%s on fragment weights: %s", names[run_i], tetra_last_error());
        if (st != TETRA_OK) continue;
        CHECK(run(ctx, &a, &w.frag_m, c->d_dtype, M, N, L, &o, again) == TETRA_OK);
        CHECK_MSG(memcmp(o_frag, again, bytes) == 0, "%s on fragment weights: repeat differs", names[run_i]);
        if (cmp_std) {
            st = run(ctx, &a, &w.std_m, c->d_dtype, M, N, L, &os, o_std);
            CHECK_MSG(st == TETRA_OK, "%s on standard weights: %s", names[run_i], tetra_last_error());
            if (st == TETRA_OK)
                CHECK_MSG(memcmp(o_std, o_frag, bytes) == 0,
                          "%s M=%lld N=%lld K=%lld L=%lld: fragment layout differs from standard", names[run_i],
                          (long long)M, (long long)N, (long long)K, (long long)L);
            printf("    %-26s fragment == standard bits: %s\n", names[run_i],
                   st == TETRA_OK && memcmp(o_std, o_frag, bytes) == 0 ? "yes" : "NO");
        }
        if (run_i == 3) { /* the first 37 rows of each batch alone: the same bits */
            const int64_t m2 = 37;
            const size_t es = tu_dtype_size(c->d_dtype), bytes2 = (size_t)(m2 * N * L) * es;
            void *o2 = tu_xmalloc(bytes2);
            acts a2 = a;
            int same = 1;
            a2.g.rows = m2;
            a2.g.batch_stride = M * K;
            st = run(ctx, &a2, &w.frag_m, c->d_dtype, m2, N, L, &o, o2);
            CHECK_MSG(st == TETRA_OK, "batch_invariant, %lld rows: %s", (long long)m2, tetra_last_error());
            for (int64_t l = 0; l < L && st == TETRA_OK; l++)
                if (memcmp((uint8_t *)o2 + (size_t)(l * m2 * N) * es, (uint8_t *)o_frag + (size_t)(l * M * N) * es,
                           (size_t)(m2 * N) * es))
                    same = 0;
            CHECK_MSG(same, "batch_invariant: rows 0..%lld computed alone differ", (long long)(m2 - 1));
            printf("    batch_invariant: %lld rows alone == the same rows of M = %lld: %s\n", (long long)m2,
                   (long long)M, same ? "yes" : "NO");
            free(o2);
        }
        CHECK_MSG(oracle_ok(ref, o_frag, c->d_dtype, M, N, K, L, c->nan_scale, names[run_i]),
                  "%s on fragment weights: oracle gate", names[run_i]);
    }
    if (c->bias) tu_dev_free(&bias);
    free(hb);
    free_weights(&w);
    free_acts(&a);
    free(o_frag);
    free(o_std);
    free(again);
    free(ref);
}

/* src/cuda/gemv.cu, not public: pin the fragment GEMV's X16 threshold (returns 0 where the
 * build lacks TETRA_GEMV_FRAG_X16) */
int tetra_gemv_frag_x16_pin(int min_m);

/* 3b: the fragment GEMV's two X loaders (TETRA_GEMV_FRAG_X16: 4-byte loads, or 16-byte loads
 * redistributed in the quad) give the same bits: pinned GEMV (the split rule, 1 and 3
 * splits), the threshold pinned to 99 (old loader) and 1 (new loader) in turn. */
static void x16_case(tetra_context *ctx, int64_t M, int64_t N, int64_t K, int64_t L, tetra_dtype dd, int nan_scale,
                     uint64_t seed) {
    static const int pins[3] = {0, 1, 3};
    tetra_rng r = {seed};
    weights w;
    acts a;
    const size_t bytes = (size_t)(M * N * L) * tu_dtype_size(dd);
    void *o_old = tu_xmalloc(bytes), *o_new = tu_xmalloc(bytes), *again = tu_xmalloc(bytes);
    int same = 1;
    if (!tetra_gemv_frag_x16_pin(-1)) {
        printf("  x16 M=%lld: built without TETRA_GEMV_FRAG_X16, skipped\n", (long long)M);
        free(o_old);
        free(o_new);
        free(again);
        return;
    }
    make_weights(&w, &r, N, K, L, nan_scale);
    make_acts(&a, &r, TETRA_DTYPE_BF16, M, K, L);
    for (int i = 0; i < 3; i++) {
        tetra_gemm_options o = tetra_gemm_options_default();
        tetra_status st;
        o.path = TETRA_PATH_GEMV;
        o.splits = pins[i];
        if (pins[i] > 1 && pins[i] > K / 128 / 2) continue;
        tetra_gemv_frag_x16_pin(99);
        st = run(ctx, &a, &w.frag_m, dd, M, N, L, &o, o_old);
        CHECK_MSG(st == TETRA_OK, "GEMV (4-byte X) splits %d: %s", pins[i], tetra_last_error());
        tetra_gemv_frag_x16_pin(1);
        st = run(ctx, &a, &w.frag_m, dd, M, N, L, &o, o_new);
        CHECK_MSG(st == TETRA_OK, "GEMV (16-byte X) splits %d: %s", pins[i], tetra_last_error());
        CHECK(run(ctx, &a, &w.frag_m, dd, M, N, L, &o, again) == TETRA_OK);
        CHECK_MSG(memcmp(o_new, again, bytes) == 0, "16-byte X: repeat differs (splits %d)", pins[i]);
        if (memcmp(o_old, o_new, bytes)) same = 0;
        CHECK_MSG(memcmp(o_old, o_new, bytes) == 0,
                  "M=%lld N=%lld K=%lld L=%lld splits %d: 16-byte X loads differ from 4-byte loads", (long long)M,
                  (long long)N, (long long)K, (long long)L, pins[i]);
    }
    tetra_gemv_frag_x16_pin(-1);
    printf("  x16 M=%lld N=%lld K=%lld L=%lld d=%s nan %d: 16-byte X %s 4-byte X bits\n", (long long)M, (long long)N,
           (long long)K, (long long)L, tu_dtype_name(dd), nan_scale, same ? "==" : "!=");
    free_weights(&w);
    free_acts(&a);
    free(o_old);
    free(o_new);
    free(again);
}

/* src/cuda/gemv.cu, not public: the fragment GEMV's cluster-K (TETRA_GEMV_FRAG_CK): the piece
 * count P an unpinned GEMV call of this shape takes on ctx now (0: the ordinary kernel, or a
 * build without the switch), and the process's mode (0 off, 1 AUTO, 2 everywhere) */
int tetra_gemv_frag_ck_pieces(tetra_context *ctx, int64_t m, int64_t n, int64_t k, int64_t batch);
int tetra_gemv_frag_ck_mode(void);
static int g_frag_ck_expected; /* mode 2 on an sm_90+ device: cluster-K must be taken (>= 8 segments) */

/* 3c: the fragment GEMV's cluster-K (gemv_nvfp4_mma_frag_ck; ctest gpu_gemm_fragment_ck forces
 * it with TETRA_GEMV_FRAG_CK=2): pinned path GEMV, splits unpinned (cluster-K, P pieces) into a
 * fresh poisoned buffer (guards checked), repeated bit for bit, against the FP64 oracle (alpha
 * 0.75 and a bias; the NaN row NaN at every token and batch, nothing else), and byte-identical
 * to the ordinary fragment kernel pinned at opts.splits = P; with each X loader (the X16
 * threshold pinned to 99 and to 1) where the build has both. Where cluster-K is not taken the
 * case says "skipped" (fails if mode 2 on sm_90+ should have taken it). */
static void fragck_case(tetra_context *ctx, int64_t M, int64_t N, int64_t K, int64_t L, tetra_dtype at,
                        tetra_dtype dd, int nan_scale, uint64_t seed) {
    static const int x16_pins[2] = {99, 1};
    const int P = tetra_gemv_frag_ck_pieces(ctx, M, N, K, L);
    const int64_t cnt = M * N * L;
    const size_t bytes = (size_t)cnt * tu_dtype_size(dd);
    const int loaders = tetra_gemv_frag_x16_pin(-1) ? 2 : 1;
    tetra_rng r = {seed};
    weights w;
    acts a;
    tu_devbuf bias;
    double *ref, *hb;
    void *o_ck, *o_pin, *again;
    if (!P) {
        CHECK_MSG(!(g_frag_ck_expected && K % 128 == 0 && K / 128 >= 8),
                  "fragck M=%lld N=%lld K=%lld L=%lld: cluster-K expected but not taken", (long long)M, (long long)N,
                  (long long)K, (long long)L);
        printf("  fragck M=%lld N=%lld K=%lld L=%lld: cluster-K not taken here: skipped\n", (long long)M,
               (long long)N, (long long)K, (long long)L);
        return;
    }
    o_ck = tu_xmalloc(bytes);
    o_pin = tu_xmalloc(bytes);
    again = tu_xmalloc(bytes);
    ref = (double *)tu_xmalloc((size_t)cnt * 8);
    hb = (double *)tu_xmalloc((size_t)N * 8);
    make_weights(&w, &r, N, K, L, nan_scale);
    make_acts(&a, &r, at, M, K, L);
    {
        float *hf = (float *)tu_xmalloc((size_t)N * 4);
        for (int64_t i = 0; i < N; i++) hb[i] = hf[i] = (float)tetra_rng_normal(&r);
        bias = tu_dev_alloc((size_t)N * 4, 0);
        tu_dev_upload(&bias, hf, (size_t)N * 4);
        free(hf);
    }
    fp64_ref(&w, &a, M, N, K, L, 0.75, hb, ref);
    for (int x = 0; x < loaders; x++) {
        tetra_gemm_options o = tetra_gemm_options_default(), op;
        tetra_status st, sp;
        int same;
        char what[64];
        o.path = TETRA_PATH_GEMV;
        o.alpha = 0.75f;
        o.bias = bias.ptr;
        op = o;
        op.splits = P;
        if (loaders == 2) tetra_gemv_frag_x16_pin(x16_pins[x]);
        st = run(ctx, &a, &w.frag_m, dd, M, N, L, &o, o_ck);
        CHECK_MSG(st == TETRA_OK, "fragck: cluster-K (P = %d): %s", P, tetra_last_error());
        sp = run(ctx, &a, &w.frag_m, dd, M, N, L, &op, o_pin);
        CHECK_MSG(sp == TETRA_OK, "fragck: pinned twin (splits %d): %s", P, tetra_last_error());
        if (st != TETRA_OK || sp != TETRA_OK) continue;
        CHECK(run(ctx, &a, &w.frag_m, dd, M, N, L, &o, again) == TETRA_OK);
        CHECK_MSG(memcmp(o_ck, again, bytes) == 0, "fragck: cluster-K repeat differs");
        same = memcmp(o_ck, o_pin, bytes) == 0;
        CHECK_MSG(same,
                  "fragck M=%lld N=%lld K=%lld L=%lld X16 min %d: cluster-K (P = %d) differs from the fragment "
                  "kernel pinned at %d splits",
                  (long long)M, (long long)N, (long long)K, (long long)L, loaders == 2 ? x16_pins[x] : -1, P, P);
        printf("  fragck M=%lld N=%lld K=%lld L=%lld a=%s d=%s X %s: cluster-K P=%d vs pinned splits=%d: %s\n",
               (long long)M, (long long)N, (long long)K, (long long)L, tu_dtype_name(at), tu_dtype_name(dd),
               loaders == 2 ? (x16_pins[x] == 1 ? "16-byte" : "4-byte") : "default", P, P,
               same ? "bit-identical" : "DIFFERS");
        snprintf(what, sizeof what, "fragck P=%d", P);
        CHECK_MSG(oracle_ok(ref, o_ck, dd, M, N, K, L, nan_scale, what), "fragck: cluster-K oracle gate");
    }
    if (loaders == 2) tetra_gemv_frag_x16_pin(-1);
    tu_dev_free(&bias);
    free_weights(&w);
    free_acts(&a);
    free(o_ck);
    free(o_pin);
    free(again);
    free(ref);
    free(hb);
}

/* 4: what refuses such weights, with a message naming b */
static void refusals(tetra_context *ctx) {
    tetra_rng r = {7};
    weights w;
    acts a;
    void *out = tu_xmalloc(64 * 256 * 4);
    static const tetra_gemm_path paths[3] = {TETRA_PATH_WGMMA, TETRA_PATH_MMA_SYNC, TETRA_PATH_SKINNY};
    make_weights(&w, &r, 256, 256, 1, 0);
    make_acts(&a, &r, TETRA_DTYPE_BF16, 64, 256, 1);
    for (int i = 0; i < 3; i++) {
        tetra_gemm_options o = tetra_gemm_options_default();
        o.path = paths[i];
        CHECK_ERR(run(ctx, &a, &w.frag_m, TETRA_DTYPE_FP32, 64, 256, 1, &o, out), TETRA_ERR_UNSUPPORTED,
                  "TETRA_SCALE_FRAGMENT_128X64");
    }
    free_acts(&a);
    { /* the GEMV takes BF16 a only (FP16 a: refused naming the layout) */
        tetra_gemm_options o = tetra_gemm_options_default();
        o.path = TETRA_PATH_GEMV;
        make_acts(&a, &r, TETRA_DTYPE_FP16, 4, 256, 1);
        CHECK_ERR(run(ctx, &a, &w.frag_m, TETRA_DTYPE_FP32, 4, 256, 1, &o, out), TETRA_ERR_UNSUPPORTED,
                  "TETRA_SCALE_FRAGMENT_128X64");
    }
    printf("  refusals: WGMMA, MMA_SYNC, SKINNY, GEMV with FP16 a name b's layout\n");
    free_weights(&w);
    free_acts(&a);
    free(out);
}

int main(void) {
    tetra_context *ctx = tu_gpu_or_skip(NAME);
    static const fcase cases[] = {
        {64, 256, 512, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 0, 1},
        {37, 200, 544, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 1, 0}, /* odd N, K % 64 == 32 */
        {100, 392, 1024, 2, TETRA_DTYPE_FP16, TETRA_DTYPE_FP32, 0, 1},
        {130, 136, 352, 1, TETRA_DTYPE_FP16, TETRA_DTYPE_BF16, 1, 0},
        {9, 520, 2048, 1, TETRA_DTYPE_NVFP4, TETRA_DTYPE_FP32, 0, 0},
        {1, 128, 64, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 0, 0},
    };
    /* TETRA_GEMM_FRAGMENT_TEST_ONLY=gemv: the GEMV sections alone (3, 3b, 3c: e.g. under
     * compute-sanitizer); the same inputs as in the full run (own seeds per case) */
    const char *only = getenv("TETRA_GEMM_FRAGMENT_TEST_ONLY");
    const int gemv_only = only && !strcmp(only, "gemv");
    if (gemv_only) printf("  TETRA_GEMM_FRAGMENT_TEST_ONLY=gemv: the GEMV cases only\n");
    if (!gemv_only) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) pinned_cases(ctx, &cases[i], 100 + i);
        auto_case(ctx, 1, 300, 1024, 1, TETRA_DTYPE_FP32, 11);
        auto_case(ctx, 48, 256, 544, 2, TETRA_DTYPE_BF16, 12);
        auto_case(ctx, 300, 200, 512, 1, TETRA_DTYPE_FP32, 13);
        if (!tu_quick()) auto_case(ctx, 100, 1280, 4096, 1, TETRA_DTYPE_FP32, 14);
    }
    /* the GEMV: M, N, K, L, a, d, NaN scale row */
    gemv_case(ctx, 1, 256, 512, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 0, 21);
    gemv_case(ctx, 5, 520, 2048, 2, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 0, 22);
    gemv_case(ctx, 9, 1000, 512, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1, 23);
    gemv_case(ctx, 16, 520, 2048, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP16, 0, 24);
    gemv_case(ctx, 16, 1000, 2048, 2, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1, 25);
    gemv_case(ctx, 1, 1000, 2048, 2, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1, 26);
    gemv_case(ctx, 9, 256, 2048, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 0, 27);
    gemv_case(ctx, 5, 256, 512, 2, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1, 28);
    gemv_case(ctx, 5, 520, 2048, 1, TETRA_DTYPE_NVFP4, TETRA_DTYPE_FP32, 0, 29); /* W4A4: staged */
    gemv_case(ctx, 4, 520, 544, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 0, 30);   /* K % 128 == 32 */
    gemv_case(ctx, 16, 256, 192, 2, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1, 31);  /* K % 128 == 64 */
    /* the BT-256 kernels: M, N, K, L, a, d, bias, NaN scale row */
    if (!gemv_only) {
        static const fcase big[] = {
            {129, 200, 64, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 1, 0},  /* 1 K-tile */
            {256, 520, 128, 2, TETRA_DTYPE_FP16, TETRA_DTYPE_FP32, 0, 1}, /* 2 K-tiles */
            {300, 392, 1088, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP16, 1, 0}, /* 17 K-tiles */
            {300, 136, 96, 2, TETRA_DTYPE_FP16, TETRA_DTYPE_FP16, 1, 1},  /* K % 64 == 32 */
            {1000, 264, 1120, 2, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 1, 0}, /* 18 K-tiles, 16 units */
        };
        for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
            if (!tu_quick() || big[i].m < 1000) bt256_case(ctx, &big[i], 200 + i);
    }
    /* the two X loaders: M, N (not multiples of 128), K, L, d, NaN scale row */
    x16_case(ctx, 1, 200, 1024, 1, TETRA_DTYPE_FP32, 0, 41);
    x16_case(ctx, 2, 200, 2048, 1, TETRA_DTYPE_FP32, 0, 42);
    x16_case(ctx, 8, 520, 1024, 2, TETRA_DTYPE_BF16, 1, 43);
    x16_case(ctx, 9, 392, 768, 1, TETRA_DTYPE_FP32, 0, 44);
    x16_case(ctx, 12, 1000, 2048, 1, TETRA_DTYPE_FP16, 1, 45);
    x16_case(ctx, 16, 520, 2048, 2, TETRA_DTYPE_FP32, 0, 46);
    /* the fragment GEMV's cluster-K: M, N (768, 2048; 1000 and 200: not multiples of 128 or
     * 32), K, L, a, d, NaN scale row */
    {
        typedef struct {
            int64_t m, n, k;
            tetra_dtype a, d;
            int nan_scale, big;
        } ckc;
        static const ckc ck[] = {
            {1, 768, 6144, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 0, 0},
            {5, 2048, 6144, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 1, 1},
            {9, 1000, 4096, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1, 0},
            {16, 768, 4096, TETRA_DTYPE_BF16, TETRA_DTYPE_FP16, 0, 0},
            {16, 2048, 6144, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 0, 1},
            {1, 1000, 6144, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 1, 0},
            {5, 768, 4096, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 0, 0},
            {9, 2048, 4096, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 0, 1},
            {1, 2048, 4096, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1, 1},
            {16, 1000, 6144, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1, 1},
            {5, 200, 6144, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1, 0},
            {5, 768, 6144, TETRA_DTYPE_NVFP4, TETRA_DTYPE_FP32, 0, 0}, /* W4A4: staged, a dependent cluster launch */
        };
        tetra_device_info info;
        const int sm90 = tetra_device_info_get(tetra_context_device(ctx), &info) == TETRA_OK && info.major >= 9;
        const int mode = tetra_gemv_frag_ck_mode();
        g_frag_ck_expected = mode == 2 && sm90;
        printf("  fragck: the fragment GEMV's cluster-K mode %d (%s)\n", mode,
               g_frag_ck_expected ? "everywhere: must be taken"
               : mode == 1 && sm90 ? "AUTO: where its rule says"
                                   : "off, not built, or not sm_90+");
        for (size_t i = 0; i < sizeof ck / sizeof ck[0]; i++) {
            if (tu_quick() && ck[i].big) continue;
            fragck_case(ctx, ck[i].m, ck[i].n, ck[i].k, 2, ck[i].a, ck[i].d, ck[i].nan_scale, 300 + i);
        }
    }
    if (!gemv_only) refusals(ctx);
    tetra_context_destroy(ctx);
    return tu_finish(NAME);
}
