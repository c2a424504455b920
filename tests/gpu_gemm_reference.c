/* gpu_gemm_reference.c - the GPU reference GEMM (TETRA_PATH_REFERENCE) against the CPU
 * oracle (tetra_gemm_host) on odd sizes, batches, W4A16 (BF16/FP16 A) and W4A4, both
 * scale layouts, bias of each dtype, alpha, host and device global scales, and
 * FP32/FP16/BF16 outputs.
 *
 * Both sides accumulate the same exact FP64 terms in the same order, so outputs should
 * agree bit for bit; the gate allows what the brief allows: FP32 relative difference
 * <= 1e-6, FP16/BF16 at most one ulp, with the count of one-ulp differences bounded;
 * inexact outputs are counted and printed. (With host global scales tetra_gemm folds
 * them into alpha in FP32; the oracle is handed the same folded alpha.) The output is poisoned with NaN, its padding must stay poisoned
 * and sentinels catch out-of-bounds writes. */
#include <math.h>
#include <string.h>

#include "testutil.h"

#define POISON 0xFF /* NaN in FP32, FP16 and BF16 */

static tetra_context *ctx;
static tetra_rng rng = {20261202ull};

/* An operand on host and device: [L, rows, K] with row pitch ld. */
typedef struct {
    tetra_matrix h, d;
    void *hdata, *hscales;
    tu_devbuf ddata, dscales, dg;
} operand;

static void operand_free(operand *o) {
    free(o->hdata);
    free(o->hscales);
    tu_dev_free(&o->ddata);
    if (o->dscales.base) tu_dev_free(&o->dscales);
    if (o->dg.base) tu_dev_free(&o->dg);
}

/* Random operand of dtype dt (NVFP4: quantized on the host from normal values scaled
 * by `mag`, FROM_AMAX). pad: extra elements per row. gdev: pass the global scale
 * through a device pointer (the host field is then poisoned). */
static operand make_operand(int64_t rows, int64_t k, int64_t L, tetra_dtype dt,
                            tetra_scale_layout layout, int64_t pad, int gdev, float mag) {
    operand o;
    int64_t ld = k + pad, n = L * rows * ld;
    memset(&o, 0, sizeof o);
    if (dt == TETRA_DTYPE_NVFP4) {
        float *x = (float *)tu_xmalloc((size_t)n * sizeof(float));
        size_t qbytes = (size_t)(n / 2), sbytes = tetra_nvfp4_scale_bytes(rows, k, layout) * (size_t)L;
        tetra_matrix src = tetra_matrix_dense(TETRA_DTYPE_FP32, x, rows, k);
        tetra_status st;
        for (int64_t i = 0; i < n; i++) x[i] = (float)tetra_rng_normal(&rng) * mag;
        src.ld = ld;
        src.batch = L;
        o.hdata = tu_xmalloc(qbytes);
        o.hscales = tu_xmalloc(sbytes);
        memset(o.hdata, 0x77, qbytes); /* row padding: arbitrary codes, never read */
        o.h = tetra_matrix_nvfp4(o.hdata, o.hscales, layout, rows, k, 1.0f);
        o.h.ld = ld;
        o.h.batch = L;
        st = tetra_quantize_host(&src, &o.h, TETRA_GLOBAL_SCALE_FROM_AMAX);
        CHECK_MSG(st == TETRA_OK, "quantize operand: %s", tetra_last_error());
        free(x);
        o.ddata = tu_dev_alloc(qbytes, 0);
        o.dscales = tu_dev_alloc(sbytes, 0);
        tu_dev_upload(&o.ddata, o.hdata, qbytes);
        tu_dev_upload(&o.dscales, o.hscales, sbytes);
        o.d = o.h;
        o.d.data = o.ddata.ptr;
        o.d.scales = o.dscales.ptr;
        if (gdev) {
            o.dg = tu_dev_alloc(sizeof(float), 0);
            tu_dev_upload(&o.dg, &o.h.global_scale, sizeof(float));
            o.d.global_scale_dev = (float *)o.dg.ptr;
            o.d.global_scale = 1000.0f;
        }
    } else {
        size_t bytes = (size_t)n * tu_dtype_size(dt);
        o.hdata = tu_xmalloc(bytes);
        for (int64_t i = 0; i < n; i++) tu_put_dense(o.hdata, dt, i, (float)tetra_rng_normal(&rng) * mag);
        o.h = tetra_matrix_dense(dt, o.hdata, rows, k);
        o.h.ld = ld;
        o.h.batch = L;
        o.ddata = tu_dev_alloc(bytes, 0);
        tu_dev_upload(&o.ddata, o.hdata, bytes);
        o.d = o.h;
        o.d.data = o.ddata.ptr;
    }
    return o;
}

/* ulp distance between two FP16/BF16 bit patterns of the same sign class */
static int64_t ulp16(uint16_t a, uint16_t b) {
    int64_t ia = (a & 0x8000) ? -(int64_t)(a & 0x7fff) : (int64_t)a;
    int64_t ib = (b & 0x8000) ? -(int64_t)(b & 0x7fff) : (int64_t)b;
    return ia > ib ? ia - ib : ib - ia;
}

static int is_nan16(uint16_t v, tetra_dtype dt) {
    return dt == TETRA_DTYPE_FP16 ? (v & 0x7c00) == 0x7c00 && (v & 0x3ff)
                                  : (v & 0x7f80) == 0x7f80 && (v & 0x7f);
}

typedef struct {
    int64_t m, n, k, L;
    tetra_dtype a_dt, d_dt;
    tetra_scale_layout a_layout, b_layout;
    int bias;            /* -1 none, else a tetra_dtype */
    float alpha;
    int gdev;            /* global scales through device pointers */
    int pad;             /* padded rows for A, B and D */
} gcase;

static void run_case(const gcase *c) {
    const int64_t lda_pad = c->pad ? 32 : 0, ldb_pad = c->pad ? 16 : 0, ldd = c->n + (c->pad ? 3 : 0);
    operand a = make_operand(c->m, c->k, c->L, c->a_dt, c->a_layout, lda_pad, c->gdev, 1.0f);
    operand b = make_operand(c->n, c->k, c->L, TETRA_DTYPE_NVFP4, c->b_layout, ldb_pad, c->gdev, 0.1f);
    size_t dbytes = (size_t)(c->L * c->m * ldd) * tu_dtype_size(c->d_dt);
    uint8_t *hd = (uint8_t *)tu_xmalloc(dbytes), *gd = (uint8_t *)tu_xmalloc(dbytes);
    tu_devbuf dd = tu_dev_alloc(dbytes, POISON), dbias;
    float *bias_f = NULL;
    void *bias_h = NULL;
    tetra_matrix hdm, ddm, ah, bh;
    float alpha_o = c->alpha;
    tetra_gemm_options opt = tetra_gemm_options_default();
    tetra_status st;
    int64_t over = 0, ulp1 = 0, inexact = 0, pad_touched = 0, total = c->L * c->m * c->n;
    double worst = 0.0;
    char label[240];
    snprintf(label, sizeof label,
             "gemm ref M=%lld N=%lld K=%lld L=%lld A=%s(%s) B=%s D=%s bias=%s alpha=%g gdev=%d pad=%d",
             (long long)c->m, (long long)c->n, (long long)c->k, (long long)c->L, tu_dtype_name(c->a_dt),
             c->a_layout == TETRA_SCALE_LINEAR ? "lin" : "swz",
             c->b_layout == TETRA_SCALE_LINEAR ? "lin" : "swz", tu_dtype_name(c->d_dt),
             c->bias < 0 ? "none" : tu_dtype_name((tetra_dtype)c->bias), (double)c->alpha, c->gdev, c->pad);
    memset(&dbias, 0, sizeof dbias);
    if (c->bias >= 0) {
        tetra_dtype bdt = (tetra_dtype)c->bias;
        bias_f = (float *)tu_xmalloc((size_t)c->n * sizeof(float));
        bias_h = tu_xmalloc((size_t)c->n * tu_dtype_size(bdt));
        for (int64_t i = 0; i < c->n; i++) {
            tu_put_dense(bias_h, bdt, i, (float)tetra_rng_normal(&rng));
            bias_f[i] = tu_get_dense(bias_h, bdt, i); /* the oracle sees the stored value */
        }
        dbias = tu_dev_alloc((size_t)c->n * tu_dtype_size(bdt), 0);
        tu_dev_upload(&dbias, bias_h, (size_t)c->n * tu_dtype_size(bdt));
        opt.bias = dbias.ptr;
        opt.bias_dtype = bdt;
    }
    opt.alpha = c->alpha;
    opt.path = TETRA_PATH_REFERENCE;

    memset(hd, POISON, dbytes);
    hdm = tetra_matrix_dense(c->d_dt, hd, c->m, c->n);
    hdm.ld = ldd;
    hdm.batch = c->L;
    ddm = hdm;
    ddm.data = dd.ptr;
    /* tetra_gemm folds host global scales into alpha in FP32 (tetra_gemm_problem); the
     * oracle gets the same folded alpha, so both sides apply the identical scale */
    ah = a.h;
    bh = b.h;
    if (!c->gdev) {
        if (ah.dtype == TETRA_DTYPE_NVFP4) {
            alpha_o *= ah.global_scale;
            ah.global_scale = 1.0f;
        }
        alpha_o *= bh.global_scale;
        bh.global_scale = 1.0f;
    }
    st = tetra_gemm_host(&ah, &bh, &hdm, alpha_o, bias_f, NULL, 0);
    CHECK_MSG(st == TETRA_OK, "%s: oracle: %s", label, tetra_last_error());
    st = tetra_gemm(ctx, &a.d, &b.d, &ddm, &opt);
    CHECK_MSG(st == TETRA_OK, "%s: device: %s", label, tetra_last_error());
    tu_dev_download(&dd, gd, dbytes);

    for (int64_t l = 0; l < c->L; l++)
        for (int64_t m = 0; m < c->m; m++)
            for (int64_t j = 0; j < ldd; j++) {
                int64_t i = (l * c->m + m) * ldd + j;
                if (j >= c->n) { /* padding must stay poisoned */
                    pad_touched += memcmp(hd + i * tu_dtype_size(c->d_dt), gd + i * tu_dtype_size(c->d_dt), tu_dtype_size(c->d_dt)) != 0;
                    continue;
                }
                if (c->d_dt == TETRA_DTYPE_FP32) {
                    float r = ((float *)hd)[i], g = ((float *)gd)[i];
                    double diff = fabs((double)g - (double)r), rel = diff / fmax(fabs((double)r), 1e-30);
                    inexact += memcmp(&r, &g, 4) != 0;
                    if (!(diff <= 1e-6 * fabs((double)r)) && !(diff == 0.0)) over++;
                    if (rel > worst) worst = rel;
                } else {
                    uint16_t r = ((uint16_t *)hd)[i], g = ((uint16_t *)gd)[i];
                    int64_t u = ulp16(r, g);
                    if (r != g) inexact++;
                    if (is_nan16(g, c->d_dt) || is_nan16(r, c->d_dt) || u > 1) over++;
                    else if (u == 1) ulp1++;
                }
            }
    CHECK_MSG(over == 0, "%s: %lld of %lld outputs outside the tolerance (worst FP32 rel %.3g)", label,
              (long long)over, (long long)total, worst);
    CHECK_MSG(ulp1 <= 1 + total / 1000, "%s: %lld of %lld outputs differ by one ulp", label,
              (long long)ulp1, (long long)total);
    CHECK_MSG(pad_touched == 0, "%s: %lld padding elements of D were written", label,
              (long long)pad_touched);
    if (inexact) printf("  note: %s: %lld of %lld outputs not bit-identical\n", label, (long long)inexact,
                        (long long)total);
    tu_dev_check_guards(&dd, label);

    operand_free(&a);
    operand_free(&b);
    tu_dev_free(&dd);
    if (dbias.base) tu_dev_free(&dbias);
    free(hd); free(gd); free(bias_f); free(bias_h);
}

static void bad_argument_tests(void) {
    /* the reference path takes every valid problem; a K mismatch is the API's to refuse */
    operand a = make_operand(4, 32, 1, TETRA_DTYPE_BF16, TETRA_SCALE_LINEAR, 0, 0, 1.0f);
    operand b = make_operand(8, 48, 1, TETRA_DTYPE_NVFP4, TETRA_SCALE_LINEAR, 0, 0, 1.0f);
    tu_devbuf dd = tu_dev_alloc(4 * 8 * 4, 0);
    tetra_matrix d = tetra_matrix_dense(TETRA_DTYPE_FP32, dd.ptr, 4, 8);
    tetra_gemm_options opt = tetra_gemm_options_default();
    opt.path = TETRA_PATH_REFERENCE;
    CHECK_ERR(tetra_gemm(ctx, &a.d, &b.d, &d, &opt), TETRA_ERR_INVALID_ARGUMENT, "K");
    CHECK_ERR(tetra_gemm(NULL, &a.d, &b.d, &d, &opt), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    operand_free(&a);
    operand_free(&b);
    tu_dev_free(&dd);
}

int main(void) {
    static const int64_t ms[] = {1, 7, 33}, ns[] = {1, 9, 130}, ks[] = {16, 48, 272};
    static const tetra_dtype a_dts[] = {TETRA_DTYPE_BF16, TETRA_DTYPE_FP16, TETRA_DTYPE_NVFP4};
    static const tetra_dtype d_dts[] = {TETRA_DTYPE_FP32, TETRA_DTYPE_FP16, TETRA_DTYPE_BF16};
    static const int biases[] = {-1, TETRA_DTYPE_FP32, TETRA_DTYPE_FP16, TETRA_DTYPE_BF16};
    int n = 0;
    ctx = tu_gpu_or_skip("gpu_gemm_reference");
    printf("gpu_gemm_reference: seed %llu\n", (unsigned long long)rng.s);
    bad_argument_tests();

    for (int mi = 0; mi < 3; mi++)
        for (int ni = 0; ni < 3; ni++)
            for (int ki = 0; ki < 3; ki++)
                for (int ai = 0; ai < 3; ai++)
                    for (int di = 0; di < 3; di++, n++) {
                        gcase c;
                        c.m = ms[mi]; c.n = ns[ni]; c.k = ks[ki];
                        c.L = (n % 2) ? 3 : 1;
                        c.a_dt = a_dts[ai];
                        c.d_dt = d_dts[di];
                        c.a_layout = (n / 2) % 2 ? TETRA_SCALE_SWIZZLED_128X4 : TETRA_SCALE_LINEAR;
                        c.b_layout = (n / 3) % 2 ? TETRA_SCALE_SWIZZLED_128X4 : TETRA_SCALE_LINEAR;
                        c.bias = biases[n % 4];
                        c.alpha = (n % 5) == 0 ? 1.0f : (n % 5) == 1 ? -0.75f : 1.3f;
                        c.gdev = (n / 4) % 2;
                        c.pad = (n / 5) % 2;
                        run_case(&c);
                    }
    /* the medium case, each A kind, FP32 and BF16 out */
    for (int ai = 0; ai < 3; ai++)
        for (int di = 0; di < 3; di += 2) {
            gcase c;
            c.m = 256; c.n = 512; c.k = 1024; c.L = 1;
            c.a_dt = a_dts[ai];
            c.d_dt = d_dts[di];
            c.a_layout = TETRA_SCALE_SWIZZLED_128X4;
            c.b_layout = di ? TETRA_SCALE_LINEAR : TETRA_SCALE_SWIZZLED_128X4;
            c.bias = di ? TETRA_DTYPE_BF16 : -1;
            c.alpha = 0.5f;
            c.gdev = ai % 2;
            c.pad = 0;
            run_case(&c);
        }
    tetra_context_destroy(ctx);
    return tu_finish("gpu_gemm_reference");
}
