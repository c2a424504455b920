/*
 * gemv.cu - the decode path: Y[M,N] = alpha * X[M,K] * W[N,K]^T (+ bias[N]) for M = 1..16,
 * W NVFP4 (either scale layout), X BF16/FP16 (W4A16) or NVFP4 (W4A4), Y FP32/FP16/BF16,
 * batched over L. Notes, numbers and predictions: docs/notes/gemv.md.
 *
 * Two kernels:
 *   gemv_nvfp4_mma     streams W with 16-byte loads and multiplies on the tensor cores
 *                      (mma.sync m16n8k16, sm_80+): 16 dequantized weight rows are the A
 *                      operand, the activation rows (padded to 8 or 16 with zeros) the narrow
 *                      B operand. Split-K across CTAs writes FP32 partials to the context
 *                      workspace; gemv_splitk_reduce sums them in a fixed order.
 *   gemv_nvfp4_scalar  one warp per (batch, weight row), scalar loads, FP32 FMAs: the
 *                      correct path for every problem the mma kernel cannot take.
 *
 * Fast-path constraints (anything else valid runs on the scalar kernel, never UNSUPPORTED
 * for M <= 16):
 *   - K % 128 == 0 and K <= 2^30;
 *   - W (and X when NVFP4): data 16-byte aligned, ld % 32 == 0 and batch_stride % 32 == 0
 *     (4-bit elements, i.e. 16-byte aligned rows); scales 2-byte aligned, linear scale_ld
 *     and scale_batch_stride even;
 *   - X BF16/FP16: data 16-byte aligned, ld % 8 == 0, batch_stride % 8 == 0;
 *   - block-scale bytes are UE4M3 (0x00..0x7E) or the NaN code 0x7F, which the mma kernel
 *     turns into a NaN operand (bytes with the sign bit set are not UE4M3; they are
 *     decoded as their low 7 bits there).
 *
 * Exactness: e2m1 * ue4m3 has at most 6 significant bits and lies in [2^-10, 2688]. The
 * kernel builds each weight by placing the nibble's bits into an FP16/BF16 word (no table)
 * and multiplying by the block scale in the operand type; the product is exact but carries
 * a fixed power-of-two factor (FP16: 2^-14, BF16: 2^-7, see dequant_word), which the
 * epilogue removes in FP32 together with alpha and the global scales.
 *
 * Batch invariance: row m of Y does not depend on M. Grid, split-K and accumulation order
 * depend only on N, K, L, the dtypes and the device; rows >= M are zero B columns; the
 * second n=8 mma (rows 8..15) runs only when M > 8 but never changes rows 0..7; each output
 * element of an mma is computed from its own column alone.
 */
#include "common.cuh"
#include "launch.h"

#include <stdint.h>

namespace {

enum {
    GEMV_WARPS = 4,
    GEMV_THREADS = GEMV_WARPS * TETRA_WARP,
    GEMV_ROWS_PER_WARP = 32, /* two 16-row A tiles */
    GEMV_ROWS_PER_CTA = GEMV_WARPS * GEMV_ROWS_PER_WARP,
    GEMV_SEG_K = 128,        /* K elements per warp step: 4 threads x 32 elements */
    GEMV_MAX_M = 16,
    GEMV_MIN_SEGS_PER_SPLIT = 2
};

/* Which activation operand: decides the tensor-core type (bf16 for BF16 X, f16 else). */
enum { X_BF16 = 0, X_FP16 = 1, X_NVFP4 = 2 };

struct gemv_params {
    const uint8_t *w, *w_scales;
    int64_t w_row_bytes, w_batch_bytes, w_scale_ld, w_scale_batch;
    int w_swizzled;
    const uint8_t *x, *x_scales; /* x_scales only for NVFP4 X */
    int64_t x_row_bytes, x_batch_bytes, x_scale_ld, x_scale_batch;
    int x_swizzled;
    tetra_dtype x_dtype;
    void *y;
    int64_t y_ld, y_batch; /* elements */
    tetra_dtype y_dtype;
    const void *bias;
    tetra_dtype bias_dtype;
    float alpha;
    const float *ga, *gb;
    float *partial; /* [L][splits][16][N] FP32 when splits > 1 */
    int splits;
    int m;
    int64_t n, k, nkb;
    int nseg;
};

/* ---------------------------------------------------------------- epilogue */

/* y = (v * pow2) * (alpha * ga * gb) + bias, rounded once to Y's dtype. pow2 undoes the
 * operand scaling of the mma kernel (exact). */
__device__ __forceinline__ void gemv_store(const gemv_params &p, int64_t l, int m, int64_t n,
                                           float v, float pow2) {
    float y = (v * pow2) * tetra_gemm_scale(p.alpha, p.ga, p.gb);
    if (p.bias) y += tetra_load_dense(p.bias, n, p.bias_dtype);
    tetra_store_dense(p.y, l * p.y_batch + (int64_t)m * p.y_ld + n, p.y_dtype, y);
}

/* ---------------------------------------------------------------- mma kernel pieces */

template <int XK> struct gemv_operand;
template <> struct gemv_operand<X_BF16> { static constexpr float pow2 = 128.0f; };        /* 2^7 */
template <> struct gemv_operand<X_FP16> { static constexpr float pow2 = 16384.0f; };      /* 2^14 */
template <> struct gemv_operand<X_NVFP4> { static constexpr float pow2 = 268435456.0f; }; /* 2^28 */

__device__ __forceinline__ uint32_t mul_f16x2(uint32_t a, uint32_t b) {
    uint32_t d;
    asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}

/* bf16x2 multiply on sm_80 (mul.bf16x2 is sm_90+): fma with -0 adds nothing. */
__device__ __forceinline__ uint32_t mul_bf16x2(uint32_t a, uint32_t b) {
    uint32_t d;
    asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(0x80008000u));
    return d;
}

/* A UE4M3 scale byte broadcast to both halves of the operand type, times the factor the
 * bit-placed weights need (see dequant_word).
 *   FP16: the byte at bits 7..14 reads as s * 2^-8 (normal and subnormal alike); * 2^8.
 *   BF16: the byte at bits 4..11 reads as s * 2^-120; * 2^120 * 2^119 gives s * 2^119
 *         (< 2^128, finite). */
template <bool BF16> __device__ __forceinline__ uint32_t scale_pair(uint32_t b) {
    /* 0x7F/0xFF are NaN in E4M3 (the GPU quantizer writes 0x7F for a block that held
     * NaN/Inf): keep them NaN so the output is loud, never a finite wrong value */
    if ((b & 0x7Fu) == 0x7Fu) return 0x7FFF7FFFu;
    if (BF16) {
        uint32_t v = mul_bf16x2(b * 0x00100010u, 0x7B807B80u); /* 2^120 */
        return mul_bf16x2(v, 0x7B007B00u);                    /* 2^119 */
    }
    return mul_f16x2(b * 0x00800080u, 0x5C005C00u); /* 2^8 */
}

/* One 32-bit word of 8 E2M1 nibbles n0..n7 (n0 in the low nibble) -> four operand pairs
 * out[i] = (n_i, n_{i+4}) * scale (low half n_i). The nibble's e1 e0 m bits go to the
 * exponent's two low bits and the mantissa's top bit, its sign to bit 15: read as FP16 that
 * is e2m1 * 2^-14, as BF16 e2m1 * 2^-126 (code 1 lands on the subnormal 2^-15 / 2^-127,
 * which is exactly 0.5 * the factor). Times the scale pair:
 *   FP16: e2m1 * s * 2^-14, a multiple of 2^-24 below 0.17: exact, subnormals included.
 *   BF16: e2m1 * s * 2^-7 in [2^-17, 21]: exact. */
template <bool BF16> __device__ __forceinline__ void dequant_word(uint32_t w, uint32_t s2,
                                                                 uint32_t out[4]) {
    const uint32_t sign = 0x80008000u;
    if (BF16) {
        const uint32_t mag = 0x01C001C0u; /* bits 6..8 of each half */
        out[0] = mul_bf16x2(((w << 6) & mag) | ((w << 12) & sign), s2);
        out[1] = mul_bf16x2(((w << 2) & mag) | ((w << 8) & sign), s2);
        out[2] = mul_bf16x2(((w >> 2) & mag) | ((w << 4) & sign), s2);
        out[3] = mul_bf16x2(((w >> 6) & mag) | (w & sign), s2);
    } else {
        const uint32_t mag = 0x0E000E00u; /* bits 9..11 of each half */
        out[0] = mul_f16x2(((w << 9) & mag) | ((w << 12) & sign), s2);
        out[1] = mul_f16x2(((w << 5) & mag) | ((w << 8) & sign), s2);
        out[2] = mul_f16x2(((w << 1) & mag) | ((w << 4) & sign), s2);
        out[3] = mul_f16x2(((w >> 3) & mag) | (w & sign), s2);
    }
}

__device__ __forceinline__ uint32_t word_of(const uint4 &v, int q) {
    return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

/* Weights are read once: keep them out of L1 so X and the scales stay there. */
__device__ __forceinline__ uint4 load_stream16(const uint8_t *ptr) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(ptr));
    return v;
}

__device__ __forceinline__ uint32_t load_scale2(const uint8_t *ptr) {
    return (uint32_t)__ldg((const unsigned short *)ptr);
}

template <bool BF16>
__device__ __forceinline__ void mma_16816(float c[4], uint32_t a0, uint32_t a1, uint32_t a2,
                                          uint32_t a3, uint32_t b0, uint32_t b1) {
    if (BF16)
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
            "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    else
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
            "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/* Row part of a scale byte offset (see tetra_swizzled_offset); the K part is added per
 * segment by scale_kpart. */
__device__ __forceinline__ int64_t scale_rowpart(int swizzled, int64_t r, int64_t nkb,
                                                 int64_t scale_ld) {
    if (!swizzled) return r * scale_ld;
    return (int64_t)TETRA_SWIZZLE_ATOM * ((r / 128) * ((nkb + 3) / 4)) + 16 * (r % 32) +
           4 * ((r % 128) / 32);
}

/* K part for blocks kb = 8*seg + 2t and kb + 1 (contiguous in both layouts). */
__device__ __forceinline__ int64_t scale_kpart(int swizzled, int64_t seg, int t) {
    if (!swizzled) return 8 * seg + 2 * t;
    return 1024 * seg + 512 * (t >> 1) + 2 * (t & 1);
}

/*
 * The mma kernel. CTA = 4 warps = 128 weight rows; blockIdx.y = split of K (contiguous
 * 128-element segments), blockIdx.z = batch. Lane (g = lane/4, t = lane%4) of a warp owns
 * weight rows r0 + g + 8i (i = 0..3: A tile 0 holds i = 0,1, A tile 1 holds i = 2,3) and,
 * in each segment, the 32 K elements [32t, 32t+32): one 16-byte load per row. Word q of that
 * load (K 8q..8q+7) yields pairs (n_i, n_{i+4}); mma step (q, a) with a in {0, 2} takes pair
 * a for logical K (2t, 2t+1) and pair a+1 for (2t+8, 2t+9). The activation fragment of row
 * m = g (and g + 8) uses the same K assignment, so both operands agree on every K index.
 */
template <int XK>
__global__ void __launch_bounds__(GEMV_THREADS) gemv_nvfp4_mma(const gemv_params p) {
    constexpr bool BF16 = XK == X_BF16;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int64_t l = blockIdx.z;
    const int split = blockIdx.y;
    const int64_t r0 = (int64_t)blockIdx.x * GEMV_ROWS_PER_CTA + warp * GEMV_ROWS_PER_WARP;
    const int seg_begin = (int)((int64_t)split * p.nseg / p.splits);
    const int seg_end = (int)((int64_t)(split + 1) * p.nseg / p.splits);
    const bool two_tiles = p.m > 8; /* warp-uniform */

    const uint8_t *wrow[4];
    int64_t wsrow[4];
    const uint8_t *w_scales = p.w_scales + l * p.w_scale_batch;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int64_t r = r0 + g + 8 * i;
        if (r >= p.n) r = p.n - 1; /* rows past N read a valid row; results are dropped */
        wrow[i] = p.w + l * p.w_batch_bytes + r * p.w_row_bytes + 16 * t;
        wsrow[i] = scale_rowpart(p.w_swizzled, r, p.nkb, p.w_scale_ld);
    }
    /* activation rows g and g + 8 of this lane; NULL when past M (zero operand) */
    const uint8_t *xrow[2];
    int64_t xsrow[2];
    const uint8_t *x_scales = p.x_scales ? p.x_scales + l * p.x_scale_batch : nullptr;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        int m = g + 8 * h;
        xrow[h] = m < p.m ? p.x + l * p.x_batch_bytes + (int64_t)m * p.x_row_bytes : nullptr;
        xsrow[h] = XK == X_NVFP4 ? scale_rowpart(p.x_swizzled, m, p.nkb, p.x_scale_ld) : 0;
    }

    float acc[2][2][4];
#pragma unroll
    for (int a = 0; a < 2; a++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int c = 0; c < 4; c++) acc[a][h][c] = 0.0f;

    for (int seg = seg_begin; seg < seg_end; seg++) {
        /* all global loads of the segment first: 4 weight loads in flight per lane */
        uint4 wraw[4];
        uint32_t wsc[4];
#pragma unroll
        for (int i = 0; i < 4; i++) wraw[i] = load_stream16(wrow[i] + (int64_t)seg * 64);
        const int64_t wk = scale_kpart(p.w_swizzled, seg, t);
#pragma unroll
        for (int i = 0; i < 4; i++) wsc[i] = load_scale2(w_scales + wsrow[i] + wk);

        /* activation fragments: xf[h][q][pair] for K 8q + pair and 8q + pair + 4 */
        uint32_t xf[2][4][4];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            if (xrow[h] && (h == 0 || two_tiles)) {
                if (XK == X_NVFP4) {
                    uint4 v = __ldg((const uint4 *)(xrow[h] + (int64_t)seg * 64 + 16 * t));
                    uint32_t sc = load_scale2(x_scales + xsrow[h] +
                                              scale_kpart(p.x_swizzled, seg, t));
                    uint32_t s0 = scale_pair<false>(sc & 0xFFu), s1 = scale_pair<false>(sc >> 8);
#pragma unroll
                    for (int q = 0; q < 4; q++)
                        dequant_word<false>(word_of(v, q), q < 2 ? s0 : s1, xf[h][q]);
                } else {
                    const uint4 *xp = (const uint4 *)(xrow[h] + (int64_t)seg * 256 + 64 * t);
#pragma unroll
                    for (int q = 0; q < 4; q++) {
                        uint4 v = __ldg(xp + q); /* elements 8q..8q+7: (x0x1, x2x3, x4x5, x6x7) */
                        xf[h][q][0] = __byte_perm(v.x, v.z, 0x5410); /* (x0, x4) */
                        xf[h][q][1] = __byte_perm(v.x, v.z, 0x7632); /* (x1, x5) */
                        xf[h][q][2] = __byte_perm(v.y, v.w, 0x5410); /* (x2, x6) */
                        xf[h][q][3] = __byte_perm(v.y, v.w, 0x7632); /* (x3, x7) */
                    }
                }
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
#pragma unroll
                    for (int c = 0; c < 4; c++) xf[h][q][c] = 0u;
            }
        }

        uint32_t s2[4][2];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            s2[i][0] = scale_pair<BF16>(wsc[i] & 0xFFu); /* block 2t: words 0, 1 */
            s2[i][1] = scale_pair<BF16>(wsc[i] >> 8);    /* block 2t+1: words 2, 3 */
        }
#pragma unroll
        for (int q = 0; q < 4; q++) {
            uint32_t wd[4][4];
#pragma unroll
            for (int i = 0; i < 4; i++) dequant_word<BF16>(word_of(wraw[i], q), s2[i][q >> 1], wd[i]);
#pragma unroll
            for (int a = 0; a < 4; a += 2)
#pragma unroll
                for (int at = 0; at < 2; at++) {
                    mma_16816<BF16>(acc[at][0], wd[2 * at][a], wd[2 * at + 1][a], wd[2 * at][a + 1],
                                    wd[2 * at + 1][a + 1], xf[0][q][a], xf[0][q][a + 1]);
                    if (two_tiles)
                        mma_16816<BF16>(acc[at][1], wd[2 * at][a], wd[2 * at + 1][a],
                                        wd[2 * at][a + 1], wd[2 * at + 1][a + 1], xf[1][q][a],
                                        xf[1][q][a + 1]);
                }
        }
    }

    /* C fragment: c0,c1 -> (A row g, cols 2t, 2t+1), c2,c3 -> (A row g+8, same cols) */
#pragma unroll
    for (int at = 0; at < 2; at++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int c = 0; c < 4; c++) {
                const int64_t n = r0 + 16 * at + g + 8 * (c >> 1);
                const int m = 8 * h + 2 * t + (c & 1);
                if (n >= p.n || m >= p.m) continue;
                if (p.splits == 1)
                    gemv_store(p, l, m, n, acc[at][h][c], gemv_operand<XK>::pow2);
                else
                    p.partial[((l * p.splits + split) * GEMV_MAX_M + m) * p.n + n] = acc[at][h][c];
            }
}

/* Split-K second pass: one thread per (batch, m, n); partials summed in split order. */
template <int XK>
__global__ void __launch_bounds__(256) gemv_splitk_reduce(const gemv_params p) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t l = blockIdx.z;
    if (i >= (int64_t)p.m * p.n) return;
    const int m = (int)(i / p.n);
    const int64_t n = i % p.n;
    const float *src = p.partial + (l * p.splits * GEMV_MAX_M + m) * p.n + n;
    const int64_t stride = (int64_t)GEMV_MAX_M * p.n;
    float v = src[0];
    for (int s = 1; s < p.splits; s++) v += src[s * stride];
    gemv_store(p, l, m, n, v, gemv_operand<XK>::pow2);
}

/* ---------------------------------------------------------------- scalar kernel */

/* One warp per (batch, weight row n): lane handles blocks kb = lane, lane + 32, ...; every
 * activation row has its own FP32 accumulator with the same order whatever M is; a fixed
 * xor-shuffle tree sums the lanes. */
__global__ void __launch_bounds__(128) gemv_nvfp4_scalar(const gemv_params p) {
    const int lane = threadIdx.x & 31;
    const int64_t n = (int64_t)blockIdx.x * 4 + (threadIdx.x >> 5);
    const int64_t l = blockIdx.y;
    if (n >= p.n) return; /* whole warp */
    const uint8_t *wrow = p.w + l * p.w_batch_bytes + n * p.w_row_bytes;
    const uint8_t *wsc = p.w_scales + l * p.w_scale_batch;
    const uint8_t *xb = p.x + l * p.x_batch_bytes;
    const bool x_fp4 = p.x_dtype == TETRA_DTYPE_NVFP4;
    const uint8_t *xsc = x_fp4 ? p.x_scales + l * p.x_scale_batch : nullptr;
    float acc[GEMV_MAX_M];
#pragma unroll
    for (int m = 0; m < GEMV_MAX_M; m++) acc[m] = 0.0f;

    for (int64_t kb = lane; kb < p.nkb; kb += TETRA_WARP) {
        float wv[16];
        const float ws =
            tetra_e4m3_to_float(wsc[tetra_scale_offset(p.w_swizzled, n, kb, p.nkb, p.w_scale_ld)]);
#pragma unroll
        for (int e = 0; e < 16; e++) {
            unsigned byte = wrow[kb * 8 + e / 2];
            wv[e] = tetra_e2m1_to_float((e & 1) ? byte >> 4 : byte & 15u) * ws;
        }
#pragma unroll
        for (int m = 0; m < GEMV_MAX_M; m++) {
            if (m >= p.m) break;
            const uint8_t *xr = xb + (int64_t)m * p.x_row_bytes;
            float a = acc[m];
            if (x_fp4) {
                const float xs = tetra_e4m3_to_float(
                    xsc[tetra_scale_offset(p.x_swizzled, m, kb, p.nkb, p.x_scale_ld)]);
#pragma unroll
                for (int e = 0; e < 16; e++) {
                    unsigned byte = xr[kb * 8 + e / 2];
                    a = fmaf(wv[e], tetra_e2m1_to_float((e & 1) ? byte >> 4 : byte & 15u) * xs, a);
                }
            } else {
#pragma unroll
                for (int e = 0; e < 16; e++)
                    a = fmaf(wv[e], tetra_load_dense(xr, kb * 16 + e, p.x_dtype), a);
            }
            acc[m] = a;
        }
    }
#pragma unroll
    for (int m = 0; m < GEMV_MAX_M; m++) {
        if (m >= p.m) break;
        float v = acc[m];
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, off);
        if (lane == 0) gemv_store(p, l, m, n, v, 1.0f);
    }
}

/* ---------------------------------------------------------------- launcher */

bool fp4_fast_ok(const tetra_operand &o) {
    if (!tetra_aligned(o.data, 16) || o.ld % 32 || o.batch_stride % 32) return false;
    if (!tetra_aligned(o.scales, 2) || o.scale_batch_stride % 2) return false;
    if (o.scale_layout == TETRA_SCALE_LINEAR && o.scale_ld % 2) return false;
    return true;
}

template <int XK>
tetra_status launch_mma(gemv_params &prm, const tetra_gemm_problem *p) {
    cudaStream_t stream = TETRA_STREAM(p);
    int occ = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, gemv_nvfp4_mma<XK>, GEMV_THREADS, 0) !=
            cudaSuccess ||
        occ < 1) {
        (void)cudaGetLastError();
        occ = 1;
    }
    /* Split K so the grid fills one wave. Depends on N, K, L, dtype and device only, never
     * on M: the workspace is sized for 16 rows so its availability cannot depend on M. */
    const int64_t tiles = (p->n + GEMV_ROWS_PER_CTA - 1) / GEMV_ROWS_PER_CTA;
    int64_t splits = ((int64_t)p->ctx->sms * occ) / (tiles * p->batch);
    int64_t max_splits = prm.nseg / GEMV_MIN_SEGS_PER_SPLIT;
    if (splits > max_splits) splits = max_splits;
    if (splits > 4096) splits = 4096;
    if (splits < 1) splits = 1;
    prm.partial = nullptr;
    if (splits > 1) {
        void *ws = nullptr;
        size_t bytes = (size_t)splits * (size_t)p->batch * GEMV_MAX_M * (size_t)p->n * sizeof(float);
        if (tetra_context_workspace(p->ctx, bytes, &ws) != TETRA_OK) {
            tetra_clear_error(); /* a fixed user workspace too small: run unsplit */
            splits = 1;
        } else {
            prm.partial = (float *)ws;
        }
    }
    prm.splits = (int)splits;
    dim3 grid((unsigned)tiles, (unsigned)splits, (unsigned)p->batch);
    gemv_nvfp4_mma<XK><<<grid, GEMV_THREADS, 0, stream>>>(prm);
    TETRA_LAUNCH_CHECK();
    if (splits > 1) {
        const int64_t outs = (int64_t)p->m * p->n;
        dim3 rgrid((unsigned)((outs + 255) / 256), 1, (unsigned)p->batch);
        gemv_splitk_reduce<XK><<<rgrid, 256, 0, stream>>>(prm);
        TETRA_LAUNCH_CHECK();
    }
    return TETRA_OK;
}

} /* namespace */

extern "C" tetra_status tetra_launch_gemv(const tetra_gemm_problem *p) {
    const tetra_operand &a = p->a, &b = p->b;
    if (p->m < 1 || p->m > GEMV_MAX_M)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "tetra_launch_gemv: M = %lld; the GEMV path takes 1..16 rows",
                          (long long)p->m);
    if (p->ctx->sm_major < 8)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "tetra_launch_gemv: needs sm_80 or later");
    if (b.dtype != TETRA_DTYPE_NVFP4 ||
        (a.dtype != TETRA_DTYPE_BF16 && a.dtype != TETRA_DTYPE_FP16 &&
         a.dtype != TETRA_DTYPE_NVFP4) ||
        p->d_dtype == TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "tetra_launch_gemv: takes NVFP4 W, BF16/FP16/NVFP4 X, FP32/FP16/BF16 Y");
    if (p->n > ((int64_t)1 << 31) - GEMV_ROWS_PER_CTA)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "tetra_launch_gemv: N = %lld is too large",
                          (long long)p->n);

    gemv_params prm;
    prm.w = (const uint8_t *)b.data;
    prm.w_scales = b.scales;
    prm.w_row_bytes = b.ld / 2;
    prm.w_batch_bytes = b.batch_stride / 2;
    prm.w_scale_ld = b.scale_ld;
    prm.w_scale_batch = b.scale_batch_stride;
    prm.w_swizzled = b.scale_layout == TETRA_SCALE_SWIZZLED_128X4;
    prm.x = (const uint8_t *)a.data;
    prm.x_dtype = a.dtype;
    if (a.dtype == TETRA_DTYPE_NVFP4) {
        prm.x_scales = a.scales;
        prm.x_row_bytes = a.ld / 2;
        prm.x_batch_bytes = a.batch_stride / 2;
        prm.x_scale_ld = a.scale_ld;
        prm.x_scale_batch = a.scale_batch_stride;
        prm.x_swizzled = a.scale_layout == TETRA_SCALE_SWIZZLED_128X4;
    } else {
        prm.x_scales = nullptr;
        prm.x_row_bytes = a.ld * 2;
        prm.x_batch_bytes = a.batch_stride * 2;
        prm.x_scale_ld = 0;
        prm.x_scale_batch = 0;
        prm.x_swizzled = 0;
    }
    prm.y = p->d;
    prm.y_ld = p->ldd;
    prm.y_batch = p->d_batch_stride;
    prm.y_dtype = p->d_dtype;
    prm.bias = p->bias;
    prm.bias_dtype = p->bias_dtype;
    prm.alpha = p->alpha;
    prm.ga = a.dtype == TETRA_DTYPE_NVFP4 ? a.gscale_dev : nullptr;
    prm.gb = b.gscale_dev;
    prm.partial = nullptr;
    prm.splits = 1;
    prm.m = (int)p->m;
    prm.n = p->n;
    prm.k = p->k;
    prm.nkb = p->k / 16;
    prm.nseg = (int)(p->k / GEMV_SEG_K);

    bool fast = p->k % GEMV_SEG_K == 0 && p->k <= ((int64_t)1 << 30) && fp4_fast_ok(b);
    if (a.dtype == TETRA_DTYPE_NVFP4)
        fast = fast && fp4_fast_ok(a);
    else
        fast = fast && tetra_aligned(a.data, 16) && a.ld % 8 == 0 && a.batch_stride % 8 == 0;

    if (fast) {
        switch (a.dtype) {
        case TETRA_DTYPE_BF16: return launch_mma<X_BF16>(prm, p);
        case TETRA_DTYPE_FP16: return launch_mma<X_FP16>(prm, p);
        default: return launch_mma<X_NVFP4>(prm, p);
        }
    }
    dim3 grid((unsigned)((p->n + 3) / 4), (unsigned)p->batch);
    gemv_nvfp4_scalar<<<grid, 128, 0, TETRA_STREAM(p)>>>(prm);
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}
