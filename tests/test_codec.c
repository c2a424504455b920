/* test_codec.c - the scalar codecs, exhaustively: E2M1 and UE4M3 decode of every code,
 * encode against a brute-force nearest-value search (ties to even code, saturation,
 * signed zero, subnormals) over every midpoint and a sweep of float32 bit patterns;
 * FP16/BF16 host conversions round-trip every code. */
#include <math.h>
#include <string.h>

#include "format/float16.h"
#include "format/nvfp4_codec.h"
#include "testutil.h"

static const float e2m1_table[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

/* Brute force: the code whose value is nearest to |x|, ties to the even code; above 6
 * saturates to 6. Sign from the sign bit. */
static unsigned e2m1_brute(float x) {
    double a = fabs((double)x), best = INFINITY;
    unsigned c = 0;
    for (unsigned i = 0; i < 8; i++) {
        double d = fabs(a - e2m1_table[i]);
        if (d < best || (d == best && (i % 2) == 0)) {
            best = d;
            c = i;
        }
    }
    if (a > 6.0) c = 7;
    return c | (signbit(x) ? 8u : 0u);
}

static double e4m3_value(unsigned c) { /* independent of the codec under test */
    unsigned e = (c >> 3) & 15, m = c & 7;
    return e == 0 ? m / 512.0 : (1.0 + m / 8.0) * pow(2.0, (double)e - 7.0);
}

static unsigned ue4m3_brute(float x) {
    double best = INFINITY;
    unsigned c = 0;
    if (!(x > 0)) return 0;
    if (x >= 448.0f) return 0x7E;
    for (unsigned i = 0; i <= 0x7E; i++) {
        double d = fabs((double)x - e4m3_value(i));
        if (d < best || (d == best && (i % 2) == 0)) {
            best = d;
            c = i;
        }
    }
    return c;
}

static float bits_to_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

int main(void) {
    /* E2M1 decode: codes 0-7 are the magnitudes, 8-15 their negatives (8 is -0). */
    for (unsigned c = 0; c < 16; c++) {
        float v = tetra_e2m1_decode((uint8_t)c);
        CHECK_MSG(fabsf(v) == e2m1_table[c & 7], "code %u -> %g", c, (double)v);
        CHECK((c >= 8) == (signbit(v) != 0));
        CHECK(tetra_e2m1_encode(v) == c); /* every value encodes to its own code */
    }
    CHECK(tetra_e2m1_encode(-0.0f) == 8);
    CHECK(tetra_e2m1_encode(0.0f) == 0);
    /* documented ties: to the even code */
    {
        const float ties[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
        const unsigned want[] = {0, 2, 2, 4, 4, 6, 6};
        for (int i = 0; i < 7; i++) {
            CHECK_MSG(tetra_e2m1_encode(ties[i]) == want[i], "tie %g", (double)ties[i]);
            CHECK(tetra_e2m1_encode(-ties[i]) == (want[i] | 8u));
        }
    }
    CHECK(tetra_e2m1_encode(6.0f) == 7 && tetra_e2m1_encode(1e30f) == 7 &&
          tetra_e2m1_encode(INFINITY) == 7 && tetra_e2m1_encode(-INFINITY) == 15);
    CHECK(tetra_e2m1_encode(1e-40f) == 0 && tetra_e2m1_encode(-1e-40f) == 8);
    /* every float32 pattern in steps of 2^11 (both signs), plus neighbours of midpoints */
    for (uint64_t u = 0; u < 0x100000000ull; u += 2048) {
        float x = bits_to_f((uint32_t)u);
        if (isnan(x)) continue;
        CHECK_MSG(tetra_e2m1_encode(x) == e2m1_brute(x), "x = %a", (double)x);
    }
    for (unsigned i = 0; i < 7; i++) {
        float mid = 0.5f * (e2m1_table[i] + e2m1_table[i + 1]);
        float xs[3] = {nextafterf(mid, 0), mid, nextafterf(mid, 10)};
        for (int j = 0; j < 3; j++) CHECK_MSG(tetra_e2m1_encode(xs[j]) == e2m1_brute(xs[j]), "near %g", (double)mid);
    }

    /* UE4M3 / E4M3 decode of all 256 codes */
    for (unsigned c = 0; c < 256; c++) {
        float v = tetra_ue4m3_decode((uint8_t)c);
        if ((c & 0x7F) == 0x7F) {
            CHECK_MSG(isnan(v), "code 0x%02x must be NaN", c);
            continue;
        }
        CHECK_MSG((double)fabsf(v) == e4m3_value(c), "code 0x%02x -> %g", c, (double)v);
        CHECK((c >= 0x80) == (signbit(v) != 0));
        if (c < 0x7F) CHECK_MSG(tetra_ue4m3_encode(v) == c, "code 0x%02x round trip", c);
    }
    CHECK(tetra_ue4m3_decode(0x7E) == 448.0f);
    CHECK(tetra_ue4m3_decode(0x08) == ldexpf(1, -6)); /* smallest normal */
    CHECK(tetra_ue4m3_decode(0x01) == ldexpf(1, -9)); /* smallest subnormal */
    CHECK(tetra_ue4m3_encode(448.0f) == 0x7E && tetra_ue4m3_encode(464.0f) == 0x7E &&
          tetra_ue4m3_encode(1e9f) == 0x7E && tetra_ue4m3_encode(INFINITY) == 0x7E);
    CHECK(tetra_ue4m3_encode(-1.0f) == 0 && tetra_ue4m3_encode(NAN) == 0 &&
          tetra_ue4m3_encode(0.0f) == 0 && tetra_ue4m3_encode(-0.0f) == 0);
    CHECK(tetra_ue4m3_encode(ldexpf(1, -10)) == 0);            /* tie 0 vs 2^-9: even -> 0 */
    CHECK(tetra_ue4m3_encode(ldexpf(3, -10)) == 2);            /* tie 1 vs 2: even -> 2 */
    CHECK(tetra_ue4m3_encode(nextafterf(ldexpf(1, -10), 1)) == 1);
    for (uint32_t u = 0; u < 0x7f800000u; u += 1024) {
        float x = bits_to_f(u);
        CHECK_MSG(tetra_ue4m3_encode(x) == ue4m3_brute(x), "x = %a", (double)x);
    }
    for (unsigned c = 0; c < 0x7E; c++) { /* every midpoint and its neighbours */
        float mid = (float)(0.5 * (e4m3_value(c) + e4m3_value(c + 1)));
        float xs[3] = {nextafterf(mid, 0), mid, nextafterf(mid, 1000)};
        for (int j = 0; j < 3; j++)
            CHECK_MSG(tetra_ue4m3_encode(xs[j]) == ue4m3_brute(xs[j]), "near mid of 0x%02x", c);
    }

    /* FP16 / BF16 host conversions: every code round-trips; RNE at halfway points */
    for (uint32_t h = 0; h < 65536; h++) {
        float f = tetra_f16_to_f32((uint16_t)h), b = tetra_bf16_to_f32((uint16_t)h);
        if (!isnan(f)) CHECK_MSG(tetra_f32_to_f16(f) == h, "f16 0x%04x", h);
        if (!isnan(b)) CHECK_MSG(tetra_f32_to_bf16(b) == h, "bf16 0x%04x", h);
    }
    CHECK(tetra_f32_to_f16(65504.0f) == 0x7bff && tetra_f32_to_f16(65520.0f) == 0x7c00 &&
          tetra_f32_to_f16(65519.99f) == 0x7bff);
    CHECK(tetra_f32_to_f16(ldexpf(1, -25)) == 0 && tetra_f32_to_f16(ldexpf(3, -25)) == 2);
    CHECK(tetra_f32_to_bf16(1.0f + ldexpf(1, -8)) == 0x3f80);  /* tie to even */
    CHECK(tetra_f32_to_bf16(1.0f + ldexpf(3, -8)) == 0x3f82);
    /* round-to-odd then RNE equals a single rounding from double */
    {
        double d = 1.0 + ldexp(1, -8) + ldexp(1, -40); /* just above a BF16 tie */
        CHECK(tetra_f32_to_bf16(tetra_f64_to_f32_odd(d)) == 0x3f81);
        CHECK(tetra_f32_to_bf16((float)d) == 0x3f80); /* double rounding would be wrong */
    }
    return tu_finish("test_codec");
}
