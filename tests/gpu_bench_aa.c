/* gpu_bench_aa.c - the instrument on a GPU: an A/A run of one arm (cuBLASLt BF16 as both
 * A and B) gives a 95% CI that reaches the band 1 +- AA_BAND and no verdict at that noise
 * level, on a CUDA-graph-timed shape and an event-timed shape. Not "the CI contains 1": a
 * 95% CI misses 1 one run in 20 by construction, and A and B are two instances of the arm
 * on different buffers, which differed by 0.8% (CI [1.0016, 1.0129]) on one H200 in
 * session 2 - the kind of difference t_noise exists for; the correctness gate passes the real arms and fails broken-gemm
 * (which drops the last K block), and a failing arm is not timed. Skips (77) without a GPU. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "testutil.h"

#define AA_BAND 0.02 /* about the t_noise measured on the H200 (1.3-2.2%) */

static void aa(bench_session *s, const char *arm, int64_t m, int64_t n, int64_t k, double graph_below_us) {
    bench_opts o = bench_opts_default();
    o.graph_below_us = graph_below_us;
    bench_shape sh = {m, n, k, 1, ""};
    static bench_row row;
    const bench_arm *a = bench_arm_find(arm);
    bench_run_row(s, &o, &sh, a, a, &row);
    CHECK_MSG(row.status == BENCH_OK, "%s A/A %lldx%lldx%lld: %s", arm, (long long)m, (long long)n, (long long)k, row.msg);
    if (row.status != BENCH_OK) return;
    printf("A/A %s %lldx%lldx%lld: %.2f us vs %.2f us, ratio %.4f [%.4f, %.4f] (AB %.4f, BA %.4f), %s, gate %.2e\n",
           arm, (long long)m, (long long)n, (long long)k, row.a_us, row.b_us, row.ratio, row.ci_lo, row.ci_hi,
           row.ratio_ab_first, row.ratio_ba_first, row.ta.graph ? "CUDA graph" : "events", row.gate_a.normwise);
    CHECK_MSG(row.ci_lo <= 1.0 + AA_BAND && 1.0 - AA_BAND <= row.ci_hi, "A/A CI [%.4f, %.4f] misses 1 +- %.2f",
              row.ci_lo, row.ci_hi, AA_BAND);
    CHECK(bench_call(row.ci_lo, row.ci_hi, row.ratio_ab_first, row.ratio_ba_first, AA_BAND) ==
          BENCH_VERDICT_WITHIN_NOISE);
    CHECK(row.gate_a.pass && row.gate_b.pass);
    CHECK(row.nblocks == o.blocks);
    CHECK(fabs(row.ratio - 1) < AA_BAND);
}

int main(void) {
    bench_session s;
    char msg[256];
    static bench_row row;
    bench_opts o = bench_opts_default();
    bench_shape sh = {64, 4096, 4096, 1, ""};
    int rc = bench_session_open(&s, 1, msg, sizeof msg);
    if (rc == BENCH_UNSUPPORTED) {
        printf("gpu_bench_aa: skipped (%s)\n", msg);
        return 77;
    }
    CHECK_MSG(rc == BENCH_OK, "%s", msg);
    if (rc != BENCH_OK) return tu_finish("gpu_bench_aa");
    printf("device %s; telemetry: %s\n", s.info.name, s.nvml_note);

    aa(&s, "cublaslt-bf16", 16, 4096, 4096, 100);  /* ~10-20 us: CUDA-graph replays */
    aa(&s, "cublaslt-bf16", 2048, 4096, 4096, 20); /* ~100 us: events */

    /* the gate: a real arm passes, the broken one fails and is not timed */
    bench_run_row(&s, &o, &sh, bench_arm_find("cublaslt-bf16-tuned"), bench_arm_find("broken-gemm"), &row);
    printf("broken-gemm gate: normwise %.3e (limit %.3e), max_rel %.3e (limit %.3e): %s; row: %s\n",
           row.gate_b.normwise, row.gate_b.limit_normwise, row.gate_b.max_rel, row.gate_b.limit_max_rel,
           row.gate_b.pass ? "pass" : "FAIL", row.msg);
    CHECK(row.gate_a.applicable && row.gate_a.pass);
    CHECK(row.gate_b.applicable && !row.gate_b.pass);
    CHECK(row.status == BENCH_ERROR && row.nblocks == 0 && isnan(row.ratio));

    /* FP8 gate against its own inputs, and the error/floor ratio the constants rest on */
    bench_run_row(&s, &o, &sh, bench_arm_find("cublaslt-bf16"), bench_arm_find("cublaslt-fp8"), &row);
    CHECK_MSG(row.status == BENCH_OK, "%s", row.msg);
    printf("gate bf16: normwise/floor %.3f max_rel/floor %.3f; fp8: %.3f %.3f\n",
           row.gate_a.normwise / row.gate_a.floor_normwise, row.gate_a.max_rel / row.gate_a.floor_max_rel,
           row.gate_b.normwise / row.gate_b.floor_normwise, row.gate_b.max_rel / row.gate_b.floor_max_rel);
    CHECK(row.gate_b.pass);

    /* NVFP4 block-scaled cuBLASLt: runs where supported, a clean skip elsewhere */
    bench_run_row(&s, &o, &sh, bench_arm_find("cublaslt-bf16"), bench_arm_find("cublaslt-nvfp4"), &row);
    printf("cublaslt-nvfp4: %s %s\n", row.status == BENCH_OK ? "ran" : row.status == BENCH_UNSUPPORTED ? "skipped" : "ERROR",
           row.msg);
    CHECK(row.status == BENCH_OK || row.status == BENCH_UNSUPPORTED);
    if (row.status == BENCH_OK) CHECK(row.gate_b.pass);

    bench_session_close(&s);
    return tu_finish("gpu_bench_aa");
}
