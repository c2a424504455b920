/* convert_api.c - tetra_quantize, tetra_dequantize, tetra_convert_scales: validation
 * and hand-off to the launchers in src/cuda/quantize.cu. */
#include "../core/internal.h"
#include "../cuda/launch.h"

static tetra_status same_shape(const tetra_matrix *s, const tetra_matrix *d) {
    if (s->rows != d->rows || s->cols != d->cols || tetra_matrix_batch(s) != tetra_matrix_batch(d))
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "src is %lldx%lld (L=%lld) but dst is %lldx%lld (L=%lld)",
                          (long long)s->rows, (long long)s->cols, (long long)tetra_matrix_batch(s),
                          (long long)d->rows, (long long)d->cols, (long long)tetra_matrix_batch(d));
    return TETRA_OK;
}

static tetra_convert_problem make_problem(tetra_context *ctx, const tetra_matrix *s,
                                          const tetra_matrix *d, tetra_global_scale_mode mode) {
    tetra_convert_problem p;
    p.rows = s->rows;
    p.cols = s->cols;
    p.batch = tetra_matrix_batch(s);
    p.src = tetra_operand_from(s);
    p.dst = tetra_operand_from(d);
    p.mode = mode;
    p.ctx = ctx;
    return p;
}

tetra_status tetra_quantize(tetra_context *ctx, const tetra_matrix *src, tetra_matrix *dst,
                            tetra_global_scale_mode mode) {
    tetra_status st;
    tetra_convert_problem p;
    if (!ctx) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "ctx is NULL");
    if ((st = tetra_check_matrix(src, "src", TETRA_MEM_DEVICE)) != TETRA_OK) return st;
    if (src->dtype == TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "src.dtype must be FP32, FP16 or BF16");
    if (mode != TETRA_GLOBAL_SCALE_FROM_AMAX && mode != TETRA_GLOBAL_SCALE_SUPPLIED)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "mode %d is not a tetra_global_scale_mode",
                          (int)mode);
    if (!dst) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "dst is NULL");
    if (mode == TETRA_GLOBAL_SCALE_FROM_AMAX && !dst->global_scale_dev)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "dst.global_scale_dev is NULL; FROM_AMAX writes the global scale there");
    if ((st = tetra_check_matrix(dst, "dst", TETRA_MEM_DEVICE)) != TETRA_OK) return st;
    if (dst->dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "dst.dtype must be NVFP4");
    if ((st = same_shape(src, dst)) != TETRA_OK) return st;
    p = make_problem(ctx, src, dst, mode);
    return tetra_launch_quantize(&p);
}

tetra_status tetra_dequantize(tetra_context *ctx, const tetra_matrix *src, tetra_matrix *dst) {
    tetra_status st;
    tetra_convert_problem p;
    if (!ctx) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "ctx is NULL");
    if ((st = tetra_check_matrix(src, "src", TETRA_MEM_DEVICE)) != TETRA_OK) return st;
    if (src->dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "src.dtype must be NVFP4");
    if ((st = tetra_check_matrix(dst, "dst", TETRA_MEM_DEVICE)) != TETRA_OK) return st;
    if (dst->dtype == TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "dst.dtype must be FP32, FP16 or BF16");
    if ((st = same_shape(src, dst)) != TETRA_OK) return st;
    p = make_problem(ctx, src, dst, TETRA_GLOBAL_SCALE_SUPPLIED);
    return tetra_launch_dequantize(&p);
}

tetra_status tetra_convert_scales(tetra_context *ctx, const tetra_matrix *src, tetra_matrix *dst) {
    tetra_status st;
    tetra_convert_problem p;
    if (!ctx) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "ctx is NULL");
    if ((st = tetra_check_matrix(src, "src", TETRA_MEM_DEVICE)) != TETRA_OK) return st;
    if ((st = tetra_check_matrix(dst, "dst", TETRA_MEM_DEVICE)) != TETRA_OK) return st;
    if (src->dtype != TETRA_DTYPE_NVFP4 || dst->dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.dtype must be NVFP4",
                          src->dtype != TETRA_DTYPE_NVFP4 ? "src" : "dst");
    if ((st = same_shape(src, dst)) != TETRA_OK) return st;
    if (src->scales == dst->scales)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "dst.scales must not alias src.scales");
    p = make_problem(ctx, src, dst, TETRA_GLOBAL_SCALE_SUPPLIED);
    return tetra_launch_convert_scales(&p);
}

tetra_status tetra_convert_weights(tetra_context *ctx, const tetra_matrix *src, tetra_matrix *dst) {
    tetra_status st;
    tetra_convert_problem p;
    if (!ctx) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "ctx is NULL");
    if ((st = tetra_check_convert_weights(src, dst, TETRA_MEM_DEVICE)) != TETRA_OK) return st;
    p = make_problem(ctx, src, dst, TETRA_GLOBAL_SCALE_SUPPLIED);
    if ((st = tetra_launch_convert_weights(&p)) != TETRA_OK) return st;
    dst->global_scale = src->global_scale;
    dst->global_scale_dev = src->global_scale_dev;
    return TETRA_OK;
}
