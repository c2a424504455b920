/* gemm_api.c - tetra_gemm: validate, resolve descriptors, dispatch to a kernel family.
 *
 * Dispatch (TETRA_PATH_AUTO): M <= 16 -> GEMV kernels; otherwise on sm_90 the transposed
 * Hopper wgmma GEMM (batch-invariant: the v6 wgmma GEMM; W4A4 through a BF16 staging pass
 * of A), the portable mma.sync GEMM elsewhere.
 * Batch-invariant products skip the GEMV (its use depends on M) and the launchers then
 * choose a configuration without split-K. Where the context has a dispatch table (tetra
 * tune; docs/tuning.md), the entry it serves (the nearest, or in an exact table the problem's
 * own shape) has its path and configuration tried first, and
 * the heuristics take over if that path refuses the problem. A launcher that cannot take
 * a problem returns TETRA_ERR_UNSUPPORTED and the next one is tried; the reference kernel
 * takes everything, so AUTO never fails for a valid problem. Prepared (interleaved) weights
 * are read by the GEMV (M <= 16, else the reference kernel) and, for 17 <= M <= 64 on sm_90a,
 * the skinny wgmma kernel (TETRA_PATH_SKINNY, also pinnable); anything else with them is
 * refused with a message naming b. Fragment-ordered weights (TETRA_SCALE_FRAGMENT_128X64) go
 * to the GEMV at M <= 16 (BF16 a or W4A4 through the staging pass, K % 128 == 0; build
 * switch / environment TETRA_GEMV_FRAG; at 9..16 rows of BF16 a on sm_90 not where the grid
 * model of TETRA_GEMV_FRAG_V7_SWITCH, default 1, puts v7 ahead), else to the transposed wgmma GEMM at every M (64,
 * 128 or 256 tokens per CTA as for standard weights; switch TETRA_GEMM_FRAG_BT256, default 1)
 * and, where it refuses (not sm_90a, K % 32, alignment), to the reference kernel. */
#include <math.h>

#include "../core/internal.h"
#include "../cuda/launch.h"
#include "dispatch_table.h"

/* What AUTO or a pinned path cannot do with prepared (interleaved) weights. */
static tetra_status il_refusal(tetra_gemm_path path, int64_t m, int batch_invariant) {
    return tetra_fail(TETRA_ERR_UNSUPPORTED,
                      "b: interleaved weights are read by the GEMV path (M <= 16) and the SKINNY path (M <= 64, "
                      "sm_90a, BF16/FP16 a) only, batch_invariant 0; here path %d, M = %lld, batch_invariant %d; "
                      "tetra_convert_weights back to a standard layout for this product",
                      (int)path, (long long)m, batch_invariant);
}

tetra_gemm_options tetra_gemm_options_default(void) {
    tetra_gemm_options o;
    o.alpha = 1.0f;
    o.bias = NULL;
    o.bias_dtype = TETRA_DTYPE_FP32;
    o.path = TETRA_PATH_AUTO;
    o.batch_invariant = 0;
    o.tile_m = 0;
    o.splits = 0;
    return o;
}

/* A W4A4 problem's A dequantized without its global scale into the context's staging buffer
 * (E2M1 x UE4M3 is exact in BF16, so the product is the W4A4 product; A's host global scale
 * is already in alpha): *q is p with A replaced by the BF16 copy. */
static tetra_status stage_a(const tetra_gemm_problem *p, tetra_gemm_problem *q) {
    tetra_convert_problem c;
    tetra_status st;
    void *stage;
    *q = *p;
    st = tetra_context_stage(p->ctx, (size_t)(p->m * p->k * p->batch) * 2, &stage);
    if (st != TETRA_OK) return st;
    c.rows = p->m;
    c.cols = p->k;
    c.batch = p->batch;
    c.src = p->a;
    c.src.gscale = 1.0f;
    c.dst = p->a;
    c.dst.dtype = TETRA_DTYPE_BF16;
    c.dst.data = stage;
    c.dst.ld = p->k;
    c.dst.batch_stride = p->m * p->k;
    c.dst.scales = NULL;
    c.dst.gscale_dev = NULL;
    c.mode = TETRA_GLOBAL_SCALE_SUPPLIED;
    c.ctx = p->ctx;
    if ((st = tetra_launch_dequantize(&c)) != TETRA_OK) return st;
    q->a = c.dst;
    return TETRA_OK;
}

/* The wgmma GEMM reads BF16/FP16 activations: W4A4 goes there through the staging pass. A
 * device global scale for A stays on the kernels that apply one (the mma.sync GEMM): the
 * wgmma epilogue has B's only. Checks made here avoid a wasted staging pass where the kernel
 * would refuse the problem anyway. q.pdl: the kernel after the pass may be its programmatic
 * dependent (the pass, an ordinary launch, writes only the staging buffer): the wgmma-T
 * launcher's BT-256 kernels take it (build switch TETRA_GEMM_W4A4_PDL, default 1; gemm_sm90.cu;
 * at 0, and for v6 and v7, nothing reads it: ordinary launches). */
static tetra_status launch_staged(const tetra_gemm_problem *p, tetra_status (*launch)(const tetra_gemm_problem *)) {
    tetra_gemm_problem q;
    tetra_status st;
    if (p->a.dtype != TETRA_DTYPE_NVFP4) return launch(p);
    if (p->ctx->sm_major != 9 || p->k % 32)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "wgmma GEMM: NVFP4 A needs an sm_90 device and K %% 32 == 0");
    if (p->a.gscale_dev)
        return tetra_fail(TETRA_ERR_UNSUPPORTED,
                          "wgmma GEMM: an NVFP4 A with a device global scale goes to the mma.sync kernel");
    if ((st = stage_a(p, &q)) != TETRA_OK) return st;
    q.pdl = 1;
    return launch(&q);
}
/* W4A4 decode on sm_90+: the GEMV's NVFP4-X kernel dequantizes X in every warp of every CTA
 * (0.862-0.889x the BF16-X kernel's speed at M = 1, device run 34). Here X is dequantized once
 * by the staging pass, and the BF16-X GEMV is launched as its programmatic dependent, so the
 * GEMV's weight ring fills while the pass runs. A device global scale for A, and devices
 * before sm_90, keep the NVFP4-X kernel. */
static tetra_status launch_gemv(const tetra_gemm_problem *p) {
    tetra_gemm_problem q;
    tetra_status st;
    if (p->a.dtype != TETRA_DTYPE_NVFP4 || p->a.gscale_dev || p->ctx->sm_major < 9) return tetra_launch_gemv(p);
    if ((st = stage_a(p, &q)) != TETRA_OK) return st;
    q.pdl = 1;
    return tetra_launch_gemv(&q);
}
/* both Hopper kernel families read 16-bit activations */
static tetra_status launch_wgmma(const tetra_gemm_problem *p) { return launch_staged(p, tetra_launch_gemm_wgmma); }
static tetra_status launch_wgmma_t(const tetra_gemm_problem *p) { return launch_staged(p, tetra_launch_gemm_wgmma_t); }

/* The kernel paths that read fragment-ordered weights (TETRA_SCALE_FRAGMENT_128X64). */
static int reads_fragment(tetra_gemm_path path) {
    return path == TETRA_PATH_GEMV || path == TETRA_PATH_WGMMA_T || path == TETRA_PATH_REFERENCE;
}

/* AUTO with a dispatch table (not batch-invariant): the entry that serves the problem
 * (dispatch_table.h; fragment: b is fragment-ordered, il: interleaved, which takes a GEMV
 * entry's split count only) run as a pin. 1 with its status in *st where it ran or failed
 * otherwise than by refusing; 0 where no entry serves or its path refused (p unchanged). */
static int try_table(tetra_gemm_problem *p, const tetra_matrix *a, int il, int fragment, tetra_status *st) {
    const tetra_dispatch_entry *e;
    if (!p->ctx->dispatch || p->batch_invariant) return 0;
    e = tetra_dispatch_lookup(p->ctx->dispatch, a->dtype == TETRA_DTYPE_NVFP4, fragment, p->m, p->n, p->k);
    if (!e || (il && e->path != TETRA_PATH_GEMV)) return 0;
    if (fragment && !reads_fragment(e->path)) return 0;
    p->tile_m = e->tile_m;
    p->splits = e->splits;
    *st = e->path == TETRA_PATH_GEMV         ? launch_gemv(p)
          : e->path == TETRA_PATH_MMA_SYNC   ? tetra_launch_gemm_mma(p)
          : e->path == TETRA_PATH_WGMMA      ? launch_wgmma(p)
          : e->path == TETRA_PATH_WGMMA_T    ? launch_wgmma_t(p)
                                             : TETRA_ERR_UNSUPPORTED;
    p->tile_m = p->splits = 0;
    if (*st != TETRA_ERR_UNSUPPORTED) return 1;
    tetra_clear_error();
    return 0;
}

static tetra_status check_gemm(tetra_context *ctx, const tetra_matrix *a, const tetra_matrix *b,
                               const tetra_matrix *d, const tetra_gemm_options *o) {
    tetra_status st;
    if (!ctx) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "ctx is NULL");
    if ((st = tetra_check_matrix(a, "a", TETRA_MEM_DEVICE)) != TETRA_OK) return st;
    if ((st = tetra_check_weights(b, "b", TETRA_MEM_DEVICE)) != TETRA_OK) return st;
    if ((st = tetra_check_matrix(d, "d", TETRA_MEM_DEVICE)) != TETRA_OK) return st;
    if (a->dtype != TETRA_DTYPE_NVFP4 && a->dtype != TETRA_DTYPE_BF16 &&
        a->dtype != TETRA_DTYPE_FP16)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "a.dtype must be NVFP4 (W4A4), BF16 or FP16 (W4A16)");
    if (b->dtype != TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "b.dtype must be NVFP4 (the weights)");
    if (d->dtype == TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "d.dtype must be FP32, FP16 or BF16");
    if (a->cols != b->cols)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "a.cols (K) = %lld but b.cols (K) = %lld",
                          (long long)a->cols, (long long)b->cols);
    if (a->cols % 16)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "K = %lld is not a multiple of 16",
                          (long long)a->cols);
    if (d->rows != a->rows || d->cols != b->rows)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "d is %lldx%lld but must be M x N = %lldx%lld",
                          (long long)d->rows, (long long)d->cols, (long long)a->rows,
                          (long long)b->rows);
    if (tetra_matrix_batch(a) != tetra_matrix_batch(b) ||
        tetra_matrix_batch(a) != tetra_matrix_batch(d))
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "a.batch, b.batch and d.batch differ");
    if (tetra_matrix_batch(d) > 1 && tetra_matrix_batch_stride(d) < d->rows * tetra_matrix_ld(d))
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "d.batch_stride makes batches overlap");
    if (!isfinite(o->alpha)) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "opts.alpha is not finite");
    if (o->bias) {
        if (o->bias_dtype != TETRA_DTYPE_FP32 && o->bias_dtype != TETRA_DTYPE_FP16 &&
            o->bias_dtype != TETRA_DTYPE_BF16)
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "opts.bias_dtype must be FP32, FP16 or BF16");
        if (!tetra_aligned(o->bias, tetra_dtype_bits(o->bias_dtype) / 8))
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "opts.bias is misaligned");
        if ((st = tetra_check_device_ptr(o->bias, "opts.bias")) != TETRA_OK) return st;
    }
    if (o->path < TETRA_PATH_AUTO || o->path > TETRA_PATH_SKINNY)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "opts.path %d is not a tetra_gemm_path",
                          (int)o->path);
    if (o->batch_invariant != 0 && o->batch_invariant != 1)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "opts.batch_invariant must be 0 or 1 (got %d)",
                          o->batch_invariant);
    if (o->tile_m < 0 || o->tile_m > 256)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "opts.tile_m = %d is out of range [0, 256]", o->tile_m);
    if (o->splits < 0 || o->splits > 4096)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "opts.splits = %d is out of range [0, 4096]", o->splits);
    if ((o->tile_m || o->splits) && o->path == TETRA_PATH_AUTO)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "opts.tile_m / opts.splits pin a configuration of one path: set opts.path too");
    if (o->batch_invariant && o->splits > 1)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "opts.splits = %d contradicts opts.batch_invariant (no split-K there)", o->splits);
    return TETRA_OK;
}

tetra_status tetra_gemm(tetra_context *ctx, const tetra_matrix *a, const tetra_matrix *b,
                        tetra_matrix *d, const tetra_gemm_options *opts) {
    tetra_gemm_options o = opts ? *opts : tetra_gemm_options_default();
    tetra_gemm_problem p;
    tetra_status st;
    int il;
    if ((st = check_gemm(ctx, a, b, d, &o)) != TETRA_OK) return st;
    p.m = a->rows;
    p.n = b->rows;
    p.k = a->cols;
    p.batch = tetra_matrix_batch(a);
    p.a = tetra_operand_from(a);
    p.b = tetra_operand_from(b);
    p.d_dtype = d->dtype;
    p.d = d->data;
    p.ldd = tetra_matrix_ld(d);
    p.d_batch_stride = tetra_matrix_batch_stride(d);
    /* host global scales fold into alpha; device ones stay pointers */
    p.alpha = o.alpha;
    if (a->dtype == TETRA_DTYPE_NVFP4 && !a->global_scale_dev) p.alpha *= a->global_scale;
    if (!b->global_scale_dev) p.alpha *= b->global_scale;
    if (a->dtype != TETRA_DTYPE_NVFP4) p.a.gscale_dev = NULL;
    p.bias = o.bias;
    p.bias_dtype = o.bias_dtype;
    p.batch_invariant = o.batch_invariant;
    p.tile_m = o.tile_m;
    p.splits = o.splits;
    p.pdl = 0;
    p.ctx = ctx;
    /* Prepared (interleaved) weights: only the GEMV kernels, the skinny kernel and the
     * reference kernel read them (docs/notes/gemv-prepared-weights.md, section 2); the
     * dispatch below never hands them to another launcher. */
    il = b->scale_layout == TETRA_SCALE_INTERLEAVED_32X128;
    if (il && (o.path == TETRA_PATH_MMA_SYNC || o.path == TETRA_PATH_WGMMA || o.path == TETRA_PATH_WGMMA_T ||
               o.batch_invariant || (o.path == TETRA_PATH_AUTO && p.m > 64)))
        return il_refusal(o.path, p.m, o.batch_invariant);
    /* Prepared fragment-ordered weights: the GEMV (BF16 a, or W4A4 through the staging pass;
     * K % 128 == 0; TETRA_GEMV_FRAG) at M <= 16 (on sm_90 tetra_gemv_frag_max_m_sm90(): 16
     * with the 16-byte X loads, TETRA_GEMV_FRAG_X16, run 90; 8 without, run 87), then the
     * wgmma-T GEMM on sm_90a at any M (v7, BT 64 / 128; BT 256, v10.3 / v10.8, where standard
     * weights get it, TETRA_GEMM_FRAG_BT256, run 90), else the reference kernel
     * (docs/notes/fragment-layout.md). Batch-invariant products skip the GEMV (its use depends
     * on M): the wgmma-T GEMM at 256 tokens per CTA without split-K (choose_config_t), else
     * the reference kernel. */
    if (b->scale_layout == TETRA_SCALE_FRAGMENT_128X64) {
        if (o.path != TETRA_PATH_AUTO && !reads_fragment(o.path))
            return tetra_fail(TETRA_ERR_UNSUPPORTED,
                              "b: TETRA_SCALE_FRAGMENT_128X64 weights are read by the GEMV path (M <= 16, BF16 a "
                              "or W4A4, K %% 128 == 0), the WGMMA_T path (sm_90a) and the reference path only; "
                              "here path %d; tetra_convert_weights back to a standard layout for this product",
                              (int)o.path);
        if (o.path == TETRA_PATH_REFERENCE) {
            if (p.tile_m || p.splits > 1)
                return tetra_fail(TETRA_ERR_UNSUPPORTED, "the reference path has no tile or split to pin");
            return tetra_launch_gemm_reference(&p);
        }
        if (o.path == TETRA_PATH_GEMV) return launch_gemv(&p);
        if (o.path == TETRA_PATH_WGMMA_T) return launch_wgmma_t(&p);
        if (try_table(&p, a, 0, 1, &st)) return st;
        /* the GEMV where it can take the problem (checked here as far as known, so that a
         * W4A4 problem it would refuse is not staged twice); it refuses the rest */
        if (!p.batch_invariant && p.m <= (ctx->sm_major == 9 ? tetra_gemv_frag_max_m_sm90() : 16) &&
            p.k % 128 == 0 && a->dtype != TETRA_DTYPE_FP16 && tetra_gemv_frag_auto() &&
            !(ctx->sm_major == 9 && a->dtype == TETRA_DTYPE_BF16 && p.batch == 1 &&
              tetra_gemv_frag_prefers_v7(p.m, p.n, p.k, ctx->sms, ctx->device))) {
            st = launch_gemv(&p);
            if (st != TETRA_ERR_UNSUPPORTED) return st;
            tetra_clear_error();
        }
        if (ctx->sm_major == 9) {
            st = launch_wgmma_t(&p);
            if (st != TETRA_ERR_UNSUPPORTED) return st;
            tetra_clear_error();
        }
        return tetra_launch_gemm_reference(&p);
    }
    /* 17..64 rows of prepared weights: the skinny wgmma kernel (run 50: 1.14-1.29x v7 on
     * standard weights at M = 17..32, 0.86-1.01x at M = 64). Where it refuses (not sm_90a,
     * NVFP4 a, alignment) its message, which names the argument, is returned: the product is
     * refused as before rather than run on the reference kernel. */
    if (il && o.path == TETRA_PATH_AUTO && p.m > 16) return tetra_launch_gemm_skinny(&p);

    switch (o.path) {
    case TETRA_PATH_REFERENCE:
        if (p.tile_m || p.splits > 1)
            return tetra_fail(TETRA_ERR_UNSUPPORTED, "the reference path has no tile or split to pin");
        return tetra_launch_gemm_reference(&p);
    case TETRA_PATH_GEMV: return launch_gemv(&p);
    case TETRA_PATH_MMA_SYNC: return tetra_launch_gemm_mma(&p);
    case TETRA_PATH_WGMMA: return launch_wgmma(&p);
    case TETRA_PATH_WGMMA_T: return launch_wgmma_t(&p);
    /* AUTO takes it for prepared weights at 17..64 rows (above) */
    case TETRA_PATH_SKINNY: return tetra_launch_gemm_skinny(&p);
    default: break;
    }
    if (try_table(&p, a, il, 0, &st)) return st;
    /* the GEMV/GEMM switch at M = 16 depends on M, so batch-invariant products skip the GEMV */
    if (p.m <= 16 && !p.batch_invariant) {
        st = launch_gemv(&p);
        if (st != TETRA_ERR_UNSUPPORTED) return st;
    }
    if (il) { /* the GEMV refused: only the reference kernel reads the layout too */
        tetra_clear_error();
        return tetra_launch_gemm_reference(&p);
    }
    if (ctx->sm_major == 9) {
        /* The token-tile rule (M >= 17 here): the transposed kernel (weights as wgmma's
         * register operand), whose launcher takes BT = 64 tokens per CTA for M <= 64 and
         * above that the cheaper of two tiles by a cost estimate (choose_config_t), with
         * split-K when its CTAs fill under one wave, or one to four waves where the estimate
         * saves 12%; BT 256 runs v10.1 (transform warps, shared-memory wgmma). It
         * measured 1.62-1.70x the v6 kernel at M >= 1024 (device run 20, same binary) and
         * 1.09-2.47x faster than v6's run-19 times at M = 64 and 128 (across runs); see
         * docs/notes/gemm-sm90.md, "Session 4 ladder". At M <= 128 the product streams the
         * weights, and BT 64 / 128 keeps the tensor work on real tokens. Batch-invariant
         * products keep the v6 kernel's one configuration for every M. */
        if (!p.batch_invariant) {
            st = launch_wgmma_t(&p);
            if (st != TETRA_ERR_UNSUPPORTED) return st;
        }
        st = launch_wgmma(&p);
        if (st != TETRA_ERR_UNSUPPORTED) return st;
    }
    st = tetra_launch_gemm_mma(&p);
    if (st != TETRA_ERR_UNSUPPORTED) return st;
    tetra_clear_error();
    return tetra_launch_gemm_reference(&p);
}
