/* nvfp4.c - the host side of the NVFP4 format core: public scalar codecs, quantize,
 * dequantize, scale-layout conversion and the GPU MODE pre-permuted scale view.
 * All bit decisions live in nvfp4_codec.h; this file only walks matrices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "float16.h"
#include "fragment_map.h"
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

/* ---------------------------------------------------------------- prepared weights */

static int is_prepared(tetra_scale_layout l) {
    return l == TETRA_SCALE_INTERLEAVED_32X128 || l == TETRA_SCALE_FRAGMENT_128X64;
}
static const char *prepared_name(tetra_scale_layout l) {
    return l == TETRA_SCALE_INTERLEAVED_32X128 ? "TETRA_SCALE_INTERLEAVED_32X128" : "TETRA_SCALE_FRAGMENT_128X64";
}
static int spans_overlap(uintptr_t ab, uintptr_t ae, uintptr_t bb, uintptr_t be) { return ab < be && bb < ae; }

/* Shared checks of tetra_convert_weights[_host]: both NVFP4, the same shape, exactly one
 * side prepared (interleaved or fragment); dst's global scale is validated as src's (it is
 * overwritten). */
tetra_status tetra_check_convert_weights(const tetra_matrix *src, const tetra_matrix *dst, tetra_mem where) {
    tetra_status st;
    tetra_matrix probe;
    if ((st = tetra_check_weights(src, "src", where)) != TETRA_OK) return st;
    if (src->dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "src.dtype must be NVFP4");
    if (!dst) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "dst is NULL");
    probe = *dst;
    probe.global_scale = src->global_scale;
    probe.global_scale_dev = src->global_scale_dev;
    if ((st = tetra_check_weights(&probe, "dst", where)) != TETRA_OK) return st;
    if (dst->dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "dst.dtype must be NVFP4");
    if ((st = check_pair(src, "src", dst, "dst")) != TETRA_OK) return st;
    if (is_prepared(src->scale_layout) && is_prepared(dst->scale_layout) &&
        src->scale_layout != dst->scale_layout)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "src.scale_layout is %s and dst.scale_layout is %s: convert between prepared "
                          "layouts through a standard layout (linear or swizzled-128x4)",
                          prepared_name(src->scale_layout), prepared_name(dst->scale_layout));
    if (is_prepared(src->scale_layout) == is_prepared(dst->scale_layout))
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "exactly one of src.scale_layout and dst.scale_layout must be "
                          "TETRA_SCALE_INTERLEAVED_32X128 or TETRA_SCALE_FRAGMENT_128X64 (tetra_convert_scales "
                          "converts standard layouts)");
    {
        /* no overlap between the bytes read and written (the standard side's extent is
         * bounded by its last batch's end) */
        const tetra_matrix *il = is_prepared(src->scale_layout) ? src : dst;
        const tetra_matrix *sd = il == src ? dst : src;
        const int frag = il->scale_layout == TETRA_SCALE_FRAGMENT_128X64;
        int64_t L = tetra_matrix_batch(il);
        uintptr_t ib = (uintptr_t)il->data,
                  ie = ib + (uintptr_t)((frag ? tetra_nvfp4_fragment_bytes(il->rows, il->cols)
                                              : tetra_nvfp4_interleaved_bytes(il->rows, il->cols)) *
                                        (size_t)L);
        /* the fragment layout's scales (the interleaved one has none: an empty span) */
        uintptr_t fb = (uintptr_t)il->scales,
                  fe = frag ? fb + (uintptr_t)(tetra_nvfp4_scale_bytes(il->rows, il->cols, il->scale_layout) *
                                               (size_t)L)
                            : fb;
        uintptr_t db = (uintptr_t)sd->data,
                  de = db + (uintptr_t)(((L - 1) * tetra_matrix_batch_stride(sd) +
                                         sd->rows * tetra_matrix_ld(sd)) / 2);
        uintptr_t sb = (uintptr_t)sd->scales,
                  se = sb + (uintptr_t)((L - 1) * tetra_matrix_scale_batch_stride(sd) +
                                        (int64_t)tetra_nvfp4_scale_bytes(sd->rows, sd->cols, sd->scale_layout) +
                                        (sd->scale_layout == TETRA_SCALE_LINEAR
                                             ? (sd->rows - 1) * (tetra_matrix_scale_ld(sd) - sd->cols / 16)
                                             : 0));
        if (spans_overlap(ib, ie, db, de) || spans_overlap(ib, ie, sb, se) ||
            (frag && (spans_overlap(fb, fe, db, de) || spans_overlap(fb, fe, sb, se))))
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "src and dst overlap");
    }
    return TETRA_OK;
}

/* Standard <-> TETRA_SCALE_FRAGMENT_128X64 (checked by the caller). To the fragment layout
 * every word of every batch is written (tetra_frag_gather_word: padding code 0) and every
 * swizzled scale byte (padding 0); back, the valid value bytes and scales of the standard
 * side (a swizzled dst's padded scales 0). */
static void convert_fragment_host(const tetra_matrix *src, tetra_matrix *dst) {
    const int to_fr = dst->scale_layout == TETRA_SCALE_FRAGMENT_128X64;
    const tetra_matrix *fr = to_fr ? dst : src, *sd = to_fr ? src : dst;
    const int64_t L = tetra_matrix_batch(src), rows = src->rows, K = src->cols, nkb = K / 16;
    const int64_t FB = (int64_t)tetra_nvfp4_fragment_bytes(rows, K);
    const int64_t SB = (int64_t)tetra_nvfp4_scale_bytes(rows, K, TETRA_SCALE_FRAGMENT_128X64);
    if (to_fr)
        memset(dst->scales, 0, (size_t)(SB * L)); /* the swizzled padding */
    else
        zero_swizzled_padding(dst);
    for (int64_t l = 0; l < L; l++) {
        uint8_t *fb = (uint8_t *)fr->data + l * FB, *fs = (uint8_t *)fr->scales + l * SB;
        if (to_fr) {
            const uint8_t *sb = byte_ptr(sd, l, 0, 0);
            const int64_t row_bytes = tetra_matrix_ld(sd) / 2;
            for (int64_t off = 0; off < FB; off += 4) {
                const uint32_t w = tetra_frag_gather_word(sb, row_bytes, rows, K, off);
                for (int b = 0; b < 4; b++) fb[off + b] = (uint8_t)(w >> (8 * b));
            }
        } else {
            for (int64_t r = 0; r < rows; r++) {
                uint8_t *row = byte_ptr(sd, l, r, 0);
                for (int64_t k = 0; k < K; k += 2) row[k / 2] = tetra_frag_std_byte(fb, r, k, K);
            }
        }
        for (int64_t r = 0; r < rows; r++)
            for (int64_t kb = 0; kb < nkb; kb++) {
                uint8_t *f = fs + tetra_swizzled_offset(r, kb, nkb), *s = scale_ptr(sd, l, r, kb);
                if (to_fr) *f = *s;
                else *s = *f;
            }
    }
}

tetra_status tetra_convert_weights_host(const tetra_matrix *src, tetra_matrix *dst) {
    tetra_status st;
    const int to_il = dst && dst->scale_layout == TETRA_SCALE_INTERLEAVED_32X128;
    const tetra_matrix *il, *sd;
    int64_t L, nkb, nseg, P;
    if ((st = tetra_check_convert_weights(src, dst, TETRA_MEM_HOST)) != TETRA_OK) return st;
    if (src->scale_layout == TETRA_SCALE_FRAGMENT_128X64 || dst->scale_layout == TETRA_SCALE_FRAGMENT_128X64) {
        convert_fragment_host(src, dst);
        dst->global_scale = src->global_scale;
        dst->global_scale_dev = src->global_scale_dev;
        return TETRA_OK;
    }
    il = to_il ? dst : src;
    sd = to_il ? src : dst;
    L = tetra_matrix_batch(src);
    nkb = src->cols / 16;
    nseg = tetra_il_segments(src->cols);
    P = (int64_t)tetra_nvfp4_interleaved_bytes(src->rows, src->cols);
    if (to_il)
        memset(dst->data, 0, (size_t)(P * L)); /* padding rows, K padding, flags, tail */
    else
        zero_swizzled_padding(dst);
    for (int64_t l = 0; l < L; l++) {
        uint8_t *ib = (uint8_t *)il->data + l * P;
        for (int64_t r = 0; r < src->rows; r++) {
            uint8_t flag = 0;
            for (int64_t kb = 0; kb < nkb; kb++) {
                uint8_t *sdata = byte_ptr(sd, l, r, kb * 16), *ssc = scale_ptr(sd, l, r, kb);
                uint8_t *idata = ib + tetra_il_data_offset(r, kb * 16, nseg),
                        *isc = ib + tetra_il_scale_offset(r, kb, nseg);
                if (to_il) {
                    tetra_il_pack8(idata, sdata);
                    *isc = *ssc;
                    flag |= (uint8_t)tetra_scale_code_bad(*ssc);
                } else {
                    tetra_il_unpack8(sdata, idata);
                    *ssc = *isc;
                }
            }
            if (to_il) ib[tetra_il_flag_offset(src->rows, src->cols, r)] = flag;
        }
    }
    dst->global_scale = src->global_scale;
    dst->global_scale_dev = src->global_scale_dev;
    return TETRA_OK;
}
