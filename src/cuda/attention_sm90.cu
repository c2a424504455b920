/* attention_sm90.cu - attention forward path 3: the Hopper (sm_90a) kernel in the
 * FlashAttention-3 design. See docs/notes/attention-sm90.md.
 *
 * Tile = 64 query rows per consumer warpgroup of one (batch, head): D=128: 2 consumers,
 * 128 rows, 384 threads; D=64: 3 consumers, 192 rows, 512 threads, or 2 consumers and
 * 128 rows where the host's estimate says fewer rounds per SM pay for the slower rows.
 *   warpgroup 0  producer: setmaxnreg down to 24; one thread issues TMA
 *                (cp.async.bulk.tensor) loads of Q (once per tile) and of K/V tiles of 128 keys into a
 *                ring of 2 (D=128) or 3 (D=64) stages guarded by mbarriers (fullK/fullV:
 *                data landed; emptyK/emptyV: every consumer warp is done with it).
 *   warpgroups 1.. consumers: setmaxnreg up to 240 (D=128) or 160 (D=64); each owns 64
 *                query rows.
 *                S = Q K^T: wgmma m64n128k16, Q and K from 128B-swizzled shared memory.
 *                O += P V:  wgmma m64n{D}k16, P from registers (the S accumulator layout is
 *                the register A-fragment layout), V from shared memory as the MN-major
 *                (transposed) operand.
 *                Online softmax in FP32, log2 domain (log2(e) folded into the scale).
 *                Intra-warpgroup overlap: S(j+1) = Q K(j+1)^T and O += P(j) V(j) are issued
 *                together; softmax of S(j+1) runs while P(j) V(j) is still in the tensor
 *                cores. Ping-pong: the consumers take turns issuing their GEMMs (named
 *                barriers), so one warpgroup's softmax overlaps the others' GEMMs.
 * Non-causal problems with more tiles than SMs run persistent CTAs (one per SM), each
 * walking several tiles with the ring, Q buffer and ping-pong carried over. At D=64 with
 * 192-row tiles (non-causal) the host may finish the grid with 128-row tiles where the
 * last round would be partial (plan_tall_qblocks): in those, and in a partial last tile,
 * a consumer whose 64 rows lie past the tile sits it out (takes its turns without GEMMs).
 * Key blocks are visited from the last to the first, so the blocks that need the mask
 * (the partial last block, the causal diagonal) come first and the rest run mask-free.
 * Out-of-range rows of Q, K, V are zero-filled by TMA; keys >= Nk are masked.
 *
 * Only sm_90a has wgmma/setmaxnreg/TMA: on other architectures the kernel body is empty
 * and the launcher refuses to run it (TETRA_ERR_UNSUPPORTED), also when the binary in
 * use was not built for sm_90a (cudaFuncGetAttributes). The tensor maps are encoded on
 * the host with cuTensorMapEncodeTiled fetched through cudaGetDriverEntryPointByVersion,
 * so libtetra does not link libcuda. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <math.h>
#include <stdint.h>
#include <string.h>


#include "attention_epilogue.cuh"
#include "common.cuh"
#include "launch.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TETRA_SM90_DEVICE 1
#else
#define TETRA_SM90_DEVICE 0
#endif

namespace {

constexpr int kBlockN = 128;        /* keys per K/V tile */
constexpr int kSwizzleCols = 64;    /* 16-bit elements per 128-byte swizzle row */

struct Sm90Params {
    uint16_t *o;
    float *lse;
    int64_t os[3];          /* element strides of O: B, N, H */
    int batch, nq, nk, hq, group;
    int causal_offset;      /* nk - nq: query i sees keys j <= i + offset */
    int num_qblocks;        /* full-height (64 * C rows) query blocks per (batch, head) */
    int num_tiles;          /* num_tall + the 128-row tiles; a CTA takes tiles blockIdx.x + k * gridDim.x */
    float scale_log2;       /* scale * log2(e) */
    /* The mixed grid (D=64, 3 consumers, non-causal only; other kernels ignore these):
     * full-height tiles numbered first, then 128-row tiles for the rows from short_q0 on. */
    int num_tall;           /* num_qblocks * batch * hq */
    int short_q0;           /* num_qblocks * 192, at most nq */
    /* Non-causal kernels: 1 = store O through shared memory with a TMA store (maps.o);
     * 0 = 4-byte stores from registers (an O that TMA cannot address). Causal kernels
     * always store from registers. */
    int o_tma;
};

/* The three TMA descriptors live in the kernel's parameter space (__grid_constant__),
 * which is where cp.async.bulk.tensor may read them from. */
struct Sm90Maps {
    CUtensorMap q, k, v;
    CUtensorMap o; /* box {64, 64, 1, 1}: one consumer warpgroup's rows; encoded when o_tma */
};

/* Shared memory: tiles first (each 1024-byte aligned, as the 128B swizzle pattern
 * repeats every 8 rows of 128 bytes), then the mbarriers. A tile of R rows and D
 * columns is stored as D/64 column blocks of R rows x 128 bytes, which is what one TMA
 * box of {64, R} with CU_TENSOR_MAP_SWIZZLE_128B writes and what wgmma's 128B-swizzle
 * descriptors read. */
template <int D, int C> struct Sm90Smem {
    /* C consumer warpgroups of 64 query rows each: 2 at D=128; at D=64 3 for most shapes,
     * where the GEMMs of one warpgroup's turn (512 tensor-core cycles per 128-key block)
     * are too short to hide another's softmax (exp2 alone: 512 MUFU cycles), so a third
     * warpgroup's softmax has to run beside them (FlashAttention-3 uses 192-row tiles at
     * D=64 too); 2 at D=64 where 128-row tiles need fewer rounds per SM (choose_consumers_d64). */
    static_assert(C == 2 || C == 3, "2 or 3 consumer warpgroups");
    static constexpr int kConsumers = C;
    static constexpr int kBlockM = 64 * kConsumers; /* query rows per tile */
    static constexpr int kThreads = 128 * (kConsumers + 1); /* + the producer warpgroup */
    /* setmaxnreg targets: the producer keeps 24, the consumers share the rest of the 64K
     * register file: 128 * 24 + 256 * 240 = 64512 (D=128), 128 * 24 + 384 * 160 = 64512 (D=64) */
    static constexpr int kConsumerRegs = kConsumers == 3 ? 160 : 240;
    /* K/V ring depth: 2 stages of 128 keys at D=128 (160 KB with Q), 3 at D=64 (120 KB) */
    static constexpr int kStages = D == 128 ? 2 : 3;
    static constexpr int kTileQ = kBlockM * D * 2;
    static constexpr int kTileKV = kBlockN * D * 2;
    static constexpr int kQ = 0;
    static constexpr int kK = kQ + kTileQ;
    static constexpr int kV = kK + kStages * kTileKV;
    static constexpr int kBar = kV + kStages * kTileKV;
    /* barriers: fullQ, fullK[kStages], fullV[kStages], emptyK[kStages], emptyV[kStages],
     * emptyQ */
    static constexpr int kBytes = kBar + 8 * (2 + 4 * kStages);
    static constexpr int kAlloc = kBytes + 1024; /* room to align the dynamic base */
    /* The O staging buffer of the TMA store (non-causal kernels only, which allocate
     * kAllocStaged; the causal ones keep kAlloc): after the barriers, 1024-aligned, one
     * 64 x D slice per consumer, laid out as Q is (D/64 column blocks of 64 rows x 128
     * bytes, 128B swizzle). Its own buffer, not Q's: the next tile's Q is loaded while
     * this tile's epilogue runs. */
    static constexpr int kSliceO = 64 * D * 2;
    static constexpr int kO = (kBytes + 1023) / 1024 * 1024;
    static constexpr int kAllocStaged = kO + kConsumers * kSliceO + 1024;
};
/* Which kernels store O with TMA: the non-causal D=128 ones. Causal kernels have one tile
 * per CTA (nothing to overlap); at D=64 the staging code cost the 3-consumer kernels a
 * spill and measured 3% slower at N=2048 (session 6, call 1), so D=64 keeps the register
 * store and compiles to the code it had before. */
template <int D, bool CAUSAL> constexpr bool kStagedO = D == 128 && !CAUSAL;
static_assert(Sm90Smem<128, 2>::kAllocStaged <= 227 * 1024 && Sm90Smem<64, 3>::kAlloc <= 227 * 1024 &&
                  Sm90Smem<64, 2>::kAlloc <= 227 * 1024,
              "shared memory over the sm_90 limit");
static_assert(128 * 24 + (Sm90Smem<64, 3>::kThreads - 128) * Sm90Smem<64, 3>::kConsumerRegs <= 65536 &&
                  128 * 24 + (Sm90Smem<64, 2>::kThreads - 128) * Sm90Smem<64, 2>::kConsumerRegs <= 65536 &&
                  128 * 24 + (Sm90Smem<128, 2>::kThreads - 128) * Sm90Smem<128, 2>::kConsumerRegs <= 65536,
              "setmaxnreg targets over the register file");

#if TETRA_SM90_DEVICE
/* ------------------------------------------------------------ PTX wrappers (sm_90a) */

constexpr int kProducerRegs = 24; /* setmaxnreg target of the producer warpgroup */

__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(uint32_t bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
/* Wait until the phase with this parity has completed. */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

/* One TMA box of the 4-D tensor {D, N, H, B} at coordinates {c0, c1, c2, c3}. */
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0,
                                            int c1, int c2, int c3) {
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
                 : "memory");
}

/* Fill one Q, K or V buffer: announce its bytes on bar, then load its D / 64 column
 * boxes (rows x 128 bytes each) from rows row0.. of head h, batch b. */
template <int D>
__device__ __forceinline__ void tma_load_tile(uint32_t dst, const CUtensorMap *map, uint32_t bar, uint32_t bytes,
                                              int rows, int row0, int h, int b) {
    mbar_expect_tx(bar, bytes);
#pragma unroll
    for (int c = 0; c < D / kSwizzleCols; c++) tma_load_4d(dst + c * rows * 128, map, bar, c * kSwizzleCols, row0, h, b);
}

/* One TMA box from shared memory to the 4-D tensor at {c0, c1, c2, c3}; elements outside
 * the tensor are not written. Bulk-group completion (commit, then wait). */
__device__ __forceinline__ void tma_store_4d(const CUtensorMap *map, uint32_t src, int c0, int c1, int c2, int c3) {
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];\n" ::"l"(
                     (uint64_t)map),
                 "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(src)
                 : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/* This thread's committed bulk stores have finished reading shared memory. */
__device__ __forceinline__ void bulk_wait_read_all() {
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
/* ... and their writes are done. */
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
/* Order this thread's shared-memory writes before later async-proxy (TMA) reads. */
__device__ __forceinline__ void fence_proxy_async_smem() {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void st_shared_u32(uint32_t addr, uint32_t v) {
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}

__device__ __forceinline__ void named_bar_sync(int id, int count) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_bar_arrive(int id, int count) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/* Pin accumulator registers at this point of the program: the compiler must not move
 * reads or writes of them across an asynchronous wgmma's issue or wait. */
template <int N> __device__ __forceinline__ void fence_regs(float (&r)[N]) {
#pragma unroll
    for (int i = 0; i < N; i++) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N> __device__ __forceinline__ void fence_regs(uint32_t (&r)[N][4]) {
#pragma unroll
    for (int i = 0; i < N; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) asm volatile("" : "+r"(r[i][j])::"memory");
}

/* Shared-memory matrix descriptor, 128-byte swizzle. lbo/sbo in bytes. */
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32) |
           (1ull << 62);
}

#define ACC8(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
                   "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define ACC_REGS32 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
                   "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31"
#define ACC_REGS64 ACC_REGS32 ","                                            \
                   "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
                   "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
/* The instruction strings of BF16 and FP16 differ only in the type suffix (TYPE). */
#define WGMMA_SS_N128(TYPE)                                                                \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                              \
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " {" ACC_REGS64 \
                 "}, %64, %65, p, 1, 1, 0, 0;\n}\n"                                         \
                 : ACC8(d, 0), ACC8(d, 8), ACC8(d, 16), ACC8(d, 24), ACC8(d, 32), ACC8(d, 40), \
                   ACC8(d, 48), ACC8(d, 56)                                                 \
                 : "l"(da), "l"(db), "r"(accumulate))
#define WGMMA_RS_N128(TYPE)                                                                \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"                              \
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " {" ACC_REGS64 \
                 "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"                            \
                 : ACC8(d, 0), ACC8(d, 8), ACC8(d, 16), ACC8(d, 24), ACC8(d, 32), ACC8(d, 40), \
                   ACC8(d, 48), ACC8(d, 56)                                                 \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1))
#define WGMMA_RS_N64(TYPE)                                                                 \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"                              \
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPE "." TYPE " {" ACC_REGS32  \
                 "}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"                            \
                 : ACC8(d, 0), ACC8(d, 8), ACC8(d, 16), ACC8(d, 24)                         \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1))

/* d[64x128] (+)= A[64x16] * B[16x128], A and B K-major in shared memory. accumulate = 0
 * overwrites d (the first k-step of S = Q K^T). */
template <bool BF16>
__device__ __forceinline__ void wgmma_ss_n128(float d[64], uint64_t da, uint64_t db, int accumulate) {
    if (BF16) WGMMA_SS_N128("bf16");
    else WGMMA_SS_N128("f16");
}

/* d[64x128] += A[64x16] * B[16x128]: A in registers (mma.sync A-fragment layout per warp),
 * B MN-major in shared memory (the transpose bit). */
template <bool BF16>
__device__ __forceinline__ void wgmma_rs_n128(float d[64], const uint32_t a[4], uint64_t db) {
    if (BF16) WGMMA_RS_N128("bf16");
    else WGMMA_RS_N128("f16");
}

/* d[64x64] += A[64x16] * B[16x64]: A in registers (mma.sync A-fragment layout per warp),
 * B MN-major in shared memory (the transpose bit). */
template <bool BF16>
__device__ __forceinline__ void wgmma_rs_n64(float d[32], const uint32_t a[4], uint64_t db) {
    if (BF16) WGMMA_RS_N64("bf16");
    else WGMMA_RS_N64("f16");
}

#undef WGMMA_SS_N128
#undef WGMMA_RS_N128
#undef WGMMA_RS_N64
#undef ACC_REGS64
#undef ACC_REGS32
#undef ACC8

/* S[64 x 128] = Q[64 x D] K[128 x D]^T for this warpgroup's 64 query rows. A k-step of 16
 * columns is 32 bytes inside a 128-byte swizzle row: the descriptor start advances by
 * 32 bytes (the hardware applies the swizzle to the computed address), and by one
 * column block (rows x 128 bytes) every 4 k-steps. SBO = 1024: 8 rows x 128 bytes. */
template <int D, bool BF16, int BM>
__device__ __forceinline__ void gemm_qk(float (&s)[64], uint32_t sq, uint32_t sk) {
#pragma unroll
    for (int ks = 0; ks < D / 16; ks++) {
        wgmma_ss_n128<BF16>(s, smem_desc(sq + (ks / 4) * BM * 128 + (ks % 4) * 32, 16, 1024),
                            smem_desc(sk + (ks / 4) * kBlockN * 128 + (ks % 4) * 32, 16, 1024), ks > 0);
    }
}

/* O[64 x D] += P[64 x 128] V[128 x D]. V is stored key-major ([key][d], d contiguous), so
 * it is the MN-major B operand: in the 128B-swizzle canonical layout, SBO = 1024 steps 8
 * keys, LBO = kBlockN * 128 steps to the next 64-column block of d. A k-step of 16 keys
 * is 16 rows = 2048 bytes. */
template <int D, bool BF16>
__device__ __forceinline__ void gemm_pv(float (&o)[D / 2], const uint32_t (&pf)[kBlockN / 16][4], uint32_t sv) {
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; kk++) {
        const uint64_t db = smem_desc(sv + kk * 16 * 128, kBlockN * 128, 1024);
        if constexpr (D == 128)
            wgmma_rs_n128<BF16>(o, pf[kk], db);
        else
            wgmma_rs_n64<BF16>(o, pf[kk], db);
    }
}

/* 2^x on the MUFU unit, results below 2^-126 flushed to zero. Plain exp2f (no fast-math)
 * wraps every MUFU.EX2 in a denormal-range fix-up (FSETP, two predicated FMULs): three
 * extra instructions per score. A probability below 2^-126 (next to a row maximum
 * weighted 1) changes no output, so the flush is harmless. */
__device__ __forceinline__ float exp2_ftz(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

/* Online softmax of this thread's part of a 64x128 score tile (accumulator layout: register
 * 4*nt + e holds row g + 8*(e >> 1), column 8*nt + 2*t4 + (e & 1) of the warp's 16 rows).
 * Scores become probabilities in place; m (log2 domain) and l (this thread's partial row
 * sums) are updated and alpha returns the factor the O accumulators must be rescaled by
 * (applied later: O may still be in flight in the tensor cores).
 * GENERIC (masked blocks, or a negative scale): scale every score, mask, then take the
 * maximum. Otherwise (every key visible, scale >= 0): the maximum of the raw scores times
 * the scale is the maximum of the scaled scores (rounding is monotonic), and
 * p = 2^(s*c - m) is one FFMA and one MUFU per score. */
template <bool CAUSAL, bool GENERIC>
__device__ __forceinline__ void softmax_step(float (&s)[64], float (&m)[2], float (&l)[2], float (&alpha)[2],
                                             const Sm90Params &p, int row0, int key0) {
    const int t4 = threadIdx.x & 3;
    const float c = p.scale_log2;
    if (GENERIC) {
        /* Per row, the number of visible keys from this thread's first column on: a column
         * 8nt + (e & 1) is visible iff below it (compares against immediates, few live
         * registers: the 192-row tile's consumers have 160). */
        int lim[2];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int first = key0 + 2 * t4;
            lim[h] = p.nk - first;
            if (CAUSAL) lim[h] = min(lim[h], row0 + 8 * h + p.causal_offset + 1 - first);
        }
#pragma unroll
        for (int nt = 0; nt < 16; nt++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const float x = s[4 * nt + e] * c;
                s[4 * nt + e] = nt * 8 + (e & 1) < lim[e >> 1] ? x : -INFINITY;
            }
    }
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float mx = s[2 * h];
#pragma unroll
        for (int nt = 0; nt < 16; nt++) mx = fmaxf(mx, fmaxf(s[4 * nt + 2 * h], s[4 * nt + 2 * h + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        if (!GENERIC) mx *= c;
        mx = fmaxf(mx, m[h]);
        /* A row with no visible key so far keeps m = -inf; subtract 0 so that no
         * -inf - -inf NaN appears: its p and alpha are 0. */
        const float base = mx == -INFINITY ? 0.0f : mx;
        const float scale = GENERIC ? 1.0f : c;
        float sum = 0.0f;
        alpha[h] = exp2_ftz(m[h] - base);
        m[h] = mx;
#pragma unroll
        for (int nt = 0; nt < 16; nt++) {
            s[4 * nt + 2 * h] = exp2_ftz(fmaf(s[4 * nt + 2 * h], scale, -base));
            s[4 * nt + 2 * h + 1] = exp2_ftz(fmaf(s[4 * nt + 2 * h + 1], scale, -base));
            sum += s[4 * nt + 2 * h] + s[4 * nt + 2 * h + 1];
        }
        l[h] = l[h] * alpha[h] + sum;
    }
}

/* The S accumulators of n-tiles 2kk and 2kk+1 are exactly wgmma's register A fragment
 * for keys 16kk..16kk+15: round to the input dtype in place, no shared-memory trip. */
template <bool BF16>
__device__ __forceinline__ void scores_to_operand(const float (&s)[64], uint32_t (&pf)[kBlockN / 16][4]) {
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; kk++)
#pragma unroll
        for (int j = 0; j < 4; j++) pf[kk][j] = tetra_pack2<BF16>(s[8 * kk + 2 * j], s[8 * kk + 2 * j + 1]);
}

/* Whether a key block needs the generic softmax: some key masked for some of this
 * warpgroup's rows, or a negative scale (the raw maximum is then not the scaled one). */
template <bool CAUSAL>
__device__ __forceinline__ bool block_needs_mask(const Sm90Params &p, int kb, int first_row) {
    const int last_key = (kb + 1) * kBlockN - 1;
    return last_key >= p.nk || (CAUSAL && last_key > first_row + p.causal_offset) || p.scale_log2 < 0.0f;
}
/* One tile: up to BM query rows of one (batch, head) from q0 on, of which the first
 * `rows` exist (MIXED kernels only: there a consumer whose 64 rows start at or past
 * `rows` sits the tile out), and how many key blocks it visits. */
struct Sm90Tile {
    int b, h, hk, q0, rows, nkb;
};

/* Full-height tiles first, heaviest first (LPT): tile i is query block
 * num_qblocks - 1 - i / (B*Hq), heads varying fastest, so every head's most expensive
 * causal tiles come first (non-causal without MIXED: query blocks vary fastest instead,
 * for L2 reuse of K/V; every tile costs the same there). MIXED (the non-causal 192-row kernel): then 128-row tiles
 * covering the rows from short_q0 on (plan_tall_qblocks), two consumers at work. Without
 * MIXED: the plain grid's code as before the mixed grid (rows unused). */
template <bool CAUSAL, int BM, bool MIXED>
__device__ __forceinline__ Sm90Tile decode_tile(const Sm90Params &p, int tile) {
    Sm90Tile t;
    const int bh_count = p.batch * p.hq;
    if constexpr (MIXED) {
        const bool short_tile = tile >= p.num_tall;
        const int j = short_tile ? tile - p.num_tall : tile;
        const int bh = j % bh_count;
        t.b = bh / p.hq;
        t.h = bh % p.hq;
        t.q0 = short_tile ? p.short_q0 + (j / bh_count) * 128 : (p.num_qblocks - 1 - j / bh_count) * BM;
        t.rows = min(short_tile ? 128 : BM, p.nq - t.q0);
    } else {
        /* non-causal: query blocks fastest, so the resident CTAs share a head's K/V in L2 */
        const int qb = CAUSAL ? p.num_qblocks - 1 - tile / bh_count : tile % p.num_qblocks;
        const int bh = CAUSAL ? tile % bh_count : tile / p.num_qblocks;
        t.b = bh / p.hq;
        t.h = bh % p.hq;
        t.q0 = qb * BM;
        t.rows = BM;
    }
    t.hk = t.h / p.group;
    t.nkb = (p.nk + kBlockN - 1) / kBlockN;
    if (CAUSAL) {
        const int last_key = t.q0 + BM - 1 + p.causal_offset; /* of the tile's last row */
        t.nkb = last_key < 0 ? 0 : min(t.nkb, last_key / kBlockN + 1);
    }
    return t;
}
#endif /* TETRA_SM90_DEVICE */

enum { kBarTurn0 = 1,  /* named barriers 1, 2 (, 3): consumer 0's, 1's (, 2's) turn */
       kBarStage0 = 4  /* 4, 5 (, 6): consumer 0's, 1's (, 2's) O slice is written */ };

template <int D, int C, bool BF16, bool CAUSAL>
__global__ void __launch_bounds__(Sm90Smem<D, C>::kThreads, 1)
    attention_fwd_sm90(const __grid_constant__ Sm90Maps maps, const Sm90Params p) {
#if TETRA_SM90_DEVICE
    using L = Sm90Smem<D, C>;
    extern __shared__ uint8_t smem_raw[];
    const uint32_t base = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const uint32_t sQ = base + L::kQ, sK = base + L::kK, sV = base + L::kV, bars = base + L::kBar;
    const uint32_t bar_q = bars;
    constexpr int kStages = L::kStages;
    /* The sit-out and the 128-row tiles exist only in the non-causal 192-row kernel; every
     * other instantiation compiles to the plain grid's code. */
    constexpr bool kMixed = D == 64 && C == 3 && !CAUSAL;
    /* Non-causal D=128 kernels may store O through shared memory with TMA (p.o_tma): the
     * consumer then spends its epilogue on 32 conflict-free shared stores instead of
     * waiting for 32 scattered 4-byte global stores per thread to drain (kStagedO). */
    constexpr bool kStageO = kStagedO<D, CAUSAL>;
    const uint32_t sO = base + L::kO;
#define FULL_K(st) (bars + 8u * (1u + (uint32_t)(st)))
#define FULL_V(st) (bars + 8u * (1u + kStages + (uint32_t)(st)))
#define EMPTY_K(st) (bars + 8u * (1u + 2u * kStages + (uint32_t)(st)))
#define EMPTY_V(st) (bars + 8u * (1u + 3u * kStages + (uint32_t)(st)))
    const uint32_t empty_q = bars + 8u * (1u + 4u * kStages);
    const int tid = threadIdx.x, warp = (tid / 32) % 4, lane = tid & 31;
    /* shfl makes the warpgroup index visibly warp-uniform to the compiler, so the
     * consumer branch does not count as divergent (ptxas would serialize wgmma there). */
    const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);

    if (tid == 0) {
        mbar_init(bar_q, 1);
        mbar_init(empty_q, 4 * L::kConsumers); /* every consumer warp is done with Q */
        for (int st = 0; st < kStages; st++) {
            mbar_init(FULL_K(st), 1);
            mbar_init(FULL_V(st), 1);
            mbar_init(EMPTY_K(st), 4 * L::kConsumers); /* every consumer warp releases the stage */
            mbar_init(EMPTY_V(st), 4 * L::kConsumers);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();

    /* Tiles: CTA c takes tiles c, c + G, c + 2G, ... (G = gridDim.x; G = num_tiles for
     * causal, where the hardware's dispatch of waiting CTAs balances the uneven tiles).
     * Producer and consumers walk the same tiles and count K/V blocks with one running
     * index `it` (stage it % kStages, phase (it / kStages) & 1) and Q loads with `qn`, so
     * the ring and the Q buffer carry over from one tile to the next: the producer loads
     * the next tile's Q and first K/V while the consumers finish the current tile. */
    if (wg == 0) {
        /* ---------------- producer */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kProducerRegs));
        if (tid == 0) {
            /* fetch the K and V descriptors while Q's load is issued */
            asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)&maps.k) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)&maps.v) : "memory");
            int it = 0, qn = 0;
            for (int tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
                const Sm90Tile t = decode_tile<CAUSAL, L::kBlockM, kMixed>(p, tile);
                if (t.nkb == 0) continue;
                mbar_wait(empty_q, (qn & 1) ^ 1); /* the previous tile's last S = Q K^T is done */
                qn++;
                tma_load_tile<D>(sQ, &maps.q, bar_q, L::kTileQ, L::kBlockM, t.q0, t.h, t.b);
                for (int i = 0; i < t.nkb; i++, it++) {
                    const int kb = t.nkb - 1 - i, st = it % kStages;
                    const uint32_t ph = ((it / kStages) & 1) ^ 1;
                    /* a fresh barrier counts its (nonexistent) previous phase as complete. K
                     * and V are released separately: K right after S = Q K^T, V after P V,
                     * so the next K load starts about one GEMM earlier. */
                    mbar_wait(EMPTY_K(st), ph);
                    tma_load_tile<D>(sK + st * L::kTileKV, &maps.k, FULL_K(st), L::kTileKV, kBlockN, kb * kBlockN,
                                     t.hk, t.b);
                    mbar_wait(EMPTY_V(st), ph);
                    tma_load_tile<D>(sV + st * L::kTileKV, &maps.v, FULL_V(st), L::kTileKV, kBlockN, kb * kBlockN,
                                     t.hk, t.b);
                }
            }
        }
        return;
    }

    /* ---------------- consumers */
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(L::kConsumerRegs));
    const int wc = wg - 1; /* consumer 0 .. C-1 */
    const uint32_t sq = sQ + wc * 64 * 128; /* this warpgroup's rows in each column block */
    /* the turn passes around the ring of consumers: 0 -> 1 (-> 2) -> 0 */
    const int my_turn = kBarTurn0 + wc, other_turn = kBarTurn0 + (wc + 1) % L::kConsumers;
    int it = 0, qn = 0;

    /* Ping-pong: a consumer issues its GEMMs only in its turn (bar.sync on its own
     * barrier), then hands the turn to the next consumer (bar.arrive on the next's).
     * Every consumer takes the same number of turns (nkb + 1 per tile that sees a key).
     * Consumer 0 starts: the last consumer arrives once up front, so after the last tile
     * one arrive of it is left over, which consumer 0 takes with one extra sync at the
     * very end. */
    if (wc == L::kConsumers - 1) named_bar_arrive(other_turn, 256);

    for (int tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
        const Sm90Tile t = decode_tile<CAUSAL, L::kBlockM, kMixed>(p, tile);
        const int nkb = t.nkb;
        if (kMixed && wc * 64 >= t.rows) {
            /* This warpgroup's rows lie past the tile's (a 128-row tile, or a partial last
             * one): no GEMMs, no store, but the tile's nkb + 1 turns, taken empty (every
             * consumer takes as many), and every Q, K, V fill it would have read released,
             * each after the fill landed so that the release counts toward that fill.
             * The other warpgroups' rows get the same GEMMs and softmax as in a full tile.
             * (nkb is never 0 here, non-causal with Nk >= 1; such a tile would have no
             * turns and no loads.) */
            if (nkb > 0) {
                mbar_wait(bar_q, qn & 1);
                qn++;
                for (int i = 0; i < nkb; i++, it++) {
                    const int st = it % kStages;
                    named_bar_sync(my_turn, 256);
                    named_bar_arrive(other_turn, 256);
                    mbar_wait(FULL_K(st), (it / kStages) & 1);
                    mbar_wait(FULL_V(st), (it / kStages) & 1);
                    if (lane == 0) {
                        mbar_arrive(EMPTY_K(st));
                        mbar_arrive(EMPTY_V(st));
                        if (i == nkb - 1) mbar_arrive(empty_q);
                    }
                }
                named_bar_sync(my_turn, 256); /* the tail P V's turn */
                named_bar_arrive(other_turn, 256);
            }
            continue;
        }
        const int first_row = t.q0 + wc * 64; /* this warpgroup's first query row */
        const int row0 = first_row + warp * 16 + (lane >> 2);
        float o[D / 2];
#pragma unroll
        for (int i = 0; i < D / 2; i++) o[i] = 0.0f;
        float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};

        if (nkb > 0) {
            float s[64], alpha[2];
            uint32_t pf[kBlockN / 16][4];
            mbar_wait(bar_q, qn & 1);
            qn++;

            /* first key block (the last one, kb = nkb - 1): S only */
            {
                const int st = it % kStages;
                named_bar_sync(my_turn, 256);
                mbar_wait(FULL_K(st), (it / kStages) & 1);
                wgmma_fence();
                gemm_qk<D, BF16, L::kBlockM>(s, sq, sK + st * L::kTileKV);
                wgmma_commit();
                named_bar_arrive(other_turn, 256);
                wgmma_wait<0>();
                fence_regs(s);
                if (lane == 0) {
                    mbar_arrive(EMPTY_K(st));
                    if (nkb == 1) mbar_arrive(empty_q);
                }
                if (block_needs_mask<CAUSAL>(p, nkb - 1, first_row))
                    softmax_step<CAUSAL, true>(s, m, l, alpha, p, row0, (nkb - 1) * kBlockN);
                else
                    softmax_step<CAUSAL, false>(s, m, l, alpha, p, row0, (nkb - 1) * kBlockN);
                scores_to_operand<BF16>(s, pf);
                it++;
            }

            for (int i = 1; i < nkb; i++, it++) {
                const int kb = nkb - 1 - i, st = it % kStages, sp = (it - 1) % kStages;
                named_bar_sync(my_turn, 256);
                mbar_wait(FULL_K(st), (it / kStages) & 1);
                wgmma_fence();
                gemm_qk<D, BF16, L::kBlockM>(s, sq, sK + st * L::kTileKV);
                wgmma_commit();
                mbar_wait(FULL_V(sp), ((it - 1) / kStages) & 1);
                gemm_pv<D, BF16>(o, pf, sV + sp * L::kTileKV);
                wgmma_commit();
                named_bar_arrive(other_turn, 256);
                wgmma_wait<1>(); /* S(i) landed; P(i-1) V(i-1) may still run */
                fence_regs(s);
                if (lane == 0) {
                    mbar_arrive(EMPTY_K(st)); /* this warp is done with K(st) */
                    if (i == nkb - 1) mbar_arrive(empty_q); /* and with this tile's Q */
                }
                if (block_needs_mask<CAUSAL>(p, kb, first_row))
                    softmax_step<CAUSAL, true>(s, m, l, alpha, p, row0, kb * kBlockN);
                else
                    softmax_step<CAUSAL, false>(s, m, l, alpha, p, row0, kb * kBlockN);
                wgmma_wait<0>();
                fence_regs(o);
                fence_regs(pf);
                if (lane == 0) mbar_arrive(EMPTY_V(sp)); /* this warp is done with V(sp) */
#pragma unroll
                for (int dt = 0; dt < D / 8; dt++) {
                    o[4 * dt + 0] *= alpha[0];
                    o[4 * dt + 1] *= alpha[0];
                    o[4 * dt + 2] *= alpha[1];
                    o[4 * dt + 3] *= alpha[1];
                }
                scores_to_operand<BF16>(s, pf);
            }

            /* The tail P V takes a turn of its own (every consumer: nkb + 1 turns per tile),
             * so the next consumer's turn is handed over right after this issue and its
             * GEMMs run during this consumer's wait and epilogue. */
            const int sl = (it - 1) % kStages;
            named_bar_sync(my_turn, 256);
            mbar_wait(FULL_V(sl), ((it - 1) / kStages) & 1);
            wgmma_fence();
            gemm_pv<D, BF16>(o, pf, sV + sl * L::kTileKV);
            wgmma_commit();
            named_bar_arrive(other_turn, 256);
            wgmma_wait<0>();
            fence_regs(o);
            if (lane == 0) mbar_arrive(EMPTY_V(sl));
        }

        /* Epilogue: finish the row sums across the quad, normalise, store (a row that saw
         * no key has l = 0: O = 0, lse = -inf). Staged (kStageO, p.o_tma, and the tail
         * turn above took place): the same packed values go to this warpgroup's slice of
         * the staging buffer in TMA's 128B-swizzle layout (16-byte chunk j of row r at
         * chunk j ^ (r % 8): the 8 rows of one store instruction hit 8 different chunks,
         * no bank conflict), then one thread stores the slice with TMA, which writes only
         * the rows below nq. Otherwise 4-byte stores from registers. */
        const int t4 = lane & 3;
        const bool staged = kStageO && p.o_tma && nkb > 0;
        uint16_t *obase = p.o + t.b * p.os[0] + t.h * p.os[2];
        if (staged) {
            /* The previous tile's TMA store of this slice has finished reading it (issued a
             * whole tile ago: no wait in practice) before anyone writes it again. Every
             * thread waits (a no-op where no store was issued), then the warpgroup syncs.
             * (Placed before the tail P V's turn instead, the wait makes ptxas serialize
             * every wgmma: C7520.) */
            bulk_wait_read_all();
            named_bar_sync(kBarStage0 + wc, 128);
        }
#pragma unroll
        for (int hh = 0; hh < 2; hh++) {
            const float sum = tetra_attn_row_sum(l[hh]);
            const int row = row0 + hh * 8;
            const float inv = tetra_attn_inv_sum(sum);
            if (staged) {
                /* The thread index is read again here (an opaque move): otherwise ptxas
                 * hoists these tile-invariant addresses (up to 16 per thread) out of the
                 * tile loop and the 160-register D=64 consumers spill in the main loop. */
                uint32_t tx;
                asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(tx));
                const uint32_t r = (tx / 32) % 4 * 16 + (tx & 31) / 4 + hh * 8; /* row in the slice */
                const uint32_t srow = sO + wc * L::kSliceO + r * 128 + 4 * (tx & 3), key = (r & 7) << 4;
#pragma unroll
                for (int dt = 0; dt < D / 8; dt++)
                    st_shared_u32(srow + (dt / 8) * 64 * 128 + (((dt % 8) << 4) ^ key),
                                  tetra_pack2<BF16>(o[4 * dt + 2 * hh] * inv, o[4 * dt + 2 * hh + 1] * inv));
            } else if (row < p.nq) {
                uint16_t *orow = obase + (int64_t)row * p.os[1] + 2 * t4;
#pragma unroll
                for (int dt = 0; dt < D / 8; dt++)
                    *reinterpret_cast<uint32_t *>(orow + dt * 8) =
                        tetra_pack2<BF16>(o[4 * dt + 2 * hh] * inv, o[4 * dt + 2 * hh + 1] * inv);
            }
            if (row < p.nq && p.lse && t4 == 0)
                p.lse[((int64_t)t.b * p.hq + t.h) * p.nq + row] = tetra_attn_lse(m[hh], sum);
        }
        if (staged) {
            /* every writer orders its shared stores before the async proxy's reads; warp 0
             * waits for the other three warps (bar.sync/arrive are warp-aligned), then one
             * thread issues the store and returns to the next tile: nobody waits for it */
            fence_proxy_async_smem();
            if (warp == 0) {
                named_bar_sync(kBarStage0 + wc, 128);
                if (lane == 0 && first_row < p.nq) {
#pragma unroll
                    for (int c = 0; c < D / kSwizzleCols; c++)
                        tma_store_4d(&maps.o, sO + wc * L::kSliceO + c * 64 * 128, c * kSwizzleCols, first_row,
                                     t.h, t.b);
                    bulk_commit();
                }
            } else {
                named_bar_arrive(kBarStage0 + wc, 128);
            }
        }
    }
    /* the last TMA stores must finish before the CTA's shared memory goes away */
    if (kStageO && p.o_tma) bulk_wait_all(); /* a no-op where no store was issued */
    if (wc == 0) named_bar_sync(my_turn, 256); /* the last consumer's leftover hand-over */
#undef FULL_K
#undef FULL_V
#undef EMPTY_K
#undef EMPTY_V
#elif defined(__CUDA_ARCH__)
    /* No wgmma here: the launcher never launches this (it checks the device and the
     * binary); if that is ever bypassed, fail loudly instead of returning garbage. */
    __trap();
#endif /* TETRA_SM90_DEVICE */
}

/* ------------------------------------------------------------ host side */

typedef PFN_cuTensorMapEncodeTiled_v12000 EncodeTiledFn;

EncodeTiledFn load_encode_tiled() {
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    return (EncodeTiledFn)fn;
}

/* The TMA view of one [B, N, H, D] tensor: a 4-D tensor {D, N, H, B} (innermost first)
 * with the tensor's own strides, a box of {64, rows, 1, 1} and the 128-byte swizzle.
 * Rows past N read as zeros (loads) and are not written (stores). quiet: refuse without
 * recording a message (the caller has a fallback). */
tetra_status encode_map(EncodeTiledFn encode, CUtensorMap *map, const char *name, const void *ptr,
                        tetra_dtype dt, int64_t B, int64_t N, int64_t H, int64_t D, const int64_t s[3],
                        int rows, bool quiet = false) {
    const int64_t ext[3] = {B, N, H};
    const cuuint64_t dims[4] = {(cuuint64_t)D, (cuuint64_t)N, (cuuint64_t)H, (cuuint64_t)B};
    cuuint64_t strides[3]; /* bytes, of dims 1..3: N, H, B */
    const int order[3] = {1, 2, 0};
    const cuuint32_t box[4] = {(cuuint32_t)kSwizzleCols, (cuuint32_t)rows, 1, 1};
    const cuuint32_t estride[4] = {1, 1, 1, 1};
    for (int i = 0; i < 3; i++) {
        const int d = order[i];
        int64_t st = s[d];
        /* a dimension of extent 1 is never stepped: any legal stride describes it */
        if (ext[d] == 1 && st % 8) st += 8 - st % 8;
        if (st % 8 || st * 2 >= ((int64_t)1 << 40))
            return quiet ? TETRA_ERR_UNSUPPORTED
                         : tetra_fail(TETRA_ERR_UNSUPPORTED,
                                      "attention path 3 needs args.%s_strides[%d] = %lld to be a multiple of 8 "
                                      "elements (16 bytes) and below 2^39 (TMA)",
                                      name, d, (long long)s[d]);
        strides[i] = (cuuint64_t)(st * 2);
    }
    const CUresult r =
        encode(map, dt == TETRA_DTYPE_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4,
               const_cast<void *>(ptr), dims, strides, box, estride, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return quiet ? TETRA_ERR_UNSUPPORTED
                     : tetra_fail(TETRA_ERR_UNSUPPORTED,
                                  "attention path 3: cuTensorMapEncodeTiled refused args.%s (CUresult %d)", name,
                                  (int)r);
    return TETRA_OK;
}

template <int D, int C, bool BF16, bool CAUSAL>
tetra_status launch_config(tetra_context *ctx, const Sm90Maps &maps, const Sm90Params &p, int64_t ctas) {
    auto kernel = attention_fwd_sm90<D, C, BF16, CAUSAL>;
    /* the kernels that may stage O carry its buffer (used when p.o_tma) */
    constexpr int smem = kStagedO<D, CAUSAL> ? Sm90Smem<D, C>::kAllocStaged : Sm90Smem<D, C>::kAlloc;
    /* the attribute query and the shared-memory opt-in: once per device */
    static std::atomic<unsigned long long> checked{0};
    if (!tetra_done_on(checked, ctx->device)) {
        cudaFuncAttributes attr;
        TETRA_CUDA_TRY(cudaFuncGetAttributes(&attr, kernel));
        /* The body exists only in sm_90a code; a binary built without it must not run. */
        if (attr.binaryVersion != 90 || attr.ptxVersion < 90)
            return tetra_fail(TETRA_ERR_UNSUPPORTED,
                              "attention path 3: this build of libtetra has no sm_90a code (binary sm_%d, "
                              "ptx %d); build with CMAKE_CUDA_ARCHITECTURES containing 90a",
                              attr.binaryVersion, attr.ptxVersion);
        TETRA_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        tetra_mark_done(checked, ctx->device);
    }
    kernel<<<(unsigned)ctas, Sm90Smem<D, C>::kThreads, smem, (cudaStream_t)ctx->stream>>>(maps, p);
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}

/* Relative time of one 64-row consumer pass over one 128-key block, in hundredths, at
 * D=64: the 2-consumer kernel against the 3-consumer one (the 3rd warpgroup's softmax
 * hides behind two others' GEMMs). From runs 12 and 13 at N=8192, B=2, H=16 non-causal:
 * 2 consumers 0.853x cuDNN, 3 consumers 0.957x, i.e. 1.122x the time for 2048 vs 2112
 * rows per SM (16 rounds of 128, 11 of 192): 1.122 * 2112 / 2048 = 1.16 per row. */
constexpr double kPassCost[4] = {0, 0, 1.16, 1.0};

/* Estimated busy time of the most loaded SM with C consumer warpgroups (64C-row tiles),
 * in kPassCost units (double: no overflow for any extents). Non-causal: CTA c runs tiles
 * c, c + G, ... (G = min(tiles, SMs)), all of equal cost: ceil(tiles / SMs) tiles.
 * Causal: one CTA per tile, dispatched heaviest first to whichever SM frees first; list
 * scheduling ends within one tile of the average load, estimated here as
 * max(total / SMs, heaviest tile). */
double estimate_sm_cost(const tetra_attention_args *a, int C, int sms) {
    const int64_t bm = 64 * C, qblocks = (a->seqlen_q + bm - 1) / bm, bh = a->batch * a->heads_q;
    const int64_t nkb = (a->seqlen_k + kBlockN - 1) / kBlockN;
    const double pass = kPassCost[C] * C; /* one key block of a tile */
    if (!a->causal) return ceil((double)qblocks * (double)bh / sms) * (double)nkb * pass;
    double total = 0.0, heaviest = 0.0;
    for (int64_t qb = 0; qb < qblocks; qb++) {
        const int64_t last_key = qb * bm + bm - 1 + a->seqlen_k - a->seqlen_q; /* of the tile's last row */
        const int64_t n = last_key < 0 ? 0 : (last_key / kBlockN + 1 < nkb ? last_key / kBlockN + 1 : nkb);
        total += (double)n * pass;
        heaviest = fmax(heaviest, (double)n * pass);
    }
    return fmax(total * (double)bh / sms, heaviest);
}

/* Consumer warpgroups at D=64: 128-row tiles (2) when the estimate says they finish
 * first (short sequences: fewer rounds per SM outweigh the slower rows), else 192-row
 * tiles (3). Sequences over 4096 blocks of 128 rows take 3 without the estimate (whose
 * causal loop is one step per query block): 2731+ tiles of 192 rows per (batch, head)
 * are 13+ rounds on any SM count up to 210, where quantization (under 1 round in 13)
 * cannot pay for 16 % slower rows.
 * args.tile_rows pins a height (checked by attention_api.c: 128 or 192 here). */
int choose_consumers_d64(const tetra_context *ctx, const tetra_attention_args *a) {
    if (a->tile_rows) return a->tile_rows / 64;
    if (ctx->sms <= 0 || (a->seqlen_q + 127) / 128 > 4096) return 3;
    return estimate_sm_cost(a, 2, ctx->sms) < estimate_sm_cost(a, 3, ctx->sms) ? 2 : 3;
}

/* The busiest CTA's cost (kPassCost units) of the non-causal 192-row kernel when every
 * (batch, head) runs its first `tall_qb` blocks of 192 rows as full tiles and the rest of
 * its rows as 128-row tiles, numbered after all full ones. A 128-row tile has two
 * consumers at work and the third sitting out: costed as two passes at the 2-consumer
 * rate. CTA c of G = min(tiles, SMs) runs tiles c, c + G, ... */
double split_cost(const tetra_attention_args *a, int64_t tall_qb, int sms) {
    const int64_t bh = a->batch * a->heads_q, nkb = (a->seqlen_k + kBlockN - 1) / kBlockN;
    const int64_t rest = a->seqlen_q - 192 * tall_qb;
    const int64_t tall = tall_qb * bh, total = tall + (rest > 0 ? (rest + 127) / 128 : 0) * bh;
    const int64_t g = total < sms ? total : sms;
    /* CTA c runs ceil((tall - c) / g) full tiles and ceil((total - c) / g) in all: both
     * step down once, at c = tall % g and c = total % g, so the maximum over c is at c = 0
     * or one of those two (a constant number of steps per call: this runs on every call) */
    const int64_t cs[3] = {0, tall % g, total % g};
    double worst = 0.0;
    for (int i = 0; i < 3; i++) {
        const int64_t c = cs[i], n_tall = (tall - c + g - 1) / g, n_all = (total - c + g - 1) / g;
        worst = fmax(worst, (double)n_tall * 3.0 * kPassCost[3] + (double)(n_all - n_tall) * 2.0 * kPassCost[2]);
    }
    return worst * (double)nkb;
}

/* How many 192-row blocks per (batch, head) the non-causal 192-row kernel runs as full
 * tiles (the rest of the rows as 128-row tiles): all of them unless a split makes the
 * busiest CTA's estimate smaller. A partly filled last round of full tiles is the case:
 * B=2, H=16, N=2048 has 352 tiles of 192 rows on 132 SMs (3 rounds, the last 2/3 full);
 * 8 blocks of 192 and 4 of 128 rows per head are 256 + 128 tiles, 2 full rounds and one
 * of 128-row tiles: 8.32 instead of 9 passes per key block. Shapes of more than 64 rounds
 * are not searched (quantization below 1/64 there). A pinned args.tile_rows gets the
 * plain grid (the rows192 bench arm measures the split against it). Outputs do not
 * depend on the split: every row is computed by one 64-row warpgroup with the same GEMMs,
 * key-block order and softmax, whatever tile it falls in. */
int64_t plan_tall_qblocks(const tetra_context *ctx, const tetra_attention_args *a) {
    const int64_t nqb = (a->seqlen_q + 191) / 192, bh = a->batch * a->heads_q;
    int64_t best = nqb;
    if (a->causal || a->tile_rows || ctx->sms <= 0 || nqb * bh > 64 * (int64_t)ctx->sms) return best;
    double best_cost = split_cost(a, nqb, ctx->sms);
    for (int64_t k = nqb - 1; k >= 1 && k >= nqb - 64; k--) {
        const double c = split_cost(a, k, ctx->sms);
        if (c < best_cost * (1.0 - 1e-9)) best = k, best_cost = c;
    }
    return best;
}

template <bool BF16, bool CAUSAL>
tetra_status launch_d64(tetra_context *ctx, const Sm90Maps &maps, const Sm90Params &p, int64_t ctas,
                        int consumers) {
    return consumers == 2 ? launch_config<64, 2, BF16, CAUSAL>(ctx, maps, p, ctas)
                          : launch_config<64, 3, BF16, CAUSAL>(ctx, maps, p, ctas);
}

} // namespace

/* The arguments arrive validated with strides and scale resolved (attention_api.c). */
extern "C" tetra_status tetra_launch_attention_sm90(tetra_context *ctx, const tetra_attention_args *a) {
    static const char *tensor[4] = {"q", "k", "v", "o"};
    const void *ptr[4] = {a->q, a->k, a->v, a->o};
    const int64_t *strides[4] = {a->q_strides, a->k_strides, a->v_strides, a->o_strides};
    static const EncodeTiledFn encode = load_encode_tiled();
    tetra_status st;
    if (ctx->sm_major != 9 || ctx->sm_minor != 0)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "attention path 3 (wgmma) needs an sm_90 device; this one is sm_%d%d",
                          ctx->sm_major, ctx->sm_minor);
    if (!encode)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "attention path 3: the driver does not provide cuTensorMapEncodeTiled");
    for (int t = 0; t < 4; t++)
        if (!tetra_aligned(ptr[t], 16))
            return tetra_fail(TETRA_ERR_UNSUPPORTED, "attention path 3 needs args.%s 16-byte aligned (it is %p)",
                              tensor[t], ptr[t]);
    /* O is stored with 4-byte stores from registers: even strides suffice, but keep the
     * same rule as the inputs. */
    {
        const int64_t ext[3] = {a->batch, a->seqlen_q, a->heads_q};
        for (int i = 0; i < 3; i++)
            if (ext[i] > 1 && strides[3][i] % 8)
                return tetra_fail(TETRA_ERR_UNSUPPORTED,
                                  "attention path 3 needs args.o_strides[%d] = %lld to be a multiple of 8 "
                                  "elements (16 bytes)",
                                  i, (long long)strides[3][i]);
    }
    /* query rows per tile (the Q box): 64 per consumer warpgroup; 128 at D=128, 192 or
     * 128 at D=64 */
    const int consumers = a->head_dim == 64 ? choose_consumers_d64(ctx, a) : 2;
    const int block_m = 64 * consumers;
    Sm90Maps maps;
    if ((st = encode_map(encode, &maps.q, "q", a->q, a->dtype, a->batch, a->seqlen_q, a->heads_q, a->head_dim,
                         a->q_strides, block_m)) != TETRA_OK)
        return st;
    if ((st = encode_map(encode, &maps.k, "k", a->k, a->dtype, a->batch, a->seqlen_k, a->heads_kv, a->head_dim,
                         a->k_strides, kBlockN)) != TETRA_OK)
        return st;
    if ((st = encode_map(encode, &maps.v, "v", a->v, a->dtype, a->batch, a->seqlen_k, a->heads_kv, a->head_dim,
                         a->v_strides, kBlockN)) != TETRA_OK)
        return st;

    /* O through TMA (non-causal D=128, kStagedO): 4 boxes of 64 rows per 128-row tile; a
     * map the driver refuses leaves the register store (same values, same bytes written). */
    const bool o_tma = !a->causal && a->head_dim == 128 && encode_map(encode, &maps.o, "o", a->o, a->dtype, a->batch, a->seqlen_q,
                                                 a->heads_q, a->head_dim, a->o_strides, 64, true) == TETRA_OK;
    if (!o_tma) memset(&maps.o, 0, sizeof maps.o);

    Sm90Params p;
    p.o_tma = o_tma ? 1 : 0;
    p.o = (uint16_t *)a->o;
    p.lse = a->lse;
    for (int i = 0; i < 3; i++) p.os[i] = a->o_strides[i];
    p.batch = (int)a->batch;
    p.nq = (int)a->seqlen_q;
    p.nk = (int)a->seqlen_k;
    p.hq = (int)a->heads_q;
    p.group = (int)(a->heads_q / a->heads_kv);
    p.causal_offset = (int)(a->seqlen_k - a->seqlen_q);
    /* full-height tiles, then (192-row kernel, non-causal, where it pays) 128-row tiles for
     * the rest of the rows */
    const int64_t tall_qb = consumers == 3 && !a->causal ? plan_tall_qblocks(ctx, a)
                                                        : (a->seqlen_q + block_m - 1) / block_m;
    const int64_t short_q0 = tall_qb * block_m, rest = a->seqlen_q - short_q0;
    const int64_t tall = tall_qb * a->batch * a->heads_q;
    const int64_t tiles = tall + (rest > 0 ? (rest + 127) / 128 : 0) * a->batch * a->heads_q;
    p.scale_log2 = (float)((double)a->scale * 1.4426950408889634);
    if (tiles > INT32_MAX || a->batch * a->heads_q > INT32_MAX)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "attention path 3: %lld tiles exceed the grid limit",
                          (long long)tiles);
    p.num_qblocks = (int)tall_qb;
    p.num_tall = (int)tall;
    p.short_q0 = (int)(short_q0 < a->seqlen_q ? short_q0 : a->seqlen_q);
    p.num_tiles = (int)tiles;
    /* Non-causal: persistent, one CTA per SM walking its tiles, so a tile's Q and first
     * K/V loads overlap the previous tile's tail and epilogue. Causal tiles differ up to
     * num_qblocks-fold in cost; one CTA per tile lets the hardware hand the next tile to
     * whichever SM frees first (greedy, heaviest first), which a static split does not. */
    const int64_t ctas = a->causal || ctx->sms <= 0 || tiles < ctx->sms ? tiles : ctx->sms;

    const bool bf16 = a->dtype == TETRA_DTYPE_BF16, causal = a->causal != 0;
    if (a->head_dim == 64) {
        if (bf16) return causal ? launch_d64<true, true>(ctx, maps, p, ctas, consumers)
                                : launch_d64<true, false>(ctx, maps, p, ctas, consumers);
        return causal ? launch_d64<false, true>(ctx, maps, p, ctas, consumers)
                      : launch_d64<false, false>(ctx, maps, p, ctas, consumers);
    }
    if (bf16) return causal ? launch_config<128, 2, true, true>(ctx, maps, p, ctas)
                            : launch_config<128, 2, true, false>(ctx, maps, p, ctas);
    return causal ? launch_config<128, 2, false, true>(ctx, maps, p, ctas)
                  : launch_config<128, 2, false, false>(ctx, maps, p, ctas);
}
