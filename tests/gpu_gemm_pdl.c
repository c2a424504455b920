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
 * Exit 77 without a device or where the WGMMA_T path is unsupported (not sm_90a). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "testutil.h"

#define NAME "gpu_gemm_pdl"

int tetra_gemm_v7_pdl_mode(void);
int tetra_gemm_t_ck_pin(int mode);
long long tetra_gemm_t_ck_launches(void);

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

/* Runs sequence `seq` (ITERS iterations) on the context's stream, synchronizing after every
 * operation when `sync`; the outputs (poisoned first, in a pass of their own, so that the
 * sequence's kernels follow each other) in s->out. Returns 0 where the path refuses. */
static int run_seq(tetra_context *ctx, state *s, const config *c, const weight_set *ws, int seq, int sync) {
    const int64_t m = s->m;
    tetra_matrix a = tetra_matrix_dense(TETRA_DTYPE_BF16, s->a.ptr, m, K1);
    tetra_matrix d1 = tetra_matrix_dense(TETRA_DTYPE_BF16, s->d1.ptr, m, N1);
#define W(x) (c->frag ? &ws->x.frag_m : &ws->x.std_m)
    for (int i = 0; i < g_iters; i++)
        cuda_ok(cudaMemsetAsync(s->out[i].ptr, 0xFF, (size_t)(m * N * 2), g_stream), "poison");
    cuda_ok(cudaStreamSynchronize(g_stream), "poison");
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
        int bad = 0, same = 0;
        snprintf(what, sizeof what, "%s M=%lld BT %d splits %d%s %s weights", seq_name[seq], (long long)s->m, c->bt,
                 c->splits, c->ck > 0 ? " cluster-K" : "", c->frag ? "fragment" : "standard");
        if (!run_seq(ctx, s, c, ws, seq, 1)) break;
        if (c->ck > 0)
            CHECK_MSG(tetra_gemm_t_ck_launches() > ck0, "%s: no cluster-K launch", what);
        for (int i = 0; i < g_iters; i++) {
            tu_dev_download(&s->out[i], ref + bytes * (size_t)i, bytes);
            CHECK(tu_dev_check_guards(&s->out[i], "out"));
            if (i > 0 && memcmp(ref + bytes * (size_t)i, ref + bytes * (size_t)(i - 1), bytes) == 0) same++;
        }
        CHECK_MSG(same == 0, "%s: %d outputs equal the previous iteration's (the test cannot see a stale read)",
                  what, same);
        for (int rep = 0; rep < g_reps; rep++) {
            if (!run_seq(ctx, s, c, ws, seq, 0)) break;
            for (int i = 0; i < g_iters; i++) {
                tu_dev_download(&s->out[i], got, bytes);
                CHECK(tu_dev_check_guards(&s->out[i], "out"));
                if (memcmp(got, ref + bytes * (size_t)i, bytes) != 0) {
                    if (bad < 5) fprintf(stderr, "  %s: run %d iteration %d differs from the synchronized run\n", what, rep, i);
                    bad++;
                }
            }
        }
        CHECK_MSG(bad == 0, "%s: %d of %d outputs differ without the synchronizations", what, bad, g_reps * g_iters);
        printf("  %-72s %s\n", what, bad ? "FAIL" : "ok");
    }
    if (c->ck > 0) tetra_gemm_t_ck_pin(-1);
    free(ref);
    free(got);
}

int main(void) {
    const char *expect = getenv("TETRA_GEMM_V7_PDL_EXPECT");
    tetra_context *ctx;
    tetra_rng r = {0x70D1u};
    weight_set ws;
    static const config cfgs[] = {
        {64, 64, 1, -1, 0, 0},  {64, 64, 1, -1, 1, 1},   {64, 64, 2, -1, 0, 1},   {64, 64, 2, -1, 1, 0},
        {64, 64, 4, -1, 0, 0},  {64, 64, 4, -1, 1, 1},   {64, 64, 4, 2, 0, 0},    {64, 64, 4, 2, 1, 0},
        {24, 64, 1, -1, 1, 1},  {24, 64, 4, -1, 0, 0},   {100, 128, 1, -1, 1, 0}, {100, 128, 2, -1, 0, 0},
    };
    const int ncfg = (int)(sizeof cfgs / sizeof cfgs[0]);
    int64_t last_m = -1;
    state s;
    printf("%s: TETRA_GEMM_V7_PDL = %d\n", NAME, tetra_gemm_v7_pdl_mode());
    if (expect) CHECK_MSG(tetra_gemm_v7_pdl_mode() == atoi(expect), "the library reports mode %d, the build %s",
                          tetra_gemm_v7_pdl_mode(), expect);
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
    if (last_m >= 0) free_state(&s);
    free_weights(&ws.w0);
    free_weights(&ws.w1a);
    free_weights(&ws.w1b);
    free_weights(&ws.w2);
    tetra_context_destroy(ctx);
    cudaStreamDestroy(g_stream);
    if (g_unsupported) {
        printf("%s: SKIPPED: the WGMMA_T path is unsupported here (%s)\n", NAME, tetra_last_error());
        return tu_failures ? tu_finish(NAME) : 77;
    }
    return tu_finish(NAME);
}
