/* test_bench_attention.c - the CPU side of the attention arms: the two-reference gate
 * (seed 004) in bench_gate_eval, the query-block decomposition the gate uses when it
 * samples rows (a block [r0, r0+nb) as its own problem with Nk = r0+nb for causal gives
 * exactly the rows of the full problem), the arm registry with its FLOP and byte counts,
 * and the `attention` shape set. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "format/float16.h"
#include "ref/attention_ref.h"
#include "testutil.h"

static void test_two_ref_gate(void) {
    double ref[4] = {1.0, -0.5, 0.25, 2.0}, out[4];
    bench_check c;
    bench_gate g;
    memset(&c, 0, sizeof c);
    c.ref = ref;
    c.out = out;
    c.n = 4;
    c.out_dtype = TETRA_DTYPE_BF16;
    c.two_ref = 1;
    c.same_dtype_max_abs = 1e-3;
    /* error at the bound 2 * 1e-3 + 1e-4 passes, just above it fails */
    memcpy(out, ref, sizeof out);
    out[2] += 2.0e-3 + 1e-4 - 1e-9;
    g = bench_gate_eval(&c);
    CHECK_MSG(g.pass, "max_rel %g limit %g", g.max_rel, g.limit_max_rel);
    CHECK(fabs(g.limit_max_rel - (2.1e-3 / 2.0)) < 1e-12); /* bound / max|ref| */
    CHECK(fabs(g.floor_max_rel - 0.5e-3) < 1e-12);
    CHECK(isnan(g.limit_normwise));
    out[2] = ref[2] + 2.2e-3;
    g = bench_gate_eval(&c);
    CHECK(!g.pass);
    CHECK(g.max_rel > g.limit_max_rel);
    /* NaN never passes */
    memcpy(out, ref, sizeof out);
    out[0] = NAN;
    g = bench_gate_eval(&c);
    CHECK(!g.pass && g.nonfinite == 1);
    /* without two_ref the dtype-floor rule still applies (exact output passes) */
    memcpy(out, ref, sizeof out);
    c.two_ref = 0;
    g = bench_gate_eval(&c);
    CHECK(g.pass && !isnan(g.limit_normwise));
}

static void fill16(uint16_t *x, int64_t n, uint64_t seed) {
    tetra_rng r = {seed};
    for (int64_t i = 0; i < n; i++) x[i] = tetra_f32_to_bf16((float)tetra_rng_normal(&r));
}

/* The full problem's rows r0..r0+nb equal the block problem's rows (bit for bit: the same
 * FP64 sums over the same visible keys in the same order). */
static void test_query_blocks(void) {
    const int64_t B = 2, N = 37, H = 2, D = 64, row = H * D;
    uint16_t *q = malloc((size_t)(B * N * row) * 2), *k = malloc((size_t)(B * N * row) * 2),
             *v = malloc((size_t)(B * N * row) * 2);
    double *full = malloc((size_t)(B * N * row) * sizeof(double)), *blk = malloc((size_t)(B * N * row) * sizeof(double));
    const int64_t r0s[3] = {0, 13, 30}, nbs[3] = {5, 11, 7};
    if (!q || !k || !v || !full || !blk) { CHECK(0); goto out; }
    fill16(q, B * N * row, 1);
    fill16(k, B * N * row, 2);
    fill16(v, B * N * row, 3);
    for (int causal = 0; causal < 2; causal++) {
        tetra_attention_args a;
        memset(&a, 0, sizeof a);
        a.dtype = TETRA_DTYPE_BF16;
        a.q = q; a.k = k; a.v = v; a.o = q;
        a.batch = B; a.seqlen_q = a.seqlen_k = N; a.heads_q = a.heads_kv = H; a.head_dim = D;
        a.causal = causal;
        CHECK(tetra_attention_host(&a, TETRA_ATTENTION_REF_EXACT, full, NULL, 1) == TETRA_OK);
        for (int t = 0; t < 3; t++) {
            int64_t r0 = r0s[t], nb = nbs[t], bad = 0;
            tetra_attention_args s = a;
            s.q = q + r0 * row;
            s.seqlen_q = nb;
            s.seqlen_k = causal ? r0 + nb : N;
            s.q_strides[0] = s.k_strides[0] = s.v_strides[0] = N * row;
            s.q_strides[1] = s.k_strides[1] = s.v_strides[1] = row;
            s.q_strides[2] = s.k_strides[2] = s.v_strides[2] = D;
            CHECK(tetra_attention_host(&s, TETRA_ATTENTION_REF_EXACT, blk, NULL, 1) == TETRA_OK);
            for (int64_t b = 0; b < B; b++)
                for (int64_t i = 0; i < nb * row; i++)
                    if (blk[b * nb * row + i] != full[b * N * row + r0 * row + i]) bad++;
            CHECK_MSG(bad == 0, "causal %d block r0=%lld: %lld elements differ", causal, (long long)r0, (long long)bad);
        }
    }
out:
    free(q); free(k); free(v); free(full); free(blk);
}

static void test_arms(void) {
    static const char *const names[] = {"tetra-attention", "tetra-attention-causal", "tetra-attention-fp16",
        "tetra-attention-fp16-causal", "tetra-attention-portable", "tetra-attention-portable-causal",
        "tetra-attention-portable-fp16", "tetra-attention-portable-fp16-causal", "cudnn-sdpa", "cudnn-sdpa-causal",
        "cudnn-sdpa-fp16", "cudnn-sdpa-fp16-causal", "broken-attention"};
    bench_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.m = 2048; sh.n = 16; sh.k = 128; sh.l = 2; /* N x H x D x B */
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const bench_arm *a = bench_arm_find(names[i]);
        int causal = strstr(names[i], "causal") != NULL;
        double f = 4.0 * 2 * 16 * 2048.0 * 2048.0 * 128;
        CHECK_MSG(a != NULL, "%s", names[i]);
        if (!a) continue;
        CHECK(!strcmp(a->op, "attention") && a->check != NULL);
        CHECK(a->hidden == !strcmp(names[i], "broken-attention"));
        CHECK_MSG(a->flops(&sh) == (causal ? f / 2 : f), "%s flops %g", names[i], a->flops(&sh));
        CHECK(a->bytes(&sh) == 4.0 * 2 * 2048 * 16 * 128 * 2);
    }
    /* the GEMM arms count L batches */
    {
        const bench_arm *g = bench_arm_find("tetra-gemm");
        bench_shape b1 = {1, 4096, 7168, 1, ""}, b8 = {1, 4096, 7168, 8, ""};
        CHECK(g && g->flops(&b8) == 8 * g->flops(&b1) && g->bytes(&b8) == 8 * g->bytes(&b1));
        g = bench_arm_find("cublaslt-bf16-tuned");
        CHECK(g && g->flops(&b8) == 8 * g->flops(&b1) && g->bytes(&b8) == 8 * g->bytes(&b1));
    }
}

static void test_shape_set(void) {
    char path[4096], err[256];
    const char *slash = strrchr(__FILE__, '/');
    bench_shapes s = {0};
    int n64 = 0, n128 = 0;
    if (!slash) return;
    snprintf(path, sizeof path, "%.*s/../data/shapes.txt", (int)(slash - __FILE__), __FILE__);
    if (access(path, R_OK)) { fprintf(stderr, "test_bench_attention: %s not readable, set test skipped\n", path); return; }
    CHECK_MSG(bench_shapes_add_sets(&s, path, "attention", err, sizeof err) == 0, "%s", err);
    CHECK(s.n == 8);
    for (int i = 0; i < s.n; i++) {
        CHECK(s.v[i].n == 16 && s.v[i].l == 2);
        CHECK(s.v[i].m == 512 || s.v[i].m == 2048 || s.v[i].m == 8192 || s.v[i].m == 16384);
        n64 += s.v[i].k == 64;
        n128 += s.v[i].k == 128;
    }
    CHECK(n64 == 4 && n128 == 4);
    bench_shapes_free(&s);
    /* the gpumode batched GEMV shapes are in their set with L */
    CHECK(bench_shapes_add_sets(&s, path, "gpumode", err, sizeof err) == 0);
    {
        int l8 = 0, l4 = 0;
        for (int i = 0; i < s.n; i++) {
            l8 += s.v[i].l == 8 && s.v[i].n == 4096 && s.v[i].k == 7168;
            l4 += s.v[i].l == 4 && s.v[i].n == 7168 && s.v[i].k == 2048;
        }
        CHECK(l8 == 1 && l4 == 1);
    }
    bench_shapes_free(&s);
}

int main(void) {
    test_two_ref_gate();
    test_query_blocks();
    test_arms();
    test_shape_set();
    return tu_finish("test_bench_attention");
}
