/*
 * skinny_sm90.cu - the skinny-M Hopper GEMM "(c')" (TETRA_PATH_SKINNY, pinned only):
 * Y[M,N] = alpha * X[M,K] * W[N,K]^T (+ bias[N]) for M <= 64, W NVFP4 in the prepared
 * layout TETRA_SCALE_INTERLEAVED_32X128, X BF16/FP16, Y FP32/FP16/BF16, batched over L.
 * Notes, numbers and the prediction: docs/notes/skinny-gemm.md, "(c') rebuilt, session 11".
 *
 * The GEMV's prepared-weights data path (gemv.cu) feeding wgmma's register A operand:
 *   - CTA = 2 warpgroups = 8 warps = 256 weight rows x 64 tokens; no producer warp.
 *     Each warp streams its 32 rows (one interleaved block per 128-K segment) through its
 *     own 4-stage cp.async ring exactly as the GEMV does (lane (g, t) owns rows g + 8i,
 *     K [32t, 32t + 32) of the segment; each lane reads back only what it copied).
 *   - Per segment and word q (K 32t + 8q .. + 7 of each row) a lane dequantizes its four
 *     rows into wd[4][4] (dequant_word: pairs (n_j, n_j+4)); these are the A fragments of
 *     two k16 steps (q, 0) and (q, 2) for the warp's two 16-row tiles. The four warps of a
 *     warpgroup issue 2 x 2 wgmma.m64n64k16 RS per q (A tile `at` of each warp = one m64
 *     operand), one commit group per q, wait_group 1: word q + 1 is dequantized while the
 *     wgmmas of q run. wgmma row 16w + j of operand `at` is weight row 32w + 16at + j.
 *   - X (the B operand, 64 tokens x 128 K per segment) is staged once per CTA per segment by
 *     all 256 threads into shared memory, in the K order the dequantization produces (step
 *     (q, a) logical k 8hi + 2t + d <-> physical K 32t + 8q + a + hi + 4d) and in the
 *     128B-swizzled K-major layout a wgmma descriptor reads (two 64-token x 64-K subtiles of
 *     8 KiB per segment). Three buffers: the buffer written during segment s was last read
 *     in segment s - 2, whose wgmmas every warpgroup retired before the barrier that ended
 *     segment s - 1. Tokens >= M are written as zeros, never read from X.
 *   - Split-K (a rule of N, K, L and the SM count only, never M): FP32 partials in the
 *     context workspace ([L][S][64][N]) and skinny_splitk_reduce sums them in split order.
 *   - Epilogue as the GEMV's (gemv_store: (v * 2^p) * alpha * gB + bias, one rounding); a
 *     row flagged in the layout (NaN scale code) is NaN.
 * Batch invariance: nothing depends on M except which token rows are zero and which outputs
 * are stored; each output column of a wgmma depends on its own B column only.
 * sm_90a only (TETRA_SM90_DEVICE); other targets compile an empty body and the launcher
 * returns TETRA_ERR_UNSUPPORTED.
 * The GEMV's data-path helpers come from gemv_warp.cuh, the wgmma wrappers from wgmma.cuh,
 * the shared-memory accessors from smem.cuh (shared with gemv.cu and gemm_sm90.cu).
 */
#include "common.cuh"
#include "gemv_warp.cuh"
#include "launch.h"
#include "smem.cuh"
#include "wgmma.cuh" /* TETRA_SM90_DEVICE */

#include <stdint.h>

/* A/B switches (CMake cache variables; notes: skinny-gemm.md, "skinny2 (session 11)"). Every
 * variant gives the same bits. Defaults from run 50: EPI 1 (the epilogue without the partials'
 * round trip: 64x14336x4096 42.30 -> 34.55 us); WAIT 2 and XAHEAD 2 did not pay.
 *   TETRA_SKINNY_WAIT (1, 2): wgmma groups left in flight by the per-q wait_group (2: three
 *     fragment sets live).
 *   TETRA_SKINNY_XAHEAD (1, 2): 2 copies X by cp.async into a raw per-thread staging ring that
 *     rides the W ring's commit groups (X of segment s + 1 in segment s's group, issued three
 *     segments ahead) and permutes it from shared memory (LDS after q = 0, STS after q = 1).
 *   TETRA_SKINNY_BAR (0, 1): 1 splits the per-segment __syncthreads into an mbarrier arrive
 *     right after the X store (q = 1) and a wait before the next segment's first wgmma.
 *   TETRA_SKINNY_EPI (0, 1): 1 reduces split-K (2 <= S <= 16) in one launch: clusters (1, S, 1)
 *     along K, each CTA stages its FP32 tile in its dead W rings, CTA rank c sums its share
 *     over ranks 0..S-1 in order through distributed shared memory and stores Y. */
#ifndef TETRA_SKINNY_WAIT
#define TETRA_SKINNY_WAIT 1
#endif
#ifndef TETRA_SKINNY_XAHEAD
#define TETRA_SKINNY_XAHEAD 1
#endif
#ifndef TETRA_SKINNY_BAR
#define TETRA_SKINNY_BAR 0
#endif
#ifndef TETRA_SKINNY_EPI
#define TETRA_SKINNY_EPI 1
#endif
#if (TETRA_SKINNY_WAIT != 1 && TETRA_SKINNY_WAIT != 2) || (TETRA_SKINNY_XAHEAD != 1 && TETRA_SKINNY_XAHEAD != 2) || \
    (TETRA_SKINNY_BAR != 0 && TETRA_SKINNY_BAR != 1) || (TETRA_SKINNY_EPI != 0 && TETRA_SKINNY_EPI != 1)
#error "TETRA_SKINNY_WAIT / XAHEAD in {1, 2}, TETRA_SKINNY_BAR / EPI in {0, 1}"
#endif

#define SK_STR2(x) #x
#define SK_STR(x) SK_STR2(x)
/* `strings <binary> | grep tetra-skinny-variant` names the variant a binary was built with */
__attribute__((used)) static const char sk_variant_tag[] =
    "tetra-skinny-variant WAIT=" SK_STR(TETRA_SKINNY_WAIT) " XAHEAD=" SK_STR(TETRA_SKINNY_XAHEAD) " BAR=" SK_STR(
        TETRA_SKINNY_BAR) " EPI=" SK_STR(TETRA_SKINNY_EPI);

namespace {

enum {
    SK_WARPS = 8,
    SK_THREADS = SK_WARPS * TETRA_WARP,
    SK_ROWS = SK_WARPS * 32, /* weight rows per CTA */
    SK_BT = 64,              /* tokens per CTA */
    SK_SEG_K = 128,
    SK_STAGES = 4,            /* W ring depth per warp (the GEMV's) */
    SK_STAGE_BYTES = 2560,    /* the GEMV's gemv_stage: 4 x 512 B nibbles + 512 B scale slots */
    SK_XBUF = 3,              /* X buffers */
    SK_XSUB_BYTES = SK_BT * 128, /* one 64-token x 64-K subtile, 8 KiB */
    SK_XBUF_BYTES = 2 * SK_XSUB_BYTES,
    SK_OFF_X = 0,
    SK_OFF_RING = SK_XBUF * SK_XBUF_BYTES,
    SK_RING_BYTES = SK_WARPS * SK_STAGES * SK_STAGE_BYTES,
#if TETRA_SKINNY_XAHEAD == 2
    SK_XRAW_STAGE_BYTES = SK_THREADS * 64, /* 4 x 16 B of X per thread per segment */
#else
    SK_XRAW_STAGE_BYTES = 0,
#endif
    SK_OFF_XRAW = SK_OFF_RING + SK_RING_BYTES,
    SK_OFF_MBAR = SK_OFF_XRAW + SK_STAGES * SK_XRAW_STAGE_BYTES,
    SK_MBAR_BYTES = TETRA_SKINNY_BAR ? 16 : 0,
    SK_SMEM_BYTES = SK_OFF_MBAR + SK_MBAR_BYTES + 1024 /* alignment slack */,
    SK_MAX_SPLITS = 64,
    SK_MAX_CLUSTER = 16, /* EPI 1: the cluster reduce for 2 <= S <= 16 (> 8: non-portable) */
    SK_EPI_LD = 36       /* EPI 1: floats per token row of a warp's staged 32-row tile */
};

struct skinny_params {
    const uint8_t *w;
    int64_t w_batch_bytes, w_flags_off;
    int64_t rows_pad; /* rows present in the layout: N rounded up to 128 */
    const uint8_t *x;
    int64_t x_row_bytes, x_batch_bytes;
    void *y;
    int64_t y_ld, y_batch; /* elements */
    tetra_dtype y_dtype;
    const void *bias;
    tetra_dtype bias_dtype;
    float alpha;
    const float *gb;
    float *partial; /* [L][splits][64][N] FP32 when splits > 1 */
    int splits, m, nseg;
    int64_t n, k;
#if TETRA_SKINNY_EPI
    int cluster; /* 1: launched in clusters (1, splits, 1), reduce through DSMEM */
#endif
};

/* Set in each device image: 1 only where the kernel body is real (sm_90a). */
__device__ int g_skinny_kernel_built = TETRA_SM90_DEVICE;

/* BF16 operands carry 2^-7 (dequant_bf16), FP16 weights 2^-14 (dequant_fp16) */
template <bool BF16> struct sk_pow2 { static constexpr float v = BF16 ? 128.0f : 16384.0f; };

/* gemv.cu's gemv_store: y = (v * pow2) * (alpha * gb) + bias, rounded once */
__device__ __forceinline__ void sk_store(const skinny_params &p, int64_t l, int m, int64_t n, float v, float pow2) {
    float y = (v * pow2) * tetra_gemm_scale(p.alpha, nullptr, p.gb);
    if (p.bias) y += tetra_load_dense(p.bias, n, p.bias_dtype);
    tetra_store_dense(p.y, l * p.y_batch + (int64_t)m * p.y_ld + n, p.y_dtype, y);
}

#if TETRA_SKINNY_EPI && TETRA_SM90_DEVICE
/* sk_store with the scale alpha * gb read once by the caller (the same product, so the same
 * bits): the per-element reload of *gb, which the Y stores may alias, leaves the store loop */
__device__ __forceinline__ void sk_store_sc(const skinny_params &p, int64_t l, int m, int64_t n, float v, float pow2,
                                            float sc) {
    float y = (v * pow2) * sc;
    if (p.bias) y += tetra_load_dense(p.bias, n, p.bias_dtype);
    tetra_store_dense(p.y, l * p.y_batch + (int64_t)m * p.y_ld + n, p.y_dtype, y);
}
#endif

#if TETRA_SM90_DEVICE
/* ---- skinny-only shared-memory and cluster operations */
#if TETRA_SKINNY_XAHEAD == 2
/* 16 bytes, or zeros where bytes == 0 (nothing is read then) */
__device__ __forceinline__ void sk_cp_async16_zfill(uint32_t dst, const void *src, uint32_t bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}
#endif
#if TETRA_SKINNY_BAR
__device__ __forceinline__ void sk_mbar_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void sk_mbar_arrive(uint32_t bar) {
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.release.cta.shared::cta.b64 st, [%0];\n}" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void sk_mbar_wait(uint32_t bar, uint32_t parity) {
    asm volatile("{\n.reg .pred done;\n"
                 "SK_MBAR_WAIT:\n"
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra SK_MBAR_WAIT;\n}" ::"r"(bar), "r"(parity) : "memory");
}
#endif
#if TETRA_SKINNY_EPI
__device__ __forceinline__ void sk_cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
/* the exit barrier: this CTA's DSMEM reads have returned (their values are consumed), so no
 * release is needed, and a release would wait for the Y stores (MEMBAR.ALL.GPU) */
__device__ __forceinline__ void sk_cluster_sync_exit() {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.aligned;" ::: "memory");
}
__device__ __forceinline__ void sk_sts32f(uint32_t a, float v) {
    asm volatile("st.shared.f32 [%0], %1;" ::"r"(a), "f"(v) : "memory");
}
#endif

/* m64n64k16 RS (wgmma.cuh) with this thread's A fragment as four registers */
template <bool BF16>
__device__ __forceinline__ void sk_wgmma_rs(float *d, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                            uint64_t desc_b) {
    const uint32_t a[4] = {a0, a1, a2, a3};
    wgmma_rs_m64n64k16<BF16>(d, a, desc_b);
}

/* Both epilogues' walk over this thread's accumulators: accumulator j of n8 tile c of row
 * block at is the warp's row g + 8i, i = 2 at + j / 2, and token m = 8c + 2t + j % 2; rows
 * flagged in `bad` (bit i) give NaN. f(i, m, value). */
template <class F>
__device__ __forceinline__ void sk_for_each_acc(const float (&acc0)[32], const float (&acc1)[32], uint32_t bad,
                                                int t, F f) {
    const float nan = __int_as_float(0x7FC00000);
#pragma unroll
    for (int at = 0; at < 2; at++)
#pragma unroll
        for (int c = 0; c < 8; c++)
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int i = 2 * at + (j >> 1);
                const float a = at ? acc1[4 * c + j] : acc0[4 * c + j];
                f(i, 8 * c + 2 * t + (j & 1), (bad >> i) & 1u ? nan : a);
            }
}
#endif /* TETRA_SM90_DEVICE */

/*
 * The kernel. blockIdx.x: 256-row tile; blockIdx.y: split of K (contiguous segments);
 * blockIdx.z: batch. Warp w (warpgroup w / 4) owns rows 32w .. 32w + 31 of the tile.
 */
template <bool BF16>
__global__ void __launch_bounds__(SK_THREADS, 1) skinny_wgmma_kernel(const skinny_params p) {
#if TETRA_SM90_DEVICE
    extern __shared__ uint8_t smem_raw[];
    const uint32_t sb = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, wg = warp >> 2;
    const int g = lane >> 2, t = lane & 3;
    const int64_t l = blockIdx.z;
    const int split = blockIdx.y;
    const int64_t tile0 = (int64_t)blockIdx.x * SK_ROWS;
    const int64_t r0 = tile0 + warp * 32;
    const int seg_begin = (int)((int64_t)split * p.nseg / p.splits);
    const int seg_end = (int)((int64_t)(split + 1) * p.nseg / p.splits);
    const int nseg = seg_end - seg_begin;
    /* a warpgroup past the layout's rows (N padded to 128, the tile is 256) loads nothing:
     * its ring is zeroed and its outputs are past N */
    const bool active = tile0 + 128 * wg < p.rows_pad;

    /* ---- W ring (gemv.cu's interleaved-W issue: 4 x 512 contiguous bytes per warp
     * instruction, then the lane pair's 16 scale bytes into the lane's own slot) */
    const uint32_t ring = sb + SK_OFF_RING + (uint32_t)warp * (SK_STAGES * SK_STAGE_BYTES);
    const uint32_t ring_lane = ring + 16 * lane;
    const uint8_t *ilsrc = p.w + l * p.w_batch_bytes +
                           ((r0 / TETRA_IL_ROWS) * p.nseg + seg_begin) * (int64_t)TETRA_IL_BLOCK_BYTES + 16 * lane;
    const int il_soff = TETRA_IL_SCALE_OFF + 16 * (lane >> 1) - 16 * lane;
    auto issue = [&](int slot) {
        const uint32_t base = ring_lane + (uint32_t)slot * SK_STAGE_BYTES;
#pragma unroll
        for (int i = 0; i < 4; i++) cp_async16(base + i * 512, ilsrc + 512 * i);
        cp_async16(base + 2048, ilsrc + il_soff);
        ilsrc += TETRA_IL_BLOCK_BYTES;
    };
#if TETRA_SKINNY_XAHEAD == 2
    /* X of segment j + 1 rides W segment j's commit group, into raw slot j (the W slot's
     * index): thread tid's four 16-byte words tt at tid * 16 + tt * 4096 of the slot (a warp's
     * copy of one word is 512 contiguous bytes). Zeros (src-size 0) for tokens >= M and words
     * at or past K, exactly the values load_x gives. */
    const uint32_t xraw = sb + SK_OFF_XRAW + 16u * (uint32_t)tid;
    const int xtok_a = 8 * warp + (lane & 7), xq_a = lane >> 3;
    const bool xa_on = xtok_a < p.m;
    const uint8_t *xasrc = p.x + l * p.x_batch_bytes + (int64_t)(xa_on ? xtok_a : 0) * p.x_row_bytes +
                           (int64_t)(seg_begin + 1) * 256 + 16 * xq_a;
    int64_t xak = (int64_t)(seg_begin + 1) * SK_SEG_K + 8 * xq_a;
    auto issue_x = [&](int slot) {
#pragma unroll
        for (int tt = 0; tt < 4; tt++) {
            const bool on = xa_on && xak + 32 * tt < p.k;
            sk_cp_async16_zfill(xraw + (uint32_t)slot * SK_XRAW_STAGE_BYTES + tt * 4096,
                                on ? (const void *)(xasrc + 64 * tt) : (const void *)p.x, on ? 16u : 0u);
        }
        xasrc += 256;
        xak += SK_SEG_K;
    };
#pragma unroll
    for (int j = 0; j < SK_STAGES - 1; j++) {
        if (active && j < nseg) issue(j);
        if (j + 1 < nseg) issue_x(j);
        cp_async_commit();
    }
    if (!active) {
#else
    if (active) {
#pragma unroll
        for (int j = 0; j < SK_STAGES - 1; j++) {
            if (j < nseg) issue(j);
            cp_async_commit();
        }
    } else {
#endif
        /* zeros in every slot this lane reads (its own 16-byte slots) */
#pragma unroll
        for (int s = 0; s < SK_STAGES; s++)
#pragma unroll
            for (int i = 0; i < 5; i++) sts128(ring_lane + s * SK_STAGE_BYTES + i * 512, 0u, 0u, 0u, 0u);
    }

    /* ---- X staging: thread (warp w, lane) handles token 8w + lane % 8 and word q = lane / 8:
     * the four 16-byte X words at K 32tt + 8q (tt = 0..3) of the segment; from them the four
     * 16-byte chunks (step (q, a), half hi) = pairs f[tt][a + hi], tt = 0..3 */
    const int xtok = 8 * warp + (lane & 7), xq = lane >> 3;
    const bool xon = xtok < p.m;
    const uint8_t *xsrc = p.x + l * p.x_batch_bytes + (int64_t)(xon ? xtok : 0) * p.x_row_bytes +
                          (int64_t)seg_begin * 256 + 16 * xq;
    /* K of this thread's word tt = 0 in segment seg_begin; words at or past K stay zero */
    int64_t xk = (int64_t)seg_begin * SK_SEG_K + 8 * xq;
    uint4 xr[4];
    auto load_x = [&]() {
#pragma unroll
        for (int tt = 0; tt < 4; tt++)
            xr[tt] = xon && xk + 32 * tt < p.k ? __ldg((const uint4 *)(xsrc + 64 * tt)) : make_uint4(0u, 0u, 0u, 0u);
        xsrc += 256;
        xk += SK_SEG_K;
    };
    /* byte offset of this thread's chunks in a buffer: subtile q / 2, row xtok, chunk
     * c = 4 (q % 2) + 2 (a / 2) + hi, swizzled by xtok % 8 */
    const uint32_t xst_row = (uint32_t)(xq >> 1) * SK_XSUB_BYTES + (uint32_t)xtok * 128;
    const uint32_t xsw = (uint32_t)(xtok & 7), xc0 = 4u * (uint32_t)(xq & 1);
    auto store_x = [&](uint32_t buf) {
        uint32_t f[4][4];
#pragma unroll
        for (int tt = 0; tt < 4; tt++) {
            const uint4 v = xr[tt];
            f[tt][0] = prmt(v.x, v.z, 0x5410u); /* (x0, x4) */
            f[tt][1] = prmt(v.x, v.z, 0x7632u); /* (x1, x5) */
            f[tt][2] = prmt(v.y, v.w, 0x5410u); /* (x2, x6) */
            f[tt][3] = prmt(v.y, v.w, 0x7632u); /* (x3, x7) */
        }
        const uint32_t base = buf + xst_row;
#pragma unroll
        for (int j = 0; j < 4; j++) { /* j = a + hi: a = 2 (j / 2), hi = j % 2; chunk xc0 + j */
            sts128(base + (((xc0 + (uint32_t)j) ^ xsw) << 4), f[0][j], f[1][j], f[2][j], f[3][j]);
        }
    };
    const uint32_t xbase = sb + SK_OFF_X;
#if TETRA_SKINNY_BAR
    /* one phase per segment boundary: all 256 threads arrive once their X chunks for the next
     * segment are stored (and fenced for the async proxy); the initial __syncthreads below
     * publishes the init */
    const uint32_t xbar = sb + SK_OFF_MBAR;
    if (tid == 0) sk_mbar_init(xbar, SK_THREADS);
#endif
    /* segment seg_begin's X into buffer 0 */
    load_x();
    store_x(xbase);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();

    float acc0[32], acc1[32];
#pragma unroll
    for (int i = 0; i < 32; i++) acc0[i] = acc1[i] = 0.0f;

    int slot = 0;
    uint32_t xb_cur = 0, xb_next = 1; /* buffer indices */
    for (int s = 0; s < nseg; s++) {
        const bool more = s + 1 < nseg; /* CTA-uniform */
#if TETRA_SKINNY_XAHEAD == 2
        const int xslot = slot; /* X of segment s + 1 came with W segment s's group */
#else
        if (more) load_x();
#endif
        cp_async_wait<SK_STAGES - 2>(); /* this segment's W copies have landed */
        const uint32_t st = ring_lane + (uint32_t)slot * SK_STAGE_BYTES;
        uint4 wraw[4];
#pragma unroll
        for (int i = 0; i < 4; i++) wraw[i] = lds128(st + i * 512);
        /* the lane's 8 bytes of its pair's 16: rows 0, 1 in .x, rows 2, 3 in .y */
        const uint2 sv = lds64(ring + 2048 + 16 * lane + 8 * (lane & 1) + (uint32_t)slot * SK_STAGE_BYTES);
#if TETRA_SKINNY_XAHEAD == 2
        {
            const int refill = slot == 0 ? SK_STAGES - 1 : slot - 1;
            if (active && s + SK_STAGES - 1 < nseg) issue(refill);
            if (s + SK_STAGES < nseg) issue_x(refill); /* X of segment s + 4 */
            cp_async_commit();
        }
#else
        if (active) {
            const int refill = slot == 0 ? SK_STAGES - 1 : slot - 1;
            if (s + SK_STAGES - 1 < nseg) issue(refill);
            cp_async_commit();
        }
#endif
        slot = slot == SK_STAGES - 1 ? 0 : slot + 1;
        uint32_t s2[4][2];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const uint32_t sp = scale_pair2<BF16>(prmt((i < 2) ? sv.x : sv.y, 0u, (i & 1) ? 0x4342u : 0x4140u));
            s2[i][0] = half_bcast<0, true>(sp);
            s2[i][1] = half_bcast<1, true>(sp);
        }
        const uint32_t xb = xbase + xb_cur * SK_XBUF_BYTES;
#pragma unroll
        for (int q = 0; q < 4; q++) {
            uint32_t wd[4][4];
#pragma unroll
            for (int i = 0; i < 4; i++) dequant_word<BF16>(word_of(wraw[i], q), s2[i][q >> 1], wd[i]);
            /* steps (q, 0) and (q, 2): subtile q / 2, 32-byte step 2 (q % 2) + a / 2 */
            const uint32_t bq = xb + (uint32_t)(q >> 1) * SK_XSUB_BYTES + (uint32_t)(q & 1) * 64;
#if TETRA_SKINNY_BAR
            /* segment s's X buffer: every thread stored its chunks (segment s - 1, q = 1) */
            if (q == 0 && s > 0) sk_mbar_wait(xbar, (uint32_t)(s - 1) & 1u);
#endif
            wgmma_acc_fence<32>(acc0);
            wgmma_acc_fence<32>(acc1);
            wgmma_fence();
            sk_wgmma_rs<BF16>(acc0, wd[0][0], wd[1][0], wd[0][1], wd[1][1], wgmma_desc(bq));
            sk_wgmma_rs<BF16>(acc1, wd[2][0], wd[3][0], wd[2][1], wd[3][1], wgmma_desc(bq));
            sk_wgmma_rs<BF16>(acc0, wd[0][2], wd[1][2], wd[0][3], wd[1][3], wgmma_desc(bq + 32));
            sk_wgmma_rs<BF16>(acc1, wd[2][2], wd[3][2], wd[2][3], wd[3][3], wgmma_desc(bq + 32));
            wgmma_commit();
            wgmma_acc_fence<32>(acc0);
            wgmma_acc_fence<32>(acc1);
#if TETRA_SKINNY_WAIT == 2
            wgmma_wait<2>(); /* q - 2's group has completed: its fragments are free */
#else
            wgmma_wait<1>(); /* q - 1's group has completed: its fragments are free */
#endif
            wgmma_acc_fence<32>(acc0);
            wgmma_acc_fence<32>(acc1);
#if TETRA_SKINNY_WAIT == 2
            /* No branch between wgmma groups: with two groups in flight, ptxas serializes every
             * wgmma (C7513, nvcc 13.0) when the X store sits in an `if (more)` block. In the
             * last segment the store goes to the buffer of s - 2, which every thread has
             * retired and nobody reads again (stale but harmless values; the extra mbarrier
             * phase has no waiter). */
            const bool xst = true;
            (void)more; /* (unused where XAHEAD=2 and BAR=1) */
#else
            const bool xst = more;
#endif
#if TETRA_SKINNY_XAHEAD == 2
            if (q == 0 && xst) {
#pragma unroll
                for (int tt = 0; tt < 4; tt++)
                    xr[tt] = lds128(xraw + (uint32_t)xslot * SK_XRAW_STAGE_BYTES + tt * 4096);
            }
#endif
#if TETRA_SKINNY_BAR
            if (q == 1 && xst) {
                store_x(xbase + xb_next * SK_XBUF_BYTES);
                asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
                sk_mbar_arrive(xbar);
            }
#else
            if (q == 1 && xst) store_x(xbase + xb_next * SK_XBUF_BYTES);
#endif
        }
#if !TETRA_SKINNY_BAR
        if (more) {
            asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
            __syncthreads();
        }
#endif
        xb_cur = xb_next;
        xb_next = xb_next == SK_XBUF - 1 ? 0 : xb_next + 1;
    }
    cp_async_wait<0>();
    wgmma_wait<0>();
    wgmma_acc_fence<32>(acc0);
    wgmma_acc_fence<32>(acc1);

    /* ---- epilogue. Accumulator 4c + j of operand `at`: weight row 32 warp + 16 at + g +
     * 8 (j / 2) of the tile (row i = 2 at + j / 2 of the lane), token 8c + 2t + j % 2 */
    uint32_t bad = 0u; /* bit i: row g + 8i flagged */
    if (active) {
        const uint8_t *fl = p.w + l * p.w_batch_bytes + p.w_flags_off + r0 + g;
#pragma unroll
        for (int i = 0; i < 4; i++)
            if (__ldg(fl + 8 * i)) bad |= 1u << i;
    }
#if TETRA_SKINNY_EPI
    if (p.cluster) {
        /* Stage this warp's 32 rows x 64 tokens (NaN rows applied) over its own dead W ring
         * as [token][SK_EPI_LD] FP32 (9,216 of its 10,240 bytes; conflict-free: bank 8t + g +
         * const). Its lanes' last ring reads were consumed by the retired wgmmas; the warp's
         * copies have all landed (wait_group 0 above). */
        __syncwarp();
        sk_for_each_acc(acc0, acc1, bad, t, [&](int i, int m, float v) {
            sk_sts32f(ring + (uint32_t)(m * SK_EPI_LD + g + 8 * i) * 4u, v);
        });
        sk_cluster_sync(); /* every split's tile is staged */
        /* CTA rank `split` (cluster dims (1, S, 1) over grid.y = S) takes quads [lo, hi) of
         * the M x 64 quads (token m, 4 consecutive rows of the 256) and sums ranks 0..S-1 in
         * order, as skinny_splitk_reduce does, then the same epilogue */
        const int S = p.splits;
        const int Q = p.m * (SK_ROWS / 4);
        const float sc = tetra_gemm_scale(p.alpha, nullptr, p.gb);
        const int lo = (int)((int64_t)split * Q / S), hi = (int)((int64_t)(split + 1) * Q / S);
        const uint32_t rings = sb + SK_OFF_RING;
        for (int qi = lo + tid; qi < hi; qi += SK_THREADS) {
            const int m = qi >> 6, n4 = qi & 63, w = n4 >> 3, rq = 4 * (n4 & 7);
            const uint32_t a = rings + (uint32_t)w * (SK_STAGES * SK_STAGE_BYTES) + (uint32_t)(m * SK_EPI_LD + rq) * 4u;
            float4 x[SK_MAX_CLUSTER];
#pragma unroll
            for (int r = 0; r < SK_MAX_CLUSTER; r++)
                if (r < S) x[r] = ld_cluster_f4(mapa_shared(a, (uint32_t)r));
            float v[4] = {x[0].x, x[0].y, x[0].z, x[0].w};
#pragma unroll
            for (int r = 1; r < SK_MAX_CLUSTER; r++)
                if (r < S) {
                    v[0] = v[0] + x[r].x;
                    v[1] = v[1] + x[r].y;
                    v[2] = v[2] + x[r].z;
                    v[3] = v[3] + x[r].w;
                }
            const int64_t n0 = tile0 + 32 * w + rq;
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (n0 + e < p.n) sk_store_sc(p, l, m, n0 + e, v[e], sk_pow2<BF16>::v, sc);
        }
        __syncwarp();
        sk_cluster_sync_exit(); /* no CTA leaves while a peer may still read its tile */
        return;
    }
    /* the two-launch path (S > 16, or too few cluster slots): the reduce, a programmatic
     * dependent, may be scheduled now; its griddepcontrol.wait still waits for this grid */
    if (p.splits > 1) tetra_pdl_trigger();
#endif
    float *part = p.partial + ((l * p.splits + split) * SK_BT) * p.n;
#if TETRA_SKINNY_EPI
    const float sc1 = p.splits == 1 ? tetra_gemm_scale(p.alpha, nullptr, p.gb) : 0.0f;
#endif
    sk_for_each_acc(acc0, acc1, bad, t, [&](int i, int m, float v) {
        const int64_t n = r0 + g + 8 * i;
        if (n >= p.n || m >= p.m) return;
        if (p.splits == 1)
#if TETRA_SKINNY_EPI
            sk_store_sc(p, l, m, n, v, sk_pow2<BF16>::v, sc1);
#else
            sk_store(p, l, m, n, v, sk_pow2<BF16>::v);
#endif
        else
            part[(int64_t)m * p.n + n] = v;
    });
#else
    (void)p;
    __trap(); /* never launched: the launcher checks g_skinny_kernel_built */
#endif
}

/* Split-K second pass: one thread per (batch, m, n) sums the partials in split order
 * 0..S-1 (8 loads in flight), then the GEMV's epilogue. */
template <bool BF16>
__global__ void __launch_bounds__(256) skinny_splitk_reduce(const skinny_params p) {
#if TETRA_SKINNY_EPI
    tetra_pdl_wait(); /* launched as a programmatic dependent of the main kernel */
#endif
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t l = blockIdx.z;
    if (i >= (int64_t)p.m * p.n) return;
    const int m = (int)(i / p.n);
    const int64_t n = i % p.n;
    const int64_t split_stride = (int64_t)SK_BT * p.n;
    const float *src = p.partial + l * p.splits * split_stride + (int64_t)m * p.n + n;
    const float v = tetra_splitk_sum(src, split_stride, p.splits);
    sk_store(p, l, m, n, v, sk_pow2<BF16>::v);
}

/* 1 if this binary holds the real sm_90a kernel for `device` (read once per device). */
int skinny_built(int device) { return tetra_device_flag<&g_skinny_kernel_built>(device); }

/* The split count: a function of N, K, L and the SM count only (never M). One CTA per SM;
 * cost in microseconds = waves x (segments per split x SEG_US + CTA_US) + the reduce's
 * launch and partial traffic (sized for 64 rows) where S > 1; the cheapest S wins (ties:
 * fewer splits). SEG_US: a 256 x 64 x 128 CTA-segment at 773 TFLOP/s over 132 SMs. */
int skinny_auto_splits(int64_t nseg, int64_t tiles, int64_t batch, int sms) {
    const double SEG_US = 0.72, CTA_US = 1.0, REDUCE_US = 2.0, BYTES_PER_US = 6.0e6;
    int best = 1;
    double best_cost = 0.0;
    for (int64_t s = 1; s <= nseg && s <= SK_MAX_SPLITS; s++) {
        const int64_t ctas = tiles * batch * s;
        const int64_t waves = (ctas + sms - 1) / sms;
        const int64_t segs = (nseg + s - 1) / s;
        double cost = (double)waves * ((double)segs * SEG_US + CTA_US);
        if (s > 1) cost += REDUCE_US + (double)s * (double)tiles * SK_ROWS * (double)batch * SK_BT * 8.0 / BYTES_PER_US;
        if (s == 1 || cost < best_cost) {
            best_cost = cost;
            best = (int)s;
        }
    }
    return best;
}

#if TETRA_SKINNY_EPI
/* How many clusters (1, s, 1) of the kernel can be resident at once on `device` (s = 2..16;
 * 0 if none or the query fails; once per device and s; the shared-memory attribute must be
 * set before the query). */
template <bool BF16> int skinny_cluster_slots(int device, int s) {
    static std::atomic<unsigned long long> checked[SK_MAX_CLUSTER + 1];
    static int slots[SK_MAX_CLUSTER + 1][64];
    if (device < 0 || device >= 64 || s < 2 || s > SK_MAX_CLUSTER) return 0;
    if (tetra_done_on(checked[s], device)) return slots[s][device];
    int n = 0;
    if (cudaFuncSetAttribute(skinny_wgmma_kernel<BF16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)SK_SMEM_BYTES) == cudaSuccess &&
        (s <= 8 || cudaFuncSetAttribute(skinny_wgmma_kernel<BF16>, cudaFuncAttributeNonPortableClusterSizeAllowed,
                                        1) == cudaSuccess)) {
        cudaLaunchAttribute attr[1];
        const cudaLaunchConfig_t cfg =
            tetra_cluster_config(attr, dim3(1, (unsigned)s, 1), dim3(1, (unsigned)s, 1), dim3(SK_THREADS), SK_SMEM_BYTES, 0);
        if (cudaOccupancyMaxActiveClusters(&n, skinny_wgmma_kernel<BF16>, &cfg) != cudaSuccess) n = 0;
    }
    if (n <= 0) {
        (void)cudaGetLastError(); /* a failed query only means: the two-launch path */
        n = 0;
    }
    slots[s][device] = n;
    tetra_mark_done(checked[s], device);
    return n;
}
#endif

template <bool BF16> tetra_status launch_skinny(skinny_params &prm, const tetra_gemm_problem *p) {
    cudaStream_t stream = TETRA_STREAM(p);
    const int64_t tiles = (p->n + SK_ROWS - 1) / SK_ROWS;
    int64_t splits = skinny_auto_splits(prm.nseg, tiles, p->batch, p->ctx->sms);
    if (p->splits) {
        if (p->splits > prm.nseg || p->splits > SK_MAX_SPLITS)
            return tetra_fail(TETRA_ERR_UNSUPPORTED,
                              "skinny GEMM: opts.splits = %d; K = %lld allows at most %d", p->splits,
                              (long long)p->k, prm.nseg < SK_MAX_SPLITS ? prm.nseg : (int)SK_MAX_SPLITS);
        splits = p->splits;
    }
    prm.partial = nullptr;
#if TETRA_SKINNY_EPI
    /* the cluster reduce where S <= 16 and the clusters take no more waves than the plain grid
     * (a GPC holds only whole clusters: at 1 CTA per SM, 8- or 16-CTA clusters may not fill
     * every SM) */
    prm.cluster = 0;
    if (splits > 1 && splits <= SK_MAX_CLUSTER) {
        const int64_t slots = skinny_cluster_slots<BF16>(p->ctx->device, (int)splits);
        const int64_t clusters = tiles * p->batch, sms = p->ctx->sms;
        prm.cluster = slots > 0 && (clusters + slots - 1) / slots <= (clusters * splits + sms - 1) / sms;
    }
    if (splits > 1 && !prm.cluster) {
#else
    if (splits > 1) {
#endif
        void *ws = nullptr;
        const size_t bytes = (size_t)splits * (size_t)p->batch * SK_BT * (size_t)p->n * sizeof(float);
        if (tetra_context_workspace(p->ctx, bytes, &ws) != TETRA_OK) {
            tetra_clear_error(); /* a fixed user workspace too small: run unsplit */
            splits = 1;
        } else {
            prm.partial = (float *)ws;
        }
    }
    prm.splits = (int)splits;
    {
        static std::atomic<unsigned long long> opted_in{0};
        if (!tetra_done_on(opted_in, p->ctx->device)) {
            TETRA_CUDA_TRY(cudaFuncSetAttribute(skinny_wgmma_kernel<BF16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                (int)SK_SMEM_BYTES));
            tetra_mark_done(opted_in, p->ctx->device);
        }
    }
    dim3 grid((unsigned)tiles, (unsigned)splits, (unsigned)p->batch);
#if TETRA_SKINNY_EPI
    if (prm.cluster) { /* one launch: clusters (1, S, 1) reduce through DSMEM */
        cudaLaunchAttribute attr[1];
        const cudaLaunchConfig_t cfg =
            tetra_cluster_config(attr, dim3(1, (unsigned)splits, 1), grid, dim3(SK_THREADS), SK_SMEM_BYTES, stream);
        TETRA_CUDA_TRY(cudaLaunchKernelEx(&cfg, skinny_wgmma_kernel<BF16>, prm));
        TETRA_LAUNCH_CHECK();
        return TETRA_OK;
    }
#endif
    skinny_wgmma_kernel<BF16><<<grid, SK_THREADS, SK_SMEM_BYTES, stream>>>(prm);
    TETRA_LAUNCH_CHECK();
    if (splits > 1) {
        const int64_t outs = (int64_t)p->m * p->n;
        dim3 rgrid((unsigned)((outs + 255) / 256), 1, (unsigned)p->batch);
#if TETRA_SKINNY_EPI
        /* a programmatic dependent (sm_90a code only reaches here: skinny_built) */
        TETRA_CUDA_TRY(tetra_launch_dependent(skinny_splitk_reduce<BF16>, rgrid, dim3(256), stream, prm));
#else
        skinny_splitk_reduce<BF16><<<rgrid, 256, 0, stream>>>(prm);
#endif
        TETRA_LAUNCH_CHECK();
    }
    return TETRA_OK;
}

} /* namespace */

extern "C" tetra_status tetra_launch_gemm_skinny(const tetra_gemm_problem *p) {
    const tetra_operand &a = p->a, &b = p->b;
    if (p->ctx->sm_major != 9 || !skinny_built(p->ctx->device))
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "skinny GEMM: needs an sm_90 device and a binary with sm_90a code");
    if (b.dtype != TETRA_DTYPE_NVFP4 || b.scale_layout != TETRA_SCALE_INTERLEAVED_32X128)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "skinny GEMM: b must be prepared weights (TETRA_SCALE_INTERLEAVED_32X128, "
                          "tetra_convert_weights); a standard-layout b goes to the other paths");
    if (p->m < 1 || p->m > SK_BT)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "skinny GEMM: M = %lld; this path takes 1..64 rows",
                          (long long)p->m);
    if (a.dtype == TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "skinny GEMM: a is NVFP4; this path takes BF16/FP16 a only");
    if (a.dtype != TETRA_DTYPE_BF16 && a.dtype != TETRA_DTYPE_FP16)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "skinny GEMM: a must be BF16 or FP16");
    if (p->d_dtype != TETRA_DTYPE_FP32 && p->d_dtype != TETRA_DTYPE_FP16 && p->d_dtype != TETRA_DTYPE_BF16)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "skinny GEMM: d must be FP32, FP16 or BF16");
    if (!tetra_aligned(a.data, 16) || a.ld % 8 || a.batch_stride % 8)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "skinny GEMM: a must be 16-byte aligned with ld and batch_stride multiples of 8 "
                          "(ld %lld, batch_stride %lld)", (long long)a.ld, (long long)a.batch_stride);
    if (p->k > ((int64_t)1 << 30) || p->n > ((int64_t)1 << 31) - 2 * SK_ROWS)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "skinny GEMM: K = %lld or N = %lld is too large",
                          (long long)p->k, (long long)p->n);
    if (p->tile_m && p->tile_m != SK_BT)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "skinny GEMM: opts.tile_m = %d; this path has 64 tokens per CTA",
                          p->tile_m);
    if (p->batch > 65535)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "skinny GEMM: batch %lld is too large", (long long)p->batch);

    skinny_params prm;
    prm.w = (const uint8_t *)b.data;
    prm.w_batch_bytes = b.batch_stride / 2; /* interleaved: twice the bytes of one batch */
    prm.w_flags_off = tetra_il_flags_offset(p->n, p->k);
    prm.rows_pad = (p->n + TETRA_IL_TILE_ROWS - 1) / TETRA_IL_TILE_ROWS * TETRA_IL_TILE_ROWS;
    prm.x = (const uint8_t *)a.data;
    prm.x_row_bytes = a.ld * 2;
    prm.x_batch_bytes = a.batch_stride * 2;
    prm.y = p->d;
    prm.y_ld = p->ldd;
    prm.y_batch = p->d_batch_stride;
    prm.y_dtype = p->d_dtype;
    prm.bias = p->bias;
    prm.bias_dtype = p->bias_dtype;
    prm.alpha = p->alpha;
    prm.gb = b.gscale_dev;
    prm.partial = nullptr;
    prm.splits = 1;
#if TETRA_SKINNY_EPI
    prm.cluster = 0;
#endif
    prm.m = (int)p->m;
    prm.nseg = (int)tetra_il_segments(p->k);
    prm.n = p->n;
    prm.k = p->k;
    if (a.dtype == TETRA_DTYPE_BF16) return launch_skinny<true>(prm, p);
    return launch_skinny<false>(prm, p);
}
