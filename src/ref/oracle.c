/* oracle.c - the CPU oracle: D = alpha * A * B^T (+bias), FP64 accumulation over
 * exactly dequantized operands. Simple on purpose: every GPU kernel is judged by it.
 *
 * Exactness: an NVFP4 element is e2m1 * ue4m3 * g. The unscaled part e2m1 * ue4m3 is
 * exact in FP32 and so is every FP16/BF16 value; the product of two FP32 values is
 * exact in FP64. So sum(a_unscaled * b_unscaled) is accumulated in FP64 from exact
 * terms, and (alpha * gA * gB) is applied once at the end in FP64. The result is then
 * rounded once to D's dtype (round-to-odd into FP32, then RNE, for FP16/BF16). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/internal.h"
#include "../format/float16.h"
#include "../format/nvfp4_codec.h"

/* Row r of batch l of an operand, unscaled (without global scale), as FP32. */
static void load_row(const tetra_matrix *m, int64_t l, int64_t r, float *out) {
    int64_t ld = tetra_matrix_ld(m), bs = tetra_matrix_batch_stride(m);
    int64_t base = l * bs + r * ld;
    if (m->dtype == TETRA_DTYPE_NVFP4) {
        const uint8_t *bytes = (const uint8_t *)m->data + base / 2;
        const uint8_t *sc = (const uint8_t *)m->scales + l * tetra_matrix_scale_batch_stride(m);
        int64_t nkb = m->cols / 16, sld = tetra_matrix_scale_ld(m);
        for (int64_t c = 0; c < m->cols; c++) {
            unsigned code = (c & 1) ? (bytes[c / 2] >> 4) : (bytes[c / 2] & 15u);
            float s = tetra_e4m3_to_float(sc[tetra_scale_offset(m->scale_layout, r, c / 16, nkb, sld)]);
            out[c] = tetra_e2m1_to_float(code) * s;
        }
        return;
    }
    for (int64_t c = 0; c < m->cols; c++) {
        int64_t i = base + c;
        switch (m->dtype) {
        case TETRA_DTYPE_FP32: out[c] = ((const float *)m->data)[i]; break;
        case TETRA_DTYPE_FP16: out[c] = tetra_f16_to_f32(((const uint16_t *)m->data)[i]); break;
        default: out[c] = tetra_bf16_to_f32(((const uint16_t *)m->data)[i]); break;
        }
    }
}

typedef struct {
    const tetra_matrix *a, *b;
    tetra_matrix *d;
    const float *a_rows; /* L*M*K unscaled A */
    double scale;        /* alpha * gA * gB */
    const float *bias;
    double *d64;
    int64_t begin, end; /* range of flattened (l, n) */
    int failed;
} job;

static void store(tetra_matrix *d, int64_t l, int64_t m, int64_t n, double v) {
    int64_t i = l * tetra_matrix_batch_stride(d) + m * tetra_matrix_ld(d) + n;
    switch (d->dtype) {
    case TETRA_DTYPE_FP32: ((float *)d->data)[i] = (float)v; break;
    case TETRA_DTYPE_FP16: ((uint16_t *)d->data)[i] = tetra_f32_to_f16(tetra_f64_to_f32_odd(v)); break;
    default: ((uint16_t *)d->data)[i] = tetra_f32_to_bf16(tetra_f64_to_f32_odd(v)); break;
    }
}

static void *run_job(void *arg) {
    job *j = (job *)arg;
    int64_t M = j->a->rows, N = j->b->rows, K = j->a->cols;
    float *brow = (float *)malloc((size_t)K * sizeof(float));
    if (!brow) {
        j->failed = 1;
        return NULL;
    }
    for (int64_t ln = j->begin; ln < j->end; ln++) {
        int64_t l = ln / N, n = ln % N;
        load_row(j->b, l, n, brow);
        for (int64_t m = 0; m < M; m++) {
            const float *arow = j->a_rows + (l * M + m) * K;
            /* four partial sums in a fixed order: deterministic, and FP64 makes the
             * order irrelevant at the precision we judge kernels by */
            double acc[4] = {0, 0, 0, 0}, v;
            int64_t k = 0;
            for (; k + 4 <= K; k += 4)
                for (int u = 0; u < 4; u++) acc[u] += (double)arow[k + u] * (double)brow[k + u];
            for (; k < K; k++) acc[0] += (double)arow[k] * (double)brow[k];
            v = j->scale * ((acc[0] + acc[1]) + (acc[2] + acc[3]));
            if (j->bias) v += (double)j->bias[n];
            if (j->d64) j->d64[(l * M + m) * N + n] = v;
            store(j->d, l, m, n, v);
        }
    }
    free(brow);
    return NULL;
}

tetra_status tetra_gemm_host(const tetra_matrix *a, const tetra_matrix *b, tetra_matrix *d,
                             float alpha, const float *bias, double *d64, int threads) {
    tetra_status st;
    int64_t L, M, N, K, total;
    float *a_rows;
    job *jobs;
    pthread_t *tids;
    double scale;
    int failed = 0;
    if ((st = tetra_check_matrix(a, "a", TETRA_MEM_HOST)) != TETRA_OK) return st;
    if ((st = tetra_check_matrix(b, "b", TETRA_MEM_HOST)) != TETRA_OK) return st;
    if ((st = tetra_check_matrix(d, "d", TETRA_MEM_HOST)) != TETRA_OK) return st;
    if (d->dtype == TETRA_DTYPE_NVFP4)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "d.dtype must be FP32, FP16 or BF16");
    if (a->global_scale_dev || b->global_scale_dev)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "%s.global_scale_dev must be NULL for the host oracle",
                          a->global_scale_dev ? "a" : "b");
    if (!isfinite(alpha)) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "alpha is not finite");
    M = a->rows;
    N = b->rows;
    K = a->cols;
    L = tetra_matrix_batch(a);
    if (b->cols != K)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "b.cols = %lld but a.cols (K) = %lld",
                          (long long)b->cols, (long long)K);
    if (d->rows != M || d->cols != N)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "d is %lldx%lld but must be %lldx%lld",
                          (long long)d->rows, (long long)d->cols, (long long)M, (long long)N);
    if (tetra_matrix_batch(b) != L || tetra_matrix_batch(d) != L)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "a, b and d must have the same batch count");
    if (L * M > ((int64_t)1 << 40) / K)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "a is too large for the host oracle");
    scale = (double)alpha;
    if (a->dtype == TETRA_DTYPE_NVFP4) scale *= (double)a->global_scale;
    if (b->dtype == TETRA_DTYPE_NVFP4) scale *= (double)b->global_scale;
    a_rows = (float *)malloc((size_t)(L * M * K) * sizeof(float));
    if (!a_rows) return tetra_fail(TETRA_ERR_OUT_OF_MEMORY, "host oracle: cannot allocate A");
    for (int64_t l = 0; l < L; l++)
        for (int64_t m = 0; m < M; m++) load_row(a, l, m, a_rows + (l * M + m) * K);
    if (threads <= 0) threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;
    total = L * N;
    if (threads > total) threads = (int)total;
    jobs = (job *)calloc((size_t)threads, sizeof *jobs);
    tids = (pthread_t *)calloc((size_t)threads, sizeof *tids);
    if (!jobs || !tids) {
        free(a_rows); free(jobs); free(tids);
        return tetra_fail(TETRA_ERR_OUT_OF_MEMORY, "host oracle: cannot allocate threads");
    }
    for (int t = 0; t < threads; t++) {
        job *j = &jobs[t];
        j->a = a; j->b = b; j->d = d; j->a_rows = a_rows; j->scale = scale;
        j->bias = bias; j->d64 = d64;
        j->begin = total * t / threads;
        j->end = total * (t + 1) / threads;
        if (t > 0 && pthread_create(&tids[t], NULL, run_job, j) != 0) run_job(j);
    }
    run_job(&jobs[0]);
    for (int t = 1; t < threads; t++) {
        if (tids[t]) pthread_join(tids[t], NULL);
        failed |= jobs[t].failed;
    }
    failed |= jobs[0].failed;
    free(a_rows); free(jobs); free(tids);
    if (failed) return tetra_fail(TETRA_ERR_OUT_OF_MEMORY, "host oracle: a worker ran out of memory");
    return TETRA_OK;
}
