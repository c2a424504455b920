/*
 * quantize.cu - the NVFP4 format core on the GPU: quantize (FP32/FP16/BF16 -> NVFP4),
 * dequantize (NVFP4 -> FP32/FP16/BF16) and block-scale layout conversion.
 *
 * Bits: every encode/decode/index decision comes from nvfp4_codec.h, evaluated in the
 * same order of float operations as the host core (src/format/nvfp4.c), so results are
 * bit-identical to tetra_quantize_host / tetra_dequantize_host /
 * tetra_convert_scales_host. tests/gpu_format.c checks that.
 *
 * Work split (all kernels): grid x covers positions inside a row, grid y covers rows
 * (a grid-stride loop past 65535 blocks), grid z is the batch. No integer division in
 * the hot loops. When rows, batches and base pointers are aligned (every benchmark
 * shape): quantize_blocks_kernel gives a thread two whole 16-element blocks, and
 * dequantize_aligned_kernel two 16-byte output chunks (coalesced stores), each with
 * 16-byte accesses. Otherwise quantize_kernel / dequantize_kernel own one chunk of
 * 4 FP32 or 8 FP16/BF16 values (unrolled twice), move it element by element, and the
 * 2 or 4 lanes of a block combine its amax with shuffles.
 *
 * Non-finite input (a contract, since an asynchronous kernel cannot return an error):
 *   - a 16-element block holding NaN or +-Inf gets scale code 0x7F (NaN in E4M3) and
 *     zero element codes, so dequantizing it yields NaN: loud, never silent;
 *   - FROM_AMAX: a non-finite amax makes the global scale NaN (written to the device);
 *   - a global scale that is not finite and > 0 (NaN from above, or a bad value behind
 *     global_scale_dev) gives every block scale code 0x7F and zero codes.
 * The host quantizer instead refuses such input with TETRA_ERR_NON_FINITE.
 */
#include <limits.h>
#include <stdint.h>

#include "common.cuh"
#include "launch.h"

namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kThreads = 256; /* threads per block for the element-wise kernels */
constexpr int kUnroll = 2;    /* 16-byte chunks per thread */
constexpr uint8_t kScaleNaN = 0x7F;

template <typename T> struct dense_traits;
template <> struct dense_traits<float> { static constexpr int V = 4; };
template <> struct dense_traits<__half> { static constexpr int V = 8; };
template <> struct dense_traits<__nv_bfloat16> { static constexpr int V = 8; };

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
    return __float2bfloat16_rn(v);
}

/* The global scale a kernel uses: the device value when given, else the host one. */
__device__ __forceinline__ float read_global_scale(const float *dev, float host) {
    return dev ? *dev : host;
}

__device__ __forceinline__ bool valid_global_scale(float g) {
    return g > 0.0f && g <= 3.402823466e38f; /* finite and positive; false for NaN */
}

/* Dense side of a problem: element pointer math in elements. */
struct dense_view {
    const void *data;
    int64_t ld, batch_stride;
};

/* NVFP4 side: packed values (byte pitch = ld/2) and block scales. */
struct nvfp4_view {
    uint8_t *data;
    int64_t ld, batch_stride; /* 4-bit elements */
    uint8_t *scales;
    int64_t scale_ld, scale_batch_stride;
    int layout;
};

struct shape {
    int64_t rows, cols, nkb; /* nkb = cols / 16 */
};

/* Where one batch (grid z) of a quantize or dequantize problem starts: its packed values,
 * its block scales and its dense elements. */
template <typename T> struct batch_bases {
    uint8_t *codes, *scales;
    T *dense;
};

template <typename T> __device__ __forceinline__ batch_bases<T> batch_of(const nvfp4_view &q, const dense_view &d) {
    const int64_t l = blockIdx.z;
    return {q.data + l * (q.batch_stride / 2), q.scales + l * q.scale_batch_stride, (T *)d.data + l * d.batch_stride};
}

/* Load V consecutive dense values as floats. */
template <typename T, bool VEC>
__device__ __forceinline__ void load_chunk(const T *p, float (&x)[dense_traits<T>::V]) {
    constexpr int V = dense_traits<T>::V;
    if (VEC) {
        uint4 u = __ldg(reinterpret_cast<const uint4 *>(p));
        const T *e = reinterpret_cast<const T *>(&u);
#pragma unroll
        for (int i = 0; i < V; i++) x[i] = to_float(e[i]);
    } else {
#pragma unroll
        for (int i = 0; i < V; i++) x[i] = to_float(p[i]);
    }
}

/* Store V consecutive dense values, rounding each once (RNE); element by element. */
template <typename T>
__device__ __forceinline__ void store_chunk(T *p, const float (&x)[dense_traits<T>::V]) {
#pragma unroll
    for (int i = 0; i < dense_traits<T>::V; i++) p[i] = from_float<T>(x[i]);
}

/* Store / load NBYTES bytes of packed codes (nibble i at bits 4i), byte by byte. */
template <int NBYTES>
__device__ __forceinline__ void store_codes(uint8_t *p, uint32_t codes) {
#pragma unroll
    for (int j = 0; j < NBYTES; j++) p[j] = (uint8_t)(codes >> (8 * j));
}

template <int NBYTES>
__device__ __forceinline__ uint32_t load_codes(const uint8_t *p) {
    uint32_t c = 0;
#pragma unroll
    for (int j = 0; j < NBYTES; j++) c |= (uint32_t)p[j] << (8 * j);
    return c;
}

/* ------------------------------------------------------------------ amax */

/* amax(|x|) over the whole tensor, as the max of the bit patterns of |x| (for x >= 0
 * the unsigned order of the bits is the float order, and NaN > Inf > finite), so an
 * atomicMax on unsigned is exact and order-independent. *amax_bits starts at 0. */
template <typename T, bool VEC>
__global__ void __launch_bounds__(kThreads)
amax_kernel(dense_view src, shape sh, unsigned *amax_bits) {
    constexpr int V = dense_traits<T>::V;
    const int64_t cpr = sh.cols / V; /* chunks per row */
    const int64_t l = blockIdx.z;
    const T *base = (const T *)src.data + l * src.batch_stride;
    unsigned m = 0;
    for (int64_t rb = (int64_t)blockIdx.y * blockDim.y; rb < sh.rows;
         rb += (int64_t)gridDim.y * blockDim.y) {
        const int64_t r = rb + threadIdx.y;
        float x[kUnroll][V];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const int64_t c = ((int64_t)blockIdx.x * kUnroll + u) * blockDim.x + threadIdx.x;
            if (r < sh.rows && c < cpr) {
                load_chunk<T, VEC>(base + r * src.ld + c * V, x[u]);
            } else {
#pragma unroll
                for (int i = 0; i < V; i++) x[u][i] = 0.0f;
            }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
#pragma unroll
            for (int i = 0; i < V; i++) m = max(m, __float_as_uint(fabsf(x[u][i])));
    }
    /* block max, then one atomic per block */
    __shared__ unsigned warp_max[kThreads / TETRA_WARP];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    m = __reduce_max_sync(kFullMask, m);
    if (tid % TETRA_WARP == 0) warp_max[tid / TETRA_WARP] = m;
    __syncthreads();
    if (tid == 0) {
        unsigned b = 0;
        for (int w = 0; w < (int)(blockDim.x * blockDim.y) / TETRA_WARP; w++) b = max(b, warp_max[w]);
        atomicMax(amax_bits, b);
    }
}

/* amax bits -> global decode scale, in place. Non-finite amax -> NaN (see the top). */
__global__ void global_scale_from_amax_kernel(float *g) {
    const float amax = __uint_as_float(*reinterpret_cast<const unsigned *>(g));
    *g = isfinite(amax) ? tetra_nvfp4_global_scale(amax) : __uint_as_float(0x7fc00000u);
}

/* ------------------------------------------------------------------ quantize */

/* The general path (unaligned bases or strides): one chunk of V elements per thread,
 * moved element by element; the TPB lanes of a block share its amax by shuffles. The
 * aligned case takes quantize_blocks_kernel below. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
quantize_kernel(dense_view src, nvfp4_view dst, shape sh, const float *g_dev, float g_host) {
    constexpr int V = dense_traits<T>::V;
    constexpr int TPB = TETRA_NVFP4_BLOCK / V; /* lanes per 16-element block: 2 or 4 */
    const int64_t cpr = sh.cols / V;
    const batch_bases<T> b = batch_of<T>(dst, src);
    const float g = read_global_scale(g_dev, g_host);
    const bool g_ok = valid_global_scale(g);
    /* The row loop's trip count is uniform over the block, so every lane reaches the
     * shuffles below; lanes outside the matrix carry zeros and store nothing. */
    for (int64_t rb = (int64_t)blockIdx.y * blockDim.y; rb < sh.rows;
         rb += (int64_t)gridDim.y * blockDim.y) {
        const int64_t r = rb + threadIdx.y;
        float x[kUnroll][V];
        bool ok[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const int64_t c = ((int64_t)blockIdx.x * kUnroll + u) * blockDim.x + threadIdx.x;
            ok[u] = r < sh.rows && c < cpr;
            if (ok[u]) {
                load_chunk<T, false>(b.dense + r * src.ld + c * V, x[u]);
            } else {
#pragma unroll
                for (int i = 0; i < V; i++) x[u][i] = 0.0f;
            }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const int64_t c = ((int64_t)blockIdx.x * kUnroll + u) * blockDim.x + threadIdx.x;
            float bmax = 0.0f;
            int bad = 0;
#pragma unroll
            for (int i = 0; i < V; i++) {
                const float a = fabsf(x[u][i]);
                if (a > bmax) bmax = a; /* NaN never wins: it is flagged instead */
                bad |= !isfinite(x[u][i]);
            }
            /* the TPB lanes of one block are adjacent and TPB-aligned (blockDim.x is a
             * power of two >= 4 and every chunk base is a multiple of TPB) */
#pragma unroll
            for (int off = 1; off < TPB; off <<= 1) {
                bmax = fmaxf(bmax, __shfl_xor_sync(kFullMask, bmax, off));
                bad |= __shfl_xor_sync(kFullMask, bad, off);
            }
            uint8_t sc = kScaleNaN;
            float s = 0.0f;
            if (!bad && g_ok) {
                sc = tetra_nvfp4_block_scale(bmax, g);
                s = tetra_e4m3_to_float(sc);
            }
            uint32_t codes = 0;
            if (s > 0.0f) {
#pragma unroll
                for (int i = 0; i < V; i++)
                    codes |= (uint32_t)tetra_nvfp4_encode_element(x[u][i], s, g) << (4 * i);
            }
            if (ok[u]) {
                store_codes<V / 2>(b.codes + (r * dst.ld + c * V) / 2, codes);
                if (c % TPB == 0)
                    b.scales[tetra_scale_offset(dst.layout, r, c / TPB, sh.nkb, dst.scale_ld)] = sc;
            }
        }
    }
}

/* ------------------------------------------------------------------ dequantize */

/* The general path, element by element (see quantize_kernel); dequantize_aligned_kernel
 * below takes the aligned case. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
dequantize_kernel(nvfp4_view src, dense_view dst, shape sh, const float *g_dev, float g_host) {
    tetra_pdl_trigger(); /* a W4A4 GEMV may start its weight stream now (gemm_api.c) */
    constexpr int V = dense_traits<T>::V;
    constexpr int TPB = TETRA_NVFP4_BLOCK / V;
    const int64_t cpr = sh.cols / V;
    const batch_bases<T> b = batch_of<T>(src, dst);
    const float g = read_global_scale(g_dev, g_host);
    for (int64_t r = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; r < sh.rows;
         r += (int64_t)gridDim.y * blockDim.y) {
        uint32_t codes[kUnroll] = {};
        unsigned sc[kUnroll] = {};
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const int64_t c = ((int64_t)blockIdx.x * kUnroll + u) * blockDim.x + threadIdx.x;
            if (c < cpr) {
                codes[u] = load_codes<V / 2>(b.codes + (r * src.ld + c * V) / 2);
                sc[u] = b.scales[tetra_scale_offset(src.layout, r, c / TPB, sh.nkb, src.scale_ld)];
            }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const int64_t c = ((int64_t)blockIdx.x * kUnroll + u) * blockDim.x + threadIdx.x;
            if (c < cpr) {
                /* the scale is decoded once per chunk; (e2m1 * s) * g is the operation
                 * order of tetra_nvfp4_decode_element, so the bits are the host's */
                const float s = tetra_e4m3_to_float(sc[u]);
                float y[V];
#pragma unroll
                for (int i = 0; i < V; i++)
                    y[i] = (tetra_e2m1_to_float((codes[u] >> (4 * i)) & 15u) * s) * g;
                store_chunk<T>(b.dense + r * dst.ld + c * V, y);
            }
        }
    }
}

/* ------------------------------------------------------------------ block paths */

/* The paths the aligned case takes (every benchmark shape). Quantize: a thread owns
 * whole 16-element blocks (kBlockUnroll of them, blockDim.x apart in a row, all loaded
 * before any is used), so the per-block work (amax, scale code, reciprocal) is done once
 * per 16 elements and no lane waits on a neighbour. Dequantize: 16-byte chunks, see
 * dequantize_aligned_kernel. Bits equal the host's through the twins in nvfp4_codec.h
 * (docs/notes/format-kernels.md, rung 2). */
constexpr int kBlockUnroll = 2;

/* Dense block: 16 values as 32-bit words (8 for FP16/BF16, 16 for FP32). */
template <typename T> struct block_words { static constexpr int W = 16 * (int)sizeof(T) / 4; };

/* Byte offset of block column kb inside a scale row (the row part is added by the
 * caller): linear kb, swizzled 512 * (kb / 4) + kb % 4 (tetra_swizzled_offset). */
__device__ __forceinline__ int64_t scale_col_offset(int layout, int64_t kb) {
    return layout ? (int64_t)TETRA_SWIZZLE_ATOM * (kb >> 2) + (kb & 3) : kb;
}

__device__ __forceinline__ int64_t scale_row_offset(int layout, int64_t r, int64_t nkb, int64_t scale_ld) {
    return layout ? (int64_t)TETRA_SWIZZLE_ATOM * (r / 128) * ((nkb + 3) / 4) + 16 * (r % 32) +
                        4 * ((r % 128) / 32)
                  : r * scale_ld;
}

/* Element i of a block (its words as loaded), as a float: exact for every dtype. */
__device__ __forceinline__ float block_elem(const uint32_t (&w)[8], int i, __nv_bfloat16 *) {
    return __uint_as_float((i & 1) ? (w[i / 2] & 0xffff0000u) : (w[i / 2] << 16));
}
__device__ __forceinline__ float block_elem(const uint32_t (&w)[8], int i, __half *) {
    return __half2float(__ushort_as_half((unsigned short)((i & 1) ? w[i / 2] >> 16 : w[i / 2])));
}
__device__ __forceinline__ float block_elem(const uint32_t (&w)[16], int i, float *) {
    return __uint_as_float(w[i]);
}

/* Block amax as a float, and whether the block holds NaN/Inf: an unsigned max of the
 * magnitude bits (for x >= 0 the bit order is the value order; Inf and NaN are the
 * largest patterns), two 16-bit lanes at a time for FP16/BF16. */
__device__ __forceinline__ uint32_t max_magnitude_u16x2(const uint32_t (&w)[8]) {
    uint32_t m = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) m = __vmaxu2(m, w[j] & 0x7fff7fffu);
    return max(m & 0xffffu, m >> 16);
}
__device__ __forceinline__ float block_amax(const uint32_t (&w)[8], bool *bad, __nv_bfloat16 *) {
    const uint32_t m = max_magnitude_u16x2(w);
    *bad = m >= 0x7f80u;
    return __uint_as_float(m << 16);
}
__device__ __forceinline__ float block_amax(const uint32_t (&w)[8], bool *bad, __half *) {
    const uint32_t m = max_magnitude_u16x2(w);
    *bad = m >= 0x7c00u;
    return __half2float(__ushort_as_half((unsigned short)m));
}
__device__ __forceinline__ float block_amax(const uint32_t (&w)[16], bool *bad, float *) {
    uint32_t m = 0;
#pragma unroll
    for (int j = 0; j < 16; j++) m = max(m, w[j] & 0x7fffffffu);
    *bad = m >= 0x7f800000u;
    return __uint_as_float(m);
}

/* Top byte (sign and high exponent bits) of elements 0..3 and 4..7 of an 8-element
 * half block, packed [e0 e1 e2 e3] and [e4 e5 e6 e7]. */
template <typename T>
__device__ __forceinline__ void top_bytes(const uint32_t *w, uint32_t *lo, uint32_t *hi) {
    if (sizeof(T) == 4) {
        *lo = __byte_perm(__byte_perm(w[0], w[1], 0x0073), __byte_perm(w[2], w[3], 0x7300), 0x7610);
        *hi = __byte_perm(__byte_perm(w[4], w[5], 0x0073), __byte_perm(w[6], w[7], 0x7300), 0x7610);
    } else {
        *lo = __byte_perm(w[0], w[1], 0x7531);
        *hi = __byte_perm(w[2], w[3], 0x7531);
    }
}

/* Sign bits of 8 elements placed at bit 3 of their nibbles (bit 4i + 3). */
__device__ __forceinline__ uint32_t sign_nibbles(uint32_t lo, uint32_t hi) {
    const uint32_t even = __byte_perm(lo, hi, 0x6420); /* e0 e2 e4 e6 -> nibbles 0 2 4 6 */
    const uint32_t odd = __byte_perm(lo, hi, 0x7531);  /* e1 e3 e5 e7 -> nibbles 1 3 5 7 */
    return ((even >> 4) & 0x08080808u) | (odd & 0x80808080u);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
quantize_blocks_kernel(dense_view src, nvfp4_view dst, shape sh, const float *g_dev, float g_host) {
    constexpr int W = block_words<T>::W;
    const batch_bases<T> b = batch_of<T>(dst, src);
    const float g = read_global_scale(g_dev, g_host);
    const bool g_ok = valid_global_scale(g);
    const float g6 = 6.0f * g; /* tetra_nvfp4_block_scale's divisor, same rounding */
    for (int64_t r = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; r < sh.rows;
         r += (int64_t)gridDim.y * blockDim.y) {
        uint32_t w[kBlockUnroll][W];
#pragma unroll
        for (int u = 0; u < kBlockUnroll; u++) {
            const int64_t kb = ((int64_t)blockIdx.x * kBlockUnroll + u) * blockDim.x + threadIdx.x;
            if (kb < sh.nkb) {
                const uint4 *p = reinterpret_cast<const uint4 *>(b.dense + r * src.ld + kb * 16);
#pragma unroll
                for (int j = 0; j < W / 4; j++) {
                    const uint4 v = __ldg(p + j);
                    w[u][4 * j] = v.x; w[u][4 * j + 1] = v.y; w[u][4 * j + 2] = v.z; w[u][4 * j + 3] = v.w;
                }
            }
        }
        const int64_t srow = scale_row_offset(dst.layout, r, sh.nkb, dst.scale_ld);
#pragma unroll
        for (int u = 0; u < kBlockUnroll; u++) {
            const int64_t kb = ((int64_t)blockIdx.x * kBlockUnroll + u) * blockDim.x + threadIdx.x;
            if (kb >= sh.nkb) continue;
            bool bad;
            const float bmax = block_amax(w[u], &bad, (T *)nullptr);
            unsigned sc = kScaleNaN;
            float s = 0.0f;
            if (!bad && g_ok) {
                sc = tetra_ue4m3_code_nonneg(bmax / g6);
                s = tetra_ue4m3_value(sc);
            }
            uint32_t codes[2] = {0u, 0u};
            if (s > 0.0f) {
                const float d = __fmul_rn(s, g); /* the host's divisor s * g */
                const float y = __frcp_rn(d);
                /* tetra_div_by_reciprocal is exact for d in [2^-90, 2^90] and quotients
                 * below 2^64 (notes, "Rung 2"); other blocks divide like the host */
                const bool safe = d >= 0x1p-90f && d <= 0x1p90f && __fmul_rn(bmax, y) < 0x1p64f;
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    uint32_t c = 0;
                    if (safe) {
                        /* magnitudes here, signs from the input's sign bits below */
#pragma unroll
                        for (int i = 0; i < 8; i++) {
                            const float a = fabsf(block_elem(w[u], 8 * h + i, (T *)nullptr));
                            c += tetra_e2m1_code_nonneg(tetra_div_by_reciprocal(a, d, y)) << (4 * i);
                        }
                        uint32_t lo, hi;
                        top_bytes<T>(&w[u][h * W / 2], &lo, &hi);
                        c |= sign_nibbles(lo, hi);
                    } else {
#pragma unroll
                        for (int i = 0; i < 8; i++)
                            c |= (uint32_t)tetra_nvfp4_encode_element(block_elem(w[u], 8 * h + i, (T *)nullptr),
                                                                      s, g) << (4 * i);
                    }
                    codes[h] = c;
                }
            }
            *reinterpret_cast<uint2 *>(b.codes + (r * dst.ld + kb * 16) / 2) = make_uint2(codes[0], codes[1]);
            b.scales[srow + scale_col_offset(dst.layout, kb)] = (uint8_t)sc;
        }
    }
}

/* Dequantize to FP16/BF16: per block, the 8 possible magnitudes
 * RN_T((e2m1 * s) * g) (the host's operations and order, tetra_nvfp4_decode_element then
 * one rounding) are computed once; the two bytes of each are split into a low-byte and
 * a high-byte table (2 registers each) that PRMT indexes with the codes' low 3 bits.
 * RN is symmetric, so a negative code is its magnitude with the sign bit flipped (also
 * for zeros and for negative scale bytes; NaN stays NaN). */
template <typename T>
__device__ __forceinline__ void dequant_table(float s, float g, uint32_t (&lo)[2], uint32_t (&hi)[2]) {
    uint32_t pair[4];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const T a = from_float<T>(__fmul_rn(__fmul_rn(tetra_e2m1_magnitude(2 * k), s), g));
        const T b = from_float<T>(__fmul_rn(__fmul_rn(tetra_e2m1_magnitude(2 * k + 1), s), g));
        pair[k] = (uint32_t)*reinterpret_cast<const unsigned short *>(&a) |
                  ((uint32_t)*reinterpret_cast<const unsigned short *>(&b) << 16);
    }
    lo[0] = __byte_perm(pair[0], pair[1], 0x6420);
    hi[0] = __byte_perm(pair[0], pair[1], 0x7531);
    lo[1] = __byte_perm(pair[2], pair[3], 0x6420);
    hi[1] = __byte_perm(pair[2], pair[3], 0x7531);
}

/* 8 codes (one 32-bit word) -> 8 FP16/BF16 values in 4 words. */
__device__ __forceinline__ void dequant_word(uint32_t c, const uint32_t (&lo)[2], const uint32_t (&hi)[2],
                                             uint32_t *out) {
    const uint32_t idx = c & 0x77777777u;           /* PRMT reads nibble bit 3 as a mode */
    const uint32_t sign_even = (c << 4) & 0x80808080u; /* sign of code 2k at bit 8k+7 */
    const uint32_t sign_odd = c & 0x80808080u;         /* sign of code 2k+1 at bit 8k+7 */
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const uint32_t sel = h ? idx >> 16 : idx;
        const uint32_t l4 = __byte_perm(lo[0], lo[1], sel);
        /* high bytes of codes 4h..4h+3, each with its code's sign in bit 7 */
        const uint32_t h4 = __byte_perm(hi[0], hi[1], sel) ^
                            __byte_perm(sign_even, sign_odd, h ? 0x7362 : 0x5140);
        out[2 * h] = __byte_perm(l4, h4, 0x5140);
        out[2 * h + 1] = __byte_perm(l4, h4, 0x7362);
    }
}

/* A thread owns 16-byte chunks of the dense output (8 FP16/BF16 or 4 FP32 values; the
 * 2 or 4 lanes of a block each decode its scale), so every store instruction of a warp
 * writes 512 contiguous bytes. (Whole blocks per thread, rung 2's first version, wrote
 * 32-64 bytes per lane with lanes 32-64 bytes apart: 59% of the read ceiling for BF16,
 * and FP32 slower than rung 1.) */
template <typename T>
__global__ void __launch_bounds__(kThreads)
dequantize_aligned_kernel(nvfp4_view src, dense_view dst, shape sh, const float *g_dev, float g_host) {
    tetra_pdl_trigger(); /* a W4A4 GEMV may start its weight stream now (gemm_api.c) */
    constexpr int V = dense_traits<T>::V;
    constexpr int TPB = TETRA_NVFP4_BLOCK / V;
    const int64_t cpr = sh.cols / V;
    const batch_bases<T> b = batch_of<T>(src, dst);
    const float g = read_global_scale(g_dev, g_host);
    for (int64_t r = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; r < sh.rows;
         r += (int64_t)gridDim.y * blockDim.y) {
        const int64_t srow = scale_row_offset(src.layout, r, sh.nkb, src.scale_ld);
        uint32_t codes[kUnroll];
        unsigned sc[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const int64_t c = ((int64_t)blockIdx.x * kUnroll + u) * blockDim.x + threadIdx.x;
            if (c < cpr) {
                const uint8_t *pc = b.codes + (r * src.ld + c * V) / 2;
                codes[u] = V == 8 ? __ldg(reinterpret_cast<const uint32_t *>(pc))
                                  : (uint32_t)__ldg(reinterpret_cast<const uint16_t *>(pc));
                sc[u] = __ldg(b.scales + srow + scale_col_offset(src.layout, c / TPB));
            }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const int64_t c = ((int64_t)blockIdx.x * kUnroll + u) * blockDim.x + threadIdx.x;
            if (c >= cpr) continue;
            const float s = tetra_e4m3_to_float(sc[u]);
            uint4 *p = reinterpret_cast<uint4 *>(b.dense + r * dst.ld + c * V);
            if (sizeof(T) == 2) {
                uint32_t lo[2], hi[2], o[4];
                dequant_table<T>(s, g, lo, hi);
                dequant_word(codes[u], lo, hi, o);
                *p = make_uint4(o[0], o[1], o[2], o[3]);
            } else {
                /* FP32: (e2m1 * s) * g per element, the host's expression */
                float v[4];
#pragma unroll
                for (int i = 0; i < 4; i++) v[i] = __fmul_rn(__fmul_rn(tetra_e2m1_value(codes[u] >> (4 * i)), s), g);
                *p = make_uint4(__float_as_uint(v[0]), __float_as_uint(v[1]), __float_as_uint(v[2]),
                                __float_as_uint(v[3]));
            }
        }
    }
}

/* ------------------------------------------------------------------ scale layouts */

/* Copy every real scale byte from the src layout to the dst layout. */
__global__ void __launch_bounds__(kThreads)
convert_scales_kernel(const uint8_t *src, int src_layout, int64_t src_ld, int64_t src_bstride,
                      uint8_t *dst, int dst_layout, int64_t dst_ld, int64_t dst_bstride, shape sh) {
    const int64_t kb = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t l = blockIdx.z;
    if (kb >= sh.nkb) return;
    for (int64_t r = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; r < sh.rows;
         r += (int64_t)gridDim.y * blockDim.y)
        dst[l * dst_bstride + tetra_scale_offset(dst_layout, r, kb, sh.nkb, dst_ld)] =
            src[l * src_bstride + tetra_scale_offset(src_layout, r, kb, sh.nkb, src_ld)];
}

/* Write 0 to the padding bytes of each batch's swizzled buffer: padded rows of the last
 * (partial) 128-row tile, and padded scale columns of the last 4-column tile. Only
 * padding bytes are touched, so this may run in any order with the kernel that writes
 * the real scales. One thread per 4-byte word (one row, 4 scale columns) of those
 * atoms: words [0, w_rows) are the partial row tile, the rest the last column tile of
 * the full row tiles. In an atom, word w holds row 32*(w%4) + w/4 (see the offset). */
__global__ void __launch_bounds__(kThreads)
zero_swizzled_padding_kernel(uint8_t *scales, int64_t bstride, shape sh, int64_t w_rows,
                             int64_t w_total) {
    const int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= w_total) return;
    const int64_t kb_tiles = (sh.nkb + 3) / 4;
    int64_t rt, kt, wi;
    if (w < w_rows) {
        rt = sh.rows / 128; /* the partial tile */
        kt = w / 128;
        wi = w % 128;
    } else {
        rt = (w - w_rows) / 128;
        kt = kb_tiles - 1;
        wi = (w - w_rows) % 128;
    }
    const int64_t r = rt * 128 + 32 * (wi % 4) + wi / 4;
    uint8_t *p = scales + (int64_t)blockIdx.z * bstride +
                 (int64_t)TETRA_SWIZZLE_ATOM * (rt * kb_tiles + kt) + 4 * wi;
#pragma unroll
    for (int j = 0; j < 4; j++)
        if (r >= sh.rows || kt * 4 + j >= sh.nkb) p[j] = 0;
}

/* ------------------------------------------------------------------ host side */

struct launch_geom {
    dim3 grid, block;
};

/* x: units of a row (chunks or blocks, `unroll` per thread), y: rows, z: batch.
 * blockDim.x is a power of two in [4, 256] (a multiple of every TPB) so small K does not
 * idle whole blocks. */
tetra_status chunk_geometry(int64_t cpr, int64_t rows, int64_t batch, int unroll, const char *who,
                            launch_geom *lg) {
    int bx = 4;
    while (bx < kThreads && (int64_t)bx * unroll < cpr) bx *= 2;
    const int by = kThreads / bx;
    const int64_t gx = (cpr + (int64_t)bx * unroll - 1) / ((int64_t)bx * unroll);
    int64_t gy = (rows + by - 1) / by;
    if (gx > INT_MAX || batch > TETRA_MAX_GRID_Y)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "%s: rows too long or too many batches for one grid",
                          who);
    if (gy > TETRA_MAX_GRID_Y) gy = TETRA_MAX_GRID_Y;
    lg->block = dim3((unsigned)bx, (unsigned)by, 1);
    lg->grid = dim3((unsigned)gx, (unsigned)gy, (unsigned)batch);
    return TETRA_OK;
}

size_t dense_size(tetra_dtype dt) { return tetra_dtype_bits(dt) / 8; }

/* Can the dense side be read/written as aligned 16-byte chunks? (cols is a multiple of
 * 16, so a chunk never crosses a row.) */
bool dense_vec_ok(const tetra_operand &o, int64_t batch) {
    const int64_t esz = (int64_t)dense_size(o.dtype);
    return tetra_aligned(o.data, 16) && (o.ld * esz) % 16 == 0 &&
           (batch == 1 || (o.batch_stride * esz) % 16 == 0);
}

/* Can the packed side move `bytes` (2 or 4) per chunk in one aligned access? */
bool packed_vec_ok(const tetra_operand &o, int64_t batch, int64_t bytes) {
    return tetra_aligned(o.data, (size_t)bytes) && (o.ld / 2) % bytes == 0 &&
           (batch == 1 || (o.batch_stride / 2) % bytes == 0);
}

dense_view make_dense(const tetra_operand &o) {
    dense_view v;
    v.data = o.data;
    v.ld = o.ld;
    v.batch_stride = o.batch_stride;
    return v;
}

nvfp4_view make_nvfp4(const tetra_operand &o) {
    nvfp4_view v;
    v.data = (uint8_t *)o.data; /* the launcher's dst: written */
    v.ld = o.ld;
    v.batch_stride = o.batch_stride;
    v.scales = (uint8_t *)o.scales;
    v.scale_ld = o.scale_ld;
    v.scale_batch_stride = o.scale_batch_stride;
    v.layout = o.scale_layout == TETRA_SCALE_SWIZZLED_128X4 ? 1 : 0;
    return v;
}

shape make_shape(const tetra_convert_problem *p) {
    shape s;
    s.rows = p->rows;
    s.cols = p->cols;
    s.nkb = p->cols / TETRA_NVFP4_BLOCK;
    return s;
}

tetra_status zero_swizzled_padding(const tetra_operand &o, shape sh, int64_t batch,
                                   cudaStream_t stream) {
    if (o.scale_layout != TETRA_SCALE_SWIZZLED_128X4) return TETRA_OK;
    const int64_t kb_tiles = (sh.nkb + 3) / 4;
    const int64_t w_rows = sh.rows % 128 ? kb_tiles * 128 : 0;
    const int64_t w_cols = sh.nkb % 4 ? (sh.rows / 128) * 128 : 0;
    const int64_t w_total = w_rows + w_cols;
    if (w_total == 0) return TETRA_OK;
    const int64_t gx = (w_total + kThreads - 1) / kThreads;
    if (gx > INT_MAX)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "swizzled padding: scale buffer too large for one grid");
    zero_swizzled_padding_kernel<<<dim3((unsigned)gx, 1, (unsigned)batch), kThreads, 0, stream>>>(
        (uint8_t *)o.scales, o.scale_batch_stride, sh, w_rows, w_total);
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}

template <typename T>
tetra_status quantize_typed(const tetra_convert_problem *p) {
    constexpr int V = dense_traits<T>::V;
    const cudaStream_t stream = TETRA_STREAM(p);
    const shape sh = make_shape(p);
    const dense_view src = make_dense(p->src);
    const nvfp4_view dst = make_nvfp4(p->dst);
    /* the block path: 16-byte dense chunks, 8-byte packed blocks */
    const bool vec = dense_vec_ok(p->src, p->batch) && packed_vec_ok(p->dst, p->batch, 8);
    launch_geom lg, lb;
    tetra_status st = chunk_geometry(sh.cols / V, sh.rows, p->batch, kUnroll, "tetra_launch_quantize", &lg);
    if (st == TETRA_OK)
        st = chunk_geometry(sh.nkb, sh.rows, p->batch, kBlockUnroll, "tetra_launch_quantize", &lb);
    if (st != TETRA_OK) return st;
    /* FROM_AMAX: the quantize pass reads the scale the amax pass wrote, on the device */
    if (p->mode == TETRA_GLOBAL_SCALE_FROM_AMAX) {
        /* amax pass: a block-count cap keeps the atomics few; the row loop covers the rest */
        launch_geom la = lg;
        const int64_t want_blocks = 4 * (int64_t)(p->ctx->sms > 0 ? p->ctx->sms : 132);
        const int64_t gy_cap = want_blocks / (int64_t)la.grid.x;
        la.grid.y = (unsigned)(gy_cap < 1 ? 1 : (gy_cap < (int64_t)la.grid.y ? gy_cap : la.grid.y));
        TETRA_CUDA_TRY(cudaMemsetAsync((float *)p->dst.gscale_dev, 0, sizeof(float), stream));
        if (vec)
            amax_kernel<T, true><<<la.grid, la.block, 0, stream>>>(src, sh, (unsigned *)p->dst.gscale_dev);
        else
            amax_kernel<T, false><<<la.grid, la.block, 0, stream>>>(src, sh, (unsigned *)p->dst.gscale_dev);
        TETRA_LAUNCH_CHECK();
        global_scale_from_amax_kernel<<<1, 1, 0, stream>>>((float *)p->dst.gscale_dev);
        TETRA_LAUNCH_CHECK();
    }
    if (vec)
        quantize_blocks_kernel<T><<<lb.grid, lb.block, 0, stream>>>(src, dst, sh, p->dst.gscale_dev,
                                                                    p->dst.gscale);
    else
        quantize_kernel<T><<<lg.grid, lg.block, 0, stream>>>(src, dst, sh, p->dst.gscale_dev, p->dst.gscale);
    TETRA_LAUNCH_CHECK();
    return zero_swizzled_padding(p->dst, sh, p->batch, stream);
}

template <typename T>
tetra_status dequantize_typed(const tetra_convert_problem *p) {
    constexpr int V = dense_traits<T>::V;
    const cudaStream_t stream = TETRA_STREAM(p);
    const shape sh = make_shape(p);
    const nvfp4_view src = make_nvfp4(p->src);
    const dense_view dst = make_dense(p->dst);
    const bool vec = dense_vec_ok(p->dst, p->batch) && packed_vec_ok(p->src, p->batch, V / 2);
    launch_geom lg;
    tetra_status st = chunk_geometry(sh.cols / V, sh.rows, p->batch, kUnroll, "tetra_launch_dequantize", &lg);
    if (st != TETRA_OK) return st;
    if (vec)
        dequantize_aligned_kernel<T><<<lg.grid, lg.block, 0, stream>>>(src, dst, sh, p->src.gscale_dev,
                                                                      p->src.gscale);
    else
        dequantize_kernel<T><<<lg.grid, lg.block, 0, stream>>>(src, dst, sh, p->src.gscale_dev, p->src.gscale);
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}

} /* namespace */

extern "C" tetra_status tetra_launch_quantize(const tetra_convert_problem *p) {
    if (p->src.dtype == TETRA_DTYPE_NVFP4 || p->dst.dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INTERNAL, "tetra_launch_quantize: wrong dtypes");
    if (p->mode == TETRA_GLOBAL_SCALE_FROM_AMAX && !p->dst.gscale_dev)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "dst.global_scale_dev is NULL; FROM_AMAX writes the global scale there");
    switch (p->src.dtype) {
    case TETRA_DTYPE_FP32: return quantize_typed<float>(p);
    case TETRA_DTYPE_FP16: return quantize_typed<__half>(p);
    default: return quantize_typed<__nv_bfloat16>(p);
    }
}

extern "C" tetra_status tetra_launch_dequantize(const tetra_convert_problem *p) {
    if (p->src.dtype != TETRA_DTYPE_NVFP4 || p->dst.dtype == TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INTERNAL, "tetra_launch_dequantize: wrong dtypes");
    switch (p->dst.dtype) {
    case TETRA_DTYPE_FP32: return dequantize_typed<float>(p);
    case TETRA_DTYPE_FP16: return dequantize_typed<__half>(p);
    default: return dequantize_typed<__nv_bfloat16>(p);
    }
}

extern "C" tetra_status tetra_launch_convert_scales(const tetra_convert_problem *p) {
    const cudaStream_t stream = TETRA_STREAM(p);
    const shape sh = make_shape(p);
    const int bx = sh.nkb >= 128 ? 128 : (sh.nkb >= 32 ? 32 : 4);
    const int by = kThreads / bx;
    const int64_t gx = (sh.nkb + bx - 1) / bx;
    int64_t gy = (sh.rows + by - 1) / by;
    if (gx > INT_MAX || p->batch > TETRA_MAX_GRID_Y)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "tetra_launch_convert_scales: problem too large for one grid");
    if (gy > TETRA_MAX_GRID_Y) gy = TETRA_MAX_GRID_Y;
    convert_scales_kernel<<<dim3((unsigned)gx, (unsigned)gy, (unsigned)p->batch), dim3(bx, by), 0,
                            stream>>>(
        p->src.scales, p->src.scale_layout == TETRA_SCALE_SWIZZLED_128X4, p->src.scale_ld,
        p->src.scale_batch_stride, (uint8_t *)p->dst.scales,
        p->dst.scale_layout == TETRA_SCALE_SWIZZLED_128X4, p->dst.scale_ld, p->dst.scale_batch_stride,
        sh);
    TETRA_LAUNCH_CHECK();
    return zero_swizzled_padding(p->dst, sh, p->batch, stream);
}
