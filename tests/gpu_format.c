/* gpu_format.c - the GPU format core (tetra_quantize, tetra_dequantize,
 * tetra_convert_scales) against the host format core, bit for bit, on random and
 * adversarial inputs, odd shapes, batches with strides and both scale layouts; the
 * non-finite contract; and argument validation of the three entry points.
 *
 * Every output buffer (host and device) starts from the same poison byte and is
 * compared whole, so bytes a kernel must not touch (row and batch padding) are checked
 * too; device buffers carry sentinels that catch out-of-bounds writes. */
#include <math.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "testutil.h"

#define POISON 0xCD

static tetra_context *ctx;
static tetra_rng rng = {20261201ull};

/* ------------------------------------------------------------------ helpers */

static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Compare two byte buffers; report the first mismatch. */
static int same_bytes(const uint8_t *want, const uint8_t *got, size_t n, const char *what,
                      const char *label) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (want[i] != got[i]) {
            if (!bad) first = i;
            bad++;
        }
    if (bad) {
        CHECK_MSG(bad == 0, "%s: %s: %zu of %zu bytes differ; first at %zu: want 0x%02x got 0x%02x",
                  label, what, bad, n, first, want[first], got[first]);
        return 0;
    }
    return 1;
}

/* The device run of a case (status st, checked right after the call) succeeded and left
 * exactly the host's n bytes (want) in d, inside its guards; back is n bytes of scratch. */
static void check_device_output(tetra_status st, const tu_devbuf *d, uint8_t *back, const uint8_t *want, size_t n,
                                const char *what, const char *label) {
    CHECK_MSG(st == TETRA_OK, "%s: device: %s", label, tetra_last_error());
    tu_dev_download(d, back, n);
    same_bytes(want, back, n, what, label);
    tu_dev_check_guards(d, label);
}

/* Geometry of one test case's buffers. */
typedef struct {
    int64_t rows, cols, L;
    tetra_dtype dt;
    tetra_scale_layout layout;
    int strides;             /* 0 packed, 1 padded and 16-byte aligned, 2 padded and odd */
    int64_t ld, bs;          /* dense, elements */
    int64_t qld, qbs;        /* NVFP4 values, 4-bit elements */
    int64_t sld, sbs;        /* scales, bytes (sld 0 for swizzled) */
    size_t dense_bytes, q_bytes, s_bytes;
} geom;

static geom make_geom(int64_t rows, int64_t cols, int64_t L, tetra_dtype dt,
                      tetra_scale_layout layout, int strides) {
    geom g;
    int64_t nkb = cols / 16, per_batch_scales;
    memset(&g, 0, sizeof g);
    g.rows = rows; g.cols = cols; g.L = L; g.dt = dt; g.layout = layout; g.strides = strides;
    g.ld = cols + (strides == 1 ? 16 : strides == 2 ? 3 : 0);
    g.bs = rows * g.ld + (strides == 1 ? 64 : strides == 2 ? 5 : 0);
    g.qld = cols + (strides == 1 ? 32 : strides == 2 ? 2 : 0);
    g.qbs = rows * g.qld + (strides == 1 ? 64 : strides == 2 ? 6 : 0);
    g.sld = layout == TETRA_SCALE_LINEAR ? nkb + (strides == 1 ? 4 : strides == 2 ? 3 : 0) : 0;
    per_batch_scales = layout == TETRA_SCALE_LINEAR
                           ? rows * g.sld
                           : (int64_t)tetra_nvfp4_scale_bytes(rows, cols, TETRA_SCALE_SWIZZLED_128X4);
    g.sbs = per_batch_scales + (strides == 1 ? 16 : strides == 2 ? 7 : 0);
    g.dense_bytes = (size_t)(L * g.bs) * tu_dtype_size(dt);
    g.q_bytes = (size_t)(L * g.qbs / 2);
    g.s_bytes = (size_t)(L * g.sbs);
    return g;
}

static tetra_matrix dense_mat(const geom *g, tetra_dtype dt, void *data) {
    tetra_matrix m = tetra_matrix_dense(dt, data, g->rows, g->cols);
    m.ld = g->ld;
    m.batch = g->L;
    m.batch_stride = g->bs;
    return m;
}

static tetra_matrix q_mat(const geom *g, void *data, void *scales, float gs) {
    tetra_matrix m = tetra_matrix_nvfp4(data, scales, g->layout, g->rows, g->cols, gs);
    m.ld = g->qld;
    m.batch = g->L;
    m.batch_stride = g->qbs;
    m.scale_ld = g->sld;
    m.scale_batch_stride = g->sbs;
    return m;
}

/* Fill the dense host buffer: padding (between rows and batches) holds NaN, which a
 * kernel reading out of its rows would turn into a visible difference. Returns amax. */
enum { PAT_RANDOM = 0, PAT_ADVERSARIAL = 1, PAT_ZERO = 2, PAT_NEAR_TIE = 3, PAT_TINY = 4, PAT_HUGE = 5 };

/* PAT_NEAR_TIE: the global scale the case quantizes with (set by the caller). Every block
 * gets scale s0 * 2^e exactly (element 0 is 6 * s0 * 2^e * g) and its other elements
 * quotients x / (s * g) within a few FP32 ulps of an E2M1 value or midpoint: 16-bit
 * inputs hold t * s0 * 2^e, so g = 1 + k * 2^-23 moves the quotient by ~k ulps; FP32
 * inputs are RN(t * d) moved by -3..3 ulps, for any g. This is where a quotient computed
 * any other way than by one IEEE division would first show. */
static float near_tie_g = 1.0f;

static float near_tie_value(tetra_dtype dt, int j, double s0e) {
    static const double t[14] = {0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6};
    double sign = (tetra_rng_next(&rng) & 1) ? -1.0 : 1.0;
    double tv = j == 0 ? 6.0 : t[tetra_rng_next(&rng) % 14];
    if (dt != TETRA_DTYPE_FP32 || j == 0) return (float)(sign * tv * s0e * (j == 0 ? near_tie_g : 1.0));
    {
        float d = (float)s0e * near_tie_g, x = (float)tv * d;
        uint32_t u;
        memcpy(&u, &x, 4);
        u += (uint32_t)((int)(tetra_rng_next(&rng) % 7) - 3);
        memcpy(&x, &u, 4);
        return (float)sign * x;
    }
}

static float fill_dense(const geom *g, void *buf, int pattern) {
    float amax = 0.0f;
    int64_t total = g->L * g->bs;
    for (int64_t i = 0; i < total; i++) tu_put_dense(buf, g->dt, i, NAN);
    for (int64_t l = 0; l < g->L; l++)
        for (int64_t r = 0; r < g->rows; r++)
            for (int64_t kb = 0; kb < g->cols / 16; kb++) {
                int kind = pattern == PAT_ADVERSARIAL ? (int)(tetra_rng_next(&rng) % 7) : 0;
                double tiny = pow(10.0, -2.0 - 5.0 * tetra_rng_uniform(&rng));
                int e = (int)(tetra_rng_next(&rng) % 6) - 3;
                /* PAT_NEAR_TIE: block scale s0 * 2^e, s0 any E4M3 mantissa */
                double s0e = ldexp(1.0 + (double)(tetra_rng_next(&rng) % 8) / 8.0, (int)(tetra_rng_next(&rng) % 9) - 4);
                if (pattern == PAT_ZERO) kind = -1;
                if (pattern >= PAT_NEAR_TIE) kind = 10 + pattern;
                for (int j = 0; j < 16; j++) {
                    double n = tetra_rng_normal(&rng), v;
                    int64_t i = l * g->bs + r * g->ld + kb * 16 + j;
                    switch (kind) {
                    case 10 + PAT_NEAR_TIE: v = near_tie_value(g->dt, j, s0e); break;
                    case 10 + PAT_TINY: v = ldexp(n, -100); break; /* s * g below 2^-90 */
                    case 10 + PAT_HUGE: v = ldexp(n, 100); break;  /* s * g above 2^90 */
                    case -1: v = (j & 1) ? -0.0 : 0.0; break;
                    case 1: v = 0.0; break;                 /* all-zero block */
                    case 2: v = n * tiny; break;            /* subnormal / zero block scales */
                    case 3: v = n * 100.0; break;           /* the block that sets amax */
                    case 4:                                 /* on the E2M1 grid: ties */
                        v = ldexp((double)((int)(tetra_rng_next(&rng) % 25) - 12) * 0.25, e);
                        break;
                    case 5: v = j == 7 ? n : -0.0; break;   /* one value among signed zeros */
                    default: v = n; break;
                    }
                    tu_put_dense(buf, g->dt, i, (float)v);
                    if (fabsf(tu_get_dense(buf, g->dt, i)) > amax) amax = fabsf(tu_get_dense(buf, g->dt, i));
                }
            }
    return amax;
}

/* ------------------------------------------------------------------ quantize */

enum { G_FROM_AMAX = 0, G_HOST = 1, G_DEVICE = 2 };

/* One quantize case; then dequantize its result to every dense dtype. */
static void quantize_case(int64_t rows, int64_t cols, int64_t L, tetra_dtype dt,
                          tetra_scale_layout layout, int strides, int gmode, int pattern,
                          double g_factor) {
    geom g = make_geom(rows, cols, L, dt, layout, strides);
    char label[200];
    void *hsrc = tu_xmalloc(g.dense_bytes);
    uint8_t *hq = (uint8_t *)tu_xmalloc(g.q_bytes), *hs = (uint8_t *)tu_xmalloc(g.s_bytes);
    uint8_t *dq_back = (uint8_t *)tu_xmalloc(g.q_bytes), *ds_back = (uint8_t *)tu_xmalloc(g.s_bytes);
    float amax = fill_dense(&g, hsrc, pattern), gs = 1.0f, gdev_val = 0.0f;
    tetra_global_scale_mode mode =
        gmode == G_FROM_AMAX ? TETRA_GLOBAL_SCALE_FROM_AMAX : TETRA_GLOBAL_SCALE_SUPPLIED;
    tetra_matrix hsm, hqm, dsm, dqm;
    tu_devbuf dsrc, dq, ds, dg;
    tetra_status st;
    snprintf(label, sizeof label,
             "quantize %s %lldx%lld L=%lld %s strides=%d gmode=%d pattern=%d gf=%g", tu_dtype_name(dt),
             (long long)rows, (long long)cols, (long long)L,
             layout == TETRA_SCALE_LINEAR ? "linear" : "swizzled", strides, gmode, pattern, g_factor);
    /* g_factor 0 asks for g = 2^-5 exactly, so grid values hit E2M1 ties exactly */
    if (gmode != G_FROM_AMAX)
        gs = pattern == PAT_NEAR_TIE ? near_tie_g
             : g_factor == 0.0      ? 0.03125f
                                    : (float)((amax > 0.0f ? amax / 2688.0 : 1.0) * g_factor);

    /* host reference */
    memset(hq, POISON, g.q_bytes);
    memset(hs, POISON, g.s_bytes);
    hsm = dense_mat(&g, dt, hsrc);
    hqm = q_mat(&g, hq, hs, gs);
    st = tetra_quantize_host(&hsm, &hqm, mode);
    CHECK_MSG(st == TETRA_OK, "%s: host: %s", label, tetra_last_error());

    /* device */
    dsrc = tu_dev_alloc(g.dense_bytes, 0);
    tu_dev_upload(&dsrc, hsrc, g.dense_bytes);
    dq = tu_dev_alloc(g.q_bytes, POISON);
    ds = tu_dev_alloc(g.s_bytes, POISON);
    dg = tu_dev_alloc(sizeof(float), POISON);
    dsm = dense_mat(&g, dt, dsrc.ptr);
    dqm = q_mat(&g, dq.ptr, ds.ptr, gmode == G_HOST ? gs : 777.0f);
    if (gmode == G_DEVICE) tu_dev_upload(&dg, &gs, sizeof gs);
    if (gmode != G_HOST) dqm.global_scale_dev = (float *)dg.ptr;
    st = tetra_quantize(ctx, &dsm, &dqm, mode);
    CHECK_MSG(st == TETRA_OK, "%s: device: %s", label, tetra_last_error());
    tu_dev_download(&dq, dq_back, g.q_bytes);
    tu_dev_download(&ds, ds_back, g.s_bytes);
    same_bytes(hq, dq_back, g.q_bytes, "packed values", label);
    same_bytes(hs, ds_back, g.s_bytes, "block scales", label);
    tu_dev_download(&dg, &gdev_val, sizeof gdev_val);
    if (gmode == G_FROM_AMAX)
        CHECK_MSG(f32_bits(gdev_val) == f32_bits(hqm.global_scale),
                  "%s: device global scale %.9g, host %.9g", label, (double)gdev_val,
                  (double)hqm.global_scale);
    if (gmode == G_DEVICE)
        CHECK_MSG(f32_bits(gdev_val) == f32_bits(gs), "%s: supplied device scale was modified", label);
    tu_dev_check_guards(&dq, label);
    tu_dev_check_guards(&ds, label);
    tu_dev_check_guards(&dg, label);

    /* dequantize the (identical) result back to each dense dtype */
    for (int od = 0; od < 3; od++) {
        tetra_dtype odt = od == 0 ? TETRA_DTYPE_FP32 : od == 1 ? TETRA_DTYPE_FP16 : TETRA_DTYPE_BF16;
        geom og = make_geom(rows, cols, L, odt, layout, (strides + od) % 3);
        uint8_t *hout = (uint8_t *)tu_xmalloc(og.dense_bytes), *dback = (uint8_t *)tu_xmalloc(og.dense_bytes);
        tu_devbuf dout = tu_dev_alloc(og.dense_bytes, POISON);
        tetra_matrix hom = dense_mat(&og, odt, hout), dom = dense_mat(&og, odt, dout.ptr);
        tetra_matrix hin = q_mat(&g, hq, hs, hqm.global_scale);
        tetra_matrix din = q_mat(&g, dq.ptr, ds.ptr, hqm.global_scale);
        char dl[260];
        snprintf(dl, sizeof dl, "%s -> dequantize %s strides=%d%s", label, tu_dtype_name(odt),
                 og.strides, gmode != G_HOST ? " (device g)" : "");
        memset(hout, POISON, og.dense_bytes);
        st = tetra_dequantize_host(&hin, &hom);
        CHECK_MSG(st == TETRA_OK, "%s: host: %s", dl, tetra_last_error());
        /* with a device scale, the host field is poisoned so it cannot be used by mistake */
        if (gmode != G_HOST) {
            din.global_scale = 555.0f;
            din.global_scale_dev = (float *)dg.ptr;
        }
        st = tetra_dequantize(ctx, &din, &dom);
        check_device_output(st, &dout, dback, hout, og.dense_bytes, "dense values", dl);
        tu_dev_free(&dout);
        free(hout);
        free(dback);
    }
    tu_dev_free(&dsrc); tu_dev_free(&dq); tu_dev_free(&ds); tu_dev_free(&dg);
    free(hsrc); free(hq); free(hs); free(dq_back); free(ds_back);
}

/* Dequantize arbitrary bytes: every code, every non-NaN scale byte (signed ones too). */
static void dequantize_random_case(int64_t rows, int64_t cols, int64_t L, tetra_dtype odt,
                                   tetra_scale_layout layout, int strides) {
    geom g = make_geom(rows, cols, L, TETRA_DTYPE_FP32, layout, strides);
    geom og = make_geom(rows, cols, L, odt, layout, (strides + 1) % 3);
    uint8_t *hq = (uint8_t *)tu_xmalloc(g.q_bytes), *hs = (uint8_t *)tu_xmalloc(g.s_bytes);
    uint8_t *hout = (uint8_t *)tu_xmalloc(og.dense_bytes), *dback = (uint8_t *)tu_xmalloc(og.dense_bytes);
    tu_devbuf dq = tu_dev_alloc(g.q_bytes, 0), ds = tu_dev_alloc(g.s_bytes, 0);
    tu_devbuf dout = tu_dev_alloc(og.dense_bytes, POISON);
    float gs = (float)(0.01 + tetra_rng_uniform(&rng));
    tetra_matrix hin, din, hom, dom;
    tetra_status st;
    char label[160];
    snprintf(label, sizeof label, "dequantize random bytes %lldx%lld L=%lld %s -> %s",
             (long long)rows, (long long)cols, (long long)L,
             layout == TETRA_SCALE_LINEAR ? "linear" : "swizzled", tu_dtype_name(odt));
    for (size_t i = 0; i < g.q_bytes; i++) hq[i] = (uint8_t)tetra_rng_next(&rng);
    for (size_t i = 0; i < g.s_bytes; i++) {
        uint8_t b = (uint8_t)tetra_rng_next(&rng);
        hs[i] = (b & 0x7f) == 0x7f ? 0x3c : b; /* NaN scales: NaN payloads may differ */
    }
    tu_dev_upload(&dq, hq, g.q_bytes);
    tu_dev_upload(&ds, hs, g.s_bytes);
    hin = q_mat(&g, hq, hs, gs);
    din = q_mat(&g, dq.ptr, ds.ptr, gs);
    hom = dense_mat(&og, odt, hout);
    dom = dense_mat(&og, odt, dout.ptr);
    memset(hout, POISON, og.dense_bytes);
    st = tetra_dequantize_host(&hin, &hom);
    CHECK_MSG(st == TETRA_OK, "%s: host: %s", label, tetra_last_error());
    st = tetra_dequantize(ctx, &din, &dom);
    check_device_output(st, &dout, dback, hout, og.dense_bytes, "dense values", label);
    tu_dev_free(&dq); tu_dev_free(&ds); tu_dev_free(&dout);
    free(hq); free(hs); free(hout); free(dback);
}

/* ------------------------------------------------------------------ convert scales */

static void convert_case(int64_t rows, int64_t cols, int64_t L, tetra_scale_layout from,
                         tetra_scale_layout to, int s_strides, int d_strides) {
    geom gs = make_geom(rows, cols, L, TETRA_DTYPE_FP32, from, s_strides);
    geom gd = make_geom(rows, cols, L, TETRA_DTYPE_FP32, to, d_strides);
    uint8_t *hsrc = (uint8_t *)tu_xmalloc(gs.s_bytes), *hdst = (uint8_t *)tu_xmalloc(gd.s_bytes);
    uint8_t *back = (uint8_t *)tu_xmalloc(gd.s_bytes), hdummy[16];
    tu_devbuf dsrc = tu_dev_alloc(gs.s_bytes, 0), ddst = tu_dev_alloc(gd.s_bytes, POISON);
    tu_devbuf ddata = tu_dev_alloc(16, 0);
    tetra_matrix hs, hd, ds, dd;
    tetra_status st;
    char label[160];
    snprintf(label, sizeof label, "convert %lldx%lld L=%lld %s(strides %d) -> %s(strides %d)",
             (long long)rows, (long long)cols, (long long)L,
             from == TETRA_SCALE_LINEAR ? "linear" : "swizzled", s_strides,
             to == TETRA_SCALE_LINEAR ? "linear" : "swizzled", d_strides);
    for (size_t i = 0; i < gs.s_bytes; i++) hsrc[i] = (uint8_t)tetra_rng_next(&rng);
    memset(hdst, POISON, gd.s_bytes);
    tu_dev_upload(&dsrc, hsrc, gs.s_bytes);
    /* packed values are not touched by a conversion; a small dummy stands in */
    hs = q_mat(&gs, hdummy, hsrc, 1.0f);
    hd = q_mat(&gd, hdummy, hdst, 1.0f);
    ds = q_mat(&gs, ddata.ptr, dsrc.ptr, 1.0f);
    dd = q_mat(&gd, ddata.ptr, ddst.ptr, 1.0f);
    st = tetra_convert_scales_host(&hs, &hd);
    CHECK_MSG(st == TETRA_OK, "%s: host: %s", label, tetra_last_error());
    st = tetra_convert_scales(ctx, &ds, &dd);
    check_device_output(st, &ddst, back, hdst, gd.s_bytes, "scales", label);
    tu_dev_free(&dsrc); tu_dev_free(&ddst); tu_dev_free(&ddata);
    free(hsrc); free(hdst); free(back);
}

/* ------------------------------------------------------------------ non-finite contract */

/* SUPPLIED g: blocks with NaN/Inf get scale 0x7F and zero codes, every other block is
 * exactly the host result; dequantizing yields NaN exactly in those blocks. */
static void nonfinite_supplied_case(tetra_dtype dt, tetra_scale_layout layout) {
    geom g = make_geom(37, 80, 2, dt, layout, 0);
    const int64_t nkb = g.cols / 16;
    const float bad_vals[3] = {NAN, INFINITY, -INFINITY};
    const int64_t bad_at[3][3] = {{0, 3, 1}, {1, 5, 0}, {1, 36, 4}}; /* (l, r, kb) */
    void *hsrc = tu_xmalloc(g.dense_bytes);
    uint8_t *hq = (uint8_t *)tu_xmalloc(g.q_bytes), *hs = (uint8_t *)tu_xmalloc(g.s_bytes);
    uint8_t *qb = (uint8_t *)tu_xmalloc(g.q_bytes), *sb = (uint8_t *)tu_xmalloc(g.s_bytes);
    float *out = (float *)tu_xmalloc((size_t)(g.L * g.rows * g.cols) * sizeof(float));
    float amax = fill_dense(&g, hsrc, PAT_RANDOM), gs = amax / 2688.0f;
    tu_devbuf dsrc = tu_dev_alloc(g.dense_bytes, 0), dq = tu_dev_alloc(g.q_bytes, POISON);
    tu_devbuf ds = tu_dev_alloc(g.s_bytes, POISON), dout;
    tetra_matrix hsm = dense_mat(&g, dt, hsrc), hqm = q_mat(&g, hq, hs, gs);
    tetra_matrix dsm, dqm, dom;
    tetra_status st;
    char label[120];
    snprintf(label, sizeof label, "non-finite supplied %s %s", tu_dtype_name(dt),
             layout == TETRA_SCALE_LINEAR ? "linear" : "swizzled");
    /* expected: the host result for zeros in place of the bad blocks, then patched */
    memset(hq, POISON, g.q_bytes);
    memset(hs, POISON, g.s_bytes);
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 16; j++)
            tu_put_dense(hsrc, dt, bad_at[b][0] * g.bs + bad_at[b][1] * g.ld + bad_at[b][2] * 16 + j, 0.0f);
    st = tetra_quantize_host(&hsm, &hqm, TETRA_GLOBAL_SCALE_SUPPLIED);
    CHECK_MSG(st == TETRA_OK, "%s: host: %s", label, tetra_last_error());
    for (int b = 0; b < 3; b++) {
        int64_t l = bad_at[b][0], r = bad_at[b][1], kb = bad_at[b][2];
        memset(hq + (l * g.qbs + r * g.qld + kb * 16) / 2, 0, 8);
        hs[l * g.sbs + (layout == TETRA_SCALE_LINEAR ? r * g.sld + kb
                                                      : (r / 128) * 512 * ((nkb + 3) / 4) + (kb / 4) * 512 +
                                                            16 * (r % 32) + 4 * ((r % 128) / 32) + kb % 4)] = 0x7F;
        /* one bad value in the block, the rest stays ordinary */
        tu_put_dense(hsrc, dt, l * g.bs + r * g.ld + kb * 16 + 5, bad_vals[b]);
        tu_put_dense(hsrc, dt, l * g.bs + r * g.ld + kb * 16 + 6, 1.0f);
    }
    st = tetra_quantize_host(&hsm, &hqm, TETRA_GLOBAL_SCALE_SUPPLIED);
    CHECK_ERR(st, TETRA_ERR_NON_FINITE, "non-finite");
    tu_dev_upload(&dsrc, hsrc, g.dense_bytes);
    dsm = dense_mat(&g, dt, dsrc.ptr);
    dqm = q_mat(&g, dq.ptr, ds.ptr, gs);
    st = tetra_quantize(ctx, &dsm, &dqm, TETRA_GLOBAL_SCALE_SUPPLIED);
    CHECK_MSG(st == TETRA_OK, "%s: device: %s", label, tetra_last_error());
    tu_dev_download(&dq, qb, g.q_bytes);
    tu_dev_download(&ds, sb, g.s_bytes);
    same_bytes(hq, qb, g.q_bytes, "packed values", label);
    same_bytes(hs, sb, g.s_bytes, "block scales", label);
    /* dequantized: NaN exactly in the flagged blocks */
    {
        geom og = make_geom(g.rows, g.cols, g.L, TETRA_DTYPE_FP32, layout, 0);
        int wrong = 0;
        dout = tu_dev_alloc(og.dense_bytes, POISON);
        dom = dense_mat(&og, TETRA_DTYPE_FP32, dout.ptr);
        st = tetra_dequantize(ctx, &dqm, &dom);
        CHECK_MSG(st == TETRA_OK, "%s: dequantize: %s", label, tetra_last_error());
        tu_dev_download(&dout, out, og.dense_bytes);
        for (int64_t l = 0; l < g.L; l++)
            for (int64_t r = 0; r < g.rows; r++)
                for (int64_t c = 0; c < g.cols; c++) {
                    int flagged = 0;
                    for (int b = 0; b < 3; b++)
                        flagged |= bad_at[b][0] == l && bad_at[b][1] == r && bad_at[b][2] == c / 16;
                    wrong += flagged != (int)isnan(out[(l * g.rows + r) * g.cols + c]);
                }
        CHECK_MSG(wrong == 0, "%s: %d dequantized values are NaN where they should not be, or not NaN",
                  label, wrong);
        tu_dev_check_guards(&dout, label);
        tu_dev_free(&dout);
    }
    tu_dev_check_guards(&dq, label);
    tu_dev_check_guards(&ds, label);
    tu_dev_free(&dsrc); tu_dev_free(&dq); tu_dev_free(&ds);
    free(hsrc); free(hq); free(hs); free(qb); free(sb); free(out);
}

/* A tensor whose global scale is unusable: FROM_AMAX over NaN or Inf input (g becomes
 * NaN), or a supplied device scale that is NaN, 0 or negative. Every real block must
 * read scale 0x7F with zero codes, swizzled padding 0, and dequantize to all NaN. */
static void nonfinite_global_case(tetra_dtype dt, tetra_scale_layout layout, int how) {
    geom g = make_geom(130, 48, 2, dt, layout, 1);
    const int64_t nkb = g.cols / 16;
    void *hsrc = tu_xmalloc(g.dense_bytes);
    uint8_t *qb = (uint8_t *)tu_xmalloc(g.q_bytes), *sb = (uint8_t *)tu_xmalloc(g.s_bytes);
    float *out = (float *)tu_xmalloc((size_t)(g.L * g.rows * g.cols) * sizeof(float));
    float gval = 0.0f, supplied[3] = {NAN, 0.0f, -1.0f};
    tu_devbuf dsrc = tu_dev_alloc(g.dense_bytes, 0), dq = tu_dev_alloc(g.q_bytes, POISON);
    tu_devbuf ds = tu_dev_alloc(g.s_bytes, POISON), dg = tu_dev_alloc(sizeof(float), POISON), dout;
    tetra_matrix dsm, dqm, dom;
    tetra_status st;
    int64_t bad_codes = 0, bad_scales = 0, bad_pad = 0, not_nan = 0;
    char label[120];
    snprintf(label, sizeof label, "non-finite global scale %s %s how=%d", tu_dtype_name(dt),
             layout == TETRA_SCALE_LINEAR ? "linear" : "swizzled", how);
    fill_dense(&g, hsrc, PAT_RANDOM);
    if (how == 0) tu_put_dense(hsrc, dt, 1 * g.bs + 129 * g.ld + 47, NAN);
    if (how == 1) tu_put_dense(hsrc, dt, 0 * g.bs + 64 * g.ld + 17, -INFINITY);
    if (how >= 2) tu_dev_upload(&dg, &supplied[how - 2], sizeof(float));
    tu_dev_upload(&dsrc, hsrc, g.dense_bytes);
    dsm = dense_mat(&g, dt, dsrc.ptr);
    dqm = q_mat(&g, dq.ptr, ds.ptr, 1.0f);
    dqm.global_scale_dev = (float *)dg.ptr;
    st = tetra_quantize(ctx, &dsm, &dqm,
                        how < 2 ? TETRA_GLOBAL_SCALE_FROM_AMAX : TETRA_GLOBAL_SCALE_SUPPLIED);
    CHECK_MSG(st == TETRA_OK, "%s: %s", label, tetra_last_error());
    tu_dev_download(&dq, qb, g.q_bytes);
    tu_dev_download(&ds, sb, g.s_bytes);
    tu_dev_download(&dg, &gval, sizeof gval);
    if (how < 2) CHECK_MSG(isnan(gval), "%s: FROM_AMAX wrote g = %g, want NaN", label, (double)gval);
    for (int64_t l = 0; l < g.L; l++)
        for (int64_t r = 0; r < g.rows; r++) {
            for (int64_t c = 0; c < g.cols / 2; c++) bad_codes += qb[(l * g.qbs + r * g.qld) / 2 + c] != 0;
            for (int64_t kb = 0; kb < nkb; kb++) {
                int64_t off = layout == TETRA_SCALE_LINEAR
                                  ? r * g.sld + kb
                                  : (r / 128) * 512 * ((nkb + 3) / 4) + (kb / 4) * 512 + 16 * (r % 32) +
                                        4 * ((r % 128) / 32) + kb % 4;
                bad_scales += sb[l * g.sbs + off] != 0x7F;
            }
        }
    if (layout == TETRA_SCALE_SWIZZLED_128X4) {
        /* padding of each batch: every byte of the swizzled buffer that is not a real scale */
        int64_t per = (int64_t)tetra_nvfp4_scale_bytes(g.rows, g.cols, layout);
        for (int64_t l = 0; l < g.L; l++)
            for (int64_t o = 0; o < per; o++) {
                int64_t atom = o / 512, w = o % 512, kt = atom % ((nkb + 3) / 4), rt = atom / ((nkb + 3) / 4);
                int64_t r = rt * 128 + 32 * ((w % 16) / 4) + w / 16, kb = kt * 4 + w % 4;
                if (r >= g.rows || kb >= nkb) bad_pad += sb[l * g.sbs + o] != 0;
            }
    }
    CHECK_MSG(bad_codes == 0 && bad_scales == 0 && bad_pad == 0,
              "%s: %lld nonzero codes, %lld scales not 0x7F, %lld nonzero padding bytes", label,
              (long long)bad_codes, (long long)bad_scales, (long long)bad_pad);
    {
        geom og = make_geom(g.rows, g.cols, g.L, TETRA_DTYPE_FP32, layout, 0);
        dout = tu_dev_alloc(og.dense_bytes, 0);
        dom = dense_mat(&og, TETRA_DTYPE_FP32, dout.ptr);
        st = tetra_dequantize(ctx, &dqm, &dom);
        CHECK_MSG(st == TETRA_OK, "%s: dequantize: %s", label, tetra_last_error());
        tu_dev_download(&dout, out, og.dense_bytes);
        for (int64_t i = 0; i < g.L * g.rows * g.cols; i++) not_nan += !isnan(out[i]);
        CHECK_MSG(not_nan == 0, "%s: %lld dequantized values are not NaN", label, (long long)not_nan);
        tu_dev_free(&dout);
    }
    tu_dev_check_guards(&dq, label);
    tu_dev_check_guards(&ds, label);
    tu_dev_check_guards(&dg, label);
    tu_dev_free(&dsrc); tu_dev_free(&dq); tu_dev_free(&ds); tu_dev_free(&dg);
    free(hsrc); free(qb); free(sb); free(out);
}

/* ------------------------------------------------------------------ bad arguments */

static void bad_argument_tests(void) {
    const int64_t rows = 8, cols = 32;
    tu_devbuf dsrc = tu_dev_alloc((size_t)(rows * cols) * 2, 0);
    tu_devbuf dq = tu_dev_alloc((size_t)(rows * cols / 2), 0), ds = tu_dev_alloc(4096, 0);
    tu_devbuf ds2 = tu_dev_alloc(4096, 0), dg = tu_dev_alloc(4, 0);
    tu_devbuf dout = tu_dev_alloc((size_t)(rows * cols) * 4, 0);
    uint16_t *host = (uint16_t *)tu_xmalloc((size_t)(rows * cols) * 2);
    uint8_t *host_scales = (uint8_t *)tu_xmalloc(4096);
    tetra_matrix src = tetra_matrix_dense(TETRA_DTYPE_BF16, dsrc.ptr, rows, cols);
    tetra_matrix q = tetra_matrix_nvfp4(dq.ptr, ds.ptr, TETRA_SCALE_LINEAR, rows, cols, 1.0f);
    tetra_matrix q2 = tetra_matrix_nvfp4(dq.ptr, ds2.ptr, TETRA_SCALE_SWIZZLED_128X4, rows, cols, 1.0f);
    tetra_matrix out = tetra_matrix_dense(TETRA_DTYPE_FP32, dout.ptr, rows, cols);
    tetra_matrix m;
    memset(host, 0, (size_t)(rows * cols) * 2);

    /* the valid calls succeed (so the failures below are about the one bad argument) */
    CHECK(tetra_quantize(ctx, &src, &q, TETRA_GLOBAL_SCALE_SUPPLIED) == TETRA_OK);
    CHECK(tetra_dequantize(ctx, &q, &out) == TETRA_OK);
    CHECK(tetra_convert_scales(ctx, &q, &q2) == TETRA_OK);

    /* tetra_quantize */
    CHECK_ERR(tetra_quantize(NULL, &src, &q, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    CHECK_ERR(tetra_quantize(ctx, NULL, &q, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src");
    CHECK_ERR(tetra_quantize(ctx, &src, NULL, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst");
    m = src; m.data = NULL;
    CHECK_ERR(tetra_quantize(ctx, &m, &q, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src.data");
    m = src; m.data = host;
    CHECK_ERR(tetra_quantize(ctx, &m, &q, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src.data");
    m = q; m.scales = host_scales;
    CHECK_ERR(tetra_quantize(ctx, &src, &m, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst.scales");
    m = q; m.scales = NULL;
    CHECK_ERR(tetra_quantize(ctx, &src, &m, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst.scales");
    m = q; m.rows = rows - 1;
    CHECK_ERR(tetra_quantize(ctx, &src, &m, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst is");
    m = q; m.cols = cols - 16;
    CHECK_ERR(tetra_quantize(ctx, &src, &m, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst is");
    CHECK_ERR(tetra_quantize(ctx, &src, &q, TETRA_GLOBAL_SCALE_FROM_AMAX), TETRA_ERR_INVALID_ARGUMENT,
              "global_scale_dev");
    m = q; m.global_scale_dev = (float *)host_scales;
    CHECK_ERR(tetra_quantize(ctx, &src, &m, TETRA_GLOBAL_SCALE_FROM_AMAX), TETRA_ERR_INVALID_ARGUMENT,
              "dst.global_scale_dev");
    m = q; m.global_scale = NAN;
    CHECK_ERR(tetra_quantize(ctx, &src, &m, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT,
              "dst.global_scale");
    CHECK_ERR(tetra_quantize(ctx, &src, &out, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst.dtype");
    CHECK_ERR(tetra_quantize(ctx, &q, &q, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src.dtype");
    CHECK_ERR(tetra_quantize(ctx, &src, &q, (tetra_global_scale_mode)7), TETRA_ERR_INVALID_ARGUMENT, "mode");

    /* tetra_dequantize */
    CHECK_ERR(tetra_dequantize(NULL, &q, &out), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    CHECK_ERR(tetra_dequantize(ctx, NULL, &out), TETRA_ERR_INVALID_ARGUMENT, "src");
    CHECK_ERR(tetra_dequantize(ctx, &q, NULL), TETRA_ERR_INVALID_ARGUMENT, "dst");
    m = q; m.scales = NULL;
    CHECK_ERR(tetra_dequantize(ctx, &m, &out), TETRA_ERR_INVALID_ARGUMENT, "src.scales");
    m = q; m.data = host;
    CHECK_ERR(tetra_dequantize(ctx, &m, &out), TETRA_ERR_INVALID_ARGUMENT, "src.data");
    m = out; m.data = host;
    CHECK_ERR(tetra_dequantize(ctx, &q, &m), TETRA_ERR_INVALID_ARGUMENT, "dst.data");
    m = out; m.rows = rows + 1;
    CHECK_ERR(tetra_dequantize(ctx, &q, &m), TETRA_ERR_INVALID_ARGUMENT, "dst is");
    CHECK_ERR(tetra_dequantize(ctx, &src, &out), TETRA_ERR_INVALID_ARGUMENT, "src.dtype");
    CHECK_ERR(tetra_dequantize(ctx, &q, &q2), TETRA_ERR_INVALID_ARGUMENT, "dst.dtype");

    /* tetra_convert_scales */
    CHECK_ERR(tetra_convert_scales(NULL, &q, &q2), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    CHECK_ERR(tetra_convert_scales(ctx, NULL, &q2), TETRA_ERR_INVALID_ARGUMENT, "src");
    CHECK_ERR(tetra_convert_scales(ctx, &q, NULL), TETRA_ERR_INVALID_ARGUMENT, "dst");
    m = q2; m.scales = host_scales;
    CHECK_ERR(tetra_convert_scales(ctx, &q, &m), TETRA_ERR_INVALID_ARGUMENT, "dst.scales");
    m = q; m.scales = host_scales;
    CHECK_ERR(tetra_convert_scales(ctx, &m, &q2), TETRA_ERR_INVALID_ARGUMENT, "src.scales");
    m = q2; m.rows = rows * 2;
    CHECK_ERR(tetra_convert_scales(ctx, &q, &m), TETRA_ERR_INVALID_ARGUMENT, "dst is");
    m = q2; m.scales = q.scales;
    CHECK_ERR(tetra_convert_scales(ctx, &q, &m), TETRA_ERR_INVALID_ARGUMENT, "alias");
    CHECK_ERR(tetra_convert_scales(ctx, &q, &out), TETRA_ERR_INVALID_ARGUMENT, "dst.dtype");

    tu_dev_free(&dsrc); tu_dev_free(&dq); tu_dev_free(&ds); tu_dev_free(&ds2); tu_dev_free(&dg);
    tu_dev_free(&dout);
    free(host);
    free(host_scales);
}

/* ------------------------------------------------------------------ rough timing */

/* `gpu_format --bench`: CUDA-event timing of the format kernels at 8192x8192 (median of
 * 20, after warm-up; the 128-512 MiB inputs are far beyond L2). A first look, not the
 * PROTOCOL.md instrument. GB/s counts bytes read + written once. */
static double median_ms(float *t, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            float x = t[j]; t[j] = t[j - 1]; t[j - 1] = x;
        }
    return (double)t[n / 2];
}

static void bench_format(void) {
    const int64_t rows = 8192, cols = 8192;
    static const tetra_dtype dts[] = {TETRA_DTYPE_BF16, TETRA_DTYPE_FP32};
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int di = 0; di < 2; di++) {
        tetra_dtype dt = dts[di];
        size_t dense = (size_t)(rows * cols) * tu_dtype_size(dt), q = (size_t)(rows * cols / 2);
        size_t sc = (size_t)(rows * cols / 16);
        tu_devbuf dd = tu_dev_alloc(dense, 0), dq = tu_dev_alloc(q, 0), ds = tu_dev_alloc(sc, 0);
        tu_devbuf dg = tu_dev_alloc(4, 0);
        tetra_matrix dm = tetra_matrix_dense(dt, dd.ptr, rows, cols);
        tetra_matrix qm = tetra_matrix_nvfp4(dq.ptr, ds.ptr, TETRA_SCALE_SWIZZLED_128X4, rows, cols, 0.001f);
        void *h = tu_xmalloc(dense);
        for (int64_t i = 0; i < rows * cols; i++) tu_put_dense(h, dt, i, (float)tetra_rng_normal(&rng));
        tu_dev_upload(&dd, h, dense);
        free(h);
        for (int op = 0; op < 3; op++) {
            float t[20];
            double bytes = op == 1 ? (double)(2 * dense + q + sc) : (double)(dense + q + sc);
            const char *name = op == 0 ? "quantize SUPPLIED" : op == 1 ? "quantize FROM_AMAX" : "dequantize";
            tetra_status st = TETRA_OK;
            qm.global_scale_dev = op >= 1 ? (float *)dg.ptr : NULL;
            for (int it = -3; it < 20; it++) {
                cudaEventRecord(e0, NULL);
                if (op == 2) st = tetra_dequantize(ctx, &qm, &dm);
                else st = tetra_quantize(ctx, &dm, &qm, op == 1 ? TETRA_GLOBAL_SCALE_FROM_AMAX
                                                                  : TETRA_GLOBAL_SCALE_SUPPLIED);
                cudaEventRecord(e1, NULL);
                cudaEventSynchronize(e1);
                if (it >= 0) cudaEventElapsedTime(&t[it], e0, e1);
            }
            CHECK_MSG(st == TETRA_OK, "bench %s: %s", name, tetra_last_error());
            {
                double ms = median_ms(t, 20);
                printf("bench %-19s %s %lldx%lld swizzled: %8.1f us  %7.1f GB/s (read+write)\n", name,
                       tu_dtype_name(dt), (long long)rows, (long long)cols, ms * 1e3, bytes / (ms * 1e6));
            }
        }
        tu_dev_free(&dd); tu_dev_free(&dq); tu_dev_free(&ds); tu_dev_free(&dg);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
    static const int64_t rows_set[] = {1, 7, 129, 300};
    static const int64_t cols_set[] = {16, 48, 80, 4112};
    static const tetra_dtype dts[] = {TETRA_DTYPE_FP32, TETRA_DTYPE_FP16, TETRA_DTYPE_BF16};
    static const tetra_scale_layout lays[] = {TETRA_SCALE_LINEAR, TETRA_SCALE_SWIZZLED_128X4};
    int n = 0;
    ctx = tu_gpu_or_skip("gpu_format");
    printf("gpu_format: seed %llu\n", (unsigned long long)rng.s);
    if (argc > 1 && strcmp(argv[1], "--bench") == 0) {
        bench_format();
        tetra_context_destroy(ctx);
        return tu_finish("gpu_format --bench");
    }

    bad_argument_tests();

    /* odd shapes: every (rows, cols, dtype, layout); the rest of the options rotate */
    for (int ri = 0; ri < 4; ri++)
        for (int ci = 0; ci < 4; ci++)
            for (int di = 0; di < 3; di++)
                for (int li = 0; li < 2; li++, n++)
                    quantize_case(rows_set[ri], cols_set[ci], 1 + 2 * (n % 2), dts[di], lays[li],
                                  n % 3, (n / 2) % 3, n % 5 == 4 ? PAT_RANDOM : PAT_ADVERSARIAL,
                                  (n / 3) % 4 == 3 ? 1.0 / 64.0 : 1.0);
    /* one shape with every option crossed */
    for (int di = 0; di < 3; di++)
        for (int li = 0; li < 2; li++)
            for (int gm = 0; gm < 3; gm++)
                for (int L = 1; L <= 3; L += 2)
                    for (int s = 0; s < 3; s++)
                        quantize_case(129, 80, L, dts[di], lays[li], s, gm, PAT_ADVERSARIAL, 1.0);
    /* an all-zero tensor (FROM_AMAX gives g = 1), saturation (g too small by 2^12), a
     * power-of-two g (exact ties), and a larger aligned matrix (the vector path) */
    for (int di = 0; di < 3; di++)
        for (int li = 0; li < 2; li++) {
            quantize_case(129, 48, 2, dts[di], lays[li], 1, G_FROM_AMAX, PAT_ZERO, 1.0);
            quantize_case(7, 64, 1, dts[di], lays[li], 0, G_HOST, PAT_ZERO, 1.0);
            quantize_case(300, 272, 3, dts[di], lays[li], 2, G_DEVICE, PAT_ADVERSARIAL, 1.0 / 4096.0);
            quantize_case(64, 256, 1, dts[di], lays[li], 0, G_HOST, PAT_ADVERSARIAL, 0.0);
            quantize_case(512, 8192, 2, dts[di], lays[li], 0, G_FROM_AMAX, PAT_RANDOM, 1.0);
            quantize_case(1, 8192, 1, dts[di], lays[li], 1, G_DEVICE, PAT_ADVERSARIAL, 1.0);
        }
    /* the GPU's block path divides by a per-block reciprocal plus one FMA correction and
     * rounds to E2M1 with an FP32 add: quotients at and next to every tie, for every E4M3
     * scale mantissa, with g = 1 + k ulp (16-bit inputs) or any g (FP32 inputs) */
    for (int di = 0; di < 3; di++)
        for (int k = -4; k <= 4; k++) {
            near_tie_g = k >= 0 ? 1.0f + (float)k * 0x1p-23f : 1.0f + (float)k * 0x1p-24f;
            quantize_case(256, 256, 1, dts[di], lays[k & 1], 0, k & 1 ? G_DEVICE : G_HOST, PAT_NEAR_TIE, 1.0);
            /* arbitrary g (FP16 inputs: small g only, 6 * s0 * g must stay below 65504) */
            near_tie_g = (float)(0.37 + 0.1 * (k + 4)) * (k & 1 || dts[di] == TETRA_DTYPE_FP16 ? 1e-3f : 1e3f);
            quantize_case(128, 512, 1, dts[di], lays[k & 1], 0, G_HOST, PAT_NEAR_TIE, 1.0);
        }
    /* blocks outside the reciprocal path's range take the exact division: s * g below
     * 2^-90 or above 2^90 (FP32/BF16 only: FP16 cannot hold the inputs), and quotients
     * beyond 2^64 (a global scale 2^-80 times too small: every scale saturates) */
    for (int di = 0; di < 3; di++)
        for (int li = 0; li < 2; li++) {
            if (dts[di] != TETRA_DTYPE_FP16) {
                quantize_case(64, 512, 1, dts[di], lays[li], 0, G_FROM_AMAX, PAT_TINY, 1.0);
                quantize_case(64, 512, 1, dts[di], lays[li], 0, G_FROM_AMAX, PAT_HUGE, 1.0);
            }
            quantize_case(64, 512, 1, dts[di], lays[li], 0, G_HOST, PAT_ADVERSARIAL, 0x1p-80);
        }

    /* dequantize arbitrary bytes */
    for (int di = 0; di < 3; di++)
        for (int li = 0; li < 2; li++)
            for (int s = 0; s < 3; s++)
                dequantize_random_case(s == 2 ? 300 : 129, s == 1 ? 4112 : 80, 1 + s, dts[di], lays[li], s);

    /* scale layouts, both directions, with and without strides */
    for (int ri = 0; ri < 4; ri++)
        for (int ci = 0; ci < 4; ci++)
            for (int from = 0; from < 2; from++)
                for (int to = 0; to < 2; to++)
                    convert_case(rows_set[ri], cols_set[ci], 1 + 2 * ((ri + ci) % 2), lays[from], lays[to],
                                 (ri + to) % 3, (ci + from + 1) % 3);

    /* the non-finite contract */
    for (int di = 0; di < 3; di++)
        for (int li = 0; li < 2; li++) {
            nonfinite_supplied_case(dts[di], lays[li]);
            for (int how = 0; how < 5; how++) nonfinite_global_case(dts[di], lays[li], how);
        }

    tetra_context_destroy(ctx);
    return tu_finish("gpu_format");
}
