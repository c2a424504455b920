/* test_interleaved_layout.c - TETRA_SCALE_INTERLEAVED_32X128 on the host (no GPU):
 * tetra_nvfp4_interleaved_bytes, the offset formulas against hand-computed values
 * (docs/notes/gemv-prepared-weights.md, section 1), tetra_convert_weights_host round trips
 * (linear with scale_ld = K/16 and larger, swizzled, L = 1 and 3 with padded batch strides),
 * every byte outside the values/scales/flags zero, the per-row NaN flags, and argument
 * errors (including every other entry point refusing the layout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/nvfp4_codec.h"
#include "testutil.h"

#define TEST_SEED 20261207ull

static long long sbstride(const tetra_matrix *m) {
    if (m->scale_batch_stride) return m->scale_batch_stride;
    return (long long)tetra_nvfp4_scale_bytes(m->rows, m->cols, m->scale_layout) +
           (m->scale_layout == TETRA_SCALE_LINEAR ? m->rows * (m->scale_ld - m->cols / 16) : 0);
}
static const uint8_t *sdata(const tetra_matrix *m, long long l, long long r, long long kb) {
    long long bs = m->batch_stride ? m->batch_stride : m->rows * m->cols;
    return (const uint8_t *)m->data + (l * bs + r * m->cols) / 2 + kb * 8;
}
static const uint8_t *sscale(const tetra_matrix *m, long long l, long long r, long long kb) {
    long long sld = m->scale_ld ? m->scale_ld : m->cols / 16;
    return (const uint8_t *)m->scales + l * sbstride(m) +
           tetra_scale_offset(m->scale_layout == TETRA_SCALE_SWIZZLED_128X4, r, kb, m->cols / 16, sld);
}

/* Convert a standard matrix to interleaved and back (into fresh buffers poisoned 0xCD, in
 * `back_layout`); check every interleaved byte and every value/scale of the round trip. */
static void round_trip(tetra_rng *r, long long N, long long K, long long L, tetra_scale_layout lay, long long spad,
                       tetra_scale_layout back_layout) {
    tu_stdmat s = tu_std_make(r, N, K, L, lay, spad, 0.5f, 0x7F), b = tu_std_make(r, N, K, L, back_layout, 0, 0.5f, 0x7F);
    size_t P = tetra_nvfp4_interleaved_bytes(N, K);
    uint8_t *il = NULL, *mark = NULL;
    tetra_matrix im;
    long long nkb = K / 16, nseg = tetra_il_segments(K);
    int bad_data = 0, bad_pad = 0, bad_back = 0;
    char what[160];
    snprintf(what, sizeof what, "N=%lld K=%lld L=%lld %s(spad %lld) -> il -> %s", N, K, L,
             lay == TETRA_SCALE_LINEAR ? "linear" : "swizzled", spad,
             back_layout == TETRA_SCALE_LINEAR ? "linear" : "swizzled");
    CHECK_MSG(P > 0 && P % 256 == 0, "%s: interleaved bytes %zu", what, P);
    il = malloc(P * (size_t)L);
    mark = calloc(P * (size_t)L, 1);
    memset(il, 0xAB, P * (size_t)L); /* every byte must be written */
    im = tetra_matrix_nvfp4(il, NULL, TETRA_SCALE_INTERLEAVED_32X128, N, K, 0.0f);
    im.batch = L;
    {
        tetra_status st = tetra_convert_weights_host(&s.m, &im);
        CHECK_MSG(st == TETRA_OK, "%s: to interleaved: %s", what, tetra_last_error());
        if (st != TETRA_OK) goto out;
    }
    CHECK(im.global_scale == 0.5f);
    for (long long l = 0; l < L; l++) {
        const uint8_t *ib = il + l * (long long)P;
        uint8_t *mb = mark + l * (long long)P;
        for (long long n = 0; n < N; n++) {
            long long fo = tetra_il_flag_offset(N, K, n);
            for (long long kb = 0; kb < nkb; kb++) {
                long long d = tetra_il_data_offset(n, kb * 16, nseg), so = tetra_il_scale_offset(n, kb, nseg);
                uint8_t std8[8]; /* the block in standard nibble order (TETRA_GEMV_IL_PAIRS) */
                tetra_il_unpack8(std8, ib + d);
                bad_data += memcmp(std8, sdata(&s.m, l, n, kb), 8) != 0;
                bad_data += ib[so] != *sscale(&s.m, l, n, kb);
                memset(mb + d, 1, 8);
                mb[so] = 1;
            }
            bad_data += ib[fo] != 0; /* scale codes < 0x7F: no flag */
            mb[fo] = 1;
        }
    }
    for (size_t i = 0; i < P * (size_t)L; i++)
        if (!mark[i] && il[i] != 0) bad_pad++;
    CHECK_MSG(bad_data == 0, "%s: %d values/scales/flags differ", what, bad_data);
    CHECK_MSG(bad_pad == 0, "%s: %d padding bytes are not zero", what, bad_pad);

    memset(b.data, 0xCD, b.dbytes);
    memset(b.scales, 0xCD, b.sbytes);
    {
        tetra_status st = tetra_convert_weights_host(&im, &b.m);
        CHECK_MSG(st == TETRA_OK, "%s: back: %s", what, tetra_last_error());
    }
    for (long long l = 0; l < L; l++)
        for (long long n = 0; n < N; n++)
            for (long long kb = 0; kb < nkb; kb++) {
                bad_back += memcmp(sdata(&b.m, l, n, kb), sdata(&s.m, l, n, kb), 8) != 0;
                bad_back += *sscale(&b.m, l, n, kb) != *sscale(&s.m, l, n, kb);
            }
    if (back_layout == TETRA_SCALE_SWIZZLED_128X4) { /* padded scales zero */
        long long rp = (N + 127) / 128 * 128, kp = (nkb + 3) / 4 * 4;
        for (long long l = 0; l < L; l++)
            for (long long n = 0; n < rp; n++)
                for (long long kb = 0; kb < kp; kb++)
                    if ((n >= N || kb >= nkb) && *sscale(&b.m, l, n, kb) != 0) bad_back++;
    }
    CHECK_MSG(bad_back == 0, "%s: %d values/scales differ after the round trip", what, bad_back);
out:
    free(il);
    free(mark);
    free(s.data); free(s.scales); free(b.data); free(b.scales);
}

/* Planted bad codes set exactly their rows' flags. */
static void flags_case(long long N, long long K) {
    tetra_rng r = {TEST_SEED + 7};
    tu_stdmat s = tu_std_make(&r, N, K, 1, TETRA_SCALE_LINEAR, 0, 0.5f, 0x7F);
    size_t P = tetra_nvfp4_interleaved_bytes(N, K);
    uint8_t *il = malloc(P);
    tetra_matrix im = tetra_matrix_nvfp4(il, NULL, TETRA_SCALE_INTERLEAVED_32X128, N, K, 1.0f);
    long long nkb = K / 16, planted[3] = {0, N / 2, N - 1};
    uint8_t codes[3] = {0x7F, 0x80, 0xFF};
    int bad = 0;
    /* last block (next to the K padding), a middle one, the first */
    s.scales[planted[0] * nkb + nkb - 1] = codes[0];
    s.scales[planted[1] * nkb + nkb / 2] = codes[1];
    s.scales[planted[2] * nkb + 0] = codes[2];
    CHECK(tetra_convert_weights_host(&s.m, &im) == TETRA_OK);
    for (long long n = 0; n < (N + 127) / 128 * 128; n++) {
        int want = n == planted[0] || n == planted[1] || n == planted[2];
        bad += il[tetra_il_flag_offset(N, K, n)] != (uint8_t)want;
    }
    CHECK_MSG(bad == 0, "flags N=%lld K=%lld: %d rows wrong", N, K, bad);
    printf("  flags N=%lld K=%lld: %s\n", N, K, bad ? "WRONG" : "exactly the planted rows");
    free(il);
    free(s.data); free(s.scales);
}

static void errors(void) {
    tetra_rng r = {TEST_SEED + 9};
    tu_stdmat s = tu_std_make(&r, 64, 256, 1, TETRA_SCALE_LINEAR, 0, 0.5f, 0x7F);
    size_t P = tetra_nvfp4_interleaved_bytes(64, 256);
    uint8_t *ilraw = malloc(P + 16), *il = ilraw + (16 - (uintptr_t)ilraw % 16) % 16;
    float dense[64 * 256];
    tetra_matrix im = tetra_matrix_nvfp4(il, NULL, TETRA_SCALE_INTERLEAVED_32X128, 64, 256, 1.0f), x;
    tetra_matrix dm = tetra_matrix_dense(TETRA_DTYPE_FP32, dense, 64, 256);
    memset(dense, 0, sizeof dense);
    CHECK(tetra_convert_weights_host(&s.m, &im) == TETRA_OK);

    x = im; x.rows = 65;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "65x256");
    x = im; x.scales = s.scales;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.scales must be NULL");
    x = im; x.ld = 256;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "must be 0");
    x = im; x.scale_batch_stride = 8;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "must be 0");
    x = im; x.data = il + 8;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "16-byte aligned");
    CHECK_ERR(tetra_convert_weights_host(&im, &im), TETRA_ERR_INVALID_ARGUMENT, "exactly one");
    CHECK_ERR(tetra_convert_weights_host(&s.m, &s.m), TETRA_ERR_INVALID_ARGUMENT, "exactly one");
    CHECK_ERR(tetra_convert_weights_host(&s.m, NULL), TETRA_ERR_INVALID_ARGUMENT, "dst is NULL");
    CHECK_ERR(tetra_convert_weights_host(&dm, &im), TETRA_ERR_INVALID_ARGUMENT, "src.dtype");
    x = im; x.data = s.data; /* overlaps src (alignment of malloc: 16) */
    if (((uintptr_t)s.data % 16) == 0)
        CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "overlap");
    /* every other entry point refuses the layout, pointing at tetra_convert_weights */
    CHECK_ERR(tetra_dequantize_host(&im, &dm), TETRA_ERR_INVALID_ARGUMENT, "tetra_convert_weights");
    CHECK_ERR(tetra_quantize_host(&dm, &im, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT,
              "tetra_convert_weights");
    CHECK_ERR(tetra_quantize_host(&dm, &im, TETRA_GLOBAL_SCALE_FROM_AMAX), TETRA_ERR_INVALID_ARGUMENT,
              "tetra_convert_weights");
    CHECK_ERR(tetra_convert_scales_host(&im, &s.m), TETRA_ERR_INVALID_ARGUMENT, "tetra_convert_weights");
    CHECK_ERR(tetra_convert_scales_host(&s.m, &im), TETRA_ERR_INVALID_ARGUMENT, "tetra_convert_weights");
    CHECK_ERR(tetra_scales_to_prepermuted_host(&im, il), TETRA_ERR_INVALID_ARGUMENT, "tetra_convert_weights");
    {
        float a[256], d[64];
        tetra_matrix am = tetra_matrix_dense(TETRA_DTYPE_FP32, a, 1, 256), om = tetra_matrix_dense(TETRA_DTYPE_FP32, d, 1, 64);
        memset(a, 0, sizeof a);
        CHECK_ERR(tetra_gemm_host(&am, &im, &om, 1.0f, NULL, NULL, 1), TETRA_ERR_INVALID_ARGUMENT,
                  "b.scale_layout is TETRA_SCALE_INTERLEAVED_32X128");
    }
    free(ilraw);
    free(s.data); free(s.scales);
}

int main(void) {
    const long long Ns[] = {1, 31, 32, 33, 127, 128, 129, 1000};
    const long long Ks[] = {16, 48, 112, 128, 144, 4112, 8192};
    tetra_rng r = {TEST_SEED};
    printf("test_interleaved_layout: seed %llu\n", (unsigned long long)TEST_SEED);

    /* sizes */
    CHECK(tetra_nvfp4_interleaved_bytes(1, 16) == 9472);          /* 2304*4 + 128 -> 256 */
    CHECK(tetra_nvfp4_interleaved_bytes(28672, 8192) == 132149248); /* 224*4*64*2304 + 28672 */
    CHECK(tetra_nvfp4_interleaved_bytes(1000, 4112) == 2434048);    /* 8*4*33*2304 + 1024, a multiple of 256 */
    CHECK(tetra_nvfp4_interleaved_bytes(0, 16) == 0);
    CHECK(tetra_nvfp4_interleaved_bytes(1, 8) == 0);
    CHECK(tetra_nvfp4_interleaved_bytes(1, 24) == 0);
    CHECK(tetra_nvfp4_interleaved_bytes(1, 0) == 0);
    CHECK(tetra_nvfp4_interleaved_bytes((long long)1 << 40, (long long)1 << 20) == 0);
    CHECK(tetra_nvfp4_interleaved_bytes(((long long)1 << 47) - 1, 16) == 0); /* padding overflows */
    CHECK(tetra_nvfp4_scale_bytes(128, 256, TETRA_SCALE_INTERLEAVED_32X128) == 0);

    /* the formulas at hand-computed points */
    /* the nibble order inside a word: natural, or pairs (element j at nibble j/2 + 4*(j%2)) */
    {
        const uint32_t w = 0x76543210u; /* element j has code j */
        const uint32_t want = TETRA_GEMV_IL_PAIRS ? 0x75316420u : w;
        CHECK(tetra_il_word_pack(w) == want);
        CHECK(tetra_il_word_unpack(want) == w);
        uint8_t a[8] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE}, b[8], c[8];
        tetra_il_pack8(b, a);
        tetra_il_unpack8(c, b);
        CHECK(memcmp(a, c, 8) == 0);
        CHECK(b[0] == (TETRA_GEMV_IL_PAIRS ? 0x20 : 0x10) && b[7] == (TETRA_GEMV_IL_PAIRS ? 0xFD : 0xFE));
    }
    CHECK(tetra_il_data_offset(0, 0, 1) == 0);
    CHECK(tetra_il_data_offset(9, 40, 1) == 596);               /* g 1, i 1, t 1: 512 + 16*5 + 4 */
    CHECK(tetra_il_scale_offset(9, 2, 1) == 2090);              /* lane 5: 2048 + 40 + 2 */
    CHECK(tetra_il_scale_offset(9, 3, 1) == 2091);
    CHECK(tetra_il_data_offset(37, 300, 33) == 80982);          /* block (1*33+2)*2304, lane 21 */
    CHECK(tetra_il_scale_offset(37, 18, 33) == 80640 + 2048 + 8 * 21 + 0 + 0);
    CHECK(tetra_il_flag_offset(1000, 4112, 999) == 2433024 + 999);
    CHECK(tetra_il_data_offset(127, 127, 2) == ((3 * 2) * 2304) + 512 * 3 + 16 * 31 + 15);

    for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++)
        for (size_t ki = 0; ki < sizeof Ks / sizeof Ks[0]; ki++) {
            long long N = Ns[ni], K = Ks[ki];
            int big = N * K > 1000 * 4112;
            round_trip(&r, N, K, 1, TETRA_SCALE_LINEAR, 0, TETRA_SCALE_LINEAR);
            round_trip(&r, N, K, 1, TETRA_SCALE_SWIZZLED_128X4, 0, TETRA_SCALE_LINEAR);
            if (!big) {
                round_trip(&r, N, K, 3, TETRA_SCALE_LINEAR, 3, TETRA_SCALE_SWIZZLED_128X4);
                round_trip(&r, N, K, 3, TETRA_SCALE_SWIZZLED_128X4, 0, TETRA_SCALE_SWIZZLED_128X4);
            }
        }
    printf("  round trips: %d failures\n", tu_failures);
    flags_case(1, 16);
    flags_case(33, 144);
    flags_case(129, 4112);
    errors();
    return tu_finish("test_interleaved_layout");
}
