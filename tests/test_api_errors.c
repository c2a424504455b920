/* test_api_errors.c - every public entry point refuses bad input with a status and a
 * message naming the argument, and never crashes. (GPU-only checks, e.g. host pointers
 * passed as device pointers, live in the gpu_* tests.) */
#include <math.h>
#include <string.h>

#include "testutil.h"

int main(void) {
    float x[64 * 4] = {0}, y[64 * 4];
    uint8_t q[128], s[512];
    double d64[16];
    tetra_matrix src = tetra_matrix_dense(TETRA_DTYPE_FP32, x, 4, 64);
    tetra_matrix dst = tetra_matrix_nvfp4(q, s, TETRA_SCALE_LINEAR, 4, 64, 1.0f);
    tetra_matrix out = tetra_matrix_dense(TETRA_DTYPE_FP32, y, 4, 64);
    tetra_matrix bad;
    tetra_context *ctx = NULL;
    tetra_status st;
    tetra_device_info info;
    tetra_attention_args att;

    CHECK(strcmp(tetra_status_string(TETRA_ERR_INVALID_ARGUMENT), "TETRA_ERR_INVALID_ARGUMENT") == 0);
    CHECK(strcmp(tetra_status_string((tetra_status)99), "TETRA_ERR_UNKNOWN") == 0);
    CHECK(tetra_nvfp4_data_bytes(4, 64) == 128 && tetra_nvfp4_data_bytes(4, 17) == 0 &&
          tetra_nvfp4_data_bytes(0, 64) == 0 && tetra_nvfp4_data_bytes(1LL << 40, 1LL << 40) == 0);
    CHECK(tetra_nvfp4_scale_bytes(4, 64, TETRA_SCALE_LINEAR) == 16 &&
          tetra_nvfp4_scale_bytes(4, 64, TETRA_SCALE_SWIZZLED_128X4) == 512 &&
          tetra_nvfp4_scale_bytes(4, 64, (tetra_scale_layout)7) == 0);

    /* quantize_host */
    CHECK_ERR(tetra_quantize_host(NULL, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src is NULL");
    CHECK_ERR(tetra_quantize_host(&src, NULL, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst is NULL");
    CHECK_ERR(tetra_quantize_host(&src, &dst, (tetra_global_scale_mode)5), TETRA_ERR_INVALID_ARGUMENT, "mode");
    bad = src; bad.data = NULL;
    CHECK_ERR(tetra_quantize_host(&bad, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src.data");
    bad = src; bad.rows = 0;
    CHECK_ERR(tetra_quantize_host(&bad, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src.rows");
    bad = src; bad.rows = -3;
    CHECK_ERR(tetra_quantize_host(&bad, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src.rows");
    bad = src; bad.ld = 10;
    CHECK_ERR(tetra_quantize_host(&bad, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src.ld");
    bad = src; bad.dtype = (tetra_dtype)42;
    CHECK_ERR(tetra_quantize_host(&bad, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src.dtype");
    bad = src; bad.rows = 1LL << 46; bad.ld = 1LL << 46;
    CHECK_ERR(tetra_quantize_host(&bad, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "overflows");
    bad = src; bad.data = (char *)x + 1;
    CHECK_ERR(tetra_quantize_host(&bad, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "aligned");
    bad = dst; bad.cols = 60;
    CHECK_ERR(tetra_quantize_host(&src, &bad, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "multiple of 16");
    bad = dst; bad.scales = NULL;
    CHECK_ERR(tetra_quantize_host(&src, &bad, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst.scales");
    bad = dst; bad.global_scale = 0.0f;
    CHECK_ERR(tetra_quantize_host(&src, &bad, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst.global_scale");
    bad = dst; bad.global_scale = NAN;
    CHECK_ERR(tetra_quantize_host(&src, &bad, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst.global_scale");
    bad = dst; bad.scale_layout = (tetra_scale_layout)3;
    CHECK_ERR(tetra_quantize_host(&src, &bad, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst.scale_layout");
    bad = dst; bad.scale_ld = 2;
    CHECK_ERR(tetra_quantize_host(&src, &bad, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst.scale_ld");
    bad = dst; bad.ld = 65;
    CHECK_ERR(tetra_quantize_host(&src, &bad, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "even");
    bad = dst; bad.rows = 5;
    CHECK_ERR(tetra_quantize_host(&src, &bad, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst is");
    bad = dst; bad.dtype = TETRA_DTYPE_BF16;
    CHECK_ERR(tetra_quantize_host(&src, &bad, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "dst.dtype");
    bad = src; bad.batch = 2; bad.batch_stride = 8;
    CHECK_ERR(tetra_quantize_host(&bad, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src.batch_stride");
    bad = src; bad.batch = -1;
    CHECK_ERR(tetra_quantize_host(&bad, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "src.batch");

    /* dequantize_host / convert_scales_host / prepermuted */
    CHECK(tetra_quantize_host(&src, &dst, TETRA_GLOBAL_SCALE_SUPPLIED) == TETRA_OK);
    CHECK_ERR(tetra_dequantize_host(&src, &out), TETRA_ERR_INVALID_ARGUMENT, "src.dtype");
    CHECK_ERR(tetra_dequantize_host(&dst, &dst), TETRA_ERR_INVALID_ARGUMENT, "dst.dtype");
    CHECK_ERR(tetra_dequantize_host(&dst, NULL), TETRA_ERR_INVALID_ARGUMENT, "dst is NULL");
    bad = out; bad.cols = 32;
    CHECK_ERR(tetra_dequantize_host(&dst, &bad), TETRA_ERR_INVALID_ARGUMENT, "dst is");
    CHECK_ERR(tetra_convert_scales_host(&dst, &out), TETRA_ERR_INVALID_ARGUMENT, "dst.dtype");
    CHECK_ERR(tetra_convert_scales_host(NULL, &dst), TETRA_ERR_INVALID_ARGUMENT, "src is NULL");
    CHECK_ERR(tetra_scales_to_prepermuted_host(&dst, NULL), TETRA_ERR_INVALID_ARGUMENT, "out is NULL");
    CHECK_ERR(tetra_scales_to_prepermuted_host(&src, s), TETRA_ERR_INVALID_ARGUMENT, "src.dtype");

    /* gemm_host */
    {
        tetra_matrix a = tetra_matrix_dense(TETRA_DTYPE_FP32, x, 4, 64);
        tetra_matrix d = tetra_matrix_dense(TETRA_DTYPE_FP32, y, 4, 4);
        tetra_matrix b = dst;
        CHECK(tetra_gemm_host(&a, &b, &d, 1.0f, NULL, d64, 1) == TETRA_OK);
        CHECK_ERR(tetra_gemm_host(NULL, &b, &d, 1.0f, NULL, NULL, 1), TETRA_ERR_INVALID_ARGUMENT, "a is NULL");
        CHECK_ERR(tetra_gemm_host(&a, &b, &d, NAN, NULL, NULL, 1), TETRA_ERR_INVALID_ARGUMENT, "alpha");
        bad = a; bad.cols = 48;
        CHECK_ERR(tetra_gemm_host(&bad, &b, &d, 1.0f, NULL, NULL, 1), TETRA_ERR_INVALID_ARGUMENT, "b.cols");
        bad = d; bad.rows = 3;
        CHECK_ERR(tetra_gemm_host(&a, &b, &bad, 1.0f, NULL, NULL, 1), TETRA_ERR_INVALID_ARGUMENT, "d is");
        bad = d; bad.dtype = TETRA_DTYPE_NVFP4;
        CHECK_ERR(tetra_gemm_host(&a, &b, &bad, 1.0f, NULL, NULL, 1), TETRA_ERR_INVALID_ARGUMENT, "d.");
        bad = b; bad.batch = 2;
        CHECK_ERR(tetra_gemm_host(&a, &bad, &d, 1.0f, NULL, NULL, 1), TETRA_ERR_INVALID_ARGUMENT, "batch");
    }

    /* GPU entry points without a context */
    CHECK_ERR(tetra_quantize(NULL, &src, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    CHECK_ERR(tetra_dequantize(NULL, &dst, &out), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    CHECK_ERR(tetra_convert_scales(NULL, &dst, &dst), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    CHECK_ERR(tetra_gemm(NULL, &src, &dst, &out, NULL), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    memset(&att, 0, sizeof att);
    CHECK_ERR(tetra_attention_fwd(NULL, &att), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    CHECK_ERR(tetra_context_create(NULL, 0), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    CHECK_ERR(tetra_context_create(&ctx, -5), TETRA_ERR_INVALID_ARGUMENT, "device");
    CHECK_ERR(tetra_context_set_stream(NULL, NULL), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    CHECK_ERR(tetra_context_set_workspace(NULL, NULL, 0), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    CHECK_ERR(tetra_device_info_get(0, NULL), TETRA_ERR_INVALID_ARGUMENT, "info");
    CHECK(tetra_context_destroy(NULL) == TETRA_OK);
    st = tetra_context_create(&ctx, -1);
    if (st == TETRA_OK) {
        tetra_context *other = NULL;
        CHECK_ERR(tetra_context_create(&other, 1000), TETRA_ERR_INVALID_ARGUMENT, "device");
        CHECK(other == NULL);
        CHECK_ERR(tetra_context_set_workspace(ctx, NULL, 64), TETRA_ERR_INVALID_ARGUMENT, "workspace");
        CHECK_ERR(tetra_context_set_workspace(ctx, x, sizeof x), TETRA_ERR_INVALID_ARGUMENT, "host pointer");
        /* host pointers where device pointers are required */
        CHECK_ERR(tetra_quantize(ctx, &src, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT, "host pointer");
        CHECK_ERR(tetra_dequantize(ctx, &dst, &out), TETRA_ERR_INVALID_ARGUMENT, "host pointer");
        tetra_context_destroy(ctx);
    } else {
        CHECK(st == TETRA_ERR_NO_DEVICE && strlen(tetra_last_error()) > 0);
        CHECK(tetra_device_info_get(-1, &info) == TETRA_ERR_NO_DEVICE);
        printf("no CUDA device: context creation reports %s (%s)\n", tetra_status_string(st), tetra_last_error());
    }
    return tu_finish("test_api_errors");
}
