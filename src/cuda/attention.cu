/* attention.cu - attention forward, O = softmax(scale * Q K^T + causal mask) V.
 *
 * Two kernels:
 *   attention_fwd_reference  path 1: one query row per CTA, FP32, exact two-pass softmax
 *                            (max, then exp/sum/PV). Any alignment, any stride. A checker
 *                            for shapes too large for the CPU oracle.
 *   attention_fwd_mma        path 2: FlashAttention-2 structure for sm_80+ (also the
 *                            sm_120 consumer-Blackwell path): a 128-row Q tile per CTA, 4
 *                            warps of 32 rows, K/V tiles of 64 keys staged with cp.async
 *                            into XOR-swizzled shared memory (one K/V stage, 64 KB at
 *                            D=128, or two where two such CTAs fit an SM), ldmatrix
 *                            (+.trans for V), mma.sync m16n8k16 with FP32 accumulators,
 *                            online softmax in the log2 domain (log2(e) folded into the
 *                            scale), P rounded to the input dtype in registers.
 * Path 3 (Hopper wgmma) is in attention_sm90.cu. See docs/notes/attention.md. */
#include <math.h>
#include <stdint.h>


#include "attention_epilogue.cuh"
#include "common.cuh"
#include "launch.h"

namespace {

constexpr int kBlockM = 128; /* query rows per CTA: 4 warps x 32 rows */
constexpr int kBlockN = 64;  /* keys per K/V tile */
constexpr int kWarps = 4;
constexpr int kSmemAlign = 256; /* tile base alignment in bytes, see ldsm_base */
constexpr int kThreads = kWarps * TETRA_WARP;
constexpr int kRefThreads = 128; /* reference kernel: >= the largest head_dim */

struct AttnParams {
    const uint16_t *q, *k, *v;
    uint16_t *o;
    float *lse;
    int64_t qs[3], ks[3], vs[3], os[3]; /* element strides of B, N, H */
    int batch, nq, nk, hq, group;        /* group = heads_q / heads_kv */
    int causal_offset;                   /* nk - nq: query i sees keys j <= i + offset */
    int num_qblocks;
    float scale;                         /* natural-log domain (reference kernel) */
    float scale_log2;                    /* |scale| * log2(e) (mma kernel) */
    int negate_q;                        /* scale < 0: the mma kernel negates Q in smem */
    tetra_dtype dtype;
};

/* ------------------------------------------------------------ PTX wrappers (sm_80+) */

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* 16-byte global->shared copy; when !valid nothing is read and the 16 bytes are zeroed. */
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void *src, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(valid ? 16 : 0)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ldsm_x4(uint32_t addr, uint32_t r[4]) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_trans(uint32_t addr, uint32_t r[4]) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}


/* ------------------------------------------------------------ shared-memory tiles */

/* A tile is [rows][D] 16-bit elements in 16-byte chunks; chunk c of row r is stored at
 * chunk c ^ (r & 7). ldmatrix reads 8 rows at one logical chunk: the XOR spreads them
 * over the 8 distinct 16-byte bank groups of a 128-byte period (rows are 128 or 256
 * bytes, multiples of the period, so without it all 8 hit the same banks). */
template <int D> __device__ __forceinline__ int swizzle(int row, int chunk) {
    return row * D + ((chunk ^ (row & 7)) << 3);
}

/* ldmatrix address of this lane for logical chunk 2 * kstep + chunk_lo of tile row
 * `row`, as ldsm_base(...) ^ (kstep << 5): chunk (2k + lo) ^ (row & 7) = 2k ^ (lo ^ (row & 7))
 * puts k in byte-address bits 5-7 alone, which the row base (a multiple of 256 bytes at
 * D=128; of 128 bytes at D=64, where k < 4 touches only bits 5-6) leaves zero on a
 * 256-byte aligned tile. One XOR per ldmatrix instead of one register per k step: with
 * 2 x 64 accumulators live at D=128, those registers were spilled. */
template <int D> __device__ __forceinline__ uint32_t ldsm_base(const uint16_t *tile, int row, int chunk_lo) {
    return smem_addr(tile) + (uint32_t)(row * D * 2) + (uint32_t)((chunk_lo ^ (row & 7)) << 4);
}

/* Stage rows row0..row0+ROWS-1 of one head into a tile; rows >= rows_valid are
 * zero-filled so out-of-range queries and keys contribute exact zeros (keys are also
 * masked). Thread t copies chunk t % (D/8) of rows t / (D/8) + i * kRowsPerPass. The
 * source pointer advances by one 64-bit add per pass: written as products, ptxas hoists
 * all kPerThread row offsets of K and of V out of the key loop (32 registers at D=128)
 * and spills them. CHECK = false (a tile wholly inside rows_valid) drops the per-copy row
 * test and pointer select, ~3 instructions per cp.async. */
template <int D, int ROWS, bool CHECK = true>
__device__ __forceinline__ void load_tile(uint16_t *tile, const uint16_t *head_base,
                                          int64_t row_stride, int row0, int rows_valid) {
    constexpr int kChunks = D / 8;
    constexpr int kRowsPerPass = kThreads / kChunks;
    constexpr int kPerThread = ROWS / kRowsPerPass;
    static_assert(kThreads % kChunks == 0 && ROWS % kRowsPerPass == 0, "the tile must split evenly");
    static_assert(kRowsPerPass % 8 == 0, "every pass must keep the row's swizzle phase");
    const int r0 = threadIdx.x / kChunks, c = threadIdx.x % kChunks;
    const uint16_t *src = head_base + (int64_t)(row0 + r0) * row_stride + c * 8;
    const int64_t step = (int64_t)kRowsPerPass * row_stride;
    const uint32_t dst = smem_addr(tile + swizzle<D>(r0, c));
#pragma unroll
    for (int i = 0; i < kPerThread; i++) {
        const bool valid = !CHECK || row0 + r0 + i * kRowsPerPass < rows_valid;
        /* (r0 + i * kRowsPerPass) & 7 == r0 & 7: the swizzle is the same for every pass */
        cp_async_16(dst + i * kRowsPerPass * D * (int)sizeof(uint16_t), valid ? src : head_base, valid);
        src += step;
    }
}

/* The K or V tile of keys key0..key0+kBlockN-1: interior tiles without the row test. */
template <int D>
__device__ __forceinline__ void load_kv_tile(uint16_t *tile, const uint16_t *head_base, int64_t row_stride,
                                             int key0, int nk) {
    if (key0 + kBlockN <= nk) load_tile<D, kBlockN, false>(tile, head_base, row_stride, key0, nk);
    else load_tile<D, kBlockN, true>(tile, head_base, row_stride, key0, nk);
}

/* ------------------------------------------------------------ the mma.sync kernel */

/* 2^x with the hardware approximation, subnormal results flushed to zero. exp2f without
 * --use_fast_math wraps the same MUFU.EX2 in a range test and two predicated multiplies
 * (for subnormal results): 3 extra instructions per score, ~200 per warp and key block.
 * Here the argument is <= 0, and a probability below 2^-126 of the row maximum changes
 * no output. */
__device__ __forceinline__ float exp2_ftz(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* Keys past Nk (and, causal, past the diagonal) of one 16x64 score tile set to -inf. MASK
 * is a template argument so that interior blocks carry no predicate at all. */
template <bool CAUSAL, bool MASK>
__device__ __forceinline__ void mask_tile(float s[8][4], const AttnParams &p, int row0, int key0) {
    if (!MASK) return;
    const int t4 = threadIdx.x & 3;
#pragma unroll
    for (int nt = 0; nt < 8; nt++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int row = row0 + (e >= 2 ? 8 : 0);
            const int key = key0 + nt * 8 + 2 * t4 + (e & 1);
            bool visible = key < p.nk;
            if (CAUSAL) visible = visible && key <= row + p.causal_offset;
            if (!visible) s[nt][e] = -INFINITY;
        }
}

/* Online softmax of one 16x64 score tile held as 8 n-tiles of mma C fragments (this
 * thread: rows g and g+8, columns 2*t4 and 2*t4+1 of each n-tile). Scores become
 * probabilities in place; m (log2 domain) and l (this thread's partial row sums) are
 * updated, and alpha returns the factor the caller rescales the O accumulators by (masking:
 * mask_tile). The scale (scale_log2 > 0: a negative scale was moved into Q, see
 * the kernel) is applied inside the exponent's FFMA, s * c - max * c, after the maximum
 * of the raw scores, which for c > 0 is the maximum of the scaled ones. */
template <int D, bool CAUSAL, bool MASK>
__device__ __forceinline__ void softmax_tile(float s[8][4], float m[2], float l[2], float alpha[2],
                                             const AttnParams &p, int row0, int key0) {
    const float c = p.scale_log2;
    mask_tile<CAUSAL, MASK>(s, p, row0, key0);
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float mx = -INFINITY;
#pragma unroll
        for (int nt = 0; nt < 8; nt++) mx = fmaxf(mx, fmaxf(s[nt][2 * h], s[nt][2 * h + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        mx = fmaxf(m[h], mx * c); /* c > 0: -inf stays -inf */
        /* A row that has seen no visible key keeps m = -inf; subtract 0 instead so that
         * exp2(-inf - -inf) never makes a NaN: its p and alpha come out 0. */
        const float base = mx == -INFINITY ? 0.0f : mx;
        alpha[h] = exp2_ftz(m[h] - base);
        float sum = 0.0f;
        m[h] = mx;
#pragma unroll
        for (int nt = 0; nt < 8; nt++) {
            s[nt][2 * h] = exp2_ftz(fmaf(s[nt][2 * h], c, -base));
            s[nt][2 * h + 1] = exp2_ftz(fmaf(s[nt][2 * h + 1], c, -base));
            sum += s[nt][2 * h] + s[nt][2 * h + 1];
        }
        l[h] = l[h] * alpha[h] + sum;
    }
}

/* O *= alpha per row. Once the row maxima settle, alpha is exactly 1 for all 16 rows of a
 * tile in most key blocks: a warp-uniform branch then skips D/2 multiplies by 1 (same
 * result). Called after both row tiles' softmax, so that the branch does not split the
 * two independent softmax chains, which the scheduler interleaves. */
template <int D> __device__ __forceinline__ void rescale_o(float o[D / 8][4], const float alpha[2]) {
    if (__all_sync(0xffffffffu, alpha[0] == 1.0f && alpha[1] == 1.0f)) return;
#pragma unroll
    for (int dt = 0; dt < D / 8; dt++) {
        o[dt][0] *= alpha[0];
        o[dt][1] *= alpha[0];
        o[dt][2] *= alpha[1];
        o[dt][3] *= alpha[1];
    }
}

/* TETRA_ATTN_PV_SPLIT (compile time; docs/notes/attention.md, rung 4) picks the order of the
 * softmax and P V work in a key block; the FP32 operations per element are the same in both
 * orders (outputs bit-identical), only the issue order across independent work changes.
 *   1 (default): softmax of row tile 0, then P V of row tile 0 interleaved with the
 *      exponentials of row tile 1, then P V of row tile 1. V fragments are loaded twice in
 *      the source (ptxas merges the two ldmatrix of each fragment: no shared-memory store
 *      between). Session 8, run 34: 3-6% faster than order 0 against cuDNN in the same runs.
 *   0: softmax of both row tiles, O rescale, then P V of both (one V fragment, two MMAs):
 *      the previous rung, kept to measure against.
 * (An order 2, exponentials of slice kk + 1 issued before the MMAs of slice kk for both
 * tiles, measured +1.6-2.5% in run 33 and was dropped.)
 * The row maximum is the only part of the softmax that needs all 64 keys: once it is
 * known, each 16-key slice's exponentials, sums and P V are independent of the others. */
#ifndef TETRA_ATTN_PV_SPLIT
#define TETRA_ATTN_PV_SPLIT 1
#endif
static_assert(TETRA_ATTN_PV_SPLIT == 0 || TETRA_ATTN_PV_SPLIT == 1, "TETRA_ATTN_PV_SPLIT is 0 or 1");
#if TETRA_ATTN_PV_SPLIT == 1

/* softmax_tile's first half: mask, row maximum, alpha and the new m of one 16x64 score
 * tile; base returns the exponent's offset (the new m, or 0 for a row with no visible key). */
template <bool CAUSAL, bool MASK>
__device__ __forceinline__ void softmax_max(float s[8][4], float m[2], float alpha[2], float base[2],
                                            const AttnParams &p, int row0, int key0) {
    const float c = p.scale_log2;
    mask_tile<CAUSAL, MASK>(s, p, row0, key0);
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float mx = -INFINITY;
#pragma unroll
        for (int nt = 0; nt < 8; nt++) mx = fmaxf(mx, fmaxf(s[nt][2 * h], s[nt][2 * h + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        mx = fmaxf(m[h], mx * c);
        base[h] = mx == -INFINITY ? 0.0f : mx;
        alpha[h] = exp2_ftz(m[h] - base[h]);
        m[h] = mx;
    }
}

/* softmax_tile's second half for the 16-key slice kk (n-tiles 2kk, 2kk+1): probabilities in
 * place, added to this thread's partial row sums in softmax_tile's order (n-tile by n-tile). */
__device__ __forceinline__ void softmax_exp_slice(float s[8][4], int kk, const float base[2], float sum[2],
                                                  float c) {
#pragma unroll
    for (int nt = 2 * kk; nt < 2 * kk + 2; nt++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            s[nt][2 * h] = exp2_ftz(fmaf(s[nt][2 * h], c, -base[h]));
            s[nt][2 * h + 1] = exp2_ftz(fmaf(s[nt][2 * h + 1], c, -base[h]));
            sum[h] += s[nt][2 * h] + s[nt][2 * h + 1];
        }
}

/* P V of the 16-key slice kk for row tiles MT_BEGIN..MT_END-1: each V fragment feeds
 * 2 (MT_END - MT_BEGIN) MMAs. v_addr is the lane's ldmatrix base of this stage's V tile. */
template <int D, bool BF16, int MT_BEGIN, int MT_END>
__device__ __forceinline__ void pv_slice(float o[2][D / 8][4], const float s[2][8][4], int kk, uint32_t v_addr) {
    uint32_t pa[2][4];
#pragma unroll
    for (int mt = MT_BEGIN; mt < MT_END; mt++) {
        pa[mt][0] = tetra_pack2<BF16>(s[mt][2 * kk][0], s[mt][2 * kk][1]);
        pa[mt][1] = tetra_pack2<BF16>(s[mt][2 * kk][2], s[mt][2 * kk][3]);
        pa[mt][2] = tetra_pack2<BF16>(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
        pa[mt][3] = tetra_pack2<BF16>(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
    }
#pragma unroll
    for (int dp = 0; dp < D / 16; dp++) {
        uint32_t bv[4];
        ldsm_x4_trans((v_addr ^ (dp << 5)) + kk * 16 * D * 2, bv);
#pragma unroll
        for (int mt = MT_BEGIN; mt < MT_END; mt++) {
            mma_16816<BF16>(o[mt][2 * dp], pa[mt], bv[0], bv[1]);
            mma_16816<BF16>(o[mt][2 * dp + 1], pa[mt], bv[2], bv[3]);
        }
    }
}
#endif

/* One CTA: kBlockM = 128 query rows of one (batch, head); 4 warps of 32 rows (two m16
 * row tiles each), so every K or V fragment a warp loads with ldmatrix feeds two MMAs
 * (one per row tile). Q stays in shared memory and is re-read per key block: two more
 * ldmatrix per 16 MMAs, but its 64 registers of fragments would not fit beside the
 * 2 x 64 O accumulators at D=128. */
template <int D, bool BF16, bool CAUSAL, int STAGES>
__global__ void __launch_bounds__(kThreads, 2) attention_fwd_mma(const AttnParams p) {
    static_assert(STAGES == 1 || STAGES == 2, "one or two K/V stages");
    extern __shared__ __align__(128) uint16_t smem_raw[];
    /* Tiles start 256-byte aligned (kSmemAlign of slack is allocated), so that the
     * ldmatrix addresses below can step the swizzled chunk with one XOR. */
    uint16_t *smem = smem_raw + ((kSmemAlign - (smem_addr(smem_raw) & (kSmemAlign - 1))) & (kSmemAlign - 1)) / 2;
    uint16_t *sQ = smem, *sK = smem + kBlockM * D, *sV = sK + STAGES * kBlockN * D;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int g = lane >> 2, t4 = lane & 3;

    /* Causal: heaviest first, CTA i takes query block (num_qblocks - 1 - i / (B*Hq)), so all
     * heads' most expensive blocks are dispatched first (LPT order); heads vary fastest.
     * Non-causal (every block costs the same): query blocks vary fastest, so the CTAs
     * resident at one time share one or two heads' K/V in L2 instead of streaming all
     * B*Hq heads' (128 MB at N = 8192, B*Hq = 32, D = 128: more than the 50 MB L2). */
    const int64_t bh_count = (int64_t)p.batch * p.hq;
    const int qb = CAUSAL ? p.num_qblocks - 1 - (int)(blockIdx.x / bh_count) : (int)(blockIdx.x % p.num_qblocks);
    const int bh = CAUSAL ? (int)(blockIdx.x % bh_count) : (int)(blockIdx.x / p.num_qblocks);
    const int b = bh / p.hq, h = bh % p.hq, hk = h / p.group;
    const int q0 = qb * kBlockM;

    const uint16_t *qbase = p.q + b * p.qs[0] + h * p.qs[2];
    const uint16_t *kbase = p.k + b * p.ks[0] + hk * p.ks[2];
    const uint16_t *vbase = p.v + b * p.vs[0] + hk * p.vs[2];

    /* Key blocks the CTA visits: up to the last key its last real row (< nq) sees. */
    int nkb = (p.nk + kBlockN - 1) / kBlockN;
    if (CAUSAL) {
        const int last_key = min(q0 + kBlockM, p.nq) - 1 + p.causal_offset;
        nkb = last_key < 0 ? 0 : min(nkb, last_key / kBlockN + 1);
    }
    /* Per warp: the mask predicate runs only from warp_first_masked on. Key blocks wholly
     * inside nk and wholly visible to the warp's first row (hence to all 32 of its rows)
     * need none: with 32-row warps a diagonal touches 1-2 of them, not the CTA's 3. */
    const int wrow0 = q0 + warp * 32;
    int warp_first_masked = p.nk / kBlockN;
    if (CAUSAL) {
        const int lim = wrow0 + p.causal_offset; /* last key the warp's first row sees */
        warp_first_masked = min(warp_first_masked, lim < kBlockN - 1 ? 0 : (lim + 1) / kBlockN);
    }

    /* Pipeline, STAGES = 1: K and V have one buffer each; K(j+1) loads during softmax and
     * P V of block j, V(j+1) during Q K^T of block j+1. Exactly one commit per stage (empty
     * ones too), so wait_group<1> always means "all but the newest group have landed".
     * Four barriers per key block. STAGES = 2: K(j+1) and V(j+1) load into the other
     * buffers during all of block j, one group per block; one barrier per block (it both
     * publishes block j's tiles and retires block j-1's buffers, which j+1 overwrites). */
    load_tile<D, kBlockM>(sQ, qbase, p.qs[1], q0, p.nq);
    if (nkb > 0) load_tile<D, kBlockN>(sK, kbase, p.ks[1], 0, p.nk);
    if (STAGES == 1) cp_async_commit();
    if (nkb > 0) load_tile<D, kBlockN>(sV, vbase, p.vs[1], 0, p.nk);
    cp_async_commit();
    if (p.negate_q) {
        /* scale < 0: scale * (q . k) = |scale| * ((-q) . k) exactly (negation is exact and
         * round-to-nearest is sign-symmetric), so the softmax can take the maximum of raw
         * scores with a positive factor. Each warp negates the 32 Q rows only it reads;
         * the barrier at the top of the key loop orders this before any ldmatrix. */
        cp_async_wait<STAGES == 1 ? 1 : 0>(); /* Q (and K(0)) */
        __syncthreads();
        uint4 *rows = reinterpret_cast<uint4 *>(sQ + warp * 32 * D);
#pragma unroll 4
        for (int i = lane; i < 32 * D / 8; i += TETRA_WARP) {
            uint4 x = rows[i];
            x.x ^= 0x80008000u;
            x.y ^= 0x80008000u;
            x.z ^= 0x80008000u;
            x.w ^= 0x80008000u;
            rows[i] = x;
        }
    }

    float o[2][D / 8][4];
#pragma unroll
    for (int mt = 0; mt < 2; mt++)
#pragma unroll
        for (int dt = 0; dt < D / 8; dt++) o[mt][dt][0] = o[mt][dt][1] = o[mt][dt][2] = o[mt][dt][3] = 0.0f;
    float m[2][2] = {{-INFINITY, -INFINITY}, {-INFINITY, -INFINITY}};
    float l[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    const int row0 = wrow0 + g; /* this thread's rows: row0 + 16 mt + {0, 8} */
    /* ldmatrix lanes: Q (A operand) rows 0-15 x chunk halves by lane / 16; K (non-trans B)
     * rows lane % 8 + 8 (lane / 16), chunk half (lane / 8) % 2; V (trans B) rows
     * lane % 8 + 8 ((lane / 8) % 2), chunk half lane / 16. */
    const uint32_t q_ldsm = ldsm_base<D>(sQ, warp * 32 + (lane & 15), lane >> 4);
    const uint32_t k_ldsm = ldsm_base<D>(sK, (lane & 7) + ((lane >> 4) << 3), (lane >> 3) & 1);
    const uint32_t v_ldsm = ldsm_base<D>(sV, (lane & 7) + (((lane >> 3) & 1) << 3), lane >> 4);

    for (int kb = 0; kb < nkb; kb++) {
        const int key0 = kb * kBlockN;
        /* this block's K and V buffers: byte offsets that keep the 256-byte alignment */
        const uint32_t stage_bytes = STAGES == 1 ? 0u : (uint32_t)(kb & 1) * (kBlockN * D * 2);
        if (STAGES == 1) {
            cp_async_wait<1>(); /* Q and K(kb) */
            __syncthreads();
        } else {
            cp_async_wait<0>(); /* Q, K(kb) and V(kb) */
            __syncthreads();    /* ... for every thread; and every warp is done with kb - 1 */
            if (kb + 1 < nkb) {
                const int nxt = (kb + 1) & 1;
                load_kv_tile<D>(sK + nxt * kBlockN * D, kbase, p.ks[1], key0 + kBlockN, p.nk);
                load_kv_tile<D>(sV + nxt * kBlockN * D, vbase, p.vs[1], key0 + kBlockN, p.nk);
            }
            cp_async_commit();
        }

        float s[2][8][4];
#pragma unroll
        for (int mt = 0; mt < 2; mt++)
#pragma unroll
            for (int nt = 0; nt < 8; nt++) s[mt][nt][0] = s[mt][nt][1] = s[mt][nt][2] = s[mt][nt][3] = 0.0f;
#pragma unroll
        for (int ks = 0; ks < D / 16; ks++) {
            uint32_t qa[2][4];
#pragma unroll
            for (int mt = 0; mt < 2; mt++)
                ldsm_x4((q_ldsm ^ (ks << 5)) + mt * 16 * D * 2, qa[mt]);
#pragma unroll
            for (int np = 0; np < 4; np++) {
                uint32_t bk[4]; /* n-tiles 2np and 2np+1, k halves 0 and 1 */
                ldsm_x4(((k_ldsm + stage_bytes) ^ (ks << 5)) + np * 16 * D * 2, bk);
#pragma unroll
                for (int mt = 0; mt < 2; mt++) { /* one K fragment, two MMAs */
                    mma_16816<BF16>(s[mt][2 * np], qa[mt], bk[0], bk[1]);
                    mma_16816<BF16>(s[mt][2 * np + 1], qa[mt], bk[2], bk[3]);
                }
            }
        }
        if (STAGES == 1) {
            __syncthreads(); /* every warp is done with sK */
            if (kb + 1 < nkb) load_kv_tile<D>(sK, kbase, p.ks[1], key0 + kBlockN, p.nk);
            cp_async_commit();
        }

#if TETRA_ATTN_PV_SPLIT == 0
        float alpha[2][2];
        if (kb >= warp_first_masked) {
#pragma unroll
            for (int mt = 0; mt < 2; mt++)
                softmax_tile<D, CAUSAL, true>(s[mt], m[mt], l[mt], alpha[mt], p, row0 + 16 * mt, key0);
        } else {
#pragma unroll
            for (int mt = 0; mt < 2; mt++)
                softmax_tile<D, CAUSAL, false>(s[mt], m[mt], l[mt], alpha[mt], p, row0 + 16 * mt, key0);
        }
#pragma unroll
        for (int mt = 0; mt < 2; mt++) rescale_o<D>(o[mt], alpha[mt]);

        if (STAGES == 1) {
            cp_async_wait<1>(); /* V(kb) */
            __syncthreads();
        }
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; kk++) {
            /* The C fragments of n-tiles 2kk, 2kk+1 are exactly the A fragment of P's
             * 16-key slice kk: convert in registers, no shared-memory round trip. */
            uint32_t pa[2][4];
#pragma unroll
            for (int mt = 0; mt < 2; mt++) {
                pa[mt][0] = tetra_pack2<BF16>(s[mt][2 * kk][0], s[mt][2 * kk][1]);
                pa[mt][1] = tetra_pack2<BF16>(s[mt][2 * kk][2], s[mt][2 * kk][3]);
                pa[mt][2] = tetra_pack2<BF16>(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
                pa[mt][3] = tetra_pack2<BF16>(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
            }
#pragma unroll
            for (int dp = 0; dp < D / 16; dp++) {
                uint32_t bv[4]; /* d-tiles 2dp and 2dp+1, key halves 0 and 1 */
                ldsm_x4_trans(((v_ldsm + stage_bytes) ^ (dp << 5)) + kk * 16 * D * 2, bv);
#pragma unroll
                for (int mt = 0; mt < 2; mt++) { /* one V fragment, two MMAs */
                    mma_16816<BF16>(o[mt][2 * dp], pa[mt], bv[0], bv[1]);
                    mma_16816<BF16>(o[mt][2 * dp + 1], pa[mt], bv[2], bv[3]);
                }
            }
        }
#else
        /* The whole softmax of tile 0 and the maximum of tile 1 (the two chains interleave,
         * as in order 0); tile 1's exponentials are issued beside tile 0's P V below. */
        float alpha[2][2], base[2][2], sum[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
        if (kb >= warp_first_masked) {
            softmax_tile<D, CAUSAL, true>(s[0], m[0], l[0], alpha[0], p, row0, key0);
            softmax_max<CAUSAL, true>(s[1], m[1], alpha[1], base[1], p, row0 + 16, key0);
        } else {
            softmax_tile<D, CAUSAL, false>(s[0], m[0], l[0], alpha[0], p, row0, key0);
            softmax_max<CAUSAL, false>(s[1], m[1], alpha[1], base[1], p, row0 + 16, key0);
        }
        /* Both rescales (and their warp-uniform branches) before the overlapped region, so
         * that it is one basic block the scheduler can interleave. */
#pragma unroll
        for (int mt = 0; mt < 2; mt++) rescale_o<D>(o[mt], alpha[mt]);

        if (STAGES == 1) {
            cp_async_wait<1>(); /* V(kb) */
            __syncthreads();
        }
        const uint32_t v_addr = v_ldsm + stage_bytes;
        const float c = p.scale_log2;
        /* P V of tile 0 with the exponentials of tile 1 issued beside it, slice by slice */
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; kk++) {
            softmax_exp_slice(s[1], kk, base[1], sum[1], c);
            pv_slice<D, BF16, 0, 1>(o, s, kk, v_addr);
        }
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; kk++) pv_slice<D, BF16, 1, 2>(o, s, kk, v_addr);
#pragma unroll
        for (int h = 0; h < 2; h++) l[1][h] = l[1][h] * alpha[1][h] + sum[1][h];
#endif
        if (STAGES == 1) {
            __syncthreads(); /* every warp is done with sV */
            if (kb + 1 < nkb) load_kv_tile<D>(sV, vbase, p.vs[1], key0 + kBlockN, p.nk);
            cp_async_commit();
        }
    }
    cp_async_wait<0>();

    /* Epilogue: finish the row sums across the quad, normalise, store. */
    uint16_t *obase = p.o + b * p.os[0] + h * p.os[2];
#pragma unroll
    for (int mt = 0; mt < 2; mt++)
#pragma unroll
        for (int hh = 0; hh < 2; hh++) {
            const float sum = tetra_attn_row_sum(l[mt][hh]);
            const int row = row0 + 16 * mt + 8 * hh;
            const float inv = tetra_attn_inv_sum(sum);
            if (row < p.nq) {
                uint16_t *orow = obase + (int64_t)row * p.os[1] + 2 * t4;
#pragma unroll
                for (int dt = 0; dt < D / 8; dt++)
                    *reinterpret_cast<uint32_t *>(orow + dt * 8) =
                        tetra_pack2<BF16>(o[mt][dt][2 * hh] * inv, o[mt][dt][2 * hh + 1] * inv);
                if (p.lse && t4 == 0)
                    p.lse[((int64_t)b * p.hq + h) * p.nq + row] = tetra_attn_lse(m[mt][hh], sum);
            }
        }
}

/* ------------------------------------------------------------ the reference kernel */

__device__ __forceinline__ float block_reduce(float x, bool is_max, float *red) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int off = 16; off > 0; off >>= 1) {
        const float y = __shfl_xor_sync(0xffffffffu, x, off);
        x = is_max ? fmaxf(x, y) : x + y;
    }
    __syncthreads(); /* red may still be read from the previous reduction */
    if (lane == 0) red[warp] = x;
    __syncthreads();
    x = red[0];
    for (int w = 1; w < kRefThreads / 32; w++) x = is_max ? fmaxf(x, red[w]) : x + red[w];
    return x;
}

__device__ __forceinline__ float dot_row(const float *q, const void *k, int64_t off, int D, tetra_dtype dt) {
    float acc = 0.0f;
    for (int d = 0; d < D; d++) acc = fmaf(q[d], tetra_load_dense(k, off + d, dt), acc);
    return acc;
}

__global__ void __launch_bounds__(kRefThreads) attention_fwd_reference(const AttnParams p, int D) {
    __shared__ float q[128], prob[kRefThreads], red[kRefThreads / 32];
    const int tid = threadIdx.x;
    const int64_t rows = (int64_t)p.batch * p.hq * p.nq;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const int i = (int)(r % p.nq), h = (int)((r / p.nq) % p.hq), b = (int)(r / p.nq / p.hq);
        const int hk = h / p.group;
        const int64_t kb = b * p.ks[0] + hk * p.ks[2], vb = b * p.vs[0] + hk * p.vs[2];
        int visible = p.nk;
        if (p.causal_offset != INT32_MIN) { /* causal */
            const int64_t lim = (int64_t)i + p.causal_offset + 1;
            visible = (int)(lim < 0 ? 0 : (lim < p.nk ? lim : p.nk));
        }
        __syncthreads(); /* q and prob of the previous row are no longer read */
        if (tid < D) q[tid] = tetra_load_dense(p.q, b * p.qs[0] + i * p.qs[1] + h * p.qs[2] + tid, p.dtype);
        __syncthreads();
        /* pass 1: the row maximum */
        float mx = -INFINITY;
        for (int j = tid; j < visible; j += kRefThreads)
            mx = fmaxf(mx, p.scale * dot_row(q, p.k, kb + (int64_t)j * p.ks[1], D, p.dtype));
        mx = block_reduce(mx, true, red);
        /* pass 2: probabilities, their sum and P V; thread d < D owns output column d */
        float acc = 0.0f, lsum = 0.0f;
        for (int j0 = 0; j0 < visible; j0 += kRefThreads) {
            const int j = j0 + tid;
            float pj = 0.0f;
            if (j < visible) pj = expf(p.scale * dot_row(q, p.k, kb + (int64_t)j * p.ks[1], D, p.dtype) - mx);
            lsum += pj;
            __syncthreads();
            prob[tid] = pj;
            __syncthreads();
            const int n = min(kRefThreads, visible - j0);
            if (tid < D)
                for (int jj = 0; jj < n; jj++)
                    acc = fmaf(prob[jj], tetra_load_dense(p.v, vb + (int64_t)(j0 + jj) * p.vs[1] + tid, p.dtype), acc);
        }
        const float l = block_reduce(lsum, false, red);
        if (tid < D)
            tetra_store_dense(p.o, b * p.os[0] + i * p.os[1] + h * p.os[2] + tid, p.dtype,
                              visible ? acc / l : 0.0f);
        if (p.lse && tid == 0)
            p.lse[((int64_t)b * p.hq + h) * p.nq + i] = visible ? mx + logf(l) : -INFINITY;
    }
}

/* ------------------------------------------------------------ launchers */

AttnParams make_params(const tetra_attention_args *a) {
    AttnParams p;
    p.q = (const uint16_t *)a->q;
    p.k = (const uint16_t *)a->k;
    p.v = (const uint16_t *)a->v;
    p.o = (uint16_t *)a->o;
    p.lse = a->lse;
    for (int i = 0; i < 3; i++) {
        p.qs[i] = a->q_strides[i];
        p.ks[i] = a->k_strides[i];
        p.vs[i] = a->v_strides[i];
        p.os[i] = a->o_strides[i];
    }
    p.batch = (int)a->batch;
    p.nq = (int)a->seqlen_q;
    p.nk = (int)a->seqlen_k;
    p.hq = (int)a->heads_q;
    p.group = (int)(a->heads_q / a->heads_kv);
    p.causal_offset = (int)(a->seqlen_k - a->seqlen_q);
    p.num_qblocks = (int)((a->seqlen_q + kBlockM - 1) / kBlockM);
    p.scale = a->scale;
    p.scale_log2 = (float)(fabs((double)a->scale) * 1.4426950408889634);
    p.negate_q = a->scale < 0.0f;
    p.dtype = a->dtype;
    return p;
}

tetra_status launch_reference(tetra_context *ctx, const tetra_attention_args *a) {
    AttnParams p = make_params(a);
    const int64_t rows = a->batch * a->heads_q * a->seqlen_q;
    const int grid = (int)(rows < (1 << 30) ? rows : (1 << 30));
    if (!a->causal) p.causal_offset = INT32_MIN; /* sentinel: no mask */
    attention_fwd_reference<<<grid, kRefThreads, 0, (cudaStream_t)ctx->stream>>>(p, (int)a->head_dim);
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}

template <int D, int STAGES> constexpr int mma_smem_bytes() {
    return (kBlockM + 2 * STAGES * kBlockN) * D * (int)sizeof(uint16_t) + kSmemAlign;
}

/* Two K/V stages only where two CTAs of that size still fit on an SM (H200: 2 x 96.25 KB
 * of 228 KB at D=128); otherwise one stage (A100's 164 KB, sm_86/89/120's 100 KB): the
 * second CTA per SM is worth more than the second stage. */
template <int D> int mma_stages(const tetra_context *ctx) {
    constexpr int smem2 = mma_smem_bytes<D, 2>();
    int per_sm = 0, per_block = 0;
    if (cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, ctx->device) != cudaSuccess ||
        cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    return smem2 <= per_block && 2 * (smem2 + 1024) <= per_sm ? 2 : 1; /* 1 KB reserved per CTA */
}

template <int D, bool BF16, bool CAUSAL, int STAGES>
tetra_status launch_mma_config(tetra_context *ctx, const AttnParams &p, int64_t ctas) {
    constexpr int smem = mma_smem_bytes<D, STAGES>();
    /* D=128: 64.25 KB with one stage (Q 32 + K 16 + V 16), 96.25 KB with two; both within
     * sm_120's 99 KB per block. On the H200 the 255-register threads limit it to 2 CTAs
     * per SM either way. */
    static_assert(smem <= 99 * 1024, "path 2 must fit sm_120's 99 KB of shared memory per block");
    const auto kernel = attention_fwd_mma<D, BF16, CAUSAL, STAGES>;
    if (smem > 48 * 1024) {
        static std::atomic<unsigned long long> opted_in{0};
        if (!tetra_done_on(opted_in, ctx->device)) {
            TETRA_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
            tetra_mark_done(opted_in, ctx->device);
        }
    }
    kernel<<<(unsigned)ctas, kThreads, smem, (cudaStream_t)ctx->stream>>>(p);
    TETRA_LAUNCH_CHECK();
    return TETRA_OK;
}

template <int D, int STAGES>
tetra_status launch_mma_stages(tetra_context *ctx, const AttnParams &p, int64_t ctas, bool bf16, bool causal) {
    if (bf16) return causal ? launch_mma_config<D, true, true, STAGES>(ctx, p, ctas)
                            : launch_mma_config<D, true, false, STAGES>(ctx, p, ctas);
    return causal ? launch_mma_config<D, false, true, STAGES>(ctx, p, ctas)
                  : launch_mma_config<D, false, false, STAGES>(ctx, p, ctas);
}

template <int D>
tetra_status launch_mma_head(tetra_context *ctx, const AttnParams &p, int64_t ctas, bool bf16, bool causal) {
    if (mma_stages<D>(ctx) == 2) return launch_mma_stages<D, 2>(ctx, p, ctas, bf16, causal);
    return launch_mma_stages<D, 1>(ctx, p, ctas, bf16, causal);
}

tetra_status launch_mma(tetra_context *ctx, const tetra_attention_args *a) {
    static const char *tensor[4] = {"q", "k", "v", "o"};
    const void *ptr[4] = {a->q, a->k, a->v, a->o};
    const int64_t *strides[4] = {a->q_strides, a->k_strides, a->v_strides, a->o_strides};
    if (ctx->sm_major < 8)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "attention path 2 (mma.sync) needs sm_80 or newer; this device is sm_%d%d",
                          ctx->sm_major, ctx->sm_minor);
    /* cp.async moves 16-byte chunks: every row of head_dim elements must start 16-byte aligned. */
    for (int t = 0; t < 4; t++) {
        if (!tetra_aligned(ptr[t], 16))
            return tetra_fail(TETRA_ERR_UNSUPPORTED,
                              "attention path 2 needs args.%s 16-byte aligned (it is %p)", tensor[t], ptr[t]);
        for (int i = 0; i < 3; i++)
            if (strides[t][i] % 8)
                return tetra_fail(TETRA_ERR_UNSUPPORTED,
                                  "attention path 2 needs args.%s_strides[%d] = %lld to be a multiple "
                                  "of 8 elements (16 bytes)",
                                  tensor[t], i, (long long)strides[t][i]);
    }
    const AttnParams p = make_params(a);
    const int64_t ctas = (int64_t)p.num_qblocks * a->batch * a->heads_q;
    if (ctas > INT32_MAX)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "attention path 2: %lld CTAs exceed the grid limit",
                          (long long)ctas);
    const bool bf16 = a->dtype == TETRA_DTYPE_BF16, causal = a->causal != 0;
    if (a->head_dim == 64) return launch_mma_head<64>(ctx, p, ctas, bf16, causal);
    return launch_mma_head<128>(ctx, p, ctas, bf16, causal);
}

} // namespace

/* The arguments arrive validated with strides and scale resolved (attention_api.c). */
extern "C" tetra_status tetra_launch_attention(tetra_context *ctx, const tetra_attention_args *args) {
    tetra_status st;
    switch (args->path) {
    case 1: return launch_reference(ctx, args);
    case 2: return launch_mma(ctx, args);
    case 3: return tetra_launch_attention_sm90(ctx, args); /* attention_sm90.cu */
    default:
        if (ctx->sm_major == 9 && ctx->sm_minor == 0) {
            st = tetra_launch_attention_sm90(ctx, args);
            if (st != TETRA_ERR_UNSUPPORTED) return st;
            tetra_clear_error();
        }
        st = launch_mma(ctx, args);
        if (st != TETRA_ERR_UNSUPPORTED) return st;
        tetra_clear_error();
        return launch_reference(ctx, args);
    }
}
