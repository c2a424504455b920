/*
 * nvfp4_codec.h - the NVFP4 scalar codecs and scale-layout index math, written once
 * for host C and CUDA device code. This file is the source of truth for the bits:
 * every GPU kernel that encodes, decodes or indexes scales includes it, so GPU and
 * CPU results are identical by construction (the GPU tests check that they are).
 *
 * Build note: the quantizer's division must be IEEE (no --use_fast_math, no
 * -ffast-math), or GPU and CPU bits diverge.
 */
#ifndef TETRA_NVFP4_CODEC_H
#define TETRA_NVFP4_CODEC_H

#include <stdint.h>
#include <string.h>
#include <math.h>

#if defined(__CUDACC__)
#define TETRA_HD static __host__ __device__ __forceinline__
#else
#define TETRA_HD static inline
#endif

enum {
    TETRA_NVFP4_BLOCK = 16,    /* K elements per block scale */
    TETRA_SWIZZLE_ROWS = 128,  /* rows per swizzle atom */
    TETRA_SWIZZLE_COLS = 4,    /* scale columns per swizzle atom */
    TETRA_SWIZZLE_ATOM = 512   /* bytes per atom */
};

#define TETRA_E2M1_MAX 6.0f
#define TETRA_UE4M3_MAX 448.0f

/* Magnitude of an E2M1 code's low 3 bits: 0, .5, 1, 1.5, 2, 3, 4, 6. */
TETRA_HD float tetra_e2m1_magnitude(unsigned code3) {
    /* exponent field e = code>>1, mantissa m = code&1: subnormal (e=0) is m*0.5,
     * normal is (1 + m/2) * 2^(e-1). */
    unsigned e = (code3 >> 1) & 3u, m = code3 & 1u;
    if (e == 0) return 0.5f * (float)m;
    return (1.0f + 0.5f * (float)m) * (float)(1u << (e - 1));
}

TETRA_HD float tetra_e2m1_to_float(unsigned code) {
    float v = tetra_e2m1_magnitude(code & 7u);
    return (code & 8u) ? -v : v;
}

/* Round to nearest, ties to even code, saturate at 6; sign from the sign bit. */
TETRA_HD uint8_t tetra_e2m1_from_float(float x) {
    unsigned sign = signbit(x) ? 8u : 0u;
    float a = fabsf(x);
    unsigned c;
    if (isnan(x)) return 7u; /* documented: callers reject NaN before encoding */
    /* Midpoints between neighbours 0,.5,1,1.5,2,3,4,6. At a tie the code with an even
     * mantissa bit (even code) wins: 0.25->0, 0.75->1, 1.25->1, 1.75->2, 2.5->2,
     * 3.5->4, 5->4. */
    if (a <= 0.25f) c = 0;
    else if (a < 0.75f) c = 1;
    else if (a <= 1.25f) c = 2;
    else if (a < 1.75f) c = 3;
    else if (a <= 2.5f) c = 4;
    else if (a < 3.5f) c = 5;
    else if (a <= 5.0f) c = 6;
    else c = 7;
    return (uint8_t)(sign | c);
}

/* 2^e for a normal-range exponent (-126..127), built from its bits: exact, and far
 * cheaper than ldexpf in the GPU's per-element paths. */
TETRA_HD float tetra_pow2f(int e) {
    uint32_t u = (uint32_t)(e + 127) << 23;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* FP8 E4M3 (bias 7, no Inf, 0x7F/0xFF NaN) decode of any byte. */
TETRA_HD float tetra_e4m3_to_float(unsigned code) {
    unsigned e = (code >> 3) & 15u, m = code & 7u;
    float v;
    if (e == 15u && m == 7u) return NAN;
    if (e == 0) v = (float)m * tetra_pow2f(-9);
    else v = (float)(8u + m) * tetra_pow2f((int)e - 10);
    return (code & 0x80u) ? -v : v;
}

/* Unsigned E4M3 encode: round to nearest even, saturate at 448; x <= 0 or NaN -> 0. */
TETRA_HD uint8_t tetra_ue4m3_from_float(float x) {
    if (!(x > 0.0f)) return 0;            /* also NaN */
    if (x >= TETRA_UE4M3_MAX) return 0x7E; /* saturate (also +Inf) */
    if (x < 0.015625f) {                   /* below 2^-6: subnormal grid m * 2^-9 */
        float m = rintf(ldexpf(x, 9));     /* exact scaling, then RNE; 8 -> 0x08 = 2^-6 */
        return (uint8_t)m;
    }
    {
        int e2;
        float f = frexpf(x, &e2);          /* x = f * 2^e2, f in [0.5, 1) */
        float m = rintf(ldexpf(f, 4));     /* 4 significant bits: [8, 16] */
        int e = e2 - 1;                    /* x = (m/8) * 2^e */
        unsigned code;
        if (m == 16.0f) { m = 8.0f; e += 1; }
        code = ((unsigned)(e + 7) << 3) | ((unsigned)m - 8u);
        if (e + 7 > 15 || code > 0x7Eu) return 0x7E;
        return (uint8_t)code;
    }
}

/* The recipe's per-block scale and element codes, given the block amax and the global
 * decode scale g > 0. Returns the scale code; writes decode divisor s*g. */
TETRA_HD uint8_t tetra_nvfp4_block_scale(float block_amax, float g) {
    return tetra_ue4m3_from_float(block_amax / (6.0f * g));
}

/* Element code given the decoded block scale s (> 0) and g: e2m1_rn(x / (s*g)). */
TETRA_HD uint8_t tetra_nvfp4_encode_element(float x, float s, float g) {
    return tetra_e2m1_from_float(x / (s * g));
}

/* Decoded value of one element: (e2m1 * ue4m3) is exact in FP32; g is applied last,
 * so one rounding. Every dequantizer uses this order. */
TETRA_HD float tetra_nvfp4_decode_element(unsigned code, unsigned scale_code, float g) {
    return (tetra_e2m1_to_float(code) * tetra_e4m3_to_float(scale_code)) * g;
}

/* Global decode scale from a tensor amax: amax / (6*448); 1 for an all-zero tensor. */
TETRA_HD float tetra_nvfp4_global_scale(float amax) {
    float g = amax / (TETRA_E2M1_MAX * TETRA_UE4M3_MAX);
    return g > 0.0f ? g : 1.0f;
}

/* Byte offset of scale (row r, block kb) inside one batch's swizzled-128x4 buffer. */
TETRA_HD int64_t tetra_swizzled_offset(int64_t r, int64_t kb, int64_t nkb) {
    int64_t kb_tiles = (nkb + 3) / 4;
    return (int64_t)TETRA_SWIZZLE_ATOM * ((r / 128) * kb_tiles + kb / 4) + 16 * (r % 32) +
           4 * ((r % 128) / 32) + kb % 4;
}

/* Bytes of one batch's swizzled scale buffer (padded rows x padded columns). */
TETRA_HD int64_t tetra_swizzled_bytes(int64_t rows, int64_t nkb) {
    return ((rows + 127) / 128) * 128 * ((nkb + 3) / 4) * 4;
}

/* Byte offset of scale (r, kb) in one batch, either layout (0 linear, 1 swizzled).
 * scale_ld is the linear row pitch in bytes; nkb = K/16. */
TETRA_HD int64_t tetra_scale_offset(int layout, int64_t r, int64_t kb, int64_t nkb,
                                    int64_t scale_ld) {
    return layout ? tetra_swizzled_offset(r, kb, nkb) : r * scale_ld + kb;
}

/* ------------------------------------------------------------------------------------
 * TETRA_SCALE_INTERLEAVED_32X128 (docs/notes/gemv-prepared-weights.md, section 1): the
 * decode GEMV's prepared weights. Unit = one warp-segment block of 32 rows x 128 K:
 * 2048 bytes of nibbles (chunk-major: chunk i of lane 4g+t at 512i + 16*lane holds row
 * 8i+g's bytes [16t, 16t+16) of the segment, verbatim) then 256 bytes of scales (lane
 * L = 4g + t' at 2048 + 8L: rows i = 0..3 of row group g, blocks 2t', 2t'+1, byte 2i + b).
 * Blocks of one 32-row group are consecutive over the segments; rows are padded to a
 * multiple of 128 and K to a multiple of 128 with zero nibbles and scale code 0. After
 * the blocks: one flag byte per padded row (1: the row holds a scale code 0x7F or one
 * with bit 7 set), then zeros up to a multiple of 256 bytes per batch. */
enum {
    TETRA_IL_ROWS = 32,          /* rows per block (one warp of the GEMV) */
    TETRA_IL_K = 128,            /* K elements per block (one GEMV segment) */
    TETRA_IL_TILE_ROWS = 128,    /* rows are padded to this (one GEMV CTA) */
    TETRA_IL_BLOCK_BYTES = 2304, /* 2048 nibble bytes + 256 scale bytes */
    TETRA_IL_SCALE_OFF = 2048
};

/* Segments (blocks per 32-row group) of a K: ceil(K / 128). */
TETRA_HD int64_t tetra_il_segments(int64_t k) { return (k + TETRA_IL_K - 1) / TETRA_IL_K; }

/* Offset of the flag bytes in one batch: after all blocks of the padded rows. */
TETRA_HD int64_t tetra_il_flags_offset(int64_t rows, int64_t k) {
    return ((rows + TETRA_IL_TILE_ROWS - 1) / TETRA_IL_TILE_ROWS) * (TETRA_IL_TILE_ROWS / TETRA_IL_ROWS) *
           tetra_il_segments(k) * TETRA_IL_BLOCK_BYTES;
}

/* Bytes of one batch (the batch stride): blocks + one flag per padded row, to 256. */
TETRA_HD int64_t tetra_il_batch_bytes(int64_t rows, int64_t k) {
    int64_t b = tetra_il_flags_offset(rows, k) +
                ((rows + TETRA_IL_TILE_ROWS - 1) / TETRA_IL_TILE_ROWS) * TETRA_IL_TILE_ROWS;
    return (b + 255) / 256 * 256;
}

/* Start of the block of row n, segment s (nseg = tetra_il_segments(K)). */
TETRA_HD int64_t tetra_il_block(int64_t n, int64_t s, int64_t nseg) {
    return ((n / TETRA_IL_ROWS) * nseg + s) * TETRA_IL_BLOCK_BYTES;
}

/* Byte holding element k of row n (low nibble iff k is even); the 8 bytes of a 16-element
 * block are contiguous from the offset of its first element. */
TETRA_HD int64_t tetra_il_data_offset(int64_t n, int64_t k, int64_t nseg) {
    int64_t lane = 4 * (n % 8) + (k % TETRA_IL_K) / 32;
    return tetra_il_block(n, k / TETRA_IL_K, nseg) + 512 * ((n % 32) / 8) + 16 * lane + (k % 32) / 2;
}

/* Byte holding the scale of row n, block kb (16 elements). */
TETRA_HD int64_t tetra_il_scale_offset(int64_t n, int64_t kb, int64_t nseg) {
    int64_t lane = 4 * (n % 8) + (kb % 8) / 2;
    return tetra_il_block(n, kb / 8, nseg) + TETRA_IL_SCALE_OFF + 8 * lane + 2 * ((n % 32) / 8) + kb % 2;
}

/* Nibble order inside each 4-byte (little-endian) word of the layout's data.
 * TETRA_GEMV_IL_PAIRS 0 (default): as in the standard layout, element 8q + j at nibble j of
 * word q. 1 (option B, an experiment; set for host and device code alike, e.g. cmake
 * -DTETRA_GEMV_IL_PAIRS=1): element j of the word at nibble j/2 + 4*(j%2), i.e. the even
 * elements in nibbles 0-3 and the odd ones in 4-7, so that the GEMV's dequantization, which
 * pairs nibbles i and i + 4, yields (e_2i, e_2i+1): X's natural bf16x2 words. */
#ifndef TETRA_GEMV_IL_PAIRS
#define TETRA_GEMV_IL_PAIRS 0
#endif

/* A standard word in the layout's nibble order: two swaps of the positions (1 2)(5 6), then
 * of the bytes 1 and 2. */
TETRA_HD uint32_t tetra_il_word_pack(uint32_t w) {
#if TETRA_GEMV_IL_PAIRS
    uint32_t t = (w ^ (w >> 4)) & 0x00F000F0u;
    w ^= t ^ (t << 4);
    t = (w ^ (w >> 8)) & 0x0000FF00u;
    w ^= t ^ (t << 8);
#endif
    return w;
}

/* The inverse: the same two swaps in the other order. */
TETRA_HD uint32_t tetra_il_word_unpack(uint32_t w) {
#if TETRA_GEMV_IL_PAIRS
    uint32_t t = (w ^ (w >> 8)) & 0x0000FF00u;
    w ^= t ^ (t << 8);
    t = (w ^ (w >> 4)) & 0x00F000F0u;
    w ^= t ^ (t << 4);
#endif
    return w;
}

/* One block's 8 value bytes, standard order (src) -> layout order (dst), or back
 * (tetra_il_unpack8). dst and src must not overlap. */
TETRA_HD void tetra_il_pack8(uint8_t *dst, const uint8_t *src) {
    for (int h = 0; h < 2; h++) {
        uint32_t w = (uint32_t)src[4 * h] | (uint32_t)src[4 * h + 1] << 8 | (uint32_t)src[4 * h + 2] << 16 |
                     (uint32_t)src[4 * h + 3] << 24;
        w = tetra_il_word_pack(w);
        for (int b = 0; b < 4; b++) dst[4 * h + b] = (uint8_t)(w >> (8 * b));
    }
}
TETRA_HD void tetra_il_unpack8(uint8_t *dst, const uint8_t *src) {
    for (int h = 0; h < 2; h++) {
        uint32_t w = (uint32_t)src[4 * h] | (uint32_t)src[4 * h + 1] << 8 | (uint32_t)src[4 * h + 2] << 16 |
                     (uint32_t)src[4 * h + 3] << 24;
        w = tetra_il_word_unpack(w);
        for (int b = 0; b < 4; b++) dst[4 * h + b] = (uint8_t)(w >> (8 * b));
    }
}

/* Byte of row n's flag (nonzero: the row holds a NaN or non-UE4M3 scale code). */
TETRA_HD int64_t tetra_il_flag_offset(int64_t rows, int64_t k, int64_t n) {
    return tetra_il_flags_offset(rows, k) + n;
}

/* A scale code the GEMV turns into a NaN row: the NaN code 0x7F or bit 7 set. */
TETRA_HD int tetra_scale_code_bad(unsigned code) { return (code & 0x7Fu) == 0x7Fu || (code & 0x80u); }

/* ------------------------------------------------------------------------------------
 * Branch-light twins of the codecs above, for the GPU's hot loops. Each one returns the
 * same bits as its reference for the inputs named (checked exhaustively on the host,
 * see docs/notes/format-kernels.md "Rung 2"); the host core keeps using the references.
 * Every float operation is an explicit RN multiply/add/FMA on the device, so nvcc
 * cannot contract or reorder them. */

#if defined(__CUDA_ARCH__)
#define TETRA_FMUL(a, b) __fmul_rn((a), (b))
#define TETRA_FADD(a, b) __fadd_rn((a), (b))
#define TETRA_FMA(a, b, c) __fmaf_rn((a), (b), (c))
#else
#define TETRA_FMUL(a, b) ((a) * (b))
#define TETRA_FADD(a, b) ((a) + (b))
#define TETRA_FMA(a, b, c) fmaf((a), (b), (c))
#endif

TETRA_HD uint32_t tetra_bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

TETRA_HD float tetra_float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* E2M1 magnitude code (0..7) of q >= 0 (q not NaN; +Inf allowed): equals
 * tetra_e2m1_from_float(q). After capping at 6, adding 2^22 / 2^23 / 2^24 (chosen by the
 * binade of q: E2M1 spacing 0.5 below 2, 1 in [2,4), 2 in [4,6]) makes the FP32 adder
 * round q to the E2M1 grid, ties to even; the low bits of the sum count grid steps, and
 * 2 * (exponent of the magic - 149) converts steps to the code. */
TETRA_HD unsigned tetra_e2m1_code_nonneg(float q) {
    const float c = fminf(q, TETRA_E2M1_MAX);
    uint32_t mb = (tetra_bits_of(c) & 0x7f800000u) + (22u << 23);
    mb = mb > 0x4a800000u ? mb : 0x4a800000u; /* at least 2^22: spacing 0.5 */
    return tetra_bits_of(TETRA_FADD(c, tetra_float_of(mb))) - mb + (mb >> 22) - 298u;
}

/* ------------------------------------------------------------------------------------
 * TETRA_SCALE_FRAGMENT_128X64 (docs/notes/fragment-layout.md): prepared weights for the
 * Hopper wgmma-T GEMM (v7), whose consumer threads dequantize wgmma's register A fragment.
 * Values: per batch, one contiguous 4096-byte block per 128 rows x 64 K (rows padded to 128,
 * K to 64), block (n / 128, k / 64) at byte 4096 * ((n / 128) * pad64(K) / 64 + k / 64)
 * (K-tiles of a 128-row block consecutive), holding that K-tile's wgmma fragments: byte
 *   o = 2048 * wg + 512 * w + 16 * lane + 4 * s   of the block, for element (n, k):
 *   r = n % 128, wg = r / 64, w = (r % 64) / 16, g = r % 8, lane = 4 * g + t,
 *   kk = k % 64, s = kk / 16 (k16 step), t = (kk % 8) / 2,
 *   slot j = 2 * ((kk % 16) / 8) + (r % 16) / 8   (wgmma register j of step s),
 *   the even k of a pair in the word's low half, the odd k in its high half (+16 bits).
 * So the thread (warpgroup wg, warp w, lane) reads its whole K-tile with one 16-byte load
 * at o, word s being k16 step s. An element's 4-bit code (bit 3 sign, bits 2..0 e1 e0 m)
 * is scattered over the word so that slot j's BF16 pattern (magnitude at bits 6..8, sign
 * at 15, as the standard path's e2m1x2_bits makes it) comes out of one to four
 * instructions (tetra_frag_slot_bits): slot 0 = x & 0x81C081C0, slot 1 = (x << 3) & ..,
 * slot 2 = (x << 6) & .., slot 3 = ((x >> 7) & 0x00D800D8) * 0x821 & ..; bit of m, e0, e1,
 * sign (low half):
 *   slot 0: 6, 7, 8, 15;  slot 1: 3, 4, 5, 12;  slot 2: 0, 1, 2, 9;  slot 3: 13, 14, 10, 11.
 * Padding (n >= rows or k >= K) holds code 0. Scales: `scales` in TETRA_SCALE_SWIZZLED_128X4
 * (rows padded to 128, K / 16 to 4), unchanged. */
enum { TETRA_FRAG_ROWS = 128, TETRA_FRAG_K = 64 };

TETRA_HD int64_t tetra_frag_padded_rows(int64_t rows) { return (rows + TETRA_FRAG_ROWS - 1) / TETRA_FRAG_ROWS * TETRA_FRAG_ROWS; }
TETRA_HD int64_t tetra_frag_padded_k(int64_t k) { return (k + TETRA_FRAG_K - 1) / TETRA_FRAG_K * TETRA_FRAG_K; }
/* Value bytes of one batch (the batch stride). */
TETRA_HD int64_t tetra_frag_batch_bytes(int64_t rows, int64_t k) {
    return tetra_frag_padded_rows(rows) * (tetra_frag_padded_k(k) / 2);
}

/* Byte offset, in one batch of a K-column matrix, of the 32-bit word holding element (n, k). */
TETRA_HD int64_t tetra_frag_word_offset(int64_t n, int64_t k, int64_t kcols) {
    const int64_t r = n % 128, kk = k % 64, lane = 4 * (r % 8) + (kk % 8) / 2;
    const int64_t o = 2048 * (r / 64) + 512 * ((r % 64) / 16) + 16 * lane + 4 * (kk / 16);
    return 4096 * ((n / 128) * (tetra_frag_padded_k(kcols) / 64) + k / 64) + o;
}

/* Bit (0..31) of the word at which bit b (0 m, 1 e0, 2 e1, 3 sign) of element (n, k)'s code sits. */
TETRA_HD unsigned tetra_frag_bit(int64_t n, int64_t k, unsigned b) {
    /* [slot][b] */
    const unsigned char pos[4][4] = {{6, 7, 8, 15}, {3, 4, 5, 12}, {0, 1, 2, 9}, {13, 14, 10, 11}};
    const unsigned j = (unsigned)(2 * ((k % 16) / 8) + (n % 16) / 8);
    return pos[j][b] + 16u * (unsigned)(k % 2);
}

/* Slot j (0..3, a constant where it is called) of a fragment word as the BF16 pattern of its
 * two codes (magnitude at bits 6..8 / 22..24, sign 15 / 31): the kernels' extraction (v7, the
 * BT-256 transform, the fragment GEMV). Three shifted copies of the pattern fit in 32 bits
 * (0, 3, 6 bits); slot 3's bits take a mask, one IMAD (copies 0, 5 and 11 bits up) and a mask. */
TETRA_HD uint32_t tetra_frag_slot_bits(uint32_t x, unsigned j) {
    const uint32_t M = 0x81C081C0u;
    if (j == 0) return x & M;
    if (j == 1) return (x << 3) & M;
    if (j == 2) return (x << 6) & M;
    return ((x >> 7) & 0x00D800D8u) * 0x821u & M;
}

/* Element (n, k)'s 4-bit code from its word / into its word (other bits kept). */
TETRA_HD unsigned tetra_frag_get(uint32_t word, int64_t n, int64_t k) {
    unsigned c = 0;
    for (unsigned b = 0; b < 4; b++) c |= ((word >> tetra_frag_bit(n, k, b)) & 1u) << b;
    return c;
}
TETRA_HD uint32_t tetra_frag_put(uint32_t word, int64_t n, int64_t k, unsigned code) {
    for (unsigned b = 0; b < 4; b++) {
        const unsigned bit = tetra_frag_bit(n, k, b);
        word = (word & ~(1u << bit)) | (((code >> b) & 1u) << bit);
    }
    return word;
}

/* Unsigned E4M3 code of x >= 0 (not NaN; +Inf allowed): equals tetra_ue4m3_from_float(x).
 * Subnormal range: adding 2^14 rounds to the 2^-9 grid (RNE) and leaves the count in the
 * low bits. Normal range: integer RNE of the FP32 bits at mantissa bit 20, rebias the
 * exponent by 120, saturate at 0x7E. */
TETRA_HD unsigned tetra_ue4m3_code_nonneg(float x) {
    const uint32_t b = tetra_bits_of(x);
    uint32_t n;
    if (x < 0.015625f) return tetra_bits_of(TETRA_FADD(x, 16384.0f)) - 0x46800000u;
    n = ((b + 0x7ffffu + ((b >> 20) & 1u)) >> 20) - (120u << 3);
    return n < 0x7eu ? n : 0x7eu;
}

/* Decoded value of an unsigned E4M3 code 0..0x7E: equals tetra_e4m3_to_float(code).
 * The code's bits placed at FP32 bits 20..26 read as the value times 2^-120 (a
 * subnormal FP32 for E4M3 subnormals); one exact multiply by 2^120 restores it. */
TETRA_HD float tetra_ue4m3_value(unsigned code) {
    return TETRA_FMUL(tetra_float_of(code << 20), 0x1p120f);
}

/* RN(a / d), given y = RN(1/d): q0 = a*y, remainder a - q0*d (exact in one FMA), one
 * correction. Equal to the IEEE quotient (Markstein) when d, 1/d and the quotient are
 * normal and no step over/underflows; callers keep the division for other blocks. */
TETRA_HD float tetra_div_by_reciprocal(float a, float d, float y) {
    const float q0 = TETRA_FMUL(a, y);
    return TETRA_FMA(TETRA_FMA(-q0, d, a), y, q0);
}

#endif /* TETRA_NVFP4_CODEC_H */
