/* errstats.c - see errstats.h. */
#include "errstats.h"

#include <math.h>
#include <stdlib.h>

#include "../format/float16.h"

static double get(const void *out, int dtype, long long i) {
    switch (dtype) {
    case TETRA_DTYPE_FP32: return ((const float *)out)[i];
    case TETRA_DTYPE_FP16: return tetra_f16_to_f32(((const uint16_t *)out)[i]);
    case TETRA_DTYPE_BF16: return tetra_bf16_to_f32(((const uint16_t *)out)[i]);
    default: return ((const double *)out)[i];
    }
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static tetra_err_stats compare(const double *ref, const void *out, int dtype, long long n,
                               double floor, int round_to) {
    tetra_err_stats s = {0};
    double num = 0, den = 0, maxref = 0;
    double *rel = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    long long nr = 0;
    for (long long i = 0; i < n; i++) maxref = fmax(maxref, fabs(ref[i]));
    s.floor = floor > 0 ? floor : 1e-3 * maxref;
    s.n = n;
    for (long long i = 0; i < n; i++) {
        double o;
        if (round_to >= 0) {
            float f = tetra_f64_to_f32_odd(ref[i]);
            o = round_to == TETRA_DTYPE_FP32   ? (double)(float)ref[i]
                : round_to == TETRA_DTYPE_FP16 ? tetra_f16_to_f32(tetra_f32_to_f16(f))
                                               : tetra_bf16_to_f32(tetra_f32_to_bf16(f));
        } else {
            o = get(out, dtype, i);
        }
        if (!isfinite(o)) {
            s.n_nonfinite++;
            continue;
        }
        double e = fabs(o - ref[i]);
        num += e * e;
        den += ref[i] * ref[i];
        if (e > s.max_abs) s.max_abs = e;
        if (fabs(ref[i]) > s.floor && rel) rel[nr++] = e / fabs(ref[i]);
    }
    s.normwise = den > 0 ? sqrt(num / den) : sqrt(num);
    s.max_rel = maxref > 0 ? s.max_abs / maxref : s.max_abs;
    s.n_above_floor = nr;
    if (nr > 0) {
        qsort(rel, (size_t)nr, sizeof(double), cmp_double);
        s.rel_p50 = rel[(nr - 1) / 2];
        s.rel_p99 = rel[(long long)((double)(nr - 1) * 0.99)];
        s.rel_max = rel[nr - 1];
    }
    if (s.n_nonfinite) s.normwise = s.max_rel = s.rel_max = INFINITY;
    free(rel);
    return s;
}

tetra_err_stats tetra_err_compare(const double *ref, const void *out, int dtype, long long n,
                                  double floor) {
    return compare(ref, out, dtype, n, floor, -1);
}

tetra_err_stats tetra_err_dtype_floor(const double *ref, tetra_dtype dtype, long long n) {
    return compare(ref, NULL, -1, n, 0, (int)dtype);
}

int tetra_err_pass(const tetra_err_stats *s, const tetra_err_stats *floor, double factor,
                   double slack) {
    if (s->n_nonfinite) return 0;
    return s->normwise <= factor * floor->normwise + slack &&
           s->max_rel <= factor * floor->max_rel + slack;
}
