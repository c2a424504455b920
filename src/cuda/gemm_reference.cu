/*
 * gemm_reference.cu - the GPU reference GEMM: one output element per thread, FP64
 * accumulation of exactly dequantized operands. Deliberately simple: it is the checker
 * for shapes too big for the CPU oracle (8192^3), so it mirrors src/ref/oracle.c step
 * by step:
 *   - unscaled operands: e2m1 * ue4m3 (exact in FP32) for NVFP4, the value itself for
 *     FP16/BF16; each product of two FP32 values is exact in FP64;
 *   - four partial sums, acc[k % 4], each in ascending k, combined as
 *     (acc0 + acc1) + (acc2 + acc3): the oracle's order, so the FP64 sums agree bit
 *     for bit (an FMA of an exact product rounds like the separate add);
 *   - v = scale * sum (+ bias), scale = (double)alpha * *gA * *gB in that order; the
 *     multiply and add use explicit _rn intrinsics so they are never contracted;
 *   - one rounding to D: FP32 directly, FP16/BF16 via round-to-odd into FP32 first.
 * Grid: x = n (32 per block), y = m (grid-stride past 65535 blocks), z = batch; all
 * indexing in int64.
 */
#include <limits.h>
#include <stdint.h>

#include "common.cuh"
#include "launch.h"

namespace {

enum a_kind { A_NVFP4 = 0, A_FP16 = 1, A_BF16 = 2 };

constexpr int kBlockN = 32;
constexpr int kBlockM = 8;

struct ref_operand {
    const void *data;
    int64_t ld, batch_stride; /* elements (NVFP4: 4-bit elements) */
    const uint8_t *scales;
    int64_t scale_ld, scale_batch_stride;
    /* 0 linear, 1 swizzled, 2 interleaved 32x128 (B only: data holds everything),
     * 3 fragment 128x64 (B only: values in wgmma fragment words, scales swizzled) */
    int layout;
};

struct ref_params {
    int64_t m, n, k;
    ref_operand a, b;
    void *d;
    int64_t ldd, d_batch_stride;
    tetra_dtype d_dtype;
    float alpha;
    const float *ga, *gb;
    const void *bias;
    tetra_dtype bias_dtype;
};

/* Round a double to float with round-to-odd (the device twin of tetra_f64_to_f32_odd):
 * truncate toward zero, then set the last bit if anything was dropped. A later RNE
 * rounding to FP16/BF16 then equals one rounding of the double. */
__device__ __forceinline__ float f64_to_f32_odd(double d) {
    const float t = __double2float_rz(d);
    if (isnan(d) || (double)t == d) return t;
    return __uint_as_float(__float_as_uint(t) | 1u);
}

/* Unscaled value k (within a 16-block whose decoded scale is s) of an NVFP4 row. */
__device__ __forceinline__ float nvfp4_unscaled(const uint8_t *row, int64_t k, float s) {
    const unsigned byte = row[k / 2];
    return tetra_e2m1_to_float((k & 1) ? (byte >> 4) : (byte & 15u)) * s;
}

template <int AK>
__device__ __forceinline__ float a_unscaled(const void *row, int64_t k, float s) {
    if (AK == A_NVFP4) return nvfp4_unscaled((const uint8_t *)row, k, s);
    if (AK == A_FP16) return __half2float(((const __half *)row)[k]);
    return __bfloat162float(((const __nv_bfloat16 *)row)[k]);
}

/* BF: b in the fragment layout (layout 3), a separate instantiation so that the other
 * layouts' code is what it was */
template <int AK, bool BF>
__global__ void __launch_bounds__(kBlockN *kBlockM) gemm_reference_kernel(ref_params p) {
    const int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t l = blockIdx.z;
    if (n >= p.n) return;
    const int64_t nkb = p.k / TETRA_NVFP4_BLOCK;
    const bool b_il = !BF && p.b.layout == 2;
    const int64_t b_nseg = tetra_il_segments(p.k);
    const uint8_t *bbatch = (const uint8_t *)p.b.data + l * p.b.batch_stride / 2;
    const uint8_t *brow = (const uint8_t *)p.b.data + (l * p.b.batch_stride + n * p.b.ld) / 2;
    const uint8_t *bsc = p.b.scales + l * p.b.scale_batch_stride;
    double scale = (double)p.alpha;
    if (p.ga) scale = __dmul_rn(scale, (double)*p.ga);
    if (p.gb) scale = __dmul_rn(scale, (double)*p.gb);
    double bias = 0.0;
    if (p.bias) bias = (double)tetra_load_dense(p.bias, n, p.bias_dtype);

    for (int64_t m = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; m < p.m;
         m += (int64_t)gridDim.y * blockDim.y) {
        const void *arow;
        const uint8_t *asc = p.a.scales + (AK == A_NVFP4 ? l * p.a.scale_batch_stride : 0);
        if (AK == A_NVFP4)
            arow = (const uint8_t *)p.a.data + (l * p.a.batch_stride + m * p.a.ld) / 2;
        else
            arow = (const uint16_t *)p.a.data + l * p.a.batch_stride + m * p.a.ld;
        double acc0 = 0.0, acc1 = 0.0, acc2 = 0.0, acc3 = 0.0;
        for (int64_t kb = 0; kb < nkb; kb++) {
            /* this block's 8 value bytes are contiguous in every layout but the fragment one
             * (gathered into bstd below; bblk is then not read) */
            const uint8_t *bblk = b_il ? bbatch + tetra_il_data_offset(n, kb * TETRA_NVFP4_BLOCK, b_nseg)
                                       : brow + kb * (TETRA_NVFP4_BLOCK / 2);
            uint8_t bstd[TETRA_NVFP4_BLOCK / 2]; /* the interleaved/fragment block in standard order */
            if (TETRA_GEMV_IL_PAIRS && b_il) {
                tetra_il_unpack8(bstd, bblk);
                bblk = bstd;
            }
            if (BF) { /* the 16 codes, a k pair (one word) at a time */
#pragma unroll
                for (int q = 0; q < TETRA_NVFP4_BLOCK; q += 2) {
                    const int64_t k = kb * TETRA_NVFP4_BLOCK + q;
                    const uint32_t w = *(const uint32_t *)(bbatch + tetra_frag_word_offset(n, k, p.k));
                    bstd[q / 2] = (uint8_t)(tetra_frag_get(w, n, k) | tetra_frag_get(w, n, k + 1) << 4);
                }
                bblk = bstd;
            }
            const float sb = tetra_e4m3_to_float(
                b_il ? bbatch[tetra_il_scale_offset(n, kb, b_nseg)]
                     : bsc[BF ? tetra_swizzled_offset(n, kb, nkb)
                                  : tetra_scale_offset(p.b.layout, n, kb, nkb, p.b.scale_ld)]);
            float sa = 1.0f;
            if (AK == A_NVFP4)
                sa = tetra_e4m3_to_float(asc[tetra_scale_offset(p.a.layout, m, kb, nkb, p.a.scale_ld)]);
            /* 16 = 4 x 4: acc_u takes k % 4 == u, in ascending k, like the oracle */
#pragma unroll
            for (int q = 0; q < TETRA_NVFP4_BLOCK; q += 4) {
                const int64_t k = kb * TETRA_NVFP4_BLOCK + q;
                acc0 += (double)a_unscaled<AK>(arow, k + 0, sa) * (double)nvfp4_unscaled(bblk, q + 0, sb);
                acc1 += (double)a_unscaled<AK>(arow, k + 1, sa) * (double)nvfp4_unscaled(bblk, q + 1, sb);
                acc2 += (double)a_unscaled<AK>(arow, k + 2, sa) * (double)nvfp4_unscaled(bblk, q + 2, sb);
                acc3 += (double)a_unscaled<AK>(arow, k + 3, sa) * (double)nvfp4_unscaled(bblk, q + 3, sb);
            }
        }
        double v = __dmul_rn(scale, __dadd_rn(__dadd_rn(acc0, acc1), __dadd_rn(acc2, acc3)));
        if (p.bias) v = __dadd_rn(v, bias);
        const int64_t i = l * p.d_batch_stride + m * p.ldd + n;
        switch (p.d_dtype) {
        case TETRA_DTYPE_FP32: ((float *)p.d)[i] = __double2float_rn(v); break;
        case TETRA_DTYPE_FP16: ((__half *)p.d)[i] = __float2half_rn(f64_to_f32_odd(v)); break;
        default: ((__nv_bfloat16 *)p.d)[i] = __float2bfloat16_rn(f64_to_f32_odd(v)); break;
        }
    }
}

ref_operand make_operand(const tetra_operand &o) {
    ref_operand r;
    r.data = o.data;
    r.ld = o.ld;
    r.batch_stride = o.batch_stride;
    r.scales = o.scales;
    r.scale_ld = o.scale_ld;
    r.scale_batch_stride = o.scale_batch_stride;
    r.layout = o.scale_layout == TETRA_SCALE_SWIZZLED_128X4      ? 1
               : o.scale_layout == TETRA_SCALE_INTERLEAVED_32X128 ? 2
               : o.scale_layout == TETRA_SCALE_FRAGMENT_128X64    ? 3
                                                                  : 0;
    return r;
}

} /* namespace */

extern "C" tetra_status tetra_launch_gemm_reference(const tetra_gemm_problem *p) {
    if (p->b.dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "gemm reference: b must be NVFP4");
    if (p->a.dtype != TETRA_DTYPE_NVFP4 && p->a.dtype != TETRA_DTYPE_FP16 &&
        p->a.dtype != TETRA_DTYPE_BF16)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "gemm reference: a must be NVFP4, FP16 or BF16");
    if (p->k % TETRA_NVFP4_BLOCK)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "gemm reference: K must be a multiple of 16");
    const int64_t gx = (p->n + kBlockN - 1) / kBlockN;
    int64_t gy = (p->m + kBlockM - 1) / kBlockM;
    if (gx > INT_MAX || p->batch > TETRA_MAX_GRID_Y)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "gemm reference: N or batch too large for one grid");
    if (gy > TETRA_MAX_GRID_Y) gy = TETRA_MAX_GRID_Y;
    ref_params rp;
    rp.m = p->m;
    rp.n = p->n;
    rp.k = p->k;
    rp.a = make_operand(p->a);
    rp.b = make_operand(p->b);
    rp.d = p->d;
    rp.ldd = p->ldd;
    rp.d_batch_stride = p->d_batch_stride;
    rp.d_dtype = p->d_dtype;
    rp.alpha = p->alpha;
    rp.ga = p->a.dtype == TETRA_DTYPE_NVFP4 ? p->a.gscale_dev : NULL;
    rp.gb = p->b.gscale_dev;
    rp.bias = p->bias;
    rp.bias_dtype = p->bias_dtype;
    const dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)p->batch), block(kBlockN, kBlockM);
    const cudaStream_t stream = TETRA_STREAM(p);
    if (rp.b.layout == 3) {
        switch (p->a.dtype) {
        case TETRA_DTYPE_NVFP4: gemm_reference_kernel<A_NVFP4, true><<<grid, block, 0, stream>>>(rp); break;
        case TETRA_DTYPE_FP16: gemm_reference_kernel<A_FP16, true><<<grid, block, 0, stream>>>(rp); break;
        default: gemm_reference_kernel<A_BF16, true><<<grid, block, 0, stream>>>(rp); break;
        }
    } else {
        switch (p->a.dtype) {
        case TETRA_DTYPE_NVFP4: gemm_reference_kernel<A_NVFP4, false><<<grid, block, 0, stream>>>(rp); break;
        case TETRA_DTYPE_FP16: gemm_reference_kernel<A_FP16, false><<<grid, block, 0, stream>>>(rp); break;
        default: gemm_reference_kernel<A_BF16, false><<<grid, block, 0, stream>>>(rp); break;
        }
    }
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}
