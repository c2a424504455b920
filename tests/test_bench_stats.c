/* test_bench_stats.c - the instrument's statistics: median, the order-statistic CI,
 * ABBA/BAAB block orders, the verdict rule, and the correctness gate (a correct
 * rounding passes, a perturbed element or a dropped K block fails, NaN fails). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "format/float16.h"
#include "testutil.h"

static void test_median(void) {
    double a[] = {5, 1, 3}, b[] = {4, 1, 3, 2};
    CHECK(bench_median(a, 3) == 3);
    CHECK(bench_median(b, 4) == 2.5);
    CHECK(isnan(bench_median(a, 0)));
    CHECK(bench_quantile(b, 4, 0) == 1 && bench_quantile(b, 4, 1) == 4);
}

static void test_ci(void) {
    double x[20], lo, hi, cov;
    for (int i = 0; i < 20; i++) x[i] = 20 - i; /* 1..20 reversed: order must not matter */
    bench_median_ci(x, 20, &lo, &hi, &cov);
    /* n = 20: P(Bin(20,.5) <= 5) = 0.0207 <= 0.025 < P(<= 6) -> ranks 6 and 15 */
    CHECK_MSG(lo == 6 && hi == 15, "lo %g hi %g", lo, hi);
    CHECK(cov > 0.95 && cov < 0.97);
    {
        double y[16];
        for (int i = 0; i < 16; i++) y[i] = i + 1;
        bench_median_ci(y, 16, &lo, &hi, &cov);
        CHECK_MSG(lo == 4 && hi == 13, "n=16: lo %g hi %g", lo, hi); /* P(<=3) = 0.0106 */
    }
    {
        double z[5] = {3, 1, 2, 5, 4};
        bench_median_ci(z, 5, &lo, &hi, &cov); /* too few for 95%: the range */
        CHECK(lo == 1 && hi == 5 && cov < 0.95);
    }
    /* coverage by simulation: the CI of the median of 20 uniforms contains 0.5 ~96% */
    {
        tetra_rng r = {7};
        int hit = 0, trials = 4000;
        for (int t = 0; t < trials; t++) {
            double u[20];
            for (int i = 0; i < 20; i++) u[i] = tetra_rng_uniform(&r);
            bench_median_ci(u, 20, &lo, &hi, NULL);
            hit += lo <= 0.5 && 0.5 <= hi;
        }
        CHECK_MSG(hit > 0.94 * trials && hit < 0.98 * trials, "coverage %d / %d", hit, trials);
    }
}

static void test_orders(void) {
    int o[4], ab = 0, ba = 0, count_a = 0;
    for (int b = 0; b < 10; b++) {
        bench_block_order(b, o);
        /* each block is a palindrome with two A and two B */
        CHECK(o[0] == o[3] && o[1] == o[2] && o[0] != o[1]);
        for (int i = 0; i < 4; i++) count_a += o[i] == 0;
        if (o[0] == 0) ab++;
        else ba++;
        /* alternation: consecutive blocks start with different arms */
        if (b > 0) {
            int p[4];
            bench_block_order(b - 1, p);
            CHECK(p[0] != o[0]);
        }
    }
    CHECK(ab == 5 && ba == 5 && count_a == 20);
    bench_block_order(0, o);
    CHECK(o[0] == 0 && o[1] == 1 && o[2] == 1 && o[3] == 0); /* ABBA first */
}

static void test_verdict(void) {
    double t = 0.01;
    CHECK(bench_call(1.02, 1.05, 1.03, 1.03, t) == BENCH_VERDICT_FASTER);
    CHECK(bench_call(0.95, 0.98, 0.97, 0.96, t) == BENCH_VERDICT_SLOWER);
    CHECK(bench_call(1.005, 1.05, 1.03, 1.03, t) == BENCH_VERDICT_WITHIN_NOISE); /* CI touches the band */
    CHECK(bench_call(0.98, 1.02, 1.0, 1.0, t) == BENCH_VERDICT_WITHIN_NOISE);
    CHECK(bench_call(1.02, 1.05, 1.03, 0.99, t) == BENCH_VERDICT_WITHIN_NOISE); /* halves disagree */
    CHECK(bench_call(1.02, 1.05, 1.03, 1.03, NAN) == BENCH_VERDICT_WITHIN_NOISE); /* uncalibrated */
    CHECK(bench_verdict_final(BENCH_VERDICT_FASTER, 1.01) == BENCH_VERDICT_FASTER);
    CHECK(bench_verdict_final(BENCH_VERDICT_FASTER, 0.99) == BENCH_VERDICT_WITHIN_NOISE);
    CHECK(bench_verdict_final(BENCH_VERDICT_FASTER, NAN) == BENCH_VERDICT_FASTER_UNREPLICATED);
    CHECK(bench_verdict_final(BENCH_VERDICT_SLOWER, NAN) == BENCH_VERDICT_SLOWER_UNREPLICATED);
    CHECK(bench_verdict_final(BENCH_VERDICT_WITHIN_NOISE, NAN) == BENCH_VERDICT_WITHIN_NOISE);
    CHECK(!strcmp(bench_verdict_name(BENCH_VERDICT_SLOWER_UNREPLICATED), "slower-unreplicated"));
    CHECK(bench_verdict_final(BENCH_VERDICT_SLOWER, 0.97) == BENCH_VERDICT_SLOWER);
    CHECK(!strcmp(bench_verdict_name(BENCH_VERDICT_WITHIN_NOISE), "within-noise"));
}

/* A synthetic GEMM: ref = FP64 dot products; a "correct kernel" accumulates in FP32 and
 * rounds to BF16; broken variants drop the last K block or perturb one element. */
static void test_gate(void) {
    enum { M = 16, N = 64, K = 1024 };
    static float a[M * K], b[N * K];
    static double ref[M * N], good[M * N], drop[M * N], poke[M * N], nan_out[M * N];
    tetra_rng r = {11};
    bench_check c;
    bench_gate g;
    for (int i = 0; i < M * K; i++) a[i] = (float)tetra_rng_normal(&r);
    for (int i = 0; i < N * K; i++) b[i] = (float)tetra_rng_normal(&r);
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double d = 0, dd = 0;
            float f = 0;
            for (int k = 0; k < K; k++) {
                d += (double)a[m * K + k] * b[n * K + k];
                f += a[m * K + k] * b[n * K + k];
                if (k < K - 16) dd += (double)a[m * K + k] * b[n * K + k];
            }
            ref[m * N + n] = d;
            good[m * N + n] = tetra_bf16_to_f32(tetra_f32_to_bf16(f));
            drop[m * N + n] = tetra_bf16_to_f32(tetra_f32_to_bf16((float)dd));
        }
    memcpy(poke, good, sizeof good);
    poke[5 * N + 7] += 0.05 * 40; /* one element off by ~5% of max|ref| */
    memcpy(nan_out, good, sizeof good);
    nan_out[3] = NAN;
    memset(&c, 0, sizeof c);
    c.ref = ref;
    c.n = M * N;
    c.out_dtype = TETRA_DTYPE_BF16;
    c.k = K;
    c.out = good;
    g = bench_gate_eval(&c);
    CHECK_MSG(g.pass, "correct BF16 rounding fails: normwise %g (limit %g) max_rel %g (limit %g)", g.normwise,
              g.limit_normwise, g.max_rel, g.limit_max_rel);
    CHECK(g.floor_normwise > 0 && g.normwise <= 1.5 * g.floor_normwise + 1e-4);
    printf("correct FP32-accumulate + BF16 round: normwise/floor %.3f, max_rel/floor %.3f\n",
           g.normwise / g.floor_normwise, g.max_rel / g.floor_max_rel);
    c.out = drop;
    g = bench_gate_eval(&c);
    CHECK_MSG(!g.pass, "dropped K block passes: normwise %g limit %g", g.normwise, g.limit_normwise);
    printf("dropped K block: normwise %.3e vs limit %.3e\n", g.normwise, g.limit_normwise);
    c.out = poke;
    g = bench_gate_eval(&c);
    CHECK_MSG(!g.pass, "perturbed element passes: max_rel %g limit %g", g.max_rel, g.limit_max_rel);
    c.out = nan_out;
    g = bench_gate_eval(&c);
    CHECK(!g.pass && g.nonfinite == 1);
    /* exact comparison */
    c.out = ref;
    c.exact = 1;
    g = bench_gate_eval(&c);
    CHECK(g.pass);
    c.out = good;
    g = bench_gate_eval(&c);
    CHECK(!g.pass);
}

static void test_lists(void) {
    int64_t v[64];
    bench_shape s;
    CHECK(bench_parse_list("1,8,16", v, 64) == 3 && v[2] == 16);
    CHECK(bench_parse_list("1-4,64", v, 64) == 5 && v[3] == 4 && v[4] == 64);
    CHECK(bench_parse_list("4-1", v, 64) < 0);
    CHECK(bench_parse_list("1,,2", v, 64) < 0);
    CHECK(bench_parse_list("x", v, 64) < 0);
    CHECK(bench_parse_list("0", v, 64) < 0);
    CHECK(bench_parse_list("1-100", v, 64) < 0); /* over capacity */
    CHECK(bench_parse_shape("16x4096x4096", &s) == 0 && s.m == 16 && s.n == 4096 && s.k == 4096 && s.l == 1);
    CHECK(bench_parse_shape("1x7168x16384x4", &s) == 0 && s.l == 4);
    CHECK(bench_parse_shape("16x4096", &s) < 0);
    CHECK(bench_parse_shape("16x4096xk", &s) < 0);
    CHECK(bench_parse_shape("16x4096x4096x1x1", &s) < 0);
}

int main(void) {
    test_median();
    test_ci();
    test_orders();
    test_verdict();
    test_gate();
    test_lists();
    return tu_finish("test_bench_stats");
}
