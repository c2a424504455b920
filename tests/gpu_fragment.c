/* gpu_fragment.c - TETRA_SCALE_FRAGMENT_128X64 on the device:
 *   - tetra_convert_weights writes the same bytes as tetra_convert_weights_host, both
 *     directions, whole buffers (values and scales with their padding, a standard
 *     destination's untouched row and batch padding), L = 2, sentinel guards intact;
 *   - the reference path reads the layout: bit-identical to the standard W's reference run
 *     (BF16 a, M = 1, 5, 33, L = 2);
 *   - refusals: a fragment a, tetra_quantize / dequantize / convert_scales ->
 *     INVALID_ARGUMENT naming the argument.
 * The wgmma-T GEMM on the layout is gated in gpu_gemm.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/float16.h"
#include "testutil.h"

#define TEST_SEED 20261218ull

static const char *lname(tetra_scale_layout l) { return l == TETRA_SCALE_LINEAR ? "linear" : "swizzled"; }

static void convert_case(tetra_context *ctx, long long N, long long K, long long L, tetra_scale_layout lay,
                         long long spad, tetra_scale_layout back) {
    tetra_rng r = {TEST_SEED + (uint64_t)(N * 7 + K + L)};
    tu_stdmat s = tu_std_make(&r, N, K, L, lay, spad, 0.25f, 0x7F), b = tu_std_make(&r, N, K, L, back, 0, 0.25f, 0x7F);
    const size_t FB = tetra_nvfp4_fragment_bytes(N, K) * (size_t)L;
    const size_t SB = tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_FRAGMENT_128X64) * (size_t)L;
    uint8_t *hfv = tu_amalloc(FB), *hfs = tu_amalloc(SB), *dfv = tu_xmalloc(FB), *dfs = tu_xmalloc(SB);
    uint8_t *hbd = tu_xmalloc(b.dbytes), *hbs = tu_xmalloc(b.sbytes);
    tu_devbuf ds = tu_dev_alloc(s.dbytes, 0), dss = tu_dev_alloc(s.sbytes, 0), dv = tu_dev_alloc(FB, 0xAB),
              dsc = tu_dev_alloc(SB, 0xAB), dbd = tu_dev_alloc(b.dbytes, 0xCD), dbs = tu_dev_alloc(b.sbytes, 0xCD);
    tetra_matrix hf = tetra_matrix_nvfp4(hfv, hfs, TETRA_SCALE_FRAGMENT_128X64, N, K, 0.0f);
    tetra_matrix gs = s.m, gf, gb = b.m;
    char what[128];
    int ok1, ok2, ok3, ok4;
    snprintf(what, sizeof what, "N=%lld K=%lld L=%lld %s -> fragment -> %s", N, K, L, lname(lay), lname(back));
    hf.batch = L;
    memset(hfv, 0xAB, FB);
    memset(hfs, 0xAB, SB);
    tu_dev_upload(&ds, s.data, s.dbytes);
    tu_dev_upload(&dss, s.scales, s.sbytes);
    gs.data = ds.ptr;
    gs.scales = dss.ptr;
    gf = hf;
    gf.data = dv.ptr;
    gf.scales = dsc.ptr;
    gb.data = dbd.ptr;
    gb.scales = dbs.ptr;
    CHECK(tetra_convert_weights_host(&s.m, &hf) == TETRA_OK);
    CHECK_MSG(tetra_convert_weights(ctx, &gs, &gf) == TETRA_OK, "%s: %s", what, tetra_last_error());
    CHECK(gf.global_scale == 0.25f);
    tu_dev_download(&dv, dfv, FB);
    tu_dev_download(&dsc, dfs, SB);
    ok1 = memcmp(hfv, dfv, FB) == 0;
    ok2 = memcmp(hfs, dfs, SB) == 0;
    CHECK_MSG(ok1 && ok2, "%s: device fragment bytes differ from the host's (values %d scales %d)", what, ok1, ok2);
    /* back: both sides start from the same poison */
    memset(b.data, 0xCD, b.dbytes);
    memset(b.scales, 0xCD, b.sbytes);
    CHECK(tetra_convert_weights_host(&hf, &b.m) == TETRA_OK);
    CHECK_MSG(tetra_convert_weights(ctx, &gf, &gb) == TETRA_OK, "%s back: %s", what, tetra_last_error());
    tu_dev_download(&dbd, hbd, b.dbytes);
    tu_dev_download(&dbs, hbs, b.sbytes);
    ok3 = memcmp(hbd, b.data, b.dbytes) == 0;
    ok4 = memcmp(hbs, b.scales, b.sbytes) == 0;
    CHECK_MSG(ok3 && ok4, "%s: device standard bytes differ from the host's (data %d scales %d)", what, ok3, ok4);
    tu_dev_check_guards(&dv, "fragment dst values");
    tu_dev_check_guards(&dsc, "fragment dst scales");
    tu_dev_check_guards(&dbd, "standard dst data");
    tu_dev_check_guards(&dbs, "standard dst scales");
    printf("  convert %-48s device == host: %s\n", what, ok1 && ok2 && ok3 && ok4 ? "yes" : "NO");
    tu_dev_free(&ds); tu_dev_free(&dss); tu_dev_free(&dv); tu_dev_free(&dsc); tu_dev_free(&dbd); tu_dev_free(&dbs);
    free(hfv); free(hfs); free(dfv); free(dfs); free(hbd); free(hbs);
    free(s.data); free(s.scales); free(b.data); free(b.scales);
}

/* The reference path: the same W standard (swizzled) and as a fragment b, BF16 X, FP32 and
 * BF16 Y, L batches: the same bits. */
static void ref_case(tetra_context *ctx, long long M, long long N, long long K, long long L, tetra_dtype ydt) {
    tetra_rng r = {TEST_SEED + 99 + (uint64_t)(K + M)};
    tu_stdmat s = tu_std_make(&r, N, K, L, TETRA_SCALE_SWIZZLED_128X4, 0, 0.25f, 0x7F);
    const size_t FB = tetra_nvfp4_fragment_bytes(N, K) * (size_t)L;
    const size_t SB = tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_FRAGMENT_128X64) * (size_t)L;
    const size_t esz = ydt == TETRA_DTYPE_FP32 ? 4 : 2, yb = (size_t)(M * N * L) * esz;
    uint16_t *x = tu_xmalloc((size_t)(M * K * L) * 2);
    uint8_t *ys = tu_xmalloc(yb), *yf = tu_xmalloc(yb);
    tu_devbuf dw, dws, dfv, dfs, dx, dy1, dy2;
    tetra_matrix gw, gf, gx, gy1, gy2;
    tetra_gemm_options o = tetra_gemm_options_default();
    tetra_status st1, st2;
    int same;
    char what[96];
    snprintf(what, sizeof what, "M=%lld N=%lld K=%lld L=%lld y %s", M, N, K, L, tu_dtype_name(ydt));
    for (long long i = 0; i < M * K * L; i++) x[i] = tetra_f32_to_bf16((float)tetra_rng_normal(&r));
    dw = tu_dev_alloc(s.dbytes, 0);
    dws = tu_dev_alloc(s.sbytes, 0);
    dfv = tu_dev_alloc(FB, 0x5A);
    dfs = tu_dev_alloc(SB, 0x5A);
    dx = tu_dev_alloc((size_t)(M * K * L) * 2, 0);
    dy1 = tu_dev_alloc(yb, 0xFF); /* poisoned: every element must be written */
    dy2 = tu_dev_alloc(yb, 0xEE);
    tu_dev_upload(&dw, s.data, s.dbytes);
    tu_dev_upload(&dws, s.scales, s.sbytes);
    tu_dev_upload(&dx, x, (size_t)(M * K * L) * 2);
    gw = s.m;
    gw.data = dw.ptr;
    gw.scales = dws.ptr;
    gf = tetra_matrix_nvfp4(dfv.ptr, dfs.ptr, TETRA_SCALE_FRAGMENT_128X64, N, K, 0.0f);
    gf.batch = L;
    CHECK_MSG(tetra_convert_weights(ctx, &gw, &gf) == TETRA_OK, "%s: convert: %s", what, tetra_last_error());
    gx = tetra_matrix_dense(TETRA_DTYPE_BF16, dx.ptr, M, K);
    gy1 = tetra_matrix_dense(ydt, dy1.ptr, M, N);
    gy2 = tetra_matrix_dense(ydt, dy2.ptr, M, N);
    gx.batch = gy1.batch = gy2.batch = L;
    o.path = TETRA_PATH_REFERENCE;
    o.alpha = 0.75f;
    st1 = tetra_gemm(ctx, &gx, &gw, &gy1, &o);
    st2 = tetra_gemm(ctx, &gx, &gf, &gy2, &o);
    CHECK_MSG(st1 == TETRA_OK && st2 == TETRA_OK, "%s: %s", what, tetra_last_error());
    tu_dev_download(&dy1, ys, yb);
    tu_dev_download(&dy2, yf, yb);
    tu_dev_check_guards(&dy2, "fragment-b Y");
    same = memcmp(ys, yf, yb) == 0;
    CHECK_MSG(same, "%s: the fragment b's reference bits differ from the standard W's", what);
    printf("  reference %-40s bits == standard W: %s\n", what, same ? "yes" : "NO");
    tu_dev_free(&dw); tu_dev_free(&dws); tu_dev_free(&dfv); tu_dev_free(&dfs); tu_dev_free(&dx);
    tu_dev_free(&dy1); tu_dev_free(&dy2);
    free(x); free(ys); free(yf); free(s.data); free(s.scales);
}

static void refusals(tetra_context *ctx) {
    const long long N = 128, K = 256;
    const size_t FB = tetra_nvfp4_fragment_bytes(N, K), SB = tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_FRAGMENT_128X64);
    tu_devbuf dfv = tu_dev_alloc(FB, 0), dfs = tu_dev_alloc(SB, 0), dd = tu_dev_alloc((size_t)(N * K) * 4, 0),
              dsv = tu_dev_alloc((size_t)(N * K) / 2, 0), dss = tu_dev_alloc(SB, 0), dy = tu_dev_alloc((size_t)(N * N) * 4, 0);
    tetra_matrix gf = tetra_matrix_nvfp4(dfv.ptr, dfs.ptr, TETRA_SCALE_FRAGMENT_128X64, N, K, 1.0f);
    tetra_matrix gd = tetra_matrix_dense(TETRA_DTYPE_FP32, dd.ptr, N, K);
    tetra_matrix gs = tetra_matrix_nvfp4(dsv.ptr, dss.ptr, TETRA_SCALE_SWIZZLED_128X4, N, K, 1.0f);
    tetra_matrix gy = tetra_matrix_dense(TETRA_DTYPE_FP32, dy.ptr, N, N), x;
    tetra_gemm_options o = tetra_gemm_options_default();
    CHECK_ERR(tetra_dequantize(ctx, &gf, &gd), TETRA_ERR_INVALID_ARGUMENT, "tetra_convert_weights");
    CHECK_ERR(tetra_quantize(ctx, &gd, &gf, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT,
              "tetra_convert_weights");
    CHECK_ERR(tetra_convert_scales(ctx, &gf, &gs), TETRA_ERR_INVALID_ARGUMENT, "src.scale_layout");
    CHECK_ERR(tetra_convert_scales(ctx, &gs, &gf), TETRA_ERR_INVALID_ARGUMENT, "dst.scale_layout");
    o.path = TETRA_PATH_REFERENCE;
    CHECK_ERR(tetra_gemm(ctx, &gf, &gs, &gy, &o), TETRA_ERR_INVALID_ARGUMENT,
              "a.scale_layout is TETRA_SCALE_FRAGMENT_128X64");
    x = gf; x.scales = NULL;
    CHECK_ERR(tetra_gemm(ctx, &gs, &x, &gy, &o), TETRA_ERR_INVALID_ARGUMENT, "b.scales is NULL");
    x = gf; x.ld = K;
    CHECK_ERR(tetra_gemm(ctx, &gs, &x, &gy, &o), TETRA_ERR_INVALID_ARGUMENT, "b.ld");
    x = gf; x.scales = (uint8_t *)dfs.ptr + 4;
    CHECK_ERR(tetra_convert_weights(ctx, &gs, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.scales must be 16-byte aligned");
    x = gf;
    x.scales = tu_amalloc(SB);
    CHECK_ERR(tetra_convert_weights(ctx, &gs, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.scales is a host pointer");
    free(x.scales);
    printf("  refusals checked\n");
    tu_dev_free(&dfv); tu_dev_free(&dfs); tu_dev_free(&dd); tu_dev_free(&dsv); tu_dev_free(&dss); tu_dev_free(&dy);
}

int main(void) {
    tetra_context *ctx = tu_gpu_or_skip("gpu_fragment");
    const tetra_scale_layout LIN = TETRA_SCALE_LINEAR, SWZ = TETRA_SCALE_SWIZZLED_128X4;
    const long long Ns[] = {1, 127, 129, 300};
    const long long Ks[] = {16, 48, 64, 80, 1040};
    printf("gpu_fragment: seed %llu\n", (unsigned long long)TEST_SEED);
    for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++)
        for (size_t ki = 0; ki < sizeof Ks / sizeof Ks[0]; ki++) {
            const int v = (int)(ni + ki) % 4;
            convert_case(ctx, Ns[ni], Ks[ki], 2, v & 1 ? SWZ : LIN, v == 2 ? 3 : 0, v & 2 ? SWZ : LIN);
        }
    convert_case(ctx, 4096, 4096, 2, SWZ, 0, LIN);
    convert_case(ctx, 1000, 8192, 1, LIN, 0, SWZ);

    ref_case(ctx, 1, 300, 1040, 2, TETRA_DTYPE_FP32);
    ref_case(ctx, 5, 129, 80, 2, TETRA_DTYPE_BF16);
    ref_case(ctx, 33, 300, 1040, 2, TETRA_DTYPE_BF16);
    ref_case(ctx, 33, 127, 48, 2, TETRA_DTYPE_FP32);
    refusals(ctx);
    tetra_context_destroy(ctx);
    return tu_finish("gpu_fragment");
}
