/* gpu_skinny.c - the skinny-M wgmma GEMM (tetra_gemm with opts.path = TETRA_PATH_SKINNY,
 * prepared weights TETRA_SCALE_INTERLEAVED_32X128, M <= 64, sm_90a) against the FP64 CPU
 * oracle, with gpu_gemv.c's gate:
 *   pass iff tetra_err_pass(&s, &floor, 2.0, slack(K)), floor = oracle rounded to Y's dtype,
 *   slack(K) = max(K * 2^-26, 1e-6).
 * Cases: M in {17, 33, 64} x N in {128, 200, 1000, 4128} x K in {128, 1088, 4096}, L 1 or 2,
 * Y FP32 / BF16 (and FP16 once), X BF16 (FP16 on some), alpha, bias, global scales (host
 * and device); pinned splits 1 / 2 / 4 / 8 (and 16, 24 at K = 4096; auto otherwise: with
 * TETRA_SKINNY_EPI=1 splits 2..16 take the cluster reduce where the clusters fit in as few
 * waves as the plain grid, 24 the two-launch path with the PDL reduce), a
 * 3-split L = 2 FP16 case with a partial tile, a 4-split N = 128 case (one warpgroup past
 * the rows); batch invariance (rows of M = 64 memcmp-equal to M = 17 / 33 with the same
 * first rows); repeats bit-identical; Y poisoned
 * with padded rows and batches, padding untouched, sentinel guards; a NaN scale code 0x7F
 * in one weight row -> that column of Y NaN, the rest finite; bad arguments ->
 * TETRA_ERR_UNSUPPORTED. TETRA_SKINNY_TEST_HASH=1 prints an FNV-1a hash of every gated
 * output; TETRA_TEST_QUICK=1 runs a small subset (sanitizers). Exits 77 (skip) without a
 * device or without sm_90a code for it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/float16.h"
#include "ref/errstats.h"
#include "testutil.h"

#define TEST_SEED 20261211ull

typedef struct {
    long long M, N, K, L;
    tetra_dtype xdt, ydt;
    int bias; /* 0 none, else 1 + bias dtype */
    float alpha;
    int gdev;
    int splits;
} scase;

typedef struct {
    scase c;
    long long xld, xbs, yld, ybs;
    size_t esz, ybytes;
    float *bias_f, wg;
    double *ref;
    uint16_t *xh;
    tu_devbuf dwi, dx, dy, db, dg, dws, dwd;
    tetra_matrix gx, gwi, gy, gwstd;
} sprob;

static int g_hash;

static unsigned long long fnv1a(const void *data, size_t n) {
    const unsigned char *b = data;
    unsigned long long h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
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

static void sp_free(sprob *p) {
    free(p->bias_f);
    free(p->ref);
    free(p->xh);
    tu_dev_free(&p->dwi);
    tu_dev_free(&p->dx);
    tu_dev_free(&p->dy);
    tu_dev_free(&p->dg);
    tu_dev_free(&p->dws);
    tu_dev_free(&p->dwd);
    if (p->db.base) tu_dev_free(&p->db);
}

/* Inputs from `seed`; nan_row >= 0 plants scale code 0x7F in that weight row (batch 0, the
 * row's last block). The oracle runs unless nan_row >= 0. */
static int sp_make(sprob *p, const scase *c, uint64_t seed, long long nan_row) {
    tetra_rng rng = {seed};
    long long M = c->M, N = c->N, K = c->K, L = c->L;
    float *wf, *xf;
    uint8_t *wq, *ws, *il, *yh;
    tetra_matrix src, hw, hx, hy, him;
    size_t wbytes, wsbytes, ib;
    memset(p, 0, sizeof *p);
    p->c = *c;
    wf = tu_xmalloc((size_t)(L * N * K) * sizeof *wf);
    for (long long i = 0; i < L * N * K; i++)
        wf[i] = (float)(0.02 * tetra_rng_normal(&rng) * (tetra_rng_uniform(&rng) < 0.001 ? 20 : 1));
    wbytes = (size_t)L * tetra_nvfp4_data_bytes(N, K);
    wsbytes = (size_t)L * tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_LINEAR);
    wq = tu_xmalloc(wbytes);
    ws = tu_xmalloc(wsbytes);
    src = tetra_matrix_dense(TETRA_DTYPE_FP32, wf, N, K);
    src.batch = L;
    hw = tetra_matrix_nvfp4(wq, ws, TETRA_SCALE_LINEAR, N, K, 0.0f);
    hw.batch = L;
    if (tetra_quantize_host(&src, &hw, TETRA_GLOBAL_SCALE_FROM_AMAX) != TETRA_OK) {
        fprintf(stderr, "quantize W: %s\n", tetra_last_error());
        return 0;
    }
    free(wf);
    if (nan_row >= 0) ws[nan_row * (K / 16) + K / 16 - 1] = 0x7F;
    p->wg = hw.global_scale;
    ib = tetra_nvfp4_interleaved_bytes(N, K) * (size_t)L;
    il = tu_xmalloc(ib);
    him = tetra_matrix_nvfp4(il, NULL, TETRA_SCALE_INTERLEAVED_32X128, N, K, 0.0f);
    him.batch = L;
    if (tetra_convert_weights_host(&hw, &him) != TETRA_OK) {
        fprintf(stderr, "convert W: %s\n", tetra_last_error());
        return 0;
    }
    p->dwi = tu_dev_alloc(ib, 0);
    tu_dev_upload(&p->dwi, il, ib);
    free(il);
    /* the standard-layout copy (refusal checks) */
    p->dwd = tu_dev_alloc(wbytes, 0);
    tu_dev_upload(&p->dwd, wq, wbytes);
    p->dws = tu_dev_alloc(wsbytes, 0);
    tu_dev_upload(&p->dws, ws, wsbytes);

    /* X: rows padded by 8 (NaN padding), batches by 24 */
    xf = tu_xmalloc((size_t)(L * M * K) * sizeof *xf);
    tu_fill_normal(&rng, xf, L * M * K, 1.0f);
    p->xld = K + 8;
    p->xbs = M * p->xld + (L > 1 ? 24 : 0);
    p->xh = tu_xmalloc((size_t)(L * p->xbs) * 2);
    for (long long i = 0; i < L * p->xbs; i++) p->xh[i] = c->xdt == TETRA_DTYPE_BF16 ? 0x7FC0 : 0x7E00;
    for (long long l = 0; l < L; l++)
        for (long long m = 0; m < M; m++)
            for (long long k = 0; k < K; k++)
                p->xh[l * p->xbs + m * p->xld + k] = to_half_bits(xf[(l * M + m) * K + k], c->xdt);
    free(xf);
    hx = tetra_matrix_dense(c->xdt, p->xh, M, K);
    hx.ld = p->xld;
    hx.batch = L;
    hx.batch_stride = p->xbs;
    if (c->bias) {
        tetra_dtype bdt = (tetra_dtype)(c->bias - 1);
        size_t bsz = tu_dtype_size(bdt);
        void *hb = tu_xmalloc((size_t)N * bsz);
        p->bias_f = tu_xmalloc((size_t)N * sizeof(float));
        for (long long n = 0; n < N; n++) {
            float v = (float)(0.1 * tetra_rng_normal(&rng));
            p->bias_f[n] = bdt == TETRA_DTYPE_FP32 ? v : from_half_bits(to_half_bits(v, bdt), bdt);
            if (bdt == TETRA_DTYPE_FP32) ((float *)hb)[n] = p->bias_f[n];
            else ((uint16_t *)hb)[n] = to_half_bits(p->bias_f[n], bdt);
        }
        p->db = tu_dev_alloc((size_t)N * bsz, 0);
        tu_dev_upload(&p->db, hb, (size_t)N * bsz);
        free(hb);
    }
    p->esz = tu_dtype_size(c->ydt);
    if (nan_row < 0) {
        p->ref = tu_xmalloc((size_t)(L * M * N) * sizeof(double));
        yh = tu_xmalloc((size_t)(L * M * N) * p->esz);
        hy = tetra_matrix_dense(c->ydt, yh, M, N);
        hy.batch = L;
        if (tetra_gemm_host(&hx, &hw, &hy, c->alpha, p->bias_f, p->ref, 0) != TETRA_OK) {
            fprintf(stderr, "oracle: %s\n", tetra_last_error());
            return 0;
        }
        free(yh);
    }
    free(wq);
    free(ws);
    p->dx = tu_dev_alloc((size_t)(L * p->xbs) * 2, 0);
    tu_dev_upload(&p->dx, p->xh, (size_t)(L * p->xbs) * 2);
    p->dg = tu_dev_alloc(sizeof(float), 0);
    tu_dev_upload(&p->dg, &p->wg, sizeof(float));
    p->yld = N + 3;
    p->ybs = M * p->yld + 40;
    p->ybytes = (size_t)(L * p->ybs) * p->esz;
    p->dy = tu_dev_alloc(p->ybytes, 0xFF);
    p->gx = tetra_matrix_dense(c->xdt, p->dx.ptr, M, K);
    p->gx.ld = p->xld;
    p->gx.batch = L;
    p->gx.batch_stride = p->xbs;
    p->gwi = tetra_matrix_nvfp4(p->dwi.ptr, NULL, TETRA_SCALE_INTERLEAVED_32X128, N, K, p->wg);
    p->gwi.batch = L;
    p->gwstd = tetra_matrix_nvfp4(p->dwd.ptr, p->dws.ptr, TETRA_SCALE_LINEAR, N, K, p->wg);
    p->gwstd.batch = L;
    if (c->gdev) {
        p->gwi.global_scale_dev = (float *)p->dg.ptr;
        p->gwi.global_scale = 0.0f; /* must not be used */
    }
    p->gy = tetra_matrix_dense(c->ydt, p->dy.ptr, M, N);
    p->gy.ld = p->yld;
    p->gy.batch = L;
    p->gy.batch_stride = p->ybs;
    return 1;
}

static tetra_status sp_run(tetra_context *ctx, sprob *p, const tetra_matrix *x, tetra_matrix *y, int splits) {
    tetra_gemm_options o = tetra_gemm_options_default();
    o.alpha = p->c.alpha;
    o.path = TETRA_PATH_SKINNY;
    o.splits = splits;
    if (p->c.bias) {
        o.bias = p->db.ptr;
        o.bias_dtype = (tetra_dtype)(p->c.bias - 1);
    }
    return tetra_gemm(ctx, x, &p->gwi, y, &o);
}

/* the L x M x N elements of a whole downloaded Y buffer, packed */
static uint8_t *sp_pack(const sprob *p, const uint8_t *y, long long M) {
    long long N = p->c.N, L = p->c.L;
    uint8_t *packed = tu_xmalloc((size_t)(L * M * N) * p->esz);
    for (long long l = 0; l < L; l++)
        for (long long m = 0; m < M; m++)
            memcpy(packed + ((l * M + m) * N) * p->esz, y + (l * p->ybs + m * p->yld) * p->esz, (size_t)N * p->esz);
    return packed;
}

static int sp_gate(sprob *p, const uint8_t *y, const char *name) {
    const scase *c = &p->c;
    long long M = c->M, N = c->N, L = c->L;
    uint8_t *packed = sp_pack(p, y, M);
    tetra_err_stats s, fl;
    int pad_ok = 1, ok;
    for (long long i = 0; i < L * p->ybs && pad_ok; i++) {
        long long l = i / p->ybs, r = i % p->ybs, m = r / p->yld, n = r % p->yld;
        if (!(l < L && m < M && n < N))
            for (size_t b = 0; b < p->esz; b++) pad_ok &= y[(size_t)i * p->esz + b] == 0xFF;
    }
    CHECK_MSG(pad_ok, "%s: wrote outside the output elements", name);
    fl = tetra_err_dtype_floor(p->ref, c->ydt, L * M * N);
    s = tetra_err_compare(p->ref, packed, c->ydt, L * M * N, 0);
    ok = tetra_err_pass(&s, &fl, 2.0, slack_for(c->K));
    printf("  %-34s M=%-2lld N=%-4lld K=%-4lld L=%lld splits=%d normwise %.2e (floor %.2e) max_rel %.2e "
           "(floor %.2e)  %s\n",
           name, M, N, c->K, L, c->splits, s.normwise, fl.normwise, s.max_rel, fl.max_rel, ok ? "pass" : "FAIL");
    CHECK_MSG(ok, "%s: outside the gate", name);
    if (g_hash)
        printf("  hash %-34s M=%lld N=%lld K=%lld L=%lld splits=%d %016llx\n", name, M, N, c->K, L, c->splits,
               fnv1a(packed, (size_t)(L * M * N) * p->esz));
    free(packed);
    return ok;
}

/* gate, padding, guards, and a repeat into a fresh poisoned buffer: bit-identical */
static void run_case(tetra_context *ctx, const scase *c, uint64_t seed) {
    sprob p;
    char name[96];
    tetra_status st;
    uint8_t *y, *y2;
    tu_devbuf d2;
    tetra_matrix g2;
    snprintf(name, sizeof name, "%s X %s Y%s%s%s", tu_dtype_name(c->xdt), tu_dtype_name(c->ydt),
             c->bias ? " bias" : "", c->alpha != 1.0f ? " alpha" : "", c->gdev ? " gdev" : "");
    if (!sp_make(&p, c, seed, -1)) {
        tu_failures++;
        return;
    }
    st = sp_run(ctx, &p, &p.gx, &p.gy, c->splits);
    CHECK_MSG(st == TETRA_OK, "%s: %s: %s", name, tetra_status_string(st), tetra_last_error());
    if (st == TETRA_OK) {
        y = tu_xmalloc(p.ybytes);
        y2 = tu_xmalloc(p.ybytes);
        tu_dev_download(&p.dy, y, p.ybytes);
        tu_dev_check_guards(&p.dy, name);
        sp_gate(&p, y, name);
        d2 = tu_dev_alloc(p.ybytes, 0xFF);
        g2 = p.gy;
        g2.data = d2.ptr;
        CHECK(sp_run(ctx, &p, &p.gx, &g2, c->splits) == TETRA_OK);
        tu_dev_download(&d2, y2, p.ybytes);
        CHECK_MSG(memcmp(y, y2, p.ybytes) == 0, "%s: repeat differs", name);
        tu_dev_free(&d2);
        free(y);
        free(y2);
    }
    sp_free(&p);
}

/* rows of M = 64 equal (memcmp) to the same rows computed with M = 17 and 33 (auto splits,
 * and pinned 3), and a repeat of M = 64 bit-identical */
static void batch_invariance(tetra_context *ctx, long long N, long long K, int splits) {
    scase c = {64, N, K, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1, 0.5f, 0, splits};
    sprob p;
    uint8_t *y64, *ys;
    const long long sub[2] = {17, 33};
    int ok = 1;
    if (!sp_make(&p, &c, TEST_SEED + 777 + (uint64_t)N, -1)) {
        tu_failures++;
        return;
    }
    CHECK(sp_run(ctx, &p, &p.gx, &p.gy, splits) == TETRA_OK);
    y64 = tu_xmalloc(p.ybytes);
    ys = tu_xmalloc(p.ybytes);
    tu_dev_download(&p.dy, y64, p.ybytes);
    for (int i = 0; i < 2; i++) {
        tu_devbuf d = tu_dev_alloc(p.ybytes, 0xFF);
        tetra_matrix x = p.gx, y = p.gy;
        x.rows = y.rows = sub[i];
        y.data = d.ptr;
        CHECK_MSG(sp_run(ctx, &p, &x, &y, splits) == TETRA_OK, "M=%lld: %s", sub[i], tetra_last_error());
        tu_dev_download(&d, ys, p.ybytes);
        tu_dev_check_guards(&d, "batch invariance Y");
        for (long long m = 0; m < sub[i]; m++)
            ok &= memcmp(ys + m * p.yld * p.esz, y64 + m * p.yld * p.esz, (size_t)N * p.esz) == 0;
        /* rows past M untouched */
        for (long long b = sub[i] * p.yld * (long long)p.esz; b < (long long)p.ybytes; b++) ok &= ys[b] == 0xFF;
        tu_dev_free(&d);
    }
    CHECK_MSG(ok, "batch invariance N=%lld K=%lld splits=%d", N, K, splits);
    printf("  batch invariance N=%-5lld K=%-5lld splits=%d: rows of M=64 == M=17, M=33: %s\n", N, K, splits,
           ok ? "yes" : "NO");
    free(y64);
    free(ys);
    sp_free(&p);
}

/* a NaN scale code in one weight row -> that column of Y NaN, every other output finite */
static void nan_case(tetra_context *ctx, long long M, long long N, long long K, int splits) {
    scase c = {M, N, K, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 0, 1.0f, 0, splits};
    const long long row = N - 3;
    sprob p;
    uint8_t *y;
    int nan_ok = 1, rest_ok = 1;
    if (!sp_make(&p, &c, TEST_SEED + 31, row)) {
        tu_failures++;
        return;
    }
    CHECK_MSG(sp_run(ctx, &p, &p.gx, &p.gy, splits) == TETRA_OK, "nan case: %s", tetra_last_error());
    y = tu_xmalloc(p.ybytes);
    tu_dev_download(&p.dy, y, p.ybytes);
    for (long long m = 0; m < M; m++)
        for (long long n = 0; n < N; n++) {
            float v = tetra_bf16_to_f32(((uint16_t *)y)[m * p.yld + n]);
            if (n == row) nan_ok &= isnan(v) != 0;
            else rest_ok &= isfinite(v) != 0;
        }
    CHECK_MSG(nan_ok && rest_ok, "nan case M=%lld N=%lld K=%lld splits=%d: nan %d rest %d", M, N, K, splits,
              nan_ok, rest_ok);
    printf("  nan code 0x7F in row %lld (M=%lld N=%lld K=%lld splits=%d): column NaN %s, others finite %s\n", row,
           M, N, K, splits, nan_ok ? "yes" : "NO", rest_ok ? "yes" : "NO");
    free(y);
    sp_free(&p);
}

static void refusals(tetra_context *ctx) {
    scase c = {17, 256, 256, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 0, 1.0f, 0, 0};
    sprob p;
    tetra_gemm_options o = tetra_gemm_options_default();
    tetra_matrix x, y;
    tu_devbuf dbig, dy65;
    if (!sp_make(&p, &c, TEST_SEED + 5, -1)) {
        tu_failures++;
        return;
    }
    o.path = TETRA_PATH_SKINNY;
    /* standard-layout W */
    CHECK_ERR(tetra_gemm(ctx, &p.gx, &p.gwstd, &p.gy, &o), TETRA_ERR_UNSUPPORTED, "b must be prepared");
    /* M = 65 */
    dbig = tu_dev_alloc((size_t)(65 * 256) * 2, 0);
    dy65 = tu_dev_alloc((size_t)(65 * 256) * 4, 0xFF);
    x = tetra_matrix_dense(TETRA_DTYPE_BF16, dbig.ptr, 65, 256);
    y = tetra_matrix_dense(TETRA_DTYPE_FP32, dy65.ptr, 65, 256);
    CHECK_ERR(tetra_gemm(ctx, &x, &p.gwi, &y, &o), TETRA_ERR_UNSUPPORTED, "M = 65");
    /* X ld not a multiple of 8 */
    x = p.gx;
    x.ld = 256 + 4;
    CHECK_ERR(tetra_gemm(ctx, &x, &p.gwi, &p.gy, &o), TETRA_ERR_UNSUPPORTED, "a must be 16-byte aligned");
    /* X misaligned */
    x = p.gx;
    x.data = (uint8_t *)p.dx.ptr + 2;
    x.ld = 256;
    CHECK_ERR(tetra_gemm(ctx, &x, &p.gwi, &p.gy, &o), TETRA_ERR_UNSUPPORTED, "a must be 16-byte aligned");
    /* NVFP4 X */
    {
        tetra_matrix xq = tetra_matrix_nvfp4(dbig.ptr, (uint8_t *)dbig.ptr + 4096, TETRA_SCALE_LINEAR, 17, 256, 1.0f);
        CHECK_ERR(tetra_gemm(ctx, &xq, &p.gwi, &p.gy, &o), TETRA_ERR_UNSUPPORTED, "a is NVFP4");
    }
    /* pins it cannot take */
    o.tile_m = 128;
    CHECK_ERR(tetra_gemm(ctx, &p.gx, &p.gwi, &p.gy, &o), TETRA_ERR_UNSUPPORTED, "tile_m");
    o.tile_m = 0;
    o.splits = 3; /* K = 256: 2 segments */
    CHECK_ERR(tetra_gemm(ctx, &p.gx, &p.gwi, &p.gy, &o), TETRA_ERR_UNSUPPORTED, "opts.splits");
    o.splits = 0;
    o.batch_invariant = 1;
    CHECK_ERR(tetra_gemm(ctx, &p.gx, &p.gwi, &p.gy, &o), TETRA_ERR_UNSUPPORTED, "b: interleaved weights");
    /* nothing was written by the refused calls */
    {
        uint8_t *y0 = tu_xmalloc(p.ybytes);
        int untouched = 1;
        tu_dev_download(&p.dy, y0, p.ybytes);
        for (size_t i = 0; i < p.ybytes; i++) untouched &= y0[i] == 0xFF;
        CHECK_MSG(untouched, "a refused call wrote Y");
        free(y0);
    }
    printf("  refusals (standard W, M = 65, X ld / alignment, NVFP4 X, tile_m, splits, batch_invariant): done\n");
    tu_dev_free(&dbig);
    tu_dev_free(&dy65);
    sp_free(&p);
}

int main(void) {
    tetra_context *ctx = tu_gpu_or_skip("gpu_skinny");
    const char *h = getenv("TETRA_SKINNY_TEST_HASH");
    const int quick = tu_quick();
    g_hash = h && h[0] == '1';
    printf("gpu_skinny: seed %llu%s\n", (unsigned long long)TEST_SEED, quick ? " (quick subset)" : "");
    {
        /* skip where the path does not exist (not sm_90, or no sm_90a code in the binary) */
        scase c = {17, 128, 128, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 0, 1.0f, 0, 0};
        sprob p;
        tetra_status st;
        if (!sp_make(&p, &c, TEST_SEED, -1)) return 1;
        st = sp_run(ctx, &p, &p.gx, &p.gy, 0);
        sp_free(&p);
        if (st == TETRA_ERR_UNSUPPORTED && strstr(tetra_last_error(), "sm_90")) {
            printf("gpu_skinny: skipped: %s\n", tetra_last_error());
            tetra_context_destroy(ctx);
            return 77;
        }
    }
    {
        const long long Ms[3] = {17, 33, 64}, Ns[4] = {128, 200, 1000, 4096 + 32}, Ks[3] = {128, 1088, 4096};
        int idx = 0;
        for (int im = 0; im < 3; im++)
            for (int in = 0; in < 4; in++)
                for (int ik = 0; ik < 3; ik++, idx++) {
                    scase c;
                    if (quick && !(Ns[in] <= 200 && Ks[ik] <= 1088)) continue;
                    c.M = Ms[im];
                    c.N = Ns[in];
                    c.K = Ks[ik];
                    c.L = 1 + (idx % 2);
                    if (c.N * c.K > 1000 * 1088 && c.L == 2 && c.M == 64) c.L = 1; /* oracle time */
                    c.xdt = idx % 5 == 4 ? TETRA_DTYPE_FP16 : TETRA_DTYPE_BF16;
                    c.ydt = idx % 2 ? TETRA_DTYPE_BF16 : TETRA_DTYPE_FP32;
                    if (idx % 7 == 3) c.ydt = TETRA_DTYPE_FP16;
                    c.bias = idx % 3 == 0 ? 0 : idx % 3 == 1 ? 1 + TETRA_DTYPE_FP32 : 1 + TETRA_DTYPE_BF16;
                    c.alpha = idx % 4 == 1 ? 0.625f : 1.0f;
                    c.gdev = idx % 4 == 2;
                    c.splits = 0;
                    run_case(ctx, &c, TEST_SEED + (uint64_t)idx);
                }
    }
    {
        /* pinned splits (K = 1088: 9 segments; 4096: 32); 8 = the largest cluster reduce */
        const int sp[4] = {1, 2, 4, 8};
        for (int i = 0; i < 4; i++) {
            scase c = {33, 1000, 1088, 2, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 1 + TETRA_DTYPE_FP32, 0.75f, 1, sp[i]};
            run_case(ctx, &c, TEST_SEED + 500 + (uint64_t)i);
            if (!quick) {
                scase d = {64, 4096 + 32, 4096, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 0, 1.0f, 0, sp[i]};
                run_case(ctx, &d, TEST_SEED + 600 + (uint64_t)i);
            }
        }
        if (!quick) { /* 16 splits: the largest (non-portable) cluster; 24: past it */
            scase d = {64, 4096 + 32, 4096, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 0, 1.0f, 0, 16};
            run_case(ctx, &d, TEST_SEED + 604);
            d.splits = 24;
            run_case(ctx, &d, TEST_SEED + 605);
        }
        { /* the cluster reduce with batches, FP16 X and Y, bias, M = 17 and N not a multiple of 256 */
            scase e = {17, 1000 + 8, 1088, 2, TETRA_DTYPE_FP16, TETRA_DTYPE_FP16, 1 + TETRA_DTYPE_BF16, 1.0f, 0, 3};
            run_case(ctx, &e, TEST_SEED + 700);
            /* N = 128: the tile's second warpgroup is past the padded rows (loads nothing) */
            scase f = {33, 128, 1088, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, 0, 1.0f, 0, 4};
            run_case(ctx, &f, TEST_SEED + 701);
        }
    }
    batch_invariance(ctx, 1000, 1088, 0);
    batch_invariance(ctx, 1000, 1088, 3);
    if (!quick) batch_invariance(ctx, 4096 + 32, 4096, 0);
    nan_case(ctx, 33, 200, 1088, 1);
    nan_case(ctx, 64, 1000, 1088, 4);
    refusals(ctx);
    tetra_context_destroy(ctx);
    return tu_finish("gpu_skinny");
}
