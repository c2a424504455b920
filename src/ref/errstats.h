/* errstats.h - error distributions of an output against an FP64 reference (PROTOCOL.md
 * step 3): normwise, max|err|/max|ref|, and elementwise relative error p50/p99/max over
 * elements whose |ref| is above a floor. NaN or Inf in the output is counted and fails. */
#ifndef TETRA_ERRSTATS_H
#define TETRA_ERRSTATS_H

#include "tetra.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tetra_err_stats {
    double normwise;   /* ||out - ref||_2 / ||ref||_2 */
    double max_rel;    /* max|out - ref| / max|ref| */
    double max_abs;    /* max|out - ref| */
    double rel_p50, rel_p99, rel_max; /* |out-ref|/|ref| over |ref| > floor */
    double floor;      /* the floor used: 1e-3 * max|ref| unless given */
    long long n, n_above_floor, n_nonfinite;
} tetra_err_stats;

/* out: n host values of dtype (FP32/FP16/BF16) or, with dtype < 0, doubles. floor <= 0:
 * 1e-3 * max|ref|. */
tetra_err_stats tetra_err_compare(const double *ref, const void *out, int dtype, long long n,
                                  double floor);

/* Round the FP64 reference to dtype and back: the same-dtype floor of PROTOCOL.md. */
tetra_err_stats tetra_err_dtype_floor(const double *ref, tetra_dtype dtype, long long n);

/* The gate: pass iff no non-finite value and normwise <= factor * floor_normwise + slack
 * and max_rel <= factor * floor_max_rel + slack. */
int tetra_err_pass(const tetra_err_stats *s, const tetra_err_stats *floor, double factor,
                   double slack);

#ifdef __cplusplus
}
#endif
#endif
