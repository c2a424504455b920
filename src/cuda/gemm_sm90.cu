/*
 * gemm_sm90.cu - the Hopper (sm_90a) GEMM: D[M,N] = scale * A[M,K] * B[N,K]^T (+ bias[N]),
 * B NVFP4 (the weights), A BF16/FP16 (W4A16), batched over L with grid z. Design and
 * numbers: docs/notes/gemm-sm90.md.
 *
 *   - CTA tile BM (M) x BN (N) x 64 (K): 64 x 256, 128 x 256 or 256 x 128; 384 threads =
 *     3 warpgroups.
 *     Warpgroup 2 is the producer (setmaxnreg.dec; two warps work): warp 0 TMA-loads the
 *     A tiles (128B-swizzled BF16/FP16) into one ring, warp 1 the raw packed bytes of BN
 *     B rows and B's block scales (cp.async.bulk of whole 128x4 blocks for aligned
 *     swizzled scales, else 4-byte cp.asyncs) into another, each ring guarded by its own
 *     full/empty mbarriers; raw stages are freed as soon as they are dequantized.
 *   - Warpgroups 0 and 1 are consumers (setmaxnreg.inc): BM = 128, 64 rows x 256 columns
 *     each (m64n256k16); BM = 64, the same 64 rows x 128 columns each (m64n128k16); BM =
 *     256, 128 rows x 128 columns each (2 x m64n128k16: half the dequantization per FLOP). They
 *     dequantize raw stages into a ring of 3 swizzled 16-bit B tiles (e2m1 * ue4m3 * 2^-7 is
 *     exact in BF16 and FP16; the epilogue takes the 2^-7 back), handed to the async proxy with tfull/tempty mbarriers, and keep
 *     one wgmma group in flight across K-tiles (wait_group 1).
 *   - Split-K (chosen when the output tiles fill at most half the SMs, or pinned): CTA
 *     z = l + batch * split writes FP32 partial sums to the workspace and a second kernel
 *     adds them in split order. Repeats are bit-identical; batch-invariant products use
 *     BM = 128 and no split, so row m of D does not depend on M.
 *   - Epilogue: alpha and the device global scale in FP32, bias, one rounding, guarded
 *     stores.
 * A second family, gemm_wgmma_t_kernel (TETRA_PATH_WGMMA_T, "v7"), computes D^T = B A^T:
 * each consumer thread dequantizes its own wgmma A fragments (the weights) into registers
 * while the previous K-tile's wgmmas run, and the activations are the B operand straight
 * from the TMA tile; 128 weight rows x BT = 64 or 128 tokens per CTA (by M), split-K
 * under one wave of CTAs, launched in 2-CTA clusters along
 * N whose two CTAs share each activation tile (TMA multicast, one half loaded by each).
 * At BT = 256 (M > 128) the same family runs gemm_wgmma_t_ss_kernel ("v10" .. "v10.3"):
 * the four producer warps dequantize each raw weight tile into a ring of swizzled 16-bit
 * tiles in shared memory (a transform stage), and the consumers issue SS wgmmas only; one
 * consumer warp issues the activation loads, another the raw weight loads (transform warp 1
 * does that when the scales are not bulk-copied). Same takes and load code. On weights in
 * TETRA_SCALE_FRAGMENT_128X64 (FRAG instances) v7's consumer threads dequantize v7's prepared
 * fragments; at BT = 256 each transform thread does that for two of v7's 16-row groups and
 * stores the registers into the same swizzled W tile with stmatrix (xform_frag_consts).
 * v7.7 (build switch TETRA_GEMM_T_CK, default 1; 0: not built): v7's split-K products as clusters
 * of their S splits along z (gemm_wgmma_t_ck_kernel, v7's body with CK set: no A multicast
 * pair), the partials staged in each CTA's A ring and summed in split order from the cluster's
 * shared memory (ck_reduce_t): no workspace partials, no reduce kernel, the same bits.
 * Takes (else TETRA_ERR_UNSUPPORTED, the mma.sync kernel takes the problem): an sm_90
 * device and a binary with sm_90a code; A BF16/FP16 (W4A4 arrives here as A staged in
 * BF16 by gemm_api.c), 16-byte
 * aligned, ld and batch stride multiples of 8 elements; B data 16-byte aligned, ld and
 * batch stride multiples of 32 elements (TMA needs 16-byte global strides); any M, N;
 * any K that is a multiple of 16 and of 32 (the tails of the last K-tile, rows past M
 * and N are zero-filled by TMA / cp.async). Scales: any layout and alignment.
 */
#include <stdint.h>
#include <stdio.h> /* TETRA_GEMM_TRACE builds: launch_traced */
#include <stdlib.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include "common.cuh"
#include "launch.h"
#include "../format/fragment_map.h" /* the BT-256 FRAG transform's offsets */
#include "gemv_warp.cuh"             /* prmt, half_bcast */
#include "smem.cuh"
#include "wgmma.cuh" /* TETRA_SM90_DEVICE */

/* v7.7, cluster-K for v7's split-K (docs/notes/gemm-sm90.md, "v7.7"): 0 builds none of it
 * (the other kernels' SASS is the same either way); 1 (default since session 19, run 96): AUTO
 * runs v7's split-K products as clusters of their splits, reduced in the cluster's shared
 * memory, where the clusters fit in one wave, and (session 26, TETRA_GEMM_T_CK_RULE) where the
 * tile rule chooses a cluster-K split; 2: also pinned splits (tests, tune's wgmma_t_ck pins). With 1 or 2
 * the environment's TETRA_GEMM_T_CK=0 / 1 / 2 overrides it (read once). CMake sets it (cache
 * variable of the same name). */
#ifndef TETRA_GEMM_T_CK
#define TETRA_GEMM_T_CK 1
#endif

/* v7.9, v7's prologue under the previous kernel (docs/notes/gemm-sm90.md, "v7.9"; CMake cache
 * variable of the same name). 0: ordinary launches, no griddepcontrol in the kernels. 1 (default
 * since session 20, run 99): v7 (gemm_wgmma_t_kernel and v7.7's gemm_wgmma_t_ck_kernel, BT 64 /
 * 128) is launched as a programmatic dependent of the previous kernel on the stream where its
 * grid leaves SMs idle (v7_launch_attrs): its mbarrier inits, cluster barrier and
 * setmaxnreg run while that kernel finishes; every thread executes griddepcontrol.wait before its
 * first global memory access, and each CTA lets the next kernel be scheduled after its K loop.
 * 2 (an experiment, never a default): also the raw issuer's first SR weight stages (TMA and
 * block-scale loads) before its wait. Correct ONLY when no kernel still running before the GEMM
 * writes the weights or their scales (e.g. tetra_convert_weights right before the GEMM on the
 * same stream breaks it); the activations, bias, global scale, D and the workspace still wait. */
#ifndef TETRA_GEMM_V7_PDL
#define TETRA_GEMM_V7_PDL 1
#endif
static_assert(TETRA_GEMM_V7_PDL >= 0 && TETRA_GEMM_V7_PDL <= 2, "TETRA_GEMM_V7_PDL: 0, 1 or 2");

/* W4A4 PDL (docs/notes/gemm-sm90.md, "W4A4 PDL: the BT-256 kernels under the staging pass"; CMake
 * cache variable of the same name). 0: ordinary launches of the BT-256 kernels after the pass. 1 (default since
 * session 21, run 105: 0.981 (CI [0.973, 1.017], within noise) / 0.993 / 0.990 / 0.997x the time at
 * 1024x4096x4096, 2048x14336x4096, 4096^3, 4096x4096x14336 on fragment weights, 0.974 / 0.985 at
 * 1024x4096x4096 / 4096^3 on standard; same bits): a W4A4 product
 * whose A the staging pass (gemm_api.c, launch_staged: p->pdl) has just dequantized, at BT 256
 * (v10.3 gemm_wgmma_t_ss_kernel, v10.8 gemm_wgmma_t_ss_p_kernel, BF16 A), is launched as a
 * programmatic dependent of that pass (which triggers its dependents at entry): the kernel's
 * PDL instances run the mbarrier inits, the cluster barrier, setmaxnreg and the weight stages
 * (raw B and its scales: the raw lead, the transform warps' own loads) before
 * griddepcontrol.wait; every read of A, the bias, B's device global scale, the workspace and
 * counters, and every write of D come after it, in every thread that does them (the consumer
 * warpgroups wait right after the raw issuer's lead). B before the wait is safe ONLY because
 * the previous kernel is the staging pass, which writes only the staging buffer (A), and was
 * itself an ordinary launch: whatever wrote B (a kernel, tetra_convert_weights, a copy) had
 * completed, memory flushed, before the pass began, and this kernel cannot begin before the
 * pass has. The kernels trigger no dependents (the implicit trigger at exit): the kernels
 * after them are ordered as before. W4A16, traced calls and FP16 A: the ordinary instances. */
#ifndef TETRA_GEMM_W4A4_PDL
#define TETRA_GEMM_W4A4_PDL 1
#endif
static_assert(TETRA_GEMM_W4A4_PDL == 0 || TETRA_GEMM_W4A4_PDL == 1, "TETRA_GEMM_W4A4_PDL: 0 or 1");

/* v7.10, no A multicast pair at small M (docs/notes/gemm-sm90.md, "v7.10"; CMake cache variable
 * of the same name). 0: the 2-CTA pair at every tile. 1 (default since session 20, run 99): v7's ordinary kernel
 * (gemm_wgmma_t_kernel) at BT 64 (M <= 64) runs without its 2-CTA pair: each CTA loads its whole
 * activation tile (two half boxes, as v7.7's cluster-K kernel does), its aempty stages count its
 * own 8 consumer warps, no remote arrivals, clusters of 1 CTA, grid x = ceil(N / 128). 2: BT 128
 * too. Same arithmetic, same bits; cluster-K, the BT-256 kernels unchanged. V7_A_LOCAL(BT): whether
 * the ordinary v7 kernel of tile BT runs so. */
#ifndef TETRA_GEMM_V7_A_LOCAL
#define TETRA_GEMM_V7_A_LOCAL 1
#endif
static_assert(TETRA_GEMM_V7_A_LOCAL >= 0 && TETRA_GEMM_V7_A_LOCAL <= 2, "TETRA_GEMM_V7_A_LOCAL: 0, 1 or 2");
#define V7_A_LOCAL(BT) ((BT) == 64 ? TETRA_GEMM_V7_A_LOCAL >= 1 : (BT) == 128 && TETRA_GEMM_V7_A_LOCAL >= 2)

namespace {

/* Configuration (CTA tile BM rows of A/D x BN rows of B/columns of D):
 *   BM = 128, BN = 256: each consumer warpgroup owns 64 rows x 256 columns (m64n256k16);
 *   BM = 64, BN = 256: both consumer warpgroups share the 64 rows, each owning 128 columns
 *     (m64n128k16), which doubles the CTAs for M <= 64;
 *   BM = 256, BN = 128: each consumer warpgroup owns 128 rows x 128 columns (2 x m64n128k16
 *     per k16 step). Same accumulators per thread and tensor work per K-tile as BM = 128,
 *     but each dequantized weight element feeds 256 rows instead of 128: half the
 *     dequantization per FLOP (docs/notes/gemm-sm90.md, "v5").
 * The raw ring is deeper for BM = 64 (small M is bound by the weight stream, so more
 * bytes in flight pay) and for BM = 256 (its raw stages are half the size). */
enum {
    W_BK = 64,  /* K per stage: one 128-byte swizzle row of 16-bit elements */
    W_TILES = 3, /* dequantized B tiles: one in the tensor cores, one waiting, one being written */
    W_THREADS = 384,
    W_CONSUMERS = 256,
    SPLIT_MAX = 16
};
/* Two load rings: A tiles (SA stages, released when the wgmma that read them completes)
 * and raw B + scales (SR stages, released as soon as they are dequantized, one K-tile
 * before their wgmma runs). Separate rings let each load be issued as early as its own
 * slot allows: lead before use about SA - 1.3 K-tiles for A and SR for raw B (v3's one
 * shared ring of 4 gave raw B about 1.5). */
template <int BM> struct cfg {
    /* an enum, not static constexpr members: the non-sm_90a passes use only some of them */
    enum {
        BN = BM == 256 ? 128 : 256, /* rows of B (N) per CTA */
        SA = BM == 64 ? 6 : BM == 128 ? 5 : 4,
        SR = BM == 128 ? 5 : 8,
        A_TILE_BYTES = BM * W_BK * 2,
        BT_TILE_BYTES = BN * W_BK * 2, /* dequantized B tile: 32 KiB (BN 256), 16 KiB (BN 128) */
        BRAW_BYTES = BN * W_BK / 2,    /* packed B */
        BSC_BYTES = BN * (W_BK / 16),  /* block scales, [row][4] */
        WM = BM == 256 ? 128 : 64,     /* rows per consumer warpgroup */
        MB = WM / 64,                  /* m64 row blocks per consumer warpgroup */
        WN = BM == 128 ? 256 : 128,    /* columns per consumer warpgroup */
        NACC = MB * WN / 2,            /* FP32 accumulators per thread */
        OFF_A = 0,
        OFF_BT = OFF_A + SA * A_TILE_BYTES,
        OFF_BRAW = OFF_BT + W_TILES * BT_TILE_BYTES,
        OFF_BSC = OFF_BRAW + SR * BRAW_BYTES,
        OFF_BAR = OFF_BSC + SR * BSC_BYTES,
        SMEM_BYTES = OFF_BAR + (2 * SA + 2 * SR + 2 * W_TILES) * 8 + 1024 /* + alignment slack */
    };
};
static_assert(cfg<128>::SMEM_BYTES <= 227 * 1024 && cfg<64>::SMEM_BYTES <= 227 * 1024 &&
                  cfg<256>::SMEM_BYTES <= 227 * 1024,
              "shared memory");

struct sm90_params {
    int m, n, k, ktiles;
    /* B block scales */
    const uint8_t *scales;
    int64_t scale_ld, scale_batch;
    int nkb, swizzled, scale_vec4;
    /* swizzled scales, 16-byte aligned base and batch stride: each stage's scales are the
     * two 512-byte 128x4 blocks of its 256 rows, copied whole by cp.async.bulk (one per
     * existing 128-row block) and read in that layout */
    int scale_bulk;
    /* D */
    void *d;
    int64_t ldd, d_batch;
    int d_dtype, d_pair;
    const void *bias;
    int bias_dtype;
    float alpha;
    const float *gb;
    int batch;
    /* split-K: CTA z = l + batch * split takes K-tiles [split*ktiles/splits, (split+1)*ktiles/splits)
     * and (splits > 1) writes FP32 partial sums to ws[split][l][m][n]; the reduce kernel adds
     * them in split order */
    int splits;
    float *ws;
    /* the transposed kernel's in-kernel split-K reduce (NULL: the reduce kernel runs):
     * one arrival counter per output tile after the partials, and this launch's tag */
    unsigned long long *counters;
    unsigned long long tag;
    int diag; /* TETRA_GEMM_DIAG builds only: 1 no dequant, 3 no scale loads, 4 = 1+3; v7: 9 each A stage
               * loaded once (then stale), 10 each raw stage loaded once, 11 = 9+10 (timing only: wrong bits) */
    int frag; /* B in TETRA_SCALE_FRAGMENT_128X64 (the launcher picks v7's FRAG instances) */
#ifdef TETRA_GEMM_TRACE
    unsigned long long *trace; /* v10.3's / v7's per-CTA clock trace (NULL: none), trace_stride words per CTA */
    long long trace_stride;
#endif
};

/* Set in each device image: 1 only where the kernel body below is real (sm_90a). The
 * launcher reads it once per device, so a build without sm_90a code reports
 * UNSUPPORTED instead of running an empty kernel. */
__device__ int g_wgmma_kernel_built = TETRA_SM90_DEVICE;

/* TETRA_GEMM_TRACE builds only (-DTETRA_GEMM_TRACE in CMAKE_CUDA_FLAGS; a diagnostic, never
 * shipped): the BT-256 kernel (v10.3) and v7 (BT 64 / 128) write a clock trace of every CTA when
 * the launcher was asked for one (TETRA_GEMM_TRACE_OUT, launch_t, launch_traced). Per CTA,
 * trace_stride 64-bit words: a 16-word header (SS_TR_* below; v7 adds V7_TR_*), then per
 * K-tile SS_TK_N (v10.3) or V7_TK_N (v7) 32-bit SM-clock readings, two per word.
 * v10.3 (SS_TK_*): consumer warp 0 around its waits, lane 0 of each transform warp after its
 * W-empty wait and after its W-full arrive, the A issuer after its step.
 * clock64 is per SM: CLK0 and STORED hold all 64 bits (CTAs of one SM compare), the rest the
 * low 32. */
enum { SS_TR_SMID, SS_TR_GT0, SS_TR_CLK0, SS_TR_INIT, SS_TR_LOOP_END, SS_TR_DRAINED, SS_TR_STORED, SS_TR_GT1,
       SS_TR_NK, SS_TR_SYNCED, SS_TR_HDR = 16 };
enum { SS_TK_C_WAIT, SS_TK_C_WFULL, SS_TK_C_AFULL, SS_TK_C_PREV_DONE, SS_TK_X_WEMPTY0, /* + transform warp */
       SS_TK_X_DONE0 = SS_TK_X_WEMPTY0 + 4, SS_TK_A_ISSUED = SS_TK_X_DONE0 + 4, SS_TK_N };
/* v7's trace (session 18 helper v7trace; docs/notes/v7-trace.py reads it). Header: SS_TR_*
 * as above for thread 0 (warpgroup 0: INIT = first K-tile start, LOOP_END, DRAINED = after
 * wgmma_wait<0>, STORED / GT1 = epilogue end), the same three 32-bit readings and the
 * epilogue end of thread 128 (warpgroup 1) in V7_TR_*1, and V7_TR_LAYOUT = V7_TK_N | FRAG << 8
 * | BT << 16. Per K-tile i, lane 0 of consumer warps 0 and 4 (one per warpgroup; warpgroup 1's
 * readings at + V7_TK_WG): C_RFULL its rfull wait returned for raw stage i, C_DEQUANT that
 * stage dequantized (K-tile i's fragments, made during K-tile i - 1's step), C_AFULL its
 * afull wait returned for A stage i, C_ISSUED K-tile i's 4 wgmmas issued and committed,
 * C_WAIT1 its wgmma_wait<1> returned (K-tile i - 1's group complete); the A issuer (producer
 * warp 0, lane 0): A_EMPTY its aempty wait for stage i returned, A_ISSUED stage i's TMA
 * issued; the raw issuer (producer warp 1, lane 0): R_EMPTY its rempty wait returned,
 * R_ISSUED the TMA and bulk scale copies of raw stage i issued. An issuer's empty wait for
 * stage i took (X_EMPTY[i] - X_ISSUED[i - 1]). */
enum { V7_TR_INIT1 = 10, V7_TR_LOOP_END1, V7_TR_DRAINED1, V7_TR_STORED1, V7_TR_LAYOUT = 15 };
enum { V7_TK_C_RFULL, V7_TK_C_DEQUANT, V7_TK_C_AFULL, V7_TK_C_ISSUED, V7_TK_C_WAIT1, V7_TK_WG, /* + warpgroup 1 */
       V7_TK_A_EMPTY = 2 * V7_TK_WG, V7_TK_A_ISSUED, V7_TK_R_EMPTY, V7_TK_R_ISSUED, V7_TK_N };
static_assert((int)V7_TR_LAYOUT < (int)SS_TR_HDR, "trace header");
#ifdef TETRA_GEMM_TRACE
#define TETRA_V7_TRACED true /* v7's readings compiled in (written only when p.trace is set) */
#else
#define TETRA_V7_TRACED false
#endif
/* v7's setmaxnreg split: producer 56, consumers 224 (128 x 56 + 256 x 224 = 384 x 168). The
 * producer region is held to its value; the raw issuer's trace readings need a few more
 * registers there (4 bytes spilled at 56), so TETRA_GEMM_TRACE builds give it 64 and the
 * consumers 216 (they are compiled to the launch bound's 168 either way: no change there). */
enum { V7_PRODUCER_REGS = TETRA_V7_TRACED ? 64 : 56, V7_CONSUMER_REGS = TETRA_V7_TRACED ? 216 : 224 };
static_assert(128 * V7_PRODUCER_REGS + 256 * V7_CONSUMER_REGS <= 168 * 384, "setmaxnreg pool");
#if TETRA_SM90_DEVICE
#ifdef TETRA_GEMM_TRACE
__device__ __forceinline__ unsigned long long *ss_trace_cta(const sm90_params &p) {
    const long long cta = blockIdx.x + (long long)gridDim.x * (blockIdx.y + (long long)gridDim.y * blockIdx.z);
    return p.trace + cta * p.trace_stride;
}
__device__ __forceinline__ unsigned long long ss_globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#define SS_TRACE_HDR(p, w, v)                                                                                         \
    do {                                                                                                              \
        if ((p).trace) ss_trace_cta(p)[w] = (v);                                                                      \
    } while (0)
/* reading e of K-tile i, n readings per K-tile: one 32-bit store */
#define TR_KT(p, n, i, e)                                                                                             \
    do {                                                                                                              \
        if ((p).trace) ((uint32_t *)(ss_trace_cta(p) + SS_TR_HDR))[(i) * (n) + (e)] = (uint32_t)clock64();           \
    } while (0)
#define SS_TRACE_KT(p, i, e) TR_KT(p, SS_TK_N, i, e)
/* v7: row0 = this CTA's first reading of K-tile 0 (v7_trace_row0; NULL: none), computed once
 * (re-deriving the CTA's row per reading cost ~15 instructions each) */
__device__ __forceinline__ uint32_t *v7_trace_row0(const sm90_params &p) {
    return p.trace ? (uint32_t *)(ss_trace_cta(p) + SS_TR_HDR) : nullptr;
}
#define V7_TRACE_KT(row0, i, e)                                                                                       \
    do {                                                                                                              \
        if (row0) (row0)[(i) * V7_TK_N + (e)] = (uint32_t)clock64();                                                  \
    } while (0)
#else
#define SS_TRACE_HDR(p, w, v) ((void)0)
#define SS_TRACE_KT(p, i, e) ((void)0)
__device__ __forceinline__ uint32_t *v7_trace_row0(const sm90_params &p) {
    (void)p;
    return nullptr;
}
#define V7_TRACE_KT(row0, i, e) ((void)0)
#endif
/* the CTA's first and last readings (thread 0) */
__device__ __forceinline__ void ss_trace_begin(const sm90_params &p, uint32_t cta_rank, int nk) {
#ifdef TETRA_GEMM_TRACE
    if (!p.trace) return;
    unsigned long long *h = ss_trace_cta(p);
    uint32_t smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    h[SS_TR_SMID] = smid | (unsigned long long)cta_rank << 32;
    h[SS_TR_GT0] = ss_globaltimer();
    h[SS_TR_CLK0] = clock64(); /* all 64 bits: CTAs of one SM compare */
    h[SS_TR_NK] = (unsigned long long)nk;
#else
    (void)p;
    (void)cta_rank;
    (void)nk;
#endif
}
__device__ __forceinline__ void ss_trace_end(const sm90_params &p) {
#ifdef TETRA_GEMM_TRACE
    if (!p.trace) return;
    ss_trace_cta(p)[SS_TR_STORED] = clock64();
    ss_trace_cta(p)[SS_TR_GT1] = ss_globaltimer();
#else
    (void)p;
#endif
}
#endif /* TETRA_SM90_DEVICE */

#if TETRA_SM90_DEVICE
/* This CTA's batch index, split and K-tile range [kt0, kt0 + nk) (grid z = l + batch * split;
 * cluster-K: z = split + splits * l),
 * as the three kernels read them. nk is shuffled: ptxas computes the 64-bit divisions in
 * vector registers, and a K-tile count it does not know to be uniform made the loop's ring
 * counters per-thread. */
struct cta_split {
    int l, split, kt0, nk;
};
template <bool CK = false> __device__ __forceinline__ cta_split cta_split_of(const sm90_params &p) {
    cta_split c;
    /* CK (v7.7, cluster-K): z = split + splits * l instead, so that the splits of one output
     * tile are consecutive in z: one cluster of (1, 1, splits) */
    c.l = CK ? (int)(blockIdx.z / (unsigned)p.splits) : (int)(blockIdx.z % (unsigned)p.batch);
    c.split = CK ? (int)(blockIdx.z % (unsigned)p.splits) : (int)(blockIdx.z / (unsigned)p.batch);
    c.kt0 = (int)((int64_t)c.split * p.ktiles / p.splits);
    c.nk = __shfl_sync(0xFFFFFFFFu, (int)((int64_t)(c.split + 1) * p.ktiles / p.splits) - c.kt0, 0);
    return c;
}

/* ---- mbarriers, by 32-bit shared address (computed once per kernel: generic pointers
 * made ptxas re-derive the aligned shared base, S2UR + 64-bit rounding, every K-tile) */
__device__ __forceinline__ void mbar_init(uint32_t bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}
/* The retry loop is inside the asm (labels in a { } block are local to it): a C loop
 * around try_wait made ptxas treat everything after it as divergent, so the ring
 * counters left the uniform datapath. */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    asm volatile("{\n.reg .pred p;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra WAIT;\n}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}
/* Non-blocking: 1 if the phase with this parity has completed (mbarrier.test_wait never
 * suspends the thread, unlike try_wait). */
__device__ __forceinline__ uint32_t mbar_test(uint32_t bar, uint32_t parity) {
    uint32_t done;
    asm volatile("{\n.reg .pred p;\n"
                 "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return done;
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
/* Arrive once this thread's earlier cp.asyncs have landed (counted in the init count). */
__device__ __forceinline__ void mbar_arrive_cp_async(uint32_t bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

/* A position in a ring of S stages: the slot and the parity of the slot's current phase
 * (it flips at each wrap). Replaces i % S and (i / S) & 1, which ptxas compiled to
 * multiply-high divisions for S = 3 and 5 in the K loop. A consumer of "empty" barriers
 * waits on phase ^ 1: on a fresh barrier that parity counts as completed, so the first
 * round passes without a special case. */
template <int S> struct ring_pos {
    uint32_t slot, phase;
    __device__ __forceinline__ void next() {
        if (++slot == S) {
            slot = 0;
            phase ^= 1;
        }
    }
};

/* ---- TMA: a 3-D box (inner, row, batch) into shared memory, completing on bar */
__device__ __forceinline__ void tma_load_3d(uint32_t dst, const CUtensorMap *map, int c0, int c1, int c2,
                                            uint32_t bar) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ void bulk_load(uint32_t dst, const void *src, unsigned bytes, uint32_t bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}

/* ---- 2-CTA clusters (the transposed kernel): both CTAs of a pair share one activation
 * tile, each loading half of it into both (TMA multicast). */
__device__ __forceinline__ uint32_t cluster_ctarank() {
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
/* Arrive on a barrier of another CTA of the cluster (addr from mapa_shared). The default
 * semantics (release at CTA scope), as for the local arrivals: what the arrival permits
 * is the peer's TMA overwriting a stage this thread's wgmmas read, and wgmma.wait_group
 * has already seen those reads complete. .release.cluster would add MEMBAR.ALL.GPU before
 * every arrival (SASS, nvcc 13.0), i.e. once per K-tile in every consumer warp. */
__device__ __forceinline__ void mbar_arrive_remote(uint32_t cluster_addr) {
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(cluster_addr) : "memory");
}
/* tma_load_3d into the same offset `dst` of every CTA in cta_mask, each copy completing
 * on the barrier at offset `bar` of its own CTA. */
__device__ __forceinline__ void tma_load_3d_multicast(uint32_t dst, const CUtensorMap *map, int c0, int c1, int c2,
                                                      uint32_t bar, uint16_t cta_mask) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(cta_mask)
                 : "memory");
}
/* Cluster-wide barrier (all non-exited threads of both CTAs), split in its two halves. */
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release;\n" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory"); }
/* An arrival that orders nothing (cluster-K's exit barrier: it only keeps this CTA's shared
 * memory alive; the loads it guards have returned, their sum is stored) */
__device__ __forceinline__ void cluster_arrive_relaxed() {
    asm volatile("barrier.cluster.arrive.relaxed;\n" ::: "memory");
}

__device__ __forceinline__ void cp_async4(uint32_t dst, const void *src, int src_bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}

/* ---- wgmma (descriptor, fences, RS m64n64k16: wgmma.cuh) */

/* The 128 FP32 accumulator registers of one m64n256k16 wgmma, written once for both input
 * types (the instruction strings differ only in the type suffix). */
#define TETRA_WGMMA_N256_ACC_REGS \
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
        "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63," \
        "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79," \
        "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95," \
        "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111," \
        "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
#define TETRA_WGMMA_N256_ACC_OPERANDS \
          "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
#define TETRA_WGMMA_M64N256K16(TYPE)                                                               \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                   \
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE " "                    \
                 "{" TETRA_WGMMA_N256_ACC_REGS "}, %128, %129, p, 1, 1, 0, 0;\n}\n"                \
                 : TETRA_WGMMA_N256_ACC_OPERANDS                                                  \
                 : "l"(desc_a), "l"(desc_b), "r"(1))

#define TETRA_WGMMA_N128_ACC_REGS "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
#define TETRA_WGMMA_N128_ACC_OPERANDS "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define TETRA_WGMMA_M64N128K16(TYPE)                                                               \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                    \
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " "                    \
                 "{" TETRA_WGMMA_N128_ACC_REGS "}, %64, %65, p, 1, 1, 0, 0;\n}\n"                 \
                 : TETRA_WGMMA_N128_ACC_OPERANDS                                                  \
                 : "l"(desc_a), "l"(desc_b), "r"(1))

template <bool IS_BF16> __device__ __forceinline__ void wgmma_m64n256k16(float d[128], uint64_t desc_a, uint64_t desc_b);
template <> __device__ __forceinline__ void wgmma_m64n256k16<true>(float d[128], uint64_t desc_a, uint64_t desc_b) {
    TETRA_WGMMA_M64N256K16("bf16");
}
template <> __device__ __forceinline__ void wgmma_m64n256k16<false>(float d[128], uint64_t desc_a, uint64_t desc_b) {
    TETRA_WGMMA_M64N256K16("f16");
}

template <bool IS_BF16> __device__ __forceinline__ void wgmma_m64n128k16(float d[64], uint64_t desc_a, uint64_t desc_b);
template <> __device__ __forceinline__ void wgmma_m64n128k16<true>(float d[64], uint64_t desc_a, uint64_t desc_b) {
    TETRA_WGMMA_M64N128K16("bf16");
}
template <> __device__ __forceinline__ void wgmma_m64n128k16<false>(float d[64], uint64_t desc_a, uint64_t desc_b) {
    TETRA_WGMMA_M64N128K16("f16");
}
/* One k16 step of one m64 row block: 64 rows x WN columns. */
template <bool IS_BF16, int WN>
__device__ __forceinline__ void wgmma_k16(float *d, uint64_t desc_a, uint64_t desc_b) {
    if (WN == 256) wgmma_m64n256k16<IS_BF16>(d, desc_a, desc_b);
    else wgmma_m64n128k16<IS_BF16>(d, desc_a, desc_b);
}


/* ---- dequantization: E2M1 pairs straight into 16-bit pairs.
 * W holds two codes s|mmm in bits 0-3 and 16-19. Their magnitude bits placed at the
 * low exponent bits (BF16 bits 6-8, FP16 bits 9-11) read as e2m1 * 2^-126 (BF16) or
 * e2m1 * 2^-14 (FP16), the e = 0 codes as subnormals, which half-precision multiplies
 * keep; the sign bit goes to bit 15. ONE exact multiply by the block scale pre-multiplied
 * by 2^119 (BF16) / 2^7 (FP16) gives e2m1 * ue4m3 * 2^-7: the operand carries a factor
 * 2^-7 (B_EXP2) that the FP32 epilogue takes back (powers of two: bit-identical outputs
 * except where FP32 partial sums would fall below 2^-119). The ue4m3 * 2^119 factor
 * (at most 448 * 2^119 < 2^128) and every product (>= 2^-17) are normal and exact.
 * BF16: w * 0x1040 = (w << 6) + (w << 12), and the two shifted copies share no bit
 * (codes at bits 0-3, 16-19), so one IMAD replaces two shifts and an OR. FP16's shifts
 * (9 and 12) overlap at bit 12, so it keeps the shift form. */
enum { B_EXP2 = 7 };
template <bool IS_BF16> __device__ __forceinline__ uint32_t e2m1x2_bits(uint32_t w) {
    if (IS_BF16) return (w * 0x1040u) & 0x81C081C0u;
    return ((w << 9) | (w << 12)) & 0x8E008E00u;
}
template <bool IS_BF16> __device__ __forceinline__ uint32_t mul2(uint32_t a, uint32_t b) {
    uint32_t r;
    if (IS_BF16) asm("mul.rn.bf16x2 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(b));
    else asm("mul.rn.f16x2 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
/* A UE4M3 code as a 16-bit pair (v, v), v = ue4m3 * 2^119 (BF16) or ue4m3 * 2^7 (FP16):
 * its bits shifted into a float's exponent and mantissa read as ue4m3 * 2^-120 (e = 0: a
 * float subnormal, exact), times 2^120, times the operand factor. The NaN code 0x7F stays
 * NaN. */
template <bool IS_BF16> __device__ __forceinline__ uint32_t scale_pair(uint32_t code) {
    float v = __uint_as_float((code & 0x7Fu) << 20) * 0x1p120f;
    v *= IS_BF16 ? 0x1p119f : 0x1p7f; /* e2m1 bits carry 2^-126 / 2^-14; leave 2^-B_EXP2 */
    if ((code & 0x7Fu) == 0x7Fu) v = __int_as_float(0x7FC00000);
    if (IS_BF16) {
        __nv_bfloat162 h = __floats2bfloat162_rn(v, v);
        return *(uint32_t *)&h;
    }
    __half2 h = __floats2half2_rn(v, v);
    return *(uint32_t *)&h;
}

/* (shared-space accesses by 32-bit shared address: smem.cuh) */

/* Per-thread offsets of the dequantization, loop-invariant (ptxas recomputed ~25
 * address instructions per K-tile from t when they were written inside the loop).
 * Thread t (0..255) does row r = t/2 (+128 for the second 128 rows of a 256-row stage),
 * half h = t%2 (elements 32h .. 32h+31). Row r + 128 lies at raw + 4096, scales + 512
 * (either layout) and tile + 16384, so one set of offsets serves both.
 *   raw: r*32 + 16h;
 *   scales: [row][4]: 4r + 2h; the 128x4 block layout of a bulk-copied stage:
 *     16*(r%32) + 4*(r/32) + 2h;
 *   tile: chunk h*4+q of row r sits at r*128 + (((h*4+q) ^ (r%8)) << 4)
 *     = (r*128 + (((4h) ^ (r%8)) << 4)) ^ (q << 4) (q < 4 only touches bits 4-5, the
 *     tile base is 1024-aligned), so one offset and an XOR per chunk. */
struct dq_offsets {
    uint32_t raw, sc, tile;
};
__device__ __forceinline__ dq_offsets dequant_offsets(int t, int sc_swizzled) {
    const uint32_t r = (uint32_t)t >> 1, h = (uint32_t)t & 1;
    dq_offsets o;
    o.raw = r * 32 + h * 16;
    o.sc = (sc_swizzled ? 16 * (r & 31) + 4 * (r >> 5) : r * 4) + h * 2;
    o.tile = r * 128 + (((h * 4) ^ (r & 7)) << 4);
    return o;
}

/* Dequantize one raw stage (ROWS = 256 or 128 rows x 32 packed bytes, and their scales)
 * into a swizzled ROWSx64 16-bit tile, by the 256 consumer threads: per row handled, 16
 * raw bytes, 2 scales, four 16-byte stores (offsets: dq_offsets). raw, sc and tile are
 * the stage addresses plus this thread's offsets. Raw reads and tile stores are
 * bank-conflict free (8 threads of a phase: 4 rows x 2 halves, distinct 16-byte bank
 * groups); the bulk layout's 2-byte scale reads hit banks 4*(r%8) (a 2-way conflict on
 * one small load). */
template <bool IS_BF16, int ROWS>
__device__ __forceinline__ void dequant_b_tile(uint32_t tile, uint32_t raw, uint32_t sc) {
#pragma unroll
    for (int u = 0; u < ROWS / 128; u++) {
        const uint4 v = lds128(raw + 4096 * u);
        const uint32_t s2 = lds16(sc + 512 * u);
        const uint32_t words[4] = {v.x, v.y, v.z, v.w};
        const uint32_t sp[2] = {scale_pair<IS_BF16>(s2 & 0xFFu), scale_pair<IS_BF16>(s2 >> 8)};
        const uint32_t row_tile = tile + 16384 * u;
#pragma unroll
        for (int q = 0; q < 4; q++) { /* 8-element chunk q of this half; its block is q/2 */
            const uint32_t x = words[q];
            const uint32_t ev = x & 0x0F0F0F0Fu, od = (x >> 4) & 0x0F0F0F0Fu;
            uint32_t o[4];
#pragma unroll
            for (int p = 0; p < 4; p++) {
                /* bytes [even code p, 0, odd code p, 0]; selector 8 copies the (zero)
                 * sign bit of ev's byte 0 */
                uint32_t w = prmt(ev, od, 0x8080u | (uint32_t)p | ((uint32_t)(4 + p) << 8));
                o[p] = mul2<IS_BF16>(e2m1x2_bits<IS_BF16>(w), sp[q >> 1]);
            }
            sts128(row_tile ^ ((uint32_t)q << 4), o[0], o[1], o[2], o[3]);
        }
    }
}

/* Where and how a CTA writes its outputs: D itself (scale, bias, D's dtype) or, under
 * split-K, its FP32 slice of the workspace (raw sums). */
struct epi_dst {
    uint8_t *d;
    int64_t ldd;
    int m, n, dtype, pair, bias_dtype;
    const void *bias;
};

/* Store two adjacent outputs (col, col+1) of row `row`; col+1 may be out of range. */
/* not inlined: 64 inlined copies of the dtype switches make cicc take many minutes */
__device__ __noinline__ void store_pair(const epi_dst &e, int row, int col, float v0, float v1) {
    if (row >= e.m || col >= e.n) return;
    int64_t i = (int64_t)row * e.ldd + col;
    if (e.bias) {
        v0 += tetra_load_dense(e.bias, col, (tetra_dtype)e.bias_dtype);
        if (col + 1 < e.n) v1 += tetra_load_dense(e.bias, col + 1, (tetra_dtype)e.bias_dtype);
    }
    if (e.pair && col + 1 < e.n) {
        switch (e.dtype) {
        case TETRA_DTYPE_FP32: *(float2 *)((float *)e.d + i) = make_float2(v0, v1); break;
        case TETRA_DTYPE_FP16: *(__half2 *)((__half *)e.d + i) = __floats2half2_rn(v0, v1); break;
        default: *(__nv_bfloat162 *)((__nv_bfloat16 *)e.d + i) = __floats2bfloat162_rn(v0, v1); break;
        }
        return;
    }
    tetra_store_dense(e.d, i, (tetra_dtype)e.dtype, v0);
    if (col + 1 < e.n) tetra_store_dense(e.d, i + 1, (tetra_dtype)e.dtype, v1);
}

/* The copies of one raw stage, by one thread (the raw issuer's lane 0 or elected lane): expect
 * the stage's bytes on `full`, then the raw weight bytes of K-tiles kt .. kt + nt - 1 (FRAG:
 * one box of KT fragment blocks, 16 rows of tm_b's 256-byte view each; standard: one box per
 * K-tile) and the bulk copies of nblk whole 128x4 scale blocks (512 * nt bytes each). Slot
 * layout as produce_raw_stage describes. */
template <class C, bool FRAG, int KT = 1>
__device__ __forceinline__ void issue_raw_copies(const CUtensorMap *tm_b, const sm90_params &p, uint32_t sb,
                                                 uint32_t full, uint32_t slot, int n0, int l, int kt, int nt,
                                                 int nblk) {
    const uint8_t *sc = p.scales + (int64_t)l * p.scale_batch;
    const uint32_t raw = sb + C::OFF_BRAW + slot * (KT * C::BRAW_BYTES);
    mbar_arrive_expect_tx(full, (FRAG ? KT : nt) * C::BRAW_BYTES + 512 * nt * nblk);
    /* FRAG: K-tile kt of 128-row block n0 / 128 is the 4096-byte fragment block
     * n0 / 128 * ktiles + kt */
    if (FRAG) tma_load_3d(raw, tm_b, 0, 16 * ((n0 / 128) * p.ktiles + kt), l, full);
    else
        for (int u = 0; u < nt; u++) tma_load_3d(raw + u * C::BRAW_BYTES, tm_b, (kt + u) * (W_BK / 2), n0, l, full);
    for (int b = 0; b < nblk; b++)
        bulk_load(sb + C::OFF_BSC + slot * (KT * C::BSC_BYTES) + 512 * b,
                  sc + 512 * ((int64_t)(n0 / 128 + b) * ((p.nkb + 3) / 4) + kt), 512 * nt, full);
}

/* One raw stage (packed weights + block scales of K-tile kt) into raw slot `slot`, by one
 * whole warp: every lane waits for the slot to be free (`empty`, the phase before `phase`),
 * lane 0 issues the TMA (and the bulk scale copies), every lane arrives on `full` (its
 * init count is 1 + 32), after its cp.asyncs of the scale codes for linear or unaligned
 * scales. V7TRACE (v7 in TETRA_GEMM_TRACE builds): lane 0 writes V7_TK_R_EMPTY and
 * V7_TK_R_ISSUED of K-tile ti of the CTA's range (tr0: v7_trace_row0).
 * KT > 1 (v7 with TETRA_GEMM_V7_STAGE_KT = 2; C::BN = 128): a stage holds K-tiles kt ..
 * kt + nt - 1 (nt <= KT: the CTA's last stage may hold fewer), K-tile kt + u's raw bytes at
 * u * C::BRAW_BYTES of the stage's KT * C::BRAW_BYTES and its scales at u * C::BSC_BYTES of
 * KT * C::BSC_BYTES, each laid out as a KT = 1 stage. Standard weights: one TMA box per
 * K-tile; FRAG: the KT blocks are adjacent in memory (block n0 / 128 * ktiles + kt + u),
 * one box of 16 * KT rows (prepare_sm90's frag_kt), which always lands KT blocks (a block
 * past the range is the next one in memory or zero fill, never read); bulk scales: the nt
 * 512-byte blocks are adjacent too, one copy of 512 * nt bytes (never past the range:
 * past the matrix's last K-tile lies the next row block's, or the buffer's end). */
template <class C, bool FRAG = false, bool V7TRACE = false, int KT = 1>
__device__ __forceinline__ void produce_raw_stage(const CUtensorMap *tm_b, const sm90_params &p, uint32_t sb,
                                                  uint32_t full, uint32_t empty, uint32_t slot, uint32_t phase,
                                                  int n0, int l, int kt, int lane, int diag, uint32_t *tr0 = nullptr,
                                                  int ti = 0, int nt = 1) {
    static_assert(KT == 1 || C::BN == 128, "KT > 1: one 128-row scale block per K-tile");
    const uint8_t *sc = p.scales + (int64_t)l * p.scale_batch;
    (void)tr0;
    (void)ti;
    mbar_wait(empty, phase ^ 1); /* read by every consumer (transform) thread */
    if (V7TRACE && lane == 0) V7_TRACE_KT(tr0, ti, V7_TK_R_EMPTY);
    if (lane == 0) {
        /* bulk scales: 128-row blocks past the padded rows do not exist; their
         * smem rows (>= N) only feed outputs that are never stored */
        const int nblk = p.scale_bulk ? min(C::BN / 128, (p.n + 127) / 128 - n0 / 128) : 0;
        if ((diag == 10 || diag == 11) && ti >= C::SR * KT) mbar_arrive(full); /* DIAG: stale raw stage, no bytes */
        else issue_raw_copies<C, FRAG, KT>(tm_b, p, sb, full, slot, n0, l, kt, nt, nblk);
        if (V7TRACE) V7_TRACE_KT(tr0, ti, V7_TK_R_ISSUED);
    }
    if (p.scale_bulk || diag == 3 || diag == 4) {
        mbar_arrive(full);
        return;
    }
    /* the 4 block scales of each of the BN rows -> sc_s[r*4 .. +3], zero past N, K */
    for (int u = 0; u < nt; u++) {
        const uint32_t dst = sb + C::OFF_BSC + slot * (KT * C::BSC_BYTES) + u * C::BSC_BYTES;
        const int kb0 = (kt + u) * (W_BK / 16);
        for (int i2 = 0; i2 < C::BN / 32; i2++) {
            const int r = lane + 32 * i2, gr = n0 + r;
            const int nvalid = gr < p.n ? min(4, p.nkb - kb0) : 0;
            const int64_t off = p.swizzled ? tetra_swizzled_offset(gr, kb0, p.nkb) : (int64_t)gr * p.scale_ld + kb0;
            if (p.scale_vec4) {
                cp_async4(dst + r * 4, nvalid > 0 ? sc + off : sc, nvalid);
            } else {
                uint32_t v = 0;
                for (int j = 0; j < nvalid; j++) {
                    int64_t o = p.swizzled ? tetra_swizzled_offset(gr, kb0 + j, p.nkb) : off + j;
                    v |= (uint32_t)sc[o] << (8 * j);
                }
                asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(dst + r * 4), "r"(v) : "memory");
            }
        }
    }
    if (p.scale_vec4) mbar_arrive_cp_async(full);
    else mbar_arrive(full);
}

/* The raw stage of K-tile kt by one warp, for aligned swizzled scales only (the bulk
 * copies: no per-lane scale loads): every lane waits for the slot, one elected lane
 * expects its bytes and issues the TMA and the bulk scale copies; `full` counts that one
 * arrival (init count 1). A whole warp, so that ptxas keeps the caller's ring counters
 * in uniform registers (a one-thread branch made the consumer loop divergent). */
__device__ __forceinline__ uint32_t elect_one() {
    uint32_t e;
    asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n" : "=r"(e));
    return e;
}
template <class C, bool FRAG = false>
__device__ __forceinline__ void issue_raw_bulk(const CUtensorMap *tm_b, const sm90_params &p, uint32_t sb,
                                               uint32_t full, uint32_t empty, uint32_t slot, uint32_t phase, int n0,
                                               int l, int kt) {
    const int nblk = min(C::BN / 128, (p.n + 127) / 128 - n0 / 128);
    mbar_wait(empty, phase ^ 1);
    if (!elect_one()) return;
    issue_raw_copies<C, FRAG>(tm_b, p, sb, full, slot, n0, l, kt, 1, nblk);
}

/* A stage `slot` for K-tile kt in a 2-CTA cluster: this CTA's half of the tile, multicast
 * into the same offset of both CTAs (see produce_stages); `full` expects the whole tile.
 * KT > 1 (v7, TETRA_GEMM_V7_STAGE_KT): the stage holds the tiles of K-tiles kt .. kt + nt - 1
 * (nt <= KT), tile u at u * C::A_TILE_BYTES, one box per tile and half (128B swizzle limits a
 * box's inner extent to 128 bytes), one expect_tx for all of them. */
template <class C, int KT = 1>
__device__ __forceinline__ void issue_a_multicast(const CUtensorMap *tm_a, uint32_t sb, uint32_t full, uint32_t slot,
                                                  int kt, int m0, int l, uint32_t cta_rank, int m, int nt = 1) {
    const uint32_t half = C::A_TILE_BYTES / 2, half_rows = half / (W_BK * 2);
    /* A half wholly past M (a TMA box of zero fill costs time: runs 86, 89) loads the first
     * half's rows again instead; token columns are independent in the product and those past M
     * are never stored, so the outputs keep their bits. v7 never gets here with such a half
     * (its half_a path loads nothing); the BT-256 kernels do: run 89, 5-10% less time at M = 300 */
    const int row = m0 + (int)(cta_rank * half_rows);
    mbar_arrive_expect_tx(full, nt * C::A_TILE_BYTES);
    for (int u = 0; u < nt; u++)
        tma_load_3d_multicast(sb + C::OFF_A + slot * (KT * C::A_TILE_BYTES) + u * C::A_TILE_BYTES + cta_rank * half,
                              tm_a, (kt + u) * W_BK, row < m ? row : m0, l, full, (uint16_t)0x3);
}

/* The two producer warps of warpgroup 2 (shared by both kernels; C names the ring
 * sizes and shared-memory offsets). Warp 0 TMA-loads the 16-bit activation tiles
 * (BM rows from m0, 64 K) into the A ring; warp 1 the raw packed bytes of C::BN weight
 * rows from n0 and their block scales (cp.async.bulk of whole 128x4 blocks for aligned
 * swizzled scales, else 4-byte cp.asyncs into [row][4]) into the raw ring.
 * MULTICAST_A (2-CTA clusters, the transposed kernel): the two CTAs of a pair share m0, so
 * CTA `cta_rank` loads rows [half * cta_rank, half * (cta_rank + 1)) of the tile (tm_a's
 * box is half the tile) into that half of the stage in BOTH CTAs; each CTA's afull stage
 * expects the whole tile (its own half and the peer's), and its aempty stage counts the
 * consumer warps of both CTAs, since either CTA's next load overwrites both copies. The
 * halves are 1024-byte multiples, so the 128B swizzle pattern is that of the whole tile.
 * V7TRACE (v7 in TETRA_GEMM_TRACE builds): the issuers' V7_TK_A_* / V7_TK_R_* readings (KT > 1:
 * at a stage's first K-tile only).
 * LOCAL_A (v7 without its pair: v7.7's cluster-K kernel, and v7.10's TETRA_GEMM_V7_A_LOCAL;
 * MULTICAST_A false): tm_a's box is still half the tile, so this CTA loads both halves into its
 * own stage (half_a: the first only; the second was zeroed).
 * KT > 1 (v7 with TETRA_GEMM_V7_STAGE_KT = 2, MULTICAST_A or LOCAL_A): a stage of either ring holds KT
 * K-tiles, kt0 + i .. kt0 + i + KT - 1 for i = 0, KT, 2 KT, ... (stages count from the CTA's
 * own range, which may start at an odd K-tile); the last one holds nk - i < KT if nk is not a
 * multiple of KT, and expects only those tiles' bytes (issue_a_multicast, produce_raw_stage).
 * PDL (v7 in TETRA_GEMM_V7_PDL builds; the other kernels: 0): the kernel is a programmatic
 * dependent of the previous kernel on the stream, so each of the four warps executes
 * griddepcontrol.wait (tetra_pdl_wait) before its first global read: 1, all at the start; 2, the
 * raw warp only after issuing its first min(SR, stages) raw stages (weights and scales: see
 * TETRA_GEMM_V7_PDL for when that is safe), the other warps at the start. */
template <class C, bool MULTICAST_A = false, bool FRAG = false, bool V7TRACE = false, bool LOCAL_A = false, int KT = 1,
          int PDL = 0>
__device__ __forceinline__ void produce_stages(const CUtensorMap *tm_a, const CUtensorMap *tm_b, const sm90_params &p,
                                               uint32_t sb, uint32_t afull, uint32_t aempty, uint32_t rfull,
                                               uint32_t rempty, int m0, int n0, int l, int kt0, int nk, int lane,
                                               int diag, uint32_t cta_rank = 0, bool half_a = false) {
    static_assert(KT == 1 || MULTICAST_A || LOCAL_A, "KT > 1: v7 only");
    static_assert(PDL == 0 || MULTICAST_A || LOCAL_A, "PDL: v7 only");
    const int pw = (threadIdx.x % 128) / 32;
    uint32_t *const tr0 = V7TRACE ? v7_trace_row0(p) : nullptr;
    (void)tr0;
    if constexpr (PDL == 1) tetra_pdl_wait();
    else if constexpr (PDL == 2)
        if (pw != 1) tetra_pdl_wait(); /* the raw warp: after its first stages, below */
    if (pw == 0) {
        if (lane == 0) {
            ring_pos<C::SA> ra = {0, 0};
            for (int i = 0; i < nk; i += KT, ra.next()) {
                const int nt = KT == 1 ? 1 : min(KT, nk - i); /* K-tiles in this stage */
                if (LOCAL_A) {
                    const uint32_t dst = sb + C::OFF_A + ra.slot * (KT * C::A_TILE_BYTES), half = C::A_TILE_BYTES / 2;
                    mbar_wait(aempty + 8 * ra.slot, ra.phase ^ 1); /* this CTA's wgmmas done */
                    if (V7TRACE) V7_TRACE_KT(tr0, i, V7_TK_A_EMPTY);
                    if ((diag == 9 || diag == 11) && i >= C::SA * KT) { /* DIAG: stale A stage, no bytes */
                        mbar_arrive(afull + 8 * ra.slot);
                        continue;
                    }
                    mbar_arrive_expect_tx(afull + 8 * ra.slot, nt * (half_a ? half : 2 * half));
                    for (int u = 0; u < nt; u++) {
                        tma_load_3d(dst + u * C::A_TILE_BYTES, tm_a, (kt0 + i + u) * W_BK, m0, l, afull + 8 * ra.slot);
                        if (!half_a) /* rows m0 + BT / 2 .. : inside M (M - m0 > BT / 2) */
                            tma_load_3d(dst + u * C::A_TILE_BYTES + half, tm_a, (kt0 + i + u) * W_BK,
                                        m0 + (int)(half / (W_BK * 2)), l, afull + 8 * ra.slot);
                    }
                    if (V7TRACE) V7_TRACE_KT(tr0, i, V7_TK_A_ISSUED);
                    continue;
                }
                if (MULTICAST_A) {
                    /* both CTAs' wgmmas done; a CTA-scope acquire (mbar_wait) suffices: only
                     * the TMA below follows, no read of the peer's data (.acquire.cluster
                     * adds an L1 invalidation, CCTL.IVALL, per wait) */
                    mbar_wait(aempty + 8 * ra.slot, ra.phase ^ 1);
                    if (V7TRACE) V7_TRACE_KT(tr0, i, V7_TK_A_EMPTY);
                    if ((diag == 9 || diag == 11) && i >= C::SA * KT) { /* DIAG: stale A stage, no bytes */
                        mbar_arrive(afull + 8 * ra.slot);
                        continue;
                    }
                    if (half_a) { /* tokens only in the first half: rank 0 loads it for both */
                        mbar_arrive_expect_tx(afull + 8 * ra.slot, nt * (C::A_TILE_BYTES / 2));
                        if (cta_rank == 0)
                            for (int u = 0; u < nt; u++)
                                tma_load_3d_multicast(sb + C::OFF_A + ra.slot * (KT * C::A_TILE_BYTES) +
                                                          u * C::A_TILE_BYTES,
                                                      tm_a, (kt0 + i + u) * W_BK, m0, l, afull + 8 * ra.slot,
                                                      (uint16_t)0x3);
                        if (V7TRACE) V7_TRACE_KT(tr0, i, V7_TK_A_ISSUED);
                        continue;
                    }
                    issue_a_multicast<C, KT>(tm_a, sb, afull + 8 * ra.slot, ra.slot, kt0 + i, m0, l, cta_rank, p.m,
                                             nt);
                    if (V7TRACE) V7_TRACE_KT(tr0, i, V7_TK_A_ISSUED);
                    continue;
                }
                mbar_wait(aempty + 8 * ra.slot, ra.phase ^ 1); /* its last K-tile's wgmma completed */
                mbar_arrive_expect_tx(afull + 8 * ra.slot, C::A_TILE_BYTES);
                tma_load_3d(sb + C::OFF_A + ra.slot * C::A_TILE_BYTES, tm_a, (kt0 + i) * W_BK, m0, l,
                            afull + 8 * ra.slot);
            }
        }
        return;
    }
    if (pw != 1) return;
    ring_pos<C::SR> rr = {0, 0};
    if constexpr (PDL == 2) {
        /* the first SR stages (every one of them free: fresh empty barriers) read only the
         * weights and their scales, which no kernel still in flight writes (the switch's
         * condition); the rest of the stages wait for consumer releases, i.e. for activation
         * stages, which come after the A warp's wait anyway */
        int i = 0;
        for (; i < nk && i < C::SR * KT; i += KT, rr.next())
            produce_raw_stage<C, FRAG, V7TRACE, KT>(tm_b, p, sb, rfull + 8 * rr.slot, rempty + 8 * rr.slot, rr.slot,
                                                    rr.phase, n0, l, kt0 + i, lane, diag, tr0, i,
                                                    KT == 1 ? 1 : min(KT, nk - i));
        tetra_pdl_wait();
        for (; i < nk; i += KT, rr.next())
            produce_raw_stage<C, FRAG, V7TRACE, KT>(tm_b, p, sb, rfull + 8 * rr.slot, rempty + 8 * rr.slot, rr.slot,
                                                    rr.phase, n0, l, kt0 + i, lane, diag, tr0, i,
                                                    KT == 1 ? 1 : min(KT, nk - i));
    } else {
        for (int i = 0; i < nk; i += KT, rr.next())
            produce_raw_stage<C, FRAG, V7TRACE, KT>(tm_b, p, sb, rfull + 8 * rr.slot, rempty + 8 * rr.slot, rr.slot,
                                                    rr.phase, n0, l, kt0 + i, lane, diag, tr0, i,
                                                    KT == 1 ? 1 : min(KT, nk - i));
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");
}


/* ---- v7: the transposed product (gemm_wgmma_t_kernel below) */

/* m64n{BT}k16 with A from registers (the "RS" form; TETRA_WGMMA_RS and the n64 form:
 * wgmma.cuh): a[0..3] are this thread's A fragment (rows g and g + 8 of its warp's 16, k
 * pairs 2t and 2t + 8; see dequant_frag); BT / 2 accumulators. */
#define TETRA_WGMMA_RS_N128(TYPE)                                                                   \
    TETRA_WGMMA_RS("128", TYPE, TETRA_WGMMA_N128_ACC_REGS, TETRA_WGMMA_N128_ACC_OPERANDS, "64,%65,%66,%67", \
                   "68", "69")
template <bool IS_BF16, int BT>
__device__ __forceinline__ void wgmma_rs_k16(float *d, const uint32_t *a, uint64_t desc_b) {
    /* if constexpr: the other widths' asm would name accumulators past d's end */
    if constexpr (BT == 128) {
        if constexpr (IS_BF16) TETRA_WGMMA_RS_N128("bf16");
        else TETRA_WGMMA_RS_N128("f16");
    } else {
        static_assert(BT == 64, "tokens per CTA: 64 or 128 (256 is v10, SS)");
        if constexpr (IS_BF16) TETRA_WGMMA_RS_N64("bf16");
        else TETRA_WGMMA_RS_N64("f16");
    }
}

/* The 4 block scales of one row (byte s of `codes` = k16 step s) as 16-bit pairs (v, v),
 * v = ue4m3 * 2^119 (BF16) or ue4m3 * 2^7 (FP16), the values scale_pair makes, two codes
 * per instruction: a code's 7 bits shifted to the bottom of a 16-bit half's exponent
 * (shift 4 for BF16, 7 for FP16) read as ue4m3 * 2^-120 (BF16) or ue4m3 * 2^-8 (FP16),
 * exactly (e = 0 codes as half subnormals, which the half multiplies keep); exact
 * multiplies by 2^120 and 2^119 (BF16) or 2^15 (FP16) finish. The NaN code 0x7F (also
 * 0xFF: the sign bit is ignored) becomes the half pattern 0xFFFF, a NaN, before them. */
template <bool IS_BF16> __device__ __forceinline__ void scale_pairs4(uint32_t codes, uint32_t (&sp)[4]) {
    const uint32_t x = codes & 0x7F7F7F7Fu;
    const uint32_t nan = x + 0x01010101u; /* bit 7 of a byte set iff the byte was 0x7F */
    const uint32_t sh = IS_BF16 ? 4 : 7, mask = IS_BF16 ? 0x07F007F0u : 0x3F803F80u;
    /* codes 0 and 2 in halves 0 and 1, and codes 1 and 3; selectors 8-B replicate the
     * top bit of byte 0-3 (the NaN flag) over a byte */
    uint32_t even = ((x << sh) & mask) | prmt(nan, 0, 0xAA88u);
    uint32_t odd = ((x >> (8 - sh)) & mask) | prmt(nan, 0, 0xBB99u);
    if (IS_BF16) {
        even = mul2<true>(mul2<true>(even, 0x7B807B80u), 0x7B007B00u); /* x 2^120 x 2^119 */
        odd = mul2<true>(mul2<true>(odd, 0x7B807B80u), 0x7B007B00u);
    } else {
        even = mul2<false>(even, 0x78007800u); /* x 2^15 */
        odd = mul2<false>(odd, 0x78007800u);
    }
    sp[0] = prmt(even, 0, 0x1010u);
    sp[1] = prmt(odd, 0, 0x1010u);
    sp[2] = prmt(even, 0, 0x3232u);
    sp[3] = prmt(odd, 0, 0x3232u);
}

/* TETRA_GEMM_V7_SCALE_FOLD (build switch, CMake cache variable; notes: gemm-sm90.md, "v7.14"):
 * 1: a step's (v, v) pairs are 16-bit broadcasts of the exchanged word's halves, which ptxas
 * folds into the HMUL2s' operand selectors (.H0_H0 / .H1_H1), as the GEMV's half_bcast: 8
 * fewer PRMT per K-tile and consumer thread. 0: a PRMT per pair (v7.5). Same values. */
#ifndef TETRA_GEMM_V7_SCALE_FOLD
#define TETRA_GEMM_V7_SCALE_FOLD 1
#endif
static_assert(TETRA_GEMM_V7_SCALE_FOLD == 0 || TETRA_GEMM_V7_SCALE_FOLD == 1, "TETRA_GEMM_V7_SCALE_FOLD: 0 or 1");

/* v7.5 (run 76: 3.2-4.6% off v7's time at M = 64 / 128, same bits): the 4 threads of a quad
 * hold the same two rows (g, g + 8); until v7.5 each converted all 8 of their block scales
 * (scale_pairs4 twice). Here thread tq converts
 * k16 step tq of both rows, as scale_pairs4's "even" word (the two codes in bytes 0 and 2,
 * the same arithmetic, so the same values), and the quad exchanges them with 4 SHFLs: per
 * K-tile about 12 fewer issued instructions per thread (run 73: v7's consumers at M = 64 are
 * bound by instruction issue). sp0 / sp1: the pairs of rows g / g + 8 for steps 0-3. All 32
 * lanes must call it (full-warp SHFLs): v7's consumer warps do, uniformly. */
template <bool IS_BF16>
__device__ __forceinline__ void scale_pairs_quad(uint32_t c0, uint32_t c1, uint32_t tq, uint32_t (&sp0)[4],
                                                 uint32_t (&sp1)[4]) {
    /* [c0 byte tq, c0 byte tq, c1 byte tq, c1 byte tq], codes kept in bytes 0 and 2 */
    const uint32_t x = prmt(c0, c1, tq | (tq << 4) | ((4 + tq) << 8) | ((4 + tq) << 12)) & 0x007F007Fu;
    const uint32_t nan = x + 0x01010101u; /* bit 7 of bytes 0 / 2 set iff the code was 0x7F */
    const uint32_t sh = IS_BF16 ? 4 : 7, mask = IS_BF16 ? 0x07F007F0u : 0x3F803F80u;
    uint32_t v = ((x << sh) & mask) | prmt(nan, 0, 0xAA88u);
    if (IS_BF16) v = mul2<true>(mul2<true>(v, 0x7B807B80u), 0x7B007B00u); /* x 2^120 x 2^119 */
    else v = mul2<false>(v, 0x78007800u);                                  /* x 2^15 */
#pragma unroll
    for (int s = 0; s < 4; s++) {
        const uint32_t w = __shfl_sync(0xFFFFFFFFu, v, s, 4); /* step s of both rows */
        sp0[s] = half_bcast<0, TETRA_GEMM_V7_SCALE_FOLD>(w);
        sp1[s] = half_bcast<1, TETRA_GEMM_V7_SCALE_FOLD>(w);
    }
}

/* One K-tile (64 K) of this thread's wgmma A fragments, dequantized from a raw stage.
 * The m64k16 16-bit A fragment (PTX ISA, wgmma register fragments; the same as
 * mma.m16n8k16's per warp): warp w of the warpgroup holds rows 16w..16w+15; lane
 * (g = lane/4, t = lane%4) holds, in its four registers, (row g, k 2t..2t+1), (row g+8,
 * k 2t..), (row g, k 2t+8..), (row g+8, k 2t+8..). Bytes hold k pairs (even k in the low
 * nibble), so for k16 step s the thread needs byte 8s + t (word 2s) and byte 8s + t + 4
 * (word 2s + 1) of each of its two rows: byte t of every word of the row's 32 bytes.
 * f[4s + 2*half + h]: step s, half (word 2s + half), row g + 8h. raw: the stage address
 * of row g (row g + 8 is 256 bytes on); sc0/sc1: the 4 block scales (one per k16 step,
 * 4 consecutive bytes in both smem layouts) of rows g and g + 8; sel = t | (t + 4) << 4
 * picks byte t of two words with one PRMT. */
/* dequant_frag_sp: the same with the scale pairs given (spq[h][s]: row g + 8h, step s), from
 * scale_pairs_quad or (TETRA_GEMM_V7_SCALE_PAIRS) from the converted-scale ring. */
template <bool IS_BF16>
__device__ __forceinline__ void dequant_frag_sp(uint32_t (&f)[16], uint32_t raw, const uint32_t (&spq)[2][4],
                                                uint32_t sel) {
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const uint4 lo = lds128(raw + 256 * h), hi = lds128(raw + 256 * h + 16);
        const uint32_t(&sp)[4] = spq[h];
        /* byte t of words 0-3 and of words 4-7 */
        const uint32_t gw[2] = {prmt(prmt(lo.x, lo.y, sel), prmt(lo.z, lo.w, sel), 0x5410u),
                                prmt(prmt(hi.x, hi.y, sel), prmt(hi.z, hi.w, sel), 0x5410u)};
#pragma unroll
        for (int q = 0; q < 2; q++) { /* k16 steps 2q and 2q + 1 */
            const uint32_t ev = gw[q] & 0x0F0F0F0Fu, od = (gw[q] >> 4) & 0x0F0F0F0Fu;
#pragma unroll
            for (int b = 0; b < 4; b++) { /* byte b: word 4q + b = word 2s + half */
                const int s = 2 * q + b / 2, half = b % 2;
                const uint32_t w = prmt(ev, od, 0x8080u | (uint32_t)b | ((uint32_t)(4 + b) << 8));
                f[4 * s + 2 * half + h] = mul2<IS_BF16>(e2m1x2_bits<IS_BF16>(w), sp[s]);
            }
        }
    }
}
template <bool IS_BF16>
__device__ __forceinline__ void dequant_frag(uint32_t (&f)[16], uint32_t raw, uint32_t sc0, uint32_t sc1,
                                             uint32_t sel) {
    uint32_t spq[2][4];
    scale_pairs_quad<IS_BF16>(lds32(sc0), lds32(sc1), sel & 3u, spq[0], spq[1]);
    dequant_frag_sp<IS_BF16>(f, raw, spq, sel);
}

/* One K-tile of this thread's wgmma A fragments from a TETRA_SCALE_FRAGMENT_128X64 stage
 * (src/format/nvfp4_codec.h; docs/notes/fragment-layout.md): the thread's 16 bytes at `raw`
 * are its four k16 steps, word s holding register j of step s in slot j, each code's bits
 * placed so that slot j's BF16 pattern (the one e2m1x2_bits makes on the standard path)
 * comes out of tetra_frag_slot_bits (1, 2, 2 and 4 instructions). FP16 moves the BF16 pattern's
 * magnitude 3 bits up ((p << 3) | p, masked). Same values, same block-scale multiply and
 * the same wgmma order as dequant_frag: the outputs are bit-identical to the standard
 * path's. No gather, no nibble split: run 80's probe of this instruction mix took 21% off
 * v7's time at 64x28672x8192. */
template <bool IS_BF16> __device__ __forceinline__ uint32_t frag_half2(uint32_t bf16_bits) {
    if (IS_BF16) return bf16_bits;
    return ((bf16_bits << 3) | bf16_bits) & 0x8E008E00u;
}
/* The arithmetic, on the scale pairs spq (spq[h][s]: row g + 8h, step s) and the 16 bytes
 * load_v() returns (a shared-memory load: v7; values loaded ahead of the W-empty wait: the
 * BT-256 FRAG transform, dequant_frag_words). */
template <bool IS_BF16, class LOAD_V>
__device__ __forceinline__ void dequant_frag_pairs(uint32_t (&f)[16], const uint32_t (&spq)[2][4], LOAD_V load_v) {
    const uint4 v = load_v();
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int s = 0; s < 4; s++) {
        const uint32_t x = w[s];
        f[4 * s + 0] = mul2<IS_BF16>(frag_half2<IS_BF16>(tetra_frag_slot_bits(x, 0)), spq[0][s]);
        f[4 * s + 1] = mul2<IS_BF16>(frag_half2<IS_BF16>(tetra_frag_slot_bits(x, 1)), spq[1][s]);
        f[4 * s + 2] = mul2<IS_BF16>(frag_half2<IS_BF16>(tetra_frag_slot_bits(x, 2)), spq[0][s]);
        f[4 * s + 3] = mul2<IS_BF16>(frag_half2<IS_BF16>(tetra_frag_slot_bits(x, 3)), spq[1][s]);
    }
}
/* the same on the scale codes c0 / c1 of rows g / g + 8 (v7.5's quad exchange) */
template <bool IS_BF16, class LOAD_V>
__device__ __forceinline__ void dequant_frag_codes(uint32_t (&f)[16], uint32_t c0, uint32_t c1, uint32_t sel,
                                                   LOAD_V load_v) {
    uint32_t spq[2][4];
    scale_pairs_quad<IS_BF16>(c0, c1, sel & 3u, spq[0], spq[1]);
    dequant_frag_pairs<IS_BF16>(f, spq, load_v);
}
template <bool IS_BF16>
__device__ __forceinline__ void dequant_frag_prepared(uint32_t (&f)[16], uint32_t raw, uint32_t sc0, uint32_t sc1,
                                                      uint32_t sel) {
    dequant_frag_codes<IS_BF16>(f, lds32(sc0), lds32(sc1), sel, [&] { return lds128(raw); });
}
template <bool IS_BF16>
__device__ __forceinline__ void dequant_frag_words(uint32_t (&f)[16], const uint4 &v, uint32_t c0, uint32_t c1,
                                                   uint32_t sel) {
    dequant_frag_codes<IS_BF16>(f, c0, c1, sel, [&] { return v; });
}

/* ---- the v7 epilogue (docs/notes/gemm-sm90.md, "v7 epilogue"): D^T's accumulators are
 * scaled, biased and rounded in registers, staged in the idle A ring as D's rows
 * ([token][n]: row m = token m0 + m, this CTA's 128 n), then copied out as 16-byte
 * vectors along n. A staging row is 256 bytes (16-bit D) or 512 bytes (FP32 D or the
 * split-K workspace); its 16-byte chunk q sits at chunk q ^ swz(m), which keeps both the
 * writes and the row reads on 8 distinct chunks of a 128-byte bank window:
 *   16-bit: swz = m % 8 (one stmatrix matrix writes rows m..m+7 of one chunk column);
 *   FP32: swz = 2 * ((m / 2) % 4) (one scalar store instruction writes 4 rows 2t (+1),
 *   8 consecutive n = 2 chunks in each). */
enum { EPI_ROW16 = 256, EPI_ROW32 = 512 };
/* Named barriers (0 is __syncthreads): the two consumer warpgroups, then each one alone. */
enum { EPI_BAR_CONSUMERS = 1, EPI_BAR_WG = 2 /* + warpgroup */ };

/* immediate ids: a register id makes ptxas reserve all 16 barriers */
template <int ID, int COUNT> __device__ __forceinline__ void named_bar_sync() {
    asm volatile("bar.sync %0, %1;\n" ::"n"(ID), "n"(COUNT) : "memory");
}

/* The strided v7 epilogue's arithmetic, kept bit for bit: the exact 2^B_EXP2 multiply,
 * the FP32 scale, then + bias (+ 0.0f without one, which also makes -0 +0). The _rn
 * intrinsics are never contracted into an FMA (the old multiply and add sat on two sides
 * of a non-inlined call). */
__device__ __forceinline__ float epi_value(float acc, float unit, float scale, float bias) {
    return __fadd_rn(__fmul_rn(__fmul_rn(acc, unit), scale), bias);
}
/* 16-bit D: per pair of n8 tiles (c, c + 1), one stmatrix.x4.trans of matrices (c, rows
 * g), (c, rows g + 8), (c + 1, g), (c + 1, g + 8) of the accumulator fragment (register j
 * = this lane's (row g, columns 2t, 2t + 1) of matrix j). Row i of a transposed matrix is
 * D's row m = 8c + i (or 8c + 8 + i): 8 consecutive n, one 16-byte chunk, whose address
 * lane 8j + i gives. lane_addr: that address for c = 0; tile c adds 8c rows. */
template <bool OUT_BF16, int NACC, int ROW = EPI_ROW16>
__device__ __forceinline__ void stage_out16(const float (&acc)[NACC], uint32_t lane_addr, float unit, float scale,
                                            float b0, float b1) {
#pragma unroll
    for (int c = 0; c < NACC / 4; c += 2) {
        uint32_t x[4];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const float *a = acc + 4 * (c + j / 2) + 2 * (j % 2);
            const float b = j % 2 ? b1 : b0;
            x[j] = tetra_pack2<OUT_BF16>(epi_value(a[0], unit, scale, b), epi_value(a[1], unit, scale, b));
        }
        asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(
                         lane_addr + c * 8 * ROW),
                     "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3])
                     : "memory");
    }
}

/* FP32 D (or the split-K workspace): scalar stores. Accumulator 4c + 2h + d is D's row m
 * = 8c + 2t + d, n = r + 8h; addr[h] is row 2t's word for n = r + 8h (the swizzle depends
 * on m only through t). */
template <int NACC>
__device__ __forceinline__ void stage_out32(const float (&acc)[NACC], const uint32_t (&addr)[2], float unit,
                                            float scale, float b0, float b1) {
#pragma unroll
    for (int c = 0; c < NACC / 4; c++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int d = 0; d < 2; d++)
                asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(addr[h] + (8 * c + d) * EPI_ROW32),
                             "f"(epi_value(acc[4 * c + 2 * h + d], unit, scale, h ? b1 : b0))
                             : "memory");
}

/* Copy one consumer warpgroup's half of the staged tile (64 n of each of the BT rows:
 * 8 chunks of 16-bit or 16 of FP32 outputs) to D: consecutive threads take a row's
 * consecutive chunks, so a warp stores 2 or 4 whole 128/256-byte row segments per
 * instruction. d: D's element (m0, this half's first n); m_left, n_left: rows and columns
 * of D from there (rows past M are skipped, columns past N not stored); vec: d and the
 * row pitch are 16-byte aligned, else (or for a chunk that crosses N) element stores. */
template <int ES, int BT>
__device__ __forceinline__ void store_staged(uint32_t stage, uint8_t *d, int64_t ldd, int m_left, int n_left,
                                             uint32_t wg, uint32_t t, bool vec) {
    enum { CPR = 64 * ES / 16, EPC = 16 / ES, RPP = 128 / CPR, ROW = 128 * ES };
    const uint32_t qc = t % CPR, rr = t / CPR;
    /* the row's swizzle is the same in every pass (RPP is a multiple of 8) */
    const uint32_t swz = ES == 2 ? rr % 8 : 2 * ((rr / 2) % 4);
    const uint32_t a0 = stage + rr * ROW + (((wg * CPR + qc) ^ swz) << 4);
    const int col = (int)qc * EPC;
    uint8_t *p0 = d + ((int64_t)rr * ldd + col) * ES;
    if (col >= n_left) return;
    const bool full = vec && col + EPC <= n_left;
#pragma unroll 4
    for (int pass = 0; pass < BT / RPP; pass++) {
        const int m = pass * RPP + (int)rr;
        if (m >= m_left) break;
        const uint4 v = lds128(a0 + pass * RPP * ROW);
        uint8_t *p = p0 + (int64_t)pass * RPP * ldd * ES;
        if (full) {
            *(uint4 *)p = v;
        } else {
            const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int e = 0; e < EPC; e++) {
                if (col + e >= n_left) break;
                if (ES == 2) ((uint16_t *)p)[e] = (uint16_t)(w[e / 2] >> (16 * (e % 2)));
                else ((uint32_t *)p)[e] = w[e];
            }
        }
    }
}

#endif /* TETRA_SM90_DEVICE */

/* Warpgroups: 0 and 1 consumers, 2 the producers (warp 0: TMA of A tiles into a ring of
 * SA stages; warp 1: TMA of raw B and the scales' bulk copies or cp.asyncs into a ring of
 * SR stages; each ring guarded by its own full/empty mbarriers). The consumers dequantize raw stages into a ring of W_TILES
 * swizzled 16-bit B tiles (tfull/tempty mbarriers: each warpgroup writes half of every
 * tile, both read all of it) and keep one wgmma group in flight across K-tiles
 * (wait_group 1): per K-tile they issue the wgmmas of tile i, dequantize tile i+1 while
 * those (and tile i-1's) run, then wait for tile i-1's group and release its A stage and
 * B tile. No named barrier: the tensor pipe never drains inside the K loop.
 * The consumers must fit the launch bound's 168 registers (ptxas compiles the whole kernel
 * to it; setmaxnreg.inc cannot raise that): 128 accumulators + the dequantization's
 * temporaries. The producer region IS held to its setmaxnreg.dec value (40 spilled
 * there once the raw producer got its own loop), hence 56: 2 x 128 x 224 + 128 x 56 =
 * 64512 = 384 x 168 registers. */
template <bool IS_BF16, int BM>
__global__ void __launch_bounds__(W_THREADS, 1)
gemm_wgmma_kernel(const __grid_constant__ CUtensorMap tm_a, const __grid_constant__ CUtensorMap tm_b,
                  const sm90_params p) {
#if TETRA_SM90_DEVICE
    typedef cfg<BM> C;
    extern __shared__ uint8_t smem_raw[];
    /* everything in shared memory by 32-bit address from one 1024-aligned base */
    const uint32_t sb = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const uint32_t afull = sb + C::OFF_BAR, aempty = afull + 8 * C::SA;
    const uint32_t rfull = aempty + 8 * C::SA, rempty = rfull + 8 * C::SR;
    const uint32_t tfull = rempty + 8 * C::SR, tempty = tfull + 8 * W_TILES;
    const int n0 = blockIdx.x * C::BN, m0 = blockIdx.y * BM;
    const cta_split cs = cta_split_of(p);
    const int l = cs.l, split = cs.split, kt0 = cs.kt0, nk = cs.nk;
    /* the warpgroup index through a shuffle, so that ptxas knows it is warp-uniform and
     * keeps the wgmma descriptors derived from it in uniform registers (no R2UR per wgmma) */
    const int wg = __shfl_sync(0xFFFFFFFFu, (int)(threadIdx.x / 128), 0), lane = threadIdx.x % 32;
#ifdef TETRA_GEMM_DIAG
    const int diag = p.diag;
#else
    const int diag = 0; /* a runtime switch costs registers in the consumer loop */
#endif

    if (threadIdx.x == 0) {
        for (int s = 0; s < C::SA; s++) {
            mbar_init(afull + 8 * s, 1);  /* the A producer's expect_tx */
            mbar_init(aempty + 8 * s, 8); /* one per consumer warp */
        }
        for (int s = 0; s < C::SR; s++) {
            mbar_init(rfull + 8 * s, 1 + 32);       /* raw producer's expect_tx + one per lane */
            mbar_init(rempty + 8 * s, W_CONSUMERS); /* every consumer thread, after its reads */
        }
        for (int j = 0; j < W_TILES; j++) {
            mbar_init(tfull + 8 * j, W_CONSUMERS); /* every consumer thread, after its stores */
            mbar_init(tempty + 8 * j, 8);          /* one per consumer warp */
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 2) {
        /* ---- producers: warp 0 the A ring, warp 1 the raw B + scales ring */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 56;\n");
        produce_stages<C>(&tm_a, &tm_b, p, sb, afull, aempty, rfull, rempty, m0, n0, l, kt0, nk, lane, diag);
        return;
    }

    /* ---- consumers: warpgroups 0 and 1 */
    asm volatile("setmaxnreg.inc.sync.aligned.u32 224;\n");
    const int row0 = BM == 64 ? 0 : C::WM * wg, col0 = BM == 64 ? 128 * wg : 0;
    float acc[C::NACC];
#pragma unroll
    for (int i = 0; i < C::NACC; i++) acc[i] = 0.0f;

    const int t = threadIdx.x; /* 0..255 */
    const dq_offsets dq = dequant_offsets(t, p.scale_bulk);
    /* descriptor low words of this warpgroup's part of A stage 0 and of B tile 0 */
    const uint32_t da0 = wgmma_desc_lo(sb + C::OFF_A + row0 * 128), db0 = wgmma_desc_lo(sb + C::OFF_BT + col0 * 128);
    /* ring positions: A stage and B tile of K-tile i (wgmma), raw stage and B tile of
     * K-tile i + 1 (dequantization), A stage and B tile of K-tile i - 1 (release) */
    ring_pos<C::SA> ra = {0, 0};
    ring_pos<W_TILES> rt = {0, 0};
    ring_pos<C::SR> rr = {0, 0};
    uint32_t a_prev = 0, t_prev = 0;
    /* dequantize the next K-tile (raw stage rr) into tile rw and publish it to the async
     * proxy */
    auto transform = [&](const ring_pos<W_TILES> rw) {
        mbar_wait(rfull + 8 * rr.slot, rr.phase);
        mbar_wait(tempty + 8 * rw.slot, rw.phase ^ 1); /* read by the wgmmas of K-tile - 3 */
        if (diag != 1 && diag != 4)
            dequant_b_tile<IS_BF16, C::BN>(sb + C::OFF_BT + rw.slot * C::BT_TILE_BYTES + dq.tile,
                                           sb + C::OFF_BRAW + rr.slot * C::BRAW_BYTES + dq.raw,
                                           sb + C::OFF_BSC + rr.slot * C::BSC_BYTES + dq.sc);
        /* this thread's raw/scale reads have returned (their values are stored): the
         * raw producer may refill the stage */
        mbar_arrive(rempty + 8 * rr.slot);
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        mbar_arrive(tfull + 8 * rw.slot);
        rr.next();
    };
    if (nk > 0) transform(rt);
    for (int i = 0; i < nk; i++) {
        const uint32_t da = da0 + ra.slot * (C::A_TILE_BYTES / 16), db = db0 + rt.slot * (C::BT_TILE_BYTES / 16);
        mbar_wait(afull + 8 * ra.slot, ra.phase);
        mbar_wait(tfull + 8 * rt.slot, rt.phase);
        wgmma_acc_fence<C::NACC>(acc);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < W_BK / 16; ks++)
#pragma unroll
            for (int mb = 0; mb < C::MB; mb++) /* row block mb: rows 64*mb.., accumulators NACC/MB*mb.. */
                wgmma_k16<IS_BF16, C::WN>(acc + mb * (C::WN / 2), wgmma_desc_of(da + (mb * 64 * 128 + ks * 32) / 16),
                                          wgmma_desc_of(db + ks * 32 / 16));
        wgmma_commit();
        wgmma_acc_fence<C::NACC>(acc);
        if (i + 1 < nk) { /* while the tensor cores run K-tiles i-1 and i */
            ring_pos<W_TILES> rw = rt;
            rw.next();
            transform(rw);
        }
        wgmma_wait<1>(); /* K-tile i-1's group has completed: release its A stage and B tile */
        wgmma_acc_fence<C::NACC>(acc);
        if (i > 0 && lane == 0) {
            mbar_arrive(aempty + 8 * a_prev);
            mbar_arrive(tempty + 8 * t_prev);
        }
        a_prev = ra.slot;
        t_prev = rt.slot;
        ra.next();
        rt.next();
    }
    wgmma_wait<0>();
    wgmma_acc_fence<C::NACC>(acc);
    /* the last stage/tile need no release: nothing waits for them */

    /* epilogue: FP32 scale, bias, convert, guarded stores (or raw FP32 partial sums under
     * split-K). Accumulator j of n8 tile c: row (lane/4) (+8 for j >= 2), column
     * 8c + 2*(lane%4) + j%2. */
    epi_dst e;
    float scale;
    e.m = p.m;
    e.n = p.n;
    if (p.splits > 1) {
        e.d = (uint8_t *)(p.ws + ((int64_t)split * p.batch + l) * (int64_t)p.m * p.n);
        e.ldd = p.n;
        e.dtype = TETRA_DTYPE_FP32;
        e.pair = p.n % 2 == 0;
        e.bias = NULL;
        e.bias_dtype = 0;
        scale = 1.0f;
    } else {
        e.d = (uint8_t *)p.d + (int64_t)l * p.d_batch * (int64_t)(p.d_dtype == TETRA_DTYPE_FP32 ? 4 : 2);
        e.ldd = p.ldd;
        e.dtype = p.d_dtype;
        e.pair = p.d_pair;
        e.bias = p.bias;
        e.bias_dtype = p.bias_dtype;
        scale = tetra_gemm_scale(p.alpha, NULL, p.gb);
    }
    const int warp = (threadIdx.x % 128) / 32;
    /* the accumulators carry the operand factor 2^-B_EXP2: taking it back first is exact,
     * so the one rounding by `scale` is the one the unscaled sum would get */
    const float unit = (float)(1 << B_EXP2);
#pragma unroll
    for (int mb = 0; mb < C::MB; mb++) {
        const int row = m0 + row0 + 64 * mb + warp * 16 + lane / 4;
        const float *a = acc + mb * (C::WN / 2);
#pragma unroll
        for (int c = 0; c < C::WN / 8; c++) {
            const int col = n0 + col0 + c * 8 + 2 * (lane % 4);
            store_pair(e, row, col, a[4 * c] * unit * scale, a[4 * c + 1] * unit * scale);
            store_pair(e, row + 8, col, a[4 * c + 2] * unit * scale, a[4 * c + 3] * unit * scale);
        }
    }
#else
    (void)tm_a;
    (void)tm_b;
    (void)p;
    __trap(); /* never launched: the launcher checks g_wgmma_kernel_built */
#endif
}

/* One output of a split-K product from its split-ordered FP32 sum: scale, then bias, each
 * rounded on its own (the reduce kernel and the transposed kernel's last-CTA reduce share
 * this, so both give the same bits), stored in D's dtype. */
__device__ __forceinline__ void splitk_store(const sm90_params &p, float scale, int l, int r, int c, float v) {
    const int64_t dsz = p.d_dtype == TETRA_DTYPE_FP32 ? 4 : 2;
    v = __fmul_rn(v, scale);
    if (p.bias) v = __fadd_rn(v, tetra_load_dense(p.bias, c, (tetra_dtype)p.bias_dtype));
    tetra_store_dense((uint8_t *)p.d + (int64_t)l * p.d_batch * dsz, (int64_t)r * p.ldd + c, (tetra_dtype)p.d_dtype,
                      v);
}

/* Split-K: D = scale * sum over splits (in split order, so repeats are bit-identical) of
 * the FP32 partial sums, + bias. One output per thread, coalesced along N; grid y = batch.
 * 32-bit index math (M * N < 2^31, checked by prepare_sm90): the 64-bit divisions it
 * replaces were three calls to a division routine per output. */
__global__ void gemm_wgmma_splitk_reduce(const sm90_params p) {
    const uint32_t mn = (uint32_t)p.m * (uint32_t)p.n, n = (uint32_t)p.n;
    const int l = (int)blockIdx.y;
    const float scale = tetra_gemm_scale(p.alpha, NULL, p.gb);
    const int64_t split_stride = (int64_t)mn * p.batch;
    const float *src = p.ws + (int64_t)l * mn;
    /* i + stride < 2^31 + 2^20 fits in 32 unsigned bits */
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < mn; i += gridDim.x * blockDim.x) {
        const uint32_t r = i / n, c = i - r * n;
        float v = 0.0f;
        for (int sp = 0; sp < p.splits; sp++) v = __fadd_rn(v, __ldcg(src + sp * split_stride + i));
        splitk_store(p, scale, l, (int)r, (int)c, v);
    }
}

#if TETRA_SM90_DEVICE
/* bar.red.or over the COUNT threads of named barrier ID: whether any of them passed v != 0 */
template <int ID, int COUNT> __device__ __forceinline__ int named_bar_or(int v) {
    int r;
    asm volatile("{\n.reg .pred p, q;\nsetp.ne.s32 p, %1, 0;\nbar.red.or.pred q, %2, %3, p;\n"
                 "selp.s32 %0, 1, 0, q;\n}\n"
                 : "=r"(r)
                 : "r"(v), "n"(ID), "n"(COUNT)
                 : "memory");
    return r;
}

/* The transposed kernel's split-K tail, in the kernel (no second launch): the last CTA of
 * an output tile to arrive (tetra_arrive_last, common.cuh) sums the tile's partials in
 * split order, with the same FP32 adds in the same order as gemm_wgmma_splitk_reduce, so
 * both give the same bits.
 * Called by the 256 consumer threads after their partial stores. The tile: tokens m0 ..
 * m0 + BT - 1, weight rows n0 .. n0 + 127 of batch l. Thread t sums 4 consecutive n
 * (chunk t % 32) of the BT / 8 rows t / 32 + 8j: per split, all its rows' loads are issued
 * before any add (BT / 8 16-byte loads in flight per thread), then added in split order. */
template <int BT>
__device__ __forceinline__ void splitk_last_cta(const sm90_params &p, int m0, int n0, int l) {
    enum { ROWS = BT / 8, G = ROWS < 16 ? ROWS : 16 };
    __threadfence(); /* this thread's partial stores, visible before the arrival below */
    /* every consumer thread's stores and fence come before thread 0 counts the CTA in:
     * without this barrier a thread of the other warpgroup could still be storing its
     * partials when the last CTA reads them (found in review, session 5) */
    named_bar_sync<EPI_BAR_CONSUMERS, W_CONSUMERS>();
    int last = 0;
    if (threadIdx.x == 0) {
        const uint32_t tile = ((uint32_t)l * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
        last = tetra_arrive_last(p.counters + tile, p.tag, p.splits);
    }
    if (!named_bar_or<EPI_BAR_CONSUMERS, W_CONSUMERS>(last)) return;
    __threadfence(); /* the other splits' partials: read after their arrivals */
    const int t = (int)threadIdx.x, c0 = n0 + 4 * (t % 32), r0 = t / 32;
    const int cn = min(4, p.n - c0); /* columns of this chunk inside N (<= 0: none) */
    if (cn <= 0) return;
    const bool vec = cn == 4 && p.n % 4 == 0; /* 16-byte aligned chunk (ws is 256-byte aligned) */
    const int64_t mn = (int64_t)p.m * p.n, split_stride = mn * p.batch;
    const float *src = p.ws + (int64_t)l * mn + (int64_t)(m0 + r0) * p.n + c0;
    const float scale = tetra_gemm_scale(p.alpha, NULL, p.gb);
    /* groups of G rows: registers for G accumulators and G loads (BT 256: two groups) */
#pragma unroll 1
    for (int g0 = 0; g0 < ROWS; g0 += G) {
        const int rows_left = p.m - m0 - r0 - 8 * g0; /* row j of the group is valid iff 8j < rows_left */
        if (rows_left <= 0) break;
        const float *gsrc = src + (int64_t)(8 * g0) * p.n;
        float4 v[G];
#pragma unroll
        for (int j = 0; j < G; j++) v[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 1
        for (int sp = 0; sp < p.splits; sp++) {
            const float *q = gsrc + sp * split_stride;
            float4 x[G];
#pragma unroll
            for (int j = 0; j < G; j++) {
                x[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                if (8 * j >= rows_left) continue;
                const float *qj = q + (int64_t)(8 * j) * p.n;
                if (vec) {
                    x[j] = __ldcg((const float4 *)qj);
                } else {
                    x[j].x = __ldcg(qj);
                    if (cn > 1) x[j].y = __ldcg(qj + 1);
                    if (cn > 2) x[j].z = __ldcg(qj + 2);
                    if (cn > 3) x[j].w = __ldcg(qj + 3);
                }
            }
#pragma unroll
            for (int j = 0; j < G; j++) {
                v[j].x = __fadd_rn(v[j].x, x[j].x);
                v[j].y = __fadd_rn(v[j].y, x[j].y);
                v[j].z = __fadd_rn(v[j].z, x[j].z);
                v[j].w = __fadd_rn(v[j].w, x[j].w);
            }
        }
#pragma unroll
        for (int j = 0; j < G; j++) {
            if (8 * j >= rows_left) break;
            const int m = m0 + r0 + 8 * (g0 + j);
            splitk_store(p, scale, l, m, c0, v[j].x);
            if (cn > 1) splitk_store(p, scale, l, m, c0 + 1, v[j].y);
            if (cn > 2) splitk_store(p, scale, l, m, c0 + 2, v[j].z);
            if (cn > 3) splitk_store(p, scale, l, m, c0 + 3, v[j].w);
        }
    }
}
#endif

/* ---- v7: D^T[N,M] = B[N,K] * A[M,K]^T (docs/notes/gemm-sm90.md, "v7").
 * The dequantized weights are wgmma's A operand from registers and the activations its B
 * operand from shared memory (the 128B-swizzled TMA tile of A, K-major: the same tile
 * layout the kernel above reads B from), so no dequantized tile is stored, fenced or
 * handed over: each consumer thread dequantizes its own fragments of K-tile i + 1 while
 * the wgmmas of K-tile i run. CTA: 128 weight rows (64 per consumer warpgroup) x BT
 * tokens; m64n{BT}k16, BT / 2 FP32 accumulators per thread. BT = 64 and 128 only: the
 * 256-token tile runs v10 (gemm_wgmma_t_ss_kernel, cfg_ss below).
 * TETRA_GEMM_V7_STAGE_KT (build switch, CMake cache variable; notes: gemm-sm90.md, "v7.8"):
 * K-tiles per ring stage, KT. 1: one 64-K K-tile per A and raw stage. 2 (default since
 * session 19: run 97, 0.910-0.955x the time at M = 64 on fragment weights): a stage holds two
 * K-tiles (their tiles / raw bytes / scales side by side, each laid out as a
 * one-K-tile stage), so the consumers wait on afull / rfull and arrive on rempty / aempty
 * once per two K-tiles (v7's per-K-tile barrier traffic, run 94), with the same arithmetic
 * and wgmma order per K-tile (same bits); both rings have half the stages, the same bytes. */
#ifndef TETRA_GEMM_V7_STAGE_KT
#define TETRA_GEMM_V7_STAGE_KT 2
#endif
/* TETRA_GEMM_V7_SCALE_PAIRS (build switch, CMake cache variable; notes: v7-scale-pairs.md):
 * 1: producer warps 2 and 3 (they issue no copies) convert each raw stage's block-scale codes
 * once into the (v, v) pair words the consumers multiply by (scale_pairs4: scale_pairs_quad's
 * values), in a ring of SPS stages ([row][k16 step] words, 16 bytes per row and K-tile), so a
 * consumer's scale step is 2 LDS.128 instead of v7.5's quad conversion and exchange (~20
 * instructions per K-tile). Same values, same wgmma order: same bits. Standard-layout weights
 * only: run 111 measured 0.932-0.958x the time there at M = 64, but 1.008-1.017x on fragment
 * weights (whose dequantization is 74 instructions, not ~150), so FRAG kernels keep v7.5's
 * step (cfg_t's FRAG). 0: v7.5's step everywhere. */
#ifndef TETRA_GEMM_V7_SCALE_PAIRS
#define TETRA_GEMM_V7_SCALE_PAIRS 1
#endif
static_assert(TETRA_GEMM_V7_SCALE_PAIRS == 0 || TETRA_GEMM_V7_SCALE_PAIRS == 1, "TETRA_GEMM_V7_SCALE_PAIRS: 0 or 1");
/* FRAG: the kernel reads TETRA_SCALE_FRAGMENT_128X64 weights; only the converted-scale ring
 * (TETRA_GEMM_V7_SCALE_PAIRS, standard layout only) depends on it */
template <int BT, bool FRAG = false> struct cfg_t {
    static_assert(BT == 64 || BT == 128, "v7 runs BT 64 and 128; BT 256 is v10");
    static_assert(TETRA_GEMM_V7_STAGE_KT == 1 || TETRA_GEMM_V7_STAGE_KT == 2, "TETRA_GEMM_V7_STAGE_KT: 1 or 2");
    enum {
        BN = 128, /* weight rows per CTA */
        KT = TETRA_GEMM_V7_STAGE_KT, /* K-tiles per stage of either ring */
        /* activation stages (BT x 64 x 2 bytes per K-tile: 8, 16 KiB) and raw weight stages
         * (4.5 KiB per K-tile). Small BT is bound by the weight stream, not the tensor pipe:
         * the smaller A stages leave room for a deeper raw ring, i.e. more weight bytes in
         * flight per SM (BT 64: up to 108 KiB, against ~50 KB that 4.45 TB/s / 132 SMs x
         * ~1.5 us needs). KT = 2: 4 / 3 A stages and 12 / 10 raw stages of twice the bytes
         * (BT 64 / 128), the same bytes (SMEM_BYTES 177,664 / 191,904 with KT = 1,
         * 177,408 / 191,696 with KT = 2: fewer barriers) */
        SA = (BT == 64 ? 8 : 6) / KT,
        SR = (BT == 64 ? 24 : 20) / KT,
        A_TILE_BYTES = BT * W_BK * 2, /* one K-tile's; a stage holds KT of them */
        BRAW_BYTES = BN * W_BK / 2,
        BSC_BYTES = BN * (W_BK / 16),
        A_STAGE_BYTES = KT * A_TILE_BYTES,
        RAW_STAGE_BYTES = KT * BRAW_BYTES,
        SC_STAGE_BYTES = KT * BSC_BYTES,
        NACC = BT / 2,
        /* TETRA_GEMM_V7_SCALE_PAIRS: the converted-scale ring, SPS stages of KT K-tiles, a
         * K-tile's pairs 16 bytes per row (row r at 16 r: a warp's 8 rows g are 128 contiguous
         * bytes, conflict-free LDS.128); its full barriers follow the others. Raw stage s uses
         * converted slot s % SPS, so the consumers derive it from their raw ring position (no
         * ring counters of its own in the K loop): SPS = SR where it fits (BT 64: 48 KiB,
         * SMEM_BYTES 226,656), else SR / 2 (BT 128: 20 KiB, 212,216), whose phase is then
         * (slot >= SPS). Without the switch: no bytes. */
        SP_ON = TETRA_GEMM_V7_SCALE_PAIRS && !FRAG,
        SP_TILE_BYTES = BN * 16,
        SP_STAGE_BYTES = KT * SP_TILE_BYTES,
        OFF_A = 0,
        OFF_BRAW = OFF_A + SA * A_STAGE_BYTES,
        OFF_BSC = OFF_BRAW + SR * RAW_STAGE_BYTES,
        OFF_SP = OFF_BSC + SR * SC_STAGE_BYTES,
        SPS = OFF_SP + SR * SP_STAGE_BYTES + (2 * SA + 3 * SR) * 8 + 1024 <= 227 * 1024 ? SR : SR / 2,
        OFF_BAR = OFF_SP + (SP_ON ? SPS * SP_STAGE_BYTES : 0),
        SMEM_BYTES = OFF_BAR + (2 * SA + 2 * SR + (SP_ON ? SPS : 0)) * 8 + 1024 /* + alignment slack */
    };
};
static_assert(cfg_t<64>::OFF_SP % 16 == 0 && cfg_t<128>::OFF_SP % 16 == 0, "converted scales: 16-byte rows");
static_assert((cfg_t<64>::SPS == cfg_t<64>::SR || cfg_t<64>::SPS * 2 == cfg_t<64>::SR) &&
                  (cfg_t<128>::SPS == cfg_t<128>::SR || cfg_t<128>::SPS * 2 == cfg_t<128>::SR),
              "converted slot = raw slot % SPS");
static_assert(cfg_t<64>::SMEM_BYTES <= 227 * 1024 && cfg_t<128>::SMEM_BYTES <= 227 * 1024, "shared memory");
/* a consumer holds an A stage until the next stage's first wait<1>: a ring of one would deadlock */
static_assert(cfg_t<64>::SA >= 2 && cfg_t<128>::SA >= 2 && cfg_t<64>::SR >= 2 && cfg_t<128>::SR >= 2, "ring depths");
/* the epilogue stages BT rows of 512 bytes (FP32 D / split-K partials) in the A ring */
static_assert(cfg_t<64>::SA * cfg_t<64>::A_STAGE_BYTES >= 64 * 512 &&
                  cfg_t<128>::SA * cfg_t<128>::A_STAGE_BYTES >= 128 * 512,
              "epilogue staging");
enum {
    /* CTAs per cluster along N; produce_stages<C, true> splits the A tile in 2. Each half
     * is BT / 2 rows x 128 bytes = 4, 8 or 16 KiB, a whole number of 1024-byte swizzle
     * atoms at every BT, so the multicast scheme holds for all three. */
    T_CLUSTER = 2
};

#if TETRA_SM90_DEVICE
/* The epilogue of both transposed kernels (v7 and v10: their accumulators have the same
 * layout, 64 weight rows x BT tokens per consumer warpgroup), run by the 256 consumer
 * threads after their last wgmma_wait<0>. The caller has done cluster_arrive after its K
 * loop; this ends with the matching cluster_wait, then the split-K tail. `stage` is the
 * A ring's base. Helpers: stage_out16/32, store_staged. Accumulator j of n8 tile c is
 * D^T[row 16*warp + g (+8 for j >= 2)][column 8c + 2t + j%2], i.e. D[m = m0 + 8c +
 * 2t + j%2][n = n0 + 64*wg + 16*warp + g (+8)]. Staged through the A ring, which is
 * free here: the producer's A warp issues exactly nk TMA loads (one per K-tile of this
 * split) and stops, and this warpgroup has waited on afull for every one of them, so
 * every write into the ring has landed and none can follow; the wgmmas that read the
 * ring are retired by wgmma_wait<0> for this warpgroup and, for the other one (it
 * reads every A stage too), by the consumers' named barrier below. */
/* v7.7, cluster-K: the split-K sum of one output tile from the staged FP32 partials of the
 * cluster's S = p.splits CTAs (cluster rank = split; each staged BT rows of 512 bytes at
 * `stage`, swizzled as stage_out32 writes them, the values the ordinary path stores to its
 * workspace), written to D. Output chunk o = (row o / 32 of the tile, n 4 (o % 32) .. + 3): the
 * rows inside M are spread over the cluster's S x 256 consumer threads (a warp reads one
 * row's 32 chunks: 512 contiguous bytes); a chunk's S partials are loaded (ld.shared::cluster,
 * all S in flight), then added in split order from 0.0f and stored by splitk_store: the adds,
 * order, scale, bias and rounding of gemm_wgmma_splitk_reduce, so the same bits. Called
 * between the cluster barrier after the staging and the exit barrier. */
template <int BT>
__device__ __forceinline__ void ck_reduce_t(const sm90_params &p, uint32_t stage, int m0, int n0, int l) {
    const int S = p.splits, rows = min(BT, p.m - m0);
    const float scale = tetra_gemm_scale(p.alpha, NULL, p.gb);
    for (int o = (int)cluster_ctarank() * W_CONSUMERS + (int)threadIdx.x; o < rows * 32; o += S * W_CONSUMERS) {
        const int row = o / 32, q = o % 32, c0 = n0 + 4 * q;
        if (c0 >= p.n) continue;
        const uint32_t a = stage + (uint32_t)row * EPI_ROW32 + (uint32_t)((q ^ (2 * ((row / 2) % 4))) << 4);
        float4 x[SPLIT_MAX];
#pragma unroll
        for (int sp = 0; sp < SPLIT_MAX; sp++)
            x[sp] = sp < S ? ld_cluster_f4(mapa_shared(a, (uint32_t)sp)) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
        for (int sp = 0; sp < SPLIT_MAX; sp++) {
            if (sp >= S) break;
            v.x = __fadd_rn(v.x, x[sp].x);
            v.y = __fadd_rn(v.y, x[sp].y);
            v.z = __fadd_rn(v.z, x[sp].z);
            v.w = __fadd_rn(v.w, x[sp].w);
        }
        const int m = m0 + row, cn = min(4, p.n - c0);
        splitk_store(p, scale, l, m, c0, v.x);
        if (cn > 1) splitk_store(p, scale, l, m, c0 + 1, v.y);
        if (cn > 2) splitk_store(p, scale, l, m, c0 + 2, v.z);
        if (cn > 3) splitk_store(p, scale, l, m, c0 + 3, v.w);
    }
}

/* CK (v7.7): no pair barrier is pending (the K loop did no cluster_arrive); the FP32 partials
 * are staged as for the workspace, then cluster barrier, ck_reduce_t, exit barrier (the
 * producer warps take part in both). */
template <int BT, bool CK = false>
__device__ __forceinline__ void store_tile_t(const float (&acc)[BT / 2], const sm90_params &p, uint32_t stage,
                                             int m0, int n0, int l, int split, int wg, uint32_t warp,
                                             uint32_t lane) {
    const uint32_t g = lane / 4, tq = lane % 4;
    const uint32_t r = 64 * (uint32_t)wg + 16 * warp + g; /* this thread's weight rows r and r + 8 */
    const bool to_ws = CK || p.splits > 1;
    const int out = to_ws ? (int)TETRA_DTYPE_FP32 : p.d_dtype;
    const float scale = to_ws ? 1.0f : tetra_gemm_scale(p.alpha, NULL, p.gb);
    /* the accumulators carry the operand factor 2^-B_EXP2: taking it back first is exact,
     * so the one rounding by `scale` is the one the unscaled sum would get */
    const float unit = (float)(1 << B_EXP2);
    const int nr = n0 + (int)r; /* this thread's n: nr and nr + 8 */
    float b0 = 0.0f, b1 = 0.0f;
    if (!to_ws && p.bias) {
        if (nr < p.n) b0 = tetra_load_dense(p.bias, nr, (tetra_dtype)p.bias_dtype);
        if (nr + 8 < p.n) b1 = tetra_load_dense(p.bias, nr + 8, (tetra_dtype)p.bias_dtype);
    }
    named_bar_sync<EPI_BAR_CONSUMERS, W_CONSUMERS>();
    if (out == TETRA_DTYPE_FP32) {
        /* n = r + 8h is word (r + 8h) % 4 of chunk (r + 8h) / 4; row 2t's swizzle is 2t */
        uint32_t addr[2];
#pragma unroll
        for (int h = 0; h < 2; h++)
            addr[h] = stage + 2 * tq * EPI_ROW32 + ((((r + 8 * h) / 4) ^ (2 * tq)) << 4) + 4 * (r % 4);
        stage_out32(acc, addr, unit, scale, b0, b1);
    } else {
        /* lane 8j + i: row i of matrix j (tile c + j/2, rows g + 8 (j%2)): D row 8 (j/2) + i
         * (swizzle i), n chunk of this warp's n + 8 (j%2) */
        const uint32_t j = lane / 8, i = lane % 8, q = (64 * (uint32_t)wg + 16 * warp) / 8 + j % 2;
        const uint32_t a = stage + (8 * (j / 2) + i) * EPI_ROW16 + ((q ^ i) << 4);
        if (out == TETRA_DTYPE_FP16) stage_out16<false>(acc, a, unit, scale, b0, b1);
        else stage_out16<true>(acc, a, unit, scale, b0, b1);
    }
    if (CK) {
        cluster_arrive(); /* release: this thread's staged partials */
        cluster_wait();   /* acquire: every CTA's */
        ck_reduce_t<BT>(p, stage, m0, n0, l);
        cluster_arrive_relaxed(); /* the peers' loads from this CTA are done before it exits */
        cluster_wait();
        return;
    }
    /* each warpgroup stores the 64 n it staged: rows of all four of its warps */
    if (wg == 0) named_bar_sync<EPI_BAR_WG, 128>();
    else named_bar_sync<EPI_BAR_WG + 1, 128>();
    {
        const int es = out == TETRA_DTYPE_FP32 ? 4 : 2, nh = n0 + 64 * wg;
        uint8_t *d;
        int64_t ldd;
        if (to_ws) {
            d = (uint8_t *)(p.ws + ((int64_t)split * p.batch + l) * (int64_t)p.m * p.n);
            ldd = p.n;
        } else {
            d = (uint8_t *)p.d + (int64_t)l * p.d_batch * es;
            ldd = p.ldd;
        }
        /* 16-byte vectors need D's batch base (hence d, and the batch stride) and its row
         * pitch 16-byte aligned; this half's first column is (128 * x + 64 * wg) * es bytes
         * in, a multiple of 128 */
        const bool vec = ((uintptr_t)d % 16 == 0) && (ldd * es) % 16 == 0;
        d += ((int64_t)m0 * ldd + nh) * es;
        const uint32_t tw = threadIdx.x % 128;
        if (es == 4) store_staged<4, BT>(stage, d, ldd, p.m - m0, p.n - nh, (uint32_t)wg, tw, vec);
        else store_staged<2, BT>(stage, d, ldd, p.m - m0, p.n - nh, (uint32_t)wg, tw, vec);
    }
    cluster_wait(); /* see cluster_arrive after the K loop */
    /* split-K: the tile's last CTA to arrive writes D (no reduce kernel) */
    if (to_ws && p.counters) splitk_last_cta<BT>(p, m0, n0, l);
}

/* TETRA_GEMM_V7_SCALE_PAIRS: producer warps 2 and 3 (cw = 0, 1; V7_SP_CONVERTERS threads)
 * convert the scale codes of every raw stage into the converted-scale ring (cfg_t's SPS; raw
 * stage s -> converted slot s % SPS): for stage i (K-tiles kt0 + i .., nt of them) wait until
 * the consumers released stage i - SPS (the raw ring's rempty: a consumer arrives there after
 * all its reads of a stage, converted pairs included, so that converted slot is free too; no
 * barrier of its own), wait for raw stage i (rfull), convert, arrive on spfull. Warp cw takes
 * K-tile u = cw of the stage (KT = 1: warp 1 only arrives): lane q reads bytes 16q .. 16q + 15
 * of the K-tile's 512 scale bytes (one LDS.128, conflict-free), the codes of rows q + 32j
 * (bulk 128x4 block layout) or 4q + j ([row][4]), and stores row r's 4 pair words at 16 r
 * (bulk: conflict-free STS.128). Shared memory only: no griddepcontrol.wait needed (the raw
 * stages it waits on were issued after the raw warp's). No deadlock: the consumers' stage c
 * needs this warp at c, which needs the consumers past c - SPS and raw stage c (the raw warp
 * needs the consumers past c - SR). */
enum { V7_SP_CONVERTERS = 64 };
template <bool IS_BF16, class C>
__device__ __forceinline__ void convert_scale_stages(const sm90_params &p, uint32_t sb, uint32_t rfull,
                                                     uint32_t rempty, uint32_t spfull, int nk, uint32_t cw,
                                                     uint32_t lane) {
    const uint32_t src_off = cw * C::BSC_BYTES + 16 * lane;
    const uint32_t dst_off = cw * C::SP_TILE_BYTES + (p.scale_bulk ? 16 * lane : 64 * lane);
    const uint32_t dst_step = p.scale_bulk ? 32 * 16 : 16; /* row q + 32 (j + 1), or 4q + j + 1 */
    ring_pos<C::SR> rr = {0, 0};
    for (int i = 0; i < nk; i += C::KT, rr.next()) {
        /* converted slot; stage i - SPS: raw slot rr.slot (SPS = SR) or rr.slot -+ SPS, of the
         * previous round unless hi (the first round's parity passes on fresh barriers) */
        const bool hi = C::SPS < C::SR && rr.slot >= C::SPS;
        const uint32_t slot = hi ? rr.slot - C::SPS : rr.slot;
        const uint32_t eslot = C::SPS == C::SR ? rr.slot : hi ? rr.slot - C::SPS : rr.slot + C::SPS;
        mbar_wait(rempty + 8 * eslot, hi ? rr.phase : rr.phase ^ 1); /* stage i - SPS released */
        mbar_wait(rfull + 8 * rr.slot, rr.phase);
        if ((int)cw < C::KT && (int)cw < nk - i) { /* K-tile cw is in the stage (the last may hold fewer) */
            const uint4 c = lds128(sb + C::OFF_BSC + rr.slot * C::SC_STAGE_BYTES + src_off);
            const uint32_t codes[4] = {c.x, c.y, c.z, c.w};
            const uint32_t dst = sb + C::OFF_SP + slot * C::SP_STAGE_BYTES + dst_off;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                uint32_t sp[4];
                scale_pairs4<IS_BF16>(codes[j], sp);
                sts128(dst + j * dst_step, sp[0], sp[1], sp[2], sp[3]);
            }
        }
        mbar_arrive(spfull + 8 * slot); /* release: after this thread's stores */
    }
}
#endif

/* Warpgroup 2 produces (produce_stages: activation tiles into the A ring, raw weights and
 * scales into the raw ring); warpgroups 0 and 1 consume. Per K-tile i a consumer issues
 * 4 wgmmas (k16 steps; block scale s <-> step s) from fragment set i % 2, waits for
 * K-tile i - 1's group (wait_group 1: its A stage and fragment set are free), releases
 * that A stage, and dequantizes K-tile i + 1 into the other set, which overlaps the
 * wgmmas of K-tile i. The K loop is unrolled by two so the two fragment sets are
 * distinct registers. Registers: BT / 2 accumulators + 2 x 16 fragments + the dequant's
 * temporaries within setmaxnreg 224 (launch bound 168 x 384, as above).
 * Launched in clusters of 2 CTAs along N (CTAs 2j and 2j + 1: same tokens, weight rows
 * 128 apart; "v7 clusters" in the notes): the activation tile of a K-tile is loaded once
 * per pair (produce_stages<C, true>: each CTA's producer loads one half into both CTAs),
 * and a stage is refilled only after the consumer warps of BOTH CTAs released it (each
 * warp arrives on its own CTA's aempty and, through mapa, on the peer's). A CTA past N
 * (grid x is rounded up to even) computes on zero-filled weights and stores nothing.
 * TETRA_GEMM_TRACE builds: the clock trace (V7_TR_*, V7_TK_*) when p.trace is set.
 * CK (v7.7, gemm_wgmma_t_ck_kernel): clusters of (1, 1, splits) instead, z = split + splits *
 * l: each CTA loads its own whole A tile (two half boxes), its aempty counts its own 8
 * consumer warps, no remote arrivals, a CTA barrier instead of the start's cluster barrier, and
 * store_tile_t<BT, true> ends with the cluster's reduce (two cluster barriers, which the
 * producer warps join).
 * TETRA_GEMM_V7_A_LOCAL (v7.10, the ordinary kernel at BT 64; 2: BT 128 too): no pair (PAIR false)
 * in clusters of 1: the A loads, aempty count, start barrier and arrivals of CK, the rest (z order,
 * epilogue, end barriers) of the ordinary kernel; grid x = ceil(N / 128), no CTA past N.
 * TETRA_GEMM_V7_PDL (v7.9; launched as a programmatic dependent, v7_launch_attrs): everything up
 * to setmaxnreg (mbarrier inits, the fence, the half_a zeroing, the cluster / CTA barrier) reads
 * no global memory and runs before any griddepcontrol.wait. Each thread waits once before its
 * first global access: the producer warps at the top of produce_stages (PDL 2: the raw warp after
 * its first SR stages), the consumers after their K loop (until then they touch shared memory
 * only; their stages landed after the producers' waits), right after the CTA's
 * griddepcontrol.launch_dependents. TETRA_GEMM_TRACE's readings are written before the waits
 * (launch_traced synchronizes before a traced launch). */
template <bool IS_BF16, int BT, bool FRAG, bool CK>
__device__ __forceinline__ void v7_body(const CUtensorMap &tm_a, const CUtensorMap &tm_b, const sm90_params &p) {
#if TETRA_SM90_DEVICE
    typedef cfg_t<BT, FRAG> C;
    extern __shared__ uint8_t smem_raw[];
    const uint32_t sb = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const uint32_t afull = sb + C::OFF_BAR, aempty = afull + 8 * C::SA;
    const uint32_t rfull = aempty + 8 * C::SA, rempty = rfull + 8 * C::SR;
    const uint32_t spfull = rempty + 8 * C::SR; /* TETRA_GEMM_V7_SCALE_PAIRS: C::SPS barriers */
    const int n0 = blockIdx.x * C::BN, m0 = blockIdx.y * BT;
    const cta_split cs = cta_split_of<CK>(p);
    const int l = cs.l, split = cs.split, kt0 = cs.kt0, nk = cs.nk;
    const int wg = __shfl_sync(0xFFFFFFFFu, (int)(threadIdx.x / 128), 0), lane = threadIdx.x % 32;
    /* the 2-CTA pair that shares each A stage (TMA multicast, remote aempty arrivals): not in
     * cluster-K (CK) nor where TETRA_GEMM_V7_A_LOCAL takes this tile (v7.10: clusters of 1) */
    constexpr bool PAIR = !CK && !V7_A_LOCAL(BT);
    const uint32_t cta_rank = cluster_ctarank(); /* 0 or 1 in the pair (CK: the split; !PAIR && !CK: 0) */
#ifdef TETRA_GEMM_DIAG
    const int diag = p.diag; /* 1: no dequantization (stale fragments), 3: no scale loads, 4: both; 9-11 (sm90_params) */
#else
    const int diag = 0;
#endif
    if (threadIdx.x == 0) {
        ss_trace_begin(p, cta_rank, nk);
        SS_TRACE_HDR(p, V7_TR_LAYOUT, (unsigned long long)(V7_TK_N | (FRAG ? 1 : 0) << 8 | BT << 16));
    }

    if (threadIdx.x == 0) {
        for (int s = 0; s < C::SA; s++) {
            mbar_init(afull + 8 * s, 1);      /* this CTA's A producer's expect_tx (both halves) */
            mbar_init(aempty + 8 * s, PAIR ? 2 * 8 : 8); /* one per consumer warp of both CTAs (!PAIR: this CTA's) */
        }
        for (int s = 0; s < C::SR; s++) {
            mbar_init(rfull + 8 * s, 1 + 32);       /* raw producer's expect_tx + one per lane */
            mbar_init(rempty + 8 * s, W_CONSUMERS); /* every consumer thread, after its reads */
        }
        if (C::SP_ON)
            for (int s = 0; s < C::SPS; s++) mbar_init(spfull + 8 * s, V7_SP_CONVERTERS); /* every converter thread */
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    /* Tokens only in the tile's first half (M - m0 <= BT / 2, e.g. M <= 32 at BT 64): the
     * second half of every A stage would be a TMA box wholly past M (zero-filled), and such
     * boxes cost time (run 83: M = 17..32 6-12% slower than M = 64). Instead it is zeroed
     * here once, rank 1 loads nothing, and each stage expects half the bytes (same zeros,
     * same bits). The epilogue's later reuse of the ring is after the last wgmma. */
    const bool half_a = p.m - m0 <= BT / 2;
    if (half_a) {
        for (uint32_t i = threadIdx.x; i < C::SA * C::KT * (C::A_TILE_BYTES / 32); i += W_THREADS) {
            const uint32_t st = i / (C::A_TILE_BYTES / 32), q = i % (C::A_TILE_BYTES / 32);
            sts128(sb + C::OFF_A + st * C::A_TILE_BYTES + C::A_TILE_BYTES / 2 + 16 * q, 0u, 0u, 0u, 0u);
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* generic writes -> wgmma reads */
    }
    /* the peer multicasts into this CTA's stages and arrives on its aempty barriers: both
     * CTAs' barriers must be initialized first (also the CTA-wide barrier __syncthreads was).
     * CK: nothing of another CTA touches this one before the epilogue's cluster barrier; !PAIR
     * otherwise: no other CTA in the cluster */
    if (!PAIR) {
        __syncthreads();
    } else {
        cluster_arrive();
        cluster_wait();
    }
    if (threadIdx.x == 0) SS_TRACE_HDR(p, SS_TR_SYNCED, (uint32_t)clock64());

    if (wg == 2) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"((int)V7_PRODUCER_REGS));
        const uint32_t pw = (threadIdx.x % 128) / 32;
        if (C::SP_ON && pw >= 2) /* the warps that issue no copies convert the scales */
            convert_scale_stages<IS_BF16, C>(p, sb, rfull, rempty, spfull, nk, pw - 2, lane);
        else
            produce_stages<C, PAIR, FRAG, TETRA_V7_TRACED, !PAIR, C::KT, TETRA_GEMM_V7_PDL>(
                &tm_a, &tm_b, p, sb, afull, aempty, rfull, rempty, m0, n0, l, kt0, nk, lane, diag, cta_rank, half_a);
        /* the exit barrier (see the consumers'): barrier.cluster would also let exited
         * threads through, but taking part costs these idle warps nothing. CK: the partials'
         * barrier, then the exit barrier (store_tile_t) */
        cluster_arrive();
        cluster_wait();
        if (CK) {
            cluster_arrive();
            cluster_wait();
        }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"((int)V7_CONSUMER_REGS));
    float acc[C::NACC];
#pragma unroll
    for (int i = 0; i < C::NACC; i++) acc[i] = 0.0f;
    const uint32_t warp = (threadIdx.x % 128) / 32, g = lane / 4, tq = lane % 4;
    /* this thread's weight rows within the CTA: r and r + 8 */
    const uint32_t r = 64 * (uint32_t)wg + 16 * warp + g;
    /* the raw stage: row r's 32 bytes, or (FRAG) this thread's 16 fragment bytes */
    const uint32_t raw_off = FRAG ? 2048 * (uint32_t)wg + 512 * warp + 16 * lane : r * 32;
    const uint32_t sc_off0 = p.scale_bulk ? 16 * (r & 31) + 4 * (r >> 5) : 4 * r;
    const uint32_t sc_off1 = p.scale_bulk ? 16 * ((r + 8) & 31) + 4 * ((r + 8) >> 5) : 4 * (r + 8);
    const uint32_t sel = tq | ((tq + 4) << 4);
    const uint32_t sp_off = 16 * r; /* TETRA_GEMM_V7_SCALE_PAIRS: row r's pairs (row r + 8: + 128) */
    const uint32_t db0 = wgmma_desc_lo(sb + C::OFF_A); /* both consumers read all BT tokens */
    const uint32_t aempty_peer = PAIR ? mapa_shared(aempty, cta_rank ^ 1u) : 0u;
    ring_pos<C::SA> ra = {0, 0};
    ring_pos<C::SR> rr = {0, 0};
    uint32_t a_prev = 0;
    uint32_t f0[16], f1[16];
    if (diag == 1 || diag == 4) /* the timing diagnostic never writes them */
#pragma unroll
        for (int j = 0; j < 16; j++) f0[j] = f1[j] = 0;

    /* TETRA_GEMM_TRACE: lane 0 of consumer warps 0 and 4 write the readings; compiled out
     * otherwise. tr_row0: this warpgroup's first reading of K-tile 0, tr_on: tracing (a
     * loop-invariant predicate); each step derives its K-tile's row once, so a reading is a
     * clock read and a store (the cheapest of the variants tried, docs/notes/gemm-sm90.md
     * "v7 clock trace") */
    const bool tracer = TETRA_V7_TRACED && threadIdx.x % 128 == 0;
    const bool tr_on = tracer && v7_trace_row0(p) != nullptr;
    uint32_t *const tr_row0 = tr_on ? v7_trace_row0(p) + wg * V7_TK_WG : nullptr;
    (void)tr_row0;
#define V7_STAMP(row, e) /* reading e of the K-tile whose readings start at row */                                 \
    do {                                                                                                              \
        if (TETRA_V7_TRACED && tr_on) (row)[e] = (uint32_t)clock64();                                                 \
    } while (0)
#define V7_STAMP_HDR(w0, w1)                                                                                          \
    do {                                                                                                              \
        if (tracer) SS_TRACE_HDR(p, wg ? (w1) : (w0), (uint32_t)clock64());                                          \
    } while (0)
    /* the next K-tile's fragments, K-tile u (0 .. KT - 1; a constant at every call) of raw
     * stage rr (tr_row: its K-tile's readings): the stage's first K-tile waits for it, its
     * last releases it */
    auto load_frag = [&](uint32_t (&f)[16], uint32_t *tr_row, const int u) {
        (void)tr_row;
        /* TETRA_GEMM_V7_SCALE_PAIRS: raw stage rr's converted slot (cfg_t's SPS) */
        const bool sp_hi = C::SPS < C::SR && rr.slot >= C::SPS;
        const uint32_t sp_slot = sp_hi ? rr.slot - C::SPS : rr.slot;
        const uint32_t sp_phase = C::SPS < C::SR ? (uint32_t)sp_hi : rr.phase;
        if (u == 0) {
            mbar_wait(rfull + 8 * rr.slot, rr.phase);
            if (C::SP_ON) mbar_wait(spfull + 8 * sp_slot, sp_phase); /* its scales converted */
        }
        V7_STAMP(tr_row, V7_TK_C_RFULL);
        const uint32_t sc = sb + C::OFF_BSC + rr.slot * C::SC_STAGE_BYTES + u * C::BSC_BYTES;
        const uint32_t raw = sb + C::OFF_BRAW + rr.slot * C::RAW_STAGE_BYTES + u * C::BRAW_BYTES + raw_off;
        if (diag == 1 || diag == 4) { /* DIAG: no dequantization (nor its shared-memory reads) */
        } else if (C::SP_ON) {
            /* the pairs of rows r and r + 8, four k16 steps each (convert_scale_stages) */
            const uint32_t spa = sb + C::OFF_SP + sp_slot * C::SP_STAGE_BYTES + u * C::SP_TILE_BYTES + sp_off;
            const uint4 p0 = lds128(spa), p1 = lds128(spa + 8 * 16);
            const uint32_t spq[2][4] = {{p0.x, p0.y, p0.z, p0.w}, {p1.x, p1.y, p1.z, p1.w}};
            if (FRAG) dequant_frag_pairs<IS_BF16>(f, spq, [&] { return lds128(raw); });
            else dequant_frag_sp<IS_BF16>(f, raw, spq, sel);
        } else if (FRAG) dequant_frag_prepared<IS_BF16>(f, raw, sc + sc_off0, sc + sc_off1, sel);
        else dequant_frag<IS_BF16>(f, raw, sc + sc_off0, sc + sc_off1, sel);
        /* release: ordered after this thread's reads (SCALE_PAIRS: the converted stage's too;
         * the converter waits on this barrier before it rewrites that stage) */
        if (u == C::KT - 1) mbar_arrive(rempty + 8 * rr.slot);
        /* after the arrive (which ptxas schedules right after the loads; a reading before it
         * would hold it behind the arithmetic: nothing moves across a clock read) */
        V7_STAMP(tr_row, V7_TK_C_DEQUANT);
        if (u == C::KT - 1) rr.next();
    };
    /* K-tile i, K-tile u = i % KT (a constant at both calls) of A stage ra */
    auto step = [&](int i, const uint32_t (&cur)[16], uint32_t (&nxt)[16], const int u) {
        const uint32_t db = db0 + ra.slot * (C::A_STAGE_BYTES / 16) + u * (C::A_TILE_BYTES / 16);
        uint32_t *const tr_row = tr_on ? tr_row0 + i * V7_TK_N : nullptr; /* computed once per step */
        (void)tr_row;
        if (u == 0) mbar_wait(afull + 8 * ra.slot, ra.phase);
        V7_STAMP(tr_row, V7_TK_C_AFULL);
        wgmma_acc_fence<C::NACC>(acc);
        wgmma_fence();
#pragma unroll
        for (int s = 0; s < W_BK / 16; s++) wgmma_rs_k16<IS_BF16, BT>(acc, cur + 4 * s, wgmma_desc_of(db + s * 32 / 16));
        wgmma_commit();
        V7_STAMP(tr_row, V7_TK_C_ISSUED);
        wgmma_acc_fence<C::NACC>(acc);
        wgmma_wait<1>(); /* K-tile i - 1's group has completed: its A stage and nxt are free */
#ifdef TETRA_GEMM_V7_SERIAL_DQ
        /* diagnostic only (a trace-build experiment, never a default; same bits, slower): K-tile
         * i's group completes too, so the dequantization below runs with no RS wgmma of this
         * warpgroup in flight. Its trace says whether that dequant segment (~270 cycles in run
         * 98) is slowed by the running wgmma reading its A fragments from the register file */
        wgmma_wait<0>();
#endif
        wgmma_acc_fence<C::NACC>(acc);
        V7_STAMP(tr_row, V7_TK_C_WAIT1);
        /* K-tile i - 1 was the last of A stage a_prev (KT = 2: i is its successor's first) */
        if (u == 0 && i > 0 && lane == 0) { /* both CTAs' producers write this stage (PAIR) */
            mbar_arrive(aempty + 8 * a_prev);
            if (PAIR) mbar_arrive_remote(aempty_peer + 8 * a_prev);
        }
        if (u == C::KT - 1) {
            a_prev = ra.slot;
            ra.next();
        }
        if (i + 1 < nk) load_frag(nxt, tr_row + V7_TK_N, (u + 1) % C::KT);
    };
    V7_STAMP_HDR(SS_TR_INIT, V7_TR_INIT1); /* the first K-tile's start */
    load_frag(f0, tr_row0, 0); /* nk >= 1: the launcher keeps splits <= K-tiles */
    /* unrolled by two: K-tile i is even, so (KT = 2) the first of its stages */
    for (int i = 0; i < nk; i += 2) {
        step(i, f0, f1, 0);
        if (i + 1 < nk) step(i + 1, f1, f0, 1 % C::KT);
    }
    V7_STAMP_HDR(SS_TR_LOOP_END, V7_TR_LOOP_END1);
#if TETRA_GEMM_V7_PDL
    /* v7.9: the next kernel on the stream (if launched as a programmatic dependent) may be
     * scheduled once every CTA of this grid got here (the first thread of a CTA to issue it
     * counts), so its prologue runs under this epilogue; its own griddepcontrol.wait still
     * waits for this grid to complete and flush, so D is safe. Then this thread's wait: its
     * global accesses (bias, global scale, D, the split-K workspace and counters) come after
     * the previous kernel. Here it never blocks: the afull stages this thread waited on were
     * issued after the A warp's wait. Until here the consumers touched shared memory only. */
    tetra_pdl_trigger();
    tetra_pdl_wait();
#endif
    /* this CTA's last remote arrival is done; the wait below keeps its shared memory alive
     * until the peer's are (the peer's multicasts into it have all landed: every afull
     * stage was waited on). CK: no pair; store_tile_t's barriers. !PAIR && !CK (v7.10): a
     * cluster of 1, so this and store_tile_t's wait are a barrier of this CTA's threads */
    if (!CK) cluster_arrive();
    wgmma_wait<0>();
    wgmma_acc_fence<C::NACC>(acc);
    V7_STAMP_HDR(SS_TR_DRAINED, V7_TR_DRAINED1);

    /* ---- epilogue: store_tile_t (shared with the v10 kernel) */
    store_tile_t<BT, CK>(acc, p, sb + C::OFF_A, m0, n0, l, split, wg, warp, lane);
    if (tracer) {
        if (wg == 0) ss_trace_end(p);
        else SS_TRACE_HDR(p, V7_TR_STORED1, (uint32_t)clock64());
    }
#undef V7_STAMP
#undef V7_STAMP_HDR
#else
    (void)tm_a;
    (void)tm_b;
    (void)p;
    __trap(); /* never launched: the launcher checks g_wgmma_kernel_built */
#endif
}
template <bool IS_BF16, int BT, bool FRAG>
__global__ void __launch_bounds__(W_THREADS, 1)
gemm_wgmma_t_kernel(const __grid_constant__ CUtensorMap tm_a, const __grid_constant__ CUtensorMap tm_b,
                    const sm90_params p) {
    v7_body<IS_BF16, BT, FRAG, false>(tm_a, tm_b, p);
}
#if TETRA_GEMM_T_CK
/* v7.7, cluster-K (docs/notes/gemm-sm90.md, "v7.7"): v7's body with CK set. Clusters of
 * (1, 1, splits) CTAs: the S K-splits of one output tile (z = split + splits * l), no A
 * multicast pair (each CTA loads its whole activation tile: at M <= 128 it is small and
 * L2-resident, and a pair would double the cluster: (2, 1, S) allows S <= 8 only, while
 * glm5's 64x768x6144 takes 16 splits). After the K loop each CTA stages its FP32 partials in
 * its A ring, and the tile's sum is read from the cluster's shared memory (ck_reduce_t): no
 * workspace, no reduce kernel, the reduce kernel's bits. */
template <bool IS_BF16, int BT, bool FRAG>
__global__ void __launch_bounds__(W_THREADS, 1)
gemm_wgmma_t_ck_kernel(const __grid_constant__ CUtensorMap tm_a, const __grid_constant__ CUtensorMap tm_b,
                       const sm90_params p) {
    v7_body<IS_BF16, BT, FRAG, true>(tm_a, tm_b, p);
}
#endif

/* ---- v10: the transposed product with a transform stage (docs/notes/gemm-sm90.md, "v10").
 * BT = 256 only. The producer warpgroup's two warps that issue no copies (2 and 3) are
 * transform warps: per K-tile they dequantize the raw 128 x 64 weight tile into a ring of
 * 16-bit W tiles (K-major, 128B swizzle: the layout a wgmma shared-memory descriptor
 * reads), so the consumers issue SS wgmmas only (W tile = A operand, activation tile = B
 * operand) and do no dequantization. Same CTA, cluster pair, A ring, raw ring, epilogue
 * and split-K as v7; the dequantized values and the wgmma order are v7's.
 * Shared memory (225,504 bytes of 232,448): A 4 x 32 KiB (the epilogue stages 256 rows of
 * 512 bytes there: at least 4 stages), W 4 x 16 KiB (the consumers hold 2 W stages, K-tiles
 * i - 1 and i, so the transform can run 2 K-tiles ahead), raw 6 x 4.5 KiB (released right
 * after the transform's reads, so it is held briefly: 5 K-tiles of lead for the weight
 * stream). A 5th A stage would leave room for only 3 W + 3 raw stages. The build flags
 * -DTETRA_GEMM_SS_SA=5 -DTETRA_GEMM_SS_SW=3 -DTETRA_GEMM_SS_SR=3 make that split instead,
 * for an A/B in one device call (the static_asserts below check any choice). */
#ifndef TETRA_GEMM_SS_SA
#define TETRA_GEMM_SS_SA 4
#endif
#ifndef TETRA_GEMM_SS_SW
#define TETRA_GEMM_SS_SW 4
#endif
#ifndef TETRA_GEMM_SS_SR
#define TETRA_GEMM_SS_SR 6
#endif
struct cfg_ss {
    enum {
        BN = 128, /* weight rows per CTA */
        BT = 256, /* tokens per CTA */
        SA = TETRA_GEMM_SS_SA,
        SW = TETRA_GEMM_SS_SW,
        SR = TETRA_GEMM_SS_SR,
        A_TILE_BYTES = BT * W_BK * 2,
        W_TILE_BYTES = BN * W_BK * 2,
        BRAW_BYTES = BN * W_BK / 2,
        BSC_BYTES = BN * (W_BK / 16),
        NACC = BT / 2,
        XFORM_THREADS = 128, /* the producer warpgroup, one weight row per thread */
        OFF_A = 0,
        OFF_W = OFF_A + SA * A_TILE_BYTES,
        OFF_BRAW = OFF_W + SW * W_TILE_BYTES,
        OFF_BSC = OFF_BRAW + SR * BRAW_BYTES,
        OFF_BAR = OFF_BSC + SR * BSC_BYTES,
        SMEM_BYTES = OFF_BAR + (2 * SA + 2 * SR + 2 * SW) * 8 + 1024 /* + alignment slack */
    };
};
static_assert(cfg_ss::SMEM_BYTES <= 227 * 1024, "shared memory");
/* W: the consumers hold 2 stages; A, raw: the producers need at least one free stage */
static_assert(cfg_ss::SW >= 3 && cfg_ss::SA >= 3 && cfg_ss::SR >= 2, "ring depths");
static_assert(cfg_ss::SA * cfg_ss::A_TILE_BYTES >= 256 * 512, "epilogue staging");
static_assert(cfg_ss::OFF_W % 1024 == 0 && cfg_ss::W_TILE_BYTES % 1024 == 0, "W tiles: 1024-byte swizzle atoms");
#ifndef TETRA_GEMM_SS_PERSISTENT
#define TETRA_GEMM_SS_PERSISTENT 1 /* CMake sets it (cache variable of the same name) */
#endif
#if TETRA_GEMM_SS_PERSISTENT
/* v10.8 (gemm_wgmma_t_ss_p_kernel): v10.3's shared memory plus one mbarrier (the W-ring
 * handover), a 16-bit D tile (BT rows x 128 n x 2 bytes) staged in the W ring, which is
 * exactly that size with the default 4 stages */
enum { SS_P_SMEM_BYTES = cfg_ss::SMEM_BYTES + 8 /* wfree, the W-ring handover */ };
/* the launcher's K limit: K <= 4096 (measured winners: K = 1024 and 4096; loser: 14336) */
enum { SS_P_MAX_KTILES = 4096 / W_BK };
static_assert(SS_P_SMEM_BYTES <= 227 * 1024, "shared memory");
/* EPI_ROW16 (device passes only) = 128 n x 2 bytes */
static_assert(cfg_ss::SW * cfg_ss::W_TILE_BYTES >= cfg_ss::BT * 128 * 2, "v10.8: 16-bit D staged in the W ring");
#endif

#if TETRA_SM90_DEVICE
/* One weight row of a K-tile (64 elements: 32 raw bytes in two 16-byte halves, 4 block
 * scales) dequantized into its 128-byte row of a W tile, v7's values: dequant_b_tile's
 * per-pair bit trick (PRMT to [even, 0, odd, 0], e2m1x2_bits, one HMUL2 by the pre-scaled
 * block scale) with v7.1's scale_pairs4. h0 is the half this thread loaded first (words
 * 4f .. 4f + 3 of the row, f = the thread's flip, see xform_row_of), h1 the other;
 * `codes` is the row's 4 scale codes rotated by 16 bits when f = 1 (so codes 0, 1 belong
 * to h0); chunk c of the 8 (c < 4 from h0) goes to tile + chunk[c], tile the W stage (+
 * 8192 for row r + 64), chunk[c] its offset in the row, swizzle and flip applied. */
template <bool IS_BF16>
__device__ __forceinline__ void xform_row(uint32_t tile, const uint32_t (&chunk)[8], const uint4 &h0, const uint4 &h1,
                                          uint32_t codes) {
    uint32_t sp[4];
    scale_pairs4<IS_BF16>(codes, sp);
    const uint32_t words[8] = {h0.x, h0.y, h0.z, h0.w, h1.x, h1.y, h1.z, h1.w};
#pragma unroll
    for (int c = 0; c < 8; c++) { /* 8 elements, block c / 2 */
        const uint32_t x = words[c];
        const uint32_t ev = x & 0x0F0F0F0Fu, od = (x >> 4) & 0x0F0F0F0Fu;
        uint32_t o[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const uint32_t w = prmt(ev, od, 0x8080u | (uint32_t)q | ((uint32_t)(4 + q) << 8));
            o[q] = mul2<IS_BF16>(e2m1x2_bits<IS_BF16>(w), sp[c >> 1]);
        }
        sts128(tile + chunk[c], o[0], o[1], o[2], o[3]);
    }
}

/* Transform thread t (0..127, all four warps of the producer warpgroup) takes weight row r
 * of every K-tile, r = t with bits 2 and 3 swapped, and flip f = bit 3 of r: it reads half
 * f of its raw row first. Then the 8 threads of each quarter-warp (one shared-memory
 * wavefront for 16-byte accesses) hit 8 distinct 16-byte bank groups in all three of its
 * 16-byte accesses: raw reads at r * 32 + 16 f (rows {b..b+3} with f = 0, {b+8..b+11} with
 * f = 1: offsets 0, 32, 64, 96 and 16, 48, 80, 112 mod 128), and W stores of chunk
 * c ^ 4f ^ (r % 8) (r % 8 takes 4 values, each once per f). With r = t, the raw reads
 * conflicted 2-way. */
__device__ __forceinline__ uint32_t xform_row_of(uint32_t t) { return (t & ~12u) | ((t & 4u) << 1) | ((t & 8u) >> 1); }

/* v10.1, linear or unaligned scales: how many K-tiles ahead of its own transform warp 1
 * fills the raw ring. Its wait for a free raw slot then needs every transform thread to be
 * done with K-tile i + SS_RAW_LEAD - SR = i - 2, which the W ring all but guarantees (no
 * dependence on warp 1's own later work: no deadlock). With bulk scales a consumer thread
 * fills the raw ring instead (gemm_wgmma_t_ss_kernel). */
enum { SS_RAW_LEAD = cfg_ss::SR - 2 };
static_assert(SS_RAW_LEAD >= 1, "raw lead");

/* The BT-256 kernels' barriers (v10.3; v10.8 adds wfree after them): A, raw and W rings,
 * full and empty of each, 8 bytes a stage from OFF_BAR. One place for the offsets and
 * the init counts, so the two kernels cannot drift apart. */
struct ss_bars {
    uint32_t afull, aempty, rfull, rempty, wfull, wempty;
};
template <class C> __device__ __forceinline__ ss_bars ss_bars_of(uint32_t sb) {
    ss_bars b;
    b.afull = sb + C::OFF_BAR;
    b.aempty = b.afull + 8 * C::SA;
    b.rfull = b.aempty + 8 * C::SA;
    b.rempty = b.rfull + 8 * C::SR;
    b.wfull = b.rempty + 8 * C::SR;
    b.wempty = b.wfull + 8 * C::SW;
    return b;
}
/* thread 0, before the caller's fence.mbarrier_init */
template <class C> __device__ __forceinline__ void ss_init_bars(const ss_bars &b, const sm90_params &p) {
    for (int s = 0; s < C::SA; s++) {
        mbar_init(b.afull + 8 * s, 1);      /* this CTA's A producer's expect_tx (both halves) */
        mbar_init(b.aempty + 8 * s, 2 * 8); /* one per consumer warp of both CTAs */
    }
    for (int s = 0; s < C::SR; s++) {
        /* bulk scales: the consumer thread's expect_tx; else warp 1's, and one per lane */
        mbar_init(b.rfull + 8 * s, p.scale_bulk ? 1 : 1 + 32);
        mbar_init(b.rempty + 8 * s, C::XFORM_THREADS); /* every transform thread, after its reads */
    }
    for (int s = 0; s < C::SW; s++) {
        mbar_init(b.wfull + 8 * s, C::XFORM_THREADS); /* every transform thread, after its stores */
        mbar_init(b.wempty + 8 * s, 8);                /* one per consumer warp */
    }
}

/* What a transform thread keeps for all its K-tiles: its weight row (xform_row_of) and
 * flip, as offsets: the row's raw half it reads first, its 4 scale codes, the rotation of
 * the codes, and the W tile offsets of the row's 8 chunks; those stay in registers, so each
 * store's address is one add of the stage base (an XOR per chunk otherwise). Out-parameters,
 * not a returned struct: a struct changed the kernels' SASS (session 15, branch fold108). */
__device__ __forceinline__ void xform_thread_consts(const sm90_params &p, uint32_t t, uint32_t &raw_off,
                                                    uint32_t &sc_off, uint32_t &csel, uint32_t (&chunk)[8]) {
    const uint32_t r = xform_row_of(t), f = (r >> 3) & 1;
    raw_off = r * 32 + 16 * f;
    /* scales: [row][4], or the 128x4 block layout (16 (r % 32) + 4 (r / 32)) */
    sc_off = p.scale_bulk ? 16 * (r & 31) + 4 * (r >> 5) : 4 * r;
    csel = f ? 0x1032u : 0x3210u;
#pragma unroll
    for (int c = 0; c < 8; c++) chunk[c] = r * 128 + ((((r & 7) ^ (4 * f)) ^ (uint32_t)c) << 4);
}

/* FRAG (TETRA_SCALE_FRAGMENT_128X64 weights; docs/notes/fragment-layout.md, "BT 256 reader"):
 * transform thread t = (warp q, lane) takes the block's 16-row groups 2q and 2q + 1 (group
 * 4 wg + w: v7's consumer warp (wg, w)) and, for each, computes v7 consumer thread (wg, w,
 * lane)'s 16 A registers (dequant_frag_words: its 16 bytes, its rows' scale codes), stores
 * step s's four with one stmatrix.x4 (register j = matrix j; src/format/fragment_map.h,
 * tetra_frag_xform_*: lane 8j + i gives row 16 G + i + 8 (j % 2), chunk 2s + j / 2). The
 * W tile is the standard transform's, byte for byte (tests/test_fragment_wtile.c), so the
 * consumers, their wgmmas and the outputs are the standard weights'. The constants travel
 * in transform_k_tiles' standard parameters: raw_off = group 2q's 16 bytes (group 2q + 1 is
 * 512 on), csel = v7's quad selector (t % 4 | (t % 4 + 4) << 4), chunk[0..3] = the stmatrix
 * address of step s for group 2q (group 2q + 1 is 2048 on), chunk[4..7] = the scale offsets
 * of rows r, r + 8 (group 2q) and r + 16, r + 24 (group 2q + 1), r = 32q + lane / 4, in the
 * stage's scale layout (v7's formula); sc_off is unused. */
__device__ __forceinline__ void xform_frag_consts(const sm90_params &p, uint32_t t, uint32_t &raw_off,
                                                  uint32_t &sc_off, uint32_t &csel, uint32_t (&chunk)[8]) {
    const uint32_t q = t / 32, lane = t % 32, tq = lane % 4;
    raw_off = tetra_frag_xform_raw_off(q, lane, 0);
    sc_off = 0;
    csel = tq | ((tq + 4) << 4);
#pragma unroll
    for (uint32_t s = 0; s < 4; s++) chunk[s] = 2048 * (2 * q) + tetra_frag_xform_st_off(lane, s);
#pragma unroll
    for (uint32_t e = 0; e < 4; e++) {
        const uint32_t r = 32 * q + lane / 4 + 8 * e;
        chunk[4 + e] = p.scale_bulk ? 16 * (r & 31) + 4 * (r >> 5) : 4 * r;
    }
}
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(addr), "r"(a), "r"(b),
                 "r"(c), "r"(d)
                 : "memory");
}
/* One group of a FRAG K-tile: its registers from v (16 bytes) and codes c0 / c1 (rows g,
 * g + 8), stored step by step at tile + st[s] (the group's stmatrix addresses). */
template <bool IS_BF16>
__device__ __forceinline__ void xform_frag_group(uint32_t tile, const uint32_t *st, const uint4 &v, uint32_t c0,
                                                 uint32_t c1, uint32_t sel) {
    uint32_t f[16];
    dequant_frag_words<IS_BF16>(f, v, c0, c1, sel);
#pragma unroll
    for (int s = 0; s < 4; s++) stmatrix_x4(tile + st[s], f[4 * s], f[4 * s + 1], f[4 * s + 2], f[4 * s + 3]);
}

enum { XF_LOAD_RAW, XF_ONLY }; /* the warp's copy role (warp 1 with linear scales, the rest) */

/* Warp 1 (XF_LOAD_RAW): a unit's first SS_RAW_LEAD raw stages (K-tiles kt0 ..), ahead of
 * its transform of K-tile kt0; nr counts the unit's raw stages loaded. */
template <class C, bool FRAG = false>
__device__ __forceinline__ void produce_raw_lead(const CUtensorMap *tm_b, const sm90_params &p, uint32_t sb,
                                                 const ss_bars &b, ring_pos<C::SR> &rp, int &nr, int n0, int l,
                                                 int kt0, int nk, int lane, int diag) {
    for (nr = 0; nr < min(nk, (int)SS_RAW_LEAD); nr++, rp.next())
        produce_raw_stage<C, FRAG>(tm_b, p, sb, b.rfull + 8 * rp.slot, b.rempty + 8 * rp.slot, rp.slot, rp.phase, n0, l,
                             kt0 + nr, lane, diag);
}

/* The producer warpgroup's loop (v10.3): all four warps transform, one per SM sub-
 * partition; warp 1 also loads the raw stages when the scales are not bulk-copied. Per
 * K-tile i:
 *   warp 1 (role XF_LOAD_RAW, only for scales that are not bulk-copied: its 32 lanes load
 *     them): raw stage i + SS_RAW_LEAD (produce_raw_stage, as v7's raw producer warp);
 *   all: wait for raw stage i, load the row's raw halves and scale codes, wait for W slot
 *     i to be free (the wgmmas of K-tile i - SW have completed), dequantize and store the
 *     row, release the raw stage, fence the W stores to the async proxy, arrive on W full
 *     (128 arrivals).
 * v10.1 had warp 0 issue the A stages here too; the clock trace of session 12
 * (docs/notes/gemm-sm90.md) showed that warp as the straggler every W-full waited for
 * (warps 1-3 idle ~540 cycles per K-tile on W-empty), so a consumer warp issues them now.
 * transform_k_tiles runs that per-K-tile step for one unit's nk K-tiles (K-tiles kt0 ..,
 * weight rows n0 .., batch l), for both BT-256 kernels; the ring positions carry from unit
 * to unit in the caller. t, raw_off, sc_off, csel, chunk: xform_thread_consts. TRACE:
 * v10.3's clock trace (the persistent kernel writes none). FRAG: fragment-ordered weights, the
 * constants of xform_frag_consts. */
template <bool IS_BF16, class C, int ROLE, bool TRACE, bool FRAG = false>
__device__ __forceinline__ void transform_k_tiles(const CUtensorMap *tm_b, const sm90_params &p, uint32_t sb,
                                                  const ss_bars &b, uint32_t t, uint32_t raw_off, uint32_t sc_off,
                                                  uint32_t csel, const uint32_t (&chunk)[8], ring_pos<C::SR> &rr,
                                                  ring_pos<C::SW> &rw, ring_pos<C::SR> &rp, int &nr, int n0, int l,
                                                  int kt0, int nk, int lane, int diag) {
    for (int i = 0; i < nk; i++) {
        if (ROLE == XF_LOAD_RAW && nr < nk) {
            produce_raw_stage<C, FRAG>(tm_b, p, sb, b.rfull + 8 * rp.slot, b.rempty + 8 * rp.slot, rp.slot, rp.phase,
                                       n0, l, kt0 + nr, lane, diag);
            nr++;
            rp.next();
        }
        mbar_wait(b.rfull + 8 * rr.slot, rr.phase);
        /* the raw stage's loads, the W-empty wait, then the transform into the W tile:
         * FRAG takes both fragment groups' bytes and scale codes and stores one group at a
         * time; the standard path one row's two halves and its 4 codes */
        const uint32_t raw = sb + C::OFF_BRAW + rr.slot * C::BRAW_BYTES + raw_off;
        if constexpr (FRAG) {
            const uint32_t sc = sb + C::OFF_BSC + rr.slot * C::BSC_BYTES;
            const uint4 v0 = lds128(raw), v1 = lds128(raw + 512);
            const uint32_t c00 = lds32(sc + chunk[4]), c01 = lds32(sc + chunk[5]);
            const uint32_t c10 = lds32(sc + chunk[6]), c11 = lds32(sc + chunk[7]);
            mbar_wait(b.wempty + 8 * rw.slot, rw.phase ^ 1); /* read by the wgmmas of K-tile i - SW */
            if (TRACE && lane == 0) SS_TRACE_KT(p, i, SS_TK_X_WEMPTY0 + t / 32);
            if (diag != 1 && diag != 4) {
                const uint32_t tile = sb + C::OFF_W + rw.slot * C::W_TILE_BYTES;
                xform_frag_group<IS_BF16>(tile, chunk, v0, c00, c01, csel);
                xform_frag_group<IS_BF16>(tile + 2048, chunk, v1, c10, c11, csel);
            }
        } else {
            const uint4 h0 = lds128(raw), h1 = lds128(raw ^ 16);
            const uint32_t codes = prmt(lds32(sb + C::OFF_BSC + rr.slot * C::BSC_BYTES + sc_off), 0, csel);
            mbar_wait(b.wempty + 8 * rw.slot, rw.phase ^ 1); /* read by the wgmmas of K-tile i - SW */
            if (TRACE && lane == 0) SS_TRACE_KT(p, i, SS_TK_X_WEMPTY0 + t / 32);
            if (diag != 1 && diag != 4)
                xform_row<IS_BF16>(sb + C::OFF_W + rw.slot * C::W_TILE_BYTES, chunk, h0, h1, codes);
        }
        mbar_arrive(b.rempty + 8 * rr.slot); /* this thread's raw and scale reads have returned */
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        mbar_arrive(b.wfull + 8 * rw.slot);
        if (TRACE && lane == 0) SS_TRACE_KT(p, i, SS_TK_X_DONE0 + t / 32);
        rr.next();
        rw.next();
    }
}

/* v10.3 (gemm_wgmma_t_ss_kernel): one unit, the K-tiles of this CTA's split */
template <bool IS_BF16, class C, int ROLE, bool FRAG = false>
__device__ __forceinline__ void transform_stages(const CUtensorMap *tm_b, const sm90_params &p, uint32_t sb,
                                                 const ss_bars &b, int n0, int l, int kt0, int nk, int lane, int diag) {
    const uint32_t t = threadIdx.x % 128;
    uint32_t raw_off, sc_off, csel, chunk[8];
    if constexpr (FRAG) xform_frag_consts(p, t, raw_off, sc_off, csel, chunk);
    else xform_thread_consts(p, t, raw_off, sc_off, csel, chunk);
    ring_pos<C::SR> rr = {0, 0}; /* the raw stage this thread transforms */
    ring_pos<C::SW> rw = {0, 0};
    int nr = 0;                  /* warp 1: raw stages loaded (before rp: same SASS as before the fold) */
    ring_pos<C::SR> rp = {0, 0}; /* warp 1: the next raw stage it fills */
    if (ROLE == XF_LOAD_RAW) produce_raw_lead<C, FRAG>(tm_b, p, sb, b, rp, nr, n0, l, kt0, nk, lane, diag);
    transform_k_tiles<IS_BF16, C, ROLE, true, FRAG>(tm_b, p, sb, b, t, raw_off, sc_off, csel, chunk, rr, rw, rp, nr,
                                                    n0, l, kt0, nk, lane, diag);
    if (ROLE == XF_LOAD_RAW) asm volatile("cp.async.wait_all;\n" ::: "memory");
}
#endif

#if TETRA_SM90_DEVICE
/* v10.3's A issue (consumer warp 0 of warpgroup 1, the whole warp; one lane issues, so the
 * ring counters stay warp-uniform): stages na .. upto - 1 in order, each once both CTAs'
 * 16 consumer warps have released the stage SA before it (this CTA's half of the tile,
 * multicast into both CTAs); stages <= need are waited for, a later stage whose slot is
 * not free yet ends the call (lane 0's non-blocking test, broadcast). */
template <class C>
__device__ __forceinline__ void issue_a_ahead(const CUtensorMap *tm_a, uint32_t sb, const ss_bars &b,
                                              ring_pos<C::SA> &rn, int &na, int need, int upto, int kt0, int m0,
                                              int l, uint32_t cta_rank, int m) {
    for (; na < upto; na++, rn.next()) {
        const uint32_t empty = b.aempty + 8 * rn.slot;
        /* both CTAs' wgmmas done; a CTA-scope acquire suffices (produce_stages) */
        if (na <= need) mbar_wait(empty, rn.phase ^ 1);
        else if (!__shfl_sync(0xFFFFFFFFu, mbar_test(empty, rn.phase ^ 1), 0)) break;
        if (elect_one()) issue_a_multicast<C>(tm_a, sb, b.afull + 8 * rn.slot, rn.slot, kt0 + na, m0, l, cta_rank, m);
        __syncwarp();
    }
}

/* Consumer warp 0 of warpgroup 0 with bulk scales (v10.3): a unit's first SR raw stages
 * (K-tiles kt0 ..), before its first wgmmas. */
template <class C, bool FRAG = false>
__device__ __forceinline__ void issue_raw_lead(const CUtensorMap *tm_b, const sm90_params &p, uint32_t sb,
                                               const ss_bars &b, ring_pos<C::SR> &rp, int n0, int l, int kt0,
                                               int nk) {
    for (int j = 0; j < min(nk, (int)C::SR); j++, rp.next())
        issue_raw_bulk<C, FRAG>(tm_b, p, sb, b.rfull + 8 * rp.slot, b.rempty + 8 * rp.slot, rp.slot, rp.phase, n0, l,
                          kt0 + j);
}

/* Lane 0 of each consumer warp: its wgmmas of the K-tile in A slot a and W slot w have
 * completed, so both CTAs' producers may overwrite the A stage (the peer multicasts into
 * it too) and the transform the W stage. */
__device__ __forceinline__ void release_k_tile(const ss_bars &b, uint32_t aempty_peer, uint32_t a, uint32_t w) {
    mbar_arrive(b.aempty + 8 * a);
    mbar_arrive_remote(aempty_peer + 8 * a); /* both CTAs' producers write this stage */
    mbar_arrive(b.wempty + 8 * w);
}

/* v10.3's consumer K loop over one unit's nk K-tiles (K-tiles kt0 .., tokens m0 .., weight
 * rows n0 .., batch l), both BT-256 kernels: the ring positions, the A issuer's na and the
 * last K-tile's slots (a_prev, w_prev: the persistent kernel releases them after its drain)
 * carry over to the caller. TRACE: v10.3's clock trace (the persistent kernel writes none).
 * FRAG: the raw issuer loads fragment blocks. */
template <bool IS_BF16, class C, bool TRACE, bool FRAG = false>
__device__ __forceinline__ void consume_k_tiles(float (&acc)[C::NACC], const CUtensorMap *tm_a,
                                                const CUtensorMap *tm_b, const sm90_params &p, uint32_t sb,
                                                const ss_bars &b, uint32_t aempty_peer, uint32_t dw0, uint32_t db0,
                                                ring_pos<C::SA> &ra, ring_pos<C::SW> &rw, uint32_t &a_prev,
                                                uint32_t &w_prev, bool raw_issuer, ring_pos<C::SR> &rp,
                                                bool a_issuer, ring_pos<C::SA> &rn, int &na, bool tracer, int m0,
                                                int n0, int l, int kt0, int nk, int lane, uint32_t cta_rank) {
    for (int i = 0; i < nk; i++) {
        const uint32_t dw = dw0 + rw.slot * (C::W_TILE_BYTES / 16), db = db0 + ra.slot * (C::A_TILE_BYTES / 16);
        if (a_issuer) {
            issue_a_ahead<C>(tm_a, sb, b, rn, na, i, min(nk, i + (int)C::SA - 1), kt0, m0, l, cta_rank, p.m);
            if (TRACE && lane == 0) SS_TRACE_KT(p, i, SS_TK_A_ISSUED);
        }
        if (TRACE && tracer) SS_TRACE_KT(p, i, SS_TK_C_WAIT);
        mbar_wait(b.wfull + 8 * rw.slot, rw.phase);
        if (TRACE && tracer) SS_TRACE_KT(p, i, SS_TK_C_WFULL);
        mbar_wait(b.afull + 8 * ra.slot, ra.phase);
        if (TRACE && tracer) SS_TRACE_KT(p, i, SS_TK_C_AFULL);
        wgmma_acc_fence<C::NACC>(acc);
        wgmma_fence();
#pragma unroll
        for (int s = 0; s < W_BK / 16; s++) /* k16 step s: 32 bytes into both K-major tiles */
            wgmma_m64n256k16<IS_BF16>(acc, wgmma_desc_of(dw + s * 32 / 16), wgmma_desc_of(db + s * 32 / 16));
        wgmma_commit();
        if (raw_issuer && i + C::SR < nk) { /* while the wgmmas run */
            issue_raw_bulk<C, FRAG>(tm_b, p, sb, b.rfull + 8 * rp.slot, b.rempty + 8 * rp.slot, rp.slot, rp.phase,
                                    n0, l, kt0 + i + C::SR);
            __syncwarp();
            rp.next();
        }
        wgmma_acc_fence<C::NACC>(acc);
        wgmma_wait<1>(); /* K-tile i - 1's group has completed: its A stage and W stage are free */
        wgmma_acc_fence<C::NACC>(acc);
        if (TRACE && tracer) SS_TRACE_KT(p, i, SS_TK_C_PREV_DONE);
        if (i > 0 && lane == 0) release_k_tile(b, aempty_peer, a_prev, w_prev);
        if (a_issuer && i > 0)
            issue_a_ahead<C>(tm_a, sb, b, rn, na, -1, min(nk, i + (int)C::SA), kt0, m0, l, cta_rank, p.m);
        a_prev = ra.slot;
        w_prev = rw.slot;
        ra.next();
        rw.next();
    }
}
#endif

#if TETRA_SM90_DEVICE && TETRA_GEMM_SS_PERSISTENT
/* ---- v10.8 (v10.6 + v10.7's TMA-store epilogue + the mbarrier handover): the persistent
 * v10.3 whose K loops stay v10.3's (docs/notes/gemm-sm90.md, "v10.6", "v10.8"; v10.4 before
 * it walked the units inside the K loop), 16-bit D without split-K only (the launcher's
 * choice). The grid is min(units, resident) 2-CTA clusters; cluster c
 * walks units c, c + clusters, ... in v10.3's grid order (weight-tile pair fastest, then
 * the token tile, then the batch), so each round of units is one of v10.3's waves. Every
 * unit has all p.ktiles K-tiles (no split), so the rings (A, raw, W) run on: their
 * positions count the CTA's K-tiles over all its units. Each unit is decoded once, outside
 * the K loops; the next unit's first A / raw stages are issued between a unit's last
 * K-tile and its epilogue, never inside a K loop. */
struct ss_p_unit {
    int m0, n0, l; /* the unit's first token, this CTA's first weight row, the batch index */
};
/* unsigned arithmetic and the assumptions: the K loop's address math (n0 / 128 in
 * issue_raw_bulk, ...) then compiles as v10.3's on blockIdx (no signed-division fix-ups) */
__device__ __forceinline__ ss_p_unit ss_p_unit_of(const sm90_params &p, int unit, uint32_t cta_rank) {
    const uint32_t gx2 = (uint32_t)(p.n + 2 * cfg_ss::BN - 1) / (2 * cfg_ss::BN);
    const uint32_t gy = (uint32_t)(p.m + cfg_ss::BT - 1) / cfg_ss::BT;
    const uint32_t px = (uint32_t)unit % gx2, r = (uint32_t)unit / gx2;
    ss_p_unit u;
    u.n0 = (int)((2 * px + cta_rank) * cfg_ss::BN);
    u.m0 = (int)((r % gy) * cfg_ss::BT);
    u.l = (int)(r / gy);
    __builtin_assume(u.n0 >= 0);
    __builtin_assume(u.m0 >= 0);
    __builtin_assume(u.l >= 0);
    return u;
}

/* The W-ring handover (v10.8): an mbarrier (wfree, after the W ring's barriers) with two
 * arrivals per unit, thread 0 of each consumer warpgroup's once its TMA store has read the
 * D tile staged in the W ring (after the warpgroup's own barrier, which follows its threads'
 * staging writes and, through the consumers' barrier before them, both warpgroups' last
 * wgmma reads of the ring); the 128 transform threads wait for phase j - 1 before their first
 * W store of unit j (mbarrier arrive: release, try_wait: acquire). Named barriers failed the
 * sanitizers with the clusters capped so that clusters walk several units: a bar.arrive
 * (consumers) with a bar.sync (transform) drew racecheck hazards while the staged tile was
 * read with lds (v10.6, runs 66-67) and synccheck "divergent thread" errors in any form
 * (reached at two different instructions: runs 67 and 70); v10.4's mbarrier drew the same
 * racecheck hazards as v10.6 because its epilogue read the stage with lds too. */

/* transform_stages over this CTA's `units` units of nk K-tiles: per unit v10.3's loop
 * (transform_k_tiles, kt0 = 0 and the unit's n0 / l; no trace), preceded from the second
 * unit on by the W-ring handover (wfree). Warp 1 (linear scales) loads the next unit's
 * first SS_RAW_LEAD raw stages right after its last transform of a unit, before that
 * barrier: the raw ring fills during the epilogue. */
template <bool IS_BF16, class C, int ROLE, bool FRAG = false>
__device__ __forceinline__ void transform_stages_p(const CUtensorMap *tm_b, const sm90_params &p, uint32_t sb,
                                                   const ss_bars &b, uint32_t wfree, int u0, int step, int units,
                                                   int nk, int lane, int diag, uint32_t cta_rank) {
    uint32_t raw_off, sc_off, csel, chunk[8];
    if constexpr (FRAG) xform_frag_consts(p, threadIdx.x % 128, raw_off, sc_off, csel, chunk);
    else xform_thread_consts(p, threadIdx.x % 128, raw_off, sc_off, csel, chunk);
    ring_pos<C::SR> rr = {0, 0};
    ring_pos<C::SW> rw = {0, 0};
    ring_pos<C::SR> rp = {0, 0};
    const int kt0 = 0;
    int u = u0;
    ss_p_unit un = ss_p_unit_of(p, u0, cta_rank); /* warp 1 (linear scales): the unit it loads */
    int nr = 0;
    if (ROLE == XF_LOAD_RAW) produce_raw_lead<C, FRAG>(tm_b, p, sb, b, rp, nr, un.n0, un.l, kt0, nk, lane, diag);
    for (int j = 0; j < units; j++) {
        /* unit j - 1's epilogue stores have read its staged D out of the W ring */
        if (j > 0) mbar_wait(wfree, (uint32_t)(j - 1) & 1);
        const int n0 = un.n0, l = un.l;
        __builtin_assume(n0 >= 0);
        __builtin_assume(l >= 0);
        transform_k_tiles<IS_BF16, C, ROLE, false, FRAG>(tm_b, p, sb, b, threadIdx.x % 128, raw_off, sc_off, csel,
                                                         chunk, rr, rw, rp, nr, n0, l, kt0, nk, lane, diag);
        /* warp 1: the next unit's first raw stages (their slots were released by this
         * unit's transforms, K-tiles nk - SR .. nk - 3 and earlier) */
        if (ROLE == XF_LOAD_RAW && j + 1 < units) {
            u += step;
            un = ss_p_unit_of(p, u, cta_rank);
            produce_raw_lead<C, FRAG>(tm_b, p, sb, b, rp, nr, un.n0, un.l, kt0, nk, lane, diag);
        }
    }
    if (ROLE == XF_LOAD_RAW) asm volatile("cp.async.wait_all;\n" ::: "memory");
}

/* v10.7's epilogue: the 16-bit D tile staged in the W ring and written by TMA stores.
 * Values as store_tile_t's 16-bit path (epi_value, stage_out16: same bits). Staging layout:
 * consumer warpgroup wg's 64 columns (n0 + 64 wg ..) of the BT rows are the box
 * {64 n, BT rows} of tm_d with the 128-byte swizzle, at stage + wg x BT x 128: row m at
 * m x 128 bytes, its 16-byte chunk c at c ^ (m % 8) (what CU_TENSOR_MAP_SWIZZLE_128B reads;
 * one stmatrix matrix writes rows m .. m + 7 of one chunk column, 8 distinct bank groups).
 * The TMA store clips rows past M and columns past N. The W ring is free here: every W tile
 * of this unit was waited for (wfull) before its wgmmas, and the consumers' named barrier
 * below follows both warpgroups' wgmma_wait<0> (warpgroup 0's staging half covers W slots
 * 0-1, both warpgroups' rows). Thread 0 of each warpgroup issues its half's store; before the
 * W ring is handed back (wfree) it waits until the store has read shared memory
 * (ss_p_store_read_wait), and before the kernel ends until it is done (ss_p_store_wait). No
 * generic-proxy read of the staged tile remains (v10.6's lds reads drew racecheck hazards
 * across the bar.arrive handover, runs 66-67). */
__device__ __forceinline__ void tma_store_3d(const CUtensorMap *map, uint32_t src, int c0, int c1, int c2) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n" ::"l"(
                     (uint64_t)map),
                 "r"(c0), "r"(c1), "r"(c2), "r"(src)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
__device__ __forceinline__ void ss_p_store_read_wait() {
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
__device__ __forceinline__ void ss_p_store_wait() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
__device__ __forceinline__ void store_tile_p16(const float (&acc)[cfg_ss::NACC], const sm90_params &p,
                                               const CUtensorMap *tm_d, uint32_t stage, int m0, int n0, int l,
                                               int wg, uint32_t warp, uint32_t lane) {
    enum { BT = cfg_ss::BT, ROW = 128 };
    const uint32_t g = lane / 4;
    const uint32_t r = 64 * (uint32_t)wg + 16 * warp + g;
    const float scale = tetra_gemm_scale(p.alpha, NULL, p.gb);
    const float unit = (float)(1 << B_EXP2);
    const int nr = n0 + (int)r;
    float b0 = 0.0f, b1 = 0.0f;
    if (p.bias) {
        if (nr < p.n) b0 = tetra_load_dense(p.bias, nr, (tetra_dtype)p.bias_dtype);
        if (nr + 8 < p.n) b1 = tetra_load_dense(p.bias, nr + 8, (tetra_dtype)p.bias_dtype);
    }
    const uint32_t half = stage + (uint32_t)wg * (BT * ROW);
    named_bar_sync<EPI_BAR_CONSUMERS, W_CONSUMERS>();
    {
        const uint32_t j = lane / 8, i = lane % 8, c = 2 * warp + j % 2;
        const uint32_t a = half + (8 * (j / 2) + i) * ROW + ((c ^ i) << 4);
        if (p.d_dtype == TETRA_DTYPE_FP16) stage_out16<false, cfg_ss::NACC, ROW>(acc, a, unit, scale, b0, b1);
        else stage_out16<true, cfg_ss::NACC, ROW>(acc, a, unit, scale, b0, b1);
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* stmatrix writes -> the TMA's reads */
    if (wg == 0) named_bar_sync<EPI_BAR_WG, 128>();
    else named_bar_sync<EPI_BAR_WG + 1, 128>();
    if (threadIdx.x % 128 == 0) tma_store_3d(tm_d, half, n0 + 64 * wg, m0, l);
}
#endif

/* Warpgroup 2: all four warps transform, warp 1 also loads the raw stages when the scales
 * are not bulk-copied (transform_stages); warpgroups 0 and 1 consume: per K-tile i, wait
 * for W tile i and A stage i, 4 SS wgmmas m64n256k16 (k16 steps: W rows 64 wg .. 64 wg +
 * 63, all 256 tokens), commit, wait for K-tile i - 1's group, release its A stage (both
 * CTAs) and W stage. Consumer warp 0 of warpgroup 0 also fills the raw ring (bulk scales),
 * consumer warp 0 of warpgroup 1 the A ring (v10.3).
 * Registers: the consumers need the 128 accumulators and little else; the transform one
 * row's raw words and temporaries. setmaxnreg: 128 x 104 + 256 x 200 = 64512 = 384 x 168,
 * the registers the launch bound allocates. */
enum { SS_PRODUCER_REGS = 104, SS_CONSUMER_REGS = 200 };
static_assert(128 * SS_PRODUCER_REGS + 256 * SS_CONSUMER_REGS <= 168 * W_THREADS, "setmaxnreg pool");
template <bool IS_BF16, bool FRAG = false, bool PDL = false>
__global__ void __launch_bounds__(W_THREADS, 1)
gemm_wgmma_t_ss_kernel(const __grid_constant__ CUtensorMap tm_a, const __grid_constant__ CUtensorMap tm_b,
                       const sm90_params p) {
#if TETRA_SM90_DEVICE
    typedef cfg_ss C;
    enum { BT = C::BT };
    extern __shared__ uint8_t smem_raw[];
    const uint32_t sb = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const ss_bars bars = ss_bars_of<C>(sb);
    const int n0 = blockIdx.x * C::BN, m0 = blockIdx.y * BT;
    const cta_split cs = cta_split_of(p);
    const int l = cs.l, split = cs.split, kt0 = cs.kt0, nk = cs.nk;
    const int wg = __shfl_sync(0xFFFFFFFFu, (int)(threadIdx.x / 128), 0), lane = threadIdx.x % 32;
    const uint32_t warp = __shfl_sync(0xFFFFFFFFu, (threadIdx.x % 128) / 32, 0);
    const uint32_t cta_rank = cluster_ctarank();
#ifdef TETRA_GEMM_DIAG
    const int diag = p.diag; /* 1: no dequantization (stale W tiles), 3: no scale loads, 4: both */
#else
    const int diag = 0;
#endif
    if (threadIdx.x == 0) ss_trace_begin(p, cta_rank, nk);

    if (threadIdx.x == 0) {
        ss_init_bars<C>(bars, p);
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    cluster_arrive();
    cluster_wait();
    if (threadIdx.x == 0) SS_TRACE_HDR(p, SS_TR_SYNCED, (uint32_t)clock64());

    if (wg == 2) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"((int)SS_PRODUCER_REGS));
        /* one loop per copy role, so the plain transform warps carry no role branches;
         * FRAG: the scales are always bulk-copied (the launcher checks scale_bulk) */
        if constexpr (FRAG)
            transform_stages<IS_BF16, C, XF_ONLY, true>(&tm_b, p, sb, bars, n0, l, kt0, nk, lane, diag);
        else if (warp == 1 && !p.scale_bulk)
            transform_stages<IS_BF16, C, XF_LOAD_RAW>(&tm_b, p, sb, bars, n0, l, kt0, nk,
                                                      lane, diag);
        else
            transform_stages<IS_BF16, C, XF_ONLY>(&tm_b, p, sb, bars, n0, l, kt0, nk, lane,
                                                  diag);
        cluster_arrive(); /* the exit barrier, as in v7 */
        cluster_wait();
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"((int)SS_CONSUMER_REGS));
    float acc[C::NACC];
#pragma unroll
    for (int i = 0; i < C::NACC; i++) acc[i] = 0.0f;
    /* descriptor low words: this warpgroup's 64 rows of W stage 0, all tokens of A stage 0 */
    const uint32_t dw0 = wgmma_desc_lo(sb + C::OFF_W + (uint32_t)wg * 64 * 128), db0 = wgmma_desc_lo(sb + C::OFF_A);
    const uint32_t aempty_peer = mapa_shared(bars.aempty, cta_rank ^ 1u);
    ring_pos<C::SA> ra = {0, 0};
    ring_pos<C::SW> rw = {0, 0};
    uint32_t a_prev = 0, w_prev = 0;
    /* Bulk scales: consumer warp 0 fills the raw ring, SR K-tiles ahead (since v10.1; the transform
     * warps then only transform). Raw stage i + SR reuses K-tile i's slot, whose 128
     * transform threads arrived on rempty before W tile i was full: by the time K-tile i's
     * wgmmas are issued, the wait below never blocks. */
    const bool raw_issuer = p.scale_bulk && wg == 0 && warp == 0; /* warp-uniform */
    ring_pos<C::SR> rp = {0, 0};
    if (raw_issuer) issue_raw_lead<C, FRAG>(&tm_b, p, sb, bars, rp, n0, l, kt0, nk);
    /* PDL (TETRA_GEMM_W4A4_PDL; only after the W4A4 staging pass): the weights' raw lead above,
     * then every consumer thread waits for the pass before A, the bias, the workspace and D */
    if constexpr (PDL) tetra_pdl_wait();
    /* v10.3: consumer warp 0 of warpgroup 1 issues the A stages (v10.1: producer warp 0,
     * whose transform work then made it the W-full straggler), SA - 1 K-tiles ahead: at the
     * top of K-tile i it issues any stage up to i + SA - 2 whose slot both CTAs have
     * released, waiting only for stage i itself; after releasing K-tile i - 1 it tries stage
     * i + SA - 1 once more (the other 15 releases may not be in yet). */
    const bool a_issuer = wg == 1 && warp == 0; /* warp-uniform */
    ring_pos<C::SA> rn = {0, 0};
    int na = 0;
    if (a_issuer)
        issue_a_ahead<C>(&tm_a, sb, bars, rn, na, min(nk, (int)C::SA) - 1, min(nk, (int)C::SA), kt0, m0, l, cta_rank, p.m);
    __syncwarp();
    const bool tracer = threadIdx.x == 0; /* consumer warp 0 of warpgroup 0 */
    if (tracer) SS_TRACE_HDR(p, SS_TR_INIT, (uint32_t)clock64());
    consume_k_tiles<IS_BF16, C, true, FRAG>(acc, &tm_a, &tm_b, p, sb, bars, aempty_peer, dw0, db0, ra, rw, a_prev, w_prev,
                                      raw_issuer, rp, a_issuer, rn, na, tracer, m0, n0, l, kt0, nk, lane, cta_rank);
    /* as v7: this CTA's last remote arrival is done; store_tile_t's cluster_wait keeps its
     * shared memory alive until the peer's are */
    if (tracer) SS_TRACE_HDR(p, SS_TR_LOOP_END, (uint32_t)clock64());
    cluster_arrive();
    wgmma_wait<0>();
    wgmma_acc_fence<C::NACC>(acc);
    if (tracer) SS_TRACE_HDR(p, SS_TR_DRAINED, (uint32_t)clock64());
    store_tile_t<BT>(acc, p, sb + C::OFF_A, m0, n0, l, split, wg, warp, (uint32_t)lane);
    if (tracer) ss_trace_end(p);
#else
    (void)tm_a;
    (void)tm_b;
    (void)p;
    __trap(); /* never launched: the launcher checks g_wgmma_kernel_built */
#endif
}


#if TETRA_GEMM_SS_PERSISTENT
/* v10.8 (TETRA_GEMM_SS_PERSISTENT=1; docs/notes/gemm-sm90.md, "v10.6", "v10.8"): gemm_wgmma_t_ss_kernel
 * walking units (ss_p_unit), for 16-bit D without split-K. Per unit v10.3's K loops
 * (consume_k_tiles, transform_k_tiles: kt0 = 0 and the unit's m0 / n0 / l, no trace), and the same epilogue values; around it:
 *   - the unit's last A stage (both CTAs) and W stage are released after wgmma_wait<0>;
 *   - then the next unit is decoded (once) and its first stages issued: the raw issuer
 *     (consumer warp 0 of warpgroup 0, bulk scales; else transform warp 1 after its last
 *     transform) its first SR raw stages, the A issuer (consumer warp 0 of warpgroup 1) the
 *     first SA whose slots both CTAs have released (non-blocking, before the epilogue and
 *     again after it; the K loop's issue rule waits for stage 0 and takes the rest);
 *   - the epilogue stages D in the W ring and TMA-stores it (store_tile_p16), not in the A
 *     ring, so those loads land while it runs; thread 0 of each consumer warpgroup then
 *     arrives on the W-ring handover (wfree) once its store has read the stage, and the
 *     transform waits for it before the next unit's first W tile;
 *   - no cluster barrier per tile: one at kernel exit (remote aempty arrivals and A
 *     multicasts into the peer happen only before it; each CTA waits on afull for every
 *     multicast into it).
 * TETRA_GEMM_TRACE: this kernel writes no trace (the launcher runs v10.3 for a traced call). */
template <bool IS_BF16, bool FRAG = false, bool PDL = false>
__global__ void __launch_bounds__(W_THREADS, 1)
gemm_wgmma_t_ss_p_kernel(const __grid_constant__ CUtensorMap tm_a, const __grid_constant__ CUtensorMap tm_b,
                         const __grid_constant__ CUtensorMap tm_d, const sm90_params p) {
#if TETRA_SM90_DEVICE
    typedef cfg_ss C;
    extern __shared__ uint8_t smem_raw[];
    const uint32_t sb = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const ss_bars bars = ss_bars_of<C>(sb);
    const uint32_t wfree = bars.wempty + 8 * C::SW; /* the W-ring handover (SS_P_SMEM_BYTES counts it) */
    const int step = (int)(gridDim.x / T_CLUSTER), u0 = (int)(blockIdx.x / T_CLUSTER);
    const int total = (p.n + 2 * C::BN - 1) / (2 * C::BN) * ((p.m + C::BT - 1) / C::BT) * p.batch;
    /* this cluster's units (the grid has at most one cluster per unit) and K-tiles per unit */
    const int units = __shfl_sync(0xFFFFFFFFu, (total - u0 + step - 1) / step, 0);
    const int nk = __shfl_sync(0xFFFFFFFFu, p.ktiles, 0);
    const int wg = __shfl_sync(0xFFFFFFFFu, (int)(threadIdx.x / 128), 0), lane = threadIdx.x % 32;
    const uint32_t warp = __shfl_sync(0xFFFFFFFFu, (threadIdx.x % 128) / 32, 0);
    const uint32_t cta_rank = cluster_ctarank();
#ifdef TETRA_GEMM_DIAG
    const int diag = p.diag;
#else
    const int diag = 0;
#endif

    if (threadIdx.x == 0) {
        ss_init_bars<C>(bars, p);
        mbar_init(wfree, 2); /* thread 0 of each consumer warpgroup, per unit */
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    cluster_arrive();
    cluster_wait();

    if (wg == 2) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"((int)SS_PRODUCER_REGS));
        if constexpr (FRAG) /* bulk scales only (the launcher checks) */
            transform_stages_p<IS_BF16, C, XF_ONLY, true>(&tm_b, p, sb, bars, wfree, u0, step, units, nk, lane, diag,
                                                          cta_rank);
        else if (warp == 1 && !p.scale_bulk)
            transform_stages_p<IS_BF16, C, XF_LOAD_RAW>(&tm_b, p, sb, bars, wfree, u0, step, units, nk, lane, diag,
                                                        cta_rank);
        else
            transform_stages_p<IS_BF16, C, XF_ONLY>(&tm_b, p, sb, bars, wfree, u0, step, units, nk, lane, diag,
                                                    cta_rank);
        cluster_arrive(); /* the exit barrier */
        cluster_wait();
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"((int)SS_CONSUMER_REGS));
    float acc[C::NACC];
    const uint32_t dw0 = wgmma_desc_lo(sb + C::OFF_W + (uint32_t)wg * 64 * 128), db0 = wgmma_desc_lo(sb + C::OFF_A);
    const uint32_t aempty_peer = mapa_shared(bars.aempty, cta_rank ^ 1u);
    const int kt0 = 0;
    ring_pos<C::SA> ra = {0, 0};
    ring_pos<C::SW> rw = {0, 0};
    int u = u0;
    ss_p_unit cu = ss_p_unit_of(p, u0, cta_rank); /* the unit computed */
    /* bulk scales: consumer warp 0 fills the raw ring SR K-tiles ahead (v10.3) */
    const bool raw_issuer = p.scale_bulk && wg == 0 && warp == 0; /* warp-uniform */
    ring_pos<C::SR> rp = {0, 0};
    if (raw_issuer) issue_raw_lead<C, FRAG>(&tm_b, p, sb, bars, rp, cu.n0, cu.l, kt0, nk);
    /* PDL (TETRA_GEMM_W4A4_PDL; only after the W4A4 staging pass): as v10.3's */
    if constexpr (PDL) tetra_pdl_wait();
    /* consumer warp 0 of warpgroup 1 issues the A stages SA - 1 K-tiles ahead (v10.3) */
    const bool a_issuer = wg == 1 && warp == 0; /* warp-uniform */
    ring_pos<C::SA> rn = {0, 0};
    int na = 0;
    if (a_issuer)
        issue_a_ahead<C>(&tm_a, sb, bars, rn, na, min(nk, (int)C::SA) - 1, min(nk, (int)C::SA), kt0, cu.m0,
                         cu.l, cta_rank, p.m);
    __syncwarp();
    for (int jj = 0; jj < units; jj++) {
        const int m0 = cu.m0, n0 = cu.n0, l = cu.l;
        __builtin_assume(m0 >= 0);
        __builtin_assume(n0 >= 0);
        __builtin_assume(l >= 0);
#pragma unroll
        for (int e = 0; e < C::NACC; e++) acc[e] = 0.0f;
        uint32_t a_prev = 0, w_prev = 0;
        consume_k_tiles<IS_BF16, C, false, FRAG>(acc, &tm_a, &tm_b, p, sb, bars, aempty_peer, dw0, db0, ra, rw, a_prev,
                                           w_prev, raw_issuer, rp, a_issuer, rn, na, false, m0, n0, l, kt0, nk, lane,
                                           cta_rank);
        /* ---- between units: drain, release the unit's last stages, prefetch the next unit */
        wgmma_wait<0>();
        wgmma_acc_fence<C::NACC>(acc);
        if (lane == 0) release_k_tile(bars, aempty_peer, a_prev, w_prev);
        const bool more = jj + 1 < units;
        if (more) {
            u += step;
            cu = ss_p_unit_of(p, u, cta_rank);
            /* its raw stages 0 .. SR - 1: their slots were released by this unit's
             * transforms (all done: every W tile was waited for), so these never block */
            if (raw_issuer) issue_raw_lead<C, FRAG>(&tm_b, p, sb, bars, rp, cu.n0, cu.l, kt0, nk);
            /* its A stages 0 .. SA - 1 whose slots both CTAs have released (no wait) */
            if (a_issuer) {
                na = 0;
                issue_a_ahead<C>(&tm_a, sb, bars, rn, na, -1, min(nk, (int)C::SA), kt0, cu.m0, cu.l, cta_rank, p.m);
            }
            __syncwarp();
        }
        store_tile_p16(acc, p, &tm_d, sb + C::OFF_W, m0, n0, l, wg, warp, (uint32_t)lane);
        if (more && threadIdx.x % 128 == 0) {
            ss_p_store_read_wait(); /* the TMA store has read the stage: the transform may */
            mbar_arrive(wfree);     /* write the W ring again */
        }
        __syncwarp(); /* reconverged after the epilogue's per-thread branches */
        if (more) {
            /* one more try for the next unit's first SA A stages (the peer's releases of this
             * unit's last K-tiles are in by now); the K loop's rule then waits for stage 0 */
            if (a_issuer)
                issue_a_ahead<C>(&tm_a, sb, bars, rn, na, -1, min(nk, (int)C::SA), kt0, cu.m0, cu.l, cta_rank, p.m);
        }
    }
    if (threadIdx.x % 128 == 0) ss_p_store_wait(); /* the last unit's TMA store is done */
    /* every remote arrival of this CTA is done; the wait keeps its shared memory alive until
     * the peer's are (every multicast into it was waited on: afull of each K-tile it ran) */
    cluster_arrive();
    cluster_wait();
#else
    (void)tm_a;
    (void)tm_b;
    (void)tm_d;
    (void)p;
    __trap(); /* never launched: the launcher checks g_wgmma_kernel_built */
#endif
}
#endif /* TETRA_GEMM_SS_PERSISTENT */

/* ---- host side */

PFN_cuTensorMapEncodeTiled_v12000 get_encode_fn(void) {
    static PFN_cuTensorMapEncodeTiled_v12000 fn = NULL;
    if (!fn) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) ==
                cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = (PFN_cuTensorMapEncodeTiled_v12000)f;
        else
            (void)cudaGetLastError();
    }
    return fn;
}

/* 1 if this binary holds the real sm_90a kernel for `device` (read once per device). */
int kernel_built(int device) { return tetra_device_flag<&g_wgmma_kernel_built>(device); }

} // namespace

/* The configuration for a problem (the dispatcher of this kernel family):
 *   BM = 64 for M <= 64 (twice the CTAs of BM = 128 there, no tensor work on zero rows),
 *   else BM = 128;
 *   split-K when the output tiles fill at most half the SMs: as many splits as keep one
 *   wave (tiles * splits <= SMs), at most SPLIT_MAX, and at least 4 K-tiles per split.
 * The configuration depends on M (BM, and the split count through the tile count), so
 * row m of D can depend on M only through split-K: without a split, each output is the
 * same k16-ordered FP32 wgmma sum whatever the tile. */
struct wgmma_config { int bm, splits; };
/* Batch-invariant products take BM = 128 and no split for every M (row m then always sits
 * at row m % 128 of its tile, in the same code path). Pinned values (p->tile_m,
 * p->splits) override the choice; the launcher checks them. */
static wgmma_config choose_config(const tetra_gemm_problem *p, int sms) {
    wgmma_config c;
    const int64_t ktiles = (p->k + W_BK - 1) / W_BK;
    c.bm = p->tile_m ? p->tile_m : p->batch_invariant ? 128 : p->m <= 64 ? 64 : p->m >= 256 ? 256 : 128;
    const int bn = c.bm == 256 ? 128 : 256;
    const int64_t tiles = ((p->m + c.bm - 1) / c.bm) * ((p->n + bn - 1) / bn) * p->batch;
    c.splits = 1;
    if (p->splits) {
        c.splits = p->splits;
    } else if (!p->batch_invariant && tiles * 2 <= sms) {
        int64_t s = sms / tiles;
        if (s > SPLIT_MAX) s = SPLIT_MAX;
        if (s > ktiles / 4) s = ktiles / 4;
        if (s > 1) c.splits = (int)s;
    }
    return c;
}

/* The split-K reduction (both kernel families write the same FP32 partial layout). */
static tetra_status launch_splitk_reduce(const sm90_params &prm, cudaStream_t stream) {
    const int64_t mn = (int64_t)prm.m * prm.n;
    int64_t blocks = (mn + 255) / 256;
    if (blocks > 4096) blocks = 4096;
    gemm_wgmma_splitk_reduce<<<dim3((unsigned)blocks, (unsigned)prm.batch), 256, 0, stream>>>(prm);
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}

template <bool IS_BF16, int BM>
static tetra_status launch_config(const CUtensorMap &tm_a, const CUtensorMap &tm_b, const sm90_params &prm,
                                  const tetra_gemm_problem *p, cudaStream_t stream) {
    dim3 grid((unsigned)((p->n + cfg<BM>::BN - 1) / cfg<BM>::BN), (unsigned)((p->m + BM - 1) / BM),
              (unsigned)(p->batch * prm.splits));
    static std::atomic<unsigned long long> opted_in{0};
    if (!tetra_done_on(opted_in, p->ctx->device)) {
        TETRA_CUDA_TRY(cudaFuncSetAttribute(gemm_wgmma_kernel<IS_BF16, BM>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, (int)cfg<BM>::SMEM_BYTES));
        tetra_mark_done(opted_in, p->ctx->device);
    }
    gemm_wgmma_kernel<IS_BF16, BM><<<grid, W_THREADS, cfg<BM>::SMEM_BYTES, stream>>>(tm_a, tm_b, prm);
    TETRA_LAUNCH_CHECK();
    return prm.splits > 1 ? launch_splitk_reduce(prm, stream) : TETRA_OK;
}

/* What both Hopper kernel families check and set up: the device and build, A's dtype,
 * sizes, K % 32, the split count, TMA alignment; the tensor maps (A: [L][M][K] 16-bit,
 * box 64 (K) x box_rows_a rows, 128B swizzle; B: [L][N][K/2] bytes, box 32 x box_rows_b,
 * no swizzle; out-of-range boxes are zero-filled) and the kernel parameters, including
 * the split-K workspace. `name` prefixes the messages. frag_kt: fragment-ordered B's box
 * holds that many adjacent 4096-byte blocks (16 view rows each): v7's K-tiles per raw stage
 * (cfg_t::KT), 1 for every other kernel. */
static tetra_status prepare_sm90(const tetra_gemm_problem *p, const char *name, int box_rows_a, int box_rows_b,
                                 int splits, CUtensorMap *tm_a, CUtensorMap *tm_b, sm90_params *prm,
                                 int frag_kt = 1) {
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    const tetra_operand *a = &p->a, *b = &p->b;
    const size_t dsize = p->d_dtype == TETRA_DTYPE_FP32 ? 4 : 2;
    int64_t a_bs, b_bs;
    CUresult cr;

    if (p->ctx->sm_major != 9)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "%s needs an sm_90 device (this one is sm_%d%d)", name,
                          p->ctx->sm_major, p->ctx->sm_minor);
    if (a->dtype != TETRA_DTYPE_BF16 && a->dtype != TETRA_DTYPE_FP16)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "%s: a.dtype must be BF16 or FP16 (gemm_api.c stages an NVFP4 A)", name);
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX || (p->m + 63) / 64 > TETRA_MAX_GRID_Y ||
        p->batch * SPLIT_MAX > TETRA_MAX_GRID_Y || p->m * p->n > INT32_MAX)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "%s: M, N, K or L too large for its grid", name);
    if (p->k % 32) return tetra_fail(TETRA_ERR_UNSUPPORTED, "%s: K must be a multiple of 32", name);
    if (splits < 1 || splits > SPLIT_MAX || splits > (p->k + W_BK - 1) / W_BK)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "%s: opts.splits = %d; at most %d and at most one split per %d-wide K tile", name, splits,
                          SPLIT_MAX, W_BK);
    const bool frag = b->scale_layout == TETRA_SCALE_FRAGMENT_128X64;
    /* FRAGMENT weights: the layout fixes the pitches. The TMA views a batch as rows of 256
     * bytes, 16 per 4096-byte fragment block (one 128-row K-tile, box 256 x 16); the scales
     * are swizzled 128x4. In 4-bit elements: b_ld 512 per view row, b_rows view rows. */
    const int64_t b_ld = frag ? 512 : b->ld,
                  b_rows = frag ? tetra_frag_batch_bytes(p->n, p->k) / 256 : p->n;
    a_bs = p->batch > 1 ? a->batch_stride : p->m * a->ld;
    b_bs = frag ? b_rows * b_ld : p->batch > 1 ? b->batch_stride : p->n * b->ld;
    if (!tetra_aligned(a->data, 16) || a->ld % 8 || a_bs % 8)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "%s: a needs 16-byte aligned data, ld and batch_stride multiples of 8 (TMA)", name);
    if (!tetra_aligned(b->data, 16) || b_ld % 32 || b_bs % 32)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "%s: b needs 16-byte aligned data, ld and batch_stride multiples of 32 (TMA)", name);
    if (!kernel_built(p->ctx->device))
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "%s: this build has no sm_90a code", name);
    if (!(encode = get_encode_fn()))
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "%s: cuTensorMapEncodeTiled is not available", name);

    {
        cuuint64_t dims_a[3] = {(cuuint64_t)p->k, (cuuint64_t)p->m, (cuuint64_t)p->batch};
        cuuint64_t strides_a[2] = {(cuuint64_t)a->ld * 2, (cuuint64_t)a_bs * 2};
        cuuint32_t box_a[3] = {W_BK, (cuuint32_t)box_rows_a, 1}, estr[3] = {1, 1, 1};
        cuuint64_t dims_b[3] = {(cuuint64_t)(frag ? b_ld : p->k) / 2, (cuuint64_t)b_rows, (cuuint64_t)p->batch};
        cuuint64_t strides_b[2] = {(cuuint64_t)b_ld / 2, (cuuint64_t)b_bs / 2};
        cuuint32_t box_b[3] = {frag ? 256u : (cuuint32_t)(W_BK / 2),
                               frag ? 16u * (cuuint32_t)frag_kt : (cuuint32_t)box_rows_b, 1};
        cr = encode(tm_a, a->dtype == TETRA_DTYPE_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                    3, (void *)a->data, dims_a, strides_a, box_a, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                    CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (cr != CUDA_SUCCESS)
            return tetra_fail(TETRA_ERR_UNSUPPORTED, "%s: cuTensorMapEncodeTiled(a) failed (%d)", name, (int)cr);
        cr = encode(tm_b, CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, (void *)b->data, dims_b, strides_b, box_b, estr,
                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (cr != CUDA_SUCCESS)
            return tetra_fail(TETRA_ERR_UNSUPPORTED, "%s: cuTensorMapEncodeTiled(b) failed (%d)", name, (int)cr);
    }

    prm->m = (int)p->m;
    prm->n = (int)p->n;
    prm->k = (int)p->k;
    prm->ktiles = (int)((p->k + W_BK - 1) / W_BK);
    prm->scales = b->scales;
    prm->scale_ld = b->scale_ld;
    prm->scale_batch = p->batch > 1 ? b->scale_batch_stride : 0;
    prm->nkb = (int)(p->k / 16);
    prm->swizzled = b->scale_layout == TETRA_SCALE_SWIZZLED_128X4 || frag;
    prm->frag = frag;
    prm->scale_bulk = prm->swizzled && tetra_aligned(b->scales, 16) && prm->scale_batch % 16 == 0;
    prm->scale_vec4 =
        tetra_aligned(b->scales, 4) && prm->scale_batch % 4 == 0 && (prm->swizzled || prm->scale_ld % 4 == 0);
    prm->d = p->d;
    prm->ldd = p->ldd;
    prm->d_batch = p->d_batch_stride;
    prm->d_dtype = (int)p->d_dtype;
    prm->d_pair = tetra_aligned(p->d, 2 * dsize) && p->ldd % 2 == 0 && (p->batch == 1 || p->d_batch_stride % 2 == 0);
    prm->bias = p->bias;
    prm->bias_dtype = (int)p->bias_dtype;
    prm->alpha = p->alpha;
    prm->gb = b->gscale_dev;
    prm->diag = 0;
#ifdef TETRA_GEMM_TRACE
    prm->trace = NULL;
    prm->trace_stride = 0;
#endif
#ifdef TETRA_GEMM_DIAG
    if (getenv("TETRA_GEMM_DIAG_MODE")) prm->diag = atoi(getenv("TETRA_GEMM_DIAG_MODE"));
#endif
    prm->batch = (int)p->batch;
    prm->splits = splits;
    prm->ws = NULL;
    prm->counters = NULL;
    prm->tag = 0;
    if (splits > 1) {
        void *ws;
        tetra_status st = tetra_context_workspace(p->ctx, (size_t)splits * (size_t)(p->m * p->n * p->batch) * 4, &ws);
        if (st != TETRA_OK) return st;
        prm->ws = (float *)ws;
    }
    return TETRA_OK;
}

extern "C" tetra_status tetra_launch_gemm_wgmma(const tetra_gemm_problem *p) {
    sm90_params prm;
    CUtensorMap tm_a, tm_b;
    const wgmma_config cf = choose_config(p, p->ctx->sms);
    tetra_status st;

    if (p->b.scale_layout == TETRA_SCALE_FRAGMENT_128X64)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "wgmma GEMM: b in TETRA_SCALE_FRAGMENT_128X64 is read by the "
                                                 "WGMMA_T path (and the reference path) only");

    if (cf.bm != 64 && cf.bm != 128 && cf.bm != 256)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "wgmma GEMM: opts.tile_m = %d; this kernel has 64, 128 or 256",
                          cf.bm);
    st = prepare_sm90(p, "wgmma GEMM", cf.bm, cf.bm == 256 ? 128 : 256, cf.splits, &tm_a, &tm_b, &prm);
    if (st != TETRA_OK) return st;
    {
        cudaStream_t stream = TETRA_STREAM(p);
        if (p->a.dtype == TETRA_DTYPE_BF16)
            return cf.bm == 64    ? launch_config<true, 64>(tm_a, tm_b, prm, p, stream)
                   : cf.bm == 128 ? launch_config<true, 128>(tm_a, tm_b, prm, p, stream)
                                  : launch_config<true, 256>(tm_a, tm_b, prm, p, stream);
        return cf.bm == 64    ? launch_config<false, 64>(tm_a, tm_b, prm, p, stream)
               : cf.bm == 128 ? launch_config<false, 128>(tm_a, tm_b, prm, p, stream)
                              : launch_config<false, 256>(tm_a, tm_b, prm, p, stream);
    }
}

/* The transposed product's configuration (its dispatcher):
 *   Split-K for a given BT (tokens per CTA) when the CTAs (ceil(N / 128), rounded up to
 *   cluster pairs, x ceil(M / BT) x L) fill less than one wave: the split count s minimizes
 *   the BT estimate below (since session 25, switch TETRA_GEMM_T_SPLIT_TRAFFIC; before, and
 *   with the switch at 0, a per-SM cost in K-tile units without the partials' traffic,
 *     waves(s) x (ceil(K-tiles / s) + T_FIXED) + (s > 1 ? T_REDUCE : 0)),
 *   waves(s) = ceil(CTAs x s / SMs), over s <= 16, s <= K-tiles / 4 and CTAs x s <= 2 x SMs
 *   (one to two waves), ties to the smaller s. T_FIXED stands for a CTA's pipeline fill and
 *   epilogue, T_REDUCE for the reduce kernel. A split that only adds a partly filled wave
 *   (112 CTAs: s = 2 is 2 waves of 32 K-tiles = 1 wave of 64) is not taken. From one to
 *   four waves of CTAs, the s <= 16 with CTAs x s <= 8 x SMs that minimizes the BT estimate
 *   below (which counts the partials' traffic), taken only when it is T_SPLIT_GAIN (12%) under s = 1.
 *   BT: 64 for M <= 64; for M <= 128 the cheaper of 64 and 128, above the cheaper of 128
 *   and 256, each with its own split count, by the estimate
 *     waves x (ceil(K-tiles / s) x c(BT) + T_FIXED) + (s > 1 ? T_REDUCE + s x M x N x L x 8 / T_BYTES : 0),
 *   c(BT) = a BT-token K-tile's time in BT-256 K-tiles (c(256) = 1), T_BYTES = the split-K
 *   partials' bytes (written and read back, 8 per element and split) that cost one K-tile
 *   (T_BYTES(s): 1.8e6 at s = 2, 3.6e6 above).
 *   Measured on the H200 (tune log of session 7, call 1, and run 23's tune.json): c(128) =
 *   0.75 (2048x24576x6144: 55 us per wave at BT 128, 73 at 256), c(64) = 0.62 (128x24576x6144);
 *   a BT-256 K-tile ~0.74 us per wave, so at ~3.5 TB/s T_BYTES = 2.6 MB. Session 24 re-fitted
 *   c(128) to 0.70 (docs/notes/dispatch-refit.py on runs 115-116's 28 training shapes, M 96-1024:
 *   the plateau with none more than 5% off is c(128) 0.66-0.73, c(64) 0.57-0.64; 0.75 sent
 *   512x3584x4096 to BT 256 with 2 splits at 1.34x BT 128's time). Session 25 (run 120: 12 more
 *   training shapes around N = 2048, K 4096-8192, where BT 256 with 2 splits ran 1.07-1.25x
 *   BT 128's time at the same CTA count) split T_BYTES by who sums the partials: 1.8 MB for
 *   2 splits (the tile's last CTA, serially), 3.6 MB for more (the reduce kernel), and c(128)
 *   0.66: the best of the only grid points with 2 misses over all 40 training shapes (c(128) 0.65-0.66,
 *   T_BYTES(2) <= 1.8e6, T_BYTES(>2) 3.6e6), and a least-squares fit of this estimate to all
 *   480 timed configurations of those shapes (with a fixed cost per tile size) gives the same (c(128) 0.646, 1.87 / 3.14 MB;
 *   docs/notes/tuning.md, session 25). Without the split
 *   traffic term the rule took BT 256 with a 2- to 16-way split where BT 128 without one is
 *   1.06-1.56x faster (256x6144x2048, 512x3072x3072, 256x768x6144). A pinned tile_m keeps
 *   its tile; batch-invariant products keep BT = 256 and no split. The choice depends on
 *   the shape and the SM count only, so repeats are bit-identical. */
enum { T_FIXED = 2, T_REDUCE = 4 };
/* Switch (session 25, run 123): 1 (default) prices splits below one wave by cost_t as well (the
 * tile's c(BT) and the partials' traffic): run 123 measured 0.62-0.98x the time of the
 * traffic-blind count (0, the formula in the comment above) on 16 training shapes where the choice
 * changes, none slower (BT 256 unsplit under one wave was often the fastest configuration).
 * CMake: TETRA_GEMM_T_SPLIT_TRAFFIC. */
#ifndef TETRA_GEMM_T_SPLIT_TRAFFIC
#define TETRA_GEMM_T_SPLIT_TRAFFIC 1
#endif
/* A split above one wave must save 12% by the estimate. Run 35 (cross-build ABA against
 * cuBLAS): estimated savings of 15-21% measured +10.9% to +21.3% (1536x4096x14336,
 * 1024x5120x13824, 768x7168x16384); 10.5-11% (96x24576x6144, 64x24576x6144, K = 6144) measured
 * -5% and +4%, both within main's own drift there: short K overstates the gain. */
static const double T_SPLIT_GAIN = 0.12;
/* The last CTA of a tile sums the split-K partials in the kernel for up to this many
 * splits; more go to the reduce kernel. One CTA per tile reads splits x 128 x BT FP32
 * serially: a tail. Device run 21 (cross-build, against cuBLAS in each binary): in-kernel at
 * 2 splits 1.06-1.09x the reduce kernel's speed (128x7168x16384, 128x7168x2048), at 4
 * splits 0.88-0.93x (64x4096x14336, 128x4096x7168); at 16 (256x768x6144) it ran at 0.20x
 * cuBLAS, not timed against the reduce kernel. */
enum { T_FUSED_MAX_SPLITS = 2 };
struct wgmma_t_config { int bt, splits; bool ck; /* ck: chosen as cluster-K (choose_config_t) */ };

static int64_t ctas_t(const tetra_gemm_problem *p, int bt) {
    const int64_t pairs = (p->n + 2 * 128 - 1) / (2 * 128);
    return pairs * T_CLUSTER * ((p->m + bt - 1) / bt) * p->batch;
}

/* The estimate's constants in BT-256 K-tile units, indexed by BT 64 / 128 / 256: c(BT), the
 * fixed cost per wave, the reduce's fixed cost, T_BYTES at 2 splits and above. */
struct t_estimate {
    double c[3], fixed[3], reduce, t_bytes2, t_bytes_more;
};
/* the rules' (the comment above) */
static const t_estimate k_rules_est = {{0.62, 0.66, 1.0}, {T_FIXED, T_FIXED, T_FIXED}, T_REDUCE, 1.8e6, 3.6e6};

/* The least-squares per-tile estimate (docs/notes/dispatch-lsq.py, fitted to the 667 timed
 * configurations of runs 115, 116, 120 and 123's training shapes), in BT-256 K-tile units:
 *   waves x (ceil(K-tiles / s) x c(BT) + F(BT)) + (s > 1 ? R + s x M x N x L x 8 / T_BYTES(s) : 0),
 *   c = 0.521 / 0.665 / 1 and F = 3.46 / 4.66 / 6.97 for BT 64 / 128 / 256, R = 4.7, T_BYTES(2) =
 *   1.83e6, T_BYTES(> 2) = 2.93e6. As the tile rule itself (TETRA_GEMM_T_TILE_FIT, session 25) it
 *   was refuted by run 125 (6 of 20 A/B rows above 1.02x; removed in session 26, the patch
 *   docs/notes/patches/s26-tile-fit-removed.patch); it prices the rules' choice against
 *   cluster-K, and (TETRA_GEMM_T_SPLIT_FIT_BELOW) split counts below one wave. */
static const t_estimate k_fit_est = {{0.521, 0.665, 1.0}, {3.46, 4.66, 6.97}, 4.7, 1.83e6, 2.93e6};
/* Switch (session 27; default 2): below one wave the rules' split count, or none where k_fit_est
 * prefers none (0: the rules' count). Session 26 took k_fit_est's count outright (mode 1): run 131's
 * A/B (16 shapes) ran 0.80-0.94x the time where it dropped the split entirely (nine rows) but
 * 1.010-1.035x where it cut 5 splits to 2 (five rows), so mode 1 was not adopted and is gone. Mode 2
 * keeps only the first kind: run 132, 22 fresh shapes where it changes the choice, 0.81-0.92x the
 * time at 20 (3 splits -> none), 1.001 / 1.005 at the two where it changes cluster-K; control 0.998. */
#ifndef TETRA_GEMM_T_SPLIT_FIT_BELOW
#define TETRA_GEMM_T_SPLIT_FIT_BELOW 2
#endif
#if TETRA_GEMM_T_SPLIT_FIT_BELOW != 0 && TETRA_GEMM_T_SPLIT_FIT_BELOW != 2
#error "TETRA_GEMM_T_SPLIT_FIT_BELOW: 0 or 2 (mode 1 was refuted by run 131 and removed)"
#endif

/* the estimate of tile bt with `splits` splits, in BT-256 K-tile units */
static double estimate_t(const t_estimate &e, const tetra_gemm_problem *p, int bt, int splits, int sms) {
    const int i = bt == 256 ? 2 : bt == 128 ? 1 : 0;
    const int64_t ktiles = (p->k + W_BK - 1) / W_BK;
    const int64_t waves = (ctas_t(p, bt) * splits + sms - 1) / sms;
    double cost = (double)waves * ((double)((ktiles + splits - 1) / splits) * e.c[i] + e.fixed[i]);
    if (splits > 1)
        cost += e.reduce + (double)splits * (double)p->m * (double)p->n * (double)p->batch * 8.0 /
                               (splits == 2 ? e.t_bytes2 : e.t_bytes_more);
    return cost;
}
static double cost_t(const tetra_gemm_problem *p, int bt, int splits, int sms) {
    return estimate_t(k_rules_est, p, bt, splits, sms);
}

/* the split count s <= 16, s <= K-tiles / 4, CTAs x s <= max_ctas that minimizes estimate e at
 * tile bt (ties: the smaller s); *cost gets its estimate */
static int argmin_split_t(const t_estimate &e, const tetra_gemm_problem *p, int bt, int sms, int64_t max_ctas,
                          double *cost) {
    const int64_t ktiles = (p->k + W_BK - 1) / W_BK, ctas = ctas_t(p, bt);
    int splits = 1;
    *cost = estimate_t(e, p, bt, 1, sms);
    for (int64_t sp = 2; sp <= SPLIT_MAX && sp <= ktiles / 4 && ctas * sp <= max_ctas; sp++) {
        const double c = estimate_t(e, p, bt, (int)sp, sms);
        if (c < *cost) {
            *cost = c;
            splits = (int)sp;
        }
    }
    return splits;
}

/* the split count for tile bt */
static int split_t(const tetra_gemm_problem *p, int bt, int sms) {
    const int64_t ctas = ctas_t(p, bt);
    if (ctas >= sms) {
        /* One to four waves: the last wave may be nearly empty (160 CTAs on 132 SMs run as
         * two waves). A split that evens the waves out is taken when cost_t, which counts the
         * partials' traffic, puts it T_SPLIT_GAIN below no split. Tune logs: 1024x5120x13824
         * at BT 256 took 304.7 us unsplit, 247.5 with 4 splits (run 29); at 256x24576x6144
         * (192 CTAs) a 2-way split was 8% slower (run 23): the estimate keeps that unsplit. */
        if (ctas > 4 * (int64_t)sms) return 1;
        double best;
        const int splits = argmin_split_t(k_rules_est, p, bt, sms, 8 * (int64_t)sms, &best);
        return best < (1.0 - T_SPLIT_GAIN) * cost_t(p, bt, 1, sms) ? splits : 1;
    }
#if TETRA_GEMM_T_SPLIT_TRAFFIC
    /* below one wave too by cost_t (the tile's c(BT) and the partials' traffic), no 12% margin */
    double best;
    const int splits = argmin_split_t(k_rules_est, p, bt, sms, 2 * (int64_t)sms, &best);
    if (TETRA_GEMM_T_SPLIT_FIT_BELOW == 2 && splits > 1 && argmin_split_t(k_fit_est, p, bt, sms, 2 * (int64_t)sms, &best) == 1)
        return 1;
    return splits;
#else
    const int64_t ktiles = (p->k + W_BK - 1) / W_BK;
    int64_t best_cost = ktiles + T_FIXED, smax = SPLIT_MAX;
    int splits = 1;
    if (smax > ktiles / 4) smax = ktiles / 4;
    for (int64_t sp = 2; sp <= smax && ctas * sp <= 2 * (int64_t)sms; sp++) {
        const int64_t waves = (ctas * sp + sms - 1) / sms;
        const int64_t cost = waves * ((ktiles + sp - 1) / sp + T_FIXED) + T_REDUCE;
        if (cost < best_cost) {
            best_cost = cost;
            splits = (int)sp;
        }
    }
    return splits;
#endif
}


/* Cluster-K in the choice (session 26; switch TETRA_GEMM_T_CK_RULE, default 1). v7.7 reduces the
 * splits in the cluster's shared memory: no partials' traffic, no reduce kernel, but only
 * `resident(BT, s)` clusters of s CTAs run at once (66 / 39 / 30 / 22 / 17 / 15 / 15 / 9 / 7 for
 * s = 2 .. 10 and 7 up to 16 on the H200). Run 127 timed every pinned split count at BT 64 and
 * 128 as cluster-K on 45 training shapes (TETRA_GEMM_T_CK=2): 1350 timings fit
 *   rounds x (ceil(K-tiles / s) x c(BT) + F(BT)),  rounds = ceil(clusters / resident(BT, s)),
 *   clusters = ceil(N / 128) x ceil(M / BT) x L,
 * to 6.5% rms with c = 0.487 / 0.597 and F = 6.69 / 8.54 BT-256 K-tiles (BT 64 / 128;
 * docs/notes/dispatch-ck.py), and there the fastest configuration was cluster-K at 28 of 45
 * shapes (up to 1.33x faster than the rules' choice). The rule: the rules' tile and split as
 * before; then the cheapest cluster-K (BT, s) (BT 64 at M <= 64, 64 or 128 above; a pinned
 * tile_m only that tile; s = 2 .. 16, s <= K-tiles / 4, resident) replaces it where its
 * estimate is below (1 - T_CK_MARGIN) x the rules' choice's by k_fit_est (the least-squares
 * estimate of a non-cluster split in the same units). Offline on run 126 / 127's shapes: 40 of 45
 * within 5% of the best timed configuration (the rules alone: 25), geomean x1.018 (x1.083).
 * Paired A/B against the switch at 0: margin 0.05 lost 1.07x at two BT-256 rows (run 128, inside
 * the fit's error); 0.10 ran 0.78-0.97x the time on 14 fresh shapes, none slower (run 129). */
#ifndef TETRA_GEMM_T_CK_RULE
#define TETRA_GEMM_T_CK_RULE 1
#endif
static const double T_CK_C[2] = {0.487, 0.597}, T_CK_F[2] = {6.69, 8.54}, T_CK_MARGIN = 0.10;
/* Switch (session 27; default 1): for FRAGMENT weights, where the rules chose BT 64 (M 65-128),
 * cluster-K stays at BT 64. Run 132: the choice's move from BT 64 unsplit to cluster-K 128 / 2
 * (K = 2048, N 6144-8192) ran 1.163x the time at 128x7168x2048 and 1.120x at 112x7168x2048 on
 * fragment weights while every other changed fragment row ran 0.75-1.00x: the fit's c(64) / c(128)
 * come from standard weights, and the cheaper fragment dequant favours BT 64. Run 133 (paired, the
 * switch on both layouts): fragment rows 0.853-0.951x the time (six shapes), standard rows 1.031 /
 * 1.003 / 0.956x (1.072x at 128x7168x2048 in run 132): standard weights keep session 26's choice. */
#ifndef TETRA_GEMM_T_CK_KEEP64
#define TETRA_GEMM_T_CK_KEEP64 1
#endif
/* clusters of s cluster-K CTAs resident at once, [0] BT 64, [1] BT 128, index s = 2 .. 16 */
struct t_ck_residency {
    int r[2][SPLIT_MAX + 1];
};

/* the cluster-K estimate of tile bt (64 / 128) with s splits; < 0 where it cannot run */
static double estimate_ck(const tetra_gemm_problem *p, int bt, int s, const t_ck_residency &res) {
    const int i = bt == 128 ? 1 : 0, r = res.r[i][s];
    if (r < 1) return -1.0;
    const int64_t ktiles = (p->k + W_BK - 1) / W_BK;
    const int64_t clusters = (p->n + 127) / 128 * ((p->m + bt - 1) / bt) * p->batch;
    return (double)((clusters + r - 1) / r) * ((double)((ktiles + s - 1) / s) * T_CK_C[i] + T_CK_F[i]);
}

/* c with the cheapest cluster-K alternative where it beats c's estimate by the margin */
static wgmma_t_config with_ck_t(const tetra_gemm_problem *p, wgmma_t_config c, int sms, const t_ck_residency &res) {
    const int64_t ktiles = (p->k + W_BK - 1) / W_BK;
    const bool keep64 = TETRA_GEMM_T_CK_KEEP64 && c.bt == 64 && p->b.scale_layout == TETRA_SCALE_FRAGMENT_128X64;
    double best = (1.0 - T_CK_MARGIN) * estimate_t(k_fit_est, p, c.bt, c.splits, sms);
    for (int bt = 64; bt <= 128; bt *= 2) {
        if (p->tile_m ? bt != p->tile_m : bt == 128 && (p->m <= 64 || keep64)) continue;
        for (int s = 2; s <= SPLIT_MAX && s <= ktiles / 4; s++) {
            const double e = estimate_ck(p, bt, s, res);
            if (e >= 0.0 && e < best) {
                best = e;
                c.bt = bt;
                c.splits = s;
                c.ck = true;
            }
        }
    }
    return c;
}

/* a product's shape alone (standard-layout weights, nothing pinned): the host-only entry points below */
static tetra_gemm_problem shape_problem(int64_t m, int64_t n, int64_t k, int64_t batch) {
    tetra_gemm_problem p = {};
    p.m = m;
    p.n = n;
    p.k = k;
    p.batch = batch;
    return p;
}

/* split_t's count for an M x N x K product (L = 1) at BT tokens per CTA: the fragment GEMV / v7
 * switch's estimate of v7 (gemv.cu, tetra_gemv_frag_v7_wins) takes v7's split from here */
extern "C" int tetra_gemm_t_auto_splits(int64_t m, int64_t n, int64_t k, int bt, int sms) {
    const tetra_gemm_problem p = shape_problem(m, n, k, 1);
    return split_t(&p, bt, sms);
}

/* Whether AUTO gives FRAGMENT weights the BT-256 tile as it gives standard weights (the FRAG
 * instances of v10.3 / v10.8; docs/notes/fragment-layout.md, "BT 256 reader"): build switch
 * TETRA_GEMM_FRAG_BT256 (default 1 since run 90: 1.03-1.05x the standard path's speed at M = 256,
 * 512, 2048), the environment's TETRA_GEMM_FRAG_BT256=0 / 1 overrides it (read once). 0: AUTO
 * keeps such weights at 64 / 128 tokens per CTA (v7), as in session 17. A pinned
 * tile_m 256 and batch-invariant products run the FRAG BT-256 kernels either way. */
#ifndef TETRA_GEMM_FRAG_BT256
#define TETRA_GEMM_FRAG_BT256 1
#endif
extern "C" int tetra_gemm_frag_bt256_auto(void) {
    static const int on = [] {
        const char *e = getenv("TETRA_GEMM_FRAG_BT256");
        if (e && (e[0] == '0' || e[0] == '1') && !e[1]) return e[0] - '0';
        return TETRA_GEMM_FRAG_BT256 ? 1 : 0;
    }();
    return on;
}

/* AUTO's (or a pin's) tile and split count; ck (NULL: none) the cluster-K residency, which lets
 * the rule choose cluster-K (with_ck_t) */
static wgmma_t_config choose_config_t(const tetra_gemm_problem *p, int sms, const t_ck_residency *ck) {
    wgmma_t_config c;
    c.ck = false;
    c.bt = p->tile_m ? p->tile_m : p->batch_invariant ? 256 : p->m <= 64 ? 64 : p->m <= 128 ? 128 : 256;
    /* FRAGMENT weights with the switch off (tetra_gemm_frag_bt256_auto): AUTO keeps v7's 128-token
     * tiles at larger M (batch-invariant products keep BT 256) */
    if (!p->tile_m && !p->batch_invariant && p->b.scale_layout == TETRA_SCALE_FRAGMENT_128X64 && c.bt > 128 &&
        !tetra_gemm_frag_bt256_auto())
        c.bt = 128;
    c.splits = 1;
    if (p->splits) {
        c.splits = p->splits;
        return c;
    }
    if (p->batch_invariant || c.bt <= 0 || sms <= 0) return c;
    c.splits = split_t(p, c.bt, sms);
    if (!p->tile_m && p->m > 64) { /* the smaller tile, if the estimate prefers it (ties: the larger) */
        const int bt2 = c.bt / 2, s2 = split_t(p, bt2, sms);
        if (cost_t(p, bt2, s2, sms) < cost_t(p, c.bt, c.splits, sms)) {
            c.bt = bt2;
            c.splits = s2;
        }
    }
    return ck && TETRA_GEMM_T_CK_RULE ? with_ck_t(p, c, sms, *ck) : c;
}

/* AUTO's tile and split count for an M x N x K x L product of standard-layout weights (not
 * batch-invariant, nothing pinned) on `sms` SMs: returns BT, *splits the split count. Pure host
 * code: tests/test_gemm_rule.c checks it against docs/notes/dispatch-refit.py's mirror. */
extern "C" int tetra_gemm_t_auto_config(int64_t m, int64_t n, int64_t k, int64_t batch, int sms, int *splits) {
    const tetra_gemm_problem p = shape_problem(m, n, k, batch);
    const wgmma_t_config c = choose_config_t(&p, sms, NULL);
    if (splits) *splits = c.splits;
    return c.bt;
}

/* ... with cluster-K in the choice: resident64 / resident128[s - 2] (s = 2 .. 16) the clusters of s
 * CTAs resident at once, fragment 1 for FRAGMENT-layout weights; *ck gets 1 where the choice is
 * cluster-K. Host code (test_gemm_rule). */
extern "C" int tetra_gemm_t_auto_config_ck(int64_t m, int64_t n, int64_t k, int64_t batch, int sms,
                                           const int *resident64, const int *resident128, int fragment, int *splits,
                                           int *ck) {
    tetra_gemm_problem p = shape_problem(m, n, k, batch);
    if (fragment) p.b.scale_layout = TETRA_SCALE_FRAGMENT_128X64;
    t_ck_residency res = {};
    for (int s = 2; s <= SPLIT_MAX; s++) {
        res.r[0][s] = resident64[s - 2];
        res.r[1][s] = resident128[s - 2];
    }
    const wgmma_t_config c = choose_config_t(&p, sms, &res);
    if (splits) *splits = c.splits;
    if (ck) *ck = c.ck;
    return c.bt;
}

#ifdef TETRA_GEMM_TRACE
/* TETRA_GEMM_TRACE builds: launch the BT-256 kernel (v10.3) or v7 (BT 64 / 128) once with a trace
 * buffer, wait for it and write the trace to the file TETRA_GEMM_TRACE_OUT names (overwritten per
 * call): 6 int64 (magic: 0x54524143 "TRAC" v10.3, 0x54524137 "TRA7" v7; grid x, y, z, words per
 * CTA, K-tiles of the problem), then the words (docs/notes/session12-trace.py reads v10.3's,
 * docs/notes/v7-trace.py v7's). kt_n: readings per K-tile. A diagnostic: synchronous; split-K
 * partials without the in-kernel reduce get the reduce kernel after it. */
enum { TRACE_MAGIC_SS = 0x54524143, TRACE_MAGIC_V7 = 0x54524137 };
static tetra_status launch_traced(cudaLaunchConfig_t lc, void (*kernel)(const CUtensorMap, const CUtensorMap,
                                                                        const sm90_params),
                                  const CUtensorMap &tm_a, const CUtensorMap &tm_b, sm90_params prm,
                                  const tetra_gemm_problem *p, long long kt_n, long long magic) {
    const long long ktiles = (p->k + W_BK - 1) / W_BK;
    const long long ctas = (long long)lc.gridDim.x * lc.gridDim.y * lc.gridDim.z;
    prm.trace_stride = SS_TR_HDR + (ktiles * kt_n + 1) / 2;
    const size_t bytes = (size_t)(ctas * prm.trace_stride) * 8;
    TETRA_CUDA_TRY(cudaMalloc((void **)&prm.trace, bytes));
    TETRA_CUDA_TRY(cudaMemset(prm.trace, 0, bytes));
#if TETRA_GEMM_V7_PDL
    /* v7 as a programmatic dependent writes its trace before griddepcontrol.wait: the memset and
     * every earlier kernel complete first (a diagnostic; the wait then returns at once) */
    TETRA_CUDA_TRY(cudaDeviceSynchronize());
#endif
    TETRA_CUDA_TRY(cudaLaunchKernelEx(&lc, kernel, tm_a, tm_b, prm));
    TETRA_CUDA_TRY(cudaDeviceSynchronize());
    unsigned long long *h = (unsigned long long *)malloc(bytes);
    FILE *f = fopen(getenv("TETRA_GEMM_TRACE_OUT"), "wb");
    if (h && f && cudaMemcpy(h, prm.trace, bytes, cudaMemcpyDeviceToHost) == cudaSuccess) {
        const long long hdr[6] = {magic, lc.gridDim.x, lc.gridDim.y, lc.gridDim.z, prm.trace_stride, ktiles};
        fwrite(hdr, sizeof hdr, 1, f);
        fwrite(h, 1, bytes, f);
    }
    if (f) fclose(f);
    free(h);
    cudaFree(prm.trace);
    prm.trace = NULL;
    return prm.splits > 1 && !prm.counters ? launch_splitk_reduce(prm, lc.stream) : TETRA_OK;
}
#endif

/* The transposed kernel's grid x: 128-row weight tiles, rounded up to whole clusters. */
static unsigned grid_x_t(int64_t n) {
    const int64_t tiles = (n + cfg_t<128>::BN - 1) / cfg_t<128>::BN;
    return (unsigned)((tiles + T_CLUSTER - 1) / T_CLUSTER * T_CLUSTER);
}

/* The launch of both wgmma-T launchers: clusters of T_CLUSTER CTAs along x (cx: v7.10's
 * TETRA_GEMM_V7_A_LOCAL passes 1); attr (the caller's; attr[0] holds the cluster dimension) must
 * live until the launch. */
static cudaLaunchConfig_t cluster_launch_config(cudaLaunchAttribute *attr, dim3 grid, int smem_bytes,
                                                cudaStream_t stream, unsigned cx = T_CLUSTER) {
    return tetra_cluster_config(attr, dim3(cx, 1, 1), grid, dim3(W_THREADS), (size_t)smem_bytes, stream);
}

/* v7.9 (TETRA_GEMM_V7_PDL): the one place v7's launches (launch_t at BT 64 / 128, launch_t_ck)
 * get their attributes past the cluster dimension: with the switch on, a programmatic dependent
 * of the previous kernel on the stream (v7_body waits before its global accesses) where the
 * grid's last wave leaves at least 1/8 of the SMs free (v7 keeps one CTA per SM): the gain is the
 * next call's prologue on SMs the previous kernel's tail leaves idle. Run 99 (one process,
 * paired): 0.918x the time at 64x768x6144 (96 CTAs), 0.957 at 64x14336x4096 (112), 0.985 at
 * 64x28672x8192 (224: 92 in the last wave), but 1.022 at 64x2048x6144 (128 CTAs on 132 SMs)
 * and 1.009 at 128x4096x7168 (128): there the rule keeps the ordinary launch. lc.attrs must
 * have room for one more. Added after the residency query (that takes the cluster launch only).
 * The split-K reduce kernel after a v7 launch stays an ordinary launch: it starts after v7 has
 * completed, as before. */
static void v7_launch_attrs(cudaLaunchConfig_t &lc, int sms) {
#if TETRA_GEMM_V7_PDL
    const long long s = sms > 0 ? sms : 1;
    const long long last = ((long long)lc.gridDim.x * lc.gridDim.y * lc.gridDim.z) % s;
    if (last != 0 && (s - last) * 8 >= s) tetra_config_add_dependent(lc);
#else
    (void)lc;
    (void)sms;
#endif
}

/* Once per device (checked, resident: the calling launcher's statics, so per kernel): the
 * shared-memory opt-in and how many of the kernel's clusters are resident at once; fails when
 * not even one pair of CTAs fits (e.g. in an SM partition without two SMs of one GPC). */
template <class K>
static tetra_status resident_clusters(K kernel, int smem_bytes, const cudaLaunchConfig_t &lc, int dev,
                                      std::atomic<unsigned long long> &checked, int (&resident)[64]) {
    if (dev < 0 || dev >= 64) return tetra_fail(TETRA_ERR_UNSUPPORTED, "wgmma-T GEMM: device %d", dev);
    if (!tetra_done_on(checked, dev)) {
        int nclusters = 0;
        TETRA_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
        TETRA_CUDA_TRY(cudaOccupancyMaxActiveClusters(&nclusters, kernel, &lc));
        resident[dev] = nclusters;
        tetra_mark_done(checked, dev);
    }
    if (resident[dev] <= 0)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "wgmma-T GEMM: a cluster of %d CTAs cannot be scheduled here",
                          (int)lc.attrs[0].val.clusterDim.x);
    return TETRA_OK;
}

/* TETRA_GEMM_W4A4_PDL: the BT-256 launches made as programmatic dependents of the W4A4 staging
 * pass so far (tests; 0 where the switch is off) */
#if TETRA_GEMM_W4A4_PDL
static std::atomic<long long> g_w4a4_pdl_launches{0};
/* The PDL instance `kernel` of a BT-256 launch lc (after the caller's residency query of the ordinary
 * instance, which has the same shared memory and registers): its own shared-memory opt-in, then
 * the attribute. Only where the problem came from the staging pass (p->pdl, gemm_api.c). */
template <class K>
static tetra_status w4a4_pdl_config(K kernel, int smem_bytes, cudaLaunchConfig_t &lc, int dev,
                                    std::atomic<unsigned long long> &checked, int (&resident)[64]) {
    const tetra_status rs = resident_clusters(kernel, smem_bytes, lc, dev, checked, resident);
    if (rs != TETRA_OK) return rs;
    tetra_config_add_dependent(lc);
    g_w4a4_pdl_launches.fetch_add(1, std::memory_order_relaxed);
    return TETRA_OK;
}
#endif
extern "C" int tetra_gemm_w4a4_pdl_mode(void) { return TETRA_GEMM_W4A4_PDL; }
extern "C" long long tetra_gemm_w4a4_pdl_launches(void) {
#if TETRA_GEMM_W4A4_PDL
    return g_w4a4_pdl_launches.load(std::memory_order_relaxed);
#else
    return 0;
#endif
}

#if TETRA_GEMM_SS_PERSISTENT
/* v10.8 (gemm_wgmma_t_ss_p_kernel; launcher as v10.4's): min(units, resident clusters) 2-CTA clusters in a 1-D
 * grid, a unit being one cluster of v10.3's grid (weight-tile pair x token tile x batch).
 * Taken only when there are more units than clusters: with one round of units no cluster
 * walks a second one and the persistent kernel has nothing to overlap (run 66,
 * graph-timed: 1024x4096x4096, 64 units on 66 clusters, -0.01 against v10.3), so *launched stays 0 and
 * the caller runs v10.3; likewise above K = 4096 (SS_P_MAX_KTILES). TETRA_GEMM_SS_CLUSTERS=c (c >= 1, read once) caps the clusters
 * instead of the resident count: tests make few clusters walk many units (a c above the
 * resident count stays correct, as a second wave). */
static int ss_clusters_env(void) {
    const char *e = getenv("TETRA_GEMM_SS_CLUSTERS");
    return e ? atoi(e) : 0;
}
template <bool IS_BF16, bool FRAG>
static tetra_status launch_ss_p(const CUtensorMap &tm_a, const CUtensorMap &tm_b, const sm90_params &prm,
                                const tetra_gemm_problem *p, cudaStream_t stream, bool *launched) {
    void (*kernel)(const CUtensorMap, const CUtensorMap, const CUtensorMap, const sm90_params) =
        gemm_wgmma_t_ss_p_kernel<IS_BF16, FRAG>;
    const int smem_bytes = SS_P_SMEM_BYTES;
    const int64_t units = (int64_t)(grid_x_t(p->n) / T_CLUSTER) * ((p->m + cfg_ss::BT - 1) / cfg_ss::BT) * p->batch;
    cudaLaunchAttribute attr[2]; /* the cluster dimension; TETRA_GEMM_W4A4_PDL's attribute */
    cudaLaunchConfig_t lc = cluster_launch_config(attr, dim3((unsigned)(units * T_CLUSTER), 1, 1), smem_bytes, stream);
    static std::atomic<unsigned long long> checked{0};
    static int resident[64]; /* clusters of this kernel resident at once, per device */
    static const int cap = ss_clusters_env();
    const int dev = p->ctx->device;
    const tetra_status rs = resident_clusters(kernel, smem_bytes, lc, dev, checked, resident);
    if (rs != TETRA_OK) return rs;
    const int64_t lim = cap > 0 ? cap : resident[dev];
    /* D's tensor map (TMA store): [L][M][ldd] 16-bit, box 64 (n) x BT rows, 128B swizzle;
     * needs a 16-byte aligned D and row / batch pitches in 16-byte multiples */
    const int64_t dbs = p->batch > 1 ? p->d_batch_stride : p->m * p->ldd;
    /* Long K: the persistent kernel loses to v10.3 there (runs 72-73, 8192x4096x14336: -0.014,
     * every leg below v10.3's; cause not measured, a dynamic unit order did not help, run 75;
     * gains at K = 1024 and 4096): taken only up to SS_P_MAX_KTILES K-tiles, unless the tests
     * cap the clusters */
    const bool short_k = prm.ktiles <= SS_P_MAX_KTILES || cap > 0;
    *launched = units > lim && short_k && tetra_aligned(p->d, 16) && p->ldd % 8 == 0 && dbs % 8 == 0;
    if (!*launched) return TETRA_OK;
    CUtensorMap tm_d;
    {
        PFN_cuTensorMapEncodeTiled_v12000 encode = get_encode_fn();
        cuuint64_t dims[3] = {(cuuint64_t)p->n, (cuuint64_t)p->m, (cuuint64_t)p->batch};
        cuuint64_t strides[2] = {(cuuint64_t)p->ldd * 2, (cuuint64_t)dbs * 2};
        cuuint32_t box[3] = {64, (cuuint32_t)cfg_ss::BT, 1}, estr[3] = {1, 1, 1};
        if (!encode) return tetra_fail(TETRA_ERR_UNSUPPORTED, "wgmma-T GEMM: cuTensorMapEncodeTiled is not available");
        const CUresult cr = encode(&tm_d, CU_TENSOR_MAP_DATA_TYPE_UINT16, 3, p->d, dims, strides, box, estr,
                                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                   CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (cr != CUDA_SUCCESS)
            return tetra_fail(TETRA_ERR_UNSUPPORTED, "wgmma-T GEMM: cuTensorMapEncodeTiled(d) failed (%d)", (int)cr);
    }
    lc.gridDim = dim3((unsigned)(lim * T_CLUSTER), 1, 1);
#if TETRA_GEMM_W4A4_PDL
    if constexpr (IS_BF16)
        if (p->pdl) { /* after the W4A4 staging pass (a traced call runs v10.3) */
            static std::atomic<unsigned long long> checked_pdl{0};
            static int resident_pdl[64];
            kernel = gemm_wgmma_t_ss_p_kernel<true, FRAG, true>;
            const tetra_status ps = w4a4_pdl_config(kernel, smem_bytes, lc, dev, checked_pdl, resident_pdl);
            if (ps != TETRA_OK) return ps;
        }
#endif
    TETRA_CUDA_TRY(cudaLaunchKernelEx(&lc, kernel, tm_a, tm_b, tm_d, prm));
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}
#endif

/* v7.7, cluster-K (TETRA_GEMM_T_CK): the mode for this process, 0 off, 1 AUTO (v7's split-K
 * products whose split count the rule chose), 2 everywhere (also pinned splits: tests). A test's
 * pin (tetra_gemm_t_ck_pin), else the environment's TETRA_GEMM_T_CK=0 / 1 / 2 (read once), else
 * the build's value. Built without the switch: 0. Not public entry points. */
#if TETRA_GEMM_T_CK
static std::atomic<int> g_t_ck_pin{-1};
static std::atomic<long long> g_t_ck_launches{0};
#endif
extern "C" int tetra_gemm_t_ck_mode(void) {
#if TETRA_GEMM_T_CK
    const int pin = g_t_ck_pin.load(std::memory_order_relaxed);
    if (pin >= 0) return pin;
    static const int env = [] {
        const char *e = getenv("TETRA_GEMM_T_CK");
        if (e && e[0] >= '0' && e[0] <= '2' && !e[1]) return e[0] - '0';
        return TETRA_GEMM_T_CK >= 0 && TETRA_GEMM_T_CK <= 2 ? (int)TETRA_GEMM_T_CK : 0;
    }();
    return env;
#else
    return 0;
#endif
}
/* Tests: pins the mode for this process (mode 0..2), or drops the pin (mode < 0). Returns 1
 * where the build has cluster-K, else 0 (nothing pinned). */
extern "C" int tetra_gemm_t_ck_pin(int mode) {
#if TETRA_GEMM_T_CK
    g_t_ck_pin.store(mode < 0 ? -1 : mode > 2 ? 2 : mode, std::memory_order_relaxed);
    return 1;
#else
    (void)mode;
    return 0;
#endif
}
#if !TETRA_GEMM_T_CK
extern "C" int tetra_gemm_t_ck_resident_clusters(int bt, int S) {
    (void)bt;
    (void)S;
    return 0;
}
#endif
/* Tests: v7.9's build switch, TETRA_GEMM_V7_PDL (0: v7 is an ordinary launch) */
extern "C" int tetra_gemm_v7_pdl_mode(void) { return TETRA_GEMM_V7_PDL; }
/* Tests: how many cluster-K kernels this process has launched (0 where not built) */
extern "C" long long tetra_gemm_t_ck_launches(void) {
#if TETRA_GEMM_T_CK
    return g_t_ck_launches.load(std::memory_order_relaxed);
#else
    return 0;
#endif
}

#if TETRA_GEMM_T_CK
/* Clusters of S (2 .. SPLIT_MAX) cluster-K CTAs of this instance resident at once on device dev
 * (cudaOccupancyMaxActiveClusters; 0: it cannot run there, e.g. 16 CTAs without the
 * non-portable cluster size or without 16 free SMs in one GPC). Queried once per device, for
 * every S, with the shared-memory opt-in and the non-portable opt-in (S > 8) first. */
template <bool IS_BF16, int BT, bool FRAG> static int t_ck_resident(int S, int dev) {
    static std::atomic<unsigned long long> checked{0};
    static int resident[64][SPLIT_MAX + 1];
    if (dev < 0 || dev >= 64 || S < 2 || S > SPLIT_MAX) return 0;
    if (!tetra_done_on(checked, dev)) {
        void (*kernel)(const CUtensorMap, const CUtensorMap, const sm90_params) =
            gemm_wgmma_t_ck_kernel<IS_BF16, BT, FRAG>;
        const int smem_bytes = cfg_t<BT, FRAG>::SMEM_BYTES;
        const bool opt =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes) == cudaSuccess;
        const bool big = opt && cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) ==
                                    cudaSuccess;
        for (int s = 0; s <= SPLIT_MAX; s++) {
            int nc = 0;
            if (s >= 2 && opt && (s <= 8 || big)) {
                cudaLaunchAttribute attr[1];
                const cudaLaunchConfig_t lc = tetra_cluster_config(attr, dim3(1, 1, (unsigned)s), dim3(1, 1, (unsigned)s),
                                                                   dim3(W_THREADS), (size_t)smem_bytes, 0);
                if (cudaOccupancyMaxActiveClusters(&nc, kernel, &lc) != cudaSuccess) nc = 0;
            }
            resident[dev][s] = nc;
        }
        (void)cudaGetLastError(); /* a failed query only means: the ordinary split path */
        tetra_mark_done(checked, dev);
    }
    return resident[dev][S];
}
template <bool IS_BF16, bool FRAG> static int t_ck_resident_bt(int bt, int S, int dev) {
    return bt == 64 ? t_ck_resident<IS_BF16, 64, FRAG>(S, dev) : t_ck_resident<IS_BF16, 128, FRAG>(S, dev);
}
/* ... of the instance an activation type and weight layout run */
static int t_ck_resident_of(bool bf16, bool frag, int bt, int S, int dev) {
    return frag ? (bf16 ? t_ck_resident_bt<true, true>(bt, S, dev) : t_ck_resident_bt<false, true>(bt, S, dev))
                : (bf16 ? t_ck_resident_bt<true, false>(bt, S, dev) : t_ck_resident_bt<false, false>(bt, S, dev));
}
/* ... as the tile rule's table (with_ck_t) for both tiles and every S, built once per device and
 * instance: AUTO consults it on every call */
static const t_ck_residency *t_ck_residency_of(bool bf16, bool frag, int dev) {
    static std::atomic<unsigned long long> built[2][2] = {};
    static t_ck_residency table[2][2][64];
    if (dev < 0 || dev >= 64) return NULL;
    t_ck_residency &t = table[bf16][frag][dev];
    if (!tetra_done_on(built[bf16][frag], dev)) {
        for (int s = 2; s <= SPLIT_MAX; s++)
            for (int i = 0; i < 2; i++) t.r[i][s] = t_ck_resident_of(bf16, frag, 64 << i, s, dev);
        tetra_mark_done(built[bf16][frag], dev);
    }
    return &t;
}

/* Tests: clusters of S cluster-K CTAs (BF16 standard-weight instance, tile bt 64 / 128; the
 * others have the same shared memory and registers) resident at once on the current device */
extern "C" int tetra_gemm_t_ck_resident_clusters(int bt, int S) {
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || (bt != 64 && bt != 128)) return 0;
    return t_ck_resident_bt<true, false>(bt, S, dev);
}

/* Whether v7's split-K product cf runs as cluster-K: the mode is on (AUTO: splits chosen by the
 * rule, not pinned), BT 64 or 128, splits > 1, not a traced call, and a cluster of `splits`
 * CTAs can be resident; AUTO also wants no more waves than the ordinary grid (clusters over the
 * resident count against 2-CTA pairs over the SMs: a GPC without room for 16 CTAs must not
 * turn one wave into two). This upgrades a split the rules chose for the ordinary path; since
 * session 26 the rule may also choose cluster-K itself (wgmma_t_config::ck, with_ck_t). */
static bool t_ck_takes(const tetra_gemm_problem *p, const wgmma_t_config &cf, bool bf16, bool frag) {
    const int mode = tetra_gemm_t_ck_mode();
    if (!mode || (cf.bt != 64 && cf.bt != 128) || cf.splits < 2) return false;
    if (mode == 1 && p->splits) return false;
#ifdef TETRA_GEMM_TRACE
    if (getenv("TETRA_GEMM_TRACE_OUT")) return false; /* the trace is the ordinary kernel's */
#endif
    const int dev = p->ctx->device;
    const int res = t_ck_resident_of(bf16, frag, cf.bt, cf.splits, dev);
    if (res < 1) return false;
    if (mode == 2) return true;
    const int64_t clusters = ((p->n + 127) / 128) * ((p->m + cf.bt - 1) / cf.bt) * p->batch;
    const int64_t ctas = (int64_t)grid_x_t(p->n) * ((p->m + cf.bt - 1) / cf.bt) * p->batch * cf.splits;
    const int64_t sms = p->ctx->sms > 0 ? p->ctx->sms : 1;
    return (clusters + res - 1) / res <= (ctas + sms - 1) / sms;
}

/* v7.7's launch: grid (weight tiles, token tiles, splits x L), clusters (1, 1, splits); no
 * workspace, no reduce kernel. t_ck_takes has opted the kernel in (t_ck_resident). */
template <bool IS_BF16, int BT, bool FRAG>
static tetra_status launch_t_ck(const CUtensorMap &tm_a, const CUtensorMap &tm_b, const sm90_params &prm,
                                const tetra_gemm_problem *p, cudaStream_t stream) {
    cudaLaunchAttribute attr[2];
    cudaLaunchConfig_t lc = tetra_cluster_config(
        attr, dim3(1, 1, (unsigned)prm.splits),
        dim3((unsigned)((p->n + 127) / 128), (unsigned)((p->m + BT - 1) / BT), (unsigned)(p->batch * prm.splits)),
        dim3(W_THREADS), (size_t)cfg_t<BT, FRAG>::SMEM_BYTES, stream);
    v7_launch_attrs(lc, p->ctx->sms);
    TETRA_CUDA_TRY(cudaLaunchKernelEx(&lc, gemm_wgmma_t_ck_kernel<IS_BF16, BT, FRAG>, tm_a, tm_b, prm));
    TETRA_LAUNCH_CHECK();
    g_t_ck_launches.fetch_add(1, std::memory_order_relaxed);
    return TETRA_OK;
}
#endif

/* 128 weight rows x BT tokens per CTA, in clusters of 2 CTAs along N that share each
 * activation tile (grid x rounded up to even: the kernel's CTA past N stores nothing); where
 * TETRA_GEMM_V7_A_LOCAL takes the tile (v7.10), clusters of 1 and grid x = ceil(N / 128). The
 * split-K counters stay sized for the rounded grid (enough; indexed by gridDim.x). */
/* BT = 256 runs v10 (gemm_wgmma_t_ss_kernel: the transform stage, SS wgmmas), BT = 64 and
 * 128 run v7 (gemm_wgmma_t_kernel: RS wgmmas); the v7 kernel is not instantiated at 256.
 * FRAG: fragment-ordered weights (v7's and v10's FRAG instances). */
template <bool IS_BF16, int BT, bool FRAG>
static tetra_status launch_t(const CUtensorMap &tm_a, const CUtensorMap &tm_b, const sm90_params &prm,
                             const tetra_gemm_problem *p, cudaStream_t stream, bool ck) {
    void (*kernel)(const CUtensorMap, const CUtensorMap, const sm90_params);
    int smem_bytes;
#if TETRA_GEMM_T_CK
    if constexpr (BT != 256)
        if (ck) return launch_t_ck<IS_BF16, BT, FRAG>(tm_a, tm_b, prm, p, stream);
#endif
    (void)ck;
    /* the BT-256 FRAG kernels fill the raw ring by bulk copies only (no per-lane scale loader
     * instantiated); fragment scales are 16-byte aligned swizzled blocks (check_fragment), so
     * this holds for every valid matrix */
    if (FRAG && BT == 256 && !prm.scale_bulk)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "wgmma-T GEMM: 256 tokens per CTA on "
                                                 "TETRA_SCALE_FRAGMENT_128X64 b need 16-byte aligned scales");
#if TETRA_GEMM_SS_PERSISTENT
    /* the persistent kernel (v10.8): 16-bit D without split-K (a traced call runs v10.3,
     * which writes the trace) */
    if constexpr (BT == 256) {
        bool traced = false;
#ifdef TETRA_GEMM_TRACE
        traced = getenv("TETRA_GEMM_TRACE_OUT") != NULL;
#endif
        if (prm.splits == 1 && (prm.d_dtype == TETRA_DTYPE_BF16 || prm.d_dtype == TETRA_DTYPE_FP16) && !traced) {
            bool launched = false;
            const tetra_status st = launch_ss_p<IS_BF16, FRAG>(tm_a, tm_b, prm, p, stream, &launched);
            if (st != TETRA_OK || launched) return st;
        }
    }
#endif
    if constexpr (BT == 256) {
        kernel = gemm_wgmma_t_ss_kernel<IS_BF16, FRAG>;
        smem_bytes = cfg_ss::SMEM_BYTES;
    } else {
        kernel = gemm_wgmma_t_kernel<IS_BF16, BT, FRAG>;
        smem_bytes = cfg_t<BT, FRAG>::SMEM_BYTES;
    }
    /* v7.10 (TETRA_GEMM_V7_A_LOCAL): no pair, so clusters of 1 and no CTA past N (any tile count) */
    const bool a_local = V7_A_LOCAL(BT);
    const unsigned gx = a_local ? (unsigned)((p->n + cfg_t<128>::BN - 1) / cfg_t<128>::BN) : grid_x_t(p->n);
    cudaLaunchAttribute attr[2];
    cudaLaunchConfig_t lc = cluster_launch_config(
        attr, dim3(gx, (unsigned)((p->m + BT - 1) / BT), (unsigned)(p->batch * prm.splits)), smem_bytes, stream,
        a_local ? 1u : (unsigned)T_CLUSTER);
    {
        /* the shared-memory opt-in, and whether a pair of these CTAs fits at all */
        static std::atomic<unsigned long long> checked{0};
        static int resident[64];
        const tetra_status rs = resident_clusters(kernel, smem_bytes, lc, p->ctx->device, checked, resident);
        if (rs != TETRA_OK) return rs;
    }
    if constexpr (BT != 256) v7_launch_attrs(lc, p->ctx->sms); /* v7 only: v10.3 stays an ordinary launch */
#if TETRA_GEMM_W4A4_PDL
    /* ... except after the W4A4 staging pass (p->pdl): its PDL instance; a traced call keeps
     * the ordinary instance (its trace is written before any wait) */
    if constexpr (BT == 256 && IS_BF16) {
        bool traced_pdl = false;
#ifdef TETRA_GEMM_TRACE
        traced_pdl = getenv("TETRA_GEMM_TRACE_OUT") != NULL;
#endif
        if (p->pdl && !traced_pdl) {
            static std::atomic<unsigned long long> checked_pdl{0};
            static int resident_pdl[64];
            kernel = gemm_wgmma_t_ss_kernel<true, FRAG, true>;
            const tetra_status ps = w4a4_pdl_config(kernel, smem_bytes, lc, p->ctx->device, checked_pdl, resident_pdl);
            if (ps != TETRA_OK) return ps;
        }
    }
#endif
#ifdef TETRA_GEMM_TRACE
    if (getenv("TETRA_GEMM_TRACE_OUT")) /* v10.3 or v7 */
        return launch_traced(lc, kernel, tm_a, tm_b, prm, p, BT == 256 ? (long long)SS_TK_N : (long long)V7_TK_N,
                             BT == 256 ? TRACE_MAGIC_SS : TRACE_MAGIC_V7);
#endif
    TETRA_CUDA_TRY(cudaLaunchKernelEx(&lc, kernel, tm_a, tm_b, prm));
    TETRA_LAUNCH_CHECK();
    return prm.splits > 1 && !prm.counters ? launch_splitk_reduce(prm, stream) : TETRA_OK;
}

/* launch_t at the tile the configuration chose (64, 128 or 256 tokens per CTA) */
template <bool IS_BF16, bool FRAG>
static tetra_status launch_t_bt(int bt, const CUtensorMap &tm_a, const CUtensorMap &tm_b, const sm90_params &prm,
                                const tetra_gemm_problem *p, cudaStream_t stream, bool ck) {
    return bt == 64    ? launch_t<IS_BF16, 64, FRAG>(tm_a, tm_b, prm, p, stream, ck)
           : bt == 128 ? launch_t<IS_BF16, 128, FRAG>(tm_a, tm_b, prm, p, stream, ck)
                       : launch_t<IS_BF16, 256, FRAG>(tm_a, tm_b, prm, p, stream, ck);
}

extern "C" tetra_status tetra_launch_gemm_wgmma_t(const tetra_gemm_problem *p) {
    sm90_params prm;
    CUtensorMap tm_a, tm_b;
    tetra_status st;
    const bool bf16 = p->a.dtype == TETRA_DTYPE_BF16;
#if TETRA_GEMM_T_CK
    const bool ck_rule = TETRA_GEMM_T_CK_RULE && !p->splits && !p->batch_invariant && tetra_gemm_t_ck_mode() >= 1
#ifdef TETRA_GEMM_TRACE
                         && !getenv("TETRA_GEMM_TRACE_OUT")
#endif
        ;
    const wgmma_t_config cf = choose_config_t(
        p, p->ctx->sms,
        ck_rule ? t_ck_residency_of(bf16, p->b.scale_layout == TETRA_SCALE_FRAGMENT_128X64, p->ctx->device) : NULL);
#else
    const wgmma_t_config cf = choose_config_t(p, p->ctx->sms, NULL);
#endif
    if (cf.bt != 64 && cf.bt != 128 && cf.bt != 256)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "wgmma-T GEMM: opts.tile_m = %d; this kernel has 64, 128 or 256 tokens per CTA", cf.bt);
    /* A's box is half the tile: each CTA of a pair loads one half for both */
    /* fragment B: v7 (BT 64 / 128) loads cfg_t::KT blocks per box, v10 (BT 256) one */
    st = prepare_sm90(p, "wgmma-T GEMM", cf.bt / T_CLUSTER, cfg_t<128>::BN, cf.splits, &tm_a, &tm_b, &prm,
                      cf.bt == 256 ? 1 : (int)cfg_t<128>::KT);
    if (st != TETRA_OK) return st;
    bool ck = false; /* v7.7: the splits reduced in the cluster (no workspace use, no counters) */
#if TETRA_GEMM_T_CK
    ck = cf.ck || t_ck_takes(p, cf, bf16, prm.frag != 0);
#endif
    if (!ck && prm.splits > 1 && prm.splits <= T_FUSED_MAX_SPLITS) {
        /* Split-K reduces in the kernel when the workspace also holds one counter per output
         * tile after the partials (a regrown buffer replaces prepare_sm90's: nothing was
         * queued on it yet). A workspace that cannot hold the counters (a fixed user one,
         * or no memory): the reduce kernel, which gives the same bits. */
        const size_t partial_bytes = (size_t)prm.splits * (size_t)(p->m * p->n * p->batch) * 4;
        const size_t ctr_off = (partial_bytes + 255) / 256 * 256;
        const size_t tiles = (size_t)grid_x_t(p->n) * (size_t)((p->m + cf.bt - 1) / cf.bt) * (size_t)p->batch;
        void *ws;
        if (tetra_context_workspace(p->ctx, ctr_off + tiles * 8, &ws) == TETRA_OK) {
            prm.ws = (float *)ws;
            prm.counters = (unsigned long long *)((uint8_t *)ws + ctr_off);
            prm.tag = tetra_next_counter_tag();
        } else {
            /* a failed regrow frees the old buffer first: ask again for the partials alone */
            tetra_clear_error();
            if ((st = tetra_context_workspace(p->ctx, partial_bytes, &ws)) != TETRA_OK) return st;
            prm.ws = (float *)ws;
        }
    }
    /* v7 (BT 64 / 128; v7.7 where ck), v10.3 / v10.8 (BT 256); FRAG instances for fragment-ordered weights */
    cudaStream_t stream = TETRA_STREAM(p);
    if (prm.frag)
        return bf16 ? launch_t_bt<true, true>(cf.bt, tm_a, tm_b, prm, p, stream, ck)
                    : launch_t_bt<false, true>(cf.bt, tm_a, tm_b, prm, p, stream, ck);
    return bf16 ? launch_t_bt<true, false>(cf.bt, tm_a, tm_b, prm, p, stream, ck)
                : launch_t_bt<false, false>(cf.bt, tm_a, tm_b, prm, p, stream, ck);
}
