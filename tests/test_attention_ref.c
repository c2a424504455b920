/* test_attention_ref.c - the attention CPU oracle against a naive direct formula
 * (unnormalised exp sums in long double, the causal rule written as j - i <= Nk - Nq) on
 * tiny odd sizes: causal with Nq != Nk (incl. rows with no visible key), GQA, MQA,
 * strided layouts, several thread counts; plus shape validation that needs no GPU. */
#include <math.h>
#include <string.h>

#include "format/float16.h"
#include "ref/attention_ref.h"
#include "testutil.h"

/* Strides of a [B, N, H, D] tensor stored heads-outer ([B, H, N, D]) with padding. */
static int64_t set_heads_outer(int64_t s[3], int64_t B, int64_t N, int64_t H, int64_t D) {
    s[1] = D + 8;           /* N */
    s[2] = N * s[1] + 24;   /* H */
    s[0] = H * s[2] + 40;   /* B */
    return (B - 1) * s[0] + (N - 1) * s[1] + (H - 1) * s[2] + D;
}

static uint16_t *random_tensor(tetra_rng *r, int64_t n, tetra_dtype dt) {
    uint16_t *x = (uint16_t *)malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++) {
        float f = (float)tetra_rng_normal(r);
        x[i] = dt == TETRA_DTYPE_BF16 ? tetra_f32_to_bf16(f) : tetra_f32_to_f16(f);
    }
    return x;
}

static long double elem(const uint16_t *x, int64_t i, tetra_dtype dt) {
    return dt == TETRA_DTYPE_BF16 ? tetra_bf16_to_f32(x[i]) : tetra_f16_to_f32(x[i]);
}

static void run_case(tetra_dtype dt, int64_t B, int64_t Nq, int64_t Nk, int64_t Hq, int64_t Hkv,
                     int causal, int strided, float scale, int threads, uint64_t seed) {
    const int64_t D = 64;
    tetra_attention_args a;
    tetra_rng r = {seed};
    int64_t nq_el, nk_el;
    double *o64, *lse64, *o_rp;
    memset(&a, 0, sizeof a);
    a.dtype = dt; a.batch = B; a.seqlen_q = Nq; a.seqlen_k = Nk; a.heads_q = Hq;
    a.heads_kv = Hkv; a.head_dim = D; a.causal = causal; a.scale = scale;
    if (strided) {
        nq_el = set_heads_outer(a.q_strides, B, Nq, Hq, D);
        nk_el = set_heads_outer(a.k_strides, B, Nk, Hkv, D);
        memcpy(a.v_strides, a.k_strides, sizeof a.v_strides);
    } else {
        nq_el = B * Nq * Hq * D;
        nk_el = B * Nk * Hkv * D;
    }
    a.q = random_tensor(&r, nq_el, dt);
    a.k = random_tensor(&r, nk_el, dt);
    a.v = random_tensor(&r, nk_el, dt);
    a.o = (void *)a.q; /* ignored by the host reference, but must be non-NULL */
    o64 = (double *)malloc((size_t)(B * Nq * Hq * D) * sizeof(double));
    o_rp = (double *)malloc((size_t)(B * Nq * Hq * D) * sizeof(double));
    lse64 = (double *)malloc((size_t)(B * Hq * Nq) * sizeof(double));
    CHECK(tetra_attention_host(&a, TETRA_ATTENTION_REF_EXACT, o64, lse64, threads) == TETRA_OK);
    CHECK(tetra_attention_host(&a, TETRA_ATTENTION_REF_ROUND_P, o_rp, NULL, threads) == TETRA_OK);
    {
        const double sc = scale != 0.0f ? (double)scale : 1.0 / sqrt((double)D);
        const int64_t qs[3] = {strided ? a.q_strides[0] : Nq * Hq * D, strided ? a.q_strides[1] : Hq * D,
                               strided ? a.q_strides[2] : D};
        const int64_t ks[3] = {strided ? a.k_strides[0] : Nk * Hkv * D, strided ? a.k_strides[1] : Hkv * D,
                               strided ? a.k_strides[2] : D};
        double worst = 0.0, worst_rp = 0.0;
        for (int64_t b = 0; b < B; b++)
            for (int64_t h = 0; h < Hq; h++)
                for (int64_t i = 0; i < Nq; i++) {
                    const int64_t hk = h * Hkv / Hq; /* = h / (Hq/Hkv) */
                    long double num[64] = {0}, den = 0;
                    int any = 0;
                    for (int64_t j = 0; j < Nk; j++) {
                        long double dot = 0, e;
                        if (causal && j - i > Nk - Nq) continue;
                        any = 1;
                        for (int64_t d = 0; d < D; d++)
                            dot += elem(a.q, b * qs[0] + i * qs[1] + h * qs[2] + d, dt) *
                                   elem(a.k, b * ks[0] + j * ks[1] + hk * ks[2] + d, dt);
                        e = expl((long double)(float)sc * dot);
                        den += e;
                        for (int64_t d = 0; d < D; d++)
                            num[d] += e * elem(a.v, b * ks[0] + j * ks[1] + hk * ks[2] + d, dt);
                    }
                    for (int64_t d = 0; d < D; d++) {
                        const int64_t oi = ((b * Nq + i) * Hq + h) * D + d;
                        const double want = any ? (double)(num[d] / den) : 0.0;
                        const double err = fabs(o64[oi] - want);
                        if (err > worst) worst = err;
                        if (fabs(o_rp[oi] - want) > worst_rp) worst_rp = fabs(o_rp[oi] - want);
                        if (!any) CHECK(o64[oi] == 0.0 && o_rp[oi] == 0.0);
                    }
                    {
                        const double lse = lse64[(b * Hq + h) * Nq + i];
                        if (!any) CHECK_MSG(isinf(lse) && lse < 0, "row %lld lse %g", (long long)i, lse);
                        else CHECK_MSG(fabs(lse - (double)logl(den)) <= 1e-12 * (1 + fabs(lse)),
                                       "lse %g want %g", lse, (double)logl(den));
                    }
                }
        CHECK_MSG(worst <= 1e-12, "oracle vs naive: max abs %g (B=%lld Nq=%lld Nk=%lld)", worst,
                  (long long)B, (long long)Nq, (long long)Nk);
        /* Rounding P to the dtype must move O a little, never a lot. */
        CHECK_MSG(worst_rp > 0.0 && worst_rp < 2e-2, "ROUND_P vs naive: max abs %g", worst_rp);
        printf("B=%lld Nq=%lld Nk=%lld Hq=%lld Hkv=%lld causal=%d strided=%d: |oracle-naive| %.2e, "
               "|roundP-naive| %.2e\n", (long long)B, (long long)Nq, (long long)Nk, (long long)Hq,
               (long long)Hkv, causal, strided, worst, worst_rp);
    }
    free((void *)a.q); free((void *)a.k); free((void *)a.v);
    free(o64); free(o_rp); free(lse64);
}

static void shape_errors(void) {
    tetra_attention_args a, r;
    static uint16_t buf[8];
    memset(&a, 0, sizeof a);
    a.dtype = TETRA_DTYPE_BF16; a.q = a.k = a.v = buf; a.o = buf;
    a.batch = 1; a.seqlen_q = 3; a.seqlen_k = 5; a.heads_q = 4; a.heads_kv = 2; a.head_dim = 64;
    CHECK(tetra_attention_check_shape(&a, &r) == TETRA_OK);
    CHECK(r.q_strides[2] == 64 && r.q_strides[1] == 256 && r.q_strides[0] == 768);
    CHECK(r.k_strides[1] == 128 && r.k_strides[0] == 640);
    CHECK(fabsf(r.scale - 0.125f) < 1e-7f);
    {
        tetra_attention_args b = a; b.head_dim = 96;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "head_dim");
        b = a; b.heads_kv = 3;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "heads_kv");
        b = a; b.dtype = TETRA_DTYPE_FP32;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "dtype");
        b = a; b.seqlen_k = 0;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "seqlen_k");
        b = a; b.v = NULL;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "args.v");
        b = a; b.k_strides[2] = 32; /* rows of 64 would overlap */
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "k_strides[2]");
        b = a; b.o_strides[1] = 200; /* 4 heads x 64 need 256 */
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "o_strides[1]");
        b = a; b.q_strides[0] = -1;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "q_strides[0]");
        b = a; b.q_strides[1] = (int64_t)1 << 62;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "q_strides");
        b = a; b.scale = NAN;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "scale");
        b = a; b.path = 9;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "path");
        /* tile_rows: a pin of path 3 only, 128 or 192 at D=64, 128 at D=128 */
        b = a; b.tile_rows = 128;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "tile_rows");
        b = a; b.path = 3; b.tile_rows = 100;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "tile_rows");
        b = a; b.path = 3; b.tile_rows = 192;
        CHECK(tetra_attention_check_shape(&b, &r) == TETRA_OK);
        b = a; b.path = 3; b.tile_rows = 192; b.head_dim = 128;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "tile_rows");
        b = a; b.path = 3; b.tile_rows = 128; b.head_dim = 128;
        CHECK(tetra_attention_check_shape(&b, &r) == TETRA_OK);
        b = a; b.q = (const char *)buf + 1;
        CHECK_ERR(tetra_attention_check_shape(&b, &r), TETRA_ERR_INVALID_ARGUMENT, "args.q");
        /* heads-outer [B, H, N, D] is a valid permutation */
        b = a; b.q_strides[2] = 3 * 64; b.q_strides[1] = 64; b.q_strides[0] = 4 * 3 * 64;
        CHECK(tetra_attention_check_shape(&b, &r) == TETRA_OK);
    }
    CHECK_ERR(tetra_attention_check_shape(NULL, &r), TETRA_ERR_INVALID_ARGUMENT, "args");
}

int main(void) {
    shape_errors();
    run_case(TETRA_DTYPE_BF16, 2, 5, 7, 6, 2, 1, 1, 0.0f, 3, 1);   /* GQA, causal Nq < Nk */
    run_case(TETRA_DTYPE_FP16, 1, 7, 5, 3, 1, 1, 0, 0.0f, 2, 2);   /* MQA, rows 0-1 see no key */
    run_case(TETRA_DTYPE_BF16, 2, 9, 9, 2, 2, 0, 0, 0.3f, 1, 3);   /* MHA, explicit scale */
    run_case(TETRA_DTYPE_FP16, 3, 1, 13, 4, 2, 1, 1, -0.2f, 5, 4); /* one query, negative scale */
    run_case(TETRA_DTYPE_BF16, 1, 11, 3, 2, 1, 0, 1, 0.0f, 0, 5);  /* non-causal Nq > Nk */
    return tu_finish("test_attention_ref");
}
