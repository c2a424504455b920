/* nvfp4.c - the host side of the NVFP4 format core: public scalar codecs, quantize,
 * dequantize, scale-layout conversion and the GPU MODE pre-permuted scale view.
 * All bit decisions live in nvfp4_codec.h; this file only walks matrices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "float16.h"
#include "nvfp4_codec.h"

uint8_t tetra_e2m1_encode(float x) { return tetra_e2m1_from_float(x); }
float tetra_e2m1_decode(uint8_t code) { return tetra_e2m1_to_float(code & 15u); }
uint8_t tetra_ue4m3_encode(float x) { return tetra_ue4m3_from_float(x); }
float tetra_ue4m3_decode(uint8_t code) { return tetra_e4m3_to_float(code); }

/* Element (r, c) of batch l of a dense host matrix, as float. */
static float dense_get(const tetra_matrix *m, int64_t l, int64_t r, int64_t c) {
    int64_t i = l * tetra_matrix_batch_stride(m) + r * tetra_matrix_ld(m) + c;
    switch (m->dtype) {
    case TETRA_DTYPE_FP32: return ((const float *)m->data)[i];
    case TETRA_DTYPE_FP16: return tetra_f16_to_f32(((const uint16_t *)m->data)[i]);
    case TETRA_DTYPE_BF16: return tetra_bf16_to_f32(((const uint16_t *)m->data)[i]);
    default: return NAN;
    }
}

static void dense_set(tetra_matrix *m, int64_t l, int64_t r, int64_t c, float v) {
    int64_t i = l * tetra_matrix_batch_stride(m) + r * tetra_matrix_ld(m) + c;
    switch (m->dtype) {
    case TETRA_DTYPE_FP32: ((float *)m->data)[i] = v; break;
    case TETRA_DTYPE_FP16: ((uint16_t *)m->data)[i] = tetra_f32_to_f16(v); break;
    case TETRA_DTYPE_BF16: ((uint16_t *)m->data)[i] = tetra_f32_to_bf16(v); break;
    default: break;
    }
}

static uint8_t *scale_ptr(const tetra_matrix *m, int64_t l, int64_t r, int64_t kb) {
    return (uint8_t *)m->scales + l * tetra_matrix_scale_batch_stride(m) +
           tetra_scale_offset(m->scale_layout, r, kb, m->cols / 16, tetra_matrix_scale_ld(m));
}

static uint8_t *byte_ptr(const tetra_matrix *m, int64_t l, int64_t r, int64_t c) {
    return (uint8_t *)m->data + (l * tetra_matrix_batch_stride(m) + r * tetra_matrix_ld(m) + c) / 2;
}

/* Zero one batch's swizzled scale buffer so padding reads as 0. */
static void zero_swizzled_padding(const tetra_matrix *m) {
    if (m->scale_layout != TETRA_SCALE_SWIZZLED_128X4) return;
    for (int64_t l = 0; l < tetra_matrix_batch(m); l++)
        memset((uint8_t *)m->scales + l * tetra_matrix_scale_batch_stride(m), 0,
               (size_t)tetra_swizzled_bytes(m->rows, m->cols / 16));
}

static tetra_status check_pair(const tetra_matrix *src, const char *sname, const tetra_matrix *dst,
                               const char *dname) {
    if (tetra_matrix_batch(src) != tetra_matrix_batch(dst) || src->rows != dst->rows ||
        src->cols != dst->cols)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "%s is %lldx%lld (L=%lld) but %s is %lldx%lld (L=%lld)", sname,
                          (long long)src->rows, (long long)src->cols,
                          (long long)tetra_matrix_batch(src), dname, (long long)dst->rows,
                          (long long)dst->cols, (long long)tetra_matrix_batch(dst));
    return TETRA_OK;
}

tetra_status tetra_quantize_host(const tetra_matrix *src, tetra_matrix *dst,
                                 tetra_global_scale_mode mode) {
    tetra_status st;
    int64_t L, nkb;
    float amax = 0.0f, g;
    if ((st = tetra_check_matrix(src, "src", TETRA_MEM_HOST)) != TETRA_OK) return st;
    if (src->dtype == TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "src.dtype must be FP32, FP16 or BF16");
    if (!dst) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "dst is NULL");
    if (dst->dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "dst.dtype must be NVFP4");
    if (mode != TETRA_GLOBAL_SCALE_FROM_AMAX && mode != TETRA_GLOBAL_SCALE_SUPPLIED)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "mode %d is not a tetra_global_scale_mode",
                          (int)mode);
    if (dst->global_scale_dev)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "dst.global_scale_dev must be NULL for a host quantization");
    if (mode == TETRA_GLOBAL_SCALE_FROM_AMAX) {
        tetra_matrix probe = *dst;
        probe.global_scale = 1.0f; /* validated after it is computed */
        if ((st = tetra_check_matrix(&probe, "dst", TETRA_MEM_HOST)) != TETRA_OK) return st;
    } else if ((st = tetra_check_matrix(dst, "dst", TETRA_MEM_HOST)) != TETRA_OK) {
        return st;
    }
    if ((st = check_pair(src, "src", dst, "dst")) != TETRA_OK) return st;
    L = tetra_matrix_batch(src);
    nkb = src->cols / 16;
    /* Pass 1: reject non-finite input (before writing anything) and find amax. */
    for (int64_t l = 0; l < L; l++)
        for (int64_t r = 0; r < src->rows; r++)
            for (int64_t c = 0; c < src->cols; c++) {
                float v = dense_get(src, l, r, c);
                if (!isfinite(v))
                    return tetra_fail(TETRA_ERR_NON_FINITE,
                                      "src holds a non-finite value at batch %lld row %lld col %lld",
                                      (long long)l, (long long)r, (long long)c);
                if (fabsf(v) > amax) amax = fabsf(v);
            }
    g = mode == TETRA_GLOBAL_SCALE_FROM_AMAX ? tetra_nvfp4_global_scale(amax) : dst->global_scale;
    dst->global_scale = g;
    zero_swizzled_padding(dst);
    /* Pass 2: per 16-block scale, then element codes. */
    for (int64_t l = 0; l < L; l++)
        for (int64_t r = 0; r < src->rows; r++)
            for (int64_t kb = 0; kb < nkb; kb++) {
                float x[16], bmax = 0.0f, s;
                uint8_t sc, *out = byte_ptr(dst, l, r, kb * 16);
                for (int i = 0; i < 16; i++) {
                    x[i] = dense_get(src, l, r, kb * 16 + i);
                    if (fabsf(x[i]) > bmax) bmax = fabsf(x[i]);
                }
                sc = tetra_nvfp4_block_scale(bmax, g);
                s = tetra_e4m3_to_float(sc);
                *scale_ptr(dst, l, r, kb) = sc;
                for (int i = 0; i < 16; i += 2) {
                    uint8_t lo = s > 0.0f ? tetra_nvfp4_encode_element(x[i], s, g) : 0;
                    uint8_t hi = s > 0.0f ? tetra_nvfp4_encode_element(x[i + 1], s, g) : 0;
                    out[i / 2] = (uint8_t)(lo | (hi << 4));
                }
            }
    return TETRA_OK;
}

tetra_status tetra_dequantize_host(const tetra_matrix *src, tetra_matrix *dst) {
    tetra_status st;
    if ((st = tetra_check_matrix(src, "src", TETRA_MEM_HOST)) != TETRA_OK) return st;
    if (src->dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "src.dtype must be NVFP4");
    if (src->global_scale_dev)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "src.global_scale_dev must be NULL for a host dequantization");
    if ((st = tetra_check_matrix(dst, "dst", TETRA_MEM_HOST)) != TETRA_OK) return st;
    if (dst->dtype == TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "dst.dtype must be FP32, FP16 or BF16");
    if ((st = check_pair(src, "src", dst, "dst")) != TETRA_OK) return st;
    for (int64_t l = 0; l < tetra_matrix_batch(src); l++)
        for (int64_t r = 0; r < src->rows; r++)
            for (int64_t c = 0; c < src->cols; c++) {
                uint8_t byte = *byte_ptr(src, l, r, c);
                unsigned code = (c & 1) ? (byte >> 4) : (byte & 15u);
                dense_set(dst, l, r, c,
                          tetra_nvfp4_decode_element(code, *scale_ptr(src, l, r, c / 16),
                                                     src->global_scale));
            }
    return TETRA_OK;
}

tetra_status tetra_convert_scales_host(const tetra_matrix *src, tetra_matrix *dst) {
    tetra_status st;
    if ((st = tetra_check_matrix(src, "src", TETRA_MEM_HOST)) != TETRA_OK) return st;
    if (src->dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "src.dtype must be NVFP4");
    if ((st = tetra_check_matrix(dst, "dst", TETRA_MEM_HOST)) != TETRA_OK) return st;
    if (dst->dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "dst.dtype must be NVFP4");
    if ((st = check_pair(src, "src", dst, "dst")) != TETRA_OK) return st;
    zero_swizzled_padding(dst);
    for (int64_t l = 0; l < tetra_matrix_batch(src); l++)
        for (int64_t r = 0; r < src->rows; r++)
            for (int64_t kb = 0; kb < src->cols / 16; kb++)
                *scale_ptr(dst, l, r, kb) = *scale_ptr(src, l, r, kb);
    return TETRA_OK;
}

tetra_status tetra_scales_to_prepermuted_host(const tetra_matrix *src, uint8_t *out) {
    tetra_status st;
    int64_t L, nkb, rest_m, rest_k;
    if ((st = tetra_check_matrix(src, "src", TETRA_MEM_HOST)) != TETRA_OK) return st;
    if (src->dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "src.dtype must be NVFP4");
    if (!out) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "out is NULL");
    L = tetra_matrix_batch(src);
    nkb = src->cols / 16;
    rest_m = (src->rows + 127) / 128;
    rest_k = (nkb + 3) / 4;
    for (int64_t i0 = 0; i0 < 32; i0++)
        for (int64_t i1 = 0; i1 < 4; i1++)
            for (int64_t rm = 0; rm < rest_m; rm++)
                for (int64_t i3 = 0; i3 < 4; i3++)
                    for (int64_t rk = 0; rk < rest_k; rk++)
                        for (int64_t l = 0; l < L; l++) {
                            int64_t r = rm * 128 + i1 * 32 + i0, kb = rk * 4 + i3;
                            int64_t idx = ((((i0 * 4 + i1) * rest_m + rm) * 4 + i3) * rest_k + rk) * L + l;
                            out[idx] = (r < src->rows && kb < nkb) ? *scale_ptr(src, l, r, kb) : 0;
                        }
    return TETRA_OK;
}
