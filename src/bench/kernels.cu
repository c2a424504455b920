/* kernels.cu - see kernels.h. Simple grid-stride kernels; the memory kernels use one
 * 16-byte access per thread per iteration, 4 blocks of 512 threads per SM per wave. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "format/nvfp4_codec.h"
#include "kernels.h"

static __device__ __forceinline__ uint64_t mix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static __global__ void fill_bf16_kernel(uint16_t *p, int64_t n, uint64_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint64_t h = mix64(seed ^ mix64((uint64_t)i));
        /* four 16-bit uniforms: mean 2, variance 4/12 -> scale to unit variance */
        float s = (float)(h & 0xffff) + (float)((h >> 16) & 0xffff) + (float)((h >> 32) & 0xffff) +
                  (float)(h >> 48);
        float x = (s * (1.0f / 65536.0f) - 2.0f) * 1.7320508f;
        __nv_bfloat16 b = __float2bfloat16_rn(x);
        p[i] = *(uint16_t *)&b;
    }
}

static __global__ void fill_e4m3_kernel(uint8_t *p, int64_t n, uint64_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint64_t h = mix64(seed ^ mix64((uint64_t)i));
        unsigned sign = (unsigned)(h & 1u), e = 5u + (unsigned)((h >> 8) % 5u), m = (unsigned)((h >> 16) & 7u);
        p[i] = (uint8_t)((sign << 7) | (e << 3) | m);
    }
}

static __global__ void nvfp4_to_bf16_kernel(const uint8_t *data, const uint8_t *scales, int64_t rows,
                                            int64_t k, float g, uint16_t *out) {
    int64_t n = rows * k;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t r = i / k, c = i % k;
        unsigned byte = data[i / 2];
        unsigned code = (c & 1) ? (byte >> 4) : (byte & 15u);
        float v = tetra_e2m1_to_float(code) * tetra_e4m3_to_float(scales[r * (k / 16) + c / 16]) * g;
        __nv_bfloat16 b = __float2bfloat16_rn(v);
        out[i] = *(uint16_t *)&b;
    }
}

/* Four independent 16-byte loads in flight per thread per iteration: enough bytes in
 * flight to cover HBM latency at full bandwidth. */
static __global__ void mem_read_kernel(const uint4 *src, int64_t n, uint32_t never, uint32_t *sink) {
    uint32_t acc = 0;
    int64_t stride = (int64_t)gridDim.x * blockDim.x, i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 v0 = __ldcs(src + i), v1 = __ldcs(src + i + stride);
        uint4 v2 = __ldcs(src + i + 2 * stride), v3 = __ldcs(src + i + 3 * stride);
        acc ^= v0.x ^ v0.y ^ v0.z ^ v0.w ^ v1.x ^ v1.y ^ v1.z ^ v1.w;
        acc ^= v2.x ^ v2.y ^ v2.z ^ v2.w ^ v3.x ^ v3.y ^ v3.z ^ v3.w;
    }
    for (; i < n; i += stride) {
        uint4 v = __ldcs(src + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == never) sink[0] = acc;
}

static __global__ void mem_copy_kernel(uint4 *dst, const uint4 *src, int64_t n) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x, i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 v0 = __ldcs(src + i), v1 = __ldcs(src + i + stride);
        uint4 v2 = __ldcs(src + i + 2 * stride), v3 = __ldcs(src + i + 3 * stride);
        __stcs(dst + i, v0);
        __stcs(dst + i + stride, v1);
        __stcs(dst + i + 2 * stride, v2);
        __stcs(dst + i + 3 * stride, v3);
    }
    for (; i < n; i += stride) __stcs(dst + i, __ldcs(src + i));
}

static int grid_for(int64_t n, int threads, int cap) {
    int64_t g = (n + threads - 1) / threads;
    if (g > cap) g = cap;
    return (int)(g < 1 ? 1 : g);
}

extern "C" int bench_fill_bf16(uint16_t *p, int64_t n, uint64_t seed, void *stream) {
    fill_bf16_kernel<<<grid_for(n, 256, 65536), 256, 0, (cudaStream_t)stream>>>(p, n, seed);
    return (int)cudaGetLastError();
}

extern "C" int bench_fill_e4m3(uint8_t *p, int64_t n, uint64_t seed, void *stream) {
    fill_e4m3_kernel<<<grid_for(n, 256, 65536), 256, 0, (cudaStream_t)stream>>>(p, n, seed);
    return (int)cudaGetLastError();
}

extern "C" int bench_nvfp4_to_bf16(const uint8_t *data, const uint8_t *scales, int64_t rows, int64_t k,
                                   float g, uint16_t *out, void *stream) {
    nvfp4_to_bf16_kernel<<<grid_for(rows * k, 256, 65536), 256, 0, (cudaStream_t)stream>>>(
        data, scales, rows, k, g, out);
    return (int)cudaGetLastError();
}

extern "C" int bench_mem_read(const void *src, int64_t bytes, uint32_t never, uint32_t *sink, int sms,
                              void *stream) {
    return bench_mem_read_grid(src, bytes, never, sink, sms, 4, stream);
}

extern "C" int bench_mem_read_grid(const void *src, int64_t bytes, uint32_t never, uint32_t *sink, int sms,
                                   int ctas_per_sm, void *stream) {
    int64_t n = bytes / 16;
    if (ctas_per_sm < 1 || ctas_per_sm > 64) return (int)cudaErrorInvalidValue;
    mem_read_kernel<<<grid_for(n, 512, ctas_per_sm * (sms > 0 ? sms : 1)), 512, 0, (cudaStream_t)stream>>>(
        (const uint4 *)src, n, never, sink);
    return (int)cudaGetLastError();
}

extern "C" int bench_mem_copy(void *dst, const void *src, int64_t bytes, int sms, void *stream) {
    int64_t n = bytes / 16;
    mem_copy_kernel<<<grid_for(n, 512, 4 * (sms > 0 ? sms : 1)), 512, 0, (cudaStream_t)stream>>>(
        (uint4 *)dst, (const uint4 *)src, n);
    return (int)cudaGetLastError();
}
