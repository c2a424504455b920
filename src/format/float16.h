/* float16.h - host FP16/BF16 <-> FP32 conversions, round to nearest even, matching
 * CUDA's __float2half_rn / __float2bfloat16_rn bit for bit. Host C only. */
#ifndef TETRA_FLOAT16_H
#define TETRA_FLOAT16_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t tetra_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float tetra_f32_from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float tetra_bf16_to_f32(uint16_t h) { return tetra_f32_from_bits((uint32_t)h << 16); }

static inline uint16_t tetra_f32_to_bf16(float f) {
    uint32_t x = tetra_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static inline float tetra_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 1023u;
    float v;
    if (e == 31u) return tetra_f32_from_bits(sign | 0x7f800000u | (m << 13));
    v = e ? ldexpf((float)(1024u + m), (int)e - 25) : ldexpf((float)m, -24);
    return sign ? -v : v;
}

static inline uint16_t tetra_f32_to_f16(float f) {
    uint32_t x = tetra_f32_bits(f), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    uint32_t h, rem;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to Inf */
    if (a < 0x38800000u) {                                   /* below 2^-14: subnormal */
        float m = rintf(tetra_f32_from_bits(a) * 16777216.0f); /* exact x 2^24, then RNE */
        return (uint16_t)(sign | (uint32_t)m);
    }
    h = (((a >> 23) - 112u) << 10) | ((a & 0x7fffffu) >> 13);
    rem = a & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
}

/* Round a double to float with round-to-odd, so a second rounding to a narrower
 * format (FP16/BF16) equals rounding the double once. */
static inline float tetra_f64_to_f32_odd(double d) {
    float f = (float)d;
    uint32_t b;
    if ((double)f == d || isnan(d)) return f;
    b = tetra_f32_bits(f);
    if (fabs((double)f) > fabs(d)) b -= 1u;
    return tetra_f32_from_bits(b | 1u);
}

#endif /* TETRA_FLOAT16_H */
