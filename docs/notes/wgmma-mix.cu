/* wgmma + dequantization overlap probe (session 22; a diagnostic, not part of the library).
 * Question: v7 at M = 64 takes ~548 cycles per K-tile per CTA, while its 8 RS wgmmas alone take
 * ~256 (docs/notes/wgmma-rate.cu) and a serialized dequantization was ~54 cycles faster than one
 * running under the RS wgmma. Do RS wgmmas and the same warps' ALU / LDS work overlap, and does
 * the SS form (A from shared memory) overlap better?
 * One CTA per SM (132 CTAs, 200 KiB dynamic shared memory), W consumer warpgroups, each running
 * `iters` K-tiles of v7's per-K-tile pattern on constant operands in shared memory, no global
 * memory in the loop. Modes (per K-tile, per warpgroup):
 *   T   4 x wgmma.m64n64k16 (RS: A from fragment set cur; SS: A from a constant tile), commit,
 *       wait_group 1; the two fragment sets alternate as in v7 but are not rewritten
 *   D   no wgmma: v7's dequantization of the next K-tile into the other fragment set (1 LDS.128
 *       of codes + 2 LDS.32 of scale codes from a 4-K-tile table, the quad's 4 SHFLs, PRMT /
 *       LOP3 / SHF / IMAD / HMUL2 writing 16 registers)
 *   TD  v7's overlap: issue + commit K-tile i, wait_group 1 (K-tile i - 1 done: the other set
 *       is free), dequantize K-tile i + 1 while K-tile i's group runs
 *   TD0 as TD with wait_group 0 before the dequantization (serialized; v7's SERIAL_DQ)
 * Forms: RS (the dequantized registers are the next wgmmas' A), SS (A from two constant 8 KiB
 * tiles per warpgroup; the dequantization still writes its registers), SSW (SS, and the
 * dequantized registers are stored with 4 st.shared.v4 into the A tile the wgmma of K-tile i + 1
 * reads, then fence.proxy.async, and a 128-thread named barrier per warpgroup before each
 * K-tile's wgmmas: what an SS v7 would have to do; SSW-T is SS-T plus that barrier).
 * The dequantized registers are consumed every K-tile by an empty asm volatile (no instruction;
 * the arithmetic cannot be dropped), feed the RS wgmma, and are XOR-folded into a word written
 * to global memory at the end with the accumulators' sum.
 * Two things keep the instruction streams comparable (checked in the SASS, cuobjdump -sass):
 * - mode D's kernel holds a wgmma that never runs (after the loop, under iters < 0): in a kernel
 *   with no HGMMA at all ptxas moves half of the HMUL2s to the tensor pipe (HFMA2.MMA), a choice
 *   it does not make in v7 or in TD; with it D's loop has TD's dequantization mix exactly;
 * - a clock read at the top of each K-tile (all modes): ptxas moves nothing across it; without it
 *   ptxas hoisted SS wgmmas (no register operand from the dequantization) into the middle of the
 *   previous K-tile's dequantization, an order v7 cannot have.
 * Dequantization variants (second part, session 22: which instruction class of the mix conflicts
 * with the running wgmma?), RS form, modes D and TD (v7's order), W = 2 and 4: v_full (the mix: the
 * same kernels as the base RS rows, a control), v_nohmul (each HMUL2 an IMAD on the same operands),
 * v_nohmul_lop (each HMUL2 one more LOP3), v_hmulonly (the 3 LDS and the 18 HMUL2 only), v_intonly
 * (the integer part: no HMUL2, no SHFL), v_fp32 (each HMUL2 two dependent FMULs), v_lds (the 3 LDS
 * and the 4 SHFLs only); see dequant_var. Their loops are kept at two K-tiles (unroll 1): the base
 * kernels' SASS is unchanged.
 * SPLIT (third part, session 22: is the serialization per warp or per SM?), RS form, kernel
 * probe_split (one kernel, WT a run-time argument): WT warpgroups run only T, WD other warpgroups
 * only D (v7's full mix, no wgmma at run time), each group its own iters K-tiles with no
 * synchronisation between the groups; configurations (WT, WD) = (2, 2), (2, 1), (1, 1), (1, 2) and
 * the references (1, 0), (2, 0), (0, 1), (0, 2) (one group alone, the same machine code).
 * Output: CSV, one row per form x mode x W (variant "-"), then one per variant x mode x W: cycles
 * per K-tile per CTA (clock64 of each warpgroup's first thread around the loop, max over the CTA's
 * warpgroups, median over CTAs; the median of 3 timed launches after a warm-up), and TD / (T + D),
 * TD / max(T, D) against the same form's and W's T row and the same variant's D row. Then the SPLIT
 * rows (mode SPLIT, w = WT + WD, variant tXdY_cta / tXdY_tgrp / tXdY_dgrp: per CTA the max over all
 * warpgroups / over the T group's / over the D group's, each a median over CTAs; a reference has its
 * _cta row only), t_cyc / d_cyc the t<WT>d0 / t0d<WD> references, over_sum = row / (T_alone +
 * D_alone), over_max = row / max(T_alone, D_alone).
 * SPLIT kinds (fourth part, session 25, helper s24probe; docs/notes/wgmma-mix-s25.md): kernel
 * probe_split_k<TK, DK>, probe_split's code with one side changed: dfold (D: the mix with v7.14's
 * FOLD, 8 PRMT fewer per K-tile), dhalf (D: the mix on words 0-7 only), te4m3x2 (T: 2 RS wgmma
 * m64n64k32 e4m3 per K-tile, the BF16 T's FLOPs), te4m3x4 (T: 4 of them, the BF16 T's wgmma count
 * and, at the FP8 rate, its tensor time); each kind runs (WT, WD) = (1, 0), (2, 0), (0, 1), (0, 2)
 * (its own references), (2, 2), (2, 1); rows after session 22's, variant <kind>_tXdY_<part>.
 * The existing 61 kernels' SASS is unchanged by this part (diffed).
 * Session 25b (helper wgmix5; docs/notes/wgmma-mix-s25b.md): three more D kinds, the same rows:
 * dnoshfl (the full mix, its 4 SHFLs replaced by a LOP3 each), dshflonly (the mix's 3 LDS and 4 SHFLs
 * only), dcvt (e2m1 -> e4m3 bytes -> cvt.rn.f16x2.e4m3x2 -> HMUL2 by the scale pair; checked once
 * at start-up against e2m1 x scale, exit 3 on a mismatch). The 65 earlier kernels' SASS unchanged.
 * Build: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o wgmma-mix docs/notes/wgmma-mix.cu
 * Run:   ./wgmma-mix [iters] > wgmma-mix.csv   (iters even, default 2048) */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                                                   \
    do {                                                                                                              \
        cudaError_t e_ = (call);                                                                                      \
        if (e_ != cudaSuccess) {                                                                                      \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                   \
            exit(1);                                                                                                  \
        }                                                                                                             \
    } while (0)

enum { MODE_T, MODE_D, MODE_TD, MODE_TD0 };
enum { FORM_RS, FORM_SS, FORM_SSW };
static const char *const mode_name[] = {"T", "D", "TD", "TD0"};
static const char *const form_name[] = {"RS", "SS", "SSW"};

/* shared-memory layout (offsets from the 1024-aligned base); the 200 KiB request keeps one CTA per SM */
enum : uint32_t {
    SMEM_BYTES = 200 * 1024,
    TILE = 8192,                  /* 64 rows x 128 bytes: one K-tile (64 K) of B (64 tokens) or of A (64 weight rows) */
    NB = 4,                       /* B: a ring of 4 K-tiles read by every warpgroup (as v7 reads its tokens) */
    OFF_B = 0,                    /* NB x TILE */
    OFF_A = OFF_B + NB * TILE,    /* SS / SSW: 2 A tiles per warpgroup (the two fragment sets), 4 warpgroups at most */
    OFF_RAW = OFF_A + 4 * 2 * TILE, /* codes: NK K-tiles x 4 warpgroups x 128 threads x 16 bytes */
    NK = 4,                       /* K-tiles in the code / scale tables (addresses vary with the K-tile) */
    RAW_KT = 4 * 2048,
    OFF_SC = OFF_RAW + NK * RAW_KT, /* scale codes: NK K-tiles x 256 rows x 4 bytes */
    SC_KT = 256 * 4,
    USED = OFF_SC + NK * SC_KT
};
static_assert(USED + 1024 <= SMEM_BYTES, "layout");

__device__ __forceinline__ uint4 lds128(uint32_t a) {
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a));
    return v;
}
__device__ __forceinline__ uint32_t lds32(uint32_t a) {
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(a));
    return v;
}
/* ld.volatile (v_lds; dequant_t's LDS.128 at STEPS = 2): in v_lds's D kernel ptxas otherwise drops
 * the loads whose words no loop instruction uses and loads the last K-tile's words once after it;
 * at STEPS = 2 it narrowed the LDS.128 to an LDS.64 (both seen in the SASS) */
__device__ __forceinline__ uint4 lds128v(uint32_t a) {
    uint4 v;
    asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(a));
    return v;
}
__device__ __forceinline__ uint32_t lds32v(uint32_t a) {
    uint32_t v;
    asm volatile("ld.volatile.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(a));
    return v;
}

__device__ __forceinline__ void sts128(uint32_t a, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
    asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"r"(a), "r"(x), "r"(y), "r"(z), "r"(w) : "memory");
}
__device__ __forceinline__ void sts32(uint32_t a, uint32_t x) {
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(a), "r"(x) : "memory");
}
__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
    uint32_t r;
    asm("prmt.b32 %0, %1, %2, %3;\n" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
    return r;
}
__device__ __forceinline__ uint32_t hmul2(uint32_t a, uint32_t b) {
    uint32_t r;
    asm("mul.rn.bf16x2 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wg_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void acc_fence(float (&d)[32]) {
#pragma unroll
    for (int i = 0; i < 32; i++) asm volatile("" : "+f"(d[i])::"memory");
}
/* the dequantized registers are used here: no instruction, but the values must exist */
__device__ __forceinline__ void pin16(uint32_t (&f)[16]) {
    asm volatile("" : "+r"(f[0]), "+r"(f[1]), "+r"(f[2]), "+r"(f[3]), "+r"(f[4]), "+r"(f[5]), "+r"(f[6]), "+r"(f[7]),
                 "+r"(f[8]), "+r"(f[9]), "+r"(f[10]), "+r"(f[11]), "+r"(f[12]), "+r"(f[13]), "+r"(f[14]), "+r"(f[15]));
}
/* the 32 accumulator operands %0..%31 of a m64n64 wgmma's inline asm */
#define ACC32_OPERANDS(d)                                                                                            \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),     \
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),      \
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),     \
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
/* K-major 128B-swizzle descriptor: stride 1024 between 8-row groups, layout type 1 */
__device__ __forceinline__ uint64_t desc_of(uint32_t addr) {
    return (uint64_t)((1024 >> 4) | (1u << 30)) << 32 | ((addr & 0x3FFFFu) >> 4);
}
/* D[64 x 64] += A[64 x 16] (registers: the m64k16 fragment) * B[16 x 64] (shared) */
__device__ __forceinline__ void wgmma_rs(float (&d)[32], const uint32_t *a, uint64_t db) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,"
                 "%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, "
                 "%36, p, 1, 1, 0;\n}\n"
                 : ACC32_OPERANDS(d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1));
}
/* D[64 x 64] += A[64 x 32] (registers: the m64k32 8-bit fragment, 4 e4m3 per register) * B[32 x 64]
 * (shared, e4m3, K-major: 8-bit wgmmas take no transpose arguments). Twice the FLOPs of one
 * m64n64k16 BF16 wgmma from the same 4 A registers and the same 32 bytes per B row. */
__device__ __forceinline__ void wgmma_rs_e4m3(float (&d)[32], const uint32_t *a, uint64_t db) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,"
                 "%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, "
                 "%36, p, 1, 1;\n}\n"
                 : ACC32_OPERANDS(d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1));
}
/* the same with A from shared memory */
__device__ __forceinline__ void wgmma_ss(float (&d)[32], uint64_t da, uint64_t db) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,"
                 "%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, "
                 "p, 1, 1, 0, 0;\n}\n"
                 : ACC32_OPERANDS(d)
                 : "l"(da), "l"(db), "r"(1));
}

/* one 16-bit half of v in both halves (v7.14's half_bcast<H, true>) */
__device__ __forceinline__ uint32_t bcast16(uint32_t v, int h) {
    uint32_t r;
    if (h == 0) asm("{\n.reg .b16 lo, hi;\nmov.b32 {lo, hi}, %1;\nmov.b32 %0, {lo, lo};\n}" : "=r"(r) : "r"(v));
    else asm("{\n.reg .b16 lo, hi;\nmov.b32 {lo, hi}, %1;\nmov.b32 %0, {hi, hi};\n}" : "=r"(r) : "r"(v));
    return r;
}
/* v7's fragment-layout dequantization of one K-tile (the instruction mix of gemm_sm90.cu's
 * dequant_frag_prepared after v7.5, written out again here): the thread's 16 code bytes (word s:
 * k16 step s, its 4 BF16 pairs placed at the pattern 0x81C081C0 and three shifted copies), the
 * scale codes of its rows g / g + 8 (one byte per k16 step); thread tq of a quad converts step
 * tq's two scales (exponent placement, NaN flag, two exact multiplies) and the quad shares
 * them with 4 SHFLs; each of the 16 output words is mask / shift / multiply, then one HMUL2. */
/* FOLD / STEPS (session 25, SPLIT only; FOLD = false, STEPS = 4 is `dequant`, the same code):
 * FOLD takes a step's two scales as 16-bit broadcasts (v7.14's half_bcast<H, true>, gemv_warp.cuh),
 * which ptxas folds into the HMUL2s' operand selectors (.H0_H0 / .H1_H1): 8 PRMT fewer per K-tile.
 * STEPS = 2 rewrites only words 0-7 (k16 steps 0-1; the loads and the scale conversion are
 * the full mix's); words 8-15 keep what they held (pinned with the rest). */
template <bool FOLD, int STEPS>
__device__ __forceinline__ void dequant_t(uint32_t (&f)[16], uint32_t raw, uint32_t sc0, uint32_t sc1, uint32_t qsel) {
    const uint32_t c0 = lds32(sc0), c1 = lds32(sc1);
    const uint4 v = STEPS == 4 ? lds128(raw) : lds128v(raw); /* STEPS 2: else ptxas loads 8 bytes only */
    const uint32_t x = prmt(c0, c1, qsel) & 0x007F007Fu;    /* step tq of rows g (byte 0), g + 8 (byte 2) */
    const uint32_t nan = x + 0x01010101u;                     /* bit 7 of a byte: the code was 0x7F */
    uint32_t sv = ((x << 4) & 0x07F007F0u) | prmt(nan, 0, 0xAA88u);
    sv = hmul2(hmul2(sv, 0x7B807B80u), 0x7B007B00u);          /* x 2^120 x 2^119 */
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
    const uint32_t M = 0x81C081C0u;
#pragma unroll
    for (int s = 0; s < STEPS; s++) {
        const uint32_t q = __shfl_sync(0xFFFFFFFFu, sv, s, 4); /* step s of both rows, from thread s of the quad */
        const uint32_t s0 = FOLD ? bcast16(q, 0) : prmt(q, 0, 0x1010u), s1 = FOLD ? bcast16(q, 1) : prmt(q, 0, 0x3232u);
        const uint32_t c = w[s];
        f[4 * s + 0] = hmul2(c & M, s0);
        f[4 * s + 1] = hmul2((c << 3) & M, s1);
        f[4 * s + 2] = hmul2((c << 6) & M, s0);
        f[4 * s + 3] = hmul2(((c >> 7) & 0x00D800D8u) * 0x821u & M, s1);
    }
}
__device__ __forceinline__ void dequant(uint32_t (&f)[16], uint32_t raw, uint32_t sc0, uint32_t sc1, uint32_t qsel) {
    dequant_t<false, 4>(f, raw, sc0, sc1, qsel);
}

/* Session 25b kinds (helper wgmix5; docs/notes/wgmma-mix-s25b.md), SPLIT only: which part of the
 * mix does the tensor work slow down? DK_NOSHFL: the full mix with each SHFL's value replaced by the
 * thread's own sv XOR ks[s] (ks: 0 at run time, unknown to the compilers: kz << s, computed before
 * the loop), so the mix keeps its 4 scale pairs per K-tile and every other instruction. */
__device__ __forceinline__ void dequant_noshfl(uint32_t (&f)[16], uint32_t raw, uint32_t sc0, uint32_t sc1,
                                               uint32_t qsel, const uint32_t (&ks)[4]) {
    const uint32_t c0 = lds32(sc0), c1 = lds32(sc1);
    const uint4 v = lds128(raw);
    const uint32_t x = prmt(c0, c1, qsel) & 0x007F007Fu;
    const uint32_t nan = x + 0x01010101u;
    uint32_t sv = ((x << 4) & 0x07F007F0u) | prmt(nan, 0, 0xAA88u);
    sv = hmul2(hmul2(sv, 0x7B807B80u), 0x7B007B00u);
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
    const uint32_t M = 0x81C081C0u;
#pragma unroll
    for (int s = 0; s < 4; s++) {
        const uint32_t q = sv ^ ks[s]; /* in place of __shfl_sync(.., sv, s, 4) */
        const uint32_t s0 = prmt(q, 0, 0x1010u), s1 = prmt(q, 0, 0x3232u);
        const uint32_t c = w[s];
        f[4 * s + 0] = hmul2(c & M, s0);
        f[4 * s + 1] = hmul2((c << 3) & M, s1);
        f[4 * s + 2] = hmul2((c << 6) & M, s0);
        f[4 * s + 3] = hmul2(((c >> 7) & 0x00D800D8u) * 0x821u & M, s1);
    }
}
/* DK_SHFLONLY: the mix's 3 LDS and 4 SHFLs only (v_lds's body: ld.volatile, words 0-9 rewritten
 * with the loaded / shuffled values, 10-15 kept; all pinned and folded) */
__device__ __forceinline__ void dequant_shflonly(uint32_t (&f)[16], uint32_t raw, uint32_t sc0, uint32_t sc1) {
    const uint32_t c0 = lds32v(sc0), c1 = lds32v(sc1);
    const uint4 v = lds128v(raw);
    f[0] = v.x, f[1] = v.y, f[2] = v.z, f[3] = v.w, f[4] = c0, f[5] = c1;
#pragma unroll
    for (int s = 0; s < 4; s++) f[6 + s] = __shfl_sync(0xFFFFFFFFu, c0, s, 4);
}
/* DK_CVT: dequantization through the FP8 converter. An e2m1 code (sign, payload p = exponent 2 bits
 * + mantissa 1 bit) as the e4m3 byte (sign << 7) | (p << 2) (p in e4m3's two low exponent bits and
 * its mantissa MSB) is exactly its value x 2^-6 for all 16 codes (0.5 = the subnormal 0.0000.100);
 * cvt.rn.f16x2.e4m3x2 widens two such bytes, one HMUL2 (f16) applies the scale pair x 2^6.
 * Storage layout assumed (ours to choose; per 32-bit raw word, byte b = 0..3):
 *   bits 7, 4:2  the A code of byte b: sign, p           -> A = raw & 0x9C9C9C9C
 *   bits 5, 6, 1:0  the B code of byte b: sign, p bit 2, p bits 1:0
 *                 -> B = ((raw << 2) & 0x8C8C8C8C) | ((raw >> 2) & 0x10101010)
 *   A bytes 0-1 -> word 4s + 0 (row g), A 2-3 -> 4s + 1 (row g + 8), B 0-1 -> 4s + 2, B 2-3 -> 4s + 3
 *   (the low byte of a pair -> the low f16). The scale codes (7 bits, bit 7 ignored as in the full mix)
 *   are e4m3 values themselves (UE4M3; 0x7F NaN): one cvt.rn.f16x2.e4m3x2 and an HMUL2 by 2^6.
 * The words are f16x2, the other kinds' BF16: only the instruction mix is probed (the D warps' words
 * feed no wgmma at run time); an f16 RS wgmma would take them. */
__device__ __forceinline__ uint32_t cvt_e4m3x2(uint32_t v, int h) { /* e4m3 pair in 16-bit half h -> f16x2 */
    uint32_t r;
    if (h == 0) asm("{\n.reg .b16 lo, hi;\nmov.b32 {lo, hi}, %1;\ncvt.rn.f16x2.e4m3x2 %0, lo;\n}" : "=r"(r) : "r"(v));
    else asm("{\n.reg .b16 lo, hi;\nmov.b32 {lo, hi}, %1;\ncvt.rn.f16x2.e4m3x2 %0, hi;\n}" : "=r"(r) : "r"(v));
    return r;
}
__device__ __forceinline__ uint32_t hmul2_f16(uint32_t a, uint32_t b) {
    uint32_t r;
    asm("mul.rn.f16x2 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
#define CVT_MASK_A 0x9C9C9C9Cu
__host__ __device__ __forceinline__ uint32_t cvt_bytes_b(uint32_t c) {
    return ((c << 2) & 0x8C8C8C8Cu) | ((c >> 2) & 0x10101010u);
}
/* sv: the quad-shared f16x2 scale pair (row g low, row g + 8 high) x 2^6; 4 words of raw word c */
__device__ __forceinline__ void cvt_word(uint32_t (&f)[16], int s, uint32_t c, uint32_t q) {
    const uint32_t s0 = bcast16(q, 0), s1 = bcast16(q, 1); /* folded into the HMUL2s' operands */
    const uint32_t a = c & CVT_MASK_A, b = cvt_bytes_b(c);
    f[4 * s + 0] = hmul2_f16(cvt_e4m3x2(a, 0), s0);
    f[4 * s + 1] = hmul2_f16(cvt_e4m3x2(a, 1), s1);
    f[4 * s + 2] = hmul2_f16(cvt_e4m3x2(b, 0), s0);
    f[4 * s + 3] = hmul2_f16(cvt_e4m3x2(b, 1), s1);
}
__device__ __forceinline__ uint32_t cvt_scale(uint32_t c0, uint32_t c1, uint32_t qsel) {
    const uint32_t x = prmt(c0, c1, qsel >> 4) & 0x7F7Fu; /* step tq of row g (byte 0), g + 8 (byte 1) */
    return hmul2_f16(cvt_e4m3x2(x, 0), 0x54005400u);      /* x 2^6 */
}
__device__ __forceinline__ void dequant_cvt(uint32_t (&f)[16], uint32_t raw, uint32_t sc0, uint32_t sc1,
                                            uint32_t qsel) {
    const uint32_t c0 = lds32(sc0), c1 = lds32(sc1);
    const uint4 v = lds128(raw);
    const uint32_t sv = cvt_scale(c0, c1, qsel);
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int s = 0; s < 4; s++) cvt_word(f, s, w[s], __shfl_sync(0xFFFFFFFFu, sv, s, 4));
}

/* Dequantization variants (RS form, modes D and TD only): which instruction class of the mix
 * conflicts with a running wgmma? Each keeps the 3 LDS and the mix's dependency shape where it can.
 * kz is 0 at run time but unknown to the compilers (from iters), so constants built on it stay in
 * registers and operations on it are neither folded nor merged. */
enum { VAR_FULL, VAR_NOHMUL, VAR_NOHMUL_LOP, VAR_HMULONLY, VAR_INTONLY, VAR_FP32, VAR_LDS };
static const char *const var_name[] = {"v_full",     "v_nohmul", "v_nohmul_lop", "v_hmulonly",
                                       "v_intonly",  "v_fp32",   "v_lds"};

/* the replacements are PTX asm, so NVVM cannot reassociate or fold them */
__device__ __forceinline__ uint32_t imul(uint32_t a, uint32_t b) {
    uint32_t r;
    asm("mul.lo.u32 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t imad(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm("mad.lo.u32 %0, %1, %2, %3;\n" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__device__ __forceinline__ uint32_t fmul(uint32_t a, uint32_t b) {
    uint32_t r;
    asm("mul.rn.f32 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
/* (a | kz) ^ b: four inputs once a is itself a masked value, so it is one more LOP3 than the mask */
__device__ __forceinline__ uint32_t lopx(uint32_t a, uint32_t b, uint32_t kz) { return (a | kz) ^ b; }
template <int VAR>
__device__ __forceinline__ void dequant_var(uint32_t (&f)[16], uint32_t raw, uint32_t sc0, uint32_t sc1, uint32_t qsel,
                                            uint32_t kz) {
    if (VAR == VAR_FULL) {
        dequant(f, raw, sc0, sc1, qsel);
        return;
    }
    const bool vol = VAR == VAR_LDS;
    const uint32_t c0 = vol ? lds32v(sc0) : lds32(sc0), c1 = vol ? lds32v(sc1) : lds32(sc1);
    const uint4 v = vol ? lds128v(raw) : lds128(raw);
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
    const uint32_t M = 0x81C081C0u;
    if (VAR == VAR_LDS) { /* the loads and the quad's SHFLs only: 10 of the 16 words rewritten, no arithmetic */
        f[0] = v.x, f[1] = v.y, f[2] = v.z, f[3] = v.w, f[4] = c0, f[5] = c1;
#pragma unroll
        for (int s = 0; s < 4; s++) f[6 + s] = __shfl_sync(0xFFFFFFFFu, c0, s, 4);
        return;
    }
    if (VAR == VAR_HMULONLY) { /* the 18 HMUL2 on the loaded words: a chain of 2, then 16 (4 on the chain) */
        const uint32_t sv = hmul2(hmul2(c0, 0x7B807B80u), 0x7B007B00u);
#pragma unroll
        for (int s = 0; s < 4; s++) {
            f[4 * s + 0] = hmul2(w[s], sv);
            f[4 * s + 1] = hmul2(w[s], c1);
            f[4 * s + 2] = hmul2(w[s], c0);
            f[4 * s + 3] = hmul2(w[s], 0x3FC03FC0u);
        }
        return;
    }
    /* the mix's integer part, with its HMUL2s replaced per variant */
    const uint32_t x = prmt(c0, c1, qsel) & 0x007F007Fu;
    const uint32_t nan = x + 0x01010101u;
    uint32_t sv = ((x << 4) & 0x07F007F0u) | prmt(nan, 0, 0xAA88u);
    /* a mad with the addend x: ptxas turned (sv * kA) * kB into sv * (kA * kB), one IMAD */
    if (VAR == VAR_NOHMUL) sv = imad(imad(sv, 0x7B807B80u + kz, x), 0x7B007B00u + kz, x);
    if (VAR == VAR_NOHMUL_LOP) sv = lopx(lopx(sv, 0x7B807B80u, kz), 0x7B007B00u, kz);
    /* each HMUL2 becomes two dependent FMULs (a second, independent result would be dead: the
     * empty asm that pins the words is nothing to ptxas, which dropped it) */
    if (VAR == VAR_FP32) sv = fmul(fmul(fmul(fmul(sv, 0x3F800001u), 0x3F800003u), 0x3F800005u), 0x3F800007u);
#pragma unroll
    for (int s = 0; s < 4; s++) {
        uint32_t s0, s1;
        if (VAR == VAR_INTONLY) { /* no SHFL: the step's scales from sv and its code word, one PRMT each */
            s0 = prmt(sv, w[s], 0x1410u);
            s1 = prmt(sv, w[s], 0x3532u);
        } else {
            const uint32_t q = __shfl_sync(0xFFFFFFFFu, sv, s, 4);
            s0 = prmt(q, 0, 0x1010u), s1 = prmt(q, 0, 0x3232u);
        }
        const uint32_t c = w[s];
        const uint32_t a[4] = {c & M, (c << 3) & M, (c << 6) & M, ((c >> 7) & 0x00D800D8u) * 0x821u & M};
        const uint32_t m[4] = {s0, s1, s0, s1};
#pragma unroll
        for (int j = 0; j < 4; j++) {
            if (VAR == VAR_NOHMUL) f[4 * s + j] = imul(a[j], m[j]);
            if (VAR == VAR_NOHMUL_LOP) f[4 * s + j] = lopx(a[j], m[j], kz);
            if (VAR == VAR_INTONLY) f[4 * s + j] = a[j] ^ m[j]; /* merges into the mask's LOP3 */
            if (VAR == VAR_FP32) f[4 * s + j] = fmul(fmul(a[j], m[j]), m[j ^ 1]);
        }
    }
}

/* The wgmma a dequant-only loop carries but never runs (under iters < 0; see the note at the top) */
__device__ __forceinline__ void never_run_wgmma(float (&acc)[32], const uint32_t *f, uint32_t base) {
    wg_fence();
    wgmma_rs(acc, f, desc_of(base));
    wg_commit();
    wg_wait<0>();
    acc_fence(acc);
}

/* A kernel's results (both kernels): its warpgroup's loop cycles (t1 - t0), the CTA's SM, and
 * every fragment register and accumulator folded into one word per thread (so that none of the
 * loop's work can be dropped) */
__device__ __forceinline__ void probe_finish(long long t0, long long t1, uint32_t t, uint32_t wg, long long *cycles,
                                             int *smids, uint32_t *sink, const uint32_t *f0, const uint32_t *f1,
                                             const float (&acc)[32], uint32_t stamp) {
    if (t == 0) cycles[blockIdx.x * 4 + wg] = t1 - t0;
    if (threadIdx.x == 0) {
        int smid;
        asm volatile("mov.u32 %0, %%smid;\n" : "=r"(smid));
        smids[blockIdx.x] = smid;
    }
    uint32_t fold = 0;
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < 16; j++) fold ^= f0[j] ^ (f1[j] << 1);
#pragma unroll
    for (int i = 0; i < 32; i++) sum += acc[i];
    sink[blockIdx.x * blockDim.x + threadIdx.x] = fold ^ __float_as_uint(sum) ^ (stamp & 1u);
}

template <int MODE, int FORM, int W, int VAR = VAR_FULL>
__global__ void __launch_bounds__(128 * W, 1) probe(int iters, long long *cycles, int *smids, uint32_t *sink) {
    extern __shared__ __align__(1024) uint8_t smem[];
    const uint32_t base = ((uint32_t)__cvta_generic_to_shared(smem) + 1023u) & ~1023u;
    /* B / A tiles: small BF16 values; codes: mixed bits; scale codes 0x30-0x3F (never the NaN 0x7F) */
    for (uint32_t i = threadIdx.x; i < OFF_RAW / 4; i += blockDim.x) sts32(base + 4 * i, 0x3C003C01u + (i & 7));
    for (uint32_t i = threadIdx.x; i < (OFF_SC - OFF_RAW) / 4; i += blockDim.x)
        sts32(base + OFF_RAW + 4 * i, (i * 0x9E3779B9u) ^ (i >> 3));
    for (uint32_t i = threadIdx.x; i < (USED - OFF_SC) / 4; i += blockDim.x)
        sts32(base + OFF_SC + 4 * i, 0x30303030u + (i & 0x0F0F0F0Fu));
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* generic writes -> wgmma reads */
    __syncthreads();

    /* wg through a SHFL (as v7): ptxas then keeps the SS descriptors in uniform registers */
    const uint32_t wg = __shfl_sync(0xFFFFFFFFu, threadIdx.x / 128, 0);
    const uint32_t t = threadIdx.x % 128, lane = t % 32, warp = t / 32;
    const uint32_t g = lane / 4, tq = lane % 4;
    const uint32_t r = 64 * wg + 16 * warp + g; /* the thread's weight rows r, r + 8 (v7's mapping) */
    const uint32_t raw0 = base + OFF_RAW + 2048 * wg + 16 * t;
    const uint32_t sc00 = base + OFF_SC + 4 * r, sc10 = base + OFF_SC + 4 * (r + 8);
    const uint32_t qsel = tq | tq << 4 | (4 + tq) << 8 | (4 + tq) << 12;
    const uint32_t atile0 = base + OFF_A + 2 * TILE * wg; /* this warpgroup's two A tiles */
    /* SSW stores: thread t writes row t / 2, 16-byte chunks 4 (t % 2) .. + 3, 128B-swizzled
     * (chunk c of row m at 16 (c ^ m % 8)): 8 distinct chunks per quarter warp, no conflicts */
    uint32_t st_off[4];
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const uint32_t m = t / 2, c = 4 * (t % 2) + j;
        st_off[j] = m * 128 + 16 * (c ^ (m % 8));
    }
    const uint32_t kz = (uint32_t)iters >> 31; /* 0 (iters >= 2); see dequant_var */
    float acc[32];
#pragma unroll
    for (int i = 0; i < 32; i++) acc[i] = 0.0f;
    uint32_t f0[16], f1[16], stamp = 0;
#pragma unroll
    for (int j = 0; j < 16; j++) f0[j] = f1[j] = 0x3C003C01u + j + t % 3;

    /* K-tile i: its wgmmas read fragment set / A tile cur; then K-tile i + 1 is dequantized into nxt */
    auto step = [&](int i, uint32_t(&cur)[16], uint32_t(&nxt)[16], uint32_t cur_tile, uint32_t nxt_tile) {
        if (FORM == FORM_SSW) asm volatile("bar.sync %0, 128;\n" ::"r"(1 + wg) : "memory"); /* tile i stored */
        /* a scheduling fence (see the top): nothing of the dequantization of K-tile i moves below
         * K-tile i's wgmmas. One S2UR per K-tile, all modes */
        uint32_t clk;
        asm volatile("mov.u32 %0, %%clock;\n" : "=r"(clk)::"memory");
        stamp ^= clk;
        if (MODE != MODE_D) {
            const uint32_t b = base + OFF_B + (uint32_t)(i % NB) * TILE;
            acc_fence(acc);
            wg_fence();
#pragma unroll
            for (int s = 0; s < 4; s++) {
                if (FORM == FORM_RS) wgmma_rs(acc, cur + 4 * s, desc_of(b + 32 * s));
                else wgmma_ss(acc, desc_of(cur_tile + 32 * s), desc_of(b + 32 * s));
            }
            wg_commit();
            acc_fence(acc);
            if (MODE == MODE_TD0) wg_wait<0>();
            else wg_wait<1>(); /* K-tile i - 1 done: nxt (and its A tile) are free */
            acc_fence(acc);
        }
        if (MODE != MODE_T) {
            const uint32_t k = (uint32_t)(i + 1) % NK;
            dequant_var<VAR>(nxt, raw0 + k * RAW_KT, sc00 + k * SC_KT, sc10 + k * SC_KT, qsel, kz);
            pin16(nxt);
            if (FORM == FORM_SSW) {
#pragma unroll
                for (int j = 0; j < 4; j++)
                    sts128(nxt_tile + st_off[j], nxt[4 * j], nxt[4 * j + 1], nxt[4 * j + 2], nxt[4 * j + 3]);
                asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* stores -> the next wgmmas */
            }
        }
    };

    __syncthreads();
    const long long t0 = clock64();
    if (VAR == VAR_FULL) {
        for (int i = 0; i < iters; i += 2) { /* unrolled by two: the fragment sets alternate, as in v7 */
            step(i, f0, f1, atile0, atile0 + TILE);
            step(i + 1, f1, f0, atile0 + TILE, atile0);
        }
    } else {
        /* the variants: ptxas must not unroll further (as it does not for the full mix): in a body of
         * 4 K-tiles one K-tile's words are overwritten unread and, in D kernels, it dropped them */
#pragma unroll 1
        for (int i = 0; i < iters; i += 2) {
            step(i, f0, f1, atile0, atile0 + TILE);
            step(i + 1, f1, f0, atile0 + TILE, atile0);
        }
    }
    if (MODE != MODE_D) wg_wait<0>();
    acc_fence(acc);
    const long long t1 = clock64();
    if (MODE == MODE_D && iters < 0) never_run_wgmma(acc, f0, base); /* see the note at the top */
    probe_finish(t0, t1, t, wg, cycles, smids, sink, f0, f1, acc, stamp);
}

/* SPLIT (session 22, helper wgmix3): is the serialization per warp or per SM? Warpgroups
 * 0 .. WT - 1 run only T (RS: 4 wgmmas per K-tile on their fragment registers, commit,
 * wait_group 1), warpgroups WT .. WT + WD - 1 run only D (v7's full mix into the alternating
 * fragment sets, no wgmma at run time), each group its own `iters` K-tiles, no synchronisation
 * between the groups after the __syncthreads before the loops. WD = 0 / WT = 0: the references
 * (T alone at WT, D alone at WD). WT is a run-time argument and WD = blockDim.x / 128 - WT: one
 * kernel for every configuration, so the references run the same machine code as the splits. The loops
 * are `probe`'s T and D steps (a clock read at the top of each K-tile); the D branch keeps mode D's
 * never-run wgmma (the T branch's HGMMAs already keep HMUL2 off the tensor pipe; this way the D
 * loop does not depend on that). The D warpgroups address the code / scale tables as warpgroups
 * 0 .. WD - 1 (as `probe` at W = WD). Launch bounds 512 (the (2, 2) case: <= 128 registers per
 * thread), one CTA per SM (the 200 KiB request). */
/* The SPLIT kernels' T and D kinds (session 25, helper s24probe; the existing probe_split is
 * <TK_BF16, DK_FULL>): TK_E4M3_2: 2 x wgmma m64n64k32 e4m3 per K-tile (RS), the BF16 T's FLOPs in half
 * the wgmmas and, at the FP8 rate, about half the tensor time; TK_E4M3_4: 4 of them (twice the
 * FLOPs, the BF16 T's wgmma count and tensor time). DK_FOLD: the mix with v7.14's FOLD (8 PRMT
 * fewer); DK_HALF: the mix on words 0-7 only (dequant_t). */
enum { TK_BF16, TK_E4M3_2, TK_E4M3_4 };
enum { DK_FULL, DK_FOLD, DK_HALF, DK_NOSHFL, DK_SHFLONLY, DK_CVT };

template <int TK, int DK>
__device__ __forceinline__ void split_body(int iters, int wt, long long *cycles, int *smids, uint32_t *sink) {
    extern __shared__ __align__(1024) uint8_t smem[];
    const uint32_t base = ((uint32_t)__cvta_generic_to_shared(smem) + 1023u) & ~1023u;
    for (uint32_t i = threadIdx.x; i < OFF_RAW / 4; i += blockDim.x) sts32(base + 4 * i, 0x3C003C01u + (i & 7));
    for (uint32_t i = threadIdx.x; i < (OFF_SC - OFF_RAW) / 4; i += blockDim.x)
        sts32(base + OFF_RAW + 4 * i, (i * 0x9E3779B9u) ^ (i >> 3));
    for (uint32_t i = threadIdx.x; i < (USED - OFF_SC) / 4; i += blockDim.x)
        sts32(base + OFF_SC + 4 * i, 0x30303030u + (i & 0x0F0F0F0Fu));
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();

    const uint32_t wg = __shfl_sync(0xFFFFFFFFu, threadIdx.x / 128, 0);
    const bool tensor_group = wg < (uint32_t)wt;
    const uint32_t dwg = tensor_group ? 0 : wg - (uint32_t)wt; /* the D warpgroup's index within its group */
    const uint32_t t = threadIdx.x % 128, lane = t % 32, warp = t / 32;
    const uint32_t g = lane / 4, tq = lane % 4;
    const uint32_t r = 64 * dwg + 16 * warp + g;
    const uint32_t raw0 = base + OFF_RAW + 2048 * dwg + 16 * t;
    const uint32_t sc00 = base + OFF_SC + 4 * r, sc10 = base + OFF_SC + 4 * (r + 8);
    const uint32_t qsel = tq | tq << 4 | (4 + tq) << 8 | (4 + tq) << 12;
    float acc[32];
#pragma unroll
    for (int i = 0; i < 32; i++) acc[i] = 0.0f;
    uint32_t f0[16], f1[16], stamp = 0;
#pragma unroll
    for (int j = 0; j < 16; j++) f0[j] = f1[j] = 0x3C003C01u + j + t % 3;

    const uint32_t kz = (uint32_t)iters >> 31; /* 0 (iters >= 2); DK_NOSHFL's stand-ins for the SHFLs */
    const uint32_t ks[4] = {kz, kz << 1, kz << 2, kz << 3};
    auto tensor_step = [&](int i, uint32_t(&cur)[16]) { /* mode T, RS */
        uint32_t clk;
        asm volatile("mov.u32 %0, %%clock;\n" : "=r"(clk)::"memory");
        stamp ^= clk;
        const uint32_t b = base + OFF_B + (uint32_t)(i % NB) * TILE;
        acc_fence(acc);
        wg_fence();
        if (TK == TK_BF16) {
#pragma unroll
            for (int s = 0; s < 4; s++) wgmma_rs(acc, cur + 4 * s, desc_of(b + 32 * s));
        } else { /* e4m3: k32 = 32 bytes of a B row, as k16 of BF16 (TK_E4M3_2 reads A words 0-7 only) */
#pragma unroll
            for (int s = 0; s < (TK == TK_E4M3_2 ? 2 : 4); s++) wgmma_rs_e4m3(acc, cur + 4 * s, desc_of(b + 32 * s));
        }
        wg_commit();
        acc_fence(acc);
        wg_wait<1>();
        acc_fence(acc);
    };
    auto dequant_step = [&](int i, uint32_t(&nxt)[16]) { /* mode D: K-tile i + 1 into nxt */
        uint32_t clk;
        asm volatile("mov.u32 %0, %%clock;\n" : "=r"(clk)::"memory");
        stamp ^= clk;
        const uint32_t k = (uint32_t)(i + 1) % NK;
        if (DK == DK_NOSHFL) dequant_noshfl(nxt, raw0 + k * RAW_KT, sc00 + k * SC_KT, sc10 + k * SC_KT, qsel, ks);
        else if (DK == DK_SHFLONLY) dequant_shflonly(nxt, raw0 + k * RAW_KT, sc00 + k * SC_KT, sc10 + k * SC_KT);
        else if (DK == DK_CVT) dequant_cvt(nxt, raw0 + k * RAW_KT, sc00 + k * SC_KT, sc10 + k * SC_KT, qsel);
        else
            dequant_t<DK == DK_FOLD, DK == DK_HALF ? 2 : 4>(nxt, raw0 + k * RAW_KT, sc00 + k * SC_KT,
                                                           sc10 + k * SC_KT, qsel);
        pin16(nxt);
    };

    __syncthreads();
    long long t0, t1;
    if (tensor_group) {
        t0 = clock64();
        for (int i = 0; i < iters; i += 2) {
            tensor_step(i, f0);
            tensor_step(i + 1, f1);
        }
        wg_wait<0>();
        acc_fence(acc);
        t1 = clock64();
    } else {
        t0 = clock64();
        if (DK == DK_FULL) {
            for (int i = 0; i < iters; i += 2) {
                dequant_step(i, f1);
                dequant_step(i + 1, f0);
            }
        } else {
            /* the lighter mixes: no further unrolling (as the variants in `probe`: in a body of 4
             * K-tiles one K-tile's words would be overwritten unread and could be dropped) */
#pragma unroll 1
            for (int i = 0; i < iters; i += 2) {
                dequant_step(i, f1);
                dequant_step(i + 1, f0);
            }
        }
        acc_fence(acc);
        t1 = clock64();
        if (iters < 0) never_run_wgmma(acc, f0, base); /* as in mode D's kernel */
    }
    probe_finish(t0, t1, t, wg, cycles, smids, sink, f0, f1, acc, stamp);
}


__global__ void __launch_bounds__(512, 1) probe_split(int iters, int wt, long long *cycles, int *smids,
                                                      uint32_t *sink) {
    split_body<TK_BF16, DK_FULL>(iters, wt, cycles, smids, sink);
}
template <int TK, int DK>
__global__ void __launch_bounds__(512, 1) probe_split_k(int iters, int wt, long long *cycles, int *smids,
                                                        uint32_t *sink) {
    split_body<TK, DK>(iters, wt, cycles, smids, sink);
}

struct row_t {
    int form, mode, w, var; /* var: -1 for the base rows (forms x modes x W), else the dequantization variant */
    double med, p10, p90;
    int one_per_sm;
};

template <int MODE, int FORM, int W, int VAR = VAR_FULL> static row_t run(int sms, int iters, int var_label = -1) {
    long long *cyc;
    int *smid;
    uint32_t *sink;
    CHECK(cudaMalloc(&cyc, sizeof(long long) * sms * 4));
    CHECK(cudaMalloc(&smid, sizeof(int) * sms));
    CHECK(cudaMalloc(&sink, sizeof(uint32_t) * sms * 128 * W));
    CHECK(cudaMemset(cyc, 0, sizeof(long long) * sms * 4));
    CHECK(cudaFuncSetAttribute(probe<MODE, FORM, W, VAR>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, probe<MODE, FORM, W, VAR>, 128 * W, SMEM_BYTES));
    std::vector<long long> h(sms * 4);
    std::vector<int> hs(sms);
    std::vector<std::vector<double>> launches;
    int distinct_all = 1;
    for (int rep = 0; rep < 4; rep++) { /* a warm-up, then 3 timed */
        probe<MODE, FORM, W, VAR><<<sms, 128 * W, SMEM_BYTES>>>(iters, cyc, smid, sink);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        if (rep == 0) continue;
        CHECK(cudaMemcpy(h.data(), cyc, sizeof(long long) * sms * 4, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hs.data(), smid, sizeof(int) * sms, cudaMemcpyDeviceToHost));
        std::sort(hs.begin(), hs.end());
        if (std::unique(hs.begin(), hs.end()) != hs.end()) distinct_all = 0;
        std::vector<double> per; /* cycles per K-tile per CTA: the CTA's slowest warpgroup */
        for (int c = 0; c < sms; c++) {
            long long m = 0;
            for (int w = 0; w < W; w++) m = std::max(m, h[c * 4 + w]);
            per.push_back((double)m / iters);
        }
        std::sort(per.begin(), per.end());
        launches.push_back(per);
    }
    std::sort(launches.begin(), launches.end(), [](const std::vector<double> &a, const std::vector<double> &b) {
        return a[a.size() / 2] < b[b.size() / 2];
    });
    const std::vector<double> &mid = launches[1];
    CHECK(cudaFree(cyc));
    CHECK(cudaFree(smid));
    CHECK(cudaFree(sink));
    row_t row = {FORM, MODE, W, var_label, mid[mid.size() / 2], mid[mid.size() / 10], mid[mid.size() * 9 / 10],
                 per_sm == 1 && distinct_all};
    return row;
}

template <int FORM, int W> static void run_form(std::vector<row_t> &rows, int sms, int iters) {
    rows.push_back(run<MODE_T, FORM, W>(sms, iters));
    rows.push_back(run<MODE_D, FORM, W>(sms, iters));
    rows.push_back(run<MODE_TD, FORM, W>(sms, iters));
    rows.push_back(run<MODE_TD0, FORM, W>(sms, iters));
}
template <int W> static void run_w(std::vector<row_t> &rows, int sms, int iters) {
    run_form<FORM_RS, W>(rows, sms, iters);
    run_form<FORM_SS, W>(rows, sms, iters);
    run_form<FORM_SSW, W>(rows, sms, iters);
}

/* the variant rows: RS form, D and TD, v_full first (the same kernels as the base RS D / TD rows: a control) */
template <int W, int VAR> static void run_var(std::vector<row_t> &rows, int sms, int iters) {
    rows.push_back(run<MODE_D, FORM_RS, W, VAR>(sms, iters, VAR));
    rows.push_back(run<MODE_TD, FORM_RS, W, VAR>(sms, iters, VAR));
}
template <int W> static void run_vars(std::vector<row_t> &rows, int sms, int iters) {
    run_var<W, VAR_FULL>(rows, sms, iters);
    run_var<W, VAR_NOHMUL>(rows, sms, iters);
    run_var<W, VAR_NOHMUL_LOP>(rows, sms, iters);
    run_var<W, VAR_HMULONLY>(rows, sms, iters);
    run_var<W, VAR_INTONLY>(rows, sms, iters);
    run_var<W, VAR_FP32>(rows, sms, iters);
    run_var<W, VAR_LDS>(rows, sms, iters);
}

/* SPLIT rows: per launch and CTA, the max over the T group's warpgroups, over the D group's, and
 * over all (the CTA); each quantity's median over CTAs, then the median of the 3 timed launches
 * (p10 / p90 over CTAs from the launch that gave that median) */
typedef void (*split_kernel_t)(int, int, long long *, int *, uint32_t *);
/* the session-25 SPLIT kinds: kernel, name prefix of their rows, wgmmas per K-tile per T warpgroup */
struct split_kind_t {
    split_kernel_t kern;
    const char *name;
    int wgmmas;
};
static const split_kind_t split_kinds[] = {
    {probe_split_k<TK_BF16, DK_FOLD>, "dfold", 4},      /* D: the mix with FOLD (8 PRMT fewer) */
    {probe_split_k<TK_BF16, DK_HALF>, "dhalf", 4},      /* D: the mix on words 0-7 only */
    {probe_split_k<TK_E4M3_2, DK_FULL>, "te4m3x2", 2}, /* T: 2 e4m3 k32 wgmmas (the BF16 T's FLOPs) */
    {probe_split_k<TK_E4M3_4, DK_FULL>, "te4m3x4", 4}, /* T: 4 e4m3 k32 wgmmas (twice the FLOPs) */
    {probe_split_k<TK_BF16, DK_NOSHFL>, "dnoshfl", 4},    /* D: the mix, its 4 SHFLs replaced (s25b) */
    {probe_split_k<TK_BF16, DK_SHFLONLY>, "dshflonly", 4}, /* D: the mix's 3 LDS and 4 SHFLs only (s25b) */
    {probe_split_k<TK_BF16, DK_CVT>, "dcvt", 4},          /* D: e2m1 via e4m3 bytes and F2FP (s25b) */
};

struct split_t {
    int kind; /* -1: probe_split (session 22's rows), else an index into split_kinds */
    int wt, wd;
    double med[3], p10[3], p90[3]; /* [0] the CTA, [1] the T group, [2] the D group (0 where absent) */
    int one_per_sm;
};

static split_t run_split(int wt, int wd, int sms, int iters, int kind = -1) {
    const split_kernel_t kern = kind < 0 ? probe_split : split_kinds[kind].kern;
    const int w_all = wt + wd;
    long long *cyc;
    int *smid;
    uint32_t *sink;
    CHECK(cudaMalloc(&cyc, sizeof(long long) * sms * 4));
    CHECK(cudaMalloc(&smid, sizeof(int) * sms));
    CHECK(cudaMalloc(&sink, sizeof(uint32_t) * sms * 128 * w_all));
    CHECK(cudaMemset(cyc, 0, sizeof(long long) * sms * 4));
    CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, 128 * w_all, SMEM_BYTES));
    std::vector<long long> h(sms * 4);
    std::vector<int> hs(sms);
    std::vector<std::vector<double>> launches[3];
    int distinct_all = 1;
    for (int rep = 0; rep < 4; rep++) { /* a warm-up, then 3 timed */
        kern<<<sms, 128 * w_all, SMEM_BYTES>>>(iters, wt, cyc, smid, sink);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        if (rep == 0) continue;
        CHECK(cudaMemcpy(h.data(), cyc, sizeof(long long) * sms * 4, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hs.data(), smid, sizeof(int) * sms, cudaMemcpyDeviceToHost));
        std::sort(hs.begin(), hs.end());
        if (std::unique(hs.begin(), hs.end()) != hs.end()) distinct_all = 0;
        std::vector<double> per[3];
        for (int c = 0; c < sms; c++) {
            long long m[3] = {0, 0, 0};
            for (int w = 0; w < w_all; w++) {
                const long long x = h[c * 4 + w];
                m[0] = std::max(m[0], x);
                m[w < wt ? 1 : 2] = std::max(m[w < wt ? 1 : 2], x);
            }
            for (int q = 0; q < 3; q++) per[q].push_back((double)m[q] / iters);
        }
        for (int q = 0; q < 3; q++) {
            std::sort(per[q].begin(), per[q].end());
            launches[q].push_back(per[q]);
        }
    }
    CHECK(cudaFree(cyc));
    CHECK(cudaFree(smid));
    CHECK(cudaFree(sink));
    split_t x = {kind, wt, wd, {0}, {0}, {0}, per_sm == 1 && distinct_all};
    auto by_median = [](const std::vector<double> &a, const std::vector<double> &b) {
        return a[a.size() / 2] < b[b.size() / 2];
    };
    for (int q = 0; q < 3; q++) {
        std::sort(launches[q].begin(), launches[q].end(), by_median);
        const std::vector<double> &mid = launches[q][1];
        x.med[q] = mid[mid.size() / 2], x.p10[q] = mid[mid.size() / 10], x.p90[q] = mid[mid.size() * 9 / 10];
    }
    return x;
}

/* DK_CVT's arithmetic, checked once before the timing (exit 3 on a mismatch): on the host, the
 * layout's bytes decode (as e4m3) to exactly the e2m1 value x 2^-6 for all 16 codes; on the device,
 * cvt_scale / SHFL / cvt_word (the probe's own code) against e2m1 x scale for random codes and every
 * scale code 0x00-0x7E. One warp per block; thread i: raw words raw[4 i .. 4 i + 3], scale codes
 * sc[2 i] (row g), sc[2 i + 1] (row g + 8); out: its 16 words. */
__global__ void dcvt_check(const uint32_t *raw, const uint32_t *sc, uint32_t *out) {
    const uint32_t i = blockIdx.x * 32 + threadIdx.x, tq = threadIdx.x % 4;
    const uint32_t qsel = tq | tq << 4 | (4 + tq) << 8 | (4 + tq) << 12;
    const uint32_t sv = cvt_scale(sc[2 * i], sc[2 * i + 1], qsel);
    uint32_t f[16];
#pragma unroll
    for (int s = 0; s < 4; s++) cvt_word(f, s, raw[4 * i + s], __shfl_sync(0xFFFFFFFFu, sv, s, 4));
    for (int j = 0; j < 16; j++) out[16 * i + j] = f[j];
}
static double e2m1_value(uint32_t n) { /* sign bit 3, exponent bits 2:1, mantissa bit 0 */
    static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    return (n & 8 ? -1 : 1) * mag[n & 7];
}
static double e4m3_value(uint32_t b) { /* finite codes only (not 0x7F / 0xFF) */
    const int e = (b >> 3) & 15, m = b & 7;
    const double v = e ? ldexp(1.0 + m / 8.0, e - 7) : ldexp(m / 8.0, -6);
    return b & 0x80 ? -v : v;
}
static uint32_t f16_bits(double v) { /* v exactly representable, |v| >= 2^-14 or 0 */
    const uint32_t sign = std::signbit(v) ? 0x8000u : 0u;
    if (v == 0) return sign;
    int e;
    const double fr = frexp(fabs(v), &e); /* [0.5, 1) x 2^e */
    return sign | (uint32_t)(e - 1 + 15) << 10 | (uint32_t)((fr * 2 - 1) * 1024);
}
/* the layout's raw word from the 8 codes: A codes a[b] and B codes bb[b] of bytes b = 0..3 */
static uint32_t cvt_pack(const uint32_t *a, const uint32_t *bb) {
    uint32_t c = 0;
    for (int b = 0; b < 4; b++) {
        const uint32_t ca = (a[b] & 8) << 4 | (a[b] & 7) << 2;                            /* bits 7, 4:2 */
        const uint32_t cb = (bb[b] & 8) << 2 | (bb[b] & 4) << 4 | (bb[b] & 3);            /* bits 5, 6, 1:0 */
        c |= (ca | cb) << (8 * b);
    }
    return c;
}
static int dcvt_selfcheck() {
    int bad = 0;
    for (uint32_t n = 0; n < 16; n++) { /* host: every code in both slots of every byte */
        for (int b = 0; b < 4; b++) {
            uint32_t a[4] = {0, 0, 0, 0}, bb[4] = {0, 0, 0, 0};
            a[b] = n;
            const uint32_t ca = cvt_pack(a, bb);
            bb[b] = n, a[b] = 0;
            const uint32_t cb = cvt_pack(a, bb);
            const double va = e4m3_value(((ca & CVT_MASK_A) >> (8 * b)) & 0xFF) * 64.0;
            const double vb = e4m3_value((cvt_bytes_b(cb) >> (8 * b)) & 0xFF) * 64.0;
            const double want = e2m1_value(n);
            if (va != want || vb != want || std::signbit(va) != std::signbit(want) ||
                std::signbit(vb) != std::signbit(want))
                bad++;
        }
    }
    if (bad) {
        fprintf(stderr, "dcvt host check: %d mismatches\n", bad);
        return bad;
    }
    const int nthr = 64 * 32; /* 64 warps */
    std::vector<uint32_t> raw(4 * nthr), sc(2 * nthr), out(16 * nthr), codes(32 * nthr);
    uint32_t lcg = 12345u;
    for (int i = 0; i < 32 * nthr; i++) codes[i] = (lcg = lcg * 1664525u + 1013904223u) >> 28;
    for (int i = 0; i < nthr; i++)
        for (int s = 0; s < 4; s++) raw[4 * i + s] = cvt_pack(&codes[32 * i + 8 * s], &codes[32 * i + 8 * s + 4]);
    for (int i = 0; i < 2 * nthr; i++) { /* 4 scale bytes per code word: all of 0x00-0x7E, bit 7 set on some */
        uint32_t w = 0;
        for (int b = 0; b < 4; b++) w |= ((4 * i + b) % 127 | ((i >> 3) & 1) << 7) << (8 * b);
        sc[i] = w;
    }
    uint32_t *d_raw, *d_sc, *d_out;
    CHECK(cudaMalloc(&d_raw, 4 * raw.size()));
    CHECK(cudaMalloc(&d_sc, 4 * sc.size()));
    CHECK(cudaMalloc(&d_out, 4 * out.size()));
    CHECK(cudaMemcpy(d_raw, raw.data(), 4 * raw.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_sc, sc.data(), 4 * sc.size(), cudaMemcpyHostToDevice));
    dcvt_check<<<nthr / 32, 32>>>(d_raw, d_sc, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, 4 * out.size(), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_raw));
    CHECK(cudaFree(d_sc));
    CHECK(cudaFree(d_out));
    for (int i = 0; i < nthr; i++)
        for (int s = 0; s < 4; s++) {
            const int src = (i & ~3) + s; /* step s's scales: quad thread s, byte s */
            const double scale[2] = {e4m3_value((sc[2 * src] >> (8 * s)) & 0x7F),
                                     e4m3_value((sc[2 * src + 1] >> (8 * s)) & 0x7F)};
            const uint32_t *cd = &codes[32 * i + 8 * s]; /* A bytes 0-3, then B bytes 0-3 */
            for (int j = 0; j < 4; j++) {                /* word 4 s + j: A 0-1, A 2-3, B 0-1, B 2-3 */
                const uint32_t *pair = cd + 4 * (j / 2) + 2 * (j % 2);
                const double sj = scale[j % 2];
                const uint32_t want = f16_bits(e2m1_value(pair[0]) * sj) | f16_bits(e2m1_value(pair[1]) * sj) << 16;
                if (out[16 * i + 4 * s + j] != want && bad++ < 5)
                    fprintf(stderr, "dcvt device check: thread %d word %d: %08x, want %08x\n", i, 4 * s + j,
                            out[16 * i + 4 * s + j], want);
            }
        }
    if (bad) fprintf(stderr, "dcvt device check: %d mismatches\n", bad);
    return bad;
}

int main(int argc, char **argv) {
    const int iters = argc > 1 ? atoi(argv[1]) : 2048;
    if (iters < 2 || iters % 2) {
        fprintf(stderr, "usage: %s [iters (even, >= 2)]\n", argv[0]);
        return 1;
    }
    int dev = 0, sms = 0, clock_khz = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    if (dcvt_selfcheck()) return 3;
    std::vector<row_t> rows;
    run_w<2>(rows, sms, iters);
    run_w<1>(rows, sms, iters);
    run_w<4>(rows, sms, iters);
    run_vars<2>(rows, sms, iters);
    run_vars<4>(rows, sms, iters);
    std::vector<split_t> split; /* the references (one group alone) first, then the four splits */
    static const int split_cfg[8][2] = {{1, 0}, {2, 0}, {0, 1}, {0, 2}, {2, 2}, {2, 1}, {1, 1}, {1, 2}};
    for (const auto &c : split_cfg) split.push_back(run_split(c[0], c[1], sms, iters));
    /* session 25: each kind's references, then (2, 2) and (2, 1), appended after the rows above */
    static const int kind_cfg[6][2] = {{1, 0}, {2, 0}, {0, 1}, {0, 2}, {2, 2}, {2, 1}};
    for (int k = 0; k < (int)(sizeof split_kinds / sizeof split_kinds[0]); k++)
        for (const auto &c : kind_cfg) split.push_back(run_split(c[0], c[1], sms, iters, k));
    printf("form,mode,w,ctas,iters,cyc_per_ktile_cta,p10,p90,tensor_cyc,tensor_share,t_cyc,d_cyc,"
           "over_sum,over_max,one_per_sm,variant\n");
    int bad = 0;
    for (const row_t &x : rows) {
        double tc = 0, dc = 0;
        for (const row_t &y : rows) /* T: the base row of the form and W; D: the row's own variant */
            if (y.form == x.form && y.w == x.w) {
                if (y.mode == MODE_T && y.var < 0) tc = y.med;
                if (y.mode == MODE_D && y.var == x.var) dc = y.med;
            }
        const double tensor = 4.0 * 32.0 * x.w; /* 4 m64n64k16 per warpgroup at 32 cycles (dense rate) */
        printf("%s,%s,%d,%d,%d,%.1f,%.1f,%.1f,%.0f,%.3f,%.1f,%.1f,%.3f,%.3f,%d,%s\n", form_name[x.form],
               mode_name[x.mode], x.w, sms, iters, x.med, x.p10, x.p90, tensor,
               x.mode == MODE_D ? 0.0 : tensor / x.med, tc, dc, x.med / (tc + dc), x.med / std::max(tc, dc),
               x.one_per_sm, x.var < 0 ? "-" : var_name[x.var]);
        bad |= !x.one_per_sm;
    }
    /* SPLIT rows (form RS, mode SPLIT, w = WT + WD, variant tXdY_cta / _tgrp / _dgrp; a reference
     * has its _cta row only): t_cyc = T alone at WT warpgroups (the t<WT>d0 reference), d_cyc = D
     * alone at WD (t0d<WD>), so over_sum = row / (T_alone + D_alone), over_max = row / max. The
     * session-25 kinds' rows: variant <kind>_tXdY_<part>, their references from their own kernel;
     * tensor_cyc = WT x wgmmas x 32 (an e4m3 m64n64k32 at the FP8 dense rate: 32 cycles) */
    size_t nsplit = 0;
    for (const split_t &x : split) {
        double tc = 0, dc = 0;
        for (const split_t &y : split) {
            if (y.kind != x.kind) continue;
            if (y.wd == 0 && y.wt == x.wt) tc = y.med[0];
            if (y.wt == 0 && y.wd == x.wd) dc = y.med[0];
        }
        static const char *const part[] = {"cta", "tgrp", "dgrp"};
        for (int q = 0; q < 3; q++) {
            if (q > 0 && (x.wt == 0 || x.wd == 0)) continue;
            const double tensor = (x.kind < 0 ? 4 : split_kinds[x.kind].wgmmas) * 32.0 * x.wt;
            printf("RS,SPLIT,%d,%d,%d,%.1f,%.1f,%.1f,%.0f,%.3f,%.1f,%.1f,%.3f,%.3f,%d,%s%st%dd%d_%s\n", x.wt + x.wd,
                   sms, iters, x.med[q], x.p10[q], x.p90[q], tensor, q == 2 ? 0.0 : tensor / x.med[q], tc, dc,
                   x.med[q] / (tc + dc), x.med[q] / std::max(tc, dc), x.one_per_sm,
                   x.kind < 0 ? "" : split_kinds[x.kind].name, x.kind < 0 ? "" : "_", x.wt, x.wd, part[q]);
            nsplit++;
        }
        bad |= !x.one_per_sm;
    }
    fprintf(stderr, "device clock %.0f MHz (nominal); %zu rows\n", clock_khz / 1e3, rows.size() + nsplit);
    return bad ? 2 : 0;
}
