/* common.cuh - what every CUDA file of tetra shares: the error-check macro family,
 * architecture facts as named constants, and small device helpers. */
#ifndef TETRA_COMMON_CUH
#define TETRA_COMMON_CUH

#include <atomic>

#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../core/internal.h"
#include "../format/nvfp4_codec.h"

/* Return a tetra_status from a launcher when a CUDA call fails, recording the
 * statement, file and line. */
#define TETRA_CUDA_TRY(stmt)                                                               \
    do {                                                                                   \
        cudaError_t tetra_err_ = (stmt);                                                   \
        if (tetra_err_ != cudaSuccess) {                                                   \
            (void)cudaGetLastError();                                                      \
            return tetra_fail(tetra_err_ == cudaErrorMemoryAllocation ? TETRA_ERR_OUT_OF_MEMORY \
                                                                      : TETRA_ERR_CUDA,    \
                              "%s failed at %s:%d: %s", #stmt, __FILE__, __LINE__,         \
                              cudaGetErrorString(tetra_err_));                             \
        }                                                                                  \
    } while (0)

/* After every launch. */
#define TETRA_LAUNCH_CHECK() TETRA_CUDA_TRY(cudaGetLastError())

#define TETRA_STREAM(p) ((cudaStream_t)(p)->ctx->stream)

enum {
    TETRA_WARP = 32,
    TETRA_MAX_GRID_Y = 65535
};

/* Programmatic dependent launch (sm_90 and later; nothing before): a kernel calls
 * tetra_pdl_trigger to let the next kernel on the stream, launched with
 * cudaLaunchAttributeProgrammaticStreamSerialization, start early; that kernel calls
 * tetra_pdl_wait before it reads anything the earlier kernel writes. Both are no-ops for
 * kernels launched the ordinary way. */
__device__ __forceinline__ void tetra_pdl_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void tetra_pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Adds the programmatic-dependent attribute (cudaLaunchAttributeProgrammaticStreamSerialization)
 * to a launch configuration: cfg.attrs must have room for one more (alive until the launch), e.g.
 * after tetra_cluster_config's cluster dimension. The kernel may be scheduled once the previous
 * kernel on the stream has triggered (tetra_pdl_trigger) and must call tetra_pdl_wait before it
 * touches anything that kernel reads or writes. */
static inline void tetra_config_add_dependent(cudaLaunchConfig_t &cfg) {
    cudaLaunchAttribute &a = cfg.attrs[cfg.numAttrs++];
    a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    a.val.programmaticStreamSerializationAllowed = 1;
}

/* Launch `kernel` as a programmatic dependent of the previous kernel on the stream
 * (tetra_config_add_dependent's contract). Checked by the caller (TETRA_CUDA_TRY). P: the
 * kernel's one parameter, a struct passed by value. */
template <typename P>
cudaError_t tetra_launch_dependent(void (*kernel)(P), dim3 grid, dim3 block, cudaStream_t stream, const P &prm) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = 0;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = 0;
    tetra_config_add_dependent(cfg);
    return cudaLaunchKernelEx(&cfg, kernel, prm);
}

/* A launch configuration for thread-block clusters of shape `cluster` (the grid a multiple
 * of it): attr[0] of the caller's array (alive until the launch) holds the cluster dimension
 * and numAttrs is 1 (a caller may add attr[1] and raise it). Used by every cluster launch:
 * the wgmma-T GEMMs (2 CTAs along x), the GEMV's cluster-K and the skinny GEMM (splits along y). */
static inline cudaLaunchConfig_t tetra_cluster_config(cudaLaunchAttribute *attr, dim3 cluster, dim3 grid, dim3 block,
                                                      size_t smem, cudaStream_t stream) {
    cudaLaunchConfig_t cfg = {};
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster.x;
    attr[0].val.clusterDim.y = cluster.y;
    attr[0].val.clusterDim.z = cluster.z;
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

/* Load element i of a dense row as float. */
__device__ __forceinline__ float tetra_load_dense(const void *base, int64_t i, tetra_dtype dt) {
    switch (dt) {
    case TETRA_DTYPE_FP32: return ((const float *)base)[i];
    case TETRA_DTYPE_FP16: return __half2float(((const __half *)base)[i]);
    default: return __bfloat162float(((const __nv_bfloat16 *)base)[i]);
    }
}

/* Store a float to a dense element with round to nearest even. */
__device__ __forceinline__ void tetra_store_dense(void *base, int64_t i, tetra_dtype dt, float v) {
    switch (dt) {
    case TETRA_DTYPE_FP32: ((float *)base)[i] = v; break;
    case TETRA_DTYPE_FP16: ((__half *)base)[i] = __float2half_rn(v); break;
    default: ((__nv_bfloat16 *)base)[i] = __float2bfloat16_rn(v); break;
    }
}

/* Host work a launcher does once per device for one kernel (the shared-memory opt-in above
 * 48 KB, attribute queries: microseconds a short call would otherwise pay every time):
 * bit d of that kernel's own `done` set records device d. Devices >= 64 have no bit and
 * redo the work every call. Release/acquire: what the work stored before tetra_mark_done
 * is visible to a thread that sees the bit. */
static inline bool tetra_done_on(const std::atomic<unsigned long long> &done, int device) {
    return device >= 0 && device < 64 && ((done.load(std::memory_order_acquire) >> device) & 1ull);
}
static inline void tetra_mark_done(std::atomic<unsigned long long> &done, int device) {
    if (device >= 0 && device < 64) done.fetch_or(1ull << device, std::memory_order_release);
}

/* The value of the __device__ int FLAG in `device`'s image of this binary, read once per
 * device (0 where the read fails or device is outside 0..63). The kernel files set such a
 * flag to 1 only in the device passes that compile a real kernel body (g_wgmma_kernel_built:
 * sm_90a), so a launcher can report UNSUPPORTED instead of running an empty kernel. One
 * instantiation, with its own cache, per flag. */
template <const int *FLAG> int tetra_device_flag(int device) {
    static std::atomic<unsigned long long> looked_up{0};
    static int value[64];
    if (device < 0 || device >= 64) return 0;
    if (!tetra_done_on(looked_up, device)) {
        int v = 0;
        if (cudaMemcpyFromSymbol(&v, *FLAG, sizeof v) != cudaSuccess) {
            (void)cudaGetLastError();
            v = 0;
        }
        value[device] = v;
        tetra_mark_done(looked_up, device);
    }
    return value[device];
}

/* Fixed-order split-K inside a kernel (gemv.cu, gemm_sm90.cu): the last CTA of an output
 * tile to arrive sums the partials. Each tile's 64-bit counter holds (tag << 24 |
 * arrivals); a counter whose tag is not this launch's (fresh or reused workspace) counts as
 * zero, and the last CTA leaves (tag, 0) behind, so graph replays of one launch start clean
 * too. Call after the CTA's partial stores are ordered before it (fence + barrier). */
__device__ __forceinline__ bool tetra_arrive_last(unsigned long long *ctr, unsigned long long tag, int splits) {
    /* first guess: this launch's tag with no arrivals; a failed CAS returns the value */
    unsigned long long cur = tag, next;
    for (;;) {
        next = ((cur & ~0xFFFFFFull) == tag ? cur : tag) + 1;
        const unsigned long long prev = atomicCAS(ctr, cur, next);
        if (prev == cur) break;
        cur = prev;
    }
    if ((int)(next & 0xFFFFFFull) != splits) return false;
    atomicExch(ctr, tag);
    return true;
}

/* The split-K partials src[0], src[stride], ..., src[(splits - 1) * stride] summed in split
 * order (the fixed order that makes a split-K result the same on every run), 8 loads in
 * flight; __ldcg: another grid wrote them, and they are read once. */
__device__ __forceinline__ float tetra_splitk_sum(const float *src, int64_t stride, int splits) {
    float v = 0.0f;
    for (int k0 = 0; k0 < splits; k0 += 8) {
        float x[8];
#pragma unroll
        for (int j = 0; j < 8; j++) x[j] = k0 + j < splits ? __ldcg(src + (k0 + j) * stride) : 0.0f;
#pragma unroll
        for (int j = 0; j < 8; j++)
            if (k0 + j < splits) v = k0 + j == 0 ? x[j] : v + x[j];
    }
    return v;
}

/* The counter tag of one launch: distinct per launch across every kernel that uses
 * tetra_arrive_last (one counter: an inline function's static is shared by all files),
 * bits 24..63 of a counter word, never 0 so that zeroed memory reads as another launch's. */
inline unsigned long long tetra_next_counter_tag() {
    static std::atomic<unsigned long long> launches{0};
    const unsigned long long n = ++launches;
    return ((n % 0xFFFFFFFFFFull) + 1) << 24;
}

/* An E2M1 code (4 bits, sign included) as a float, exactly: its magnitude bits placed at
 * FP32 bits 24..22 and the sign at 31 read as the value times 2^-126 (code 1 a
 * subnormal); the multiply by 2^126 is exact. */
__device__ __forceinline__ float tetra_e2m1_value(uint32_t code) {
    return __fmul_rn(__uint_as_float(((code & 8u) << 28) | ((code & 7u) << 22)), 0x1p126f);
}

/* Two floats -> one register of two BF16/FP16 (round to nearest even), lo in bits 0-15. */
template <bool BF16> __device__ __forceinline__ uint32_t tetra_pack2(float lo, float hi) {
    if (BF16) {
        __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<uint32_t *>(&h);
    }
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&h);
}

/* The effective output scale of a GEMM problem (see tetra_gemm_problem). */
__device__ __forceinline__ float tetra_gemm_scale(float alpha, const float *ga, const float *gb) {
    float s = alpha;
    if (ga) s *= *ga;
    if (gb) s *= *gb;
    return s;
}

/* c += a (16x16, row) * b (16x8, col), FP32 accumulators. */
template <bool BF16>
__device__ __forceinline__ void mma_16816(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
    if (BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

#endif /* TETRA_COMMON_CUH */
