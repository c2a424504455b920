/* gpu_nonfinite.c - the non-finite contract end to end (docs/format.md): the GPU
 * quantizer cannot return an error for data it reads asynchronously, so a block holding
 * NaN/Inf gets the NaN scale code 0x7F; every consumer must turn that into NaN in exactly
 * the outputs that depend on the block (dequantize, GEMV fast and scalar paths, the
 * mma.sync GEMM, AUTO), and leave every other output finite. */
#include <math.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "format/float16.h"
#include "testutil.h"

#define NAME "gpu_nonfinite"

/* W [N,K] with a NaN at (bad_row, bad_col); returns quantized device weights. */
static void check_gemm_path(tetra_context *ctx, tetra_gemm_path path, int64_t M, int64_t N, int64_t K,
                            const char *what) {
    tetra_rng rng = {11};
    const int64_t bad_row = 5, bad_col = K > 40 ? 40 : 20;
    float *w = malloc((size_t)(N * K) * sizeof *w);
    uint16_t *x = malloc((size_t)(M * K) * 2), *y = malloc((size_t)(M * N) * 2);
    size_t sb = tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_LINEAR);
    tu_devbuf dw = tu_dev_alloc((size_t)(N * K) * 4, 0), dq = tu_dev_alloc((size_t)(N * K / 2), 0x33),
              ds = tu_dev_alloc(sb, 0x44), dg = tu_dev_alloc(4, 0), dx = tu_dev_alloc((size_t)(M * K) * 2, 0),
              dy = tu_dev_alloc((size_t)(M * N) * 2, 0xFF);
    tetra_matrix mw, mq, mx, my;
    tetra_gemm_options o = tetra_gemm_options_default();
    tetra_status st;
    int nan_ok = 1, finite_ok = 1;
    tu_fill_normal(&rng, w, N * K, 1.0f);
    w[bad_row * K + bad_col] = NAN;
    for (int64_t i = 0; i < M * K; i++) x[i] = tetra_f32_to_bf16((float)tetra_rng_normal(&rng));
    tu_dev_upload(&dw, w, (size_t)(N * K) * 4);
    tu_dev_upload(&dx, x, (size_t)(M * K) * 2);
    mw = tetra_matrix_dense(TETRA_DTYPE_FP32, dw.ptr, N, K);
    mq = tetra_matrix_nvfp4(dq.ptr, ds.ptr, TETRA_SCALE_LINEAR, N, K, 1.0f);
    mq.global_scale_dev = (float *)dg.ptr;
    CHECK(tetra_quantize(ctx, &mw, &mq, TETRA_GLOBAL_SCALE_FROM_AMAX) == TETRA_OK);
    /* FROM_AMAX over a NaN makes g NaN; re-quantize with a supplied g so that only the
     * bad block is non-finite and the rest of the product is checkable */
    {
        float g;
        tu_dev_download(&dg, &g, 4);
        CHECK_MSG(isnan(g), "%s: FROM_AMAX over a NaN must write a NaN global scale, got %g", what, (double)g);
        mq.global_scale_dev = NULL;
        mq.global_scale = 1.0f / 448.0f;
        CHECK(tetra_quantize(ctx, &mw, &mq, TETRA_GLOBAL_SCALE_SUPPLIED) == TETRA_OK);
    }
    {
        uint8_t *s = malloc(sb);
        tu_dev_download(&ds, s, sb);
        CHECK_MSG(s[bad_row * (K / 16) + bad_col / 16] == 0x7F, "%s: the NaN block's scale is 0x%02x", what,
                  s[bad_row * (K / 16) + bad_col / 16]);
        free(s);
    }
    mx = tetra_matrix_dense(TETRA_DTYPE_BF16, dx.ptr, M, K);
    my = tetra_matrix_dense(TETRA_DTYPE_BF16, dy.ptr, M, N);
    o.path = path;
    st = tetra_gemm(ctx, &mx, &mq, &my, &o);
    if (st == TETRA_ERR_UNSUPPORTED) {
        printf("  %s: SKIPPED (%s)\n", what, tetra_last_error());
    } else {
        CHECK_MSG(st == TETRA_OK, "%s: %s", what, tetra_last_error());
        tu_dev_download(&dy, y, (size_t)(M * N) * 2);
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) {
                float v = tetra_bf16_to_f32(y[m * N + n]);
                if (n == bad_row) nan_ok &= isnan(v);
                else finite_ok &= isfinite(v);
            }
        CHECK_MSG(nan_ok, "%s: outputs depending on the NaN block must be NaN", what);
        CHECK_MSG(finite_ok, "%s: outputs not depending on it must stay finite", what);
        printf("  %-40s NaN column: %s, other columns finite: %s\n", what, nan_ok ? "yes" : "NO",
               finite_ok ? "yes" : "NO");
    }
    CHECK(tu_dev_check_guards(&dy, "y"));
    tu_dev_free(&dw); tu_dev_free(&dq); tu_dev_free(&ds); tu_dev_free(&dg); tu_dev_free(&dx); tu_dev_free(&dy);
    free(w); free(x); free(y);
}

static void check_dequantize(tetra_context *ctx) {
    const int64_t N = 8, K = 64;
    float w[8 * 64], y[8 * 64];
    uint8_t sc[8 * 4];
    tu_devbuf dw = tu_dev_alloc(sizeof w, 0), dq = tu_dev_alloc(N * K / 2, 0), ds = tu_dev_alloc(sizeof sc, 0),
              dy = tu_dev_alloc(sizeof y, 0);
    tetra_rng rng = {3};
    tetra_matrix mw, mq, my;
    tu_fill_normal(&rng, w, N * K, 1.0f);
    w[2 * K + 17] = INFINITY;
    tu_dev_upload(&dw, w, sizeof w);
    mw = tetra_matrix_dense(TETRA_DTYPE_FP32, dw.ptr, N, K);
    mq = tetra_matrix_nvfp4(dq.ptr, ds.ptr, TETRA_SCALE_LINEAR, N, K, 0.01f);
    my = tetra_matrix_dense(TETRA_DTYPE_FP32, dy.ptr, N, K);
    CHECK(tetra_quantize(ctx, &mw, &mq, TETRA_GLOBAL_SCALE_SUPPLIED) == TETRA_OK);
    CHECK(tetra_dequantize(ctx, &mq, &my) == TETRA_OK);
    tu_dev_download(&dy, y, sizeof y);
    tu_dev_download(&ds, sc, sizeof sc);
    CHECK(sc[2 * 4 + 1] == 0x7F);
    for (int64_t i = 0; i < N * K; i++) {
        int in_bad_block = i / K == 2 && (i % K) / 16 == 1;
        CHECK_MSG(in_bad_block ? isnan(y[i]) : isfinite(y[i]), "element %lld", (long long)i);
    }
    printf("  dequantize: the Inf block reads back as NaN, the rest finite\n");
    tu_dev_free(&dw); tu_dev_free(&dq); tu_dev_free(&ds); tu_dev_free(&dy);
}

int main(void) {
    tetra_context *ctx = tu_gpu_or_skip(NAME);
    check_dequantize(ctx);
    check_gemm_path(ctx, TETRA_PATH_GEMV, 3, 256, 4096, "GEMV mma path (M=3, K=4096)");
    check_gemm_path(ctx, TETRA_PATH_GEMV, 3, 256, 48, "GEMV scalar path (M=3, K=48)");
    check_gemm_path(ctx, TETRA_PATH_MMA_SYNC, 40, 256, 256, "mma.sync GEMM (M=40)");
    check_gemm_path(ctx, TETRA_PATH_WGMMA, 256, 256, 512, "wgmma GEMM (M=256)");
    check_gemm_path(ctx, TETRA_PATH_WGMMA_T, 256, 256, 512, "wgmma-T GEMM (M=256)");
    check_gemm_path(ctx, TETRA_PATH_AUTO, 64, 256, 512, "AUTO (M=64)");
    check_gemm_path(ctx, TETRA_PATH_REFERENCE, 2, 64, 64, "reference GEMM");
    tetra_context_destroy(ctx);
    return tu_finish(NAME);
}
