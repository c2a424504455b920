/* gpu_gemm_pdl.c - v7.9 (build switch TETRA_GEMM_V7_PDL; docs/notes/gemm-sm90.md, "v7.9"): v7
 * (the WGMMA_T path at 64 / 128 tokens per CTA, and v7.7's cluster-K kernel) launched as a
 * programmatic dependent of the previous kernel on the stream must still read what the kernels
 * before it wrote, and write nothing they still read.
 *
 * Each case runs one sequence of stream operations three times: once with a
 * cudaStreamSynchronize after every operation (every kernel then starts after the previous one
 * has completed: the reference) and twice without (back to back on one stream), and
 * every output of the unsynchronized runs must be byte-identical to the reference's. Each output
 * must also differ from the previous iteration's (so a read of the previous iteration's input
 * would show). TETRA_TEST_QUICK (sanitizers): 4 configurations (no cluster-K: racecheck is slow
 * on it; gpu_gemm's pinned cluster-K cases cover its kernel), 4 iterations, one unsynchronized
 * run.
 * The sequences, ITERS iterations each, with R different activation sources:
 *   write-A: tetra_dequantize (whose kernel triggers its dependents at entry: a v7 without
 *     griddepcontrol.wait would load A while it is being written) or a cudaMemcpyAsync writes
 *     A, then v7 reads it;
 *   W4A4: tetra_gemm on an NVFP4 A: the staging pass (the same dequantize kernel) writes the
 *     context's BF16 staging buffer, then v7 reads it;
 *   chain: every third iteration A is rewritten; v7 #1 (weights alternating between two
 *     matrices) writes D1, v7 #2 reads D1 as its A (v7 #1 triggers after its K loop and writes
 *     D1 in its epilogue: #2 without the wait would read the previous D1). With splits > 1 both
 *     use the same split-K workspace and counters (#2's partials must not land before #1 is done).
 * Configurations: BT 64 and splits 1 / 2 (in-kernel reduce) / 4 (the reduce kernel), standard
 * (swizzled) and fragment weights, cluster-K (pinned mode 2) at 4 splits where built, a half
 * tile (M = 24), BT 128. The library must report the build's mode (TETRA_GEMM_V7_PDL_EXPECT,
 * set by ctest). At TETRA_GEMM_V7_PDL=0 the same sequences run with ordinary launches.
 *
 * The decode GEMV (build switch TETRA_GEMV_PDL_ALL; docs/notes/gemv.md, "GEMV PDL in every
 * call"): at 1 / 2 every launch of its mma kernels is a programmatic dependent and every CTA
 * triggers its dependents right after its griddepcontrol.wait; at 0 (main) only the W4A4 chain's.
 * The same reference-against-unsynchronized scheme, opts.path = TETRA_PATH_GEMV, N x K1 weights,
 * M = 1 / 4 / 16 (the fragment kernel with 4-byte X loads, with 16-byte X loads from M = 5, the
 * standard kernel), fragment and standard weights, AUTO / 1 / 2 (last-CTA reduce) / 4 (the reduce
 * kernel) splits, cluster-K pinned (tetra_gemv_ck_pin(2)) where the device runs it. Sequences:
 *   write-X: tetra_dequantize (triggers at entry) or a cudaMemcpyAsync writes X, the GEMV reads it
 *     (a GEMV reading X before its wait would read X while it is written);
 *   W4A4: NVFP4 X: the staging pass, then the GEMV as its dependent (ring before the wait);
 *   chain: GEMV #1 writes D1 (after its early trigger), GEMV #2 reads D1 as X; both share the
 *     split-K workspace and counters (#2 at most 2 splits: K = N1 has 4 segments);
 *   v7-mix: v7 (wgmma-T BT 64; sm_90a) writes D1 and the GEMV reads it (even iterations), the
 *     GEMV writes D1 and v7 reads it (odd): the GEMV waits for v7, v7 for the early GEMV;
 *   W-by-GEMV: GEMV #1 (FP32 Y) writes the bytes that GEMV #2 then reads as its WEIGHT values
 *     (every nibble is a valid e2m1 code; the scales stay w0's): GEMV #2 issuing its weight ring
 *     before its wait would read the old weights while #1 (triggered early) still runs;
 *   convert: tetra_convert_weights rewrites GEMV #2's weights (values and scales: standard ->
 *     fragment for fragment configurations, fragment -> standard for standard ones), then the
 *     GEMV reads them.
 * W-by-GEMV and convert must pass at TETRA_GEMV_PDL_ALL 0 and 1 and are NOT correct at 2 (the
 * experiment issues the weight ring before the wait in every call: W-by-GEMV then reads stale
 * weights whenever GEMV #2 is scheduled while #1 runs; convert does not trigger early, so there
 * the race is only the window between its last CTA's exit and its memory flush). At 2 they are
 * skipped with a printed line; TETRA_TEST_GEMV_W_RACE=1 runs them anyway and only reports how
 * many outputs differ (the test's evidence that it sees a misplaced wait). The library must
 * report the build's TETRA_GEMV_PDL_ALL (TETRA_GEMV_PDL_ALL_EXPECT, set by ctest); with
 * TETRA_GEMV_PDL_ALL_OFF=1 (main's launches in a 1 / 2 build) every sequence runs as at 0.
 * TETRA_TEST_QUICK: 5 GEMV configurations (one with cluster-K, one per reduce).
 * Exit 77 without a device, or where neither v7 nor the GEMV's mma path runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "testutil.h"

#define NAME "gpu_gemm_pdl"

int tetra_gemm_v7_pdl_mode(void);
int tetra_gemm_t_ck_pin(int mode);
long long tetra_gemm_t_ck_launches(void);
int tetra_gemv_pdl_all_mode(void);
int tetra_gemv_pdl_all_off(void);
int tetra_gemv_ck_pin(int mode);
int tetra_gemv_ck_pieces(tetra_context *ctx, int64_t n, int64_t k, int64_t batch, int w_interleaved, int x_dtype);
int tetra_gemv_frag_ck_pieces(tetra_context *ctx, int64_t m, int64_t n, int64_t k, int64_t batch);

enum { R = 5, ITERS_FULL = 50, ITERS_QUICK = 4, K1 = 1024, N = 384, N1 = 512 };

static int g_iters, g_reps; /* iterations per sequence, unsynchronized runs per sequence */
static cudaStream_t g_stream;

static void cuda_ok(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s: %s\n", NAME, what, cudaGetErrorString(e));
        exit(1);
    }
}

/* NVFP4 weights on the device: standard (swizzled 128x4 scales) and the same values converted
 * to TETRA_SCALE_FRAGMENT_128X64 */
typedef struct {
    tu_devbuf v, s, fv, fs;
    tetra_matrix std_m, frag_m;
    size_t dbytes, sbytes, fdbytes, fsbytes; /* standard values / scales, fragment values / scales */
} weights;

static void make_weights(tetra_context *ctx, weights *w, tetra_rng *r, int64_t rows, int64_t k) {
    tu_stdmat h = tu_std_make(r, rows, k, 1, TETRA_SCALE_SWIZZLED_128X4, 0, 0.5f, 0x40);
    const size_t fb = tetra_nvfp4_fragment_bytes(rows, k), sb = tetra_nvfp4_scale_bytes(rows, k, TETRA_SCALE_FRAGMENT_128X64);
    w->v = tu_dev_alloc(h.dbytes, 0);
    w->s = tu_dev_alloc(h.sbytes, 0);
    w->fv = tu_dev_alloc(fb, 0);
    w->fs = tu_dev_alloc(sb, 0);
    tu_dev_upload(&w->v, h.data, h.dbytes);
    tu_dev_upload(&w->s, h.scales, h.sbytes);
    w->std_m = h.m;
    w->std_m.data = w->v.ptr;
    w->std_m.scales = w->s.ptr;
    w->frag_m = tetra_matrix_nvfp4(w->fv.ptr, w->fs.ptr, TETRA_SCALE_FRAGMENT_128X64, rows, k, 0.0f);
    w->dbytes = h.dbytes;
    w->sbytes = h.sbytes;
    w->fdbytes = fb;
    w->fsbytes = sb;
    CHECK_MSG(tetra_convert_weights(ctx, &w->std_m, &w->frag_m) == TETRA_OK, "convert: %s", tetra_last_error());
    cuda_ok(cudaDeviceSynchronize(), "convert"); /* nothing in flight writes the weights later */
    free(h.data);
    free(h.scales);
}

static void free_weights(weights *w) {
    tu_dev_free(&w->v);
    tu_dev_free(&w->s);
    tu_dev_free(&w->fv);
    tu_dev_free(&w->fs);
}

/* One configuration: M tokens, the pinned tile and splits, cluster-K pinned (2) or not (-1),
 * the weights' layout */
typedef struct {
    int64_t m;
    int bt, splits, ck, frag, quick; /* quick: also under TETRA_TEST_QUICK */
} config;

/* The device state of one M: R NVFP4 sources (linear scales, host global scale), their BF16
 * dequantizations (the memcpy writer's sources), A, D1, and ITERS outputs */
typedef struct {
    int64_t m;
    tu_devbuf sv[R], ss[R], abf[R], a, d1;
    tetra_matrix src[R];
    tu_devbuf *out;
} state;

static void make_state(tetra_context *ctx, state *s, tetra_rng *r, int64_t m) {
    s->m = m;
    for (int i = 0; i < R; i++) {
        tu_stdmat h = tu_std_make(r, m, K1, 1, TETRA_SCALE_LINEAR, 0, 0.75f, 0x40);
        tetra_matrix d;
        s->sv[i] = tu_dev_alloc(h.dbytes, 0);
        s->ss[i] = tu_dev_alloc(h.sbytes, 0);
        tu_dev_upload(&s->sv[i], h.data, h.dbytes);
        tu_dev_upload(&s->ss[i], h.scales, h.sbytes);
        s->src[i] = h.m;
        s->src[i].data = s->sv[i].ptr;
        s->src[i].scales = s->ss[i].ptr;
        s->abf[i] = tu_dev_alloc((size_t)(m * K1 * 2), 0);
        d = tetra_matrix_dense(TETRA_DTYPE_BF16, s->abf[i].ptr, m, K1);
        CHECK_MSG(tetra_dequantize(ctx, &s->src[i], &d) == TETRA_OK, "dequantize: %s", tetra_last_error());
        free(h.data);
        free(h.scales);
    }
    s->a = tu_dev_alloc((size_t)(m * K1 * 2), 0x7F);
    s->d1 = tu_dev_alloc((size_t)(m * N1 * 2), 0x7F);
    s->out = (tu_devbuf *)tu_xmalloc(sizeof(tu_devbuf) * (size_t)g_iters);
    for (int i = 0; i < g_iters; i++) s->out[i] = tu_dev_alloc((size_t)(m * N * 2), 0xFF);
    cuda_ok(cudaDeviceSynchronize(), "setup");
}

static void free_state(state *s) {
    for (int i = 0; i < R; i++) {
        tu_dev_free(&s->sv[i]);
        tu_dev_free(&s->ss[i]);
        tu_dev_free(&s->abf[i]);
    }
    tu_dev_free(&s->a);
    tu_dev_free(&s->d1);
    for (int i = 0; i < g_iters; i++) tu_dev_free(&s->out[i]);
    free(s->out);
}

enum { SEQ_WRITE_A, SEQ_W4A4, SEQ_CHAIN, SEQ_N };
static const char *const seq_name[SEQ_N] = {"write-A", "W4A4", "chain"};

static int g_unsupported;

static int gemm(tetra_context *ctx, const config *c, const tetra_matrix *a, const tetra_matrix *b, void *d,
                int64_t n) {
    tetra_gemm_options o = tetra_gemm_options_default();
    tetra_matrix gd = tetra_matrix_dense(TETRA_DTYPE_BF16, d, a->rows, n);
    tetra_status st;
    o.path = TETRA_PATH_WGMMA_T;
    o.tile_m = c->bt;
    o.splits = c->splits;
    st = tetra_gemm(ctx, a, b, &gd, &o);
    if (st == TETRA_ERR_UNSUPPORTED) {
        g_unsupported = 1;
        return 0;
    }
    CHECK_MSG(st == TETRA_OK, "tetra_gemm: %s", tetra_last_error());
    return st == TETRA_OK;
}

static void step_sync(int sync) {
    if (sync) cuda_ok(cudaStreamSynchronize(g_stream), "step");
}

/* The weights: w0 (N x K1) for write-A and W4A4; the chain's #1 w1a / w1b (N1 x K1, even / odd
 * iterations) and #2 w2 (N x N1) */
typedef struct {
    weights w0, w1a, w1b, w2;
} weight_set;

/* Every iteration's output to 0xFF bytes (a BF16 NaN), in a pass of its own and waited for,
 * so that a sequence's kernels follow each other and an output a kernel never wrote fails */
static void poison_outputs(state *s) {
    for (int i = 0; i < g_iters; i++)
        cuda_ok(cudaMemsetAsync(s->out[i].ptr, 0xFF, (size_t)(s->m * N * 2), g_stream), "poison");
    cuda_ok(cudaStreamSynchronize(g_stream), "poison");
}

/* Runs sequence `seq` (ITERS iterations) on the context's stream, synchronizing after every
 * operation when `sync`; the outputs (poisoned first, in a pass of their own, so that the
 * sequence's kernels follow each other) in s->out. Returns 0 where the path refuses. */
static int run_seq(tetra_context *ctx, state *s, const config *c, const weight_set *ws, int seq, int sync) {
    const int64_t m = s->m;
    tetra_matrix a = tetra_matrix_dense(TETRA_DTYPE_BF16, s->a.ptr, m, K1);
    tetra_matrix d1 = tetra_matrix_dense(TETRA_DTYPE_BF16, s->d1.ptr, m, N1);
#define W(x) (c->frag ? &ws->x.frag_m : &ws->x.std_m)
    poison_outputs(s);
    for (int i = 0; i < g_iters; i++) {
        const int r = i % R;
        switch (seq) {
        case SEQ_WRITE_A:
            if (i % 2 == 0) CHECK_MSG(tetra_dequantize(ctx, &s->src[r], &a) == TETRA_OK, "%s", tetra_last_error());
            else
                cuda_ok(cudaMemcpyAsync(s->a.ptr, s->abf[r].ptr, (size_t)(m * K1 * 2), cudaMemcpyDeviceToDevice, g_stream),
                        "memcpy");
            step_sync(sync);
            if (!gemm(ctx, c, &a, W(w0), s->out[i].ptr, N)) return 0;
            break;
        case SEQ_W4A4:
            if (!gemm(ctx, c, &s->src[r], W(w0), s->out[i].ptr, N)) return 0;
            break;
        default: /* SEQ_CHAIN */
            if (i % 3 == 0) {
                CHECK_MSG(tetra_dequantize(ctx, &s->src[(i / 3) % R], &a) == TETRA_OK, "%s", tetra_last_error());
                step_sync(sync);
            }
            if (!gemm(ctx, c, &a, i % 2 ? W(w1b) : W(w1a), s->d1.ptr, N1)) return 0;
            step_sync(sync);
            if (!gemm(ctx, c, &d1, W(w2), s->out[i].ptr, N)) return 0;
            break;
        }
        step_sync(sync);
    }
#undef W
    cuda_ok(cudaStreamSynchronize(g_stream), "sequence");
    return 1;
}

/* A sequence runner: runs sequence `seq` of configuration `c` (ITERS iterations, outputs in
 * s->out), synchronizing after every operation when `sync`; 0 where the path refuses. */
typedef int (*seq_runner)(tetra_context *ctx, state *s, const void *c, const void *ws, int seq, int sync);

/* The check of one sequence: the synchronized reference, each output different from the
 * previous iteration's, g_reps unsynchronized runs byte-identical to it. report_only: count and
 * print the differing outputs without failing (TETRA_TEST_GEMV_W_RACE at TETRA_GEMV_PDL_ALL 2).
 * Returns 0 where the runner refused the sequence (nothing checked). */
static int check_seq(tetra_context *ctx, state *s, const void *c, const void *ws, int seq, seq_runner run,
                     const char *what, int report_only, uint8_t *ref, uint8_t *got) {
    const size_t bytes = (size_t)(s->m * N * 2);
    int bad = 0, same = 0;
    if (!run(ctx, s, c, ws, seq, 1)) return 0;
    for (int i = 0; i < g_iters; i++) {
        tu_dev_download(&s->out[i], ref + bytes * (size_t)i, bytes);
        CHECK(tu_dev_check_guards(&s->out[i], "out"));
        if (i > 0 && memcmp(ref + bytes * (size_t)i, ref + bytes * (size_t)(i - 1), bytes) == 0) same++;
    }
    CHECK_MSG(same == 0, "%s: %d outputs equal the previous iteration's (the test cannot see a stale read)",
              what, same);
    for (int rep = 0; rep < g_reps; rep++) {
        if (!run(ctx, s, c, ws, seq, 0)) break;
        for (int i = 0; i < g_iters; i++) {
            tu_dev_download(&s->out[i], got, bytes);
            CHECK(tu_dev_check_guards(&s->out[i], "out"));
            if (memcmp(got, ref + bytes * (size_t)i, bytes) != 0) {
                if (bad < 5 && !report_only)
                    fprintf(stderr, "  %s: run %d iteration %d differs from the synchronized run\n", what, rep, i);
                bad++;
            }
        }
    }
    if (report_only) {
        printf("  %-72s %d of %d differ (not checked: TETRA_GEMV_PDL_ALL 2)\n", what, bad, g_reps * g_iters);
        return 1;
    }
    CHECK_MSG(bad == 0, "%s: %d of %d outputs differ without the synchronizations", what, bad, g_reps * g_iters);
    printf("  %-72s %s\n", what, bad ? "FAIL" : "ok");
    return 1;
}

static int run_seq_v7(tetra_context *ctx, state *s, const void *c, const void *ws, int seq, int sync) {
    return run_seq(ctx, s, (const config *)c, (const weight_set *)ws, seq, sync);
}

static void run_config(tetra_context *ctx, state *s, const config *c, const weight_set *ws) {
    const size_t bytes = (size_t)(s->m * N * 2);
    uint8_t *ref = (uint8_t *)tu_xmalloc(bytes * (size_t)g_iters), *got = (uint8_t *)tu_xmalloc(bytes);
    char what[160];
    if (c->ck > 0 && !tetra_gemm_t_ck_pin(c->ck)) {
        printf("  M=%lld BT %d splits %d cluster-K: skipped (not built)\n", (long long)s->m, c->bt, c->splits);
        free(ref);
        free(got);
        return;
    }
    for (int seq = 0; seq < SEQ_N; seq++) {
        const long long ck0 = tetra_gemm_t_ck_launches();
        snprintf(what, sizeof what, "%s M=%lld BT %d splits %d%s %s weights", seq_name[seq], (long long)s->m, c->bt,
                 c->splits, c->ck > 0 ? " cluster-K" : "", c->frag ? "fragment" : "standard");
        if (!check_seq(ctx, s, c, ws, seq, run_seq_v7, what, 0, ref, got)) break;
        if (c->ck > 0)
            CHECK_MSG(tetra_gemm_t_ck_launches() > ck0, "%s: no cluster-K launch", what);
    }
    if (c->ck > 0) tetra_gemm_t_ck_pin(-1);
    free(ref);
    free(got);
}


/* ---------------------------------------------------------------- the decode GEMV */

/* One GEMV configuration: M tokens, pinned splits (0: the GEMV's own choice), cluster-K pinned
 * (2: tetra_gemv_ck_pin, the splits then 0) or not (-1), the weights' layout */
typedef struct {
    int64_t m;
    int splits, ck, frag, quick;
} gconfig;

enum { GSEQ_WRITE_X, GSEQ_W4A4, GSEQ_CHAIN, GSEQ_V7_MIX, GSEQ_W_BY_GEMV, GSEQ_CONVERT, GSEQ_N };
static const char *const gseq_name[GSEQ_N] = {"gemv write-X", "gemv W4A4", "gemv chain", "gemv v7-mix",
                                              "gemv W-by-GEMV", "gemv convert"};
enum { KW = 128 }; /* W-by-GEMV: GEMV #1's K */

/* The GEMV's device state past weight_set: the W-by-GEMV writer (WN x KW standard weights; its
 * first N * K1 / 8 / M rows are GEMV #1's weights at M tokens: FP32 Y of N * K1 / 2 bytes), the
 * buffer GEMV #1 writes and GEMV #2 reads as its weight values, and convert's second source and
 * its two targets (fragment values + scales, standard values + scales) */
enum { WN = N * K1 / 8 };
typedef struct {
    const weight_set *ws;
    weights writer, wc1;
    tu_devbuf wdyn, cfv, cfs, csv, css;
} gemv_set;

static int g_gemv_ran; /* GEMV sequences checked */

static int gemv_call(tetra_context *ctx, const tetra_matrix *a, const tetra_matrix *b, tetra_matrix *d, int splits) {
    tetra_gemm_options o = tetra_gemm_options_default();
    tetra_status st;
    o.path = TETRA_PATH_GEMV;
    o.splits = splits;
    st = tetra_gemm(ctx, a, b, d, &o);
    if (st == TETRA_ERR_UNSUPPORTED) return 0;
    CHECK_MSG(st == TETRA_OK, "tetra_gemm (GEMV): %s", tetra_last_error());
    return st == TETRA_OK;
}

static int v7_call(tetra_context *ctx, const tetra_matrix *a, const tetra_matrix *b, tetra_matrix *d) {
    tetra_gemm_options o = tetra_gemm_options_default();
    tetra_status st;
    o.path = TETRA_PATH_WGMMA_T;
    o.tile_m = 64;
    st = tetra_gemm(ctx, a, b, d, &o);
    if (st == TETRA_ERR_UNSUPPORTED) return 0;
    CHECK_MSG(st == TETRA_OK, "tetra_gemm (v7): %s", tetra_last_error());
    return st == TETRA_OK;
}

/* The GEMV sequences (see the header), ITERS iterations each, on the context's stream */
static int run_seq_gemv(tetra_context *ctx, state *s, const void *cv, const void *gv, int seq, int sync) {
    const gconfig *c = (const gconfig *)cv;
    const gemv_set *g = (const gemv_set *)gv;
    const weight_set *ws = g->ws;
    const int64_t m = s->m;
    /* GEMV #2 of the chain has K = N1 = 512: 4 segments, at most 2 splits */
    const int splits2 = c->splits > 2 ? 2 : c->splits;
    tetra_matrix a = tetra_matrix_dense(TETRA_DTYPE_BF16, s->a.ptr, m, K1);
    tetra_matrix d1 = tetra_matrix_dense(TETRA_DTYPE_BF16, s->d1.ptr, m, N1);
#define W(x) (c->frag ? &ws->x.frag_m : &ws->x.std_m)
    poison_outputs(s);
    for (int i = 0; i < g_iters; i++) {
        const int r = i % R;
        tetra_matrix out = tetra_matrix_dense(TETRA_DTYPE_BF16, s->out[i].ptr, m, N);
        tetra_matrix xr = tetra_matrix_dense(TETRA_DTYPE_BF16, s->abf[r].ptr, m, K1); /* written at setup */
        switch (seq) {
        case GSEQ_WRITE_X:
            if (i % 2 == 0) CHECK_MSG(tetra_dequantize(ctx, &s->src[r], &a) == TETRA_OK, "%s", tetra_last_error());
            else
                cuda_ok(cudaMemcpyAsync(s->a.ptr, s->abf[r].ptr, (size_t)(m * K1 * 2), cudaMemcpyDeviceToDevice, g_stream),
                        "memcpy");
            step_sync(sync);
            if (!gemv_call(ctx, &a, W(w0), &out, c->splits)) return 0;
            break;
        case GSEQ_W4A4: /* the staging pass writes the context's BF16 buffer; the GEMV reads it */
            if (!gemv_call(ctx, &s->src[r], W(w0), &out, c->splits)) return 0;
            break;
        case GSEQ_CHAIN:
            if (i % 3 == 0) {
                CHECK_MSG(tetra_dequantize(ctx, &s->src[(i / 3) % R], &a) == TETRA_OK, "%s", tetra_last_error());
                step_sync(sync);
            }
            if (!gemv_call(ctx, &a, i % 2 ? W(w1b) : W(w1a), &d1, c->splits)) return 0;
            step_sync(sync);
            if (!gemv_call(ctx, &d1, W(w2), &out, splits2)) return 0;
            break;
        case GSEQ_V7_MIX:
            if (i % 3 == 0) {
                CHECK_MSG(tetra_dequantize(ctx, &s->src[(i / 3) % R], &a) == TETRA_OK, "%s", tetra_last_error());
                step_sync(sync);
            }
            if (i % 2 == 0) {
                if (!v7_call(ctx, &a, W(w1a), &d1)) return 0;
                step_sync(sync);
                if (!gemv_call(ctx, &d1, W(w2), &out, splits2)) return 0;
            } else {
                if (!gemv_call(ctx, &a, W(w1b), &d1, c->splits)) return 0;
                step_sync(sync);
                if (!v7_call(ctx, &d1, W(w2), &out)) return 0;
            }
            break;
        case GSEQ_W_BY_GEMV: {
            /* GEMV #1: X = the first KW columns of a setup-written source, FP32 Y into wdyn */
            const int64_t n1 = (int64_t)WN / m;
            tetra_matrix x1 = tetra_matrix_dense(TETRA_DTYPE_BF16, s->abf[r].ptr, m, KW);
            tetra_matrix w1 = g->writer.std_m;
            tetra_matrix y1 = tetra_matrix_dense(TETRA_DTYPE_FP32, g->wdyn.ptr, m, n1);
            tetra_matrix w2 = *W(w0); /* w0's scales, values = what GEMV #1 wrote */
            tetra_matrix x2 = tetra_matrix_dense(TETRA_DTYPE_BF16, s->abf[0].ptr, m, K1);
            x1.ld = K1;
            x1.batch_stride = m * K1;
            w1.rows = n1;
            w2.data = g->wdyn.ptr;
            if (!gemv_call(ctx, &x1, &w1, &y1, 0)) return 0;
            step_sync(sync);
            if (!gemv_call(ctx, &x2, &w2, &out, c->splits)) return 0;
            break;
        }
        default: { /* GSEQ_CONVERT: values and scales rewritten by a kernel, then read */
            const weights *src = i % 2 ? &g->wc1 : &ws->w0;
            tetra_matrix dst;
            if (c->frag) {
                dst = tetra_matrix_nvfp4(g->cfv.ptr, g->cfs.ptr, TETRA_SCALE_FRAGMENT_128X64, N, K1, 0.0f);
                CHECK_MSG(tetra_convert_weights(ctx, &src->std_m, &dst) == TETRA_OK, "convert: %s", tetra_last_error());
            } else {
                dst = src->std_m;
                dst.data = g->csv.ptr;
                dst.scales = g->css.ptr;
                CHECK_MSG(tetra_convert_weights(ctx, &src->frag_m, &dst) == TETRA_OK, "convert: %s", tetra_last_error());
            }
            step_sync(sync);
            if (!gemv_call(ctx, &xr, &dst, &out, c->splits)) return 0;
            break;
        }
        }
        step_sync(sync);
    }
#undef W
    cuda_ok(cudaStreamSynchronize(g_stream), "sequence");
    return 1;
}

static void run_gemv_config(tetra_context *ctx, state *s, const gconfig *c, const gemv_set *g) {
    const size_t bytes = (size_t)(s->m * N * 2);
    const int mode = tetra_gemv_pdl_all_off() ? 0 : tetra_gemv_pdl_all_mode();
    const char *race_env = getenv("TETRA_TEST_GEMV_W_RACE");
    const int race = race_env && race_env[0] == '1';
    uint8_t *ref = (uint8_t *)tu_xmalloc(bytes * (size_t)g_iters), *got = (uint8_t *)tu_xmalloc(bytes);
    char cfg[120], what[200];
    int pieces = 0;
    snprintf(cfg, sizeof cfg, "M=%lld splits %d%s %s weights", (long long)s->m, c->splits,
             c->ck > 0 ? " cluster-K" : "", c->frag ? "fragment" : "standard");
    if (c->ck > 0) {
        tetra_gemv_ck_pin(c->ck);
        pieces = c->frag ? tetra_gemv_frag_ck_pieces(ctx, s->m, N, K1, 1)
                         : tetra_gemv_ck_pieces(ctx, N, K1, 1, 0, TETRA_DTYPE_BF16);
        if (pieces <= 0) {
            printf("  gemv %s: skipped (cluster-K does not run here)\n", cfg);
            tetra_gemv_ck_pin(-1);
            free(ref);
            free(got);
            return;
        }
    }
    for (int seq = 0; seq < GSEQ_N; seq++) {
        const int w_writer = seq == GSEQ_W_BY_GEMV || seq == GSEQ_CONVERT;
        snprintf(what, sizeof what, "%s %s", gseq_name[seq], cfg);
        if (w_writer && mode == 2 && !race) {
            /* TETRA_GEMV_PDL_ALL 2 issues the weight ring before the wait in every call: not
             * correct after a kernel that writes the weights (its documented condition) */
            printf("  %-72s skipped (TETRA_GEMV_PDL_ALL 2: weights written by the previous kernel)\n", what);
            continue;
        }
        if (check_seq(ctx, s, c, g, seq, run_seq_gemv, what, w_writer && mode == 2, ref, got))
            g_gemv_ran++;
        else
            printf("  %-72s skipped (refused here: %s)\n", what, tetra_last_error());
    }
    if (c->ck > 0) {
        printf("  (gemv %s: cluster-K with %d pieces)\n", cfg, pieces);
        tetra_gemv_ck_pin(-1);
    }
    free(ref);
    free(got);
}

static void make_gemv_set(tetra_context *ctx, gemv_set *g, const weight_set *ws, tetra_rng *r) {
    g->ws = ws;
    make_weights(ctx, &g->writer, r, WN, KW);
    make_weights(ctx, &g->wc1, r, N, K1);
    g->wdyn = tu_dev_alloc(ws->w0.dbytes, 0x5A);
    CHECK_MSG(ws->w0.dbytes == (size_t)N * K1 / 2 && ws->w0.fdbytes == ws->w0.dbytes,
              "W-by-GEMV: weight bytes %zu / %zu, Y bytes %d", ws->w0.dbytes, ws->w0.fdbytes, N * K1 / 2);
    g->cfv = tu_dev_alloc(ws->w0.fdbytes, 0);
    g->cfs = tu_dev_alloc(ws->w0.fsbytes, 0);
    g->csv = tu_dev_alloc(ws->w0.dbytes, 0);
    g->css = tu_dev_alloc(ws->w0.sbytes, 0);
    cuda_ok(cudaDeviceSynchronize(), "gemv setup");
}

static void free_gemv_set(gemv_set *g) {
    free_weights(&g->writer);
    free_weights(&g->wc1);
    tu_dev_free(&g->wdyn);
    tu_dev_free(&g->cfv);
    tu_dev_free(&g->cfs);
    tu_dev_free(&g->csv);
    tu_dev_free(&g->css);
}

int main(void) {
    const char *expect = getenv("TETRA_GEMM_V7_PDL_EXPECT");
    const char *gexpect = getenv("TETRA_GEMV_PDL_ALL_EXPECT");
    tetra_context *ctx;
    tetra_rng r = {0x70D1u};
    weight_set ws;
    gemv_set gs;
    static const config cfgs[] = {
        {64, 64, 1, -1, 0, 0},  {64, 64, 1, -1, 1, 1},   {64, 64, 2, -1, 0, 1},   {64, 64, 2, -1, 1, 0},
        {64, 64, 4, -1, 0, 0},  {64, 64, 4, -1, 1, 1},   {64, 64, 4, 2, 0, 0},    {64, 64, 4, 2, 1, 0},
        {24, 64, 1, -1, 1, 1},  {24, 64, 4, -1, 0, 0},   {100, 128, 1, -1, 1, 0}, {100, 128, 2, -1, 0, 0},
    };
    /* M, splits, cluster-K, fragment, quick: M = 1 / 4 the fragment kernel's 4-byte X loads, M = 16
     * its 16-byte loads (from M = 5) and the standard kernel's second n tile; splits 1 one
     * launch, 2 the last-CTA reduce, 4 the reduce kernel (a dependent of the mma kernel); 0 the
     * GEMV's choice (4 at 384 x 1024 on 132 SMs) or, pinned, cluster-K */
    static const gconfig gcfgs[] = {
        {1, 0, -1, 1, 1},  {1, 0, 2, 1, 0},  {1, 1, -1, 0, 0}, {1, 4, -1, 0, 1},
        {4, 0, 2, 1, 1},   {4, 2, -1, 0, 1}, {4, 4, -1, 1, 0}, {4, 0, 2, 0, 0},
        {16, 0, -1, 1, 1}, {16, 2, -1, 1, 0}, {16, 0, 2, 0, 0}, {16, 4, -1, 0, 0},
    };
    const int ncfg = (int)(sizeof cfgs / sizeof cfgs[0]);
    const int ngcfg = (int)(sizeof gcfgs / sizeof gcfgs[0]);
    int64_t last_m = -1;
    state s;
    printf("%s: TETRA_GEMM_V7_PDL = %d, TETRA_GEMV_PDL_ALL = %d%s\n", NAME, tetra_gemm_v7_pdl_mode(),
           tetra_gemv_pdl_all_mode(), tetra_gemv_pdl_all_off() ? " (launches off: TETRA_GEMV_PDL_ALL_OFF=1)" : "");
    if (expect) CHECK_MSG(tetra_gemm_v7_pdl_mode() == atoi(expect), "the library reports mode %d, the build %s",
                          tetra_gemm_v7_pdl_mode(), expect);
    if (gexpect)
        CHECK_MSG(tetra_gemv_pdl_all_mode() == atoi(gexpect), "the library reports TETRA_GEMV_PDL_ALL %d, the build %s",
                  tetra_gemv_pdl_all_mode(), gexpect);
    if (tu_failures) return tu_finish(NAME);
    ctx = tu_gpu_or_skip(NAME);
    /* TETRA_TEST_QUICK (sanitizers, which run the kernels one at a time anyway): 4 of the
     * configurations, 4 iterations, one unsynchronized run */
    g_iters = tu_quick() ? ITERS_QUICK : ITERS_FULL;
    g_reps = tu_quick() ? 1 : 2;
    /* a blocking stream: testutil's allocations, poison memsets and uploads (legacy stream)
     * stay ordered with it */
    cuda_ok(cudaStreamCreate(&g_stream), "stream");
    CHECK(tetra_context_set_stream(ctx, g_stream) == TETRA_OK);
    make_weights(ctx, &ws.w0, &r, N, K1);
    make_weights(ctx, &ws.w1a, &r, N1, K1);
    make_weights(ctx, &ws.w1b, &r, N1, K1);
    make_weights(ctx, &ws.w2, &r, N, N1);
    memset(&s, 0, sizeof s);
    for (int i = 0; i < ncfg && !g_unsupported; i++) {
        const config *c = &cfgs[i];
        if (tu_quick() && !c->quick) continue;
        if (c->m != last_m) {
            if (last_m >= 0) free_state(&s);
            make_state(ctx, &s, &r, c->m);
            last_m = c->m;
        }
        run_config(ctx, &s, c, &ws);
    }
    if (g_unsupported) printf("%s: v7 part SKIPPED: the WGMMA_T path is unsupported here (%s)\n", NAME, tetra_last_error());
    /* the decode GEMV (TETRA_GEMV_PDL_ALL; at 0 main's launches) */
    make_gemv_set(ctx, &gs, &ws, &r);
    for (int i = 0; i < ngcfg; i++) {
        const gconfig *c = &gcfgs[i];
        if (tu_quick() && !c->quick) continue;
        if (c->m != last_m) {
            if (last_m >= 0) free_state(&s);
            make_state(ctx, &s, &r, c->m);
            last_m = c->m;
        }
        run_gemv_config(ctx, &s, c, &gs);
    }
    free_gemv_set(&gs);
    if (last_m >= 0) free_state(&s);
    free_weights(&ws.w0);
    free_weights(&ws.w1a);
    free_weights(&ws.w1b);
    free_weights(&ws.w2);
    tetra_context_destroy(ctx);
    cudaStreamDestroy(g_stream);
    if (g_unsupported && !g_gemv_ran) {
        printf("%s: SKIPPED: neither v7 nor the GEMV's sequences ran here\n", NAME);
        return tu_failures ? tu_finish(NAME) : 77;
    }
    return tu_finish(NAME);
}
