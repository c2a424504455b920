/* attention_api.c - tetra_attention_fwd: validation, then src/cuda/attention.cu.
 *
 * Everything a host can check is checked here, with a message naming the argument;
 * the launcher checks only what depends on the device and the kernel (architecture,
 * the 16-byte alignment cp.async needs) and reports TETRA_ERR_UNSUPPORTED for those,
 * so TETRA_PATH auto (0) can fall back to the reference kernel. */
#include <math.h>
#include <stdint.h>

#include "../core/internal.h"
#include "../cuda/launch.h"
#include "../ref/attention_ref.h"

#define FAIL(...) tetra_fail(TETRA_ERR_INVALID_ARGUMENT, __VA_ARGS__)

/* a*b into *r without overflow (a, b >= 0); 0 on overflow. */
static int mul_ok(int64_t a, int64_t b, int64_t *r) {
    if (a != 0 && b > INT64_MAX / a) return 0;
    *r = a * b;
    return 1;
}

/* Resolve and check the strides of one [B, N, H, D] tensor. `s` in/out. */
static tetra_status check_layout(const char *name, int64_t B, int64_t N, int64_t H, int64_t D,
                                 int64_t s[3]) {
    static const char *dim_name[3] = {"B", "N", "H"};
    int64_t ext[3], contig[3], order[3], need, max_off;
    int n = 0;
    ext[0] = B; ext[1] = N; ext[2] = H;
    contig[2] = D;
    if (!mul_ok(H, D, &contig[1]) || !mul_ok(N, contig[1], &contig[0]))
        return FAIL("args.%s: the tensor [%lld, %lld, %lld, %lld] has more elements than int64 holds",
                    name, (long long)B, (long long)N, (long long)H, (long long)D);
    for (int i = 0; i < 3; i++) {
        if (s[i] < 0)
            return FAIL("args.%s_strides[%d] (the %s stride) = %lld is negative", name, i,
                        dim_name[i], (long long)s[i]);
        if (s[i] == 0) s[i] = contig[i];
    }
    /* Rows of D elements must not overlap: walk the dimensions of extent > 1 from the
     * smallest stride up; each stride must step over everything the smaller ones span.
     * This accepts any permutation of [B, N, H] ([B, H, N, D] included) and any padding. */
    for (int i = 0; i < 3; i++)
        if (ext[i] > 1) order[n++] = i;
    for (int i = 1; i < n; i++)
        /* equal strides: the higher dimension counts as inner, so the message names the
         * outer one ([B, N, H] order is the default nesting) */
        for (int j = i; j > 0 && (s[order[j]] < s[order[j - 1]] ||
                                  (s[order[j]] == s[order[j - 1]] && order[j] > order[j - 1]));
             j--) {
            int64_t t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
        }
    need = D;
    for (int i = 0; i < n; i++) {
        int d = (int)order[i];
        if (s[d] < need)
            return FAIL("args.%s_strides[%d] (the %s stride) = %lld but the layout needs >= %lld "
                        "elements (rows of head_dim elements must not overlap)",
                        name, d, dim_name[d], (long long)s[d], (long long)need);
        if (!mul_ok(s[d], ext[d], &need))
            return FAIL("args.%s_strides[%d] = %lld overflows int64 offsets", name, d,
                        (long long)s[d]);
    }
    max_off = D - 1;
    for (int i = 0; i < 3; i++) {
        int64_t t;
        if (!mul_ok(ext[i] - 1, s[i], &t) || t > INT64_MAX / 4 - max_off)
            return FAIL("args.%s_strides[%d] = %lld overflows int64 offsets", name, i,
                        (long long)s[i]);
        max_off += t;
    }
    return TETRA_OK;
}

tetra_status tetra_attention_check_shape(const tetra_attention_args *a, tetra_attention_args *out) {
    tetra_status st;
    int64_t t;
    if (!a) return FAIL("args is NULL");
    *out = *a;
    if (a->dtype != TETRA_DTYPE_BF16 && a->dtype != TETRA_DTYPE_FP16)
        return FAIL("args.dtype must be TETRA_DTYPE_BF16 or TETRA_DTYPE_FP16 (got %d)", (int)a->dtype);
    if (!a->q) return FAIL("args.q is NULL");
    if (!a->k) return FAIL("args.k is NULL");
    if (!a->v) return FAIL("args.v is NULL");
    if (!a->o) return FAIL("args.o is NULL");
    if (!tetra_aligned(a->q, 2)) return FAIL("args.q is not aligned to its 2-byte element");
    if (!tetra_aligned(a->k, 2)) return FAIL("args.k is not aligned to its 2-byte element");
    if (!tetra_aligned(a->v, 2)) return FAIL("args.v is not aligned to its 2-byte element");
    if (!tetra_aligned(a->o, 2)) return FAIL("args.o is not aligned to its 2-byte element");
    if (a->lse && !tetra_aligned(a->lse, 4)) return FAIL("args.lse is not 4-byte aligned");
    if (a->head_dim != 64 && a->head_dim != 128)
        return FAIL("args.head_dim = %lld; supported head dims are 64 and 128", (long long)a->head_dim);
    if (a->batch < 1) return FAIL("args.batch = %lld must be >= 1", (long long)a->batch);
    if (a->seqlen_q < 1) return FAIL("args.seqlen_q = %lld must be >= 1", (long long)a->seqlen_q);
    if (a->seqlen_k < 1) return FAIL("args.seqlen_k = %lld must be >= 1", (long long)a->seqlen_k);
    if (a->heads_q < 1) return FAIL("args.heads_q = %lld must be >= 1", (long long)a->heads_q);
    if (a->heads_kv < 1) return FAIL("args.heads_kv = %lld must be >= 1", (long long)a->heads_kv);
    if (a->heads_q % a->heads_kv)
        return FAIL("args.heads_kv = %lld does not divide args.heads_q = %lld", (long long)a->heads_kv,
                    (long long)a->heads_q);
    /* The kernels index rows, heads and lse entries with int64 but count CTAs and rows
     * per head in 32 bits; keep every per-dimension size well inside that. */
    if (a->seqlen_q > INT32_MAX / 2 || a->seqlen_k > INT32_MAX / 2)
        return FAIL("args.seqlen_q/seqlen_k must be < 2^30");
    if (a->heads_q > INT32_MAX / 2 || a->batch > INT32_MAX / 2)
        return FAIL("args.batch and args.heads_q must be < 2^30");
    if (!mul_ok(a->batch, a->heads_q, &t) || !mul_ok(t, a->seqlen_q, &t) || t > INT64_MAX / 8)
        return FAIL("args.batch * heads_q * seqlen_q overflows");
    if ((st = check_layout("q", a->batch, a->seqlen_q, a->heads_q, a->head_dim, out->q_strides)))
        return st;
    if ((st = check_layout("k", a->batch, a->seqlen_k, a->heads_kv, a->head_dim, out->k_strides)))
        return st;
    if ((st = check_layout("v", a->batch, a->seqlen_k, a->heads_kv, a->head_dim, out->v_strides)))
        return st;
    if ((st = check_layout("o", a->batch, a->seqlen_q, a->heads_q, a->head_dim, out->o_strides)))
        return st;
    if (!isfinite(a->scale)) return FAIL("args.scale is not finite");
    if (a->scale == 0.0f) out->scale = (float)(1.0 / sqrt((double)a->head_dim));
    if (a->causal != 0 && a->causal != 1) return FAIL("args.causal = %d must be 0 or 1", a->causal);
    if (a->path < 0 || a->path > 3)
        return FAIL("args.path = %d; valid paths are 0 auto, 1 reference, 2 mma.sync, 3 wgmma",
                    a->path);
    if (a->tile_rows != 0) {
        if (a->path != 3)
            return FAIL("args.tile_rows = %d pins a tile of path 3 (Hopper wgmma); args.path = %d",
                        a->tile_rows, a->path);
        if (a->tile_rows != 128 && !(a->tile_rows == 192 && a->head_dim == 64))
            return FAIL("args.tile_rows = %d; path 3 takes 128%s at head_dim %lld", a->tile_rows,
                        a->head_dim == 64 ? " or 192" : "", (long long)a->head_dim);
    }
    return TETRA_OK;
}

tetra_status tetra_attention_fwd(tetra_context *ctx, const tetra_attention_args *args) {
    tetra_attention_args r;
    tetra_status st;
    if (!ctx) return FAIL("ctx is NULL");
    if (!args) return FAIL("args is NULL");
    if ((st = tetra_attention_check_shape(args, &r)) != TETRA_OK) return st;
    if ((st = tetra_check_device_ptr(r.q, "args.q")) != TETRA_OK) return st;
    if ((st = tetra_check_device_ptr(r.k, "args.k")) != TETRA_OK) return st;
    if ((st = tetra_check_device_ptr(r.v, "args.v")) != TETRA_OK) return st;
    if ((st = tetra_check_device_ptr(r.o, "args.o")) != TETRA_OK) return st;
    if (r.lse && (st = tetra_check_device_ptr(r.lse, "args.lse")) != TETRA_OK) return st;
    return tetra_launch_attention(ctx, &r);
}
