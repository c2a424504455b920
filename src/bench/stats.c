/* stats.c - medians, the order-statistic CI of a median, block orders, the verdict rule
 * and the correctness gate (PROTOCOL.md steps 3, 5, 6). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ref/errstats.h"

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double *sorted_copy(const double *x, int n) {
    double *s = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!s) return NULL;
    memcpy(s, x, (size_t)n * sizeof(double));
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    return s;
}

double bench_quantile(const double *x, int n, double q) {
    double *s, pos, v;
    int i;
    if (n <= 0 || !(s = sorted_copy(x, n))) return NAN;
    pos = q * (double)(n - 1);
    i = (int)floor(pos);
    if (i >= n - 1) v = s[n - 1];
    else v = s[i] + (pos - (double)i) * (s[i + 1] - s[i]);
    free(s);
    return v;
}

double bench_median(const double *x, int n) { return bench_quantile(x, n, 0.5); }

void bench_median_ci(const double *x, int n, double *lo, double *hi, double *coverage) {
    double *s, cdf = 0, p_tail = 0, term;
    int j = 0;
    *lo = *hi = NAN;
    if (coverage) *coverage = 0;
    if (n <= 0 || !(s = sorted_copy(x, n))) return;
    /* P(Bin(n,1/2) <= i) accumulated term by term: C(n,i) / 2^n in logs to stay finite */
    for (int i = 0; i < n; i++) {
        term = exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
        if (cdf + term > 0.025) break;
        cdf += term;
        j = i + 1; /* ranks 1..j are allowed: P(Bin < j) <= 0.025 */
        p_tail = cdf;
    }
    if (j < 1) { /* too few blocks for a 95% interval: report the range */
        *lo = s[0];
        *hi = s[n - 1];
        if (coverage) *coverage = 1.0 - 2.0 * pow(0.5, n);
    } else {
        *lo = s[j - 1];
        *hi = s[n - j];
        if (coverage) *coverage = 1.0 - 2.0 * p_tail;
    }
    free(s);
}

void bench_block_order(int block, int order[4]) {
    int first = (block % 2 == 0) ? 0 : 1;
    order[0] = first;
    order[1] = 1 - first;
    order[2] = 1 - first;
    order[3] = first;
}

const char *bench_verdict_name(bench_verdict v) {
    switch (v) {
    case BENCH_VERDICT_FASTER: return "faster";
    case BENCH_VERDICT_SLOWER: return "slower";
    case BENCH_VERDICT_FASTER_UNREPLICATED: return "faster-unreplicated";
    case BENCH_VERDICT_SLOWER_UNREPLICATED: return "slower-unreplicated";
    default: return "within-noise";
    }
}

bench_verdict bench_call(double ci_lo, double ci_hi, double ab_ratio, double ba_ratio, double t_noise) {
    if (!isfinite(ci_lo) || !isfinite(ci_hi) || !isfinite(t_noise) || t_noise < 0)
        return BENCH_VERDICT_WITHIN_NOISE;
    if (ci_lo > 1.0 + t_noise && ab_ratio > 1.0 && ba_ratio > 1.0) return BENCH_VERDICT_FASTER;
    if (ci_hi < 1.0 - t_noise && ab_ratio < 1.0 && ba_ratio < 1.0) return BENCH_VERDICT_SLOWER;
    return BENCH_VERDICT_WITHIN_NOISE;
}

bench_verdict bench_verdict_final(bench_verdict call, double replicate_ratio) {
    if (call == BENCH_VERDICT_FASTER && replicate_ratio > 1.0) return call;
    if (call == BENCH_VERDICT_SLOWER && replicate_ratio < 1.0) return call;
    if (isnan(replicate_ratio) && call == BENCH_VERDICT_FASTER) return BENCH_VERDICT_FASTER_UNREPLICATED;
    if (isnan(replicate_ratio) && call == BENCH_VERDICT_SLOWER) return BENCH_VERDICT_SLOWER_UNREPLICATED;
    return BENCH_VERDICT_WITHIN_NOISE;
}

bench_gate bench_gate_eval(const bench_check *c) {
    bench_gate g;
    tetra_err_stats s, f;
    double slack;
    memset(&g, 0, sizeof g);
    g.applicable = 1;
    g.exact = c->exact;
    snprintf(g.method, sizeof g.method, "%s", c->method);
    g.rows_checked = c->rows_checked;
    g.rows_total = c->rows_total;
    if (c->n <= 0 || !c->ref || !c->out) {
        snprintf(g.method, sizeof g.method, "no elements compared");
        return g;
    }
    s = tetra_err_compare(c->ref, c->out, -1, c->n, 0);
    f = tetra_err_dtype_floor(c->ref, c->out_dtype, c->n);
    g.normwise = s.normwise;
    g.max_rel = s.max_rel;
    g.rel_p50 = s.rel_p50;
    g.rel_p99 = s.rel_p99;
    g.rel_max = s.rel_max;
    g.nonfinite = s.n_nonfinite;
    g.floor_normwise = f.normwise;
    g.floor_max_rel = f.max_rel;
    if (c->two_ref) {
        double maxref = 0, bound = BENCH_GATE2_FACTOR * c->same_dtype_max_abs + BENCH_GATE2_SLACK;
        for (long long i = 0; i < c->n; i++)
            if (fabs(c->ref[i]) > maxref) maxref = fabs(c->ref[i]);
        if (!(maxref > 0)) maxref = 1;
        g.floor_normwise = g.limit_normwise = NAN; /* the rule has no normwise term */
        g.floor_max_rel = c->same_dtype_max_abs / maxref;
        g.limit_max_rel = bound / maxref;
        g.pass = s.n_nonfinite == 0 && s.max_abs <= bound;
        return g;
    }
    if (c->exact) {
        g.limit_normwise = g.limit_max_rel = 0;
        g.pass = s.n_nonfinite == 0 && s.max_abs == 0;
        return g;
    }
    slack = BENCH_GATE_ACC * sqrt((double)(c->k > 0 ? c->k : 1)) * ldexp(1.0, -24);
    g.limit_normwise = BENCH_GATE_FACTOR * f.normwise + slack;
    g.limit_max_rel = BENCH_GATE_FACTOR * f.max_rel + slack;
    g.pass = tetra_err_pass(&s, &f, BENCH_GATE_FACTOR, slack);
    return g;
}

int bench_set_msg(char *msg, size_t len, const char *fmt, ...) {
    va_list ap;
    if (msg && len) {
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
    return 0;
}
