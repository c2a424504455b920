/* runner.c - the device session and the timing protocol (PROTOCOL.md steps 4-5, 7):
 * gate both arms, warm up, choose event timing or CUDA-graph replays, then interleaved
 * ABBA/BAAB blocks with per-block medians, ratios and telemetry. Also the ceilings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "bench.h"
#include "kernels.h"

#define LT_WORKSPACE (32u << 20)

bench_opts bench_opts_default(void) {
    bench_opts o;
    o.blocks = 20;
    o.max_samples = 5;
    o.segment_ms = 2.0;
    o.warmup_ms = 50.0;
    o.graph_below_us = 20.0;
    o.graph_sample_us = 500.0;
    return o;
}

int bench_session_open(bench_session *s, uint64_t seed, char *msg, size_t len) {
    int count = 0, dev = 0;
    cudaStream_t st;
    cublasLtHandle_t lt;
    memset(s, 0, sizeof *s);
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
        cudaGetLastError();
        bench_set_msg(msg, len, "no CUDA device visible");
        return BENCH_UNSUPPORTED;
    }
    cudaGetDevice(&dev);
    if (tetra_device_info_get(dev, &s->info) != TETRA_OK) {
        bench_set_msg(msg, len, "device info: %s", tetra_last_error());
        return BENCH_ERROR;
    }
    if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess) {
        bench_set_msg(msg, len, "cudaStreamCreate failed");
        return BENCH_ERROR;
    }
    s->env.stream = st;
    if (tetra_context_create(&s->env.ctx, dev) != TETRA_OK || tetra_context_set_stream(s->env.ctx, st) != TETRA_OK) {
        bench_set_msg(msg, len, "tetra context: %s", tetra_last_error());
        return BENCH_ERROR;
    }
    s->env.gemm = tetra_gemm; /* --lib-a / --lib-b replace these for one side (bench_lib_apply) */
    s->env.convert_weights = tetra_convert_weights;
    s->env.gemm_ctx = s->env.ctx;
    s->env.gemm_last_error = tetra_last_error;
    if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) {
        bench_set_msg(msg, len, "cublasLtCreate failed");
        return BENCH_ERROR;
    }
    s->env.lt = lt;
    s->env.lt_workspace_bytes = LT_WORKSPACE;
    if (cudaMalloc(&s->env.lt_workspace, LT_WORKSPACE) != cudaSuccess) {
        bench_set_msg(msg, len, "cudaMalloc of the cuBLASLt workspace failed");
        return BENCH_ERROR;
    }
    s->env.device = dev;
    s->env.sm_major = s->info.major;
    s->env.sm_minor = s->info.minor;
    s->env.sms = s->info.sms;
    s->env.l2_bytes = s->info.l2_bytes;
    s->env.seed = seed;
    s->env.rotate_bytes = 2 * (s->info.l2_bytes ? s->info.l2_bytes : ((size_t)64 << 20));
    s->env.scale_layout = TETRA_SCALE_SWIZZLED_128X4;
    s->env.oracle_macs = (int64_t)1 << 31;
    s->nvml = bench_tel_open(dev, s->nvml_note, sizeof s->nvml_note);
    return BENCH_OK;
}

void bench_session_close(bench_session *s) {
    if (s->env.stream) cudaStreamSynchronize((cudaStream_t)s->env.stream);
    for (int i = 0; i < 2; i++) bench_lib_free(s->lib[i]);
    if (s->env.lt) cublasLtDestroy((cublasLtHandle_t)s->env.lt);
    cudaFree(s->env.lt_workspace);
    if (s->env.ctx) tetra_context_destroy(s->env.ctx);
    if (s->env.stream) cudaStreamDestroy((cudaStream_t)s->env.stream);
    bench_tel_close();
    memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- one arm's timer */

typedef struct {
    const bench_arm *arm;
    void *state;
    cudaGraphExec_t exec;
    bench_arm_timing t;
} timed_arm;

static int run_n(timed_arm *t, int n) {
    for (int i = 0; i < n; i++)
        if (t->arm->run(t->state)) return -1;
    return 0;
}

/* One sample in microseconds per launch; NaN on error. */
static double sample(timed_arm *t, cudaStream_t st, cudaEvent_t e0, cudaEvent_t e1) {
    float ms = 0;
    cudaEventRecord(e0, st);
    if (t->t.graph) {
        if (cudaGraphLaunch(t->exec, st) != cudaSuccess) return NAN;
    } else if (run_n(t, t->t.launches)) {
        return NAN;
    }
    cudaEventRecord(e1, st);
    if (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess) return NAN;
    return (double)ms * 1000.0 / t->t.launches;
}

void *bench_capture_calls(void *stream, int (*call)(void *ctx, int i), void *ctx, int n) {
    cudaStream_t st = (cudaStream_t)stream;
    cudaGraph_t g = NULL;
    cudaGraphExec_t exec = NULL;
    int ok = 1;
    if (cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    for (int i = 0; i < n && ok; i++) ok = call(ctx, i) == 0;
    if (cudaStreamEndCapture(st, &g) != cudaSuccess) ok = 0;
    if (ok && cudaGraphInstantiate(&exec, g, 0) != cudaSuccess) ok = 0;
    if (g) cudaGraphDestroy(g);
    cudaGetLastError();
    return ok ? (void *)exec : NULL;
}

static int run_one(void *t, int i) {
    (void)i;
    return ((timed_arm *)t)->arm->run(((timed_arm *)t)->state);
}

static void try_graph(timed_arm *t, cudaStream_t st) {
    t->exec = (cudaGraphExec_t)bench_capture_calls(st, run_one, t, t->t.launches);
    t->t.graph = t->exec != NULL;
}

/* Estimate the call time (per launch, event-timed) and warm up. */
static int estimate(timed_arm *t, const bench_opts *o, cudaStream_t st, cudaEvent_t e0, cudaEvent_t e1) {
    double est[3], e, warm_calls;
    t->t.launches = 1;
    t->t.graph = 0;
    if (run_n(t, 1) || cudaStreamSynchronize(st)) return -1;
    for (int i = 0; i < 3; i++) {
        est[i] = sample(t, st, e0, e1);
        if (isnan(est[i])) return -1;
    }
    e = bench_median(est, 3);
    if (e <= 0) e = 0.01;
    warm_calls = ceil(o->warmup_ms * 1000.0 / e);
    if (warm_calls > 20000) warm_calls = 20000;
    if (run_n(t, (int)warm_calls) || cudaStreamSynchronize(st)) return -1;
    t->t.est_us = e;
    return 0;
}

/* Pick the timing mode and the samples per segment. `graph` is decided for the row, not
 * per arm: two arms on either side of graph_below_us would otherwise be timed one with
 * and one without its host launch cost (run 10: cuDNN graph-timed at 11 us against
 * tetra event-timed at 21 us, where both kernels take 10-11 us). */
static int prepare(timed_arm *t, int graph, const bench_opts *o, cudaStream_t st, cudaEvent_t e0, cudaEvent_t e1) {
    double e = t->t.est_us;
    if (graph) {
        double l = ceil(o->graph_sample_us / e);
        t->t.launches = (int)(l < 2 ? 2 : l > 4096 ? 4096 : l);
        try_graph(t, st);
        /* re-estimate per launch inside the replay */
        e = sample(t, st, e0, e1);
        if (isnan(e)) return -1;
    }
    t->t.est_us = e;
    {
        double per_sample_ms = e * t->t.launches / 1000.0;
        int ns = (int)floor(o->segment_ms / per_sample_ms + 0.5);
        if (ns < 1) ns = 1;
        if (ns > o->max_samples) ns = o->max_samples;
        if (ns > 8) ns = 8;
        t->t.samples = ns;
    }
    return 0;
}

void bench_gate_arm(const bench_arm *arm, void *state, bench_gate *g, char *msg, size_t len) {
    bench_check c;
    memset(g, 0, sizeof *g);
    if (!arm->check) {
        snprintf(g->method, sizeof g->method, "no gate (memory arm)");
        g->pass = 1;
        return;
    }
    if (arm->check(state, &c, msg, len)) {
        g->applicable = 1;
        g->pass = 0;
        snprintf(g->method, sizeof g->method, "check failed to run");
        return;
    }
    *g = bench_gate_eval(&c);
    free(c.ref);
    free(c.out);
}

void bench_run_row(bench_session *s, const bench_opts *o, const bench_shape *shape, const bench_arm *a,
                   const bench_arm *b, bench_row *row) {
    timed_arm ta, tb;
    cudaStream_t st = (cudaStream_t)s->env.stream;
    cudaEvent_t e0 = NULL, e1 = NULL;
    char m[400] = "";
    int rc, nb = o->blocks < 1 ? 1 : o->blocks > BENCH_MAX_BLOCKS ? BENCH_MAX_BLOCKS : o->blocks;
    int graph = 0;
    double *ratios = NULL, *half_ab = NULL, *half_ba = NULL, *am = NULL, *bm = NULL;
    int nab = 0, nba = 0;

    memset(row, 0, sizeof *row);
    memset(&ta, 0, sizeof ta);
    memset(&tb, 0, sizeof tb);
    row->shape = *shape;
    row->a = a;
    row->b = b;
    row->ratio = row->ci_lo = row->ci_hi = row->a_us = row->b_us = NAN;
    row->ratio_ab_first = row->ratio_ba_first = row->replicate_ratio = NAN;
    row->flops = a->flops(shape);
    row->bytes = a->bytes(shape);
    ta.arm = a;
    tb.arm = b;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);

    /* setup + gate, one arm at a time */
    bench_env env_a = s->env, env_b = s->env; /* --lib-a / --lib-b: that side's GEMM build */
    bench_lib_apply(s->lib[0], &env_a);
    bench_lib_apply(s->lib[1], &env_b);
    if ((rc = a->setup(&env_a, shape, &ta.state, m, sizeof m)) != BENCH_OK) {
        row->status = rc;
        snprintf(row->msg, sizeof row->msg, "%s: %s", a->name, m);
        goto done;
    }
    if ((rc = b->setup(&env_b, shape, &tb.state, m, sizeof m)) != BENCH_OK) {
        row->status = rc;
        snprintf(row->msg, sizeof row->msg, "%s: %s", b->name, m);
        goto done;
    }
    m[0] = 0;
    bench_gate_arm(a, ta.state, &row->gate_a, m, sizeof m);
    if (m[0]) snprintf(row->msg, sizeof row->msg, "%s gate: %s", a->name, m);
    m[0] = 0;
    bench_gate_arm(b, tb.state, &row->gate_b, m, sizeof m);
    if (m[0]) snprintf(row->msg, sizeof row->msg, "%s gate: %s", b->name, m);
    if (!row->gate_a.pass || !row->gate_b.pass) {
        row->status = BENCH_ERROR;
        if (!row->msg[0])
            snprintf(row->msg, sizeof row->msg, "correctness gate failed: %s%s%s; not timed",
                     row->gate_a.pass ? "" : a->name, !row->gate_a.pass && !row->gate_b.pass ? ", " : "",
                     row->gate_b.pass ? "" : b->name);
        goto done;
    }

    /* timing */
    if (estimate(&ta, o, st, e0, e1) || estimate(&tb, o, st, e0, e1) ||
        (graph = fmin(ta.t.est_us, tb.t.est_us) < o->graph_below_us, 0) ||
        prepare(&ta, graph, o, st, e0, e1) || prepare(&tb, graph, o, st, e0, e1)) {
        row->status = BENCH_ERROR;
        snprintf(row->msg, sizeof row->msg, "an arm failed while warming up: %s / %s",
                 cudaGetErrorString(cudaGetLastError()), tetra_last_error());
        goto done;
    }
    if (ta.t.graph != tb.t.graph) /* one arm could not be captured: say so beside the ratio */
        snprintf(row->msg, sizeof row->msg, "timing modes differ: %s %s, %s %s (graph capture failed)",
                 a->name, ta.t.graph ? "graph replays" : "per launch", b->name,
                 tb.t.graph ? "graph replays" : "per launch");
    row->ta = ta.t;
    row->tb = tb.t;
    ratios = (double *)malloc((size_t)nb * sizeof(double));
    half_ab = (double *)malloc((size_t)nb * sizeof(double));
    half_ba = (double *)malloc((size_t)nb * sizeof(double));
    am = (double *)malloc((size_t)nb * sizeof(double));
    bm = (double *)malloc((size_t)nb * sizeof(double));
    if (!ratios || !half_ab || !half_ba || !am || !bm) {
        row->status = BENCH_ERROR;
        snprintf(row->msg, sizeof row->msg, "out of host memory");
        goto done;
    }
    for (int blk = -1; blk < nb; blk++) { /* block -1: an unrecorded warm-up block */
        int order[4], na = 0, nbv = 0;
        bench_block *B = blk >= 0 ? &row->blocks[blk] : NULL;
        bench_block scratch;
        if (!B) B = &scratch;
        memset(B, 0, sizeof *B);
        bench_block_order(blk < 0 ? 0 : blk, order);
        B->ab_first = order[0] == 0;
        for (int seg = 0; seg < 4; seg++) {
            timed_arm *t = order[seg] ? &tb : &ta;
            for (int i = 0; i < t->t.samples; i++) {
                double v = sample(t, st, e0, e1);
                if (isnan(v)) {
                    row->status = BENCH_ERROR;
                    snprintf(row->msg, sizeof row->msg, "%s failed while timed: %s", t->arm->name,
                             cudaGetErrorString(cudaGetLastError()));
                    goto done;
                }
                if (order[seg]) B->b_us[nbv++] = v;
                else B->a_us[na++] = v;
            }
        }
        B->ns = na; /* equal for A within a block; B has nbv */
        B->a_med = bench_median(B->a_us, na);
        B->b_med = bench_median(B->b_us, nbv);
        B->ratio = B->b_med / B->a_med;
        B->tel = bench_tel_sample();
        if (blk < 0) continue;
        ratios[blk] = B->ratio;
        am[blk] = B->a_med;
        bm[blk] = B->b_med;
        if (B->ab_first) half_ab[nab++] = B->ratio;
        else half_ba[nba++] = B->ratio;
    }
    row->nblocks = nb;
    row->ratio = bench_median(ratios, nb);
    bench_median_ci(ratios, nb, &row->ci_lo, &row->ci_hi, &row->ci_coverage);
    row->ratio_ab_first = bench_median(half_ab, nab);
    row->ratio_ba_first = bench_median(half_ba, nba);
    row->a_us = bench_median(am, nb);
    row->b_us = bench_median(bm, nb);
    row->status = BENCH_OK;
done:
    if (ta.exec) cudaGraphExecDestroy(ta.exec);
    if (tb.exec) cudaGraphExecDestroy(tb.exec);
    if (ta.state && a->describe) snprintf(row->note_a, sizeof row->note_a, "%s", a->describe(ta.state));
    if (tb.state && b->describe) snprintf(row->note_b, sizeof row->note_b, "%s", b->describe(tb.state));
    if (ta.state) a->teardown(ta.state);
    if (tb.state) b->teardown(tb.state);
    cudaGetLastError();
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    free(ratios); free(half_ab); free(half_ba); free(am); free(bm);
}

/* The tensor-core rate an arm is held to: FP8 arms against the FP8 GEMM ceiling, every
   other arm (BF16/FP16 tensor-core work, NVFP4 dequantized to BF16) against BF16's. */
static double compute_ceiling(const bench_arm *arm, const bench_ceilings *c) {
    return strcmp(arm->variant, "fp8") == 0 ? c->fp8_tflops : c->bf16_tflops;
}

double bench_time_calls(bench_session *s, const bench_arm *arm, void *state, int samples) {
    bench_opts o = bench_opts_default();
    timed_arm t;
    cudaStream_t st = (cudaStream_t)s->env.stream;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double us[64], r = NAN;
    int n = samples < 1 ? 1 : samples > 64 ? 64 : samples;
    memset(&t, 0, sizeof t);
    t.arm = arm;
    t.state = state;
    o.warmup_ms = 5;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) goto done;
    if (estimate(&t, &o, st, e0, e1) || prepare(&t, 1, &o, st, e0, e1)) goto done;
    for (int i = 0; i < n; i++)
        if (isnan(us[i] = sample(&t, st, e0, e1))) goto done;
    r = bench_median(us, n);
done:
    if (t.exec) cudaGraphExecDestroy(t.exec);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cudaGetLastError();
    return r;
}

void bench_row_derive(bench_row *r, const bench_ceilings *c) {
    double ta = r->a_us * 1e-6, tb = r->b_us * 1e-6;
    double fa = r->a->flops(&r->shape), fb = r->b->flops(&r->shape);
    double ba = r->a->bytes(&r->shape), bb = r->b->bytes(&r->shape);
    double bw_a = r->a->copy_ceiling ? c->copy_gbps : c->read_gbps;
    double bw_b = r->b->copy_ceiling ? c->copy_gbps : c->read_gbps;
    r->flops = fa;
    r->bytes = ba;
    r->a_tflops = fa / ta / 1e12;
    r->b_tflops = fb / tb / 1e12;
    r->a_gbps = ba / ta / 1e9;
    r->b_gbps = bb / tb / 1e9;
    r->a_pct = r->b_pct = NAN;
    if (compute_ceiling(r->a, c) > 0 && bw_a > 0) {
        double floor_a = fmax(fa / (compute_ceiling(r->a, c) * 1e12), ba / (bw_a * 1e9));
        r->a_pct = 100.0 * floor_a / ta;
    }
    if (compute_ceiling(r->b, c) > 0 && bw_b > 0) {
        double floor_b = fmax(fb / (compute_ceiling(r->b, c) * 1e12), bb / (bw_b * 1e9));
        r->b_pct = 100.0 * floor_b / tb;
    }
}

/* ---------------------------------------------------------------- ceilings */

static double time_kernel_median(int which, void *dst, void *src, int64_t bytes, uint32_t *sink, bench_session *s) {
    cudaStream_t st = (cudaStream_t)s->env.stream;
    cudaEvent_t e0, e1;
    double t[20];
    float ms;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = -3; i < 20; i++) {
        cudaEventRecord(e0, st);
        if (which) bench_mem_copy(dst, src, bytes, s->env.sms, st);
        else bench_mem_read(src, bytes, 0x9e3779b9u, sink, s->env.sms, st);
        cudaEventRecord(e1, st);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        if (i >= 0) t[i] = ms * 1e-3;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return bench_median(t, 20);
}

/* Median rate of an arm on a cube (10 event-timed calls after 3 warm-ups); 0 where the arm
   cannot run here, with the reason in m (the ceiling is then unknown, and rows held to it
   print no % of ceiling rather than a wrong one). */
static double gemm_rate(bench_session *s, const bench_arm *arm, int64_t dim, char *m, size_t mlen) {
    cudaStream_t st = (cudaStream_t)s->env.stream;
    bench_shape sh;
    void *state = NULL;
    double t[10];
    float ms;
    cudaEvent_t e0, e1;
    memset(&sh, 0, sizeof sh);
    sh.m = sh.n = sh.k = dim;
    sh.l = 1;
    snprintf(m, mlen, "arm not found");
    if (!arm || arm->setup(&s->env, &sh, &state, m, mlen) != BENCH_OK) {
        cudaGetLastError();
        return 0;
    }
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = -3; i < 10; i++) {
        cudaEventRecord(e0, st);
        arm->run(state);
        cudaEventRecord(e1, st);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        if (i >= 0) t[i] = ms * 1e-3;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    arm->teardown(state);
    {
        cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) {
            snprintf(m, mlen, "%s timing failed: %s", arm->name, cudaGetErrorString(err));
            return 0;
        }
    }
    return 2.0 * (double)dim * dim * dim / bench_median(t, 10) / 1e12;
}

int bench_measure_ceilings(bench_session *s, size_t read_bytes, size_t copy_bytes, int64_t gemm_dim,
                           bench_ceilings *out, char *msg, size_t len) {
    void *src = NULL, *dst = NULL;
    uint32_t *sink = NULL;
    cudaStream_t st = (cudaStream_t)s->env.stream;
    char m[400];
    memset(out, 0, sizeof *out);
    read_bytes = read_bytes / 16 * 16;
    copy_bytes = copy_bytes / 16 * 16;
    if (cudaMalloc(&src, read_bytes > copy_bytes ? read_bytes : copy_bytes) || cudaMalloc(&dst, copy_bytes) ||
        cudaMalloc((void **)&sink, 16)) {
        bench_set_msg(msg, len, "cudaMalloc failed: %s", cudaGetErrorString(cudaGetLastError()));
        cudaFree(src); cudaFree(dst); cudaFree(sink);
        return -1;
    }
    bench_fill_bf16((uint16_t *)src, (int64_t)(read_bytes > copy_bytes ? read_bytes : copy_bytes) / 2, s->env.seed, st);
    cudaStreamSynchronize(st);
    out->read_gbps = (double)read_bytes / time_kernel_median(0, NULL, src, (int64_t)read_bytes, sink, s) / 1e9;
    out->copy_gbps = 2.0 * (double)copy_bytes / time_kernel_median(1, dst, src, (int64_t)copy_bytes, sink, s) / 1e9;
    cudaFree(src); cudaFree(dst); cudaFree(sink);
    if (cudaGetLastError() != cudaSuccess) return bench_set_msg(msg, len, "memory ceilings failed"), -1;

    if (!(out->bf16_tflops = gemm_rate(s, bench_arm_find("cublaslt-bf16-tuned"), gemm_dim, m, sizeof m))) {
        bench_set_msg(msg, len, "BF16 GEMM ceiling: %s", m);
        return -1;
    }
    out->fp8_tflops = gemm_rate(s, bench_arm_find("cublaslt-fp8"), gemm_dim, m, sizeof m);
    return 0;
}
