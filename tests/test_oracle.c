/* test_oracle.c - the FP64 CPU oracle against a naive triple loop written directly from
 * the format definition (per-element scale lookup, long double accumulation), on odd
 * sizes, every operand combination, L > 1 with padded strides, bias and alpha; and the
 * oracle's result does not depend on its thread count. */
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "format/float16.h"
#include "format/nvfp4_codec.h"
#include "testutil.h"

typedef struct {
    tetra_matrix m;
    void *buf;
    uint8_t *scales;
} operand;

/* A random operand of dtype dt, [rows, k], L batches, ld = k + pad (pad even). */
static operand make(tetra_rng *rng, tetra_dtype dt, int64_t rows, int64_t k, int64_t L, int64_t pad,
                    tetra_scale_layout layout) {
    operand o;
    int64_t ld = k + pad, n = rows * ld * L;
    float *x = malloc((size_t)(rows * k * L) * sizeof *x);
    tu_fill_normal(rng, x, rows * k * L, 1.0f);
    memset(&o, 0, sizeof o);
    if (dt == TETRA_DTYPE_NVFP4) {
        tetra_matrix src = tetra_matrix_dense(TETRA_DTYPE_FP32, x, rows, k);
        int64_t sb = (int64_t)tetra_nvfp4_scale_bytes(rows, k, layout);
        src.batch = L;
        o.buf = calloc((size_t)n / 2, 1);
        o.scales = calloc((size_t)(sb + 8) * (size_t)L, 1);
        o.m = tetra_matrix_nvfp4(o.buf, o.scales, layout, rows, k, 0.0f);
        o.m.ld = ld;
        o.m.batch = L;
        o.m.scale_batch_stride = sb + 8;
        if (tetra_quantize_host(&src, &o.m, TETRA_GLOBAL_SCALE_FROM_AMAX) != TETRA_OK) {
            fprintf(stderr, "quantize: %s\n", tetra_last_error());
            exit(1);
        }
    } else {
        size_t es = tetra_dtype_bits(dt) / 8;
        o.buf = calloc((size_t)n, es);
        o.m = tetra_matrix_dense(dt, o.buf, rows, k);
        o.m.ld = ld;
        o.m.batch = L;
        for (int64_t l = 0; l < L; l++)
            for (int64_t r = 0; r < rows; r++)
                for (int64_t c = 0; c < k; c++) {
                    float v = x[(l * rows + r) * k + c];
                    int64_t i = l * rows * ld + r * ld + c;
                    if (dt == TETRA_DTYPE_FP32) ((float *)o.buf)[i] = v;
                    else if (dt == TETRA_DTYPE_FP16) ((uint16_t *)o.buf)[i] = tetra_f32_to_f16(v);
                    else ((uint16_t *)o.buf)[i] = tetra_f32_to_bf16(v);
                }
    }
    free(x);
    return o;
}

/* Value of element (l, r, c) straight from the definitions. */
static long double naive_get(const tetra_matrix *m, int64_t l, int64_t r, int64_t c) {
    int64_t ld = m->ld ? m->ld : m->cols, i = l * m->rows * ld + r * ld + c;
    if (m->dtype == TETRA_DTYPE_NVFP4) {
        uint8_t byte = ((const uint8_t *)m->data)[i / 2];
        uint8_t code = (i % 2) ? byte >> 4 : byte & 15;
        int64_t nkb = m->cols / 16, off;
        const uint8_t *sc = (const uint8_t *)m->scales + l * m->scale_batch_stride;
        off = m->scale_layout == TETRA_SCALE_LINEAR ? r * nkb + c / 16 : tetra_swizzled_offset(r, c / 16, nkb);
        return (long double)tetra_e2m1_decode(code) * tetra_ue4m3_decode(sc[off]) * (long double)m->global_scale;
    }
    if (m->dtype == TETRA_DTYPE_FP32) return ((const float *)m->data)[i];
    if (m->dtype == TETRA_DTYPE_FP16) return tetra_f16_to_f32(((const uint16_t *)m->data)[i]);
    return tetra_bf16_to_f32(((const uint16_t *)m->data)[i]);
}

static void run_case(tetra_rng *rng, tetra_dtype adt, tetra_dtype ddt, int64_t M, int64_t N, int64_t K,
                     int64_t L, tetra_scale_layout layout, int with_bias) {
    operand a = make(rng, adt, M, K, L, 16, layout), b = make(rng, TETRA_DTYPE_NVFP4, N, K, L, 0, layout);
    float alpha = 0.75f, *bias = NULL;
    double *d64 = malloc((size_t)(L * M * N) * sizeof *d64), *d64b = malloc((size_t)(L * M * N) * sizeof *d64b);
    void *dbuf = malloc((size_t)(L * M * N) * 4), *dbuf2 = malloc((size_t)(L * M * N) * 4);
    tetra_matrix d = tetra_matrix_dense(ddt, dbuf, M, N), d2;
    d.batch = L;
    d2 = d;
    d2.data = dbuf2;
    if (with_bias) {
        bias = malloc((size_t)N * sizeof *bias);
        tu_fill_normal(rng, bias, N, 1.0f);
    }
    CHECK(tetra_gemm_host(&a.m, &b.m, &d, alpha, bias, d64, 3) == TETRA_OK);
    CHECK(tetra_gemm_host(&a.m, &b.m, &d2, alpha, bias, d64b, 1) == TETRA_OK);
    CHECK(memcmp(d64, d64b, (size_t)(L * M * N) * sizeof *d64) == 0);
    CHECK(memcmp(dbuf, dbuf2, (size_t)(L * M * N) * (tetra_dtype_bits(ddt) / 8)) == 0);
    for (int64_t l = 0; l < L; l++)
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) {
                long double acc = 0, mag = 0;
                double got = d64[(l * M + m) * N + n];
                for (int64_t k = 0; k < K; k++) {
                    long double t = naive_get(&a.m, l, m, k) * naive_get(&b.m, l, n, k);
                    acc += t;
                    mag += fabsl(t);
                }
                acc = acc * alpha + (bias ? bias[n] : 0.0f);
                CHECK_MSG(fabsl((long double)got - acc) <= 1e-14L * (mag * alpha + 1e-30L) + 1e-300L,
                          "m %lld n %lld: %.17g vs %.17Lg", (long long)m, (long long)n, got, acc);
                /* the stored value is the FP64 result rounded once */
                {
                    int64_t i = (l * M + m) * N + n;
                    if (ddt == TETRA_DTYPE_FP32) CHECK(((float *)dbuf)[i] == (float)got);
                    else if (ddt == TETRA_DTYPE_FP16) CHECK(((uint16_t *)dbuf)[i] == tetra_f32_to_f16(tetra_f64_to_f32_odd(got)));
                    else CHECK(((uint16_t *)dbuf)[i] == tetra_f32_to_bf16(tetra_f64_to_f32_odd(got)));
                }
            }
    free(a.buf); free(a.scales); free(b.buf); free(b.scales);
    free(d64); free(d64b); free(dbuf); free(dbuf2); free(bias);
}

int main(void) {
    tetra_rng rng = {7};
    const int64_t Ms[] = {1, 3, 17}, Ns[] = {1, 7, 129}, Ks[] = {16, 48, 272};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                tetra_scale_layout lay = (i + j + k) % 2 ? TETRA_SCALE_SWIZZLED_128X4 : TETRA_SCALE_LINEAR;
                run_case(&rng, TETRA_DTYPE_BF16, TETRA_DTYPE_FP32, Ms[i], Ns[j], Ks[k], 1, lay, k == 1);
                run_case(&rng, TETRA_DTYPE_NVFP4, TETRA_DTYPE_BF16, Ms[i], Ns[j], Ks[k], 2, lay, 0);
            }
    run_case(&rng, TETRA_DTYPE_FP16, TETRA_DTYPE_FP16, 5, 33, 80, 3, TETRA_SCALE_SWIZZLED_128X4, 1);
    run_case(&rng, TETRA_DTYPE_FP32, TETRA_DTYPE_BF16, 2, 9, 64, 1, TETRA_SCALE_LINEAR, 1);
    run_case(&rng, TETRA_DTYPE_NVFP4, TETRA_DTYPE_FP32, 33, 130, 4112, 1, TETRA_SCALE_SWIZZLED_128X4, 1);
    return tu_finish("test_oracle");
}
