/* gemv_warp.cuh - the GEMV's per-warp data-path helpers (gemv.cu), shared with the skinny
 * wgmma kernel (skinny_sm90.cu), which feeds the same dequantized words to wgmma, and with v7
 * (gemm_sm90.cu: prmt, and half_bcast for its folded scale pairs): NVFP4
 * words into FP16/BF16 operand pairs times the block scale (exact, with a fixed power-of-two
 * factor the epilogue removes: BF16 2^-7, FP16 2^-14), the scale pairs, and the cp.async
 * ring's copies. Notes: docs/notes/gemv.md. */
#ifndef TETRA_GEMV_WARP_CUH
#define TETRA_GEMV_WARP_CUH

#include <stdint.h>

#include <cuda_runtime.h>

__device__ __forceinline__ uint32_t mul_f16x2(uint32_t a, uint32_t b) {
    uint32_t d;
    asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}

/* bf16x2 multiply on sm_80 (mul.bf16x2 is sm_90+): fma with -0 adds nothing. */
__device__ __forceinline__ uint32_t mul_bf16x2(uint32_t a, uint32_t b) {
    uint32_t d;
    asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(0x80008000u));
    return d;
}

__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
    uint32_t r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
    return r;
}

/* (h, h) from half H of v (H = 0: bits 0-15). As a 16-bit broadcast, ptxas can fold it into
 * the HMUL2/HFMA2 that consumes it (operand .H0_H0 / .H1_H1); a PRMT stays an instruction. */
template <int H, bool FOLD> __device__ __forceinline__ uint32_t half_bcast(uint32_t v) {
    if (FOLD) {
        uint32_t r;
        if (H == 0)
            asm("{\n.reg .b16 lo, hi;\nmov.b32 {lo, hi}, %1;\nmov.b32 %0, {lo, lo};\n}" : "=r"(r) : "r"(v));
        else
            asm("{\n.reg .b16 lo, hi;\nmov.b32 {lo, hi}, %1;\nmov.b32 %0, {hi, hi};\n}" : "=r"(r) : "r"(v));
        return r;
    }
    return prmt(v, 0u, H ? 0x3232u : 0x1010u);
}

/* Scale pair of the operand type from two UE4M3 codes at bits 0-7 and 16-23 of `sp` (the
 * other bits zero), as (s_lo, s_hi) times the factor the bit-placed weights need:
 *   FP16: a code at bits 7..14 reads as s * 2^-8 (normal and subnormal alike); * 2^8 = s.
 *   BF16: a code at bits 4..11 reads as s * 2^-120; * 2^120 * 2^119 = s * 2^119 (< 2^128).
 * The NaN code 0x7F comes out finite here; the kernel flags such rows (nan_flags). */
template <bool BF16> __device__ __forceinline__ uint32_t scale_pair2(uint32_t sp) {
    if (BF16) return mul_bf16x2(mul_bf16x2(sp << 4, 0x7B807B80u), 0x7B007B00u);
    return mul_f16x2(sp << 7, 0x5C005C00u);
}

/* One 32-bit word of 8 E2M1 nibbles n0..n7 (n0 in the low nibble) -> four operand pairs
 * out[i] = (n_i, n_{i+4}) * s2, low half n_i. A nibble's e1 e0 m bits go to the exponent's
 * two low bits and the mantissa's top bit, its sign to bit 15: BF16 bits 6-8, read as
 * e2m1 * 2^-126 (code 1 is the subnormal 2^-127 = 0.5 * 2^-126); times s * 2^119 that is
 * e2m1 * s * 2^-7 in [2^-17, 21]: exact.
 * Cost per pair: AND (two nibbles at 0-3 / 16-19, or 4-7 / 20-23, nothing else), one
 * integer multiply that places both copies (shifts 6 and 12, or 2 and 8: the copies do not
 * overlap, so the sum is an OR), AND with the sign/magnitude mask, one multiply by s2. */
__device__ __forceinline__ void dequant_bf16(uint32_t w, uint32_t s2, uint32_t out[4]) {
    const uint32_t keep = 0x81C081C0u;
    const uint32_t w8 = w >> 8;
    out[0] = mul_bf16x2(((w & 0x000F000Fu) * 0x1040u) & keep, s2);
    out[1] = mul_bf16x2(((w & 0x00F000F0u) * 0x104u) & keep, s2);
    out[2] = mul_bf16x2(((w8 & 0x000F000Fu) * 0x1040u) & keep, s2);
    out[3] = mul_bf16x2(((w8 & 0x00F000F0u) * 0x104u) & keep, s2);
}

/* The same into FP16: bits 9-11 and 15, read as e2m1 * 2^-14; times s that is
 * e2m1 * s * 2^-14, a multiple of 2^-24 below 0.17: exact, subnormals included. Shifts 9
 * and 12 of one nibble overlap (bit 12), so the copies are ORed, from words that hold every
 * other nibble only (e: n0 n2 n4 n6, o: n1 n3 n5 n7), which keeps neighbours out. */
__device__ __forceinline__ void dequant_fp16(uint32_t w, uint32_t s2, uint32_t out[4]) {
    const uint32_t keep = 0x8E008E00u;
    const uint32_t e = w & 0x0F0F0F0Fu, o = (w >> 4) & 0x0F0F0F0Fu;
    out[0] = mul_f16x2(((e << 9) | (e << 12)) & keep, s2);
    out[1] = mul_f16x2(((o << 9) | (o << 12)) & keep, s2);
    out[2] = mul_f16x2(((e << 1) | (e << 4)) & keep, s2);
    out[3] = mul_f16x2(((o << 1) | (o << 4)) & keep, s2);
}

template <bool BF16> __device__ __forceinline__ void dequant_word(uint32_t w, uint32_t s2, uint32_t out[4]) {
    if (BF16) dequant_bf16(w, s2, out);
    else dequant_fp16(w, s2, out);
}

__device__ __forceinline__ uint32_t word_of(const uint4 &v, int q) {
    return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

/* Weights are read once: cp.async.cg keeps them out of L1 (scales and X stay there). */
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

#endif /* TETRA_GEMV_WARP_CUH */
