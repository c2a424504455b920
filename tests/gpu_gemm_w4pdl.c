/* gpu_gemm_w4pdl.c - TETRA_GEMM_W4A4_PDL (docs/notes/gemm-sm90.md, "W4A4 PDL: the BT-256 kernels
 * under the staging pass"): a W4A4 product at 256 tokens per CTA (v10.3, v10.8) launched as a
 * programmatic dependent of its staging pass must read the A the pass wrote (not the previous
 * call's), the weights written before the pass, and write D only after the pass.
 *
 * Per case (M, N, K, L, bias, D, weights' layout, pinned splits; WGMMA_T at tile_m 256):
 *   - twins: for each of R NVFP4 activations A_r and two weight sets W_j, the W4A16 product on
 *     A_r dequantized to BF16 without its global scale (alpha times that scale): the same kernel
 *     configuration and arithmetic as the W4A4 product's (main's instance, an ordinary launch),
 *     computed with a synchronization after every call; each twin is gated against the FP64
 *     GPU reference (TETRA_PATH_REFERENCE, FP32 D), as gpu_gemm's large shapes are;
 *   - back-to-back: ITERS W4A4 products on one stream without synchronization, A_(i % R) and
 *     fixed weights, each into its own poisoned D: the staging pass of call i + 1 rewrites the
 *     context's staging buffer that call i read (a kernel reading A before its wait would see
 *     the next A, or a half-written one); each D must equal its twin byte for byte;
 *   - weights-before: each iteration first rewrites the GEMM's weight buffer (W_(i % 2): a
 *     cudaMemcpyAsync of values and scales for standard weights, tetra_convert_weights for
 *     fragment weights), then the W4A4 product: the weights' stages are issued before the
 *     kernel's wait, which is safe only because the staging pass (an ordinary launch) began
 *     after the writer had completed; each D must equal the twin of (A_r, W_j).
 * The library must report the build's switch (TETRA_GEMM_W4A4_PDL_EXPECT, set by ctest), and
 * with the switch on every W4A4 call here must have been a PDL launch (with it off, none).
 * Capping v10.8's clusters (TETRA_GEMM_SS_CLUSTERS, the ctest variant gpu_gemm_w4pdl_p) sends the
 * 16-bit-D cases without split-K to the persistent kernel; uncapped they run v10.3 except the
 * largest case. TETRA_GEMM_TEST_HASH=1 prints a hash line per twin (compare a switch-0 build).
 * TETRA_TEST_QUICK: 3 cases, 4 iterations, no reference gate. Exit 77 without a device or where the path refuses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "ref/errstats.h"
#include "testutil.h"

#define NAME "gpu_gemm_w4pdl"

int tetra_gemm_w4a4_pdl_mode(void);
long long tetra_gemm_w4a4_pdl_launches(void);

enum { R = 3, NW = 2, ITERS_FULL = 12, ITERS_QUICK = 4 };

typedef struct {
    int64_t m, n, k, l;
    int bias;                /* 0 none, else its dtype below */
    tetra_dtype bias_dtype, d_dtype;
    int frag, splits, quick; /* fragment-ordered weights; pinned splits (0: chosen); also in quick */
} wcase;

static cudaStream_t g_stream;
static int g_iters, g_refused;

static void cuda_ok(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s: %s\n", NAME, what, cudaGetErrorString(e));
        exit(1);
    }
}

static size_t dsize(tetra_dtype d) { return d == TETRA_DTYPE_FP32 ? 4 : 2; }

static void print_hash(const wcase *c, int r, int j, const void *p, size_t bytes) {
    const char *env = getenv("TETRA_GEMM_TEST_HASH");
    uint64_t h = 1469598103934665603ull;
    if (!env || !atoi(env)) return;
    for (size_t i = 0; i < bytes; i++) h = (h ^ ((const uint8_t *)p)[i]) * 1099511628211ull;
    printf("  hash w4pdl M=%lld N=%lld K=%lld L=%lld d=%s %s splits %d a%d w%d %016llx\n", (long long)c->m,
           (long long)c->n, (long long)c->k, (long long)c->l, tu_dtype_name(c->d_dtype), c->frag ? "frag" : "std",
           c->splits, r, j, (unsigned long long)h);
}

/* One standard NVFP4 matrix on the device (swizzled scales) */
typedef struct {
    tu_devbuf v, s;
    tetra_matrix m;
    size_t dbytes, sbytes;
} devmat;

static devmat make_devmat(tetra_rng *r, int64_t rows, int64_t k, int64_t l, float gscale) {
    devmat d;
    tu_stdmat h = tu_std_make(r, rows, k, l, TETRA_SCALE_SWIZZLED_128X4, 0, gscale, 0x40);
    d.v = tu_dev_alloc(h.dbytes, 0);
    d.s = tu_dev_alloc(h.sbytes, 0);
    tu_dev_upload(&d.v, h.data, h.dbytes);
    tu_dev_upload(&d.s, h.scales, h.sbytes);
    d.m = h.m;
    d.m.data = d.v.ptr;
    d.m.scales = d.s.ptr;
    d.dbytes = h.dbytes;
    d.sbytes = h.sbytes;
    free(h.data);
    free(h.scales);
    return d;
}

static void free_devmat(devmat *d) {
    tu_dev_free(&d->v);
    tu_dev_free(&d->s);
}

static tetra_matrix dense3(tetra_dtype dt, void *p, int64_t m, int64_t n, int64_t l) {
    tetra_matrix d = tetra_matrix_dense(dt, p, m, n);
    d.batch = l;
    d.batch_stride = m * n;
    return d;
}

/* The case's device state */
typedef struct {
    devmat a[R], w[NW]; /* activations (NVFP4), weight sources (standard) */
    tu_devbuf abf[R];   /* A_r dequantized to BF16 without its global scale (the twins' A) */
    tu_devbuf wv, ws;   /* the GEMM's weights (standard copy or fragment conversion of a source) */
    tetra_matrix wm;
    tu_devbuf bias, dref;
    tu_devbuf *out;
    uint8_t *twin[R][NW]; /* host, the expected bytes of every (A_r, W_j) */
} cstate;

/* The GEMM's weight buffer := source j (on the stream, no synchronization) */
static void write_weights(tetra_context *ctx, const wcase *c, cstate *s, int j) {
    if (c->frag) {
        CHECK_MSG(tetra_convert_weights(ctx, &s->w[j].m, &s->wm) == TETRA_OK, "convert: %s", tetra_last_error());
        return;
    }
    cuda_ok(cudaMemcpyAsync(s->wv.ptr, s->w[j].v.ptr, s->w[j].dbytes, cudaMemcpyDeviceToDevice, g_stream), "w memcpy");
    cuda_ok(cudaMemcpyAsync(s->ws.ptr, s->w[j].s.ptr, s->w[j].sbytes, cudaMemcpyDeviceToDevice, g_stream), "s memcpy");
}

static tetra_gemm_options opts_of(const wcase *c, const cstate *s, float alpha) {
    tetra_gemm_options o = tetra_gemm_options_default();
    o.alpha = alpha;
    o.path = TETRA_PATH_WGMMA_T;
    o.tile_m = 256;
    o.splits = c->splits;
    if (c->bias) {
        o.bias = s->bias.ptr;
        o.bias_dtype = c->bias_dtype;
    }
    return o;
}

static const float ALPHA = 0.75f;

/* One W4A4 product of A_r into out, unsynchronized; 0 where refused */
static int w4a4(tetra_context *ctx, const wcase *c, cstate *s, int r, void *out) {
    tetra_gemm_options o = opts_of(c, s, ALPHA);
    tetra_matrix d = dense3(c->d_dtype, out, c->m, c->n, c->l);
    const tetra_status st = tetra_gemm(ctx, &s->a[r].m, &s->wm, &d, &o);
    if (st == TETRA_ERR_UNSUPPORTED) {
        g_refused = 1;
        return 0;
    }
    CHECK_MSG(st == TETRA_OK, "W4A4: %s", tetra_last_error());
    return st == TETRA_OK;
}

/* The twins of weights j (the weight buffer holds W_j), each gated against the GPU reference */
static int make_twins(tetra_context *ctx, const wcase *c, cstate *s, int j) {
    const int64_t count = c->m * c->n * c->l;
    const size_t bytes = (size_t)count * dsize(c->d_dtype);
    float *href = (float *)tu_xmalloc((size_t)count * 4);
    double *ref = (double *)tu_xmalloc((size_t)count * 8);
    for (int r = 0; r < R; r++) {
        /* the twin: W4A16 on the staged values, alpha times A's global scale (as gemm_api.c folds it) */
        tetra_matrix abf = dense3(TETRA_DTYPE_BF16, s->abf[r].ptr, c->m, c->k, c->l);
        tetra_gemm_options o = opts_of(c, s, ALPHA * s->a[r].m.global_scale);
        tetra_matrix d = dense3(c->d_dtype, s->out[0].ptr, c->m, c->n, c->l);
        tetra_matrix dr = dense3(TETRA_DTYPE_FP32, s->dref.ptr, c->m, c->n, c->l);
        tetra_status st;
        tetra_err_stats es, fl;
        int pass;
        cuda_ok(cudaMemsetAsync(s->out[0].ptr, 0xFF, bytes, g_stream), "poison");
        st = tetra_gemm(ctx, &abf, &s->wm, &d, &o);
        if (st == TETRA_ERR_UNSUPPORTED) {
            g_refused = 1;
            free(href);
            free(ref);
            return 0;
        }
        CHECK_MSG(st == TETRA_OK, "twin: %s", tetra_last_error());
        cuda_ok(cudaStreamSynchronize(g_stream), "twin");
        tu_dev_download(&s->out[0], s->twin[r][j], bytes);
        print_hash(c, r, j, s->twin[r][j], bytes);
        /* the FP64 reference (FP32 D) on the standard source of the same values; not under
         * TETRA_TEST_QUICK (sanitizers: memcheck would instrument its M x N x K loads; the twins
         * are still compared with every unsynchronized output) */
        if (tu_quick()) continue;
        o = opts_of(c, s, ALPHA);
        o.path = TETRA_PATH_REFERENCE;
        o.tile_m = o.splits = 0;
        CHECK_MSG(tetra_gemm(ctx, &s->a[r].m, &s->w[j].m, &dr, &o) == TETRA_OK, "reference: %s", tetra_last_error());
        cuda_ok(cudaStreamSynchronize(g_stream), "reference");
        tu_dev_download(&s->dref, href, (size_t)count * 4);
        for (int64_t i = 0; i < count; i++) ref[i] = href[i];
        es = tetra_err_compare(ref, s->twin[r][j], (int)c->d_dtype, count, 0);
        fl = tetra_err_dtype_floor(ref, c->d_dtype, count);
        pass = tetra_err_pass(&es, &fl, 2.0,
                              c->d_dtype == TETRA_DTYPE_FP32 ? 32.0 * ldexp(1.0, -24) * sqrt((double)c->k) : 1e-5);
        CHECK_MSG(pass, "twin a%d w%d vs the GPU reference: norm %.2e (floor %.2e) maxrel %.2e (floor %.2e)", r, j,
                  es.normwise, fl.normwise, es.max_rel, fl.max_rel);
    }
    free(href);
    free(ref);
    return 1;
}

enum { SEQ_BACK_TO_BACK, SEQ_WEIGHTS_BEFORE, SEQ_N };
static const char *const seq_name[SEQ_N] = {"back-to-back", "weights-before"};

/* Runs sequence seq unsynchronized (outputs poisoned first, in a pass of their own) and checks
 * every output against its twin; returns the W4A4 calls made (0: refused) */
static int run_seq(tetra_context *ctx, const wcase *c, cstate *s, int seq, const char *what) {
    const size_t bytes = (size_t)(c->m * c->n * c->l) * dsize(c->d_dtype);
    uint8_t *got = (uint8_t *)tu_xmalloc(bytes);
    int bad = 0, calls = 0;
    if (seq == SEQ_BACK_TO_BACK) write_weights(ctx, c, s, 0);
    for (int i = 0; i < g_iters; i++) cuda_ok(cudaMemsetAsync(s->out[i].ptr, 0xFF, bytes, g_stream), "poison");
    cuda_ok(cudaStreamSynchronize(g_stream), "poison");
    for (int i = 0; i < g_iters; i++) {
        if (seq == SEQ_WEIGHTS_BEFORE) write_weights(ctx, c, s, i % NW);
        if (!w4a4(ctx, c, s, i % R, s->out[i].ptr)) {
            free(got);
            return 0;
        }
        calls++;
    }
    cuda_ok(cudaStreamSynchronize(g_stream), "sequence");
    for (int i = 0; i < g_iters; i++) {
        const int j = seq == SEQ_WEIGHTS_BEFORE ? i % NW : 0;
        tu_dev_download(&s->out[i], got, bytes);
        CHECK(tu_dev_check_guards(&s->out[i], "out"));
        if (memcmp(got, s->twin[i % R][j], bytes) != 0) {
            if (bad < 5) fprintf(stderr, "  %s: iteration %d differs from its twin\n", what, i);
            bad++;
        }
    }
    CHECK_MSG(bad == 0, "%s: %d of %d outputs differ from their twins", what, bad, g_iters);
    printf("  %-80s %s\n", what, bad ? "FAIL" : "ok");
    free(got);
    return calls;
}

static void run_case(tetra_context *ctx, const wcase *c, tetra_rng *rng) {
    cstate s;
    const size_t bytes = (size_t)(c->m * c->n * c->l) * dsize(c->d_dtype);
    const int mode = tetra_gemm_w4a4_pdl_mode();
    char cfg[160], what[220];
    memset(&s, 0, sizeof s);
    snprintf(cfg, sizeof cfg, "M=%lld N=%lld K=%lld L=%lld d=%s bias=%s %s splits %d", (long long)c->m,
             (long long)c->n, (long long)c->k, (long long)c->l, tu_dtype_name(c->d_dtype),
             c->bias ? tu_dtype_name(c->bias_dtype) : "none", c->frag ? "fragment" : "standard", c->splits);
    for (int j = 0; j < NW; j++) s.w[j] = make_devmat(rng, c->n, c->k, c->l, 0.5f);
    for (int r = 0; r < R; r++) {
        tetra_matrix src, dst;
        s.a[r] = make_devmat(rng, c->m, c->k, c->l, 0.75f + 0.25f * (float)r);
        s.abf[r] = tu_dev_alloc((size_t)(c->m * c->k * c->l) * 2, 0x7F);
        src = s.a[r].m;
        src.global_scale = 1.0f; /* the staging pass's values: A without its global scale */
        dst = dense3(TETRA_DTYPE_BF16, s.abf[r].ptr, c->m, c->k, c->l);
        CHECK_MSG(tetra_dequantize(ctx, &src, &dst) == TETRA_OK, "dequantize: %s", tetra_last_error());
        for (int j = 0; j < NW; j++) s.twin[r][j] = (uint8_t *)tu_xmalloc(bytes);
    }
    if (c->frag) {
        const size_t fb = tetra_nvfp4_fragment_bytes(c->n, c->k) * (size_t)c->l;
        const size_t sb = tetra_nvfp4_scale_bytes(c->n, c->k, TETRA_SCALE_FRAGMENT_128X64) * (size_t)c->l;
        s.wv = tu_dev_alloc(fb, 0);
        s.ws = tu_dev_alloc(sb, 0);
        s.wm = tetra_matrix_nvfp4(s.wv.ptr, s.ws.ptr, TETRA_SCALE_FRAGMENT_128X64, c->n, c->k, 0.5f);
        s.wm.batch = c->l;
    } else {
        s.wv = tu_dev_alloc(s.w[0].dbytes, 0);
        s.ws = tu_dev_alloc(s.w[0].sbytes, 0);
        s.wm = s.w[0].m;
        s.wm.data = s.wv.ptr;
        s.wm.scales = s.ws.ptr;
    }
    if (c->bias) {
        const size_t bb = (size_t)c->n * dsize(c->bias_dtype);
        uint8_t *hb = (uint8_t *)tu_xmalloc(bb);
        for (int64_t i = 0; i < c->n; i++)
            tu_put_dense(hb, c->bias_dtype, i, (float)(0.5 * tetra_rng_normal(rng)));
        s.bias = tu_dev_alloc(bb, 0);
        tu_dev_upload(&s.bias, hb, bb);
        free(hb);
    }
    s.dref = tu_dev_alloc((size_t)(c->m * c->n * c->l) * 4, 0xFF);
    s.out = (tu_devbuf *)tu_xmalloc(sizeof(tu_devbuf) * (size_t)g_iters);
    for (int i = 0; i < g_iters; i++) s.out[i] = tu_dev_alloc(bytes, 0xFF);
    cuda_ok(cudaDeviceSynchronize(), "setup");

    for (int j = 0; j < NW && !g_refused; j++) {
        write_weights(ctx, c, &s, j);
        cuda_ok(cudaStreamSynchronize(g_stream), "weights");
        if (!make_twins(ctx, c, &s, j)) break;
    }
    for (int seq = 0; seq < SEQ_N && !g_refused; seq++) {
        const long long before = tetra_gemm_w4a4_pdl_launches();
        int calls;
        snprintf(what, sizeof what, "%s %s", seq_name[seq], cfg);
        calls = run_seq(ctx, c, &s, seq, what);
        if (!calls) break;
        /* every W4A4 product here runs at BT 256 on sm_90a: a PDL launch with the switch on */
        CHECK_MSG(tetra_gemm_w4a4_pdl_launches() - before == (mode ? calls : 0),
                  "%s: %lld PDL launches for %d W4A4 calls (switch %d)", what, tetra_gemm_w4a4_pdl_launches() - before,
                  calls, mode);
    }
    if (g_refused) printf("  %s: refused here (%s)\n", cfg, tetra_last_error());

    for (int j = 0; j < NW; j++) free_devmat(&s.w[j]);
    for (int r = 0; r < R; r++) {
        free_devmat(&s.a[r]);
        tu_dev_free(&s.abf[r]);
        for (int j = 0; j < NW; j++) free(s.twin[r][j]);
    }
    tu_dev_free(&s.wv);
    tu_dev_free(&s.ws);
    if (s.bias.base) tu_dev_free(&s.bias);
    tu_dev_free(&s.dref);
    for (int i = 0; i < g_iters; i++) tu_dev_free(&s.out[i]);
    free(s.out);
}

int main(void) {
    const char *expect = getenv("TETRA_GEMM_W4A4_PDL_EXPECT");
    tetra_context *ctx;
    tetra_rng rng = {0x4A4Du};
    /* M = 1024 and 1000 (a token tail), N not a multiple of 128, K = 4096 (v10.8 where the
     * clusters are capped or the units outnumber them) and 14336 (v10.3 only), batch 2, bias,
     * split-K (chosen: in-kernel reduce with the workspace counters), FP32 D (v10.3 only) */
    static const wcase cases[] = {
        {1024, 1000, 4096, 1, 1, TETRA_DTYPE_FP32, TETRA_DTYPE_BF16, 0, 1, 1},
        {1000, 1000, 14336, 1, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_BF16, 0, 0, 1},
        {1000, 776, 4096, 2, 1, TETRA_DTYPE_FP32, TETRA_DTYPE_BF16, 0, 1, 0},
        {1024, 1000, 4096, 1, 0, TETRA_DTYPE_FP32, TETRA_DTYPE_BF16, 1, 1, 1},
        {1000, 1000, 14336, 1, 0, TETRA_DTYPE_FP32, TETRA_DTYPE_FP32, 1, 1, 0},
        {1024, 520, 4096, 2, 1, TETRA_DTYPE_BF16, TETRA_DTYPE_FP16, 0, 0, 0},
        {2048, 4160, 4096, 1, 1, TETRA_DTYPE_FP32, TETRA_DTYPE_BF16, 0, 0, 0},
    };
    const int ncase = (int)(sizeof cases / sizeof cases[0]);
    printf("%s: TETRA_GEMM_W4A4_PDL = %d\n", NAME, tetra_gemm_w4a4_pdl_mode());
    if (expect)
        CHECK_MSG(tetra_gemm_w4a4_pdl_mode() == atoi(expect), "the library reports %d, the build %s",
                  tetra_gemm_w4a4_pdl_mode(), expect);
    if (tu_failures) return tu_finish(NAME);
    ctx = tu_gpu_or_skip(NAME);
    g_iters = tu_quick() ? ITERS_QUICK : ITERS_FULL;
    /* a blocking stream: testutil's allocations and uploads (legacy stream) stay ordered with it */
    cuda_ok(cudaStreamCreate(&g_stream), "stream");
    CHECK(tetra_context_set_stream(ctx, g_stream) == TETRA_OK);
    for (int i = 0; i < ncase && !g_refused; i++) {
        if (tu_quick() && !cases[i].quick) continue;
        run_case(ctx, &cases[i], &rng);
    }
    tetra_context_destroy(ctx);
    cudaStreamDestroy(g_stream);
    if (g_refused && !tu_failures) {
        printf("%s: SKIPPED: the WGMMA_T path at 256 tokens per CTA is refused here\n", NAME);
        return 77;
    }
    return tu_finish(NAME);
}
