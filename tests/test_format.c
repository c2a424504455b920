/* test_format.c - the host format core: quantize/dequantize round trips and error
 * bounds, the recipe's special cases (zero blocks, saturation, subnormal scales,
 * non-finite input), scale layouts (swizzle checked against an independent
 * implementation of cuBLAS's to_blocked reshape, padding zero, linear<->swizzled round
 * trip) and the GPU MODE pre-permuted view. */
#include <math.h>
#include <string.h>

#include "format/float16.h"
#include "format/nvfp4_codec.h"
#include "testutil.h"

/* cuBLAS "to_blocked" on a padded [R, C] scale matrix (R % 128 == 0, C % 4 == 0):
 * view (R/128, 128, C/4, 4) -> permute(0,2,1,3) -> (-1, 4, 32, 4) -> transpose(1,2)
 * -> flatten. Returns the flat index of element (r, c). */
static int64_t to_blocked_index(int64_t r, int64_t c, int64_t C) {
    int64_t rb = r / 128, ri = r % 128, cb = c / 4, ci = c % 4;
    /* after permute: [rb][cb][ri][ci]; ri = i4 * 32 + i32 in the (4, 32) split */
    int64_t i4 = ri / 32, i32 = ri % 32;
    /* transpose(1,2) of (blk, 4, 32, 4) -> (blk, 32, 4, 4): [blk][i32][i4][ci] */
    int64_t blk = rb * (C / 4) + cb;
    return ((blk * 32 + i32) * 4 + i4) * 4 + ci;
}

static void test_layouts(void) {
    const int64_t rows_list[] = {1, 7, 128, 129, 300};
    const int64_t k_list[] = {16, 48, 64, 80, 4112};
    CHECK(tetra_swizzled_offset(0, 0, 4) == 0);
    CHECK(tetra_swizzled_offset(1, 0, 4) == 16);
    CHECK(tetra_swizzled_offset(32, 0, 4) == 4);
    CHECK(tetra_swizzled_offset(0, 1, 4) == 1);
    CHECK(tetra_swizzled_offset(0, 4, 8) == 512);
    CHECK(tetra_swizzled_offset(128, 0, 8) == 1024);
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++) {
            int64_t rows = rows_list[a], k = k_list[b], nkb = k / 16;
            int64_t R = (rows + 127) / 128 * 128, C = (nkb + 3) / 4 * 4;
            int64_t bytes = tetra_swizzled_bytes(rows, nkb);
            uint8_t *seen = calloc((size_t)bytes, 1);
            CHECK(bytes == R * C);
            CHECK((size_t)bytes == tetra_nvfp4_scale_bytes(rows, k, TETRA_SCALE_SWIZZLED_128X4));
            for (int64_t r = 0; r < R; r++)
                for (int64_t c = 0; c < C; c++) {
                    int64_t o = tetra_swizzled_offset(r, c, nkb);
                    CHECK_MSG(o == to_blocked_index(r, c, C), "r %lld c %lld", (long long)r, (long long)c);
                    if (o >= 0 && o < bytes) seen[o]++;
                }
            for (int64_t i = 0; i < bytes; i++) CHECK(seen[i] == 1); /* a bijection */
            free(seen);
        }
}

/* Quantize -> dequantize error bound and the layouts on one random matrix. */
static void test_round_trip(tetra_rng *rng, tetra_dtype sdt, int64_t rows, int64_t k, int64_t L,
                            tetra_scale_layout layout) {
    int64_t n = rows * k * L, nkb = k / 16;
    float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    uint16_t *x16 = malloc((size_t)n * 2);
    size_t sb = tetra_nvfp4_scale_bytes(rows, k, layout);
    uint8_t *q = malloc((size_t)n / 2), *s = malloc(sb * (size_t)L), *s2 = malloc(sb * (size_t)L);
    uint8_t *lin = malloc((size_t)(rows * nkb * L)), *pre = malloc(tetra_nvfp4_scale_bytes(rows, k, TETRA_SCALE_SWIZZLED_128X4) * (size_t)L);
    tetra_matrix src, dst, out, lm;
    for (int64_t i = 0; i < n; i++) {
        double v = tetra_rng_normal(rng);
        /* blocks of very different magnitude: tiny blocks give subnormal scales */
        if ((i / 16) % 7 == 3) v *= 1e-6; /* below 2^-10 * 6g: the block flushes to zero */
        if ((i / 16) % 13 == 4) v *= 1e-5; /* subnormal block scales */
        if ((i / 16) % 11 == 5) v = 0; /* whole zero blocks */
        x[i] = (float)v;
        if (sdt == TETRA_DTYPE_BF16) { x16[i] = tetra_f32_to_bf16(x[i]); x[i] = tetra_bf16_to_f32(x16[i]); }
        if (sdt == TETRA_DTYPE_FP16) { x16[i] = tetra_f32_to_f16(x[i]); x[i] = tetra_f16_to_f32(x16[i]); }
    }
    src = tetra_matrix_dense(sdt, sdt == TETRA_DTYPE_FP32 ? (void *)x : (void *)x16, rows, k);
    src.batch = L;
    dst = tetra_matrix_nvfp4(q, s, layout, rows, k, 0.0f);
    dst.batch = L;
    memset(s, 0xEE, sb * (size_t)L); /* poison: padding must come back zero */
    CHECK(tetra_quantize_host(&src, &dst, TETRA_GLOBAL_SCALE_FROM_AMAX) == TETRA_OK);
    out = tetra_matrix_dense(TETRA_DTYPE_FP32, y, rows, k);
    out.batch = L;
    CHECK(tetra_dequantize_host(&dst, &out) == TETRA_OK);
    {
        float amax = 0;
        for (int64_t i = 0; i < n; i++) amax = fmaxf(amax, fabsf(x[i]));
        CHECK(dst.global_scale == amax / 2688.0f);
    }
    for (int64_t l = 0; l < L; l++)
        for (int64_t r = 0; r < rows; r++)
            for (int64_t b = 0; b < nkb; b++) {
                const float *xb = x + (l * rows + r) * k + b * 16, *yb = y + (l * rows + r) * k + b * 16;
                float bmax = 0, step;
                uint8_t sc = s[l * (int64_t)sb + tetra_scale_offset(layout, r, b, nkb, nkb)];
                for (int i = 0; i < 16; i++) bmax = fmaxf(bmax, fabsf(xb[i]));
                CHECK(sc == tetra_ue4m3_encode(bmax / (6.0f * dst.global_scale)));
                step = tetra_ue4m3_decode(sc) * dst.global_scale; /* one E2M1 unit */
                for (int i = 0; i < 16; i++) {
                    /* within half the widest E2M1 gap (2 units, between 4 and 6), plus
                     * what saturation at 6 units loses when the scale rounded down */
                    double err = fabs((double)xb[i] - (double)yb[i]);
                    double sat = fmax(0.0, (double)bmax - 6.0 * step);
                    CHECK_MSG(err <= 1.0 * step + sat + 1e-30, "err %g step %g", err, (double)step);
                    if (sc == 0) CHECK(yb[i] == 0 && bmax / (6.0f * dst.global_scale) <= ldexpf(1, -10));
                }
            }
    /* swizzled padding is zero */
    if (layout == TETRA_SCALE_SWIZZLED_128X4) {
        int64_t R = (rows + 127) / 128 * 128, C = (nkb + 3) / 4 * 4;
        for (int64_t l = 0; l < L; l++)
            for (int64_t r = 0; r < R; r++)
                for (int64_t c = 0; c < C; c++)
                    if (r >= rows || c >= nkb) CHECK(s[l * (int64_t)sb + tetra_swizzled_offset(r, c, nkb)] == 0);
    }
    /* convert to linear and back gives the same bytes (padding included) */
    lm = dst;
    lm.scales = lin;
    lm.scale_layout = TETRA_SCALE_LINEAR;
    CHECK(tetra_convert_scales_host(&dst, &lm) == TETRA_OK);
    {
        tetra_matrix back = dst;
        back.scales = s2;
        memset(s2, 0x5A, sb * (size_t)L);
        CHECK(tetra_convert_scales_host(&lm, &back) == TETRA_OK);
        CHECK(memcmp(s, s2, sb * (size_t)L) == 0);
    }
    /* GPU MODE pre-permuted view: [i0,i1,rm,i3,rk,l] is scale (rm*128+i1*32+i0, rk*4+i3) */
    CHECK(tetra_scales_to_prepermuted_host(&dst, pre) == TETRA_OK);
    {
        int64_t rest_m = (rows + 127) / 128, rest_k = (nkb + 3) / 4;
        for (int64_t l = 0; l < L; l++)
            for (int64_t r = 0; r < rows; r++)
                for (int64_t b = 0; b < nkb; b++) {
                    int64_t i0 = r % 32, i1 = (r % 128) / 32, rm = r / 128, i3 = b % 4, rk = b / 4;
                    int64_t idx = ((((i0 * 4 + i1) * rest_m + rm) * 4 + i3) * rest_k + rk) * L + l;
                    CHECK(pre[idx] == lin[(l * rows + r) * nkb + b]);
                }
    }
    free(x); free(y); free(x16); free(q); free(s); free(s2); free(lin); free(pre);
}

static void test_special(void) {
    float x[32] = {0}, y[32];
    uint8_t q[16], s[2];
    tetra_matrix src = tetra_matrix_dense(TETRA_DTYPE_FP32, x, 1, 32);
    tetra_matrix dst = tetra_matrix_nvfp4(q, s, TETRA_SCALE_LINEAR, 1, 32, 0.0f);
    tetra_matrix out = tetra_matrix_dense(TETRA_DTYPE_FP32, y, 1, 32);
    /* all-zero tensor: g = 1, zero scales, zero codes */
    CHECK(tetra_quantize_host(&src, &dst, TETRA_GLOBAL_SCALE_FROM_AMAX) == TETRA_OK);
    CHECK(dst.global_scale == 1.0f && s[0] == 0 && s[1] == 0 && q[0] == 0 && q[15] == 0);
    /* values on the grid are reproduced exactly: x = e2m1 * ue4m3 * g */
    for (int i = 0; i < 16; i++) x[i] = tetra_e2m1_decode((uint8_t)i) * 2.0f; /* block amax 12 */
    for (int i = 16; i < 32; i++) x[i] = tetra_e2m1_decode((uint8_t)(i - 16)) * 0.25f;
    dst.global_scale = 1.0f;
    CHECK(tetra_quantize_host(&src, &dst, TETRA_GLOBAL_SCALE_SUPPLIED) == TETRA_OK);
    CHECK(tetra_dequantize_host(&dst, &out) == TETRA_OK);
    for (int i = 0; i < 32; i++) CHECK_MSG(y[i] == x[i] || (x[i] == 0 && y[i] == 0), "i %d: %g vs %g", i, (double)y[i], (double)x[i]);
    /* supplied g too small: scale saturates at 448, elements at 6 */
    dst.global_scale = 1e-4f;
    CHECK(tetra_quantize_host(&src, &dst, TETRA_GLOBAL_SCALE_SUPPLIED) == TETRA_OK);
    CHECK(s[0] == 0x7E && (q[7] >> 4) == 15); /* x[15] = -12 saturates to code 15 (-6) */
    CHECK((q[3] >> 4) == 7);                  /* x[7] = 12 saturates to code 7 (+6) */
    /* non-finite input: an error naming the position, nothing written */
    memset(q, 0x33, sizeof q);
    x[20] = NAN;
    CHECK_ERR(tetra_quantize_host(&src, &dst, TETRA_GLOBAL_SCALE_FROM_AMAX), TETRA_ERR_NON_FINITE, "col 20");
    CHECK(q[0] == 0x33);
    x[20] = INFINITY;
    CHECK_ERR(tetra_quantize_host(&src, &dst, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_NON_FINITE, "non-finite");
}

int main(void) {
    tetra_rng rng = {42};
    test_layouts();
    test_special();
    test_round_trip(&rng, TETRA_DTYPE_FP32, 7, 48, 1, TETRA_SCALE_LINEAR);
    test_round_trip(&rng, TETRA_DTYPE_FP32, 129, 80, 2, TETRA_SCALE_SWIZZLED_128X4);
    test_round_trip(&rng, TETRA_DTYPE_BF16, 300, 64, 1, TETRA_SCALE_SWIZZLED_128X4);
    test_round_trip(&rng, TETRA_DTYPE_FP16, 1, 4112, 3, TETRA_SCALE_SWIZZLED_128X4);
    test_round_trip(&rng, TETRA_DTYPE_BF16, 130, 16, 1, TETRA_SCALE_LINEAR);
    return tu_finish("test_format");
}
