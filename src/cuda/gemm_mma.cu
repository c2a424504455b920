/*
 * gemm_mma.cu - the portable tensor-core GEMM (sm_80+, and the consumer-Blackwell sm_120
 * path): D[M,N] = scale * A[M,K] * B[N,K]^T (+ bias[N]), B NVFP4, A BF16/FP16 (W4A16)
 * or NVFP4 (W4A4), batched over L with grid z.
 *
 * Design (docs/notes/gemm.md):
 *   - CTA tile 128x128x64, 8 warps as 2 (M) x 4 (N), each warp 64x32 of
 *     mma.sync.m16n8k16 with FP32 accumulators.
 *   - A 3-stage cp.async pipeline stages, per K-tile: dense A as its BF16/FP16 tile
 *     (XOR-swizzled 16-byte chunks), NVFP4 operands as raw packed bytes plus their
 *     128x4 block scales (always stored [row][4] in shared memory, whatever the global
 *     layout).
 *   - Each K-tile, all threads dequantize the raw NVFP4 stage into a swizzled BF16/FP16
 *     tile (e2m1 * ue4m3 is exact in both), then every warp reads A and B fragments
 *     with ldmatrix. The global scales and alpha are applied in FP32 in the epilogue.
 *   - Tails: rows past M/N and K-chunks past K are zero-filled by cp.async (src-size 0),
 *     so any M, N and any K that is a multiple of 16 is handled; stores are guarded.
 *   - No split-K: each output is one fixed-order sum, so runs are bit-identical.
 * Alignment the fast path needs (else TETRA_ERR_UNSUPPORTED, the reference path takes
 * the problem): dense A 16-byte aligned with ld and batch stride multiples of 8
 * elements; NVFP4 data 8-byte aligned with ld and batch stride multiples of 16
 * elements. Block scales have no alignment requirement (a byte-wise path takes
 * unaligned ones).
 */
#include <stdint.h>

#include "common.cuh"
#include "launch.h"

namespace {

enum {
    MMA_BM = 128,
    MMA_BN = 128,
    MMA_BK = 64,
    MMA_STAGES = 3,
    MMA_THREADS = 256,
    MMA_WARPS_M = 2,
    MMA_WARPS_N = 4,
    MMA_WARP_M = MMA_BM / MMA_WARPS_M, /* 64 */
    MMA_WARP_N = MMA_BN / MMA_WARPS_N, /* 32 */
    MMA_MT = MMA_WARP_M / 16,          /* m16 tiles per warp: 4 */
    MMA_NT = MMA_WARP_N / 8,           /* n8 tiles per warp: 4 */
    /* shared-memory pieces, bytes */
    TILE16_BYTES = 128 * MMA_BK * 2,            /* a 128x64 BF16/FP16 tile: 16 KiB */
    RAW_BYTES = 128 * MMA_BK / 2,               /* 128 rows x 32 packed bytes */
    SCALE_BYTES = 128 * (MMA_BK / 16),          /* 128 rows x 4 block scales */
    NVFP4_STAGE_BYTES = RAW_BYTES + SCALE_BYTES /* 4608 */
};

/* Which operand type A has: the kernel template parameter. */
enum { A_BF16 = 0, A_FP16 = 1, A_NVFP4 = 2 };

/* What a kernel needs to read one NVFP4 operand (A or B). */
struct nvfp4_src {
    const uint8_t *data;   /* packed bytes of batch 0 */
    const uint8_t *scales; /* scales of batch 0 */
    int64_t row_bytes;     /* ld / 2 */
    int64_t batch_bytes;   /* batch_stride / 2 */
    int64_t scale_ld;      /* linear layout: bytes per row */
    int64_t scale_batch;   /* scale bytes per batch */
    int rows;              /* valid rows (M or N) */
    int swizzled;          /* scale layout */
    int scale_vec4;        /* 4 scales of a row in one aligned 4-byte cp.async */
};

struct mma_params {
    int m, n, k;
    /* dense A */
    const void *a;
    int64_t lda, a_batch;
    nvfp4_src a4, b4;
    /* D */
    void *d;
    int64_t ldd, d_batch;
    int d_dtype;
    int d_pair; /* two adjacent outputs may be stored as one aligned vector */
    const void *bias;
    int bias_dtype;
    float alpha;
    const float *ga, *gb;
};

/* ---- PTX wrappers (sm_80+) */

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* cp.async of `bytes` (4, 8 or 16) with zero-fill: src_bytes < bytes fills the rest with
 * zeros and reads only src_bytes (0: reads nothing). */
__device__ __forceinline__ void cp_async16(void *dst, const void *src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async8(void *dst, const void *src, int src_bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async4(void *dst, const void *src, int src_bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], const void *p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
}


/* Byte offset of 16-byte chunk `chunk` (0..7) of row `row` in a 128x64 16-bit tile.
 * A row is 128 bytes = all 32 banks; XOR with row%8 spreads the 8 rows an ldmatrix
 * phase reads over 8 different chunks, so neither ldmatrix nor the stores conflict. */
__device__ __forceinline__ int tile_off(int row, int chunk) {
    return row * 128 + ((chunk ^ (row & 7)) << 4);
}

/* ---- stage loaders: issue this thread's cp.asyncs for K-tile kt */

/* Dense 128x64 tile of A into a swizzled stage: 1024 16-byte chunks, 4 per thread. */
__device__ __forceinline__ void load_dense_tile(uint8_t *dst, const uint16_t *a, int64_t lda,
                                                int row0, int rows, int k0, int k) {
    for (int i = threadIdx.x; i < 128 * 8; i += MMA_THREADS) {
        int r = i >> 3, c = i & 7;
        int gr = row0 + r, gk = k0 + c * 8;
        bool ok = gr < rows && gk < k; /* K % 16 == 0: a chunk is all in or all out */
        const uint16_t *src = ok ? a + (int64_t)gr * lda + gk : a;
        cp_async16(dst + tile_off(r, c), src, ok ? 16 : 0);
    }
}

/* Raw NVFP4 tile: 128 rows x 4 blocks of 8 bytes (16 elements) -> raw[r*32 + blk*8];
 * the rows' 4 block scales -> sc[r*4 + blk]. */
__device__ __forceinline__ void load_nvfp4_tile(uint8_t *stage, const uint8_t *data,
                                                const uint8_t *scales, const nvfp4_src &s,
                                                int row0, int kt, int nkb) {
    uint8_t *raw = stage, *sc = stage + RAW_BYTES;
    int kb0 = kt * (MMA_BK / 16);
    for (int i = threadIdx.x; i < 128 * 4; i += MMA_THREADS) {
        int r = i >> 2, blk = i & 3;
        int gr = row0 + r, kb = kb0 + blk;
        bool ok = gr < s.rows && kb < nkb;
        const uint8_t *src = ok ? data + (int64_t)gr * s.row_bytes + (int64_t)kb * 8 : data;
        cp_async8(raw + i * 8, src, ok ? 8 : 0);
    }
    if (threadIdx.x < 128) {
        int r = threadIdx.x, gr = row0 + r;
        int nvalid = gr < s.rows ? min(4, nkb - kb0) : 0;
        int64_t off = s.swizzled ? tetra_swizzled_offset(gr, kb0, nkb) : (int64_t)gr * s.scale_ld + kb0;
        if (s.scale_vec4) {
            cp_async4(sc + r * 4, nvalid > 0 ? scales + off : scales, nvalid * 1);
        } else {
            /* unaligned scales: byte loads, stored directly (this buffer is free: all
             * threads passed the barrier after its last use) */
            uint32_t v = 0;
            for (int j = 0; j < nvalid; j++) {
                int64_t o = s.swizzled ? tetra_swizzled_offset(gr, kb0 + j, nkb) : off + j;
                v |= (uint32_t)scales[o] << (8 * j);
            }
            *(uint32_t *)(sc + r * 4) = v;
        }
    }
}

/* Dequantize one raw NVFP4 stage into a swizzled 128x64 16-bit tile. Thread t does
 * row t/2, elements 32*(t%2) .. +32: 16 raw bytes, 2 scales, 4 chunk stores. Each value
 * is tetra_e2m1_value(code) times the decoded UE4M3 scale: exact in FP32 and in BF16/FP16. */
template <bool IS_BF16>
__device__ __forceinline__ void dequant_tile(uint8_t *tile, const uint8_t *stage) {
    int r = threadIdx.x >> 1, h = threadIdx.x & 1;
    uint4 raw = *(const uint4 *)(stage + r * 32 + h * 16);
    const uint8_t *sc = stage + RAW_BYTES + r * 4 + h * 2;
    uint32_t w[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
    for (int q = 0; q < 4; q++) { /* q: 8-element chunk; block = q / 2 */
        float s = tetra_e4m3_to_float(sc[q >> 1]);
        uint32_t x = w[q];
        uint4 out;
        out.x = tetra_pack2<IS_BF16>(tetra_e2m1_value(x) * s, tetra_e2m1_value(x >> 4) * s);
        out.y = tetra_pack2<IS_BF16>(tetra_e2m1_value(x >> 8) * s, tetra_e2m1_value(x >> 12) * s);
        out.z = tetra_pack2<IS_BF16>(tetra_e2m1_value(x >> 16) * s, tetra_e2m1_value(x >> 20) * s);
        out.w = tetra_pack2<IS_BF16>(tetra_e2m1_value(x >> 24) * s, tetra_e2m1_value(x >> 28) * s);
        *(uint4 *)(tile + tile_off(r, h * 4 + q)) = out;
    }
}

/* Store two adjacent outputs (col, col+1) of row `row`; col+1 may be out of range. */
__device__ __forceinline__ void store_pair(const mma_params &p, uint8_t *d, int row, int col,
                                           float v0, float v1) {
    if (row >= p.m || col >= p.n) return;
    int64_t i = (int64_t)row * p.ldd + col;
    if (p.bias) {
        v0 += tetra_load_dense(p.bias, col, (tetra_dtype)p.bias_dtype);
        if (col + 1 < p.n) v1 += tetra_load_dense(p.bias, col + 1, (tetra_dtype)p.bias_dtype);
    }
    if (p.d_pair && col + 1 < p.n) {
        switch (p.d_dtype) {
        case TETRA_DTYPE_FP32: *(float2 *)((float *)d + i) = make_float2(v0, v1); break;
        case TETRA_DTYPE_FP16: *(__half2 *)((__half *)d + i) = __floats2half2_rn(v0, v1); break;
        default: *(__nv_bfloat162 *)((__nv_bfloat16 *)d + i) = __floats2bfloat162_rn(v0, v1); break;
        }
        return;
    }
    tetra_store_dense(d, i, (tetra_dtype)p.d_dtype, v0);
    if (col + 1 < p.n) tetra_store_dense(d, i + 1, (tetra_dtype)p.d_dtype, v1);
}

template <int ATYPE>
__global__ void __launch_bounds__(MMA_THREADS)
gemm_mma_kernel(const mma_params p) {
    constexpr bool IS_BF16 = ATYPE != A_FP16; /* W4A4 dequantizes both sides to BF16 */
    constexpr bool A_RAW = ATYPE == A_NVFP4;
    constexpr int A_STAGE = A_RAW ? NVFP4_STAGE_BYTES : TILE16_BYTES;
    extern __shared__ __align__(128) uint8_t smem[];
    uint8_t *s_a = smem;                                  /* MMA_STAGES x A_STAGE */
    uint8_t *s_b = s_a + MMA_STAGES * A_STAGE;            /* MMA_STAGES x NVFP4 stage */
    uint8_t *s_bt = s_b + MMA_STAGES * NVFP4_STAGE_BYTES; /* dequantized B tile */
    uint8_t *s_at = s_bt + TILE16_BYTES;                  /* dequantized A tile (W4A4) */

    const int n0 = blockIdx.x * MMA_BN, m0 = blockIdx.y * MMA_BM, l = blockIdx.z;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = warp / MMA_WARPS_N, wn = warp % MMA_WARPS_N;
    const int nkb = p.k / 16, ktiles = (p.k + MMA_BK - 1) / MMA_BK;

    const uint16_t *a_dense = (const uint16_t *)p.a + (A_RAW ? 0 : l * p.a_batch);
    const uint8_t *a_data = A_RAW ? p.a4.data + l * p.a4.batch_bytes : nullptr;
    const uint8_t *a_sc = A_RAW ? p.a4.scales + l * p.a4.scale_batch : nullptr;
    const uint8_t *b_data = p.b4.data + l * p.b4.batch_bytes;
    const uint8_t *b_sc = p.b4.scales + l * p.b4.scale_batch;

    float acc[MMA_MT][MMA_NT][4];
#pragma unroll
    for (int i = 0; i < MMA_MT; i++)
#pragma unroll
        for (int j = 0; j < MMA_NT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;

    auto load_stage = [&](int kt) {
        int st = kt % MMA_STAGES;
        if (A_RAW)
            load_nvfp4_tile(s_a + st * A_STAGE, a_data, a_sc, p.a4, m0, kt, nkb);
        else
            load_dense_tile(s_a + st * A_STAGE, a_dense, p.lda, m0, p.m, kt * MMA_BK, p.k);
        load_nvfp4_tile(s_b + st * NVFP4_STAGE_BYTES, b_data, b_sc, p.b4, n0, kt, nkb);
    };

#pragma unroll
    for (int s = 0; s < MMA_STAGES - 1; s++) {
        if (s < ktiles) load_stage(s);
        cp_async_commit();
    }

    for (int kt = 0; kt < ktiles; kt++) {
        const int st = kt % MMA_STAGES;
        cp_async_wait<MMA_STAGES - 2>();
        __syncthreads(); /* stage kt landed for all threads; K-tile kt-1 fully consumed */
        if (kt + MMA_STAGES - 1 < ktiles) load_stage(kt + MMA_STAGES - 1);
        cp_async_commit(); /* always: keeps the group count in step with kt */
        dequant_tile<IS_BF16>(s_bt, s_b + st * NVFP4_STAGE_BYTES);
        if (A_RAW) dequant_tile<IS_BF16>(s_at, s_a + st * A_STAGE);
        __syncthreads();
        const uint8_t *ta = A_RAW ? s_at : s_a + st * A_STAGE;

#pragma unroll
        for (int ks = 0; ks < MMA_BK / 16; ks++) {
            uint32_t af[MMA_MT][4], bf[MMA_NT][2];
#pragma unroll
            for (int i = 0; i < MMA_MT; i++) {
                /* x4: lanes 0-15 rows 0-15 at k-chunk 2ks, lanes 16-31 at 2ks+1 */
                int row = wm * MMA_WARP_M + i * 16 + (lane & 15);
                ldmatrix_x4(af[i], ta + tile_off(row, ks * 2 + (lane >> 4)));
            }
#pragma unroll
            for (int j = 0; j < MMA_NT; j += 2) {
                /* x4 over two n8 tiles: matrices (n0-7,k0-7) (n0-7,k8-15) (n8-15,k0-7)
                 * (n8-15,k8-15) = b0,b1 of tile j and of tile j+1 */
                int row = wn * MMA_WARP_N + j * 8 + (lane & 7) + ((lane >> 4) << 3);
                uint32_t r[4];
                ldmatrix_x4(r, s_bt + tile_off(row, ks * 2 + ((lane >> 3) & 1)));
                bf[j][0] = r[0];
                bf[j][1] = r[1];
                bf[j + 1][0] = r[2];
                bf[j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < MMA_MT; i++)
#pragma unroll
                for (int j = 0; j < MMA_NT; j++) mma_16816<IS_BF16>(acc[i][j], af[i], bf[j][0], bf[j][1]);
        }
    }
    cp_async_wait<0>(); /* no copy may outlive the block (all remaining groups are empty) */

    /* epilogue: FP32 scale (alpha and the global scales), bias, convert, guarded store */
    const float scale = tetra_gemm_scale(p.alpha, p.ga, p.gb);
    uint8_t *d = (uint8_t *)p.d + l * p.d_batch * (int64_t)(p.d_dtype == TETRA_DTYPE_FP32 ? 4 : 2);
#pragma unroll
    for (int i = 0; i < MMA_MT; i++)
#pragma unroll
        for (int j = 0; j < MMA_NT; j++) {
            int row = m0 + wm * MMA_WARP_M + i * 16 + (lane >> 2);
            int col = n0 + wn * MMA_WARP_N + j * 8 + 2 * (lane & 3);
            store_pair(p, d, row, col, acc[i][j][0] * scale, acc[i][j][1] * scale);
            store_pair(p, d, row + 8, col, acc[i][j][2] * scale, acc[i][j][3] * scale);
        }
}

size_t smem_bytes(int atype) {
    size_t a_stage = atype == A_NVFP4 ? NVFP4_STAGE_BYTES : TILE16_BYTES;
    return MMA_STAGES * a_stage + MMA_STAGES * NVFP4_STAGE_BYTES + TILE16_BYTES +
           (atype == A_NVFP4 ? TILE16_BYTES : 0);
}

/* Fill an nvfp4_src from an operand; returns 0 if its data is not aligned for the
 * 8-byte copies. */
int make_nvfp4_src(const tetra_operand *o, int64_t rows, int64_t batch, nvfp4_src *s) {
    s->data = (const uint8_t *)o->data;
    s->scales = o->scales;
    s->row_bytes = o->ld / 2;
    s->batch_bytes = o->batch_stride / 2;
    s->scale_ld = o->scale_ld;
    s->scale_batch = o->scale_batch_stride;
    s->rows = (int)rows;
    s->swizzled = o->scale_layout == TETRA_SCALE_SWIZZLED_128X4;
    if (batch == 1) s->batch_bytes = s->scale_batch = 0; /* unused */
    s->scale_vec4 = tetra_aligned(o->scales, 4) && s->scale_batch % 4 == 0 &&
                    (s->swizzled || s->scale_ld % 4 == 0);
    return tetra_aligned(o->data, 8) && o->ld % 16 == 0 && s->batch_bytes % 8 == 0;
}

template <int ATYPE>
tetra_status launch(const mma_params &prm, int64_t batch, int device, cudaStream_t stream) {
    size_t smem = smem_bytes(ATYPE);
    dim3 grid((unsigned)((prm.n + MMA_BN - 1) / MMA_BN), (unsigned)((prm.m + MMA_BM - 1) / MMA_BM),
              (unsigned)batch);
    static std::atomic<unsigned long long> opted_in{0};
    if (!tetra_done_on(opted_in, device)) {
        TETRA_CUDA_TRY(cudaFuncSetAttribute(gemm_mma_kernel<ATYPE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)smem));
        tetra_mark_done(opted_in, device);
    }
    gemm_mma_kernel<ATYPE><<<grid, MMA_THREADS, smem, stream>>>(prm);
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}

} // namespace

extern "C" tetra_status tetra_launch_gemm_mma(const tetra_gemm_problem *p) {
    mma_params prm;
    int atype;
    size_t dsize = p->d_dtype == TETRA_DTYPE_FP32 ? 4 : 2;
    if (p->ctx->sm_major < 8)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "mma.sync GEMM needs sm_80 or newer (device is sm_%d%d)",
                          p->ctx->sm_major, p->ctx->sm_minor);
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX ||
        (p->m + MMA_BM - 1) / MMA_BM > TETRA_MAX_GRID_Y || p->batch > TETRA_MAX_GRID_Y)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "mma.sync GEMM: M, N, K or L too large for its grid");
    if (p->k % 16)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "mma.sync GEMM: K must be a multiple of 16");
    /* one configuration, M-independent (batch-invariant as it stands) */
    if ((p->tile_m && p->tile_m != MMA_BM) || p->splits > 1)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "mma.sync GEMM has one configuration: tile_m %d, no split-K (opts.tile_m = %d, "
                          "opts.splits = %d)", (int)MMA_BM, p->tile_m, p->splits);
    switch (p->a.dtype) {
    case TETRA_DTYPE_BF16: atype = A_BF16; break;
    case TETRA_DTYPE_FP16: atype = A_FP16; break;
    case TETRA_DTYPE_NVFP4: atype = A_NVFP4; break;
    default: return tetra_fail(TETRA_ERR_UNSUPPORTED, "mma.sync GEMM: a.dtype must be BF16, FP16 or NVFP4");
    }
    prm.m = (int)p->m;
    prm.n = (int)p->n;
    prm.k = (int)p->k;
    prm.a = p->a.data;
    prm.lda = p->a.ld;
    prm.a_batch = p->a.batch_stride;
    if (atype == A_NVFP4) {
        if (!make_nvfp4_src(&p->a, p->m, p->batch, &prm.a4))
            return tetra_fail(TETRA_ERR_UNSUPPORTED,
                              "mma.sync GEMM: NVFP4 a needs 8-byte aligned data, ld and batch_stride multiples of 16");
    } else {
        prm.a4 = nvfp4_src();
        if (!tetra_aligned(p->a.data, 16) || p->a.ld % 8 || (p->batch > 1 && p->a.batch_stride % 8))
            return tetra_fail(TETRA_ERR_UNSUPPORTED,
                              "mma.sync GEMM: dense a needs 16-byte aligned data, ld and batch_stride multiples of 8");
    }
    if (!make_nvfp4_src(&p->b, p->n, p->batch, &prm.b4))
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "mma.sync GEMM: b needs 8-byte aligned data, ld and batch_stride multiples of 16");
    prm.d = p->d;
    prm.ldd = p->ldd;
    prm.d_batch = p->d_batch_stride;
    prm.d_dtype = (int)p->d_dtype;
    prm.d_pair = tetra_aligned(p->d, 2 * dsize) && p->ldd % 2 == 0 && (p->batch == 1 || p->d_batch_stride % 2 == 0);
    prm.bias = p->bias;
    prm.bias_dtype = (int)p->bias_dtype;
    prm.alpha = p->alpha;
    prm.ga = atype == A_NVFP4 ? p->a.gscale_dev : NULL;
    prm.gb = p->b.gscale_dev;
    switch (atype) {
    case A_BF16: return launch<A_BF16>(prm, p->batch, p->ctx->device, TETRA_STREAM(p));
    case A_FP16: return launch<A_FP16>(prm, p->batch, p->ctx->device, TETRA_STREAM(p));
    default: return launch<A_NVFP4>(prm, p->batch, p->ctx->device, TETRA_STREAM(p));
    }
}
