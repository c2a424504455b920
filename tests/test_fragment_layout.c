/* test_fragment_layout.c - TETRA_SCALE_FRAGMENT_128X64 on the host (no GPU):
 * tetra_nvfp4_fragment_bytes and the scale size, a hand-computed word (the contract of the
 * bit map, independent of the converter), single nonzero elements landing exactly at
 * tetra_frag_word_offset / tetra_frag_bit, tetra_convert_weights_host round trips (linear
 * with scale_ld = K/16 and larger, swizzled, L = 1 and 3 with padded batch strides) whose
 * fragment buffers are compared byte for byte with one built independently element by
 * element (tetra_frag_word_offset + tetra_frag_put, padding code 0; scales the swizzled
 * bytes with zero padding), and argument errors (every refused field named, every other
 * entry point refusing the layout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/nvfp4_codec.h"
#include "testutil.h"

#define TEST_SEED 20261217ull

static long long dbstride(const tetra_matrix *m) { return m->batch_stride ? m->batch_stride : m->rows * m->cols; }
static long long sbstride(const tetra_matrix *m) {
    if (m->scale_batch_stride) return m->scale_batch_stride;
    return (long long)tetra_nvfp4_scale_bytes(m->rows, m->cols, m->scale_layout) +
           (m->scale_layout == TETRA_SCALE_LINEAR ? m->rows * (m->scale_ld - m->cols / 16) : 0);
}
static unsigned scode(const tetra_matrix *m, long long l, long long n, long long k) {
    const uint8_t b = ((const uint8_t *)m->data)[(l * dbstride(m) + n * m->cols + k) / 2];
    return (k & 1) ? b >> 4 : b & 15u;
}
static uint8_t *sscale(const tetra_matrix *m, long long l, long long r, long long kb) {
    long long sld = m->scale_ld ? m->scale_ld : m->cols / 16;
    return (uint8_t *)m->scales + l * sbstride(m) +
           tetra_scale_offset(m->scale_layout == TETRA_SCALE_SWIZZLED_128X4, r, kb, m->cols / 16, sld);
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr32(uint8_t *p, uint32_t w) {
    for (int b = 0; b < 4; b++) p[b] = (uint8_t)(w >> (8 * b));
}

/* The fragment bytes of a standard matrix, built element by element from the contract
 * (every padded element put, padding code 0), and its swizzled scales (padding 0). */
static void expected_fragment(const tetra_matrix *s, uint8_t *val, uint8_t *sc) {
    const long long N = s->rows, K = s->cols, L = s->batch, nkb = K / 16;
    const long long FB = (long long)tetra_nvfp4_fragment_bytes(N, K);
    const long long SB = (long long)tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_FRAGMENT_128X64);
    const long long NP = (N + 127) / 128 * 128, KP = (K + 63) / 64 * 64;
    memset(val, 0, (size_t)(FB * L));
    memset(sc, 0, (size_t)(SB * L));
    for (long long l = 0; l < L; l++)
        for (long long n = 0; n < NP; n++)
            for (long long k = 0; k < KP; k++) {
                uint8_t *p = val + l * FB + tetra_frag_word_offset(n, k, K);
                wr32(p, tetra_frag_put(rd32(p), n, k, n < N && k < K ? scode(s, l, n, k) : 0u));
            }
    for (long long l = 0; l < L; l++)
        for (long long n = 0; n < N; n++)
            for (long long kb = 0; kb < nkb; kb++) sc[l * SB + tetra_swizzled_offset(n, kb, nkb)] = *sscale(s, l, n, kb);
}

static const char *lname(tetra_scale_layout l) { return l == TETRA_SCALE_LINEAR ? "linear" : "swizzled"; }

/* Convert a standard matrix to the fragment layout (buffers poisoned 0xAB: every byte must
 * be written) and back (into fresh buffers poisoned 0xCD, in `back_layout`); check every
 * fragment byte and every value/scale of the round trip, the batch padding of the standard
 * dst untouched and a swizzled dst's padded scales zero. */
static void round_trip(tetra_rng *r, long long N, long long K, long long L, tetra_scale_layout lay, long long spad,
                       tetra_scale_layout back_layout) {
    tu_stdmat s = tu_std_make(r, N, K, L, lay, spad, 0.5f, 256), b = tu_std_make(r, N, K, L, back_layout, 0, 0.5f, 256);
    const long long FB = (long long)tetra_nvfp4_fragment_bytes(N, K);
    const long long SB = (long long)tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_FRAGMENT_128X64);
    const long long nkb = K / 16;
    uint8_t *fv = tu_amalloc((size_t)(FB * L)), *fs = tu_amalloc((size_t)(SB * L));
    uint8_t *ev = tu_amalloc((size_t)(FB * L)), *es = tu_amalloc((size_t)(SB * L));
    tetra_matrix fm;
    int bad_back = 0, bad_pad = 0;
    long long first_bad = -1;
    char what[160];
    snprintf(what, sizeof what, "N=%lld K=%lld L=%lld %s(spad %lld) -> fragment -> %s", N, K, L, lname(lay), spad,
             lname(back_layout));
    CHECK_MSG(FB > 0 && FB % 4096 == 0, "%s: fragment bytes %lld", what, FB);
    memset(fv, 0xAB, (size_t)(FB * L));
    memset(fs, 0xAB, (size_t)(SB * L));
    fm = tetra_matrix_nvfp4(fv, fs, TETRA_SCALE_FRAGMENT_128X64, N, K, 0.0f);
    fm.batch = L;
    {
        tetra_status st = tetra_convert_weights_host(&s.m, &fm);
        CHECK_MSG(st == TETRA_OK, "%s: to fragment: %s", what, tetra_last_error());
        if (st != TETRA_OK) goto out;
    }
    CHECK(fm.global_scale == 0.5f);
    expected_fragment(&s.m, ev, es);
    for (long long i = 0; i < FB * L && first_bad < 0; i++)
        if (fv[i] != ev[i]) first_bad = i;
    CHECK_MSG(first_bad < 0, "%s: fragment values differ from the contract at byte %lld (%02x, want %02x)", what,
              first_bad, first_bad < 0 ? 0 : fv[first_bad], first_bad < 0 ? 0 : ev[first_bad]);
    CHECK_MSG(memcmp(fs, es, (size_t)(SB * L)) == 0, "%s: fragment scales differ", what);

    memset(b.data, 0xCD, b.dbytes);
    memset(b.scales, 0xCD, b.sbytes);
    {
        tetra_status st = tetra_convert_weights_host(&fm, &b.m);
        CHECK_MSG(st == TETRA_OK, "%s: back: %s", what, tetra_last_error());
    }
    CHECK(b.m.global_scale == 0.5f);
    for (long long l = 0; l < L; l++)
        for (long long n = 0; n < N; n++) {
            for (long long k = 0; k < K; k++) bad_back += scode(&b.m, l, n, k) != scode(&s.m, l, n, k);
            for (long long kb = 0; kb < nkb; kb++) bad_back += *sscale(&b.m, l, n, kb) != *sscale(&s.m, l, n, kb);
        }
    if (L > 1) /* the 64-element batch padding: not touched */
        for (long long l = 0; l < L; l++)
            for (long long i = N * K / 2; i < dbstride(&b.m) / 2; i++) bad_pad += b.data[l * dbstride(&b.m) / 2 + i] != 0xCD;
    if (back_layout == TETRA_SCALE_SWIZZLED_128X4) { /* padded scales zero */
        long long rp = (N + 127) / 128 * 128, kp = (nkb + 3) / 4 * 4;
        for (long long l = 0; l < L; l++)
            for (long long n = 0; n < rp; n++)
                for (long long kb = 0; kb < kp; kb++)
                    if ((n >= N || kb >= nkb) && *sscale(&b.m, l, n, kb) != 0) bad_pad++;
    }
    CHECK_MSG(bad_back == 0, "%s: %d values/scales differ after the round trip", what, bad_back);
    CHECK_MSG(bad_pad == 0, "%s: %d padding bytes wrong after the round trip", what, bad_pad);
out:
    free(fv); free(fs); free(ev); free(es);
    free(s.data); free(s.scales); free(b.data); free(b.scales);
}

/* One nonzero element (code 0xB: m 1, e0 1, e1 0, sign 1) at (n, k) of an otherwise zero
 * N x K matrix: exactly its three bits are set in the whole fragment buffer, in the word
 * tetra_frag_word_offset names, at tetra_frag_bit's positions. */
static void single_element(long long N, long long K, long long n, long long k) {
    const long long FB = (long long)tetra_nvfp4_fragment_bytes(N, K);
    uint8_t *sd = calloc((size_t)(N * K / 2), 1), *ss = calloc((size_t)(N * K / 16), 1);
    uint8_t *fv = tu_amalloc((size_t)FB), *fs = tu_amalloc(tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_FRAGMENT_128X64));
    tetra_matrix sm = tetra_matrix_nvfp4(sd, ss, TETRA_SCALE_LINEAR, N, K, 1.0f);
    tetra_matrix fm = tetra_matrix_nvfp4(fv, fs, TETRA_SCALE_FRAGMENT_128X64, N, K, 1.0f);
    long long off = tetra_frag_word_offset(n, k, K), other = 0;
    uint32_t want = (1u << tetra_frag_bit(n, k, 0)) | (1u << tetra_frag_bit(n, k, 1)) | (1u << tetra_frag_bit(n, k, 3));
    sd[(n * K + k) / 2] = (uint8_t)(k & 1 ? 0xB0 : 0x0B);
    memset(fv, 0x5A, (size_t)FB);
    CHECK(tetra_convert_weights_host(&sm, &fm) == TETRA_OK);
    for (long long i = 0; i < FB; i++)
        if ((i < off || i >= off + 4) && fv[i]) other++;
    CHECK_MSG(off >= 0 && off + 4 <= FB && rd32(fv + off) == want && other == 0,
              "element (%lld, %lld) of %lldx%lld: word at %lld is %08x, want %08x; %lld other bytes nonzero", n, k, N, K,
              off, rd32(fv + off), want, other);
    free(sd); free(ss); free(fv); free(fs);
}

static void errors(void) {
    tetra_rng r = {TEST_SEED + 9};
    const long long N = 64, K = 256;
    tu_stdmat s = tu_std_make(&r, N, K, 1, TETRA_SCALE_LINEAR, 0, 0.5f, 256);
    const size_t FB = tetra_nvfp4_fragment_bytes(N, K), SB = tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_FRAGMENT_128X64);
    uint8_t *fv = tu_amalloc(FB + 16), *fs = tu_amalloc(SB + 16);
    uint8_t *il = tu_amalloc(tetra_nvfp4_interleaved_bytes(N, K));
    float dense[64 * 256];
    tetra_matrix fm = tetra_matrix_nvfp4(fv, fs, TETRA_SCALE_FRAGMENT_128X64, N, K, 1.0f), x;
    tetra_matrix im = tetra_matrix_nvfp4(il, NULL, TETRA_SCALE_INTERLEAVED_32X128, N, K, 1.0f);
    tetra_matrix dm = tetra_matrix_dense(TETRA_DTYPE_FP32, dense, N, K);
    memset(dense, 0, sizeof dense);
    CHECK(tetra_convert_weights_host(&s.m, &fm) == TETRA_OK);
    CHECK(tetra_convert_weights_host(&fm, &s.m) == TETRA_OK);

    /* the layout's own fields, as dst and as src */
    x = fm; x.ld = 256;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.ld = 256 must be 0");
    CHECK_ERR(tetra_convert_weights_host(&x, &s.m), TETRA_ERR_INVALID_ARGUMENT, "src.ld = 256 must be 0");
    x = fm; x.batch_stride = N * K;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.batch_stride");
    x = fm; x.scale_ld = 16;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.scale_ld");
    x = fm; x.scale_batch_stride = (int64_t)SB;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.scale_batch_stride");
    x = fm; x.data = fv + 8;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.data must be 16-byte aligned");
    x = fm; x.scales = NULL;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.scales is NULL");
    CHECK_ERR(tetra_convert_weights_host(&x, &s.m), TETRA_ERR_INVALID_ARGUMENT, "src.scales is NULL");
    x = fm; x.scales = fs + 4;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.scales must be 16-byte aligned");
    x = fm; x.data = NULL;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.data is NULL");
    x = fm; x.rows = 65;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "65x256");
    x = fm; x.cols = 24;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.cols");
    x = fm; x.rows = (int64_t)1 << 40; x.cols = (int64_t)1 << 20;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "too large for the fragment layout");
    x = fm; x.global_scale = 0.0f; /* dst's global scale is overwritten: not checked */
    CHECK(tetra_convert_weights_host(&s.m, &x) == TETRA_OK && x.global_scale == s.m.global_scale);
    x = fm; x.global_scale = 0.0f;
    CHECK_ERR(tetra_convert_weights_host(&x, &s.m), TETRA_ERR_INVALID_ARGUMENT, "src.global_scale");
    x = fm; x.dtype = TETRA_DTYPE_FP32; x.scale_layout = TETRA_SCALE_FRAGMENT_128X64;
    CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "dst.dtype");
    /* pairs of layouts */
    CHECK_ERR(tetra_convert_weights_host(&fm, &fm), TETRA_ERR_INVALID_ARGUMENT, "exactly one");
    CHECK_ERR(tetra_convert_weights_host(&fm, &im), TETRA_ERR_INVALID_ARGUMENT, "through a standard layout");
    CHECK_ERR(tetra_convert_weights_host(&im, &fm), TETRA_ERR_INVALID_ARGUMENT, "through a standard layout");
    CHECK_ERR(tetra_convert_weights_host(&s.m, &s.m), TETRA_ERR_INVALID_ARGUMENT, "exactly one");
    /* overlap: the fragment scales on the standard values, the fragment values on the standard scales */
    if (((uintptr_t)s.data % 16) == 0) {
        x = fm; x.scales = s.data;
        CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "overlap");
    }
    if (((uintptr_t)s.scales % 16) == 0) {
        x = fm; x.data = s.scales;
        CHECK_ERR(tetra_convert_weights_host(&s.m, &x), TETRA_ERR_INVALID_ARGUMENT, "overlap");
    }
    /* every other entry point refuses the layout, pointing at tetra_convert_weights */
    CHECK_ERR(tetra_dequantize_host(&fm, &dm), TETRA_ERR_INVALID_ARGUMENT, "tetra_convert_weights");
    CHECK_ERR(tetra_quantize_host(&dm, &fm, TETRA_GLOBAL_SCALE_SUPPLIED), TETRA_ERR_INVALID_ARGUMENT,
              "tetra_convert_weights");
    CHECK_ERR(tetra_quantize_host(&dm, &fm, TETRA_GLOBAL_SCALE_FROM_AMAX), TETRA_ERR_INVALID_ARGUMENT,
              "tetra_convert_weights");
    CHECK_ERR(tetra_convert_scales_host(&fm, &s.m), TETRA_ERR_INVALID_ARGUMENT, "src.scale_layout is TETRA_SCALE_FRAGMENT_128X64");
    CHECK_ERR(tetra_convert_scales_host(&s.m, &fm), TETRA_ERR_INVALID_ARGUMENT, "dst.scale_layout is TETRA_SCALE_FRAGMENT_128X64");
    CHECK_ERR(tetra_scales_to_prepermuted_host(&fm, fv), TETRA_ERR_INVALID_ARGUMENT, "tetra_convert_weights");
    {
        float a[256], d[64];
        tetra_matrix am = tetra_matrix_dense(TETRA_DTYPE_FP32, a, 1, 256), om = tetra_matrix_dense(TETRA_DTYPE_FP32, d, 1, 64);
        memset(a, 0, sizeof a);
        CHECK_ERR(tetra_gemm_host(&am, &fm, &om, 1.0f, NULL, NULL, 1), TETRA_ERR_INVALID_ARGUMENT,
                  "b.scale_layout is TETRA_SCALE_FRAGMENT_128X64");
    }
    free(fv); free(fs); free(il);
    free(s.data); free(s.scales);
}

int main(void) {
    const long long Ns[] = {1, 127, 129, 300};
    const long long Ks[] = {16, 48, 64, 80, 1040};
    tetra_rng r = {TEST_SEED};
    printf("test_fragment_layout: seed %llu\n", (unsigned long long)TEST_SEED);

    /* sizes: round_up(rows, 128) * round_up(K, 64) / 2; scales as the swizzled layout */
    CHECK(tetra_nvfp4_fragment_bytes(1, 16) == 4096);
    CHECK(tetra_nvfp4_fragment_bytes(128, 64) == 4096);
    CHECK(tetra_nvfp4_fragment_bytes(129, 80) == 256 * 64);
    CHECK(tetra_nvfp4_fragment_bytes(300, 1040) == 384 * 544);
    CHECK(tetra_nvfp4_fragment_bytes(28672, 8192) == (size_t)28672 * 4096);
    CHECK(tetra_nvfp4_fragment_bytes(0, 16) == 0);
    CHECK(tetra_nvfp4_fragment_bytes(1, 8) == 0);
    CHECK(tetra_nvfp4_fragment_bytes(1, 24) == 0);
    CHECK(tetra_nvfp4_fragment_bytes(1, 0) == 0);
    CHECK(tetra_nvfp4_fragment_bytes(-1, 16) == 0);
    CHECK(tetra_nvfp4_fragment_bytes((long long)1 << 40, (long long)1 << 20) == 0);
    CHECK(tetra_nvfp4_fragment_bytes(((long long)1 << 47) - 1, 16) == 0); /* padding overflows */
    CHECK(tetra_nvfp4_scale_bytes(300, 1040, TETRA_SCALE_FRAGMENT_128X64) == 384 * 68);
    CHECK(tetra_nvfp4_scale_bytes(300, 1040, TETRA_SCALE_FRAGMENT_128X64) ==
          tetra_nvfp4_scale_bytes(300, 1040, TETRA_SCALE_SWIZZLED_128X4));
    CHECK(tetra_nvfp4_scale_bytes(1, 16, TETRA_SCALE_FRAGMENT_128X64) == 512);
    CHECK(tetra_nvfp4_scale_bytes(0, 16, TETRA_SCALE_FRAGMENT_128X64) == 0);

    /* the contract at a hand-computed point: element (9, 37) of a 64-column matrix: r 9,
     * kk 37, lane 4 * 1 + 2 = 6, s 2: block byte 16 * 6 + 4 * 2 = 104 of block 0; slot
     * 2 * 0 + 1 = 1, k odd: bits m 3 + 16, e0 4 + 16, e1 5 + 16, sign 12 + 16. Code 0xB (m,
     * e0, sign): word 0x10180000. And element (200, 100) of a 1040-column matrix (17 K-tiles):
     * block 1 * 17 + 1 = 18, r 72: wg 1, w 0, g 0; kk 36: s 2, t 2, lane 2: block byte
     * 2048 + 32 + 8 = 2088 -> 18 * 4096 + 2088 = 75816. */
    CHECK(tetra_frag_word_offset(9, 37, 64) == 104);
    CHECK(tetra_frag_word_offset(200, 100, 1040) == 75816);
    {
        uint8_t sd[64 * 32 / 2] = {0}, ss[64 * 32 / 16] = {0};
        uint8_t *fv = tu_amalloc(4096), *fs = tu_amalloc(512);
        tetra_matrix sm = tetra_matrix_nvfp4(sd, ss, TETRA_SCALE_LINEAR, 10, 64, 1.0f);
        tetra_matrix fm = tetra_matrix_nvfp4(fv, fs, TETRA_SCALE_FRAGMENT_128X64, 10, 64, 1.0f);
        sd[(9 * 64 + 37) / 2] = 0xB0;
        CHECK(tetra_convert_weights_host(&sm, &fm) == TETRA_OK);
        CHECK(rd32(fv + 104) == 0x10180000u);
        free(fv); free(fs);
    }
    single_element(1, 16, 0, 0);
    single_element(300, 1040, 0, 0);
    single_element(300, 1040, 9, 37);
    single_element(300, 1040, 127, 63);
    single_element(300, 1040, 128, 64);
    single_element(300, 1040, 136, 1039);
    single_element(300, 1040, 299, 1038);
    single_element(129, 80, 128, 79);

    for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++)
        for (size_t ki = 0; ki < sizeof Ks / sizeof Ks[0]; ki++) {
            long long N = Ns[ni], K = Ks[ki];
            round_trip(&r, N, K, 1, TETRA_SCALE_LINEAR, 0, TETRA_SCALE_LINEAR);
            round_trip(&r, N, K, 1, TETRA_SCALE_SWIZZLED_128X4, 0, TETRA_SCALE_LINEAR);
            round_trip(&r, N, K, 3, TETRA_SCALE_LINEAR, 3, TETRA_SCALE_SWIZZLED_128X4);
            round_trip(&r, N, K, 3, TETRA_SCALE_SWIZZLED_128X4, 0, TETRA_SCALE_LINEAR);
        }
    printf("  round trips: %d failures\n", tu_failures);
    errors();
    return tu_finish("test_fragment_layout");
}
