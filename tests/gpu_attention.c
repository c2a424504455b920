/* gpu_attention.c - tetra_attention_fwd against the FP64 CPU oracle with seed 004's
 * two-reference gate:
 *   pass iff max|kernel - oracle| <= 2 * max|same-dtype ref - oracle| + 1e-4
 * where the oracle is TETRA_ATTENTION_REF_EXACT and the same-dtype reference is
 * TETRA_ATTENTION_REF_ROUND_P (P rounded to the input dtype before P V, as the kernel
 * does) rounded to the output dtype. NaN never passes. Outputs are poisoned (NaN bytes)
 * and sentinel-guarded; strided outputs must keep their poisoned gaps. A deliberately
 * defective call (perturbed scale, a dropped key) must fail the same gate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/float16.h"
#include "ref/attention_ref.h"
#include "testutil.h"

#define GATE_FACTOR 2.0
#define GATE_SLACK 1e-4

typedef struct {
    tetra_dtype dt;
    int D, causal;
    int64_t B, Nq, Nk, Hq, Hkv;
    int layout; /* 0 contiguous (strides 0), 1 padded [B,N,H,D] q/o + heads-outer k/v,
                   2 like 1 but strides not multiples of 8 (path 2 cannot take it) */
    int path;
    int with_lse;
} attn_case;

/* When set, problems use scale = -1/sqrt(D) instead of the default 1/sqrt(D): path 3's
 * shortcut (maximum of the raw scores, then scale) holds only for scale >= 0. */
static int g_negative_scale;

typedef struct {
    double err, floor, bound;
    int nonfinite, gaps_ok, lse_ok, status;
    unsigned long long hash; /* FNV-1a of O's buffer and lse (TETRA_ATTN_TEST_HASH) */
} attn_result;

/* TETRA_ATTN_TEST_HASH=1 prints an FNV-1a hash of every run's output (O's whole buffer,
 * gaps included, then lse when requested): two builds that should compute identical bits
 * can be compared by diffing the "hash" lines (the inputs are seeded). */
static int g_hash;

static unsigned long long fnv1a(unsigned long long h, const void *data, size_t n) {
    const unsigned char *b = (const unsigned char *)data;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static const char *dt_name(tetra_dtype dt) { return dt == TETRA_DTYPE_BF16 ? "bf16" : "fp16"; }

static double to_double(uint16_t h, tetra_dtype dt) {
    return dt == TETRA_DTYPE_BF16 ? (double)tetra_bf16_to_f32(h) : (double)tetra_f16_to_f32(h);
}
static double round_dtype(double x, tetra_dtype dt) {
    float f = tetra_f64_to_f32_odd(x);
    return dt == TETRA_DTYPE_BF16 ? (double)tetra_bf16_to_f32(tetra_f32_to_bf16(f))
                                  : (double)tetra_f16_to_f32(tetra_f32_to_f16(f));
}

/* Strides for a layout; returns the element extent (max offset + 1). */
static int64_t layout_strides(int layout, int heads_outer, int64_t B, int64_t N, int64_t H, int64_t D,
                              int64_t s[3]) {
    const int64_t pad = layout == 2 ? 3 : 8;
    if (layout == 0) {
        s[0] = s[1] = s[2] = 0;
        return B * N * H * D;
    }
    if (heads_outer) { /* [B, H, N, D] */
        s[1] = D + pad;
        s[2] = N * s[1] + 2 * pad;
        s[0] = H * s[2] + 4 * pad;
    } else {           /* [B, N, H, D] with gaps */
        s[2] = D + pad;
        s[1] = H * s[2] + 2 * pad;
        s[0] = N * s[1] + 4 * pad;
    }
    return (B - 1) * s[0] + (N - 1) * s[1] + (H - 1) * s[2] + D;
}

static void fill(tetra_rng *r, uint16_t *x, int64_t n, tetra_dtype dt) {
    for (int64_t i = 0; i < n; i++) {
        float f = (float)tetra_rng_normal(r);
        x[i] = dt == TETRA_DTYPE_BF16 ? tetra_f32_to_bf16(f) : tetra_f32_to_f16(f);
    }
}

/* One problem: inputs, oracle and same-dtype floor, computed once, run many ways. */
typedef struct {
    attn_case c;
    tetra_attention_args host; /* host pointers, strides as given */
    int64_t q_el, k_el, o_el;
    uint16_t *q, *k, *v;
    double *o64, *lse64, floor;
    tu_devbuf dq, dk, dv;
} problem;

static void problem_init(problem *p, const attn_case *c, uint64_t seed) {
    tetra_rng r = {seed};
    const int64_t n = c->B * c->Nq * c->Hq * c->D;
    double *rp = (double *)malloc((size_t)n * sizeof(double));
    memset(p, 0, sizeof *p);
    p->c = *c;
    p->host.dtype = c->dt;
    p->host.batch = c->B; p->host.seqlen_q = c->Nq; p->host.seqlen_k = c->Nk;
    p->host.heads_q = c->Hq; p->host.heads_kv = c->Hkv; p->host.head_dim = c->D;
    p->host.causal = c->causal;
    p->host.path = c->path;
    p->host.scale = g_negative_scale ? (float)(-1.0 / sqrt((double)c->D)) : 0.0f;
    p->q_el = layout_strides(c->layout, 0, c->B, c->Nq, c->Hq, c->D, p->host.q_strides);
    p->k_el = layout_strides(c->layout, 1, c->B, c->Nk, c->Hkv, c->D, p->host.k_strides);
    layout_strides(c->layout, 1, c->B, c->Nk, c->Hkv, c->D, p->host.v_strides);
    p->o_el = layout_strides(c->layout, 0, c->B, c->Nq, c->Hq, c->D, p->host.o_strides);
    p->q = (uint16_t *)malloc((size_t)p->q_el * 2);
    p->k = (uint16_t *)malloc((size_t)p->k_el * 2);
    p->v = (uint16_t *)malloc((size_t)p->k_el * 2);
    fill(&r, p->q, p->q_el, c->dt);
    fill(&r, p->k, p->k_el, c->dt);
    fill(&r, p->v, p->k_el, c->dt);
    p->host.q = p->q; p->host.k = p->k; p->host.v = p->v; p->host.o = p->q;
    p->o64 = (double *)malloc((size_t)n * sizeof(double));
    p->lse64 = (double *)malloc((size_t)(c->B * c->Hq * c->Nq) * sizeof(double));
    if (tetra_attention_host(&p->host, TETRA_ATTENTION_REF_EXACT, p->o64, p->lse64, 0) != TETRA_OK ||
        tetra_attention_host(&p->host, TETRA_ATTENTION_REF_ROUND_P, rp, NULL, 0) != TETRA_OK) {
        fprintf(stderr, "oracle failed: %s\n", tetra_last_error());
        exit(1);
    }
    p->floor = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const double e = fabs(round_dtype(rp[i], c->dt) - p->o64[i]);
        if (e > p->floor) p->floor = e;
    }
    free(rp);
    p->dq = tu_dev_alloc((size_t)p->q_el * 2, 0);
    p->dk = tu_dev_alloc((size_t)p->k_el * 2, 0);
    p->dv = tu_dev_alloc((size_t)p->k_el * 2, 0);
    tu_dev_upload(&p->dq, p->q, (size_t)p->q_el * 2);
    tu_dev_upload(&p->dk, p->k, (size_t)p->k_el * 2);
    tu_dev_upload(&p->dv, p->v, (size_t)p->k_el * 2);
}

static void problem_free(problem *p) {
    free(p->q); free(p->k); free(p->v); free(p->o64); free(p->lse64);
    tu_dev_free(&p->dq); tu_dev_free(&p->dk); tu_dev_free(&p->dv);
}

/* Path 3 at D=64 runs 192-row tiles (3 consumer warpgroups) or 128-row tiles (2),
 * chosen per shape by the host, which may also finish a 192-row grid with 128-row tiles
 * (non-causal, a partly filled last round); args.tile_rows pins one height, so every D=64
 * case runs path 3 at both heights and as the host chooses ("0", printed rows=0).
 * NULL: the host's choice. */
static const char *g_rows;

/* Run on the device with `path`; `scale_mul` and `drop_keys` make defective calls. */
static attn_result problem_run(const problem *p, tetra_context *ctx, int path, float scale_mul,
                               int drop_keys, uint16_t *o_out) {
    const attn_case *c = &p->c;
    const int64_t nlse = c->B * c->Hq * c->Nq;
    tetra_attention_args a = p->host;
    attn_result res;
    uint16_t *o = (uint16_t *)malloc((size_t)p->o_el * 2);
    float *lse = (float *)malloc((size_t)nlse * sizeof(float));
    tu_devbuf dout = tu_dev_alloc((size_t)p->o_el * 2, 0xFF); /* 0xFFFF: NaN in BF16 and FP16 */
    tu_devbuf dlse = tu_dev_alloc((size_t)nlse * sizeof(float), 0xFF);
    memset(&res, 0, sizeof res);
    a.q = p->dq.ptr; a.k = p->dk.ptr; a.v = p->dv.ptr; a.o = dout.ptr;
    a.lse = c->with_lse ? (float *)dlse.ptr : NULL;
    a.path = path;
    a.tile_rows = g_rows ? atoi(g_rows) : 0;
    a.scale = (float)((g_negative_scale ? -1.0 : 1.0) / sqrt((double)c->D)) * scale_mul;
    if (drop_keys && c->layout == 0) { /* keep the original Nk's contiguous strides */
        const int64_t ks[3] = {c->Nk * c->Hkv * c->D, c->Hkv * c->D, c->D};
        memcpy(a.k_strides, ks, sizeof ks);
        memcpy(a.v_strides, ks, sizeof ks);
    }
    a.seqlen_k -= drop_keys;
    res.status = tetra_attention_fwd(ctx, &a);
    if (res.status != TETRA_OK) {
        fprintf(stderr, "tetra_attention_fwd: %s\n", tetra_last_error());
    } else {
        tu_dev_download(&dout, o, (size_t)p->o_el * 2);
        tu_dev_download(&dlse, lse, (size_t)nlse * sizeof(float));
        res.hash = fnv1a(0xcbf29ce484222325ull, o, (size_t)p->o_el * 2);
        if (c->with_lse) res.hash = fnv1a(res.hash, lse, (size_t)nlse * sizeof(float));
    }
    tu_dev_check_guards(&dout, "attention O");
    tu_dev_check_guards(&dlse, "attention lse");
    /* Compare every valid element; mark them, then every unmarked element of a strided O
     * must still hold the poison. */
    {
        const int64_t os0 = a.o_strides[0] ? a.o_strides[0] : c->Nq * c->Hq * c->D;
        const int64_t os1 = a.o_strides[1] ? a.o_strides[1] : c->Hq * c->D;
        const int64_t os2 = a.o_strides[2] ? a.o_strides[2] : c->D;
        unsigned char *seen = (unsigned char *)calloc((size_t)p->o_el, 1);
        res.gaps_ok = 1;
        res.lse_ok = 1;
        for (int64_t b = 0; b < c->B; b++)
            for (int64_t i = 0; i < c->Nq; i++)
                for (int64_t h = 0; h < c->Hq; h++)
                    for (int64_t d = 0; d < c->D; d++) {
                        const int64_t off = b * os0 + i * os1 + h * os2 + d;
                        const double got = to_double(o[off], c->dt);
                        const double want = p->o64[((b * c->Nq + i) * c->Hq + h) * c->D + d];
                        seen[off] = 1;
                        if (!isfinite(got)) res.nonfinite++;
                        else if (fabs(got - want) > res.err) res.err = fabs(got - want);
                    }
        for (int64_t i = 0; i < p->o_el; i++)
            if (!seen[i] && o[i] != 0xFFFF) res.gaps_ok = 0;
        free(seen);
        if (c->with_lse && !drop_keys)
            for (int64_t i = 0; i < nlse; i++) {
                const double want = p->lse64[i], got = (double)lse[i];
                const int ok = isinf(want) ? (isinf(got) && got < 0)
                                           : (isfinite(got) && fabs(got - want) <= 1e-4 + 1e-5 * fabs(want));
                if (!ok && res.lse_ok) {
                    fprintf(stderr, "  lse[%lld] = %.9g, oracle %.9g\n", (long long)i, got, want);
                    res.lse_ok = 0;
                }
            }
    }
    res.floor = p->floor;
    res.bound = GATE_FACTOR * p->floor + GATE_SLACK;
    if (o_out) memcpy(o_out, o, (size_t)p->o_el * 2);
    free(o); free(lse);
    tu_dev_free(&dout); tu_dev_free(&dlse);
    return res;
}

static int gate_pass(const attn_result *r) {
    return r->status == TETRA_OK && r->nonfinite == 0 && r->err <= r->bound;
}


static void print_case(const attn_case *c, int path, const attn_result *r, const char *tag) {
    printf("%-6s %s D=%d %s B=%lld Nq=%lld Nk=%lld Hq=%lld Hkv=%lld layout=%d path=%d%s%s: "
           "err %.3e floor %.3e bound %.3e (err/bound %.3f)%s%s\n",
           tag, dt_name(c->dt), c->D, c->causal ? "causal" : "full", (long long)c->B,
           (long long)c->Nq, (long long)c->Nk, (long long)c->Hq, (long long)c->Hkv, c->layout, path,
           g_rows ? " rows=" : "", g_rows ? g_rows : "", r->err, r->floor, r->bound, r->err / r->bound,
           r->nonfinite ? " NONFINITE" : "", r->gaps_ok ? "" : " GAP-WRITTEN");
    if (g_hash)
        printf("  hash %s D=%d %s B=%lld Nq=%lld Nk=%lld Hq=%lld Hkv=%lld layout=%d path=%d%s%s %016llx\n",
               dt_name(c->dt), c->D, c->causal ? "causal" : "full", (long long)c->B, (long long)c->Nq,
               (long long)c->Nk, (long long)c->Hq, (long long)c->Hkv, c->layout, path, g_rows ? " rows=" : "",
               g_rows ? g_rows : "", r->hash);
}

/* Path 3 (Hopper wgmma) runs only on sm_90 with a build holding sm_90a code; elsewhere
 * it must refuse with TETRA_ERR_UNSUPPORTED, and its cases are skipped with a message. */
static int g_path3;

static int probe_path3(tetra_context *ctx) {
    const attn_case c = {TETRA_DTYPE_BF16, 64, 0, 1, 16, 16, 2, 2, 0, 3, 1};
    problem p;
    tetra_attention_args a;
    tu_devbuf dout;
    tetra_status st;
    problem_init(&p, &c, 4242);
    dout = tu_dev_alloc((size_t)p.o_el * 2, 0xFF);
    a = p.host;
    a.q = p.dq.ptr; a.k = p.dk.ptr; a.v = p.dv.ptr; a.o = dout.ptr; a.lse = NULL;
    st = tetra_attention_fwd(ctx, &a);
    if (st == TETRA_ERR_UNSUPPORTED)
        printf("path 3 (wgmma) cases SKIPPED: %s\n", tetra_last_error());
    else
        CHECK_MSG(st == TETRA_OK, "path 3 probe: %s", tetra_last_error());
    tu_dev_free(&dout);
    problem_free(&p);
    return st == TETRA_OK;
}

/* `paths` plus path 3 when this device and build take it and the layout is TMA-able. */
static int with_path3(const int *paths, int n, int *out, int layout) {
    for (int i = 0; i < n; i++) out[i] = paths[i];
    if (g_path3 && layout != 2) out[n++] = 3;
    return n;
}

/* The gate on every requested path. */
static void check_case(tetra_context *ctx, const attn_case *c, uint64_t seed, const int *paths_in, int npaths) {
    problem p;
    int paths[8];
    npaths = with_path3(paths_in, npaths, paths, c->layout);
    problem_init(&p, c, seed);
    if (g_path3 && c->layout == 2) { /* strides not multiples of 16 bytes: TMA cannot */
        attn_result r = problem_run(&p, ctx, 3, 1.0f, 0, NULL);
        CHECK_MSG(r.status == TETRA_ERR_UNSUPPORTED, "path 3 took unaligned strides (status %d)", r.status);
    }
    for (int i = 0; i < npaths; i++) {
        static const char *heights[3] = {"128", "192", "0"};
        const int forced = paths[i] == 3 && c->D == 64 ? 3 : 0;
        for (int f = 0; f < (forced ? forced : 1); f++) {
            attn_result r;
            int pass;
            if (forced) {
                g_rows = heights[f];
            }
            r = problem_run(&p, ctx, paths[i], 1.0f, 0, NULL);
            pass = gate_pass(&r) && r.gaps_ok && r.lse_ok;
            print_case(c, paths[i], &r, pass ? "PASS" : "FAIL");
            CHECK_MSG(pass, "attention gate failed (seed %llu)", (unsigned long long)seed);
            g_rows = NULL;
        }
    }
    problem_free(&p);
}

/* The gate must reject deliberately defective results on the same problem. */
static void check_defects(tetra_context *ctx) {
    const attn_case cases[2] = {
        {TETRA_DTYPE_BF16, 128, 0, 2, 200, 200, 4, 2, 0, 2, 1},
        {TETRA_DTYPE_FP16, 64, 1, 2, 200, 200, 4, 2, 0, 2, 1},
    };
    for (int i = 0; i < 2; i++) {
        problem p;
        attn_result good, bad_scale, bad_key;
        problem_init(&p, &cases[i], 9000 + (uint64_t)i);
        good = problem_run(&p, ctx, 2, 1.0f, 0, NULL);
        bad_scale = problem_run(&p, ctx, 2, 1.02f, 0, NULL); /* scale 2% off */
        bad_key = problem_run(&p, ctx, 2, 1.0f, 1, NULL);    /* last key dropped */
        print_case(&cases[i], 2, &good, gate_pass(&good) ? "PASS" : "FAIL");
        print_case(&cases[i], 2, &bad_scale, gate_pass(&bad_scale) ? "MISSED" : "CAUGHT");
        print_case(&cases[i], 2, &bad_key, gate_pass(&bad_key) ? "MISSED" : "CAUGHT");
        CHECK(gate_pass(&good));
        CHECK_MSG(!gate_pass(&bad_scale), "the gate passed a kernel run with scale * 1.02");
        CHECK_MSG(!gate_pass(&bad_key), "the gate passed a kernel run that dropped the last key");
        problem_free(&p);
    }
}

/* B=1, H=4, N=2048: the mma kernel and the GPU reference kernel against the oracle,
 * and against each other. */
static void check_large(tetra_context *ctx) {
    for (int causal = 0; causal < 2; causal++) {
        const attn_case c = {TETRA_DTYPE_BF16, 128, causal, 1, 2048, 2048, 4, 4, 0, 2, 1};
        problem p;
        attn_result r2, r1;
        uint16_t *o2, *o1;
        double diff = 0.0;
        problem_init(&p, &c, 7000 + (uint64_t)causal);
        o2 = (uint16_t *)malloc((size_t)p.o_el * 2);
        o1 = (uint16_t *)malloc((size_t)p.o_el * 2);
        r2 = problem_run(&p, ctx, 2, 1.0f, 0, o2);
        r1 = problem_run(&p, ctx, 1, 1.0f, 0, o1);
        for (int64_t i = 0; i < p.o_el; i++) {
            const double e = fabs(to_double(o2[i], c.dt) - to_double(o1[i], c.dt));
            if (!(e <= diff)) diff = e; /* NaN propagates */
        }
        if (g_path3) {
            uint16_t *o3 = (uint16_t *)malloc((size_t)p.o_el * 2);
            attn_result r3 = problem_run(&p, ctx, 3, 1.0f, 0, o3);
            double diff3 = 0.0;
            for (int64_t i = 0; i < p.o_el; i++) {
                const double e = fabs(to_double(o3[i], c.dt) - to_double(o1[i], c.dt));
                if (!(e <= diff3)) diff3 = e;
            }
            print_case(&c, 3, &r3, gate_pass(&r3) && r3.lse_ok ? "PASS" : "FAIL");
            printf("       large %s: max|path3 - path1| = %.3e\n", causal ? "causal" : "full", diff3);
            CHECK(gate_pass(&r3) && r3.lse_ok);
            CHECK_MSG(diff3 <= 2.0 * r3.bound, "path 3 and path 1 differ by %g", diff3);
            free(o3);
        }
        print_case(&c, 2, &r2, gate_pass(&r2) && r2.lse_ok ? "PASS" : "FAIL");
        print_case(&c, 1, &r1, gate_pass(&r1) && r1.lse_ok ? "PASS" : "FAIL");
        printf("       large %s: max|path2 - path1| = %.3e\n", causal ? "causal" : "full", diff);
        CHECK(gate_pass(&r2) && r2.lse_ok);
        CHECK(gate_pass(&r1) && r1.lse_ok);
        CHECK_MSG(diff <= 2.0 * r2.bound, "path 2 and path 1 differ by %g", diff);
        free(o2); free(o1);
        problem_free(&p);
    }
}

static void check_bad_inputs(tetra_context *ctx) {
    const attn_case c = {TETRA_DTYPE_BF16, 64, 0, 1, 16, 16, 2, 2, 0, 2, 1};
    problem p;
    tetra_attention_args a, b;
    tu_devbuf dout;
    static uint16_t host_buf[4096];
    problem_init(&p, &c, 555);
    dout = tu_dev_alloc((size_t)p.o_el * 2, 0xFF);
    a = p.host;
    a.q = p.dq.ptr; a.k = p.dk.ptr; a.v = p.dv.ptr; a.o = dout.ptr; a.lse = NULL;
    CHECK(tetra_attention_fwd(ctx, &a) == TETRA_OK);
    CHECK_ERR(tetra_attention_fwd(NULL, &a), TETRA_ERR_INVALID_ARGUMENT, "ctx");
    CHECK_ERR(tetra_attention_fwd(ctx, NULL), TETRA_ERR_INVALID_ARGUMENT, "args");
    /* a copy of the good arguments with one field broken is refused, naming the field */
#define CHECK_REFUSED(broken, needle)                                                   \
    do {                                                                               \
        b = a;                                                                         \
        broken;                                                                        \
        CHECK_ERR(tetra_attention_fwd(ctx, &b), TETRA_ERR_INVALID_ARGUMENT, needle);   \
    } while (0)
    CHECK_REFUSED(b.q = NULL, "args.q");
    CHECK_REFUSED(b.o = NULL, "args.o");
    CHECK_REFUSED(b.dtype = TETRA_DTYPE_FP32, "dtype");
    CHECK_REFUSED(b.dtype = TETRA_DTYPE_NVFP4, "dtype");
    CHECK_REFUSED(b.head_dim = 96, "head_dim");
    CHECK_REFUSED(b.batch = 0, "batch");
    CHECK_REFUSED(b.seqlen_q = 0, "seqlen_q");
    CHECK_REFUSED(b.heads_q = 3, "heads_kv");
    CHECK_REFUSED(b.q_strides[1] = 64, "q_strides[1]"); /* 2 heads x 64 need 128 */
    CHECK_REFUSED(b.v_strides[2] = -64, "v_strides[2]");
    CHECK_REFUSED(b.scale = INFINITY, "scale");
    CHECK_REFUSED(b.path = 4, "path");
    CHECK_REFUSED(b.causal = 2, "causal");
    CHECK_REFUSED(b.k = host_buf, "args.k");
    CHECK_REFUSED(b.lse = (float *)host_buf, "args.lse");
    CHECK_REFUSED(b.v = (const char *)p.dv.ptr + 1, "args.v");
#undef CHECK_REFUSED
    /* 16-byte alignment is the mma path's need: forced path 2 refuses, auto falls back. */
    b = a; b.q = (const char *)p.dq.ptr + 2; b.seqlen_q = 15;
    CHECK_ERR(tetra_attention_fwd(ctx, &b), TETRA_ERR_UNSUPPORTED, "args.q");
    b.path = 0;
    CHECK(tetra_attention_fwd(ctx, &b) == TETRA_OK);
    b = a; b.path = 3;
    if (g_path3) {
        CHECK(tetra_attention_fwd(ctx, &b) == TETRA_OK);
        /* TMA needs 16-byte aligned bases and strides: forced path 3 refuses */
        b.q = (const char *)p.dq.ptr + 2; b.seqlen_q = 15;
        CHECK_ERR(tetra_attention_fwd(ctx, &b), TETRA_ERR_UNSUPPORTED, "args.q");
    } else {
        CHECK_ERR(tetra_attention_fwd(ctx, &b), TETRA_ERR_UNSUPPORTED, "path 3");
    }
    CHECK(tu_dev_check_guards(&dout, "bad-input O"));
    tu_dev_free(&dout);
    problem_free(&p);
}

int main(void) {
    tetra_context *ctx = tu_gpu_or_skip("gpu_attention");
    const int all_paths[3] = {2, 1, 0}, mma_only[1] = {2};
    const int64_t ns[5] = {1, 17, 128, 200, 512};
    uint64_t seed = 1000;
    printf("gate: max|kernel - oracle| <= %.1f * max|round_dtype(roundP ref) - oracle| + %.0e\n",
           GATE_FACTOR, GATE_SLACK);
    g_hash = getenv("TETRA_ATTN_TEST_HASH") != NULL;
    g_path3 = probe_path3(ctx);
    /* The grid: dtype x D x causal x N, MHA, contiguous; path 2, the reference, auto. */
    for (int dt = 0; dt < 2; dt++)
        for (int d = 0; d < 2; d++)
            for (int causal = 0; causal < 2; causal++)
                for (int n = 0; n < 5; n++) {
                    const attn_case c = {dt ? TETRA_DTYPE_FP16 : TETRA_DTYPE_BF16, d ? 128 : 64, causal,
                                         2, ns[n], ns[n], 2, 2, 0, 2, 1};
                    check_case(ctx, &c, seed++, n == 4 ? mma_only : all_paths, n == 4 ? 1 : 3);
                }
    {
        /* Nq != Nk (bottom-right causal; Nq > Nk leaves rows with no key), GQA, MQA,
         * strided layouts, no lse, unaligned strides (auto falls back to path 1). */
        const attn_case extra[] = {
            {TETRA_DTYPE_BF16, 128, 1, 2, 17, 200, 2, 2, 0, 2, 1},
            {TETRA_DTYPE_BF16, 128, 1, 2, 200, 17, 2, 2, 0, 2, 1},
            {TETRA_DTYPE_FP16, 64, 1, 1, 128, 512, 4, 2, 1, 2, 1},
            {TETRA_DTYPE_FP16, 64, 1, 1, 100, 64, 4, 4, 0, 2, 1},
            {TETRA_DTYPE_BF16, 64, 0, 2, 33, 300, 2, 1, 1, 2, 1},
            {TETRA_DTYPE_BF16, 128, 1, 2, 200, 200, 8, 2, 0, 2, 1},
            {TETRA_DTYPE_FP16, 128, 0, 2, 200, 200, 8, 2, 1, 2, 1},
            {TETRA_DTYPE_BF16, 64, 1, 1, 130, 130, 8, 1, 1, 2, 1},
            {TETRA_DTYPE_FP16, 128, 1, 2, 77, 77, 8, 1, 0, 2, 0},
            {TETRA_DTYPE_BF16, 128, 1, 1, 65, 191, 4, 2, 1, 2, 1},
            /* several 128-key blocks with ragged ends (path 3's ring wraps around) */
            {TETRA_DTYPE_FP16, 64, 1, 1, 300, 1000, 4, 1, 1, 2, 1},
            {TETRA_DTYPE_BF16, 128, 0, 1, 1000, 300, 2, 2, 0, 2, 1},
            /* more 128-row tiles than an H200 has SMs (132), non-causal: path 3's
             * persistent CTAs walk several tiles each (Q buffer, ring and ping-pong
             * carried across tiles), ragged N, GQA, padded layout */
            {TETRA_DTYPE_BF16, 128, 0, 2, 1100, 1100, 8, 2, 1, 2, 1},
            {TETRA_DTYPE_FP16, 64, 0, 1, 1000, 1500, 20, 4, 0, 2, 1},
            /* D=64 runs 192-row tiles (3 consumer warpgroups): N not a multiple of 192,
             * more tiles than SMs non-causal (6 x 24 = 144, persistent) and causal (6 x 24,
             * one CTA per tile), Nq > Nk causal (a tile with no key; the next tile's first
             * two warpgroups see no key while the third does), Nq < Nk causal */
            {TETRA_DTYPE_BF16, 64, 0, 2, 1000, 1000, 12, 4, 1, 2, 1},
            {TETRA_DTYPE_BF16, 64, 1, 1, 1000, 1000, 24, 8, 0, 2, 1},
            {TETRA_DTYPE_FP16, 64, 1, 2, 450, 130, 2, 1, 0, 2, 1},
            {TETRA_DTYPE_FP16, 64, 1, 1, 250, 700, 4, 4, 1, 2, 1},
            /* path 2's 128-row tiles of 4 warps x 32 rows: a last tile of one row (three
             * warps without a real row), Nq < 128 ending inside warp 1 and 2, ragged
             * multi-tile causal, Nq > Nk causal over several tiles (rows with no key in
             * more than one warp), and an offset Nk - Nq that is no multiple of 32 or 64
             * (the per-warp first masked block) */
            {TETRA_DTYPE_BF16, 128, 1, 1, 129, 129, 2, 1, 0, 2, 1},
            {TETRA_DTYPE_FP16, 128, 0, 2, 40, 333, 2, 2, 1, 2, 1},
            {TETRA_DTYPE_BF16, 64, 1, 1, 96, 96, 4, 2, 0, 2, 1},
            {TETRA_DTYPE_BF16, 128, 1, 1, 383, 383, 2, 2, 1, 2, 1},
            {TETRA_DTYPE_BF16, 128, 1, 1, 300, 130, 2, 1, 0, 2, 1},
            {TETRA_DTYPE_FP16, 64, 1, 2, 260, 64, 2, 2, 0, 2, 1},
            {TETRA_DTYPE_FP16, 128, 1, 1, 192, 420, 4, 4, 0, 2, 1},
            {TETRA_DTYPE_BF16, 128, 0, 1, 257, 63, 2, 2, 0, 2, 0},
        };
        /* negative scale over several unmasked key blocks, causal and not */
        const attn_case negative[] = {
            {TETRA_DTYPE_BF16, 128, 1, 1, 300, 300, 2, 2, 0, 2, 1},
            {TETRA_DTYPE_FP16, 64, 0, 1, 200, 500, 2, 1, 0, 2, 1},
            /* path 2 negates Q in shared memory for a negative scale: masked causal rows,
             * Nq < Nk and Nq > Nk (rows with no visible key), GQA, padded strides */
            {TETRA_DTYPE_FP16, 128, 1, 1, 383, 450, 4, 2, 1, 2, 1},
            {TETRA_DTYPE_BF16, 64, 1, 1, 200, 130, 2, 2, 0, 2, 1},
        };
        /* The host's tile height at D=64, run by auto (path 0) besides both forced
         * heights; on an H200's 132 SMs: ragged GQA non-causal that it sends to 128-row
         * tiles (96 tiles, one round), non-causal that it sends to 192-row tiles (132
         * tiles of 192 = 1 round vs 220 of 128 = 2, so forced 128 walks persistent tiles
         * with 2 consumers), causal that it sends to 192 rows (est. 15.0 vs 16.9) */
        const attn_case heights[] = {
            {TETRA_DTYPE_FP16, 64, 0, 2, 700, 700, 8, 2, 1, 2, 1},
            {TETRA_DTYPE_BF16, 64, 0, 2, 570, 570, 22, 2, 0, 2, 1},
            {TETRA_DTYPE_BF16, 64, 1, 2, 550, 550, 32, 8, 0, 2, 1},
        };
        const int heights_paths[2] = {0, 2};
        const int extra_paths[2] = {2, 1};
        const attn_case unaligned = {TETRA_DTYPE_BF16, 64, 1, 2, 50, 70, 4, 2, 2, 0, 1};
        const int auto_path[1] = {0};
        for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
            check_case(ctx, &extra[i], seed++, extra_paths, 2);
        check_case(ctx, &unaligned, seed++, auto_path, 1);
        g_negative_scale = 1;
        for (size_t i = 0; i < sizeof negative / sizeof negative[0]; i++)
            check_case(ctx, &negative[i], seed++, extra_paths, 2);
        g_negative_scale = 0;
        for (size_t i = 0; i < sizeof heights / sizeof heights[0]; i++)
            check_case(ctx, &heights[i], seed++, heights_paths, 2);
        /* Persistent CTAs walking several tiles (on an H200's 132 SMs), the Q buffer and
         * the K/V ring handed from tile to tile: tiles of one key block (Q released and
         * reloaded every other turn) and of two (fewer than D=64's 3 stages). */
        const attn_case short_keys[] = {
            {TETRA_DTYPE_BF16, 128, 0, 2, 1100, 100, 16, 4, 0, 2, 1},
            {TETRA_DTYPE_FP16, 64, 0, 2, 1500, 200, 16, 16, 1, 2, 1},
            /* D=64 shapes whose 192-row grid the host finishes with 128-row tiles (rows=0):
             * 4 of 6 blocks of 192 rows per head as full tiles, then 3 of 128 rows, the last
             * of 76 rows (one consumer works, two sit out); 3 of 5, then 3 of 128, the last
             * of 18 rows */
            {TETRA_DTYPE_BF16, 64, 0, 2, 1100, 300, 16, 4, 0, 2, 1},
            {TETRA_DTYPE_FP16, 64, 0, 1, 850, 1000, 40, 8, 1, 2, 1},
            /* the TMA store of O (non-causal D=128): a last 64-row slice holding one row
             * (the box clipped at Nq), Nq != Nk, padded O (the poison between rows and
             * heads must survive), several tiles per CTA; then the same kind of case at
             * D=64 (register store; 193 = one 192-row block + 1 row) */
            {TETRA_DTYPE_BF16, 128, 0, 2, 129, 260, 80, 16, 1, 2, 1},
            {TETRA_DTYPE_FP16, 64, 0, 2, 193, 130, 72, 8, 1, 2, 1},
        };
        for (size_t i = 0; i < sizeof short_keys / sizeof short_keys[0]; i++)
            check_case(ctx, &short_keys[i], seed++, mma_only, 1);
    }
    check_defects(ctx);
    if (tu_quick()) printf("large cases skipped (TETRA_TEST_QUICK)\n");
    else {
        check_large(ctx);
        /* The benchmark's N = 2048 non-causal shapes (B=2, H=16: 512 tiles of 128 rows at
         * D=128, 352 of 192 or 512 of 128 at D=64, 2.7-3.9 tiles per CTA), then ragged
         * N (partial query tile and key block) with GQA and a padded layout; lse checked.
         * D=64 runs both tile heights (check_case). */
        const attn_case n2048[] = {
            {TETRA_DTYPE_BF16, 128, 0, 2, 2048, 2048, 16, 16, 0, 2, 1},
            {TETRA_DTYPE_BF16, 64, 0, 2, 2048, 2048, 16, 16, 0, 2, 1},
            {TETRA_DTYPE_FP16, 128, 0, 2, 2000, 2100, 16, 4, 1, 2, 1},
            {TETRA_DTYPE_FP16, 64, 0, 2, 1900, 2047, 16, 2, 1, 2, 1},
        };
        for (size_t i = 0; i < sizeof n2048 / sizeof n2048[0]; i++)
            check_case(ctx, &n2048[i], seed++, mma_only, 1);
    }
    check_bad_inputs(ctx);
    tetra_context_destroy(ctx);
    return tu_finish("gpu_attention");
}
