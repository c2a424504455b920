/* gpu_interleaved.c - TETRA_SCALE_INTERLEAVED_32X128 on the device:
 *   - tetra_convert_weights writes the same bytes as tetra_convert_weights_host, both
 *     directions, whole buffers (padding, flags, a standard destination's untouched row
 *     padding), sentinel guards intact;
 *   - NaN rows: planted scale codes 0x7F and 0x80 make exactly those rows NaN, with the
 *     same bits as the standard W, splits 1 and 3 (and the K % 128 != 0 mma path: those
 *     rows NaN, the others finite);
 *   - the reference path reads the layout: bit-identical to the standard W's reference run;
 *   - refusals: AUTO with M = 65, MMA_SYNC / WGMMA / WGMMA_T, batch_invariant -> UNSUPPORTED;
 *     AUTO with M = 17 runs the skinny kernel where the pinned SKINNY path runs (same bits)
 *     and is refused with that path's message where it is refused
 *     naming b; interleaved a, tetra_quantize / dequantize / convert_scales ->
 *     INVALID_ARGUMENT.
 * The GEMV bit-identity sweep (M = 1..16, dtypes, bias, alpha, splits) is in gpu_gemv.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/float16.h"
#include "format/nvfp4_codec.h" /* TETRA_GEMV_IL_PAIRS */
#include "testutil.h"

#define TEST_SEED 20261208ull

static void convert_case(tetra_context *ctx, long long N, long long K, long long L, tetra_scale_layout lay,
                         long long spad, tetra_scale_layout back) {
    tetra_rng r = {TEST_SEED + (uint64_t)(N * 7 + K + L)};
    tu_stdmat s = tu_std_make(&r, N, K, L, lay, spad, 0.25f, 0x7F), b = tu_std_make(&r, N, K, L, back, 0, 0.25f, 0x7F);
    size_t P = tetra_nvfp4_interleaved_bytes(N, K) * (size_t)L;
    uint8_t *hil = malloc(P), *dil = malloc(P), *hbd = malloc(b.dbytes), *hbs = malloc(b.sbytes);
    tu_devbuf ds = tu_dev_alloc(s.dbytes, 0), dss = tu_dev_alloc(s.sbytes, 0), di = tu_dev_alloc(P, 0xAB),
              dbd = tu_dev_alloc(b.dbytes, 0xCD), dbs = tu_dev_alloc(b.sbytes, 0xCD);
    tetra_matrix hi = tetra_matrix_nvfp4(hil, NULL, TETRA_SCALE_INTERLEAVED_32X128, N, K, 0.0f);
    tetra_matrix gs = s.m, gi, gb = b.m;
    char what[128];
    int ok1, ok2, ok3;
    snprintf(what, sizeof what, "N=%lld K=%lld L=%lld %s -> il -> %s", N, K, L,
             lay == TETRA_SCALE_LINEAR ? "linear" : "swizzled", back == TETRA_SCALE_LINEAR ? "linear" : "swizzled");
    hi.batch = L;
    tu_dev_upload(&ds, s.data, s.dbytes);
    tu_dev_upload(&dss, s.scales, s.sbytes);
    gs.data = ds.ptr;
    gs.scales = dss.ptr;
    gi = hi;
    gi.data = di.ptr;
    gb.data = dbd.ptr;
    gb.scales = dbs.ptr;
    CHECK(tetra_convert_weights_host(&s.m, &hi) == TETRA_OK);
    CHECK_MSG(tetra_convert_weights(ctx, &gs, &gi) == TETRA_OK, "%s: %s", what, tetra_last_error());
    CHECK(gi.global_scale == 0.25f);
    tu_dev_download(&di, dil, P);
    ok1 = memcmp(hil, dil, P) == 0;
    CHECK_MSG(ok1, "%s: device interleaved bytes differ from the host's", what);
    /* back: both sides start from the same poison */
    memset(b.data, 0xCD, b.dbytes);
    memset(b.scales, 0xCD, b.sbytes);
    CHECK(tetra_convert_weights_host(&hi, &b.m) == TETRA_OK);
    CHECK_MSG(tetra_convert_weights(ctx, &gi, &gb) == TETRA_OK, "%s back: %s", what, tetra_last_error());
    tu_dev_download(&dbd, hbd, b.dbytes);
    tu_dev_download(&dbs, hbs, b.sbytes);
    ok2 = memcmp(hbd, b.data, b.dbytes) == 0;
    ok3 = memcmp(hbs, b.scales, b.sbytes) == 0;
    CHECK_MSG(ok2 && ok3, "%s: device standard bytes differ from the host's (data %d scales %d)", what, ok2, ok3);
    tu_dev_check_guards(&di, "interleaved dst");
    tu_dev_check_guards(&dbd, "standard dst data");
    tu_dev_check_guards(&dbs, "standard dst scales");
    printf("  convert %-40s device == host: %s\n", what, ok1 && ok2 && ok3 ? "yes" : "NO");
    tu_dev_free(&ds); tu_dev_free(&dss); tu_dev_free(&di); tu_dev_free(&dbd); tu_dev_free(&dbs);
    free(hil); free(dil); free(hbd); free(hbs);
    free(s.data); free(s.scales); free(b.data); free(b.scales);
}

/* NaN rows and the reference path: the same W in both layouts, BF16 X, Y of `ydt`. */
static void nan_case(tetra_context *ctx, long long M, long long N, long long K, int splits, tetra_gemm_path path,
                     tetra_dtype ydt) {
    tetra_rng r = {TEST_SEED + 99 + (uint64_t)K};
    tu_stdmat s = tu_std_make(&r, N, K, 1, TETRA_SCALE_LINEAR, 0, 0.25f, 0x7F);
    size_t P = tetra_nvfp4_interleaved_bytes(N, K), esz = ydt == TETRA_DTYPE_FP32 ? 4 : 2;
    size_t yb = (size_t)(M * N) * esz;
    const long long nan_rows[2] = {5, N - 2};
    uint16_t *x = malloc((size_t)(M * K) * 2);
    uint8_t *ys = malloc(yb), *yi = malloc(yb);
    tu_devbuf dw, dws, dil, dx, dy1, dy2;
    tetra_matrix gw, gil, gx, gy1, gy2;
    tetra_gemm_options o = tetra_gemm_options_default();
    tetra_status st1, st2;
    int nan_ok = 1, rest_ok = 1;
    char what[96];
    snprintf(what, sizeof what, "M=%lld N=%lld K=%lld splits=%d path %d", M, N, K, splits, (int)path);
    /* planted: 0x7F (NaN) in row 5's last block, 0x80 (sign bit) in row N-2's first */
    s.scales[nan_rows[0] * (K / 16) + K / 16 - 1] = 0x7F;
    s.scales[nan_rows[1] * (K / 16)] = 0x80;
    for (long long i = 0; i < M * K; i++) x[i] = tetra_f32_to_bf16((float)tetra_rng_normal(&r));
    dw = tu_dev_alloc(s.dbytes, 0);
    dws = tu_dev_alloc(s.sbytes, 0);
    dil = tu_dev_alloc(P, 0x5A);
    dx = tu_dev_alloc((size_t)(M * K) * 2, 0);
    dy1 = tu_dev_alloc(yb, 0xFF);
    dy2 = tu_dev_alloc(yb, 0xFF);
    tu_dev_upload(&dw, s.data, s.dbytes);
    tu_dev_upload(&dws, s.scales, s.sbytes);
    tu_dev_upload(&dx, x, (size_t)(M * K) * 2);
    gw = s.m;
    gw.data = dw.ptr;
    gw.scales = dws.ptr;
    gil = tetra_matrix_nvfp4(dil.ptr, NULL, TETRA_SCALE_INTERLEAVED_32X128, N, K, 0.0f);
    CHECK(tetra_convert_weights(ctx, &gw, &gil) == TETRA_OK);
    gx = tetra_matrix_dense(TETRA_DTYPE_BF16, dx.ptr, M, K);
    gy1 = tetra_matrix_dense(ydt, dy1.ptr, M, N);
    gy2 = tetra_matrix_dense(ydt, dy2.ptr, M, N);
    o.path = path;
    o.splits = splits;
    o.alpha = 0.75f;
    st1 = tetra_gemm(ctx, &gx, &gw, &gy1, &o);
    st2 = tetra_gemm(ctx, &gx, &gil, &gy2, &o);
    CHECK_MSG(st1 == TETRA_OK && st2 == TETRA_OK, "%s: %s", what, tetra_last_error());
    tu_dev_download(&dy1, ys, yb);
    tu_dev_download(&dy2, yi, yb);
    tu_dev_check_guards(&dy2, "interleaved Y");
    for (long long m = 0; m < M; m++)
        for (long long n = 0; n < N; n++) {
            size_t i = (size_t)(m * N + n);
            float v = ydt == TETRA_DTYPE_FP32 ? ((float *)yi)[i] : tetra_bf16_to_f32(((uint16_t *)yi)[i]);
            int want_nan = path != TETRA_PATH_REFERENCE && (n == nan_rows[0] || n == nan_rows[1]);
            if (want_nan) nan_ok &= isnan(v);
            else if (n != nan_rows[0] && n != nan_rows[1]) rest_ok &= isfinite(v);
        }
    CHECK_MSG(nan_ok, "%s: planted rows are not NaN", what);
    CHECK_MSG(rest_ok, "%s: other rows not finite", what);
    /* the pairs nibble order (option B) gives other bits on the GEMV path (gpu_gemv gates it) */
    if ((K % 128 == 0 && !TETRA_GEMV_IL_PAIRS) || path == TETRA_PATH_REFERENCE) {
        int same = memcmp(ys, yi, yb) == 0;
        CHECK_MSG(same, "%s: interleaved output bits differ from the standard W's", what);
        printf("  nan/ref %-36s planted rows NaN: %s, bits == standard W: %s\n", what,
               nan_ok ? "yes" : "NO", same ? "yes" : "NO");
    } else {
        printf("  nan     %-36s planted rows NaN: %s, others finite: %s\n", what, nan_ok ? "yes" : "NO",
               rest_ok ? "yes" : "NO");
    }
    tu_dev_free(&dw); tu_dev_free(&dws); tu_dev_free(&dil); tu_dev_free(&dx); tu_dev_free(&dy1); tu_dev_free(&dy2);
    free(x); free(ys); free(yi); free(s.data); free(s.scales);
}

static void refusals(tetra_context *ctx) {
    tetra_rng r = {TEST_SEED + 5};
    const long long N = 128, K = 256;
    tu_stdmat s = tu_std_make(&r, N, K, 1, TETRA_SCALE_SWIZZLED_128X4, 0, 0.25f, 0x7F);
    size_t P = tetra_nvfp4_interleaved_bytes(N, K);
    tu_devbuf dw = tu_dev_alloc(s.dbytes, 0), dws = tu_dev_alloc(s.sbytes, 0), dil = tu_dev_alloc(P, 0),
              dx = tu_dev_alloc((size_t)(65 * K) * 2, 0), dy = tu_dev_alloc((size_t)(65 * N) * 4, 0xFF),
              dy2 = tu_dev_alloc((size_t)(17 * N) * 4, 0xFF);
    tetra_matrix gw = s.m, gil = tetra_matrix_nvfp4(dil.ptr, NULL, TETRA_SCALE_INTERLEAVED_32X128, N, K, 1.0f);
    tetra_matrix gx17 = tetra_matrix_dense(TETRA_DTYPE_BF16, dx.ptr, 17, K),
                 gx4 = tetra_matrix_dense(TETRA_DTYPE_BF16, dx.ptr, 4, K),
                 gy17 = tetra_matrix_dense(TETRA_DTYPE_FP32, dy.ptr, 17, N),
                 gy17b = tetra_matrix_dense(TETRA_DTYPE_FP32, dy2.ptr, 17, N),
                 gx65 = tetra_matrix_dense(TETRA_DTYPE_BF16, dx.ptr, 65, K),
                 gy65 = tetra_matrix_dense(TETRA_DTYPE_FP32, dy.ptr, 65, N),
                 gy4 = tetra_matrix_dense(TETRA_DTYPE_FP32, dy.ptr, 4, N), gq, d4;
    tetra_gemm_options o = tetra_gemm_options_default();
    const tetra_gemm_path refused[3] = {TETRA_PATH_MMA_SYNC, TETRA_PATH_WGMMA, TETRA_PATH_WGMMA_T};
    tu_dev_upload(&dw, s.data, s.dbytes);
    tu_dev_upload(&dws, s.scales, s.sbytes);
    gw.data = dw.ptr;
    gw.scales = dws.ptr;
    CHECK(tetra_convert_weights(ctx, &gw, &gil) == TETRA_OK);
    CHECK_ERR(tetra_gemm(ctx, &gx65, &gil, &gy65, &o), TETRA_ERR_UNSUPPORTED, "b: interleaved weights");
    { /* M = 17: AUTO is the skinny kernel where that runs, refused with its message elsewhere */
        tetra_gemm_options ps = tetra_gemm_options_default();
        tetra_status pinned, autos;
        ps.path = TETRA_PATH_SKINNY;
        uint16_t *hx = (uint16_t *)malloc((size_t)(17 * K) * 2);
        float *ya = (float *)malloc((size_t)(17 * N) * 4), *yp = (float *)malloc((size_t)(17 * N) * 4);
        CHECK(hx && ya && yp);
        for (long long i = 0; i < 17 * K; i++) hx[i] = tetra_f32_to_bf16((float)tetra_rng_normal(&r));
        tu_dev_upload(&dx, hx, (size_t)(17 * K) * 2);
        pinned = tetra_gemm(ctx, &gx17, &gil, &gy17b, &ps);
        autos = tetra_gemm(ctx, &gx17, &gil, &gy17, &o);
        CHECK(autos == pinned);
        if (pinned == TETRA_OK) {
            int nonzero = 0;
            tu_dev_download(&dy, ya, (size_t)(17 * N) * 4);
            tu_dev_download(&dy2, yp, (size_t)(17 * N) * 4);
            CHECK(memcmp(ya, yp, (size_t)(17 * N) * 4) == 0);
            for (long long i = 0; i < 17 * N; i++) nonzero |= ya[i] != 0.0f;
            CHECK(nonzero);
            printf("  AUTO at M = 17 = pinned SKINNY, bit for bit\n");
        } else {
            CHECK(strstr(tetra_last_error(), "skinny GEMM") != NULL);
            printf("  AUTO at M = 17 refused with the skinny path's message: %s\n", tetra_last_error());
        }
        free(hx);
        free(ya);
        free(yp);
    }
    for (int i = 0; i < 3; i++) {
        o.path = refused[i];
        CHECK_ERR(tetra_gemm(ctx, &gx4, &gil, &gy4, &o), TETRA_ERR_UNSUPPORTED, "b: interleaved weights");
    }
    o = tetra_gemm_options_default();
    o.batch_invariant = 1;
    CHECK_ERR(tetra_gemm(ctx, &gx4, &gil, &gy4, &o), TETRA_ERR_UNSUPPORTED, "b: interleaved weights");
    o = tetra_gemm_options_default();
    o.path = TETRA_PATH_GEMV;
    CHECK_ERR(tetra_gemm(ctx, &gx17, &gil, &gy17, &o), TETRA_ERR_UNSUPPORTED, "M = 17");
    /* as a, and in the element-wise conversions */
    gq = tetra_matrix_nvfp4(dil.ptr, NULL, TETRA_SCALE_INTERLEAVED_32X128, 4, K, 1.0f);
    CHECK_ERR(tetra_gemm(ctx, &gq, &gw, &gy4, NULL), TETRA_ERR_INVALID_ARGUMENT, "a.scale_layout");
    d4 = tetra_matrix_dense(TETRA_DTYPE_FP32, dy.ptr, 4, 64);
    gq = tetra_matrix_nvfp4(dil.ptr, NULL, TETRA_SCALE_INTERLEAVED_32X128, 4, 64, 1.0f);
    CHECK_ERR(tetra_dequantize(ctx, &gq, &d4), TETRA_ERR_INVALID_ARGUMENT, "tetra_convert_weights");
    CHECK_ERR(tetra_quantize(ctx, &d4, &gq, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT,
              "tetra_convert_weights");
    CHECK_ERR(tetra_convert_scales(ctx, &gil, &gw), TETRA_ERR_INVALID_ARGUMENT, "tetra_convert_weights");
    CHECK_ERR(tetra_convert_weights(ctx, &gil, &gil), TETRA_ERR_INVALID_ARGUMENT, "exactly one");
    gq = gil;
    gq.data = (uint8_t *)dil.ptr + 8;
    CHECK_ERR(tetra_convert_weights(ctx, &gw, &gq), TETRA_ERR_INVALID_ARGUMENT, "16-byte aligned");
    printf("  refusals checked\n");
    tu_dev_free(&dw); tu_dev_free(&dws); tu_dev_free(&dil); tu_dev_free(&dx); tu_dev_free(&dy); tu_dev_free(&dy2);
    free(s.data); free(s.scales);
}

int main(void) {
    tetra_context *ctx = tu_gpu_or_skip("gpu_interleaved");
    const tetra_scale_layout LIN = TETRA_SCALE_LINEAR, SWZ = TETRA_SCALE_SWIZZLED_128X4;
    printf("gpu_interleaved: seed %llu\n", (unsigned long long)TEST_SEED);
    convert_case(ctx, 1, 16, 1, LIN, 0, LIN);
    convert_case(ctx, 33, 144, 3, SWZ, 0, LIN);
    convert_case(ctx, 129, 4112, 1, LIN, 3, SWZ);
    convert_case(ctx, 300, 2048, 3, LIN, 0, SWZ);
    convert_case(ctx, 1000, 8192, 1, SWZ, 0, SWZ);
    convert_case(ctx, 4096, 4096, 2, LIN, 0, LIN);

    nan_case(ctx, 3, 256, 1024, 1, TETRA_PATH_GEMV, TETRA_DTYPE_BF16);
    nan_case(ctx, 3, 256, 1024, 3, TETRA_PATH_GEMV, TETRA_DTYPE_BF16);
    nan_case(ctx, 12, 300, 2048, 2, TETRA_PATH_GEMV, TETRA_DTYPE_FP32);
    nan_case(ctx, 5, 200, 1040, 0, TETRA_PATH_GEMV, TETRA_DTYPE_FP32); /* K % 128 != 0: mma with a tail */
    nan_case(ctx, 16, 129, 4112, 0, TETRA_PATH_AUTO, TETRA_DTYPE_BF16);
    nan_case(ctx, 7, 130, 272, 0, TETRA_PATH_REFERENCE, TETRA_DTYPE_FP32);
    nan_case(ctx, 2, 64, 2048, 0, TETRA_PATH_REFERENCE, TETRA_DTYPE_BF16);
    refusals(ctx);
    tetra_context_destroy(ctx);
    return tu_finish("gpu_interleaved");
}
