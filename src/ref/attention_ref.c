/* attention_ref.c - the CPU oracle of tetra_attention_fwd: FP64 scores, exact softmax and
 * FP64 P V from exactly the BF16/FP16 inputs, one (batch, head) per work item, spread over
 * pthreads. Written for clarity, not speed: it is the source of truth. */
#include "attention_ref.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "../core/internal.h"
#include "../format/float16.h"

typedef struct {
    const tetra_attention_args *a;
    tetra_attention_ref_mode mode;
    double *o64, *lse64;
    int64_t begin, end; /* work items b * Hq + h */
    int failed;
} attn_job;

static double load_elem(const void *base, int64_t i, tetra_dtype dt) {
    uint16_t h = ((const uint16_t *)base)[i];
    return dt == TETRA_DTYPE_BF16 ? (double)tetra_bf16_to_f32(h) : (double)tetra_f16_to_f32(h);
}

static double round_to_dtype(double x, tetra_dtype dt) {
    float f = tetra_f64_to_f32_odd(x);
    return dt == TETRA_DTYPE_BF16 ? (double)tetra_bf16_to_f32(tetra_f32_to_bf16(f))
                                  : (double)tetra_f16_to_f32(tetra_f32_to_f16(f));
}

static void *run_job(void *arg) {
    attn_job *j = (attn_job *)arg;
    const tetra_attention_args *a = j->a;
    const int64_t D = a->head_dim, Nq = a->seqlen_q, Nk = a->seqlen_k, Hq = a->heads_q;
    const int64_t group = a->heads_q / a->heads_kv, offset = Nk - Nq;
    double *k = (double *)malloc((size_t)(Nk * D) * sizeof(double));
    double *v = (double *)malloc((size_t)(Nk * D) * sizeof(double));
    double *s = (double *)malloc((size_t)Nk * sizeof(double));
    double q[128], acc[128];
    if (!k || !v || !s) {
        j->failed = 1;
        free(k); free(v); free(s);
        return NULL;
    }
    for (int64_t item = j->begin; item < j->end; item++) {
        const int64_t b = item / Hq, h = item % Hq, hk = h / group;
        for (int64_t n = 0; n < Nk; n++)
            for (int64_t d = 0; d < D; d++) {
                k[n * D + d] = load_elem(a->k, b * a->k_strides[0] + n * a->k_strides[1] +
                                                   hk * a->k_strides[2] + d, a->dtype);
                v[n * D + d] = load_elem(a->v, b * a->v_strides[0] + n * a->v_strides[1] +
                                                   hk * a->v_strides[2] + d, a->dtype);
            }
        for (int64_t i = 0; i < Nq; i++) {
            /* bottom-right causal alignment: query i sees keys j <= i + Nk - Nq */
            int64_t visible = a->causal ? i + offset + 1 : Nk;
            double m = -INFINITY, l = 0.0;
            if (visible > Nk) visible = Nk;
            if (visible < 0) visible = 0;
            for (int64_t d = 0; d < D; d++) {
                q[d] = load_elem(a->q, b * a->q_strides[0] + i * a->q_strides[1] +
                                           h * a->q_strides[2] + d, a->dtype);
                acc[d] = 0.0;
            }
            for (int64_t n = 0; n < visible; n++) {
                double dot = 0.0;
                for (int64_t d = 0; d < D; d++) dot += q[d] * k[n * D + d];
                s[n] = (double)a->scale * dot;
                if (s[n] > m) m = s[n];
            }
            for (int64_t n = 0; n < visible; n++) {
                double p = exp(s[n] - m), pv = p;
                l += p;
                if (j->mode == TETRA_ATTENTION_REF_ROUND_P) pv = round_to_dtype(p, a->dtype);
                for (int64_t d = 0; d < D; d++) acc[d] += pv * v[n * D + d];
            }
            if (j->o64) {
                double *out = j->o64 + ((b * Nq + i) * Hq + h) * D;
                for (int64_t d = 0; d < D; d++) out[d] = visible ? acc[d] / l : 0.0;
            }
            if (j->lse64) j->lse64[(b * Hq + h) * Nq + i] = visible ? m + log(l) : -INFINITY;
        }
    }
    free(k); free(v); free(s);
    return NULL;
}

tetra_status tetra_attention_host(const tetra_attention_args *args, tetra_attention_ref_mode mode,
                                  double *o64, double *lse64, int threads) {
    tetra_attention_args a;
    tetra_status st;
    attn_job *jobs;
    pthread_t *tids;
    int64_t total;
    int failed = 0;
    if ((st = tetra_attention_check_shape(args, &a)) != TETRA_OK) return st;
    if (mode != TETRA_ATTENTION_REF_EXACT && mode != TETRA_ATTENTION_REF_ROUND_P)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "mode %d is not a tetra_attention_ref_mode",
                          (int)mode);
    total = a.batch * a.heads_q;
    if (threads <= 0) threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;
    if (threads > total) threads = (int)total;
    jobs = (attn_job *)calloc((size_t)threads, sizeof *jobs);
    tids = (pthread_t *)calloc((size_t)threads, sizeof *tids);
    if (!jobs || !tids) {
        free(jobs); free(tids);
        return tetra_fail(TETRA_ERR_OUT_OF_MEMORY, "attention oracle: cannot allocate threads");
    }
    for (int t = 0; t < threads; t++) {
        attn_job *j = &jobs[t];
        j->a = &a; j->mode = mode; j->o64 = o64; j->lse64 = lse64;
        j->begin = total * t / threads;
        j->end = total * (t + 1) / threads;
        if (t > 0 && pthread_create(&tids[t], NULL, run_job, j) != 0) {
            tids[t] = 0;
            run_job(j);
        }
    }
    run_job(&jobs[0]);
    for (int t = 1; t < threads; t++)
        if (tids[t]) pthread_join(tids[t], NULL);
    for (int t = 0; t < threads; t++) failed |= jobs[t].failed;
    free(jobs); free(tids);
    if (failed) return tetra_fail(TETRA_ERR_OUT_OF_MEMORY, "attention oracle: a worker ran out of memory");
    return TETRA_OK;
}
