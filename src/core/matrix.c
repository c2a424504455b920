/* matrix.c - descriptor defaults, sizes and validation shared by every entry point. */
#include "internal.h"

#include <math.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "../format/nvfp4_codec.h"

tetra_matrix tetra_matrix_dense(tetra_dtype dtype, void *data, int64_t rows, int64_t cols) {
    tetra_matrix m = {0};
    m.dtype = dtype;
    m.data = data;
    m.rows = rows;
    m.cols = cols;
    m.batch = 1;
    return m;
}

tetra_matrix tetra_matrix_nvfp4(void *data, void *scales, tetra_scale_layout layout,
                                int64_t rows, int64_t k, float global_scale) {
    tetra_matrix m = tetra_matrix_dense(TETRA_DTYPE_NVFP4, data, rows, k);
    m.scales = scales;
    m.scale_layout = layout;
    m.global_scale = global_scale;
    return m;
}

size_t tetra_dtype_bits(tetra_dtype dt) {
    switch (dt) {
    case TETRA_DTYPE_FP32: return 32;
    case TETRA_DTYPE_FP16: return 16;
    case TETRA_DTYPE_BF16: return 16;
    case TETRA_DTYPE_NVFP4: return 4;
    }
    return 0;
}

/* Sizes beyond 2^47 elements are rejected: far above any device, and it keeps every
 * product below in int64 range. */
#define TETRA_MAX_DIM ((int64_t)1 << 47)

size_t tetra_nvfp4_data_bytes(int64_t rows, int64_t k) {
    if (rows < 1 || k < 16 || k % 16 || rows > TETRA_MAX_DIM || k > TETRA_MAX_DIM) return 0;
    if (rows > TETRA_MAX_DIM / k) return 0;
    return (size_t)(rows * (k / 2));
}

size_t tetra_nvfp4_scale_bytes(int64_t rows, int64_t k, tetra_scale_layout layout) {
    if (tetra_nvfp4_data_bytes(rows, k) == 0) return 0;
    if (layout == TETRA_SCALE_LINEAR) return (size_t)(rows * (k / 16));
    if (layout == TETRA_SCALE_SWIZZLED_128X4 || layout == TETRA_SCALE_FRAGMENT_128X64)
        return (size_t)tetra_swizzled_bytes(rows, k / 16); /* FRAGMENT: swizzled scales */
    return 0; /* the interleaved layout keeps its scales in data */
}

size_t tetra_nvfp4_interleaved_bytes(int64_t rows, int64_t k) {
    int64_t rp, kp;
    if (tetra_nvfp4_data_bytes(rows, k) == 0) return 0;
    /* the padded matrix must pass the same size limit as a standard one */
    rp = (rows + TETRA_IL_TILE_ROWS - 1) / TETRA_IL_TILE_ROWS * TETRA_IL_TILE_ROWS;
    kp = tetra_il_segments(k) * TETRA_IL_K;
    if (rp > TETRA_MAX_DIM || kp > TETRA_MAX_DIM || rp > TETRA_MAX_DIM / kp) return 0;
    return (size_t)tetra_il_batch_bytes(rows, k);
}

size_t tetra_nvfp4_fragment_bytes(int64_t rows, int64_t k) {
    int64_t rp, kp;
    if (tetra_nvfp4_data_bytes(rows, k) == 0) return 0;
    /* the padded matrix must pass the same size limit as a standard one */
    rp = tetra_frag_padded_rows(rows);
    kp = tetra_frag_padded_k(k);
    if (rp > TETRA_MAX_DIM || kp > TETRA_MAX_DIM || rp > TETRA_MAX_DIM / kp) return 0;
    return (size_t)tetra_frag_batch_bytes(rows, k);
}

static int is_interleaved(const tetra_matrix *m) {
    return m->dtype == TETRA_DTYPE_NVFP4 && m->scale_layout == TETRA_SCALE_INTERLEAVED_32X128;
}
static int is_fragment(const tetra_matrix *m) {
    return m->dtype == TETRA_DTYPE_NVFP4 && m->scale_layout == TETRA_SCALE_FRAGMENT_128X64;
}

int64_t tetra_matrix_ld(const tetra_matrix *m) { return m->ld ? m->ld : m->cols; }
int64_t tetra_matrix_batch(const tetra_matrix *m) { return m->batch > 0 ? m->batch : 1; }
int64_t tetra_matrix_batch_stride(const tetra_matrix *m) {
    /* interleaved: 4-bit elements, so twice the bytes of one batch */
    if (is_interleaved(m)) return 2 * (int64_t)tetra_nvfp4_interleaved_bytes(m->rows, m->cols);
    if (is_fragment(m)) return 2 * (int64_t)tetra_nvfp4_fragment_bytes(m->rows, m->cols);
    return m->batch_stride ? m->batch_stride : m->rows * tetra_matrix_ld(m);
}
int64_t tetra_matrix_scale_ld(const tetra_matrix *m) {
    if (is_interleaved(m) || is_fragment(m)) return 0;
    return m->scale_ld ? m->scale_ld : m->cols / 16;
}
int64_t tetra_matrix_scale_batch_stride(const tetra_matrix *m) {
    if (is_interleaved(m)) return 0;
    if (is_fragment(m)) return (int64_t)tetra_nvfp4_scale_bytes(m->rows, m->cols, TETRA_SCALE_FRAGMENT_128X64);
    if (m->scale_batch_stride) return m->scale_batch_stride;
    if (m->scale_layout == TETRA_SCALE_SWIZZLED_128X4)
        return tetra_swizzled_bytes(m->rows, m->cols / 16);
    return m->rows * tetra_matrix_scale_ld(m);
}

int tetra_aligned(const void *p, size_t bytes) { return ((uintptr_t)p % bytes) == 0; }

tetra_status tetra_check_device_ptr(const void *p, const char *name) {
    struct cudaPointerAttributes attr;
    cudaError_t err = cudaPointerGetAttributes(&attr, p);
    if (err != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky-free error state */
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "%s: cannot query pointer %p (%s)", name, p, cudaGetErrorString(err));
    }
    if (attr.type == cudaMemoryTypeUnregistered || attr.type == cudaMemoryTypeHost)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "%s is a host pointer (%p); a device pointer is required", name, p);
    return TETRA_OK;
}

static int valid_dtype(tetra_dtype dt) {
    return dt == TETRA_DTYPE_FP32 || dt == TETRA_DTYPE_FP16 || dt == TETRA_DTYPE_BF16 ||
           dt == TETRA_DTYPE_NVFP4;
}

/* The interleaved layout's own fields: everything lives in data, nothing is strided. */
static tetra_status check_interleaved(const tetra_matrix *m, const char *name) {
    if (m->ld || m->batch_stride || m->scale_ld || m->scale_batch_stride)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "%s: ld, batch_stride, scale_ld and scale_batch_stride must be 0 for "
                          "TETRA_SCALE_INTERLEAVED_32X128 (the layout fixes them)", name);
    if (m->scales)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "%s.scales must be NULL for TETRA_SCALE_INTERLEAVED_32X128 (scales live in data)",
                          name);
    if (!tetra_aligned(m->data, 16))
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "%s.data must be 16-byte aligned for TETRA_SCALE_INTERLEAVED_32X128", name);
    if (tetra_nvfp4_interleaved_bytes(m->rows, m->cols) == 0)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s: %lldx%lld is too large for the interleaved layout",
                          name, (long long)m->rows, (long long)m->cols);
    return TETRA_OK;
}

/* The fragment layout's own fields: values and scales at fixed places, nothing strided.
 * Every refusal names the argument and the field. */
static tetra_status check_fragment(const tetra_matrix *m, const char *name) {
    static const char *const lay = "TETRA_SCALE_FRAGMENT_128X64";
    if (m->ld)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.ld = %lld must be 0 for %s (the layout fixes it)", name,
                          (long long)m->ld, lay);
    if (m->batch_stride)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.batch_stride = %lld must be 0 for %s (the layout fixes it)",
                          name, (long long)m->batch_stride, lay);
    if (m->scale_ld)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.scale_ld = %lld must be 0 for %s (the layout fixes it)",
                          name, (long long)m->scale_ld, lay);
    if (m->scale_batch_stride)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "%s.scale_batch_stride = %lld must be 0 for %s (the layout fixes it)", name,
                          (long long)m->scale_batch_stride, lay);
    if (!tetra_aligned(m->data, 16))
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.data must be 16-byte aligned for %s", name, lay);
    if (!m->scales) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.scales is NULL", name);
    if (!tetra_aligned(m->scales, 16))
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.scales must be 16-byte aligned for %s", name, lay);
    if (tetra_nvfp4_fragment_bytes(m->rows, m->cols) == 0)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s: %lldx%lld is too large for the fragment layout", name,
                          (long long)m->rows, (long long)m->cols);
    return TETRA_OK;
}

static tetra_status check_matrix_layout(const tetra_matrix *m, const char *name, tetra_mem where,
                                       int allow_interleaved) {
    int64_t ld, batch, bstride;
    if (!m) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s is NULL", name);
    if (!valid_dtype(m->dtype))
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.dtype %d is not a tetra_dtype", name,
                          (int)m->dtype);
    if (is_interleaved(m)) {
        tetra_status st;
        if (!allow_interleaved)
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                              "%s.scale_layout is TETRA_SCALE_INTERLEAVED_32X128: prepared weights are "
                              "read only as tetra_gemm's b (weights); use tetra_convert_weights to get a "
                              "standard layout", name);
        if (!m->data) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.data is NULL", name);
        if (m->rows >= 1 && m->rows <= TETRA_MAX_DIM && m->cols >= 1 && m->cols <= TETRA_MAX_DIM &&
            m->cols % 16 == 0 && (st = check_interleaved(m, name)) != TETRA_OK)
            return st;
    }
    if (is_fragment(m)) {
        tetra_status st;
        if (!allow_interleaved)
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                              "%s.scale_layout is TETRA_SCALE_FRAGMENT_128X64: prepared weights are "
                              "read only as tetra_gemm's b (weights); use tetra_convert_weights to get a "
                              "standard layout", name);
        if (!m->data) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.data is NULL", name);
        if (m->rows >= 1 && m->rows <= TETRA_MAX_DIM && m->cols >= 1 && m->cols <= TETRA_MAX_DIM &&
            m->cols % 16 == 0 && (st = check_fragment(m, name)) != TETRA_OK)
            return st;
    }
    if (!m->data) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.data is NULL", name);
    if (m->rows < 1 || m->rows > TETRA_MAX_DIM)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.rows = %lld is out of range [1, 2^47]",
                          name, (long long)m->rows);
    if (m->cols < 1 || m->cols > TETRA_MAX_DIM)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.cols = %lld is out of range [1, 2^47]",
                          name, (long long)m->cols);
    if (m->batch < 0 || m->batch > 65535)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.batch = %lld is out of range [0, 65535]",
                          name, (long long)m->batch);
    ld = tetra_matrix_ld(m);
    batch = tetra_matrix_batch(m);
    if (ld < m->cols)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.ld = %lld is smaller than cols = %lld",
                          name, (long long)ld, (long long)m->cols);
    if (ld > TETRA_MAX_DIM || m->rows > TETRA_MAX_DIM / ld)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s: rows * ld overflows", name);
    bstride = tetra_matrix_batch_stride(m);
    if (batch > 1) {
        if (bstride < 0 || (bstride < m->rows * ld && bstride != 0))
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                              "%s.batch_stride = %lld is smaller than rows * ld = %lld", name,
                              (long long)bstride, (long long)(m->rows * ld));
        if (bstride > TETRA_MAX_DIM || batch > TETRA_MAX_DIM / bstride)
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s: batch * batch_stride overflows", name);
    }
    if (m->dtype == TETRA_DTYPE_NVFP4) {
        if (m->cols % 16)
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                              "%s.cols (K) = %lld is not a multiple of 16 (the NVFP4 block)", name,
                              (long long)m->cols);
        if (ld % 2 || bstride % 2)
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                              "%s.ld and batch_stride must be even for NVFP4 (two values per byte)",
                              name);
        if (!m->scales && !is_interleaved(m))
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.scales is NULL", name);
        if (m->scale_layout != TETRA_SCALE_LINEAR && m->scale_layout != TETRA_SCALE_SWIZZLED_128X4 &&
            !is_interleaved(m) && !is_fragment(m))
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                              "%s.scale_layout %d is not a tetra_scale_layout", name,
                              (int)m->scale_layout);
        if (m->scale_layout == TETRA_SCALE_LINEAR && tetra_matrix_scale_ld(m) < m->cols / 16)
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                              "%s.scale_ld = %lld is smaller than K/16 = %lld", name,
                              (long long)m->scale_ld, (long long)(m->cols / 16));
        if (m->scale_layout == TETRA_SCALE_SWIZZLED_128X4 && m->scale_ld != 0)
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                              "%s.scale_ld must be 0 for the swizzled-128x4 layout", name);
        if (batch > 1 && m->scale_batch_stride != 0) {
            tetra_matrix dflt = *m;
            dflt.scale_batch_stride = 0;
            if (m->scale_batch_stride < tetra_matrix_scale_batch_stride(&dflt))
                return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                                  "%s.scale_batch_stride = %lld is smaller than one batch's scales",
                                  name, (long long)m->scale_batch_stride);
        }
        if (!m->global_scale_dev && !(isfinite(m->global_scale) && m->global_scale > 0.0f))
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                              "%s.global_scale = %g must be finite and > 0", name,
                              (double)m->global_scale);
    } else {
        size_t esz = tetra_dtype_bits(m->dtype) / 8;
        if (!tetra_aligned(m->data, esz))
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "%s.data is not %zu-byte aligned", name,
                              esz);
    }
    if (where == TETRA_MEM_DEVICE) {
        char what[96];
        tetra_status st;
        snprintf(what, sizeof what, "%s.data", name);
        if ((st = tetra_check_device_ptr(m->data, what)) != TETRA_OK) return st;
        if (m->dtype == TETRA_DTYPE_NVFP4) {
            snprintf(what, sizeof what, "%s.scales", name);
            /* the interleaved layout has no scales pointer */
            if (!is_interleaved(m) && (st = tetra_check_device_ptr(m->scales, what)) != TETRA_OK)
                return st;
            if (m->global_scale_dev) {
                snprintf(what, sizeof what, "%s.global_scale_dev", name);
                if ((st = tetra_check_device_ptr(m->global_scale_dev, what)) != TETRA_OK) return st;
            }
        }
    }
    return TETRA_OK;
}

tetra_status tetra_check_matrix(const tetra_matrix *m, const char *name, tetra_mem where) {
    return check_matrix_layout(m, name, where, 0);
}

tetra_status tetra_check_weights(const tetra_matrix *m, const char *name, tetra_mem where) {
    return check_matrix_layout(m, name, where, 1);
}

tetra_operand tetra_operand_from(const tetra_matrix *m) {
    tetra_operand o;
    o.dtype = m->dtype;
    o.data = m->data;
    o.ld = tetra_matrix_ld(m);
    o.batch_stride = tetra_matrix_batch_stride(m);
    o.scales = (const uint8_t *)m->scales;
    o.scale_layout = m->scale_layout;
    o.scale_ld = tetra_matrix_scale_ld(m);
    o.scale_batch_stride = tetra_matrix_scale_batch_stride(m);
    o.gscale = m->global_scale;
    o.gscale_dev = m->global_scale_dev;
    return o;
}
