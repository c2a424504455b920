/*
 * gemv.cu - the decode path: Y[M,N] = alpha * X[M,K] * W[N,K]^T (+ bias[N]) for M = 1..16,
 * W NVFP4 (either scale layout), X BF16/FP16 (W4A16) or NVFP4 (W4A4), Y FP32/FP16/BF16,
 * batched over L. Notes, numbers and predictions: docs/notes/gemv.md.
 *
 * Three kernels:
 *   gemv_nvfp4_mma     streams W through a per-warp cp.async ring (16-byte copies, sm_80+)
 *                      and multiplies on the tensor cores (mma.sync m16n8k16): 16
 *                      dequantized weight rows are the A operand, the activation rows
 *                      (padded to 8 or 16 with zeros) the narrow B operand. Split-K across
 *                      CTAs writes FP32 partials to the context workspace; with 2 splits
 *                      the last CTA of each row tile sums them in split order (one launch),
 *   gemv_splitk_reduce with more splits this second launch does, in the same order (on
 *                      sm_90+ a programmatic dependent of the mma kernel).
 *                      Cluster-K (gemv_nvfp4_mma<XK, IL, true>, sm_90+, AUTO where
 *                      ck_auto_takes says so; TETRA_GEMV_CLUSTER_K / TETRA_GEMV_CK): 32-row CTAs whose 4 warps take
 *                      4 K pieces, S CTAs of a row tile in one cluster, the partials summed
 *                      in piece order from the cluster's shared memory (gemv_ck_reduce): one
 *                      launch, the bits of the ordinary kernel pinned at 4S splits.
 *                      Fragment-ordered W (TETRA_SCALE_FRAGMENT_128X64): gemv_nvfp4_mma_frag
 *                      (K loop gemv_frag_main), and with the build switch TETRA_GEMV_FRAG_CK
 *                      (default 1; 0: not built) its cluster-K twin gemv_nvfp4_mma_frag_ck.
 *   gemv_nvfp4_scalar  one warp per (batch, weight row), scalar loads, FP32 FMAs: the
 *                      correct path for every problem the mma kernel cannot take.
 *
 * Fast-path constraints (anything else valid runs on the scalar kernel, never UNSUPPORTED
 * for M <= 16):
 *   - K % 128 == 0 and K <= 2^30;
 *   - W (and X when NVFP4): data 16-byte aligned, ld % 32 == 0 and batch_stride % 32 == 0
 *     (4-bit elements, i.e. 16-byte aligned rows); X scales 2-byte aligned, linear scale_ld
 *     and scale_batch_stride even; W scales 4-byte aligned, linear scale_ld and
 *     scale_batch_stride multiples of 4 (they are copied as 4-byte words);
 *   - X BF16/FP16: data 16-byte aligned, ld % 8 == 0, batch_stride % 8 == 0;
 *   - block-scale bytes are UE4M3 (0x00..0x7E) or the NaN code 0x7F: the mma kernel writes
 *     NaN for every output of a weight row with such a byte (and for bytes with the sign
 *     bit set, which are not UE4M3); an activation scale 0x7F gives a NaN operand.
 *
 * Exactness: e2m1 * ue4m3 has at most 6 significant bits and lies in [2^-10, 2688]. The
 * kernel builds each weight by placing the nibble's bits into an FP16/BF16 word (no table)
 * and multiplying by the block scale in the operand type; the product is exact but carries
 * a fixed power-of-two factor (FP16: 2^-14, BF16: 2^-7, see dequant_bf16/dequant_fp16),
 * which the epilogue removes in FP32 together with alpha and the global scales. W4A4 uses
 * BF16 for both operands.
 *
 * Batch invariance: row m of Y does not depend on M. Grid, split-K and accumulation order
 * depend only on N, K, L, the dtypes and the device; rows >= M are zero B columns; the
 * second n=8 mma (rows 8..15) runs only when M > 8 but never changes rows 0..7; each output
 * element of an mma is computed from its own column alone.
 */
#include "common.cuh"
#include "gemv_warp.cuh" /* dequant_word, scale_pair2, half_bcast, prmt, cp.async */
#include "launch.h"
#include "smem.cuh"

#include <stdint.h>
#include <stdlib.h>
#include <type_traits>

#ifndef TETRA_GEMV_ACC_SETS
#define TETRA_GEMV_ACC_SETS 1
#endif
/* 1: in the interleaved-W kernels, the scale pairs (s, s) are 16-bit broadcasts that ptxas
 * folds into the multiplies' operand selectors (-8 to -12 instructions per segment); 0: PRMT
 * 0x1010 / 0x3232 as in session 7. Same bits either way. The standard-W kernels keep the
 * PRMTs: at their 128-register cap the fold cost more moves than it saved (notes:
 * gemv-prepared-weights.md, session 8). */
#ifndef TETRA_GEMV_HALF_SELECT
#define TETRA_GEMV_HALF_SELECT 1
#endif
/* 1: on sm_90+ devices gemv_splitk_reduce is the mma kernel's programmatic dependent (the
 * mma kernel triggers right after its ring prologue, the reduce waits before it touches
 * memory), so its launch gap in a stream or graph overlaps the mma kernel; 0: an ordinary
 * second launch (session 9). Same partials, same sums, same bits either way (notes:
 * gemv.md, session 10; CMake: TETRA_GEMV_PDL_REDUCE). */
#ifndef TETRA_GEMV_PDL_REDUCE
#define TETRA_GEMV_PDL_REDUCE 1
#endif
/* The GEMV as a programmatic dependent in every call (notes: gemv.md, "GEMV PDL in every call";
 * CMake: TETRA_GEMV_PDL_ALL). Same partials, same sums, same bits in every mode.
 *   0: session 20's launches: the PDL attribute only in the W4A4 chain (p->pdl: after the
 *     staging pass, which writes X only; the weight ring's first stages are issued before
 *     griddepcontrol.wait there) and on the split-K reduce (TETRA_GEMV_PDL_REDUCE).
 *   1 (default since session 21, run 103: 0.856-0.970x the time at M <= 16, paired): every
 *     launch of the mma kernels (standard / interleaved / fragment W, and cluster-K) on a
 *     device where the kernel has griddepcontrol (pdl_compiled) is a programmatic dependent of
 *     the previous kernel on the stream (gemv_launch_dependent decides, for every launch). In a
 *     call that is not the W4A4 chain (prm.wait_first, a kernel parameter read once before the
 *     ring prologue) every thread waits before its first global read: the previous kernel may
 *     write X, W, the scales, bias or the workspace. The W4A4 chain keeps its order (ring first).
 *     Every CTA triggers its dependents right after its wait (so the next tetra kernel launched
 *     as a dependent is scheduled while this one runs; it waits for this grid's completion
 *     before it reads anything), and so does the split-K reduce.
 *   2 (an experiment, never a default): as 1, but the weight ring's first stages (W and its
 *     scales only, never X, bias or the workspace) are issued before the wait in every call.
 *     Correct ONLY when no kernel that may still run when the GEMV starts writes the weights or
 *     their scales: a tetra_convert_weights (or any kernel writing W) right before the GEMV on
 *     the same stream breaks it (the GEMV may read the old weights).
 * With 1 or 2, TETRA_GEMV_PDL_ALL_OFF=1 in the environment (read once per process) gives mode 0's
 * launch decisions with this build's kernels (the device A/B's control for the code alone). */
#ifndef TETRA_GEMV_PDL_ALL
#define TETRA_GEMV_PDL_ALL 1
#endif
#if TETRA_GEMV_PDL_ALL < 0 || TETRA_GEMV_PDL_ALL > 2
#error "TETRA_GEMV_PDL_ALL: 0, 1 or 2"
#endif
/* Cluster-K (gemv_nvfp4_mma<XK, IL, true>: 32-row CTAs, split-K reduced in the cluster's
 * shared memory; sm_90+): 0 never; 1 (default) where ck_auto_takes says so (runs 78-79); 2
 * wherever it can run (tests). TETRA_GEMV_CK=0 / 1 / 2 in the environment overrides it (read
 * once per process). Same bits as the ordinary kernel pinned at the same piece count (notes:
 * gemv.md, session 16; CMake: TETRA_GEMV_CLUSTER_K). */
#ifndef TETRA_GEMV_CLUSTER_K
#define TETRA_GEMV_CLUSTER_K 1
#endif
/* Cluster-K for the fragment GEMV (gemv_nvfp4_mma_frag_ck: gemv_frag_main's K loop on 32-row
 * CTAs whose 4 warps take 4 K pieces, S CTAs of a row tile in one cluster, gemv_ck_reduce;
 * sm_90+): 0 builds none of it (every other kernel's SASS is unchanged); 1 (default since
 * session 19: runs 94-95, sanitizers clean, 1.09-1.26x the ordinary fragment kernel's speed at
 * M <= 4) builds it and takes it for fragment-ordered W where ck_auto_takes says so (the
 * standard path's AUTO rule) and M <= frag_ck_max_m() (4); 2 wherever it can run (tests).
 * With 1 or 2, TETRA_GEMV_FRAG_CK=0 / 1 / 2 in the environment overrides the mode (read once
 * per process; the device A/B in one binary). Same bits as gemv_nvfp4_mma_frag pinned at the
 * same piece count (notes: fragment-layout.md, "Cluster-K for the fragment GEMV"; CMake:
 * TETRA_GEMV_FRAG_CK). */
#ifndef TETRA_GEMV_FRAG_CK
#define TETRA_GEMV_FRAG_CK 1
#endif
#if TETRA_GEMV_FRAG_CK < 0 || TETRA_GEMV_FRAG_CK > 2
#error "TETRA_GEMV_FRAG_CK: 0, 1 or 2"
#endif
/* the split rule's minimum segments per split where the grid stays >= one CTA per SM
 * (gemv_auto_splits; notes: gemv.md, session 11; CMake: TETRA_GEMV_LONG_SPLIT_SEGS) */
/* AUTO on fragment-ordered W (TETRA_SCALE_FRAGMENT_128X64) at M <= 16: 1 (default) tries the
 * GEMV (gemv_nvfp4_mma_frag) before the wgmma-T GEMM, 0 goes to the wgmma-T GEMM as before
 * (session 17's routing). TETRA_GEMV_FRAG=0 / 1 in the environment overrides it (read once
 * per process; the device A/B in one binary). Pinned TETRA_PATH_GEMV takes it either way
 * (notes: fragment-layout.md, "GEMV reader"; CMake: TETRA_GEMV_FRAG). */
#ifndef TETRA_GEMV_FRAG
#define TETRA_GEMV_FRAG 1
#endif
/* The fragment GEMV's X loads (gemv_frag_main; notes: fragment-layout.md, "X as 16-byte
 * loads"): 1 (default, run 90) builds a second K loop that reads X as 4 sixteen-byte loads per
 * token tile and segment and redistributes the words in the quad (4 SHFL + 12 selects a load),
 * taken per call where M >= TETRA_GEMV_FRAG_X16_MIN_M (environment, read once; else the
 * build's TETRA_GEMV_FRAG_X16_MIN_M), and AUTO takes the fragment GEMV up to M = 16 on sm_90
 * (the environment's TETRA_GEMV_FRAG_MAX_M=1..16 overrides it); 0 keeps session 17's 16
 * four-byte loads only, and AUTO's bound 8. Same words into the same mma in the same order:
 * same bits. Runs 90-91: 1.20 / 1.26 / 1.45x the old loop's speed at M = 8 / 12 / 16
 * (4096x14336); 0.94 / 0.96 / 0.99 / 1.03 / 1.08 / 1.14x at M = 2..7, hence the threshold 5.
 * CMake: TETRA_GEMV_FRAG_X16, TETRA_GEMV_FRAG_X16_MIN_M. */
#ifndef TETRA_GEMV_FRAG_X16
#define TETRA_GEMV_FRAG_X16 1
#endif
#if TETRA_GEMV_FRAG_X16 != 0 && TETRA_GEMV_FRAG_X16 != 1
#error "TETRA_GEMV_FRAG_X16: 0 or 1"
#endif
/* AUTO's fragment GEMV / v7 switch at 9..16 rows (tetra_gemv_frag_prefers_v7; notes:
 * gemv-switch-s25.md): 1 sends sm_90 BF16-a products the grid model puts v7 under 0.95 x the
 * GEMV to v7 (default since run 122); 0 keeps the GEMV at every M <= 16 (session 22's routing).
 * TETRA_GEMV_FRAG_V7_SWITCH=0 / 1 in the environment overrides it (read once). CMake:
 * TETRA_GEMV_FRAG_V7_SWITCH. */
#ifndef TETRA_GEMV_FRAG_V7_SWITCH
#define TETRA_GEMV_FRAG_V7_SWITCH 1
#endif
#if TETRA_GEMV_FRAG_V7_SWITCH != 0 && TETRA_GEMV_FRAG_V7_SWITCH != 1
#error "TETRA_GEMV_FRAG_V7_SWITCH: 0 or 1"
#endif
/* the X16 threshold where the environment sets none (CMake: TETRA_GEMV_FRAG_X16_MIN_M; 99 builds
 * a control whose X16 loop never runs, for a one-process A/B through tetra bench --lib-b) */
#ifndef TETRA_GEMV_FRAG_X16_MIN_M
#define TETRA_GEMV_FRAG_X16_MIN_M 5 /* run 91: the new loop is faster from M = 5 (1.026x), slower at 2-4 */
#endif
#ifndef TETRA_GEMV_LONG_SPLIT_SEGS
#define TETRA_GEMV_LONG_SPLIT_SEGS 10
#endif

namespace {

enum {
    GEMV_WARPS = 4,
    GEMV_THREADS = GEMV_WARPS * TETRA_WARP,
    GEMV_ROWS_PER_WARP = 32, /* two 16-row A tiles */
    GEMV_ROWS_PER_CTA = GEMV_WARPS * GEMV_ROWS_PER_WARP,
    GEMV_SEG_K = 128,        /* K elements per warp step: 4 threads x 32 elements */
    GEMV_MAX_M = 16,
    GEMV_MIN_SEGS_PER_SPLIT = 2, /* version 1's: more, shorter CTAs where N is small (notes: v2 regression) */
    GEMV_STAGES = 4,         /* cp.async ring depth per warp: 3 segments in flight */
    /* Split-K reduce: the last CTA of a tile sums in-kernel up to this many splits; more
     * splits go to gemv_splitk_reduce (a second launch), whose cost does not grow with S
     * or M (notes: v2 regression) */
    GEMV_LAST_CTA_MAX_SPLITS = 2,
    /* independent mma accumulator chains per tile (1: one chain of 8 per segment; 2: two of
     * 4, summed after the K loop); an experiment switch, notes: session 4 */
    GEMV_ACC_SETS = TETRA_GEMV_ACC_SETS,
    GEMV_FRAG_BLOCK = 4096,  /* bytes of one TETRA_SCALE_FRAGMENT_128X64 block (128 rows x 64 K) */
    /* TETRA_GEMV_FRAG_X16: the smallest M whose fragment GEMV reads X as 16-byte words by
     * default (2: at M = 1 only one quad loads, the 4-byte loads are already cheap) */
    GEMV_FRAG_X16_MIN_M = TETRA_GEMV_FRAG_X16_MIN_M
};

/* Which activation operand: decides the tensor-core type (bf16 for BF16 X, f16 else). */
enum { X_BF16 = 0, X_FP16 = 1, X_NVFP4 = 2 };

struct gemv_params {
    const uint8_t *w, *w_scales;
    int64_t w_row_bytes, w_batch_bytes, w_scale_ld, w_scale_batch;
    int w_swizzled;
    int w_il;            /* W in TETRA_SCALE_INTERLEAVED_32X128: w_batch_bytes is its batch
                          * size, w_scales unused, flags at w_flags_off */
    int64_t w_flags_off, w_il_nseg; /* w_il_nseg = ceil(K / 128) for any K (scalar kernel) */
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
    float *partial; /* [L][tiles][splits][16][128] FP32 when splits > 1 */
    unsigned long long *counters; /* [L][tiles] arrival counters for the last-CTA reduce;
                                   * NULL: gemv_splitk_reduce sums the partials */
    unsigned long long tag;       /* this launch's counter tag (bits 24..63) */
    int splits;
    int m;
    int64_t n, k, nkb;
    int nseg;        /* segments of K: K / 128 (standard W), ceil(K / 128) (interleaved W) */
    int x_full_segs; /* K / 128: segments whose X words all lie below K */
#if TETRA_GEMV_FRAG_X16
    int x16;         /* gemv_nvfp4_mma_frag: 1 reads X as 16-byte words (gemv_frag_main) */
#endif
#if TETRA_GEMV_PDL_ALL == 1
    int wait_first;  /* 1: griddepcontrol.wait before the weight ring's prologue (every call but
                      * the W4A4 chain's: gemv_launch_dependent) */
#endif
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

/* (the dequantization, scale pairs and cp.async copies are in gemv_warp.cuh) */

template <int XK> struct gemv_operand;
/* BF16 operands carry 2^-7 each (see dequant_bf16), FP16 weights 2^-14 (dequant_fp16) */
template <> struct gemv_operand<X_BF16> { static constexpr float pow2 = 128.0f; };        /* 2^7 */
template <> struct gemv_operand<X_FP16> { static constexpr float pow2 = 16384.0f; };      /* 2^14 */
template <> struct gemv_operand<X_NVFP4> { static constexpr float pow2 = 16384.0f; };     /* 2^7 * 2^7 */

/* Bit 7 of a byte of the result is set when that scale byte is the NaN code 0x7F or has
 * its sign bit set (not UE4M3): OR-accumulated, tested once at the end. */
__device__ __forceinline__ uint32_t nan_flags(uint32_t acc, uint32_t s4) {
    return acc | ((s4 & 0x7F7F7F7Fu) + 0x01010101u) | s4;
}

/* The standard layout's 4-byte scale words (cp.async.ca: they stay in L1). */
__device__ __forceinline__ void cp_async4(uint32_t dst, const void *src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src) : "memory");
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

/* Per warp and pipeline stage: the 16-byte weight chunks of its 4 rows and the 4-byte
 * scale words holding blocks 4*(t/2) .. +3 of each row, one slot per lane. */
struct gemv_stage {
    uint4 w[4][TETRA_WARP];
    uint32_t s[4][TETRA_WARP];
};

/* After the K loop: accumulator set j > 0 added into set 0 (GEMV_ACC_SETS), and the quad's
 * NaN-row flags ORed (its four lanes saw different scale words of the same rows); shared by
 * the mma kernels' epilogues. */
__device__ __forceinline__ void sum_acc_sets(float (&acc)[2][2][GEMV_ACC_SETS][4]) {
#pragma unroll
    for (int a = 0; a < 2; a++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int j = 1; j < GEMV_ACC_SETS; j++)
#pragma unroll
                for (int c = 0; c < 4; c++) acc[a][h][0][c] += acc[a][h][j][c];
}
__device__ __forceinline__ uint32_t quad_or(uint32_t bad) {
    bad |= __shfl_xor_sync(0xFFFFFFFFu, bad, 1);
    return bad | __shfl_xor_sync(0xFFFFFFFFu, bad, 2);
}

/* ---------------------------------------------------------------- cluster-K reduce */

/* Thread-block-cluster primitives (sm_90+; the host launches cluster-K only there).
 * barrier.cluster: every thread of every CTA of the cluster; release/acquire order the
 * shared-memory stores before it against the peers' loads after it. */
template <bool RELEASE> __device__ __forceinline__ void ck_cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __syncwarp(); /* the .aligned forms: every thread of the warp executes the same barrier */
    if (RELEASE)
        asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    else
        asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
#endif
}
/* The float at shared address `a` (this CTA's window) in cluster CTA `rank`'s shared memory. */
__device__ __forceinline__ float ck_load_remote(uint32_t a, uint32_t rank) {
    float v = 0.0f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(r) : "memory");
#endif
    return v;
}

enum {
    GEMV_CK_MAX_S = 16,  /* CTAs per cluster (above 8: the non-portable cluster size) */
    GEMV_CK_LOADS = 32   /* remote loads in flight per thread before they are added */
};

/*
 * Cluster-K epilogue (gemv_nvfp4_mma<XK, IL, true>). The cluster is the S = gridDim.y CTAs of
 * one 32-row tile (cluster rank = blockIdx.y); piece q = 4 * rank + warp holds the warp's
 * FP32 partial of rows r0 .. r0 + 31, the same value the ordinary mapping writes for split q
 * of P = 4S (NaN rows included). Each warp writes it into its own ring (idle after the K
 * loop: cp_async_wait<0> was the last wait), floats [m * 32 + row], m < M only; one cluster
 * barrier; then the M x 32 outputs are spread over the cluster's S x 128 threads, and the
 * thread of output (m, row) loads piece 0 .. P-1's value (up to GEMV_CK_LOADS in flight) and
 * adds them in that order exactly as tetra_splitk_sum does (v = x0, v = v + xj), so Y has
 * the bits of the ordinary kernel pinned at P splits (its reduce sums split order 0..P-1).
 * A second cluster barrier keeps every CTA's shared memory alive until the peers' loads are
 * done; relaxed (no release fence: it orders nothing, and a release would wait for the Y
 * stores): a thread's loads have returned before it arrives, since its Y store (issued
 * before the barrier) uses their sum. No global workspace, no second kernel. Rows: r0 =
 * blockIdx.x * 32, recomputed here (not kept live through the K loop).
 */
template <int XK>
__device__ __forceinline__ void gemv_ck_reduce(const gemv_params &p, gemv_stage *ring,
                                               const float (&acc)[2][2][GEMV_ACC_SETS][4],
                                               uint32_t bad) {
    const int64_t r0 = (int64_t)blockIdx.x * GEMV_ROWS_PER_WARP;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int64_t l = blockIdx.z;
    const float nan = __int_as_float(0x7FC00000);
    constexpr uint32_t ring_bytes = GEMV_STAGES * sizeof(gemv_stage); /* one warp's */
    static_assert(GEMV_MAX_M * GEMV_ROWS_PER_WARP * sizeof(float) <= ring_bytes, "partial fits the ring");
    /* every lane's ring loads of the K loop are done before any lane overwrites the ring */
    __syncwarp();
    float *mine = (float *)&ring[warp * GEMV_STAGES];
#pragma unroll
    for (int at = 0; at < 2; at++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int c = 0; c < 4; c++) {
                const int rl = 16 * at + g + 8 * (c >> 1);
                const int m = 8 * h + 2 * t + (c & 1);
                if (m >= p.m) continue;
                mine[m * GEMV_ROWS_PER_WARP + rl] =
                    bad & (0x80808080u >> (2 * at + (c >> 1))) ? nan : acc[at][h][0][c];
            }
    ck_cluster_sync<true>();
    const int S = (int)gridDim.y, P = 4 * S;
    const uint32_t base = smem_u32(ring);
    for (int o = (int)blockIdx.y * GEMV_THREADS + (int)threadIdx.x; o < p.m * GEMV_ROWS_PER_WARP;
         o += S * GEMV_THREADS) {
        const int m = o / GEMV_ROWS_PER_WARP, rl = o % GEMV_ROWS_PER_WARP;
        const int64_t n = r0 + rl;
        if (n >= p.n) continue;
        const uint32_t a = base + (uint32_t)(m * GEMV_ROWS_PER_WARP + rl) * 4u;
        float v = 0.0f;
        for (int k0 = 0; k0 < P; k0 += GEMV_CK_LOADS) {
            float x[GEMV_CK_LOADS];
#pragma unroll
            for (int j = 0; j < GEMV_CK_LOADS; j++) {
                const int q = k0 + j;
                x[j] = q < P ? ck_load_remote(a + (uint32_t)(q & 3) * ring_bytes, (uint32_t)(q >> 2)) : 0.0f;
            }
#pragma unroll
            for (int j = 0; j < GEMV_CK_LOADS; j++)
                if (k0 + j < P) v = k0 + j == 0 ? x[j] : v + x[j];
        }
        gemv_store(p, l, m, n, v, gemv_operand<XK>::pow2);
    }
    ck_cluster_sync<false>();
}

/* ---------------------------------------------------------------- fragment-ordered W */

/*
 * The K loop of gemv_nvfp4_mma<X_BF16, false, false, true> (FR): W in
 * TETRA_SCALE_FRAGMENT_128X64 (src/format/nvfp4_codec.h; docs/notes/fragment-layout.md,
 * "GEMV reader"), BF16 X. The CTA's 128 rows are one fragment row block; warp q's 32 rows are
 * the 16-row groups at block bytes 1024 q (rows 32q..32q+15) and 1024 q + 512 (rows
 * 32q+16..32q+31), and lane (g, t)'s 16 bytes of a group's K-tile (at + 16 lane) are that
 * tile's four k16 steps, word s = step s, slot j of the word = register j of the m16n8k16 A
 * fragment (j = 0: row g, k 2t..2t+1; 1: row g+8; 2: row g, k 2t+8..2t+9; 3: row g+8), so a
 * word is one mma step's A operand after 9 integer instructions and 4 HMUL2s.
 * A segment (128 K) = K-tiles kt0 = 2 seg and kt1 = 2 seg + 1 (blocks 4096 bytes apart);
 * lane copies 4 x 16 bytes into w[0..3][lane] = (kt0, group 0), (kt0, group 1), (kt1, group
 * 0), (kt1, group 1) (each warp instruction: 512 contiguous bytes), and the two scale words
 * (kt0, kt1; 4 block scales each) of its quad's row g + 8t into s[0][lane], s[1][lane].
 * Scales: lane t turns its own row's words into BF16 pairs (steps 0-1, 2-3 of each K-tile;
 * scale_pair2, the standard kernel's convention, so the epilogue's 2^7 holds), writes them
 * to s[2 kt + p][lane] (its own slots: no lane reads another's raw words), and after one
 * __syncwarp every lane reads its quad's four rows of (kt, p) as one 16-byte word
 * s[2 kt + p][4g .. 4g + 3]; the HMUL2s take a pair's half as (s, s) (half_bcast, folded).
 * The __syncwarp also orders every lane's reads of the stage refilled right after it (read
 * one iteration earlier) before the refill's copies. NaN flags: each lane checks its own
 * row's raw words, the epilogue's quad OR spreads them. X: B fragment of step s' (0..7 in the
 * segment) for token g = X[g][16 s' + 2t, +1] and X[g][16 s' + 2t + 8, +9], two 32-bit loads
 * (natural k order, fixed by the layout), loaded one segment ahead into the registers the
 * step just left. Accumulation order per output: K-tiles, steps 0..3 in natural order.
 * Row mapping: the warp's row block rb and group pair q (rows 128 rb + 32 q .. + 31): the
 * ordinary kernel (CK false) rb = blockIdx.x, q = warp; cluster-K (CK, gemv_nvfp4_mma_frag_ck:
 * 32-row CTAs) rb = blockIdx.x / 4, q = blockIdx.x % 4, the same for the CTA's 4 warps, which
 * take 4 K pieces [seg_begin, seg_end) of those rows. CK: no programmatic trigger (no reduce
 * kernel follows).
 */
template <int XK, bool CK = false>
__device__ __forceinline__ void gemv_frag_main(const gemv_params &p, gemv_stage *my, int seg_begin, int seg_end,
                                               bool two_tiles, float (&acc)[2][2][GEMV_ACC_SETS][4],
                                               uint32_t &bad) {
    static_assert(XK == X_BF16, "fragment W: BF16 X only");
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int64_t l = blockIdx.z;
    const int64_t nkt = p.nkb / 4; /* K-tiles of 64 (K % 128 == 0) */
    const int64_t rb = CK ? (int64_t)(blockIdx.x >> 2) : (int64_t)blockIdx.x; /* fragment row block */
    const int q = CK ? (int)(blockIdx.x & 3u) : warp;                          /* group pair */
    const int64_t tile0 = rb * nkt + 2 * (int64_t)seg_begin;
    const uint8_t *wsrc = p.w + l * p.w_batch_bytes + tile0 * GEMV_FRAG_BLOCK + 1024 * q + 16 * lane;
    /* swizzled 128x4 scales: K-tile kt of row r at 512 * ((r / 128) * nkt + kt) + 16 * (r % 32)
     * + 4 * ((r % 128) / 32); here r % 32 = g + 8t, (r % 128) / 32 = q */
    const uint8_t *ssrc = p.w_scales + l * p.w_scale_batch + tile0 * TETRA_SWIZZLE_ATOM + 16 * (g + 8 * t) + 4 * q;
    const uint32_t ring_base = smem_u32(&my[0].w[0][lane]);
    const uint32_t s_off = (uint32_t)((uint8_t *)&my[0].s[0][lane] - (uint8_t *)&my[0].w[0][lane]);
    constexpr uint32_t stage_bytes = sizeof(gemv_stage);
    constexpr uint32_t wrow_bytes = 16 * TETRA_WARP, srow_bytes = 4 * TETRA_WARP;
    auto issue = [&](int slot) {
        const uint32_t base = ring_base + (uint32_t)slot * stage_bytes;
        cp_async16(base, wsrc);
        cp_async16(base + wrow_bytes, wsrc + 512);
        cp_async16(base + 2 * wrow_bytes, wsrc + GEMV_FRAG_BLOCK);
        cp_async16(base + 3 * wrow_bytes, wsrc + GEMV_FRAG_BLOCK + 512);
        cp_async4(base + s_off, ssrc);
        cp_async4(base + s_off + srow_bytes, ssrc + TETRA_SWIZZLE_ATOM);
        wsrc += 2 * GEMV_FRAG_BLOCK;
        ssrc += 2 * TETRA_SWIZZLE_ATOM;
    };

#pragma unroll
    for (int a = 0; a < 2; a++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int j = 0; j < GEMV_ACC_SETS; j++)
#pragma unroll
                for (int c = 0; c < 4; c++) acc[a][h][j][c] = 0.0f;
    uint32_t fl = 0u; /* nan_flags of this lane's row g + 8t */

    const int nseg = seg_end - seg_begin;
#if TETRA_GEMV_PDL_ALL == 1
    if (p.wait_first) tetra_pdl_wait(); /* as in the standard kernel: not the W4A4 chain */
#endif
#pragma unroll
    for (int j = 0; j < GEMV_STAGES - 1; j++) {
        if (j < nseg) issue(j);
        cp_async_commit();
    }
    tetra_pdl_wait(); /* as in the standard kernel: X may come from the W4A4 staging pass */
#if TETRA_GEMV_PDL_ALL
    tetra_pdl_trigger(); /* as in the standard kernel: every CTA, cluster-K too */
#elif TETRA_GEMV_PDL_REDUCE
    if (!CK && p.splits > 1 && !p.counters) tetra_pdl_trigger();
#endif

    /* activation rows g and g + 8: rows past M never load (their operand stays zero) */
    bool xon[2];
    xon[0] = g < p.m;
    xon[1] = g + 8 < p.m;
    const uint8_t *xnext = p.x + l * p.x_batch_bytes + (int64_t)(xon[0] ? g : 0) * p.x_row_bytes +
                           (int64_t)seg_begin * 256 + 4 * t;
    const int64_t x8 = 8 * p.x_row_bytes; /* row g + 8 (M > 8 only, so row g exists) */
    /* xf[h][s'][0..1]: the B fragment of step s' of the next segment to use */
    uint32_t xf[2][8][2];
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int s = 0; s < 8; s++) xf[h][s][0] = xf[h][s][1] = 0u;
    auto load_x = [&](int h, int s, bool on) {
        if (!on) return;
        const uint8_t *src = xnext + (h ? x8 : 0) + 32 * s;
        xf[h][s][0] = __ldg((const unsigned int *)src);
        xf[h][s][1] = __ldg((const unsigned int *)(src + 16));
    };

#if TETRA_GEMV_FRAG_X16
    /* X16 (p.x16): the quad of token g reads the segment's 256 bytes of its row as 16 chunks
     * of 16 bytes, chunk q = words 4q .. 4q + 3, word 4q + i being lane t = i's (step q / 2,
     * pair q % 2). Round r = 0..3: lane t loads chunk 4r + t into xr[h][r] (one segment
     * ahead, like xf above); the quad then holds the 4x4 word matrix V[t][i] and lane t needs
     * column t (chunks 4r .. 4r + 3 in order = xf[h][2r][0..1], xf[h][2r + 1][0..1]).
     * x16_transpose: two butterfly stages (xor 2, then xor 1), each lane sending 2 words a
     * stage, picked with selects on t's bits so that the shuffled registers are the same by
     * name in every lane: 4 SHFL + 12 selects a round. Rows past M never load: their xr stay
     * zero and, shuffled only inside the quad (same g), give zero operands. Every lane of
     * the warp takes part in the shuffles (the K loop is warp-uniform). */
    const bool tb0 = (t & 1) != 0;
    const bool tb1 = (t & 2) != 0;
    uint4 xr[2][4];
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int r = 0; r < 4; r++) xr[h][r] = make_uint4(0u, 0u, 0u, 0u);
    const int x16_off = 12 * t; /* xnext holds 4t: lane t's chunk is at 16t */
    auto load_x16 = [&](int h, int r, bool on) {
        if (!on) return;
        xr[h][r] = __ldg((const uint4 *)(xnext + x16_off + (h ? x8 : 0) + 64 * r));
    };
    auto x16_transpose = [&](int h, int r) {
        const uint4 v = xr[h][r]; /* V[t][0..3] */
        /* xor 2: keep columns 2 tb1, 2 tb1 + 1, send the other two */
        const uint32_t s0 = tb1 ? v.x : v.z, s1 = tb1 ? v.y : v.w;
        const uint32_t r0 = __shfl_xor_sync(0xFFFFFFFFu, s0, 2), r1 = __shfl_xor_sync(0xFFFFFFFFu, s1, 2);
        /* rows tb0 (lo) and 2 + tb0 (hi), columns 2 tb1 + e */
        const uint32_t lo0 = tb1 ? r0 : v.x, lo1 = tb1 ? r1 : v.y;
        const uint32_t hi0 = tb1 ? v.z : r0, hi1 = tb1 ? v.w : r1;
        /* xor 1: keep column 2 tb1 + tb0 = t, send column 2 tb1 + 1 - tb0 of both rows */
        const uint32_t slo = tb0 ? lo0 : lo1, shi = tb0 ? hi0 : hi1;
        const uint32_t qlo = __shfl_xor_sync(0xFFFFFFFFu, slo, 1), qhi = __shfl_xor_sync(0xFFFFFFFFu, shi, 1);
        /* qlo: row 1 - tb0, qhi: row 3 - tb0 (column t) */
        xf[h][2 * r][0] = tb0 ? qlo : lo0;
        xf[h][2 * r][1] = tb0 ? lo1 : qlo;
        xf[h][2 * r + 1][0] = tb0 ? qhi : hi0;
        xf[h][2 * r + 1][1] = tb0 ? hi1 : qhi;
    };
#endif

    auto k_loop = [&](auto two_const, auto x16_const) {
        constexpr bool TWO = decltype(two_const)::value;
        constexpr bool X16 = decltype(x16_const)::value;
        constexpr int NT = TWO ? 2 : 1;
#if TETRA_GEMV_FRAG_X16
        if constexpr (X16) {
#pragma unroll
            for (int h = 0; h < NT; h++)
#pragma unroll
                for (int r = 0; r < 4; r++) load_x16(h, r, xon[h] && seg_begin < seg_end);
        } else
#endif
        {
#pragma unroll
            for (int h = 0; h < NT; h++)
#pragma unroll
                for (int s = 0; s < 8; s++) load_x(h, s, xon[h] && seg_begin < seg_end);
        }
        xnext += 256;
        int slot = 0;
        for (int seg = seg_begin; seg < seg_end; seg++) {
            cp_async_wait<GEMV_STAGES - 2>(); /* this lane's copies of this segment have landed */
            gemv_stage &st = my[slot];
            uint4 wraw[4];
#pragma unroll
            for (int i = 0; i < 4; i++) wraw[i] = st.w[i][lane];
            const uint32_t c0 = st.s[0][lane], c1 = st.s[1][lane];
            fl = nan_flags(nan_flags(fl, c0), c1);
            st.s[0][lane] = scale_pair2<true>(prmt(c0, 0u, 0x4140u)); /* (kt0: steps 0, 1) */
            st.s[1][lane] = scale_pair2<true>(prmt(c0, 0u, 0x4342u)); /* (kt0: steps 2, 3) */
            st.s[2][lane] = scale_pair2<true>(prmt(c1, 0u, 0x4140u));
            st.s[3][lane] = scale_pair2<true>(prmt(c1, 0u, 0x4342u));
            /* the quad's pairs are visible to it; every lane's reads of the stage refilled
             * below (read one iteration ago) come before the refill */
            __syncwarp();
            {
                const int refill = slot == 0 ? GEMV_STAGES - 1 : slot - 1;
                if (seg + GEMV_STAGES - 1 < seg_end) issue(refill);
                cp_async_commit();
            }
            const bool more = seg + 1 < seg_end;
#pragma unroll
            for (int kt = 0; kt < 2; kt++) {
                /* sp[p]: rows g, g+8, g+16, g+24 (x, y, z, w) x steps (2p, 2p+1) of this K-tile */
                const uint4 sp[2] = {*(const uint4 *)&st.s[2 * kt][4 * g], *(const uint4 *)&st.s[2 * kt + 1][4 * g]};
#pragma unroll
                for (int s = 0; s < 4; s++) {
#if TETRA_GEMV_FRAG_X16
                    if constexpr (X16) {
                        /* round 2 kt + s / 2: steps 4 kt + s, + 1 of this segment from the
                         * chunks loaded one segment ago; then the next segment's chunks */
                        if ((s & 1) == 0) {
#pragma unroll
                            for (int h = 0; h < NT; h++) {
                                x16_transpose(h, 2 * kt + (s >> 1));
                                load_x16(h, 2 * kt + (s >> 1), more && xon[h]);
                            }
                        }
                    }
#endif
#pragma unroll
                    for (int at = 0; at < 2; at++) {
                        const uint32_t x = word_of(wraw[2 * kt + at], s);
                        const uint32_t pr0 = word_of(sp[s >> 1], 2 * at), pr1 = word_of(sp[s >> 1], 2 * at + 1);
                        const uint32_t sc0 = (s & 1) ? half_bcast<1, true>(pr0) : half_bcast<0, true>(pr0);
                        const uint32_t sc1 = (s & 1) ? half_bcast<1, true>(pr1) : half_bcast<0, true>(pr1);
                        const uint32_t a0 = mul_bf16x2(tetra_frag_slot_bits(x, 0), sc0);
                        const uint32_t a1 = mul_bf16x2(tetra_frag_slot_bits(x, 1), sc1);
                        const uint32_t a2 = mul_bf16x2(tetra_frag_slot_bits(x, 2), sc0);
                        const uint32_t a3 = mul_bf16x2(tetra_frag_slot_bits(x, 3), sc1);
                        const int set = (4 * kt + s) % GEMV_ACC_SETS;
                        mma_16816<true>(acc[at][0][set], a0, a1, a2, a3, xf[0][4 * kt + s][0], xf[0][4 * kt + s][1]);
                        if (TWO)
                            mma_16816<true>(acc[at][1][set], a0, a1, a2, a3, xf[1][4 * kt + s][0],
                                            xf[1][4 * kt + s][1]);
                    }
                    if constexpr (!X16) {
#pragma unroll
                        for (int h = 0; h < NT; h++) load_x(h, 4 * kt + s, more && xon[h]);
                    }
                }
            }
            xnext += 256;
            slot = slot == GEMV_STAGES - 1 ? 0 : slot + 1;
        }
    };
#if TETRA_GEMV_FRAG_X16
    if (p.x16) {
        if (two_tiles) k_loop(std::true_type{}, std::true_type{});
        else k_loop(std::false_type{}, std::true_type{});
    } else
#endif
    if (two_tiles) k_loop(std::true_type{}, std::false_type{});
    else k_loop(std::false_type{}, std::false_type{});
    /* row g + 8t's flags to its bit (7 - t of each byte); the epilogue ORs the quad */
    bad = (fl & 0x80808080u) >> t;
}

/*
 * The mma kernel. CTA = 4 warps = 128 weight rows; blockIdx.y = split of K (contiguous
 * 128-element segments), blockIdx.z = batch. Lane (g = lane/4, t = lane%4) of a warp owns
 * weight rows r0 + g + 8i (i = 0..3: A tile 0 holds i = 0,1, A tile 1 holds i = 2,3) and,
 * in each segment, the 32 K elements [32t, 32t+32): one 16-byte chunk per row. Word q of that
 * chunk (K 8q..8q+7) yields pairs (n_i, n_{i+4}); mma step (q, a) with a in {0, 2} takes pair
 * a for logical K (2t, 2t+1) and pair a+1 for (2t+8, 2t+9). The activation fragment of row
 * m = g (and g + 8) uses the same K assignment, so both operands agree on every K index.
 * Weights and their scales stream through a GEMV_STAGES-deep cp.async ring per warp (each
 * lane reads back only what it copied: no barrier), so GEMV_STAGES - 1 segments are in
 * flight while one is dequantized.
 */
template <int XK, bool IL, bool CK = false>
__global__ void __launch_bounds__(GEMV_THREADS, 4) gemv_nvfp4_mma(const gemv_params p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    if constexpr (CK) return; /* cluster-K is sm_90+ code: the host never launches it here */
#endif
    constexpr bool BF16 = XK != X_FP16;
    constexpr bool FOLD_HALVES = IL && TETRA_GEMV_HALF_SELECT;
    __shared__ gemv_stage ring[GEMV_WARPS][GEMV_STAGES];
    __shared__ int last_cta;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int64_t l = blockIdx.z;
    /* cluster-K (CK): the CTA's 4 warps share one 32-row tile and take pieces 4 * blockIdx.y
     * + warp of p.splits = 4 * gridDim.y, so each warp's K range is the one the ordinary
     * mapping gives split `split` of p.splits (the same partial, bit for bit) */
    const int split = CK ? 4 * (int)blockIdx.y + __shfl_sync(0xFFFFFFFFu, warp, 0) : (int)blockIdx.y;
    const int64_t r0 = CK ? (int64_t)blockIdx.x * GEMV_ROWS_PER_WARP
                          : (int64_t)blockIdx.x * GEMV_ROWS_PER_CTA + warp * GEMV_ROWS_PER_WARP;
    int seg_begin = (int)((int64_t)split * p.nseg / p.splits);
    int seg_end = (int)((int64_t)(split + 1) * p.nseg / p.splits);
    if (CK) {
        /* lane-0 broadcasts (same values): ptxas then keeps the warp's bounds and loop counter
         * in uniform registers, as it does the ordinary kernel's CTA-uniform ones; without them
         * the standard-W BF16 / FP16 cluster-K kernels spilled 140-180 bytes (sm_90a) */
        seg_begin = __shfl_sync(0xFFFFFFFFu, seg_begin, 0);
        seg_end = __shfl_sync(0xFFFFFFFFu, seg_end, 0);
    }
    const bool two_tiles = p.m > 8; /* warp-uniform */

    /* global sources of this lane, advanced by one segment per copy */
    const uint8_t *wsrc[4], *ssrc[4];
    /* interleaved W: one source, this warp's block of segment seg_begin plus the lane's
     * chunk; the lane pair's 16 scale bytes are il_soff from it */
    const uint8_t *ilsrc = nullptr;
    int il_soff = 0;
    if (IL) {
        ilsrc = p.w + l * p.w_batch_bytes +
                ((r0 / TETRA_IL_ROWS) * p.nseg + seg_begin) * (int64_t)TETRA_IL_BLOCK_BYTES + 16 * lane;
        il_soff = TETRA_IL_SCALE_OFF + 16 * (lane >> 1) - 16 * lane;
    } else {
    const uint8_t *w_scales = p.w_scales + l * p.w_scale_batch;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int64_t r = r0 + g + 8 * i;
        if (r >= p.n) r = p.n - 1; /* rows past N read a valid row; results are dropped */
        wsrc[i] = p.w + l * p.w_batch_bytes + r * p.w_row_bytes + 16 * t +
                  (int64_t)seg_begin * 64;
        ssrc[i] = w_scales + scale_rowpart(p.w_swizzled, r, p.nkb, p.w_scale_ld) +
                  (scale_kpart(p.w_swizzled, seg_begin, t) & ~(int64_t)3);
    }
    }
    const int64_t s_step = p.w_swizzled ? 1024 : 8;
    /* which halfword of the scale word is this lane's (blocks 2t, 2t+1), spread to bits
     * 0-7 and 16-23 */
    const uint32_t s_sel_lo = (t & 1) ? 0x4342u : 0x4140u;

    gemv_stage *my = ring[warp];
    const uint32_t ring_base = smem_u32(&my[0].w[0][lane]);
    /* interleaved W: the lane's 16 scale bytes go to its own 16-byte slot of s */
    const uint32_t w_off = 0,
                   s_off = IL ? (uint32_t)((uint8_t *)&my[0].s[0][0] - (uint8_t *)&my[0].w[0][0])
                              : (uint32_t)((uint8_t *)&my[0].s[0][lane] - (uint8_t *)&my[0].w[0][lane]);
    constexpr uint32_t stage_bytes = sizeof(gemv_stage);
    constexpr uint32_t wrow_bytes = 16 * TETRA_WARP, srow_bytes = 4 * TETRA_WARP;

    auto issue = [&](int slot) {
        const uint32_t base = ring_base + (uint32_t)slot * stage_bytes;
        if (IL) { /* 4 x 512 contiguous bytes per warp instruction, then the scales */
#pragma unroll
            for (int i = 0; i < 4; i++) cp_async16(base + w_off + i * wrow_bytes, ilsrc + 512 * i);
            cp_async16(base + s_off, ilsrc + il_soff);
            ilsrc += TETRA_IL_BLOCK_BYTES;
        } else {
#pragma unroll
            for (int i = 0; i < 4; i++) {
                cp_async16(base + w_off + i * wrow_bytes, wsrc[i]);
                cp_async4(base + s_off + i * srow_bytes, ssrc[i]);
                wsrc[i] += 64;
                ssrc[i] += s_step;
            }
        }
    };

    /* activation rows g and g + 8 of this lane. Rows past M read row 0 (a valid address)
     * under a false predicate, i.e. not at all: their operand stays zero. */
    const uint8_t *xrow[2];
    bool xon[2];
    int64_t xsrow[2];
    const uint8_t *x_scales = p.x_scales ? p.x_scales + l * p.x_scale_batch : nullptr;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        int m = g + 8 * h;
        xon[h] = m < p.m;
        xrow[h] = p.x + l * p.x_batch_bytes + (int64_t)(xon[h] ? m : 0) * p.x_row_bytes;
        xsrow[h] = XK == X_NVFP4 ? scale_rowpart(p.x_swizzled, xon[h] ? m : 0, p.nkb, p.x_scale_ld) : 0;
    }

    /* GEMV_ACC_SETS independent accumulators per (A tile, n tile); set j takes the mma steps
     * of words q with q % GEMV_ACC_SETS == j (the same for every M) and the sets are added
     * in order 0, 1, .. after the K loop */
    float acc[2][2][GEMV_ACC_SETS][4];
#pragma unroll
    for (int a = 0; a < 2; a++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int j = 0; j < GEMV_ACC_SETS; j++)
#pragma unroll
                for (int c = 0; c < 4; c++) acc[a][h][j][c] = 0.0f;
    /* NaN flags of the lane's 4 rows in one register: row i at bit 7 - i of each byte
     * (one register instead of four: the K loop is at the register cap) */
    uint32_t bad = 0u;

    const int nseg = seg_end - seg_begin;
    /* X is loaded ahead only for segments below x_end; the interleaved layout's last
     * segment may be partial (K % 128 != 0), and tail_load_x loads it word by word when
     * it comes (a warp-uniform branch per segment; standard W: x_end = seg_end) */
    const int x_end = IL ? (seg_end < p.x_full_segs ? seg_end : p.x_full_segs) : seg_end;
#if TETRA_GEMV_PDL_ALL == 1
    /* TETRA_GEMV_PDL_ALL 1: launched as a programmatic dependent in every call; outside the
     * W4A4 chain (wait_first, uniform) the previous kernel may still write W, its scales, X,
     * bias or the workspace, so every thread waits here, before its first global read (the
     * setup above only computes addresses from the parameters) */
    if (p.wait_first) tetra_pdl_wait();
#endif
#pragma unroll
    for (int j = 0; j < GEMV_STAGES - 1; j++) {
        if (j < nseg) issue(j);
        cp_async_commit();
    }
    /* launched after the W4A4 staging pass (p.pdl): the weight ring above fills while
     * that pass writes X; nothing written by an earlier kernel is read before this
     * (TETRA_GEMV_PDL_ALL 2: in every call: correct only where no kernel still running
     * writes the weights; 1: outside the W4A4 chain this wait returns at once, the one
     * above has waited) */
    tetra_pdl_wait();
#if TETRA_GEMV_PDL_ALL
    /* TETRA_GEMV_PDL_ALL: the next kernel on the stream, if launched as a programmatic
     * dependent (the next GEMV, v7, the split-K reduce), may be scheduled now. It is placed
     * only once every CTA of this grid has triggered or exited (so all of this grid's CTAs are
     * resident or done: it takes no slot from a later wave of this grid), and its own
     * griddepcontrol.wait returns only after this whole grid has completed and its memory
     * operations are visible, so Y, the partials and the counters are safe. Kernels launched
     * without the attribute start after this grid completes, as before. Every CTA, cluster-K
     * too; it covers the split-K reduce's trigger below. */
    tetra_pdl_trigger();
#elif TETRA_GEMV_PDL_REDUCE
    /* gemv_splitk_reduce follows as a programmatic dependent: let it be scheduled now. It
     * is placed only once every CTA of this grid has triggered (all are resident or done, so
     * it takes no slot from a later wave) and reads nothing before this grid has completed.
     * Grid-uniform; no trigger where no reduce follows, so no later kernel is released early
     * by this one. Here rather than at the very top: same effect (the ring's prologue is a
     * few hundred cycles), and the K loops' SASS stays main's (notes: gemv.md, session 10). */
    if (!CK && p.splits > 1 && !p.counters) tetra_pdl_trigger();
#endif

    /* The activations are loaded one segment ahead: dense X word by word (the raw words of
     * word q for segment s + 1 are loaded right after segment s's mma steps of word q, into
     * the registers word q just left, and permuted right before they are used), NVFP4 X as a
     * whole (loaded halfway through segment s, dequantized at the top of s + 1). The load's
     * L1/L2 round trip then overlaps a segment's work instead of stalling the warp before its
     * first dequantization, at no extra registers (notes: session 4). Predicated loads, no
     * branch, so the scheduler is free to place them. */
    constexpr int XW = XK == X_NVFP4 ? 1 : 4;
    /* dense X: this lane's 64 bytes of the next segment of row g (advanced by a segment
     * per load); row g + 8 (M > 8 only, so row g exists) is 8 rows further. One pointer:
     * per-row or per-word pointers would cost registers the M > 8 loop does not have. */
    const uint8_t *xnext = xrow[0] + (int64_t)seg_begin * 256 + 64 * t;
    uint4 xraw[2][XW];
    uint32_t xsraw[2] = {0u, 0u};
    /* rows past M never load: their raw words keep these zeros (zero B columns) */
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int q = 0; q < XW; q++) xraw[h][q] = make_uint4(0u, 0u, 0u, 0u);
    auto load_x = [&](int h, int q, int seg, bool on) {
        if (!on) return; /* past M, or past the split's last segment (words then unused) */
        if (XK == X_NVFP4) {
            xraw[h][0] = __ldg((const uint4 *)(xrow[h] + (int64_t)seg * 64 + 16 * t));
            xsraw[h] = load_scale2(x_scales + xsrow[h] + scale_kpart(p.x_swizzled, seg, t));
        } else { /* elements 8q..8q+7: (x0x1, x2x3, x4x5, x6x7) */
            xraw[h][q] = __ldg((const uint4 *)(xnext + (h ? 8 * p.x_row_bytes : 0)) + q);
        }
    };
    /* activation fragments xf[h][q][pair] for K 8q + pair and 8q + pair + 4 */
    uint32_t xf[2][4][4];
    /* X of a partial last segment (interleaved W only): words at or past K stay zero */
    auto tail_load_x = [&](int seg, int nt) {
        const int64_t krem = p.k - (int64_t)seg * GEMV_SEG_K - 32 * t; /* valid elements from the lane's first */
#pragma unroll
        for (int h = 0; h < 2; h++) {
            if (h >= nt) break;
            if (XK == X_NVFP4) {
                uint4 v = make_uint4(0u, 0u, 0u, 0u);
                uint32_t sc = 0u;
                const uint8_t *src = xrow[h] + (int64_t)seg * 64 + 16 * t;
                const uint8_t *ssrc_x = x_scales + xsrow[h] + scale_kpart(p.x_swizzled, seg, t);
                if (xon[h] && krem >= 32) {
                    v = __ldg((const uint4 *)src);
                    sc = load_scale2(ssrc_x);
                } else if (xon[h] && krem >= 16) { /* one block: 8 bytes, one scale */
                    const uint2 u = __ldg((const uint2 *)src);
                    v.x = u.x;
                    v.y = u.y;
                    sc = __ldg(ssrc_x);
                }
                xraw[h][0] = v;
                xsraw[h] = sc;
            } else {
                /* xnext points one segment ahead here (as for the loads it replaces), so
                 * no other pointer stays live through the loop (sm_80 register cap) */
                const uint8_t *src = xnext - 256 + (h ? 8 * p.x_row_bytes : 0);
#pragma unroll
                for (int q = 0; q < XW; q++)
                    xraw[h][q] = xon[h] && 8 * q < krem ? __ldg((const uint4 *)src + q)
                                                        : make_uint4(0u, 0u, 0u, 0u);
            }
        }
    };
    /* interleaved W in the pairs nibble order (TETRA_GEMV_IL_PAIRS, option B): W pairs come
     * out as (e_2i, e_2i+1), so X's natural words are the B fragments (no PRMT) and NVFP4 X
     * takes the same nibble order before its dequantization. Not the standard W's bits (other
     * products share an mma k-step); gated against the oracle. */
    constexpr bool PAIRS = IL && TETRA_GEMV_IL_PAIRS;
    auto unpack_x_fp4 = [&](int h) {
        uint32_t sp = prmt(xsraw[h], 0u, 0x4140u);
        uint32_t s2 = scale_pair2<true>(sp);
        /* NaN code (or a sign bit) in an activation scale: a NaN operand; a row past M
         * has code 0 (scale 0 times zero nibbles: +0) */
        uint32_t fl = nan_flags(0u, sp);
        if (fl & 0x00000080u) s2 = (s2 & 0xFFFF0000u) | 0x7FC0u;
        if (fl & 0x00800000u) s2 = (s2 & 0x0000FFFFu) | 0x7FC00000u;
        const uint32_t s0 = half_bcast<0, FOLD_HALVES>(s2), s1 = half_bcast<1, FOLD_HALVES>(s2);
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const uint32_t wq = word_of(xraw[h][0], q);
            dequant_bf16(PAIRS ? tetra_il_word_pack(wq) : wq, q < 2 ? s0 : s1, xf[h][q]);
        }
    };
    auto unpack_x_dense = [&](int h, int q) {
        const uint4 v = xraw[h][q];
        if (PAIRS) { /* (x0, x1), (x2, x3), (x4, x5), (x6, x7) */
            xf[h][q][0] = v.x;
            xf[h][q][1] = v.y;
            xf[h][q][2] = v.z;
            xf[h][q][3] = v.w;
            return;
        }
        xf[h][q][0] = __byte_perm(v.x, v.z, 0x5410); /* (x0, x4) */
        xf[h][q][1] = __byte_perm(v.x, v.z, 0x7632); /* (x1, x5) */
        xf[h][q][2] = __byte_perm(v.y, v.w, 0x5410); /* (x2, x6) */
        xf[h][q][3] = __byte_perm(v.y, v.w, 0x7632); /* (x3, x7) */
    };

    /* the K loop, compiled once per n-tile count so that M <= 8 issues no second-tile work */
    auto k_loop = [&](auto two_const) {
    constexpr bool TWO = decltype(two_const)::value;
    constexpr int NT = TWO ? 2 : 1;
#pragma unroll
    for (int h = 0; h < NT; h++) {
#pragma unroll
        for (int q = 0; q < XW; q++) load_x(h, q, seg_begin, xon[h] && seg_begin < x_end);
    }
    if (XK != X_NVFP4) xnext += 256;
    int slot = 0;
    for (int seg = seg_begin; seg < seg_end; seg++) {
        cp_async_wait<GEMV_STAGES - 2>(); /* this segment's copies have landed */
        uint4 wraw[4];
        uint32_t s4[4];
        {
            const gemv_stage &st = my[slot];
#pragma unroll
            for (int i = 0; i < 4; i++) wraw[i] = st.w[i][lane];
            if (IL) { /* the lane's 8 bytes of its pair's 16: rows 0, 1 in .x, rows 2, 3 in .y */
                const uint2 sv = *(const uint2 *)((const uint8_t *)&st.s[0][0] + 16 * lane + 8 * (lane & 1));
                s4[0] = s4[1] = sv.x;
                s4[2] = s4[3] = sv.y;
            } else {
#pragma unroll
                for (int i = 0; i < 4; i++) s4[i] = st.s[i][lane];
            }
        }
        if (IL && seg >= x_end) tail_load_x(seg, NT);
        /* refill the slot read one iteration ago (its data is in registers by now) */
        {
            int refill = slot == 0 ? GEMV_STAGES - 1 : slot - 1;
            if (seg + GEMV_STAGES - 1 < seg_end) issue(refill);
            cp_async_commit();
        }
        slot = slot == GEMV_STAGES - 1 ? 0 : slot + 1;

        if (XK == X_NVFP4) {
#pragma unroll
            for (int h = 0; h < NT; h++) unpack_x_fp4(h);
        } else {
#pragma unroll
            for (int h = 0; h < NT; h++) {
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    unpack_x_dense(h, q);
                    /* pairs: the raw words are the fragments, live until word q's mma
                     * steps; the next segment's words are loaded after them (below) */
                    if (!PAIRS) load_x(h, q, seg + 1, seg + 1 < x_end && xon[h]);
                }
            }
            if (!PAIRS) xnext += 256;
        }

        /* scale pairs (s, s) of blocks 2t (words 0, 1) and 2t+1 (words 2, 3) of each row */
        uint32_t s2[4][2];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            /* interleaved W: row i's pair is halfword i % 2 of its word (a constant
             * selector), its NaN flag comes from the layout's flag bytes (epilogue) */
            if (!IL) bad |= (nan_flags(0u, s4[i]) & 0x80808080u) >> i;
            const uint32_t sp = scale_pair2<BF16>(prmt(s4[i], 0u, IL ? ((i & 1) ? 0x4342u : 0x4140u) : s_sel_lo));
            s2[i][0] = half_bcast<0, FOLD_HALVES>(sp);
            s2[i][1] = half_bcast<1, FOLD_HALVES>(sp);
        }
#pragma unroll
        for (int q = 0; q < 4; q++) {
            if (XK == X_NVFP4 && q == 2) /* xf of words 0, 1 is dead: room for the raw words */
#pragma unroll
                for (int h = 0; h < NT; h++) load_x(h, 0, seg + 1, seg + 1 < x_end && xon[h]);
            uint32_t wd[4][4];
#pragma unroll
            for (int i = 0; i < 4; i++) dequant_word<BF16>(word_of(wraw[i], q), s2[i][q >> 1], wd[i]);
#pragma unroll
            for (int a = 0; a < 4; a += 2)
#pragma unroll
                for (int at = 0; at < 2; at++) {
                    float *c0 = acc[at][0][q % GEMV_ACC_SETS];
                    mma_16816<BF16>(c0, wd[2 * at][a], wd[2 * at + 1][a], wd[2 * at][a + 1],
                                    wd[2 * at + 1][a + 1], xf[0][q][a], xf[0][q][a + 1]);
                    if (TWO)
                        mma_16816<BF16>(acc[at][1][q % GEMV_ACC_SETS], wd[2 * at][a], wd[2 * at + 1][a],
                                        wd[2 * at][a + 1], wd[2 * at + 1][a + 1], xf[1][q][a],
                                        xf[1][q][a + 1]);
                }
            if (PAIRS && XK != X_NVFP4)
#pragma unroll
                for (int h = 0; h < NT; h++) load_x(h, q, seg + 1, seg + 1 < x_end && xon[h]);
        }
        if (PAIRS && XK != X_NVFP4) xnext += 256;
    }
    };
    if (two_tiles) k_loop(std::true_type{});
    else k_loop(std::false_type{});
    cp_async_wait<0>();
    /* the accumulator sets in fixed order (set 0 += set 1, ...) */
    sum_acc_sets(acc);

    /* a NaN scale code anywhere in a row's K range makes the row NaN; the four lanes of a
     * quad saw different scale words of the same rows */
    if (IL) { /* the layout's per-row flags, read once */
        const uint8_t *fl = p.w + l * p.w_batch_bytes + p.w_flags_off + r0 + g;
#pragma unroll
        for (int i = 0; i < 4; i++)
            if (__ldg(fl + 8 * i)) bad |= 0x80808080u >> i;
    } else {
        bad = quad_or(bad);
    }

    /* C fragment: c0,c1 -> (A row g, cols 2t, 2t+1), c2,c3 -> (A row g+8, same cols) */
    const float nan = __int_as_float(0x7FC00000);
    if constexpr (CK) {
        gemv_ck_reduce<XK>(p, &ring[0][0], acc, bad); /* all threads: two cluster barriers */
        return;
    }
    const int64_t tiles = gridDim.x;
    float *part = p.partial + ((l * tiles + blockIdx.x) * p.splits + split) *
                                  (int64_t)(GEMV_MAX_M * GEMV_ROWS_PER_CTA);
#pragma unroll
    for (int at = 0; at < 2; at++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int c = 0; c < 4; c++) {
                const int rl = warp * GEMV_ROWS_PER_WARP + 16 * at + g + 8 * (c >> 1);
                const int64_t n = (int64_t)blockIdx.x * GEMV_ROWS_PER_CTA + rl;
                const int m = 8 * h + 2 * t + (c & 1);
                if (n >= p.n || m >= p.m) continue;
                const float v = bad & (0x80808080u >> (2 * at + (c >> 1))) ? nan : acc[at][h][0][c];
                if (p.splits == 1)
                    gemv_store(p, l, m, n, v, gemv_operand<XK>::pow2);
                else
                    part[m * GEMV_ROWS_PER_CTA + rl] = v;
            }
    if (p.splits == 1 || !p.counters) return;

    /* split-K: the last CTA of this row tile sums all splits' partials in split order */
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last_cta = tetra_arrive_last(p.counters + l * tiles + blockIdx.x, p.tag, p.splits);
    __syncthreads();
    if (!last_cta) return;
    __threadfence();
    const int rl = threadIdx.x;
    const int64_t n = (int64_t)blockIdx.x * GEMV_ROWS_PER_CTA + rl;
    if (n >= p.n) return;
    const float *src = p.partial + (l * tiles + blockIdx.x) * p.splits *
                                       (int64_t)(GEMV_MAX_M * GEMV_ROWS_PER_CTA) + rl;
    const int64_t split_stride = (int64_t)GEMV_MAX_M * GEMV_ROWS_PER_CTA;
    /* 4 rows x 8 splits of loads in flight per thread, then added in split order */
    for (int m0 = 0; m0 < p.m; m0 += 4) {
        float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int k0 = 0; k0 < p.splits; k0 += 8) {
            float x[4][8];
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    x[mi][j] = (m0 + mi < p.m && k0 + j < p.splits)
                                   ? __ldcg(src + (k0 + j) * split_stride + (m0 + mi) * GEMV_ROWS_PER_CTA)
                                   : 0.0f;
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    if (k0 + j < p.splits) v[mi] = k0 + j == 0 ? x[mi][j] : v[mi] + x[mi][j];
        }
#pragma unroll
        for (int mi = 0; mi < 4; mi++)
            if (m0 + mi < p.m) gemv_store(p, l, m0 + mi, n, v[mi], gemv_operand<XK>::pow2);
    }
}

/*
 * The mma kernel for fragment-ordered W (TETRA_SCALE_FRAGMENT_128X64; BF16 X): the grid,
 * split of K, ring, NaN rows, partials and reduces of gemv_nvfp4_mma<X_BF16, false> (rows r0 +
 * g + 8i of CTA row tile blockIdx.x = fragment row block), the K loop gemv_frag_main's. Its
 * own kernel rather than a template flag of gemv_nvfp4_mma: the flag's restructuring changed
 * ptxas' register assignment, so the SASS, of the existing kernels; the epilogue below is a
 * copy of that kernel's (non-cluster, standard-W branch).
 */
__global__ void __launch_bounds__(GEMV_THREADS, 4) gemv_nvfp4_mma_frag(const gemv_params p) {
    constexpr int XK = X_BF16;
    __shared__ gemv_stage ring[GEMV_WARPS][GEMV_STAGES];
    __shared__ int last_cta;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int64_t l = blockIdx.z;
    const int split = (int)blockIdx.y;
    const int seg_begin = (int)((int64_t)split * p.nseg / p.splits);
    const int seg_end = (int)((int64_t)(split + 1) * p.nseg / p.splits);
    float acc[2][2][GEMV_ACC_SETS][4];
    uint32_t bad;
    gemv_frag_main<XK>(p, ring[warp], seg_begin, seg_end, p.m > 8, acc, bad);
    cp_async_wait<0>();
    sum_acc_sets(acc);
    bad = quad_or(bad);

    const float nan = __int_as_float(0x7FC00000);
    const int64_t tiles = gridDim.x;
    float *part = p.partial + ((l * tiles + blockIdx.x) * p.splits + split) *
                                  (int64_t)(GEMV_MAX_M * GEMV_ROWS_PER_CTA);
#pragma unroll
    for (int at = 0; at < 2; at++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int c = 0; c < 4; c++) {
                const int rl = warp * GEMV_ROWS_PER_WARP + 16 * at + g + 8 * (c >> 1);
                const int64_t n = (int64_t)blockIdx.x * GEMV_ROWS_PER_CTA + rl;
                const int m = 8 * h + 2 * t + (c & 1);
                if (n >= p.n || m >= p.m) continue;
                const float v = bad & (0x80808080u >> (2 * at + (c >> 1))) ? nan : acc[at][h][0][c];
                if (p.splits == 1)
                    gemv_store(p, l, m, n, v, gemv_operand<XK>::pow2);
                else
                    part[m * GEMV_ROWS_PER_CTA + rl] = v;
            }
    if (p.splits == 1 || !p.counters) return;

    /* split-K: the last CTA of this row tile sums all splits' partials in split order */
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last_cta = tetra_arrive_last(p.counters + l * tiles + blockIdx.x, p.tag, p.splits);
    __syncthreads();
    if (!last_cta) return;
    __threadfence();
    const int rl = threadIdx.x;
    const int64_t n = (int64_t)blockIdx.x * GEMV_ROWS_PER_CTA + rl;
    if (n >= p.n) return;
    const float *src = p.partial + (l * tiles + blockIdx.x) * p.splits *
                                       (int64_t)(GEMV_MAX_M * GEMV_ROWS_PER_CTA) + rl;
    const int64_t split_stride = (int64_t)GEMV_MAX_M * GEMV_ROWS_PER_CTA;
    for (int m0 = 0; m0 < p.m; m0 += 4) {
        float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int k0 = 0; k0 < p.splits; k0 += 8) {
            float x[4][8];
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    x[mi][j] = (m0 + mi < p.m && k0 + j < p.splits)
                                   ? __ldcg(src + (k0 + j) * split_stride + (m0 + mi) * GEMV_ROWS_PER_CTA)
                                   : 0.0f;
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    if (k0 + j < p.splits) v[mi] = k0 + j == 0 ? x[mi][j] : v[mi] + x[mi][j];
        }
#pragma unroll
        for (int mi = 0; mi < 4; mi++)
            if (m0 + mi < p.m) gemv_store(p, l, m0 + mi, n, v[mi], gemv_operand<XK>::pow2);
    }
}

#if TETRA_GEMV_FRAG_CK
/*
 * Cluster-K for fragment-ordered W (TETRA_GEMV_FRAG_CK; sm_90+, the sm_80 instance is an empty
 * body and never launched): CTA = 32 weight rows, row block blockIdx.x / 4, group pair
 * blockIdx.x % 4 (block bytes 1024 q and 1024 q + 512); its 4 warps take pieces 4 * blockIdx.y +
 * warp of p.splits = 4 * gridDim.y, each warp's segments exactly those of split `split` of
 * gemv_nvfp4_mma_frag at p.splits splits, run through the same K loop (gemv_frag_main<.., true>),
 * so each warp's partial is that split's, bit for bit, NaN rows included. The S = gridDim.y CTAs
 * of a row tile form one cluster; gemv_ck_reduce sums the 4S partials in piece order from the
 * cluster's shared memory, as gemv_splitk_reduce sums the ordinary kernel's splits (rows
 * blockIdx.x * 32 + 0..31 = 128 rb + 32 q + 0..31: the same rows the ordinary kernel's warp q
 * of CTA rb holds). One launch, no workspace.
 */
__global__ void __launch_bounds__(GEMV_THREADS, 4) gemv_nvfp4_mma_frag_ck(const gemv_params p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    return; /* cluster-K is sm_90+ code: the host never launches it here */
#else
    constexpr int XK = X_BF16;
    __shared__ gemv_stage ring[GEMV_WARPS][GEMV_STAGES];
    const int warp = threadIdx.x >> 5;
    /* lane-0 broadcasts, as in gemv_nvfp4_mma<.., true>: the warp's piece and bounds then sit
     * in uniform registers */
    const int split = 4 * (int)blockIdx.y + __shfl_sync(0xFFFFFFFFu, warp, 0);
    const int seg_begin = __shfl_sync(0xFFFFFFFFu, (int)((int64_t)split * p.nseg / p.splits), 0);
    const int seg_end = __shfl_sync(0xFFFFFFFFu, (int)((int64_t)(split + 1) * p.nseg / p.splits), 0);
    float acc[2][2][GEMV_ACC_SETS][4];
    uint32_t bad;
    gemv_frag_main<XK, true>(p, ring[warp], seg_begin, seg_end, p.m > 8, acc, bad);
    cp_async_wait<0>();
    sum_acc_sets(acc);
    bad = quad_or(bad);
    gemv_ck_reduce<XK>(p, &ring[0][0], acc, bad); /* all threads: two cluster barriers */
#endif
}
#endif

/* Split-K second pass (more than GEMV_LAST_CTA_MAX_SPLITS splits): one thread per
 * (batch, m, n) sums the partials in split order 0..S-1, the same FP32 adds in the same order
 * as the last-CTA reduce, so both give the same bits. 8 independent loads in flight. */
template <int XK>
__global__ void __launch_bounds__(256) gemv_splitk_reduce(const gemv_params p) {
    /* launched as the mma kernel's programmatic dependent (TETRA_GEMV_PDL_REDUCE): wait for
     * its completion and memory flush before any load or store, in every thread (none
     * leaves before it), so this grid also completes only after the mma kernel */
#if TETRA_GEMV_PDL_REDUCE
    tetra_pdl_wait();
#endif
#if TETRA_GEMV_PDL_ALL
    /* the next GEMV (a programmatic dependent in TETRA_GEMV_PDL_ALL builds) may be scheduled
     * now; it waits for this grid, which completes after the mma kernel (the wait above) */
    tetra_pdl_trigger();
#endif
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t l = blockIdx.z;
    if (i >= (int64_t)p.m * p.n) return;
    const int m = (int)(i / p.n);
    const int64_t n = i % p.n;
    const int64_t tiles = (p.n + GEMV_ROWS_PER_CTA - 1) / GEMV_ROWS_PER_CTA;
    const int64_t split_stride = (int64_t)GEMV_MAX_M * GEMV_ROWS_PER_CTA;
    const float *src = p.partial + (l * tiles + n / GEMV_ROWS_PER_CTA) * p.splits * split_stride +
                       m * GEMV_ROWS_PER_CTA + n % GEMV_ROWS_PER_CTA;
    const float v = tetra_splitk_sum(src, split_stride, p.splits);
    gemv_store(p, l, m, n, v, gemv_operand<XK>::pow2);
}

/* ---------------------------------------------------------------- copy-only probe */

/*
 * The interleaved-W mma kernel without X, dequantization or mma (notes:
 * gemv-prepared-weights.md, section 3 and session 8): the same grid, split of K, per-warp
 * ring (same shared memory), 5 x cp.async.cg per lane per segment, lookahead of
 * GEMV_STAGES - 1 segments and read-back (4 x 16 B + 8 B per lane). What was read back is
 * XORed into one word per thread, written only if it equals `never`, so nothing is dead.
 * Its time against the kernel's says whether the copy pattern or the loop binds.
 */
__global__ void __launch_bounds__(GEMV_THREADS, 4)
gemv_il_copy_probe(const uint8_t *w, int64_t batch_bytes, int nseg, int splits, uint32_t never, uint32_t *sink) {
    __shared__ gemv_stage ring[GEMV_WARPS][GEMV_STAGES];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int split = blockIdx.y;
    const int64_t r0 = (int64_t)blockIdx.x * GEMV_ROWS_PER_CTA + warp * GEMV_ROWS_PER_WARP;
    const int seg_begin = (int)((int64_t)split * nseg / splits);
    const int seg_end = (int)((int64_t)(split + 1) * nseg / splits);
    const uint8_t *src = w + blockIdx.z * batch_bytes +
                         ((r0 / TETRA_IL_ROWS) * nseg + seg_begin) * (int64_t)TETRA_IL_BLOCK_BYTES + 16 * lane;
    const int soff = TETRA_IL_SCALE_OFF + 16 * (lane >> 1) - 16 * lane;
    gemv_stage *my = ring[warp];
    const uint32_t ring_base = smem_u32(&my[0].w[0][lane]);
    const uint32_t s_off = (uint32_t)((uint8_t *)&my[0].s[0][0] - (uint8_t *)&my[0].w[0][0]);
    auto issue = [&](int slot) {
        const uint32_t base = ring_base + (uint32_t)slot * sizeof(gemv_stage);
#pragma unroll
        for (int i = 0; i < 4; i++) cp_async16(base + i * 16 * TETRA_WARP, src + 512 * i);
        cp_async16(base + s_off, src + soff);
        src += TETRA_IL_BLOCK_BYTES;
    };
    const int n = seg_end - seg_begin;
#pragma unroll
    for (int j = 0; j < GEMV_STAGES - 1; j++) {
        if (j < n) issue(j);
        cp_async_commit();
    }
    uint32_t x = 0u;
    int slot = 0;
    for (int seg = seg_begin; seg < seg_end; seg++) {
        cp_async_wait<GEMV_STAGES - 2>();
        const gemv_stage &st = my[slot];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const uint4 v = st.w[i][lane];
            x ^= v.x ^ v.y ^ v.z ^ v.w;
        }
        const uint2 sv = *(const uint2 *)((const uint8_t *)&st.s[0][0] + 16 * lane + 8 * (lane & 1));
        x ^= sv.x ^ sv.y;
        const int refill = slot == 0 ? GEMV_STAGES - 1 : slot - 1;
        if (seg + GEMV_STAGES - 1 < seg_end) issue(refill);
        cp_async_commit();
        slot = slot == GEMV_STAGES - 1 ? 0 : slot + 1;
    }
    cp_async_wait<0>();
    if (x == never) *sink = x;
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
    const uint8_t *wbatch = p.w + l * p.w_batch_bytes; /* interleaved W */
    const uint8_t *xb = p.x + l * p.x_batch_bytes;
    const bool x_fp4 = p.x_dtype == TETRA_DTYPE_NVFP4;
    const uint8_t *xsc = x_fp4 ? p.x_scales + l * p.x_scale_batch : nullptr;
    float acc[GEMV_MAX_M];
#pragma unroll
    for (int m = 0; m < GEMV_MAX_M; m++) acc[m] = 0.0f;

    for (int64_t kb = lane; kb < p.nkb; kb += TETRA_WARP) {
        float wv[16];
        /* the block's 8 bytes are contiguous in every layout */
        const uint8_t *wblk = p.w_il ? wbatch + tetra_il_data_offset(n, kb * 16, p.w_il_nseg) : wrow + kb * 8;
        /* interleaved W in the pairs nibble order: the block's two words (8-byte aligned) in
         * standard order, in registers */
        const bool il_pairs = TETRA_GEMV_IL_PAIRS && p.w_il;
        uint32_t wword[2] = {0u, 0u};
        if (il_pairs) {
            const uint2 u = *(const uint2 *)wblk;
            wword[0] = tetra_il_word_unpack(u.x);
            wword[1] = tetra_il_word_unpack(u.y);
        }
        const float ws = tetra_e4m3_to_float(
            p.w_il ? wbatch[tetra_il_scale_offset(n, kb, p.w_il_nseg)]
                   : wsc[tetra_scale_offset(p.w_swizzled, n, kb, p.nkb, p.w_scale_ld)]);
#pragma unroll
        for (int e = 0; e < 16; e++) {
            unsigned byte = il_pairs ? wword[e / 8] >> (8 * ((e % 8) / 2)) : wblk[e / 2];
            wv[e] = tetra_e2m1_to_float((e & 1) ? (byte >> 4) & 15u : byte & 15u) * ws;
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
    /* interleaved W: a flagged row is NaN, as in the mma kernel */
    const bool bad_row = p.w_il && wbatch[p.w_flags_off + n] != 0;
#pragma unroll
    for (int m = 0; m < GEMV_MAX_M; m++) {
        if (m >= p.m) break;
        float v = acc[m];
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, off);
        if (bad_row) v = __int_as_float(0x7FC00000);
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

/* The weight scales are copied as 4-byte words. */
bool w_scales_fast_ok(const tetra_operand &o) {
    if (!tetra_aligned(o.scales, 4) || o.scale_batch_stride % 4) return false;
    return o.scale_layout != TETRA_SCALE_LINEAR || o.scale_ld % 4 == 0;
}

/* Split K so the grid fills one wave (occ CTAs per SM). Depends on N, K, L, dtype and
 * device only, never on M: the workspace is sized for 16 rows so its availability cannot
 * depend on M. */
int64_t gemv_auto_splits(int64_t nseg, int64_t tiles, int64_t batch, int sms, int occ) {
    int64_t splits = ((int64_t)sms * occ) / (tiles * batch);
    const int64_t max_splits = nseg / GEMV_MIN_SEGS_PER_SPLIT;
    if (splits > max_splits) splits = max_splits;
    if (splits > 4096) splits = 4096;
    if (splits < 1) splits = 1;
    /* At most max(8, nseg / 3) splits, i.e. >= 3 segments per split unless that leaves
     * fewer than 8, then the fewest splits with the same longest split. Splits of 2
     * segments lost 2.7-8.3% to 3-4 at 4096x4096, 768x6144 and 2048x6144 (run 23's tune
     * data; 2.5-7.0% in session 6's cross-build A/B, notes: gemv.md). */
    const int64_t cap = nseg / 3 > 8 ? nseg / 3 : 8;
    if (splits > cap) splits = cap;
    /* Long splits where the grid still covers every SM: at least TETRA_GEMV_LONG_SPLIT_SEGS
     * segments per split when that leaves >= one CTA per SM. At the 33 MB decode shapes
     * fewer, longer CTAs streamed faster than one full wave of short ones (run 47: 14336x4096
     * 3 splits 3.4% and 4096x14336 8 splits 5% faster than the 4 / 16 this rule gave; each
     * warp's ring fill and drain is paid per split). With 10 (run 48): 1.0-10.9% faster
     * wherever it changes the count, M = 1..16. 0: off (session 10's rule). */
#if TETRA_GEMV_LONG_SPLIT_SEGS > 0
    const int64_t s_long = nseg / TETRA_GEMV_LONG_SPLIT_SEGS;
    if (s_long >= 1 && s_long < splits && s_long * tiles * batch >= sms) splits = s_long;
#endif
    const int64_t longest = (nseg + splits - 1) / splits;
    return (nseg + longest - 1) / longest;
}

/* Cluster-K's split rule: S CTAs per 32-row tile (one cluster), P = 4S pieces of K. Depends
 * on N, K, L and the device only (batch invariance). The largest S <= GEMV_CK_MAX_S with
 * P <= nseg / 2, i.e. 2 segments per warp where nseg / 2 is a multiple of 4 (there it is the
 * smallest S with P >= nseg / 2); never more than nseg / 2 pieces, the ordinary kernel's
 * limit on a pinned split count, so that every cluster-K launch has a bit-identical twin
 * (opts.splits = P). Then lowered, to at least 1 (S = 1: the cluster is the CTA; 4 pieces
 * reduced in its own shared memory), while the grid ceil(N / 32) * S * L exceeds one wave
 * (sms * occ) or its ceil(N / 32) * L clusters exceed the clusters of S the device keeps
 * resident at once (resident[S]): clusters of S CTAs must share a GPC, so fewer of them fit
 * than sms * occ / S (H200, S = 1..16: 528 264 163 124 94 79 69 62 51 44 37 37 30 30 28 28,
 * run 80), and a grid of one more cluster runs a second wave (run 78: 128 clusters of 4
 * against 124 resident, 1.18 / 1.20x the ordinary kernels' time). The caller takes
 * cluster-K only for nseg >= 8 (P = 4 needs 2 segments a piece).
 * On an H200 (132 SMs x 4 CTAs = 528), L = 1, N x K:
 *     768 x 6144   nseg 48:  24 tiles, S = 6,       P = 24, 2 segments per warp,   144 CTAs
 *    2048 x 6144   nseg 48:  64 tiles, S = 6,       P = 24, 2,                     384 CTAs
 *    4096 x 4096   nseg 32: 128 tiles, S = 4 -> 3,  P = 12, 2-3,                   384 CTAs
 *    4096 x 2048   nseg 16: 128 tiles, S = 2,       P = 8,  2,                     256 CTAs
 *    4096 x 14336  nseg 112: 128 tiles, S = 14 -> 3, P = 12, 9-10,                 384 CTAs
 *   14336 x 4096   nseg 32: 448 tiles, S = 4 -> 1,  P = 4,  8,                     448 CTAs
 *   28672 x 8192   nseg 64: 896 tiles, S = 8 -> 1,  P = 4,  16,                    896 CTAs (1.7 waves)
 * (the ordinary kernel at the first two: 6 / 16 tiles x 16 splits, 3 segments per warp;
 * AUTO leaves both 4096-row shapes to the ordinary kernels: ck_auto_takes) */
int gemv_ck_splits(int64_t nseg, int64_t tiles, int64_t batch, int sms, int occ, int max_s, const int *resident) {
    int64_t s = nseg / 2 / 4;
    if (s > max_s) s = max_s;
    while (s > 1 && (tiles * s * batch > (int64_t)sms * occ || tiles * batch > resident[s])) s--;
    return s < 1 ? 1 : (int)s;
}

/* CTAs of the mma kernel per SM on `device`, the current device (1 if the query fails): the
 * split rule's slot count. Queried once per device: AUTO asks for it on every call at M <= 16
 * (the launcher's split rule, the fragment GEMV / v7 switch). */
template <int XK, bool IL, bool FR = false> int gemv_occupancy(int device) {
    static std::atomic<unsigned long long> checked{0};
    static int occ_of[64];
    if (tetra_done_on(checked, device)) return occ_of[device];
    int occ = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, FR ? gemv_nvfp4_mma_frag : gemv_nvfp4_mma<XK, IL>, GEMV_THREADS, 0) !=
            cudaSuccess ||
        occ < 1) {
        (void)cudaGetLastError();
        occ = 1;
    }
    if (device >= 0 && device < 64) {
        occ_of[device] = occ;
        tetra_mark_done(checked, device);
    }
    return occ;
}

/* Whether `kernel`, as this device runs it, was compiled for sm_90 or later, i.e. holds the
 * griddepcontrol wait/trigger that make a programmatic dependent launch safe. A binary
 * without sm_90 code (sm_80 SASS, or compute_80 PTX JIT-compiled on a Hopper) has neither:
 * its kernels are launched the ordinary way. Once per device and kernel. */
template <typename Kernel> bool pdl_compiled(Kernel kernel, int dev) {
    static std::atomic<unsigned long long> checked{0};
    static bool ok[64];
    if (tetra_done_on(checked, dev)) return ok[dev];
    cudaFuncAttributes fa;
    const bool r = cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && fa.ptxVersion >= 90;
    if (!r) cudaGetLastError(); /* a failed query only means: launch plainly */
    if (dev >= 0 && dev < 64) {
        ok[dev] = r;
        tetra_mark_done(checked, dev);
    }
    return r;
}

/* The one place that decides whether a launch of an mma kernel (ordinary, interleaved,
 * fragment, cluster-K) is a programmatic dependent of the previous kernel on the stream, and
 * (TETRA_GEMV_PDL_ALL 1) where the kernel waits for it. 0: only the W4A4 chain's launch after
 * the staging pass (p->pdl), which writes X only, so the kernel issues its weight ring before
 * the wait. 1 / 2: every launch where the kernel has griddepcontrol (pdl_compiled: sm_90+
 * code); 1 sets prm.wait_first outside the W4A4 chain (the previous kernel may write anything
 * the GEMV reads: the wait comes before the ring), 2 keeps the ring before the wait everywhere
 * (TETRA_GEMV_PDL_ALL's safety condition). The split-K reduce's launch is separate
 * (TETRA_GEMV_PDL_REDUCE: a dependent of the mma kernel, whichever the mode). */
#if TETRA_GEMV_PDL_ALL
/* TETRA_GEMV_PDL_ALL_OFF=1 in the environment (read once; builds with the switch only): mode 0's
 * launch decision with this build's kernels, the device A/B's control for the code change alone
 * (the kernels still trigger, which releases only kernels launched with the attribute) */
static bool gemv_pdl_all_off() {
    static const bool off = [] {
        const char *e = getenv("TETRA_GEMV_PDL_ALL_OFF");
        return e && e[0] == '1' && !e[1];
    }();
    return off;
}
#endif

template <typename Kernel>
static bool gemv_launch_dependent(Kernel kernel, const tetra_gemm_problem *p, gemv_params &prm) {
#if TETRA_GEMV_PDL_ALL
#if TETRA_GEMV_PDL_ALL == 1
    prm.wait_first = p->pdl ? 0 : 1;
#else
    (void)prm;
#endif
    if (gemv_pdl_all_off()) return p->pdl && pdl_compiled(kernel, p->ctx->device);
    return pdl_compiled(kernel, p->ctx->device);
#else
    (void)prm;
    return p->pdl && pdl_compiled(kernel, p->ctx->device);
#endif
}

/* a test's pin of both cluster-K modes (tetra_gemv_ck_pin; -1: none) */
static std::atomic<int> g_ck_pin{-1};

/* Cluster-K's mode for this process (0 off, 1 AUTO, 2 everywhere): a test's pin
 * (tetra_gemv_ck_pin), else TETRA_GEMV_CK=0 / 1 / 2 in the environment (read once) wins over the
 * build's TETRA_GEMV_CLUSTER_K. */
int gemv_ck_mode() {
    const int pin = g_ck_pin.load(std::memory_order_relaxed);
    if (pin >= 0) return pin;
    static const int mode = [] {
        const char *e = getenv("TETRA_GEMV_CK");
        if (e && e[0] >= '0' && e[0] <= '2' && !e[1]) return e[0] - '0';
        return TETRA_GEMV_CLUSTER_K >= 0 && TETRA_GEMV_CLUSTER_K <= 2 ? TETRA_GEMV_CLUSTER_K : 0;
    }();
    return mode;
}

/* a non-negative decimal environment value (at most 4 digits), else -1 */
static int env_count(const char *name) {
    const char *e = getenv(name);
    if (!e || !e[0]) return -1;
    int v = 0;
    for (int i = 0; e[i]; i++) {
        if (i >= 4 || e[i] < '0' || e[i] > '9') return -1;
        v = 10 * v + (e[i] - '0');
    }
    return v;
}

#if TETRA_GEMV_FRAG_CK
/* AUTO's largest M for the fragment GEMV's cluster-K: the environment's
 * TETRA_GEMV_FRAG_CK_MAX_M=1..16 (read once), else the build's (4: run 95, K = 6144, cluster-K
 * time over the ordinary kernel's at M = 1 / 2 / 3 / 4 / 6 / 8 / 12 / 16: N = 768 0.805 / 0.801 /
 * 0.797 / 0.797 / 0.814 / 0.836 / 0.831 / 0.861, N = 2048 0.884 / 0.872 / 0.876 / 0.913 / 1.009 /
 * 1.022 / 1.058 / 1.090). So with cluster-K AUTO's choice depends on M, and a fragment GEMV row's
 * bits differ between M <= 4 and M > 4 where the rule takes it (batch_invariant never runs the
 * GEMV). Mode 2 ignores the bound. */
#ifndef TETRA_GEMV_FRAG_CK_MAX_M
#define TETRA_GEMV_FRAG_CK_MAX_M 4
#endif
static int frag_ck_max_m() {
    static const int v = [] {
        const int e = env_count("TETRA_GEMV_FRAG_CK_MAX_M");
        return e >= 1 && e <= GEMV_MAX_M ? e : (int)TETRA_GEMV_FRAG_CK_MAX_M;
    }();
    return v;
}
/* The fragment GEMV's cluster-K mode for this process (0 off, 1 AUTO, 2 everywhere):
 * TETRA_GEMV_FRAG_CK=0 / 1 / 2 in the environment (read once) wins over the build's
 * TETRA_GEMV_FRAG_CK (1 or 2 here: 0 builds none of it). */
int gemv_frag_ck_mode() {
    const int pin = g_ck_pin.load(std::memory_order_relaxed);
    if (pin >= 0) return pin;
    static const int mode = [] {
        const char *e = getenv("TETRA_GEMV_FRAG_CK");
        if (e && e[0] >= '0' && e[0] <= '2' && !e[1]) return e[0] - '0';
        return (int)TETRA_GEMV_FRAG_CK;
    }();
    return mode;
}
#endif

/* The cluster-K kernel of a launch_mma instance: gemv_nvfp4_mma<XK, IL, true>, or for
 * fragment-ordered W (FR; TETRA_GEMV_FRAG_CK builds only) gemv_nvfp4_mma_frag_ck. */
template <int XK, bool IL, bool FR> struct ck_kernel {
    static void (*get())(gemv_params) { return gemv_nvfp4_mma<XK, IL, true>; }
    static int mode() { return gemv_ck_mode(); }
};
#if TETRA_GEMV_FRAG_CK
template <> struct ck_kernel<X_BF16, false, true> {
    static void (*get())(gemv_params) { return gemv_nvfp4_mma_frag_ck; }
    static int mode() { return gemv_frag_ck_mode(); }
};
#endif

/* AUTO's rule: cluster-K where its warps each stream at least 12 segments (nseg / P >= 12),
 * or where its grid holds at most 3 CTAs per SM and every piece has the same whole number of
 * segments (nseg % P == 0). Fitted to run 79 (one process, cluster-K time over the ordinary
 * kernels', truncated, at M = 1 / 8 / 16): taken at 768x6144 (0.85 / 0.86 / 0.89), 2048x6144
 * (0.95 / 1.01 / 1.10), 4096x2048 (0.89, M = 16 0.96), 28672x8192 (0.94 / 0.97 / 0.92),
 * 7168x16384 (0.96 / 0.92 / 1.04), 4096x7168 L = 8 (M = 1 0.93); left out where it lost:
 * 14336x4096 (8 segments a warp: 0.97 / 1.00 / 1.10), 7168x2048 L = 4 (4 segments: M = 1
 * 1.07), and 4096x4096 / 4096x14336: at S = 4 (a second wave of clusters) 1.18 / 1.20 at M = 1
 * (run 78); at S = 3 (one wave, pieces of 2-3 and 9-10 segments) still 1.019 / 1.066 at
 * M = 1, 1.049 / 1.162 at M = 8 / 16 (x 14336), 1.232 at 16 x 4096 (run 81). Why the
 * one-wave S = 3 grid loses is not measured. At M = 16 its 32-row tiles read X four times as often as the
 * ordinary 128-row ones: a candidate for the M = 16 losses. Depends on N, K, L and the device
 * only (batch invariance). */
static bool ck_auto_takes(int nseg, int S, int64_t tiles, int64_t batch, int sms) {
    const int P = 4 * S;
    return nseg / P >= 12 || (tiles * S * batch <= 3 * (int64_t)sms && nseg % P == 0);
}

/* Clusters of S CTAs of a cluster-K kernel the current device keeps resident at once
 * (cudaOccupancyMaxActiveClusters; 0 if the query fails). S > 8 needs the kernel's
 * non-portable cluster opt-in first. */
static int ck_resident_clusters(void (*kernel)(gemv_params), int S) {
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg =
        tetra_cluster_config(attr, dim3(1, (unsigned)S, 1), dim3(1, (unsigned)S, 1), dim3(GEMV_THREADS), 0, 0);
    int nc = 0;
    if (cudaOccupancyMaxActiveClusters(&nc, kernel, &cfg) != cudaSuccess) {
        (void)cudaGetLastError();
        nc = 0;
    }
    return nc;
}

/* S (CTAs per cluster) when a problem of nseg segments, N rows and L batches takes cluster-K
 * on this context's device, else 0: the mode is on (AUTO: and ck_auto_takes), an sm_90+ device, the kernel compiled
 * for sm_90+ (cudaFuncAttributes.ptxVersion: a compute_80 JIT or sm_80 image has no cluster
 * code, and its CK kernel is empty), nseg >= 8, and the device can keep one cluster of S
 * resident (cudaOccupancyMaxActiveClusters; else the ordinary path). The attribute queries,
 * the non-portable cluster opt-in (S > 8) and the resident-cluster counts for every S (the
 * split rule's second-wave check) run once per device. FR: the fragment GEMV's cluster-K
 * (gemv_nvfp4_mma_frag_ck, its own mode gemv_frag_ck_mode; same rule, same AUTO test). */
template <int XK, bool IL, bool FR = false>
int ck_plan(int nseg, int64_t m, int64_t n, int64_t batch, const tetra_context *ctx) {
    const int mode = ck_kernel<XK, IL, FR>::mode();
    if (!mode || ctx->sm_major < 9 || nseg < 8) return 0;
#if TETRA_GEMV_FRAG_CK
    if (FR && mode == 1 && m > frag_ck_max_m()) return 0; /* fragment W under AUTO: the M bound */
#endif
    (void)m; /* read by the fragment rule only */
    const int dev = ctx->device;
    if (dev < 0 || dev >= 64) return 0;
    void (*kernel)(gemv_params) = ck_kernel<XK, IL, FR>::get();
    static std::atomic<unsigned long long> checked{0};
    static int occ[64], max_s[64]; /* occ 0: cluster-K does not run on this device */
    static int resident[64][GEMV_CK_MAX_S + 1];
    if (!tetra_done_on(checked, dev)) {
        cudaFuncAttributes fa;
        int o = 0, ms = 8;
        if (cudaFuncGetAttributes(&fa, kernel) != cudaSuccess || fa.ptxVersion < 90 ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, kernel, GEMV_THREADS, 0) != cudaSuccess)
            o = 0;
        if (o > 0 && cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess)
            ms = GEMV_CK_MAX_S;
        (void)cudaGetLastError(); /* a failed query only means: the ordinary path, or S <= 8 */
        resident[dev][0] = 0;
        for (int S = 1; S <= GEMV_CK_MAX_S; S++) resident[dev][S] = o > 0 && S <= ms ? ck_resident_clusters(kernel, S) : 0;
        occ[dev] = o;
        max_s[dev] = ms;
        tetra_mark_done(checked, dev);
    }
    if (occ[dev] < 1) return 0;
    const int64_t tiles = (n + GEMV_ROWS_PER_WARP - 1) / GEMV_ROWS_PER_WARP;
    const int S = gemv_ck_splits(nseg, tiles, batch, ctx->sms, occ[dev], max_s[dev], resident[dev]);
    if (mode == 1 && !ck_auto_takes(nseg, S, tiles, batch, ctx->sms)) return 0;
    return resident[dev][S] > 0 ? S : 0;
}

/* The cluster-K launch (S from ck_plan): grid (ceil(N / 32), S, L), clusters (1, S, 1); a
 * programmatic dependent of the W4A4 staging pass when p->pdl (the kernel waits before it
 * reads X). */
template <int XK, bool IL, bool FR = false>
tetra_status launch_ck(gemv_params &prm, const tetra_gemm_problem *p, int S) {
    const int64_t tiles = (p->n + GEMV_ROWS_PER_WARP - 1) / GEMV_ROWS_PER_WARP;
    prm.partial = nullptr;
    prm.counters = nullptr;
    prm.tag = 0;
    prm.splits = 4 * S;
    cudaLaunchAttribute attr[2];
    const dim3 grid((unsigned)tiles, (unsigned)S, (unsigned)p->batch);
    cudaLaunchConfig_t cfg =
        tetra_cluster_config(attr, dim3(1, (unsigned)S, 1), grid, dim3(GEMV_THREADS), 0, TETRA_STREAM(p));
    /* (ck_plan took cluster-K only where the kernel has sm_90 code: pdl_compiled holds) */
    if (gemv_launch_dependent(ck_kernel<XK, IL, FR>::get(), p, prm)) tetra_config_add_dependent(cfg);
    TETRA_CUDA_TRY(cudaLaunchKernelEx(&cfg, ck_kernel<XK, IL, FR>::get(), prm));
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}

/* FR: W in TETRA_SCALE_FRAGMENT_128X64 (BF16 X; cluster-K only in TETRA_GEMV_FRAG_CK builds) */
template <int XK, bool IL, bool FR = false>
tetra_status launch_mma(gemv_params &prm, const tetra_gemm_problem *p) {
    void (*kernel)(gemv_params) = FR ? gemv_nvfp4_mma_frag : gemv_nvfp4_mma<XK, IL>;
    if constexpr (!FR || TETRA_GEMV_FRAG_CK) {
        if (!p->splits) { /* cluster-K where the switch is on and it can run; pinned splits: never */
            const int S = ck_plan<XK, IL, FR>(prm.nseg, p->m, p->n, p->batch, p->ctx);
            if (S) return launch_ck<XK, IL, FR>(prm, p, S);
        }
    }
    cudaStream_t stream = TETRA_STREAM(p);
    const int occ = gemv_occupancy<XK, IL, FR>(p->ctx->device);
    const int64_t tiles = (p->n + GEMV_ROWS_PER_CTA - 1) / GEMV_ROWS_PER_CTA;
    int64_t splits = gemv_auto_splits(prm.nseg, tiles, p->batch, p->ctx->sms, occ);
    const int64_t max_splits = prm.nseg / GEMV_MIN_SEGS_PER_SPLIT;
    if (p->splits) { /* pinned (tests, tune): checked here, where the limits are known */
        if (p->splits > (max_splits > 1 ? max_splits : 1))
            return tetra_fail(TETRA_ERR_UNSUPPORTED,
                              "tetra_launch_gemv: opts.splits = %d; K = %lld allows at most %lld",
                              p->splits, (long long)p->k, (long long)(max_splits > 1 ? max_splits : 1));
        splits = p->splits;
    }
    prm.partial = nullptr;
    prm.counters = nullptr;
    prm.tag = 0;
    if (splits > 1) {
        void *ws = nullptr;
        const size_t ctr_bytes = ((size_t)p->batch * (size_t)tiles * 8 + 255) / 256 * 256;
        const size_t bytes = ctr_bytes + (size_t)splits * (size_t)p->batch * (size_t)tiles *
                                             GEMV_MAX_M * GEMV_ROWS_PER_CTA * sizeof(float);
        if (tetra_context_workspace(p->ctx, bytes, &ws) != TETRA_OK) {
            tetra_clear_error(); /* a fixed user workspace too small: run unsplit */
            splits = 1;
        } else {
            prm.partial = (float *)((uint8_t *)ws + ctr_bytes);
            if (splits <= GEMV_LAST_CTA_MAX_SPLITS) {
                prm.counters = (unsigned long long *)ws;
                prm.tag = tetra_next_counter_tag();
            }
        }
    }
    prm.splits = (int)splits;
    dim3 grid((unsigned)tiles, (unsigned)splits, (unsigned)p->batch);
    if (gemv_launch_dependent(kernel, p, prm)) /* (0: a dependent of the staging pass, gemm_api.c) */
        TETRA_CUDA_TRY(tetra_launch_dependent(kernel, grid, dim3(GEMV_THREADS), stream, prm));
    else
        kernel<<<grid, GEMV_THREADS, 0, stream>>>(prm);
    TETRA_LAUNCH_CHECK();
    if (splits > 1 && !prm.counters) {
        const int64_t outs = (int64_t)p->m * p->n;
        dim3 rgrid((unsigned)((outs + 255) / 256), 1, (unsigned)p->batch);
        /* sm_90+ code only (griddepcontrol; pdl_compiled); the W4A4 chain stays ordered:
         * staging pass -> mma kernel (waits on the pass) -> reduce (waits on the mma kernel) */
        if (TETRA_GEMV_PDL_REDUCE && pdl_compiled(gemv_splitk_reduce<XK>, p->ctx->device))
            TETRA_CUDA_TRY(tetra_launch_dependent(gemv_splitk_reduce<XK>, rgrid, dim3(256), stream, prm));
        else
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
    if (p->tile_m)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "tetra_launch_gemv: has no tile_m to pin (opts.tile_m = %d)",
                          p->tile_m);

    gemv_params prm;
    prm.w = (const uint8_t *)b.data;
    prm.w_scales = b.scales;
    prm.w_row_bytes = b.ld / 2;
    prm.w_batch_bytes = b.batch_stride / 2;
    prm.w_scale_ld = b.scale_ld;
    prm.w_scale_batch = b.scale_batch_stride;
    prm.w_swizzled = b.scale_layout == TETRA_SCALE_SWIZZLED_128X4;
    prm.w_il = b.scale_layout == TETRA_SCALE_INTERLEAVED_32X128;
    prm.w_flags_off = prm.w_il ? tetra_il_flags_offset(p->n, p->k) : 0;
    prm.w_il_nseg = tetra_il_segments(p->k);
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
    prm.counters = nullptr;
    prm.tag = 0;
    prm.splits = 1;
    prm.m = (int)p->m;
    prm.n = p->n;
    prm.k = p->k;
    prm.nkb = p->k / 16;
    /* K <= 2^30 keeps segment counts in int; larger K takes the scalar kernel */
    const int64_t kseg = p->k <= ((int64_t)1 << 30) ? p->k : 0;
    prm.x_full_segs = (int)(kseg / GEMV_SEG_K);
    prm.nseg = prm.w_il ? (int)tetra_il_segments(kseg) : prm.x_full_segs;
#if TETRA_GEMV_FRAG_X16
    prm.x16 = 0;
#endif
#if TETRA_GEMV_PDL_ALL == 1
    prm.wait_first = 1; /* set per launch by gemv_launch_dependent */
#endif

    /* fragment-ordered W (TETRA_SCALE_FRAGMENT_128X64): the FR mma kernel or nothing (the
     * scalar kernel does not read the layout); AUTO then runs the wgmma-T GEMM (gemm_api.c) */
    if (b.scale_layout == TETRA_SCALE_FRAGMENT_128X64) {
        if (a.dtype != TETRA_DTYPE_BF16)
            return tetra_fail(TETRA_ERR_UNSUPPORTED,
                              "tetra_launch_gemv: b in TETRA_SCALE_FRAGMENT_128X64 is read with a BF16 a only "
                              "(here a.dtype %d: FP16 a, and NVFP4 a with a device global scale or before sm_90, "
                              "go to the WGMMA_T path)", (int)a.dtype);
        if (p->k % GEMV_SEG_K || p->k > ((int64_t)1 << 30))
            return tetra_fail(TETRA_ERR_UNSUPPORTED,
                              "tetra_launch_gemv: b in TETRA_SCALE_FRAGMENT_128X64 needs K %% %d == 0 and K <= 2^30 "
                              "(K = %lld)", (int)GEMV_SEG_K, (long long)p->k);
        if (!tetra_aligned(a.data, 16) || a.ld % 8 || a.batch_stride % 8)
            return tetra_fail(TETRA_ERR_UNSUPPORTED,
                              "tetra_launch_gemv: b in TETRA_SCALE_FRAGMENT_128X64 needs a.data 16-byte aligned and "
                              "a.ld, a.batch_stride multiples of 8 (ld %lld, batch_stride %lld)",
                              (long long)a.ld, (long long)a.batch_stride);
#if TETRA_GEMV_FRAG_X16
        prm.x16 = prm.m >= tetra_gemv_frag_x16_min_m();
#endif
        return launch_mma<X_BF16, false, true>(prm, p);
    }

    /* interleaved W: any K (padded inside), data aligned by tetra_check_weights */
    bool fast = p->k <= ((int64_t)1 << 30) &&
                (prm.w_il || (p->k % GEMV_SEG_K == 0 && fp4_fast_ok(b) && w_scales_fast_ok(b)));
    if (a.dtype == TETRA_DTYPE_NVFP4)
        fast = fast && fp4_fast_ok(a);
    else
        fast = fast && tetra_aligned(a.data, 16) && a.ld % 8 == 0 && a.batch_stride % 8 == 0;

    if (fast && prm.w_il) {
        switch (a.dtype) {
        case TETRA_DTYPE_BF16: return launch_mma<X_BF16, true>(prm, p);
        case TETRA_DTYPE_FP16: return launch_mma<X_FP16, true>(prm, p);
        default: return launch_mma<X_NVFP4, true>(prm, p);
        }
    }
    if (fast) {
        switch (a.dtype) {
        case TETRA_DTYPE_BF16: return launch_mma<X_BF16, false>(prm, p);
        case TETRA_DTYPE_FP16: return launch_mma<X_FP16, false>(prm, p);
        default: return launch_mma<X_NVFP4, false>(prm, p);
        }
    }
    if (p->splits > 1)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "tetra_launch_gemv: opts.splits = %d, but this problem takes the unsplit scalar "
                          "kernel (K %% %d, alignment)", p->splits, (int)GEMV_SEG_K);
    dim3 grid((unsigned)((p->n + 3) / 4), (unsigned)p->batch);
    gemv_nvfp4_scalar<<<grid, 128, 0, TETRA_STREAM(p)>>>(prm);
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}

/* Whether AUTO tries the GEMV for fragment-ordered W (TETRA_GEMV_FRAG, or the environment's
 * TETRA_GEMV_FRAG=0 / 1, read once). */
extern "C" int tetra_gemv_frag_auto(void) {
    static const int on = [] {
        const char *e = getenv("TETRA_GEMV_FRAG");
        if (e && (e[0] == '0' || e[0] == '1') && !e[1]) return e[0] - '0';
        return TETRA_GEMV_FRAG ? 1 : 0;
    }();
    return on;
}

#if TETRA_GEMV_FRAG_X16
/* a test's pin of the X16 threshold (-1: none) */
static std::atomic<int> g_x16_pin{-1};
#endif

/* The smallest M at which the fragment GEMV reads X as 16-byte words (TETRA_GEMV_FRAG_X16):
 * a test's pin (tetra_gemv_frag_x16_pin), else the environment's TETRA_GEMV_FRAG_X16_MIN_M
 * (read once; 0 or 1: every M, above 16: never), else GEMV_FRAG_X16_MIN_M. Built without the
 * switch: 17 (never). Not a public entry point. */
extern "C" int tetra_gemv_frag_x16_min_m(void) {
#if TETRA_GEMV_FRAG_X16
    const int pin = g_x16_pin.load(std::memory_order_relaxed);
    if (pin >= 0) return pin;
    static const int env = [] {
        const int v = env_count("TETRA_GEMV_FRAG_X16_MIN_M");
        return v >= 0 ? v : (int)GEMV_FRAG_X16_MIN_M;
    }();
    return env;
#else
    return GEMV_MAX_M + 1;
#endif
}

/* Tests: pins the X16 threshold for this process (min_m >= 0), or drops the pin (min_m < 0).
 * Returns 1 where the build has the X16 loop (TETRA_GEMV_FRAG_X16=1), else 0 (nothing
 * pinned). Not a public entry point. */
extern "C" int tetra_gemv_frag_x16_pin(int min_m) {
#if TETRA_GEMV_FRAG_X16
    g_x16_pin.store(min_m < 0 ? -1 : min_m, std::memory_order_relaxed);
    return 1;
#else
    (void)min_m;
    return 0;
#endif
}

/* The largest M at which AUTO tries the fragment GEMV on an sm_90 device (gemm_api.c): with
 * TETRA_GEMV_FRAG_X16 16 (run 90: 1.04-1.11x the standard GEMV at M = 8..16, where v7 read
 * 0.918-0.960x in run 88), or the environment's TETRA_GEMV_FRAG_MAX_M=1..16 (read once); else
 * 8 (run 87: the 4-byte X loads lose above). */
extern "C" int tetra_gemv_frag_max_m_sm90(void) {
#if TETRA_GEMV_FRAG_X16
    static const int v = [] {
        const int e = env_count("TETRA_GEMV_FRAG_MAX_M");
        return e >= 1 && e <= GEMV_MAX_M ? e : (int)GEMV_MAX_M;
    }();
    return v;
#else
    return 8;
#endif
}

/* The fragment GEMV / v7 switch at 9..16 rows (TETRA_GEMV_FRAG_V7_SWITCH; notes:
 * gemv-switch-s25.md, script gemv-switch-s25.py): 1 when v7 (64 tokens per CTA) is estimated
 * under 0.95 x the GEMV's time. Both estimates are grid models fitted (least squares on relative
 * error) on the fitting half of runs 107 / 109 / 110 (M = 12 / 16, BF16 a, H200), in us:
 *   GEMV: 5.28 + 0.76 [S > 2] + 1.85 [S == 2] + 0.456 x ceil(CTAs / SMs) x ceil(nseg / S)
 *         (S = gemv_auto_splits, CTAs = ceil(N / 128) x S: the most CTAs one SM runs times each
 *         one's segments; at these M the SM's issue rate binds, not the stream),
 *   v7:   -0.16 + 2.15 [s > 1] + waves x (0.254 x K-tiles per CTA + 3.72)
 *         (s = split_t's under-one-wave count; waves = ceil(2 ceil(N / 256) x s / SMs)).
 * v7 at two or more waves before its split (N > 128 x SMs) never: the GEMV measured 1.04-1.55x
 * faster at every such shape. Pure (no device call): gemv_occ is the fragment GEMV's CTAs per
 * SM. v7's split is split_t's own (tetra_gemm_t_auto_splits). Not a public entry point. */
extern "C" int tetra_gemv_frag_v7_wins(int64_t m, int64_t n, int64_t k, int sms, int gemv_occ) {
    if (m < 9 || m > GEMV_MAX_M || n < 1 || k < GEMV_SEG_K || sms < 1 || gemv_occ < 1) return 0;
    const int64_t v7_ctas = (n + 255) / 256 * 2, ktiles = (k + 63) / 64;
    if (v7_ctas >= sms) return 0;
    const int64_t vs = tetra_gemm_t_auto_splits(m, n, k, 64, sms);
    const double vw = (double)((v7_ctas * vs + sms - 1) / sms);
    const double t_v7 = -0.16 + (vs > 1 ? 2.15 : 0.0) + vw * (0.254 * (double)((ktiles + vs - 1) / vs) + 3.72);
    const int64_t tiles = (n + GEMV_ROWS_PER_CTA - 1) / GEMV_ROWS_PER_CTA, nseg = k / GEMV_SEG_K;
    const int64_t gs = gemv_auto_splits(nseg, tiles, 1, sms, gemv_occ);
    const double per_sm = (double)((tiles * gs + sms - 1) / sms), segs = (double)((nseg + gs - 1) / gs);
    const double t_gemv = 5.28 + (gs > 2 ? 0.76 : 0.0) + (gs == 2 ? 1.85 : 0.0) + 0.456 * per_sm * segs;
    return t_v7 < 0.95 * t_gemv;
}

/* Whether AUTO sends this fragment-weight product (sm_90, BF16 a, L = 1) to v7 instead of the
 * GEMV: the build switch TETRA_GEMV_FRAG_V7_SWITCH (default 1; 0: never, session 22's routing), the
 * environment's TETRA_GEMV_FRAG_V7_SWITCH=0 / 1 overriding it (read once), and the estimate
 * above with this device's SM count and the GEMV's occupancy (device: the current one). */
extern "C" int tetra_gemv_frag_prefers_v7(int64_t m, int64_t n, int64_t k, int sms, int device) {
    static const int on = [] {
        const char *e = getenv("TETRA_GEMV_FRAG_V7_SWITCH");
        if (e && (e[0] == '0' || e[0] == '1') && !e[1]) return e[0] - '0';
        return TETRA_GEMV_FRAG_V7_SWITCH ? 1 : 0;
    }();
    if (!on || m < 9) return 0;
    return tetra_gemv_frag_v7_wins(m, n, k, sms, gemv_occupancy<X_BF16, false, true>(device));
}

/* Cluster-K's piece count P = 4S for a GEMV of an N x K weight (`w_interleaved`: the
 * TETRA_SCALE_INTERLEAVED_32X128 layout, else standard; x_dtype BF16 / FP16 / NVFP4), L
 * batches, as an unpinned, fast-path tetra_gemm call on ctx would take it now, or 0 where it
 * would run the ordinary kernels. For the tests (tests/gpu_gemv.c pins opts.splits = P for the
 * bit-identical twin), not a public entry point. */
extern "C" int tetra_gemv_ck_pieces(tetra_context *ctx, int64_t n, int64_t k, int64_t batch, int w_interleaved,
                                    int x_dtype) {
    if (!ctx || n < 1 || k < 1 || k > ((int64_t)1 << 30) || batch < 1) return 0;
    if (!w_interleaved && k % GEMV_SEG_K) return 0;
    const int nseg = w_interleaved ? (int)tetra_il_segments(k) : (int)(k / GEMV_SEG_K);
    int S; /* M 0: the standard layouts' rule does not depend on M */
    switch (x_dtype) {
    case TETRA_DTYPE_BF16:
        S = w_interleaved ? ck_plan<X_BF16, true>(nseg, 0, n, batch, ctx)
                          : ck_plan<X_BF16, false>(nseg, 0, n, batch, ctx);
        break;
    case TETRA_DTYPE_FP16:
        S = w_interleaved ? ck_plan<X_FP16, true>(nseg, 0, n, batch, ctx)
                          : ck_plan<X_FP16, false>(nseg, 0, n, batch, ctx);
        break;
    case TETRA_DTYPE_NVFP4:
        S = w_interleaved ? ck_plan<X_NVFP4, true>(nseg, 0, n, batch, ctx)
                          : ck_plan<X_NVFP4, false>(nseg, 0, n, batch, ctx);
        break;
    default: return 0;
    }
    return 4 * S;
}

/* The fragment GEMV's cluster-K (TETRA_GEMV_FRAG_CK): its piece count P = 4S for M tokens on an
 * N x K fragment-ordered weight (TETRA_SCALE_FRAGMENT_128X64, BF16 X), L batches, as an
 * unpinned GEMV call on ctx would take it now, or 0 where the ordinary fragment kernel would run (and
 * always 0 in a build without the switch). For the tests (tests/gpu_gemm_fragment.c pins
 * opts.splits = P for the bit-identical twin), not a public entry point. */
extern "C" int tetra_gemv_frag_ck_pieces(tetra_context *ctx, int64_t m, int64_t n, int64_t k, int64_t batch) {
#if TETRA_GEMV_FRAG_CK
    if (!ctx || n < 1 || k < 1 || k > ((int64_t)1 << 30) || k % GEMV_SEG_K || batch < 1) return 0;
    return 4 * ck_plan<X_BF16, false, true>((int)(k / GEMV_SEG_K), m, n, batch, ctx);
#else
    (void)ctx;
    (void)m;
    (void)n;
    (void)k;
    (void)batch;
    return 0;
#endif
}

/* The fragment GEMV's cluster-K mode in this process: 0 off (or built without
 * TETRA_GEMV_FRAG_CK), 1 AUTO, 2 everywhere (TETRA_GEMV_FRAG_CK=0/1/2 in the environment wins
 * over the build's value). For the tests, not a public entry point. */
extern "C" int tetra_gemv_frag_ck_mode(void) {
#if TETRA_GEMV_FRAG_CK
    return gemv_frag_ck_mode();
#else
    return 0;
#endif
}

/* Tests: the build's TETRA_GEMV_PDL_ALL (0: the PDL attribute only in the W4A4 chain). Not a public entry point. */
extern "C" int tetra_gemv_pdl_all_mode(void) { return TETRA_GEMV_PDL_ALL; }
/* Tests: 1 where TETRA_GEMV_PDL_ALL_OFF=1 turned the switch's launches off in this process */
extern "C" int tetra_gemv_pdl_all_off(void) {
#if TETRA_GEMV_PDL_ALL
    return gemv_pdl_all_off() ? 1 : 0;
#else
    return 0;
#endif
}

/* Tests: pins the cluster-K mode of both the standard and the fragment GEMV (0 off, 1 AUTO, 2
 * wherever it can run) for this process, or drops the pin (mode < 0: the environment's or the
 * build's mode again). Returns 1. Not a public entry point. */
extern "C" int tetra_gemv_ck_pin(int mode) {
    g_ck_pin.store(mode < 0 ? -1 : (mode > 2 ? 2 : mode), std::memory_order_relaxed);
    return 1;
}

/* How many clusters of S CTAs of the cluster-K kernel (BF16 X, standard W) the device keeps
 * resident at once (cudaOccupancyMaxActiveClusters; 0 if the query fails or the kernel has
 * no sm_90 code here). For the tests' log: run 78's candidate for cluster-K's loss at S = 4
 * with 512 CTAs is fewer resident clusters than the grid holds. Not a public entry point. */
extern "C" int tetra_gemv_ck_resident_clusters(int S) {
    if (S < 1 || S > GEMV_CK_MAX_S) return 0;
    void (*kernel)(gemv_params) = gemv_nvfp4_mma<X_BF16, false, true>;
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, kernel) != cudaSuccess || fa.ptxVersion < 90) {
        (void)cudaGetLastError();
        return 0;
    }
    if (S > 8 && cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return ck_resident_clusters(kernel, S);
}

/* The copy-only probe on an interleaved W of `batch` x [n, k] (tetra_convert_weights'
 * output, batch stride tetra_nvfp4_interleaved_bytes), with the grid the BF16-X kernel gets
 * under its automatic split rule, or splits_pin splits (1..segments; 0 = the rule);
 * *splits_out receives the split count. For the instrument (src/bench/arms_gemm.c), not a
 * public entry point. Returns a cudaError_t. */
extern "C" int tetra_gemv_il_copy_probe(const void *w, int64_t n, int64_t k, int64_t batch, int sms,
                                        int splits_pin, uint32_t never, uint32_t *sink, int *splits_out,
                                        void *stream) {
    if (n < 1 || k < 16 || k % 16 || k > ((int64_t)1 << 30) || batch < 1 || sms < 1 || splits_pin < 0)
        return (int)cudaErrorInvalidValue;
    int dev = -1; /* the current device (-1: the query is not cached) */
    if (cudaGetDevice(&dev) != cudaSuccess) (void)cudaGetLastError();
    const int occ = gemv_occupancy<X_BF16, true>(dev);
    const int nseg = (int)tetra_il_segments(k);
    const int64_t tiles = (n + GEMV_ROWS_PER_CTA - 1) / GEMV_ROWS_PER_CTA;
    if (splits_pin > nseg) return (int)cudaErrorInvalidValue;
    const int64_t splits = splits_pin ? splits_pin : gemv_auto_splits(nseg, tiles, batch, sms, occ);
    if (splits_out) *splits_out = (int)splits;
    /* the probe needs fewer registers: unused dynamic shared memory holds it to the
     * kernel's CTAs per SM, so the grid lands on the SMs as the kernel's does */
    size_t pad = 0;
    for (int probe_occ = 0; pad <= 16384; pad += 1024) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&probe_occ, gemv_il_copy_probe, GEMV_THREADS, pad) !=
            cudaSuccess)
            return (int)cudaGetLastError();
        if (probe_occ <= occ) break;
    }
    dim3 grid((unsigned)tiles, (unsigned)splits, (unsigned)batch);
    gemv_il_copy_probe<<<grid, GEMV_THREADS, pad, (cudaStream_t)stream>>>(
        (const uint8_t *)w, tetra_il_batch_bytes(n, k), nseg, (int)splits, never, sink);
    return (int)cudaGetLastError();
}
