/* cmd_tune.c - `tetra tune`: time every GEMM configuration the dispatcher can choose on a
 * shape set, write the fastest per shape as a dispatch table (docs/tuning.md), then score
 * that table on held-out shapes it never saw: against the best configuration an
 * exhaustive sweep finds there and against the best single fixed configuration. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/dispatch_table.h"
#include "bench/bench.h"
#include "cuda/launch.h"
#include "cli.h"

/* Every configuration a dispatch table can name. The launchers refuse those a shape
 * cannot take (the GEMV above 16 rows, the wgmma kernel off sm_90, splits beyond K), and
 * tune skips them there. */
typedef struct {
    tetra_gemm_path path;
    int tile_m, splits;
    int ck; /* v7.7 cluster-K forced (TETRA_GEMM_T_CK mode 2 while pinned), where resident */
} tune_config;
/* one wgmma_t configuration: tile bt, s splits (0: its rule), ck 1 for cluster-K */
#define WT(bt, s, ck) {TETRA_PATH_WGMMA_T, bt, s, ck}
/* one wgmma_t tile: its own split rule (0), then every pinned count 1 .. 16 (SPLIT_MAX) */
#define WGMMA_T_ALL(bt)                                                                              \
    WT(bt, 0, 0), WT(bt, 1, 0), WT(bt, 2, 0), WT(bt, 3, 0), WT(bt, 4, 0), WT(bt, 5, 0), WT(bt, 6, 0), \
        WT(bt, 7, 0), WT(bt, 8, 0), WT(bt, 9, 0), WT(bt, 10, 0), WT(bt, 11, 0), WT(bt, 12, 0),        \
        WT(bt, 13, 0), WT(bt, 14, 0), WT(bt, 15, 0), WT(bt, 16, 0)
/* ... and its split counts 2 .. 16 reduced in the cluster (v7.7, BT 64 / 128): AUTO chooses these
 * too (TETRA_GEMM_T_CK_RULE), a pinned split count runs them only under TETRA_GEMM_T_CK=2 */
#define WGMMA_T_CK(bt)                                                                               \
    WT(bt, 2, 1), WT(bt, 3, 1), WT(bt, 4, 1), WT(bt, 5, 1), WT(bt, 6, 1), WT(bt, 7, 1), WT(bt, 8, 1), \
        WT(bt, 9, 1), WT(bt, 10, 1), WT(bt, 11, 1), WT(bt, 12, 1), WT(bt, 13, 1), WT(bt, 14, 1),      \
        WT(bt, 15, 1), WT(bt, 16, 1)
static const tune_config k_configs[] = {
    {TETRA_PATH_GEMV, 0, 0, 0},    {TETRA_PATH_GEMV, 0, 1, 0},    {TETRA_PATH_GEMV, 0, 2, 0},
    {TETRA_PATH_GEMV, 0, 4, 0},    {TETRA_PATH_GEMV, 0, 8, 0},    {TETRA_PATH_GEMV, 0, 16, 0},
    {TETRA_PATH_MMA_SYNC, 0, 0, 0}, {TETRA_PATH_WGMMA, 64, 1, 0},  {TETRA_PATH_WGMMA, 64, 2, 0},
    {TETRA_PATH_WGMMA, 64, 4, 0},  {TETRA_PATH_WGMMA, 64, 8, 0},  {TETRA_PATH_WGMMA, 64, 16, 0},
    {TETRA_PATH_WGMMA, 128, 1, 0}, {TETRA_PATH_WGMMA, 128, 2, 0}, {TETRA_PATH_WGMMA, 128, 4, 0},
    {TETRA_PATH_WGMMA, 128, 8, 0}, {TETRA_PATH_WGMMA, 128, 16, 0}, {TETRA_PATH_WGMMA, 256, 1, 0},
    {TETRA_PATH_WGMMA, 256, 2, 0}, {TETRA_PATH_WGMMA, 256, 4, 0}, {TETRA_PATH_WGMMA, 64, 0, 0},
    {TETRA_PATH_WGMMA, 128, 0, 0}, {TETRA_PATH_WGMMA, 256, 0, 0},
    /* wgmma_t (v7): every split count its rule can pick at every tile, so that the sweep's best
     * is the best the rule could have chosen (session 26; until then 17 of the 48 pins) */
    WGMMA_T_ALL(256), WGMMA_T_ALL(128), WGMMA_T_ALL(64), WGMMA_T_CK(128), WGMMA_T_CK(64),
};
/* A table entry names one of the configurations whose split count is the kernel's own rule
 * (splits 0): that rule follows the tile count and K of the shape being dispatched, so an
 * entry carries over to the untuned shapes it is nearest to. A pinned split count is best
 * only for the N and K it was timed on (device run 14: the nearest-entry table built from
 * pinned splits scored 33 of 43 held-out shapes within 5% of the best, the rules alone 39). */
static int generalises(int c) { return k_configs[c].splits == 0; }
/* An exact table (--exact) names any configuration but a cluster-K pin (a pinned split runs
 * cluster-K only under the process-wide TETRA_GEMM_T_CK=2, which a table cannot set). */
static int nameable(int c) { return !k_configs[c].ck; }
/* --exact: a tuning shape gets a candidate entry where the sweep times it under this
 * fraction of AUTO's time (the sweep's ratios read a few % off between slots, docs/tuning.md),
 * and keeps it where the paired pass times the table under KEEP x AUTO (median of rounds). */
#define EXACT_CANDIDATE 0.97
#define EXACT_KEEP 0.98

/* Pins configuration c (AUTO where c < 0) in the arm's state, and the cluster-K mode with it:
 * 2 for a cluster-K configuration, else the environment's / build's (the pin dropped). */
static tetra_status pin_config(void *state, int c) {
    tetra_gemm_t_ck_pin(c >= 0 && k_configs[c].ck ? 2 : -1);
    if (c < 0) return bench_gemm_pin(state, TETRA_PATH_AUTO, 0, 0);
    return bench_gemm_pin(state, k_configs[c].path, k_configs[c].tile_m, k_configs[c].splits);
}
#define NCONF ((int)(sizeof k_configs / sizeof k_configs[0]))

typedef struct {
    const char *sets, *holdout_sets, *shapes_file, *out, *json;
    const char *score_table; /* --table: score this existing table, no tuning sweep */
    char shape_list[4096], holdout_list[4096];
    int nvfp4, samples, paired_rounds;
    int fragment; /* --weights fragment: B fragment-ordered (the -frag arms), entries ":frag" */
    int exact;    /* --exact: a "match exact" table, entries checked by a paired pass */
} tune_args;

/* The paired pass on one held-out shape: four slots timed in each round, in the order
 * below on even rounds and reversed on odd ones. Ratios are taken within a round (the same
 * seconds of clock and temperature), then their median over rounds. */
enum { PAIR_TABLE, PAIR_AUTO, PAIR_BEST, PAIR_FIXED, PAIR_SLOTS };
#define MAX_PAIRED_ROUNDS 32
typedef struct {
    int rounds;                            /* rounds timed; 0 where the pass did not run */
    double us[PAIR_SLOTS][MAX_PAIRED_ROUNDS];
    double median_us[PAIR_SLOTS];          /* per slot, over rounds */
    double vs_best[2], vs_fixed[2];        /* [PAIR_TABLE], [PAIR_AUTO]: median per-round ratio */
    double table_vs_auto;                  /* median per-round TABLE / AUTO */
    double aa;     /* median per-round best / fixed where they are one configuration, else NaN */
    double spread; /* max / min of the TABLE slot over rounds: the noise of one kernel's time */
} tune_paired;

/* One shape's sweep. us[c] is NaN where configuration c cannot run. */
typedef struct {
    bench_shape shape;
    double us[NCONF];
    tetra_status st[NCONF];
    /* the sweep's launches of this slot included v7.7 cluster-K ones (the splits reduced in
     * the cluster: AUTO's choice where it fits, pinned splits only under TETRA_GEMM_T_CK=2) */
    unsigned char ck[NCONF + 1]; /* [NCONF]: AUTO */
    int best;            /* fastest configuration that passed the gate, -1 if none */
    int pick;            /* the table entry: the fastest generalising one that passed (--exact:
                          * the fastest nameable one, where under EXACT_CANDIDATE x AUTO), or -1 */
    int kept;            /* --exact: the paired pass kept the entry (table under EXACT_KEEP x AUTO) */
    double auto_us;      /* AUTO before the new table is loaded (heuristics / shipped table) */
    double table_us;     /* AUTO with the new table (held-out shapes) */
    int table_pick;      /* the configuration the new table names, -1 if none */
    char gate_msg[200];
    tune_paired paired;  /* held-out shapes, after the fixed configuration is chosen */
} tune_row;

static void usage(FILE *f) {
    fprintf(f,
            "usage: tetra tune --out TABLE [options]\n"
            "  Times every GEMM configuration the dispatcher can choose (GEMV split counts,\n"
            "  the mma.sync kernel, wgmma tiles x split counts) on each tuning shape, writes the\n"
            "  fastest per shape as a dispatch table, then scores it on held-out shapes.\n"
            "  --set NAME[,NAME]       tuning shapes from data/shapes.txt (default tune)\n"
            "  --shape MxNxK[xL],...   explicit tuning shapes\n"
            "  --holdout-set NAME[,..] held-out shapes (default decode,seed000,glm5-tp8,moe)\n"
            "  --holdout-shape S,...   explicit held-out shapes ('none' skips scoring)\n"
            "  --a bf16|nvfp4          activations: BF16 (W4A16, default) or NVFP4 (W4A4)\n"
            "  --weights standard|fragment  weights as given (default) or fragment-ordered\n"
            "                          (TETRA_SCALE_FRAGMENT_128X64); entries serve that layout only\n"
            "  --exact                 an exact table: an entry per tuning shape where the fastest\n"
            "                          configuration beats AUTO, kept where a paired pass confirms\n"
            "                          it by 2%%; it serves that shape only, the rules the rest\n"
            "  --samples N             graph-replay samples per configuration and pass (3)\n"
            "  --paired-rounds N       rounds of the paired held-out pass, 0 skips it (4, at most 32)\n"
            "  --shapes-file F         the shapes file\n"
            "  --out TABLE             the dispatch table to write (docs/tuning.md)\n"
            "  --table FILE            score an existing table on the held-out shapes instead of\n"
            "                          tuning one (no --out, --set, --shape or --exact with it)\n"
            "  --json F                every timing and the held-out score as JSON\n"
            "Use the table with tetra_context_load_dispatch_table(), or copy it to\n"
            "data/dispatch/ to build it into tetra.\n");
}

static int parse_args(int argc, char **argv, tune_args *a) {
    memset(a, 0, sizeof *a);
    a->samples = 3;
    a->paired_rounds = 4;
    for (int i = 1; i < argc; i++) { /* argv[0] is "tune" */
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(o, "--exact")) {
            a->exact = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "tetra tune: %s needs a value (tetra tune --help)\n", o);
            return -1;
        }
        i++;
        if (!strcmp(o, "--set")) a->sets = v;
        else if (!strcmp(o, "--holdout-set")) a->holdout_sets = v;
        else if (!strcmp(o, "--shape")) snprintf(a->shape_list, sizeof a->shape_list, "%s", v);
        else if (!strcmp(o, "--holdout-shape")) snprintf(a->holdout_list, sizeof a->holdout_list, "%s", v);
        else if (!strcmp(o, "--shapes-file")) a->shapes_file = v;
        else if (!strcmp(o, "--out")) a->out = v;
        else if (!strcmp(o, "--table")) a->score_table = v;
        else if (!strcmp(o, "--json")) a->json = v;
        else if (!strcmp(o, "--a")) {
            if (!strcmp(v, "bf16")) a->nvfp4 = 0;
            else if (!strcmp(v, "nvfp4")) a->nvfp4 = 1;
            else {
                fprintf(stderr, "tetra tune: --a '%s' is not bf16 or nvfp4\n", v);
                return -1;
            }
        } else if (!strcmp(o, "--weights")) {
            if (!strcmp(v, "standard")) a->fragment = 0;
            else if (!strcmp(v, "fragment")) a->fragment = 1;
            else {
                fprintf(stderr, "tetra tune: --weights '%s' is not standard or fragment\n", v);
                return -1;
            }
        } else if (!strcmp(o, "--samples")) {
            long long n = cli_parse_count(o, v);
            if (n < 0) return -1;
            if (n > 64) {
                fprintf(stderr, "tetra tune: --samples %lld is above 64\n", n);
                return -1;
            }
            a->samples = (int)n;
        } else if (!strcmp(o, "--paired-rounds")) {
            char *end = NULL;
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 0 || n > MAX_PAIRED_ROUNDS) {
                fprintf(stderr, "tetra tune: --paired-rounds '%s' is not an integer from 0 to %d\n", v,
                        MAX_PAIRED_ROUNDS);
                return -1;
            }
            a->paired_rounds = (int)n;
        } else {
            fprintf(stderr, "tetra tune: unknown option '%s' (tetra tune --help)\n", o);
            return -1;
        }
    }
    if (a->score_table) {
        if (a->out || a->sets || a->shape_list[0] || a->exact) {
            fprintf(stderr,
                    "tetra tune: --table scores an existing table: no --out, --set, --shape or --exact with it\n");
            return -1;
        }
        a->out = a->score_table; /* the table the held-out TABLE slot loads */
    } else if (!a->out) {
        fprintf(stderr, "tetra tune: --out TABLE is required (tetra tune --help)\n");
        return -1;
    }
    if (!a->score_table && !a->sets && !a->shape_list[0]) a->sets = "tune";
    if (!a->holdout_sets && !a->holdout_list[0]) a->holdout_sets = "decode,seed000,glm5-tp8,moe";
    return 0;
}

/* Sets and explicit shapes -> list. -1 with a message on a usage error. */
static int collect(bench_shapes *v, const char *file, const char *sets, const char *list, const char *what) {
    char err[512];
    if ((sets && bench_shapes_add_sets(v, file, sets, err, sizeof err)) ||
        (list[0] && strcmp(list, "none") && bench_shapes_add_list(v, list, err, sizeof err))) {
        fprintf(stderr, "tetra tune: %s: %s\n", what, err);
        return -1;
    }
    for (int i = 0; i < v->n; i++)
        if (v->v[i].k % 16) {
            fprintf(stderr, "tetra tune: %s: K = %lld is not a multiple of 16 (the NVFP4 block)\n", what,
                    (long long)v->v[i].k);
            return -1;
        }
    return 0;
}


static int same_config(const tune_config *c, tetra_gemm_path path, int tile_m, int splits) {
    return c->path == path && c->tile_m == tile_m && c->splits == splits && !c->ck; /* tables name no cluster-K pin */
}

/* The fastest configuration that passes the PROTOCOL gate, among all (which 0), the
 * generalising ones (1) or the nameable ones (2); one that fails is marked NaN, noted,
 * and never chosen. */
static int gated_fastest(const bench_arm *arm, void *state, tune_row *r, int which) {
    char msg[512];
    for (;;) {
        int best = -1;
        bench_gate g;
        for (int c = 0; c < NCONF; c++)
            if (!isnan(r->us[c]) && (which != 1 || generalises(c)) && (which != 2 || nameable(c)) &&
                (best < 0 || r->us[c] < r->us[best]))
                best = c;
        if (best < 0) return -1;
        pin_config(state, best);
        msg[0] = 0;
        bench_gate_arm(arm, state, &g, msg, sizeof msg);
        if (g.pass) return best;
        snprintf(r->gate_msg, sizeof r->gate_msg, "config %d failed the gate (normwise %.2e, limit %.2e)", best,
                 g.normwise, g.limit_normwise);
        r->us[best] = NAN;
    }
}

/* One slot's time: configuration c pinned, or AUTO (c < 0); with the new table (a->out)
 * loaded if `table`, and the built-in table back afterwards. NaN where it cannot run. */
static double time_slot(bench_session *s, const bench_arm *arm, const tune_args *a, void *state, int c, int table) {
    double us;
    if (table && tetra_context_load_dispatch_table(s->env.ctx, a->out) != TETRA_OK) return NAN;
    pin_config(state, c);
    us = bench_time_calls(s, arm, state, a->samples);
    if (table) tetra_context_load_dispatch_table(s->env.ctx, NULL);
    return us;
}

static void paired_reset(tune_paired *p) {
    p->rounds = 0;
    for (int j = 0; j < PAIR_SLOTS; j++) {
        p->median_us[j] = NAN;
        for (int k = 0; k < MAX_PAIRED_ROUNDS; k++) p->us[j][k] = NAN;
    }
    p->vs_best[0] = p->vs_best[1] = p->vs_fixed[0] = p->vs_fixed[1] = p->aa = p->spread = NAN;
    p->table_vs_auto = NAN;
}

/* Time every configuration on one shape, and AUTO (as the context dispatches now; for
 * held-out shapes also under the new table) in the same two passes, forward then backward:
 * every slot's mean position in the sequence is the same, so drift (clocks, temperature)
 * does not favour the slots timed first, and AUTO is timed in the same regime as the
 * configurations it is scored against (session 9 timed it after the gate, alone, and at
 * 8192^3 one configuration's time moved 13% between such isolated timings). Each slot's
 * time is the mean of its two passes' medians. Then the gate on the fastest configuration,
 * falling back to the next if it fails. */
enum { SLOT_AUTO = NCONF, SLOT_TABLE = NCONF + 1, NSLOTS = NCONF + 2 };
static int sweep(bench_session *s, const bench_arm *arm, const tune_args *a, tune_row *r,
                 const tetra_dispatch_table *scored) {
    void *state = NULL;
    char msg[512];
    double samples[NSLOTS][2];
    int rc;
    r->best = r->pick = r->table_pick = -1;
    r->kept = 0;
    r->auto_us = r->table_us = NAN;
    r->gate_msg[0] = 0;
    paired_reset(&r->paired);
    for (int c = 0; c < NCONF; c++) { /* what a row reports if setup fails */
        r->us[c] = NAN;
        r->st[c] = TETRA_ERR_UNSUPPORTED;
    }
    rc = arm->setup(&s->env, &r->shape, &state, msg, sizeof msg);
    if (rc != BENCH_OK) {
        snprintf(r->gate_msg, sizeof r->gate_msg, "setup: %.180s", msg);
        return -1;
    }
    for (int c = 0; c < NCONF; c++)
        r->st[c] = pin_config(state, c);
    for (int c = 0; c < NSLOTS; c++) samples[c][0] = samples[c][1] = NAN;
    memset(r->ck, 0, sizeof r->ck);
    if (scored) {
        const tetra_dispatch_entry *e =
            tetra_dispatch_lookup(scored, a->nvfp4, a->fragment, r->shape.m, r->shape.n, r->shape.k);
        for (int c = 0; e && c < NCONF; c++)
            if (same_config(&k_configs[c], e->path, e->tile_m, e->splits)) r->table_pick = c;
    }
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < NSLOTS; j++) {
            const int c = pass ? NSLOTS - 1 - j : j;
            /* skip a configuration the launchers refuse, and the table slot off held-out shapes */
            if (c < NCONF ? r->st[c] != TETRA_OK : c == SLOT_TABLE && !scored) continue;
            const long long ck0 = tetra_gemm_t_ck_launches();
            samples[c][pass] = time_slot(s, arm, a, state, c < NCONF ? c : -1, c == SLOT_TABLE);
            if (c <= SLOT_AUTO && tetra_gemm_t_ck_launches() > ck0) r->ck[c] = 1;
        }
    for (int c = 0; c < NCONF; c++)
        if (r->st[c] == TETRA_OK && samples[c][0] > 0 && samples[c][1] > 0)
            r->us[c] = 0.5 * (samples[c][0] + samples[c][1]);
    if (samples[SLOT_AUTO][0] > 0 && samples[SLOT_AUTO][1] > 0)
        r->auto_us = 0.5 * (samples[SLOT_AUTO][0] + samples[SLOT_AUTO][1]);
    if (samples[SLOT_TABLE][0] > 0 && samples[SLOT_TABLE][1] > 0)
        r->table_us = 0.5 * (samples[SLOT_TABLE][0] + samples[SLOT_TABLE][1]);
    /* the gate: fastest first; a configuration that fails it is never chosen */
    r->pick = gated_fastest(arm, state, r, a->exact ? 2 : 1);
    r->best = gated_fastest(arm, state, r, 0);
    if (a->exact && r->pick >= 0 && !(r->us[r->pick] < EXACT_CANDIDATE * r->auto_us)) r->pick = -1;
    tetra_gemm_t_ck_pin(-1);
    arm->teardown(state);
    return 0;
}

/* Median of the finite values among v[0 .. n-1]; NaN if none. */
static double finite_median(const double *v, int n) {
    double f[MAX_PAIRED_ROUNDS];
    int m = 0;
    for (int k = 0; k < n; k++)
        if (isfinite(v[k])) f[m++] = v[k];
    return m ? bench_median(f, m) : NAN;
}

/* Median over rounds of num[k] / den[k] (a round where either is missing is left out). */
static double paired_ratio(const double *num, const double *den, int n) {
    double q[MAX_PAIRED_ROUNDS];
    for (int k = 0; k < n; k++) q[k] = num[k] / den[k];
    return finite_median(q, n);
}

/* The paired pass on one held-out row (after `fixed` is chosen): the arm set up again,
 * then TABLE, AUTO, the row's best and the fixed configuration timed in each of
 * a->paired_rounds rounds, the order reversed every other round (ABCD, DCBA, ...) so that
 * each slot's mean position is the same. A slot that is the same configuration as another
 * is still timed on its own: best == fixed gives an A/A reading of the noise. */
static void paired_pass(bench_session *s, const bench_arm *arm, const tune_args *a, tune_row *r, int fixed) {
    const int conf[PAIR_SLOTS] = {-1, -1, r->best, fixed}; /* -1: AUTO */
    tune_paired *p = &r->paired;
    void *state = NULL;
    char msg[512];
    double lo = INFINITY, hi = 0;
    paired_reset(p);
    if (arm->setup(&s->env, &r->shape, &state, msg, sizeof msg) != BENCH_OK) {
        const size_t len = strlen(r->gate_msg); /* after the sweep's note, if any */
        snprintf(r->gate_msg + len, sizeof r->gate_msg - len, "%spaired setup: %s", len ? "; " : "", msg);
        return;
    }
    for (int k = 0; k < a->paired_rounds; k++)
        for (int j = 0; j < PAIR_SLOTS; j++) {
            const int slot = k % 2 ? PAIR_SLOTS - 1 - j : j;
            if (slot == PAIR_FIXED && fixed < 0) continue;
            p->us[slot][k] = time_slot(s, arm, a, state, conf[slot], slot == PAIR_TABLE);
        }
    tetra_gemm_t_ck_pin(-1);
    arm->teardown(state);
    p->rounds = a->paired_rounds;
    for (int j = 0; j < PAIR_SLOTS; j++) p->median_us[j] = finite_median(p->us[j], p->rounds);
    for (int d = PAIR_TABLE; d <= PAIR_AUTO; d++) {
        p->vs_best[d] = paired_ratio(p->us[d], p->us[PAIR_BEST], p->rounds);
        p->vs_fixed[d] = paired_ratio(p->us[d], p->us[PAIR_FIXED], p->rounds);
    }
    p->table_vs_auto = paired_ratio(p->us[PAIR_TABLE], p->us[PAIR_AUTO], p->rounds);
    if (r->best == fixed) p->aa = paired_ratio(p->us[PAIR_BEST], p->us[PAIR_FIXED], p->rounds);
    for (int k = 0; k < p->rounds; k++)
        if (p->us[PAIR_TABLE][k] > 0) {
            lo = fmin(lo, p->us[PAIR_TABLE][k]);
            hi = fmax(hi, p->us[PAIR_TABLE][k]);
        }
    if (hi > 0) p->spread = hi / lo;
}

static const char *config_name(int c, char *buf, size_t len) {
    if (c < 0) return "none";
    snprintf(buf, len, "%s%s/%d/%d", tetra_dispatch_path_name(k_configs[c].path), k_configs[c].ck ? "_ck" : "",
             k_configs[c].tile_m, k_configs[c].splits);
    return buf;
}

static int write_table(const char *path, const tune_args *a, const bench_session *s, const tune_row *rows, int n,
                       const char *commit, const char *date) {
    bench_json_writer w; /* used as a string builder; written atomically like every results file */
    int rc;
    bjw_init(&w);
    if (a->exact)
        bjw_raw(&w, "# written by tetra tune --exact (docs/tuning.md): per tuning shape, the fastest configuration\n"
                      "# where a paired pass timed it under 0.98x AUTO's time; it serves that shape only\n");
    else
        bjw_raw(&w, "# written by tetra tune (docs/tuning.md): per shape, the fastest configuration that uses\n"
                      "# the kernel's own split rule (splits 0)\n");
    bjw_raw(&w, "tetra-dispatch-table 1\n");
    bjw_rawf(&w, "device %s\n", s->info.name);
    bjw_rawf(&w, "sm %d%d\n", s->info.major, s->info.minor);
    bjw_rawf(&w, "driver %d\n", s->info.driver_version);
    bjw_rawf(&w, "commit %s\n", commit);
    bjw_rawf(&w, "date %s\n", date);
    bjw_rawf(&w, "tuned-on %s%s%s\n", a->sets ? a->sets : "", a->sets && a->shape_list[0] ? "," : "", a->shape_list);
    bjw_rawf(&w, "match %s\n", a->exact ? "exact" : "nearest");
    bjw_raw(&w, "# a m n k path tile_m splits us\n");
    for (int i = 0; i < n; i++) {
        const tune_row *r = &rows[i];
        if (r->pick < 0 || (a->exact && !r->kept)) continue;
        if (r->shape.l != 1) continue; /* tables key on M, N, K; batched shapes are tuned but not written */
        bjw_rawf(&w, "entry %s%s %lld %lld %lld %s %d %d %.2f\n", a->nvfp4 ? "nvfp4" : "bf16",
                 a->fragment ? ":frag" : "", (long long)r->shape.m,
                 (long long)r->shape.n, (long long)r->shape.k, tetra_dispatch_path_name(k_configs[r->pick].path),
                 k_configs[r->pick].tile_m, k_configs[r->pick].splits, r->us[r->pick]);
    }
    rc = w.failed || bench_write_atomic(path, w.buf, w.len) ? -1 : 0;
    bjw_free(&w);
    return rc;
}

/* The progress bar's label for one shape. */
static const char *step_label(char *buf, size_t len, const char *what, const bench_shape *sh) {
    snprintf(buf, len, "%s %lldx%lldx%lldx%lld", what, (long long)sh->m, (long long)sh->n, (long long)sh->k,
             (long long)sh->l);
    return buf;
}

/* --exact: each candidate entry (r->pick) checked by the paired pass on its own shape, the
 * candidates written as the table that the TABLE slot loads (exact: it serves that shape
 * only), AUTO as before it, the best configuration and no fixed one; an entry is kept where
 * the table's median per-round time is under EXACT_KEEP x AUTO's. -1 if the candidates
 * cannot be written. */
static int check_exact(bench_session *s, const bench_arm *arm, const tune_args *a, tune_row *rows, int n,
                       const char *commit, const char *date) {
    char b[64];
    int cand = 0, kept = 0;
    tune_args pa = *a;
    if (!pa.paired_rounds) pa.paired_rounds = 4; /* the check is not optional */
    for (int i = 0; i < n; i++) {
        rows[i].kept = rows[i].pick >= 0 && rows[i].shape.l == 1;
        cand += rows[i].kept;
    }
    if (!cand) return 0;
    if (write_table(a->out, a, s, rows, n, commit, date)) {
        fprintf(stderr, "tetra tune: cannot write %s: %s\n", a->out, strerror(errno));
        return -1;
    }
    printf("exact entries: %d candidates (under %.2fx AUTO in the sweep), paired %d rounds each "
           "(table, AUTO, best), kept under %.2fx AUTO\n",
           cand, EXACT_CANDIDATE, pa.paired_rounds, EXACT_KEEP);
    for (int i = 0, done = 0; i < n; i++) {
        tune_row *r = &rows[i];
        if (!r->kept) continue;
        cli_progress(done++, cand, step_label(b, sizeof b, "exact", &r->shape));
        paired_pass(s, arm, &pa, r, -1);
        r->kept = r->paired.table_vs_auto < EXACT_KEEP;
        kept += r->kept;
        printf("  exact   %6lldx%6lldx%6lld  %-14s table %10.2f us  AUTO %10.2f us  x%.3f  spread x%.3f  %s\n",
               (long long)r->shape.m, (long long)r->shape.n, (long long)r->shape.k, config_name(r->pick, b, sizeof b),
               r->paired.median_us[PAIR_TABLE], r->paired.median_us[PAIR_AUTO], r->paired.table_vs_auto,
               r->paired.spread, r->kept ? "kept" : "dropped");
    }
    cli_progress(cand, cand, "");
    printf("exact entries kept: %d of %d\n", kept, cand);
    return 0;
}

/* A dispatcher's score on the held-out shapes: with the new table (who == PAIR_TABLE) or
 * as AUTO dispatched before it was loaded (PAIR_AUTO). From the sweep (its two-pass times,
 * table_us or auto_us over us[best] and us[fixed]) or, if `paired`, from the paired pass
 * (the median of per-round ratios). A row counts where the new table was timed. */
typedef struct {
    int n, within5, within2_fixed;
    double worst, geomean;
} tune_score;

static tune_score score_held_out(const tune_row *hr, int n, int fixed, int who, int paired) {
    tune_score sc = {0, 0, 0, 0, 0};
    double lg = 0;
    for (int i = 0; i < n; i++) {
        const tune_row *r = &hr[i];
        const double t = who == PAIR_TABLE ? r->table_us : r->auto_us;
        double vb, vf;
        if (r->best < 0 || isnan(r->table_us) || (paired && isnan(r->paired.vs_best[PAIR_TABLE]))) continue;
        vb = paired ? r->paired.vs_best[who] : t / r->us[r->best];
        vf = paired ? r->paired.vs_fixed[who] : fixed >= 0 ? t / r->us[fixed] : NAN;
        if (isnan(vb)) continue;
        sc.n++;
        sc.within5 += vb <= 1.05;
        sc.within2_fixed += !(vf > 1.02);
        sc.worst = fmax(sc.worst, vb);
        lg += log(vb);
    }
    sc.geomean = sc.n ? exp(lg / sc.n) : NAN;
    return sc;
}

static void print_score(const char *what, const tune_score *sc, int fixed) {
    char b[64];
    if (!sc->n) return;
    printf("%s: %d/%d within 5%% of the best configuration (worst x%.3f, geomean x%.3f); "
           "%d/%d no more than 2%% slower than the best fixed configuration %s\n",
           what, sc->within5, sc->n, sc->worst, sc->geomean, sc->within2_fixed, sc->n, config_name(fixed, b, sizeof b));
}

static void json_score(bench_json_writer *w, const char *key, const tune_score *sc) {
    bjw_obj(w, key);
    bjw_int(w, "scored", sc->n);
    bjw_int(w, "within5_of_best", sc->within5);
    bjw_int(w, "within2_of_fixed", sc->within2_fixed);
    bjw_num(w, "worst", sc->worst);
    bjw_num(w, "geomean", sc->geomean);
    bjw_obj_end(w);
}

/* The paired pass of one row: per slot its per-round times and their median, the paired
 * ratios (medians of per-round ratios), the A/A reading and the TABLE slot's spread. */
static void json_paired(bench_json_writer *w, const tune_paired *p) {
    static const char *const slot_names[PAIR_SLOTS] = {"table", "auto", "best", "fixed"};
    if (!p->rounds) {
        bjw_null(w, "paired");
        return;
    }
    bjw_obj(w, "paired");
    for (int j = 0; j < PAIR_SLOTS; j++) {
        bjw_obj(w, slot_names[j]);
        bjw_arr(w, "round_us");
        for (int k = 0; k < p->rounds; k++) bjw_num(w, NULL, p->us[j][k]);
        bjw_arr_end(w);
        bjw_num(w, "median_us", p->median_us[j]);
        bjw_obj_end(w);
    }
    bjw_num(w, "table_vs_best", p->vs_best[PAIR_TABLE]);
    bjw_num(w, "table_vs_fixed", p->vs_fixed[PAIR_TABLE]);
    bjw_num(w, "auto_vs_best", p->vs_best[PAIR_AUTO]);
    bjw_num(w, "auto_vs_fixed", p->vs_fixed[PAIR_AUTO]);
    bjw_num(w, "table_vs_auto", p->table_vs_auto);
    bjw_num(w, "aa_best_vs_fixed", p->aa);
    bjw_num(w, "table_spread", p->spread);
    bjw_obj_end(w);
}

static void json_rows(bench_json_writer *w, const char *key, const tune_row *rows, int n) {
    char b[64];
    bjw_arr(w, key);
    for (int i = 0; i < n; i++) {
        const tune_row *r = &rows[i];
        bjw_obj(w, NULL);
        bench_write_shape(w, "shape", &r->shape);
        bjw_arr(w, "configs");
        for (int c = 0; c < NCONF; c++) {
            bjw_obj(w, NULL);
            bjw_str(w, "config", config_name(c, b, sizeof b));
            bjw_num(w, "us", r->us[c]);
            bjw_str(w, "status", tetra_status_string(r->st[c]));
            bjw_bool(w, "cluster_k", r->ck[c]);
            bjw_obj_end(w);
        }
        bjw_arr_end(w);
        bjw_str(w, "best", config_name(r->best, b, sizeof b));
        bjw_num(w, "best_us", r->best >= 0 ? r->us[r->best] : NAN);
        bjw_str(w, "pick", config_name(r->pick, b, sizeof b));
        bjw_num(w, "pick_us", r->pick >= 0 ? r->us[r->pick] : NAN);
        bjw_bool(w, "kept", r->kept);
        bjw_num(w, "auto_us", r->auto_us);
        bjw_bool(w, "auto_cluster_k", r->ck[NCONF]);
        bjw_num(w, "table_us", r->table_us);
        bjw_str(w, "table_pick", config_name(r->table_pick, b, sizeof b));
        bjw_str(w, "note", r->gate_msg);
        bjw_int(w, "paired_rounds", r->paired.rounds);
        json_paired(w, &r->paired);
        bjw_obj_end(w);
    }
    bjw_arr_end(w);
}

int cmd_tune(int argc, char **argv) {
    tune_args a;
    bench_shapes train = {0}, held = {0};
    bench_session s;
    tune_row *tr = NULL, *hr = NULL;
    char file[4096], msg[512], commit[64], date[64], b1[64], b2[64], what[96];
    const bench_arm *arm;
    tetra_dispatch_table table = {0};
    int rc = 1, fixed = -1, ship = 0, use_paired = 0, steps;
    double fixed_geo = INFINITY;
    tune_score score_table = {0, 0, 0, 0, 0}, score_before = {0, 0, 0, 0, 0};
    tune_score paired_table = {0, 0, 0, 0, 0}, paired_before = {0, 0, 0, 0, 0};

    if (parse_args(argc, argv, &a)) return 2;
    /* line-buffered even into a file: a run cut short by a time limit keeps the shapes it
     * finished (device run 12 lost all of them to block buffering) */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (bench_find_shapes_file(a.shapes_file, file, sizeof file) && (a.sets || a.holdout_sets)) {
        fprintf(stderr, "tetra tune: no shapes file found (--shapes-file F or $TETRA_SHAPES)\n");
        return 2;
    }
    if (collect(&train, file, a.sets, a.shape_list, "tuning shapes") ||
        collect(&held, file, strcmp(a.holdout_list, "none") ? a.holdout_sets : NULL, a.holdout_list,
                "held-out shapes"))
        goto usage_fail;
    if (train.n == 0 && !a.score_table) {
        fprintf(stderr, "tetra tune: no tuning shapes\n");
        goto usage_fail;
    }
    if (a.score_table) { /* a bad table file is a usage error, found before any device work */
        if (held.n == 0) {
            fprintf(stderr, "tetra tune: --table needs held-out shapes to score it on\n");
            goto usage_fail;
        }
        if (tetra_dispatch_load(a.out, &table, msg, sizeof msg)) {
            fprintf(stderr, "tetra tune: --table: %s\n", msg);
            goto usage_fail;
        }
    }
    if ((!a.score_table && bench_check_writable(a.out, msg, sizeof msg)) ||
        (a.json && bench_check_writable(a.json, msg, sizeof msg))) {
        fprintf(stderr, "tetra tune: %s\n", msg);
        goto usage_fail;
    }
    arm = bench_arm_find(a.nvfp4 ? (a.fragment ? "tetra-gemm-w4a4-frag" : "tetra-gemm-w4a4")
                                 : (a.fragment ? "tetra-gemm-frag" : "tetra-gemm"));
    if (bench_session_open(&s, 1, msg, sizeof msg) != BENCH_OK) {
        fprintf(stderr, "tetra tune: %s\n", msg);
        goto done;
    }
    bench_iso_date(date, sizeof date);
    bench_git_commit(commit, sizeof commit);
    tr = (tune_row *)calloc((size_t)(train.n ? train.n : 1), sizeof *tr);
    hr = (tune_row *)calloc((size_t)(held.n ? held.n : 1), sizeof *hr);
    if (!tr || !hr) {
        fprintf(stderr, "tetra tune: out of host memory\n");
        goto close;
    }
    /* progress steps: the tuning sweeps, the held-out sweeps, the paired pass */
    steps = train.n + held.n + (a.paired_rounds ? held.n : 0);
    printf("tetra tune on %s: %d tuning shapes, %d held-out, %d configurations, %s activations\n", s.info.name,
           train.n, held.n, NCONF, a.nvfp4 ? "NVFP4" : "BF16");
    for (int i = 0; i < train.n; i++) {
        tr[i].shape = train.v[i];
        cli_progress(i, steps, step_label(what, sizeof what, "tune", &tr[i].shape));
        sweep(&s, arm, &a, &tr[i], NULL);
        printf("  tune    %6lldx%6lldx%6lld  entry %-14s %10.2f us  best %-14s %10.2f us%s  (AUTO now %.2f us%s) %s\n",
               (long long)tr[i].shape.m, (long long)tr[i].shape.n, (long long)tr[i].shape.k,
               config_name(tr[i].pick, b2, sizeof b2), tr[i].pick >= 0 ? tr[i].us[tr[i].pick] : NAN,
               config_name(tr[i].best, b1, sizeof b1), tr[i].best >= 0 ? tr[i].us[tr[i].best] : NAN,
               tr[i].best >= 0 && tr[i].ck[tr[i].best] ? " cluster-K" : "", tr[i].auto_us,
               tr[i].ck[NCONF] ? " cluster-K" : "", tr[i].gate_msg);
    }
    if (a.exact && !a.score_table && check_exact(&s, arm, &a, tr, train.n, commit, date)) goto close;
    if (a.score_table) {
        printf("scoring %s (no tuning sweep)\n", a.out);
    } else if (write_table(a.out, &a, &s, tr, train.n, commit, date)) {
        fprintf(stderr, "tetra tune: cannot write %s: %s\n", a.out, strerror(errno));
        goto close;
    } else {
        printf("wrote %s\n", a.out);
    }
    if (held.n && !a.score_table && tetra_dispatch_load(a.out, &table, msg, sizeof msg)) {
        fprintf(stderr, "tetra tune: %s\n", msg);
        goto close;
    }
    for (int i = 0; i < held.n; i++) {
        hr[i].shape = held.v[i];
        cli_progress(train.n + i, steps, step_label(what, sizeof what, "held-out", &hr[i].shape));
        sweep(&s, arm, &a, &hr[i], &table);
    }
    cli_progress(steps, steps, ""); /* cleared while the sweep's held-out lines print */
    /* the best single fixed configuration: runs on every held-out shape, least geomean
     * of time / best */
    for (int c = 0; c < NCONF && held.n; c++) {
        double lg = 0;
        int ok = 1;
        for (int i = 0; i < held.n && ok; i++) {
            if (isnan(hr[i].us[c]) || hr[i].best < 0) ok = 0;
            else lg += log(hr[i].us[c] / hr[i].us[hr[i].best]);
        }
        if (ok && lg / held.n < fixed_geo) {
            fixed_geo = lg / held.n;
            fixed = c;
        }
    }
    if (held.n) {
        printf("held-out, sweep: table (AUTO with the new table) vs best configuration, vs fixed %s\n",
               config_name(fixed, b1, sizeof b1));
        for (int i = 0; i < held.n; i++) {
            const tune_row *r = &hr[i];
            if (r->best < 0 || isnan(r->table_us)) {
                printf("  %6lldx%6lldx%6lld  not scored %s\n", (long long)r->shape.m, (long long)r->shape.n,
                       (long long)r->shape.k, r->gate_msg);
                continue;
            }
            printf("  %6lldx%6lldx%6lld  table %10.2f us (pick %-16s) best %-16s %10.2f us  x%.3f  vs fixed x%.3f"
                   "  AUTO-before %.2f us\n",
                   (long long)r->shape.m, (long long)r->shape.n, (long long)r->shape.k, r->table_us,
                   config_name(r->table_pick, b1, sizeof b1), config_name(r->best, b2, sizeof b2), r->us[r->best],
                   r->table_us / r->us[r->best], fixed >= 0 ? r->table_us / r->us[fixed] : NAN, r->auto_us);
        }
    }
    if (held.n && a.paired_rounds) {
        printf("held-out, paired: %d rounds of table, AUTO, best, fixed %s (order reversed every other round); "
               "medians over rounds\n",
               a.paired_rounds, config_name(fixed, b1, sizeof b1));
        for (int i = 0; i < held.n; i++) {
            tune_row *r = &hr[i];
            const tune_paired *p = &r->paired;
            if (r->best < 0 || isnan(r->table_us)) continue; /* not scored (above) */
            cli_progress(train.n + held.n + i, steps, step_label(what, sizeof what, "paired", &r->shape));
            paired_pass(&s, arm, &a, r, fixed);
            if (!p->rounds) {
                printf("  %6lldx%6lldx%6lld  not paired: %s\n", (long long)r->shape.m, (long long)r->shape.n,
                       (long long)r->shape.k, r->gate_msg);
                continue;
            }
            printf("  %6lldx%6lldx%6lld  table %10.2f us  best %10.2f us  fixed %10.2f us  x%.3f  vs fixed x%.3f"
                   "  AUTO x%.3f  spread x%.3f",
                   (long long)r->shape.m, (long long)r->shape.n, (long long)r->shape.k, p->median_us[PAIR_TABLE],
                   p->median_us[PAIR_BEST], p->median_us[PAIR_FIXED], p->vs_best[PAIR_TABLE],
                   p->vs_fixed[PAIR_TABLE], p->vs_best[PAIR_AUTO], p->spread);
            if (!isnan(p->aa)) printf("  A/A (best is fixed) x%.3f", p->aa);
            printf("\n");
        }
        cli_progress(steps, steps, "");
    }
    if (held.n) {
        const tune_score *vt, *vb;
        score_table = score_held_out(hr, held.n, fixed, PAIR_TABLE, 0);
        score_before = score_held_out(hr, held.n, fixed, PAIR_AUTO, 0);
        print_score("held-out score (sweep), new table", &score_table, fixed);
        print_score("held-out score (sweep), AUTO before it", &score_before, fixed);
        if (a.paired_rounds) {
            paired_table = score_held_out(hr, held.n, fixed, PAIR_TABLE, 1);
            paired_before = score_held_out(hr, held.n, fixed, PAIR_AUTO, 1);
            print_score("held-out score (paired), new table", &paired_table, fixed);
            print_score("held-out score (paired), AUTO before it", &paired_before, fixed);
        }
        /* the verdict on the paired scores where the paired pass scored any shape: its
         * ratios compare timings taken seconds apart, the sweep's up to a pass apart */
        use_paired = paired_table.n > 0;
        vt = use_paired ? &paired_table : &score_table;
        vb = use_paired ? &paired_before : &score_before;
        ship = vt->n > 0 && vt->within5 >= vb->within5 && vt->within2_fixed >= vb->within2_fixed &&
               vt->geomean <= vb->geomean;
        printf("verdict (%s scores): %s\n", use_paired ? "paired" : "sweep",
               ship ? "the new table is no worse than AUTO before it on every count: ship it"
                    : "the new table loses to AUTO before it on some count: do not ship it");
    }
    if (a.json) {
        bench_json_writer w;
        bjw_init(&w);
        bjw_obj(&w, NULL);
        bjw_str(&w, "kind", "tune");
        bjw_str(&w, "tool", "tetra tune");
        bjw_str(&w, "commit", commit);
        bjw_str(&w, "date", date);
        bjw_str(&w, "device", s.info.name);
        bjw_int(&w, "driver", s.info.driver_version);
        bjw_str(&w, "activations", a.nvfp4 ? "nvfp4" : "bf16");
        bjw_str(&w, "table", a.out);
        bjw_str(&w, "timing", "CUDA-graph replays, two passes (forward, backward) over every configuration and AUTO (and AUTO with the new table on held-out shapes), mean of the passes' medians");
        bjw_str(&w, "paired_timing", "held-out shapes after the fixed configuration is chosen: table, AUTO, best, fixed timed in each round, order reversed every other round; ratios per round, median over rounds");
        bjw_int(&w, "paired_rounds", a.paired_rounds);
        bjw_str(&w, "fixed_config", config_name(fixed, b1, sizeof b1));
        bjw_int(&w, "cluster_k_mode", tetra_gemm_t_ck_mode());
        /* clusters of S CTAs (S = 2 .. 16) resident at once, by tile: what decides whether
         * AUTO's split count takes cluster-K (t_ck_takes) */
        bjw_obj(&w, "cluster_k_resident");
        for (int bt = 64; bt <= 128; bt *= 2) {
            bjw_arr(&w, bt == 64 ? "64" : "128");
            for (int sp = 2; sp <= 16; sp++) bjw_int(&w, NULL, tetra_gemm_t_ck_resident_clusters(bt, sp));
            bjw_arr_end(&w);
        }
        bjw_obj_end(&w);
        if (held.n) {
            json_score(&w, "score_table", &score_table);
            json_score(&w, "score_before", &score_before);
            if (a.paired_rounds) {
                json_score(&w, "paired_score", &paired_table);
                json_score(&w, "paired_score_before", &paired_before);
            }
            bjw_str(&w, "verdict_scores", use_paired ? "paired" : "sweep");
            bjw_bool(&w, "ship", ship);
        }
        json_rows(&w, "tuned", tr, train.n);
        json_rows(&w, "held_out", hr, held.n);
        bjw_obj_end(&w);
        if (w.failed || bench_write_atomic(a.json, w.buf, w.len)) {
            fprintf(stderr, "tetra tune: cannot write %s: %s\n", a.json, strerror(errno));
            bjw_free(&w);
            goto close;
        }
        bjw_free(&w);
        printf("wrote %s\n", a.json);
    }
    rc = 0;
close:
    bench_session_close(&s);
done:
    tetra_dispatch_free(&table);
    free(tr);
    free(hr);
    bench_shapes_free(&train);
    bench_shapes_free(&held);
    return rc;
usage_fail:
    tetra_dispatch_free(&table);
    bench_shapes_free(&train);
    bench_shapes_free(&held);
    return 2;
}
