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
#include "cli.h"

/* Every configuration a dispatch table can name. The launchers refuse those a shape
 * cannot take (the GEMV above 16 rows, the wgmma kernel off sm_90, splits beyond K), and
 * tune skips them there. */
typedef struct {
    tetra_gemm_path path;
    int tile_m, splits;
} tune_config;
static const tune_config k_configs[] = {
    {TETRA_PATH_GEMV, 0, 0},    {TETRA_PATH_GEMV, 0, 1},    {TETRA_PATH_GEMV, 0, 2},
    {TETRA_PATH_GEMV, 0, 4},    {TETRA_PATH_GEMV, 0, 8},    {TETRA_PATH_GEMV, 0, 16},
    {TETRA_PATH_MMA_SYNC, 0, 0}, {TETRA_PATH_WGMMA, 64, 1},  {TETRA_PATH_WGMMA, 64, 2},
    {TETRA_PATH_WGMMA, 64, 4},  {TETRA_PATH_WGMMA, 64, 8},  {TETRA_PATH_WGMMA, 64, 16},
    {TETRA_PATH_WGMMA, 128, 1}, {TETRA_PATH_WGMMA, 128, 2}, {TETRA_PATH_WGMMA, 128, 4},
    {TETRA_PATH_WGMMA, 128, 8}, {TETRA_PATH_WGMMA, 128, 16}, {TETRA_PATH_WGMMA, 256, 1},
    {TETRA_PATH_WGMMA, 256, 2}, {TETRA_PATH_WGMMA, 256, 4}, {TETRA_PATH_WGMMA, 64, 0},
    {TETRA_PATH_WGMMA, 128, 0}, {TETRA_PATH_WGMMA, 256, 0}, {TETRA_PATH_WGMMA_T, 256, 0},
    {TETRA_PATH_WGMMA_T, 256, 2}, {TETRA_PATH_WGMMA_T, 256, 4}, {TETRA_PATH_WGMMA_T, 64, 0},
    {TETRA_PATH_WGMMA_T, 128, 0}, {TETRA_PATH_WGMMA_T, 64, 1},  {TETRA_PATH_WGMMA_T, 64, 4},
    {TETRA_PATH_WGMMA_T, 64, 8},  {TETRA_PATH_WGMMA_T, 64, 16}, {TETRA_PATH_WGMMA_T, 128, 1},
    {TETRA_PATH_WGMMA_T, 128, 4}, {TETRA_PATH_WGMMA_T, 128, 8},
};
/* A table entry names one of the configurations whose split count is the kernel's own rule
 * (splits 0): that rule follows the tile count and K of the shape being dispatched, so an
 * entry carries over to the untuned shapes it is nearest to. A pinned split count is best
 * only for the N and K it was timed on (device run 14: the nearest-entry table built from
 * pinned splits scored 33 of 43 held-out shapes within 5% of the best, the rules alone 39). */
static int generalises(int c) { return k_configs[c].splits == 0; }
#define NCONF ((int)(sizeof k_configs / sizeof k_configs[0]))

typedef struct {
    const char *sets, *holdout_sets, *shapes_file, *out, *json;
    char shape_list[4096], holdout_list[4096];
    int nvfp4, samples;
} tune_args;

/* One shape's sweep. us[c] is NaN where configuration c cannot run. */
typedef struct {
    bench_shape shape;
    double us[NCONF];
    tetra_status st[NCONF];
    int best;            /* fastest configuration that passed the gate, -1 if none */
    int pick;            /* fastest generalising one that passed (the table entry), -1 if none */
    double auto_us;      /* AUTO before the new table is loaded (heuristics / shipped table) */
    double table_us;     /* AUTO with the new table (held-out shapes) */
    int table_pick;      /* the configuration the new table names, -1 if none */
    char gate_msg[200];
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
            "  --samples N             graph-replay samples per configuration and pass (3)\n"
            "  --shapes-file F         the shapes file\n"
            "  --out TABLE             the dispatch table to write (docs/tuning.md)\n"
            "  --json F                every timing and the held-out score as JSON\n"
            "Use the table with tetra_context_load_dispatch_table(), or copy it to\n"
            "data/dispatch/ to build it into tetra.\n");
}

static int parse_args(int argc, char **argv, tune_args *a) {
    memset(a, 0, sizeof *a);
    a->samples = 3;
    for (int i = 1; i < argc; i++) { /* argv[0] is "tune" */
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            exit(0);
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
        else if (!strcmp(o, "--json")) a->json = v;
        else if (!strcmp(o, "--a")) {
            if (!strcmp(v, "bf16")) a->nvfp4 = 0;
            else if (!strcmp(v, "nvfp4")) a->nvfp4 = 1;
            else {
                fprintf(stderr, "tetra tune: --a '%s' is not bf16 or nvfp4\n", v);
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
        } else {
            fprintf(stderr, "tetra tune: unknown option '%s' (tetra tune --help)\n", o);
            return -1;
        }
    }
    if (!a->out) {
        fprintf(stderr, "tetra tune: --out TABLE is required (tetra tune --help)\n");
        return -1;
    }
    if (!a->sets && !a->shape_list[0]) a->sets = "tune";
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
    return c->path == path && c->tile_m == tile_m && c->splits == splits;
}

/* The fastest configuration (of the generalising ones if `general`) that passes the
 * PROTOCOL gate; one that fails is marked NaN, noted, and never chosen. */
static int gated_fastest(const bench_arm *arm, void *state, tune_row *r, int general) {
    char msg[512];
    for (;;) {
        int best = -1;
        bench_gate g;
        for (int c = 0; c < NCONF; c++)
            if (!isnan(r->us[c]) && (!general || generalises(c)) && (best < 0 || r->us[c] < r->us[best])) best = c;
        if (best < 0) return -1;
        bench_gemm_pin(state, k_configs[best].path, k_configs[best].tile_m, k_configs[best].splits);
        msg[0] = 0;
        bench_gate_arm(arm, state, &g, msg, sizeof msg);
        if (g.pass) return best;
        snprintf(r->gate_msg, sizeof r->gate_msg, "config %d failed the gate (normwise %.2e, limit %.2e)", best,
                 g.normwise, g.limit_normwise);
        r->us[best] = NAN;
    }
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
    r->best = r->table_pick = -1;
    r->auto_us = r->table_us = NAN;
    r->gate_msg[0] = 0;
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
        r->st[c] = bench_gemm_pin(state, k_configs[c].path, k_configs[c].tile_m, k_configs[c].splits);
    for (int c = 0; c < NSLOTS; c++) samples[c][0] = samples[c][1] = NAN;
    if (scored) {
        const tetra_dispatch_entry *e = tetra_dispatch_lookup(scored, a->nvfp4, r->shape.m, r->shape.n, r->shape.k);
        for (int c = 0; e && c < NCONF; c++)
            if (same_config(&k_configs[c], e->path, e->tile_m, e->splits)) r->table_pick = c;
    }
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < NSLOTS; j++) {
            const int c = pass ? NSLOTS - 1 - j : j;
            int table = 0;
            if (c < NCONF) {
                if (r->st[c] != TETRA_OK) continue;
                bench_gemm_pin(state, k_configs[c].path, k_configs[c].tile_m, k_configs[c].splits);
            } else {
                /* AUTO; the table slot (held-out shapes only) with the new table loaded */
                if (c == SLOT_TABLE && (!scored || tetra_context_load_dispatch_table(s->env.ctx, a->out) != TETRA_OK))
                    continue;
                table = c == SLOT_TABLE;
                bench_gemm_pin(state, TETRA_PATH_AUTO, 0, 0);
            }
            samples[c][pass] = bench_time_calls(s, arm, state, a->samples);
            if (table) tetra_context_load_dispatch_table(s->env.ctx, NULL); /* back to the built-in table */
        }
    for (int c = 0; c < NCONF; c++)
        if (r->st[c] == TETRA_OK && samples[c][0] > 0 && samples[c][1] > 0)
            r->us[c] = 0.5 * (samples[c][0] + samples[c][1]);
    if (samples[SLOT_AUTO][0] > 0 && samples[SLOT_AUTO][1] > 0)
        r->auto_us = 0.5 * (samples[SLOT_AUTO][0] + samples[SLOT_AUTO][1]);
    if (samples[SLOT_TABLE][0] > 0 && samples[SLOT_TABLE][1] > 0)
        r->table_us = 0.5 * (samples[SLOT_TABLE][0] + samples[SLOT_TABLE][1]);
    /* the gate: fastest first; a configuration that fails it is never chosen */
    r->pick = gated_fastest(arm, state, r, 1);
    r->best = gated_fastest(arm, state, r, 0);
    arm->teardown(state);
    return 0;
}

static const char *config_name(int c, char *buf, size_t len) {
    if (c < 0) return "none";
    snprintf(buf, len, "%s/%d/%d", tetra_dispatch_path_name(k_configs[c].path), k_configs[c].tile_m,
             k_configs[c].splits);
    return buf;
}

static int write_table(const char *path, const tune_args *a, const bench_session *s, const tune_row *rows, int n,
                       const char *commit, const char *date) {
    bench_json_writer w; /* used as a string builder; written atomically like every results file */
    int rc;
    bjw_init(&w);
    bjw_raw(&w, "# written by tetra tune (docs/tuning.md): per shape, the fastest configuration that uses\n"
                  "# the kernel's own split rule (splits 0)\n");
    bjw_raw(&w, "tetra-dispatch-table 1\n");
    bjw_rawf(&w, "device %s\n", s->info.name);
    bjw_rawf(&w, "sm %d%d\n", s->info.major, s->info.minor);
    bjw_rawf(&w, "driver %d\n", s->info.driver_version);
    bjw_rawf(&w, "commit %s\n", commit);
    bjw_rawf(&w, "date %s\n", date);
    bjw_rawf(&w, "tuned-on %s%s%s\n", a->sets ? a->sets : "", a->sets && a->shape_list[0] ? "," : "", a->shape_list);
    bjw_raw(&w, "# a m n k path tile_m splits us\n");
    for (int i = 0; i < n; i++) {
        const tune_row *r = &rows[i];
        if (r->pick < 0) continue;
        if (r->shape.l != 1) continue; /* tables key on M, N, K; batched shapes are tuned but not written */
        bjw_rawf(&w, "entry %s %lld %lld %lld %s %d %d %.2f\n", a->nvfp4 ? "nvfp4" : "bf16", (long long)r->shape.m,
                 (long long)r->shape.n, (long long)r->shape.k, tetra_dispatch_path_name(k_configs[r->pick].path),
                 k_configs[r->pick].tile_m, k_configs[r->pick].splits, r->us[r->pick]);
    }
    rc = w.failed || bench_write_atomic(path, w.buf, w.len) ? -1 : 0;
    bjw_free(&w);
    return rc;
}

/* A dispatcher's score on the held-out shapes: with the new table (table_us) or as AUTO
 * dispatched before it was loaded (auto_us). */
typedef struct {
    int n, within5, within2_fixed;
    double worst, geomean;
} tune_score;

static tune_score score_held_out(const tune_row *hr, int n, int fixed, int with_table) {
    tune_score sc = {0, 0, 0, 0, 0};
    double lg = 0;
    for (int i = 0; i < n; i++) {
        const tune_row *r = &hr[i];
        const double t = with_table ? r->table_us : r->auto_us;
        double vb, vf;
        if (r->best < 0 || isnan(t) || isnan(r->table_us)) continue;
        vb = t / r->us[r->best];
        vf = fixed >= 0 ? t / r->us[fixed] : NAN;
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
            bjw_obj_end(w);
        }
        bjw_arr_end(w);
        bjw_str(w, "best", config_name(r->best, b, sizeof b));
        bjw_num(w, "best_us", r->best >= 0 ? r->us[r->best] : NAN);
        bjw_str(w, "pick", config_name(r->pick, b, sizeof b));
        bjw_num(w, "pick_us", r->pick >= 0 ? r->us[r->pick] : NAN);
        bjw_num(w, "auto_us", r->auto_us);
        bjw_num(w, "table_us", r->table_us);
        bjw_str(w, "table_pick", config_name(r->table_pick, b, sizeof b));
        bjw_str(w, "note", r->gate_msg);
        bjw_obj_end(w);
    }
    bjw_arr_end(w);
}

int cmd_tune(int argc, char **argv) {
    tune_args a;
    bench_shapes train = {0}, held = {0};
    bench_session s;
    tune_row *tr = NULL, *hr = NULL;
    char file[4096], msg[512], commit[64], date[64], b1[64], b2[64];
    const bench_arm *arm;
    tetra_dispatch_table table = {0};
    int rc = 1, fixed = -1, ship = 0;
    double fixed_geo = INFINITY;
    tune_score score_table = {0, 0, 0, 0, 0}, score_before = {0, 0, 0, 0, 0};

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
    if (train.n == 0) {
        fprintf(stderr, "tetra tune: no tuning shapes\n");
        goto usage_fail;
    }
    if (bench_check_writable(a.out, msg, sizeof msg) || (a.json && bench_check_writable(a.json, msg, sizeof msg))) {
        fprintf(stderr, "tetra tune: %s\n", msg);
        goto usage_fail;
    }
    arm = bench_arm_find(a.nvfp4 ? "tetra-gemm-w4a4" : "tetra-gemm");
    if (bench_session_open(&s, 1, msg, sizeof msg) != BENCH_OK) {
        fprintf(stderr, "tetra tune: %s\n", msg);
        goto done;
    }
    bench_iso_date(date, sizeof date);
    bench_git_commit(commit, sizeof commit);
    tr = (tune_row *)calloc((size_t)train.n, sizeof *tr);
    hr = (tune_row *)calloc((size_t)(held.n ? held.n : 1), sizeof *hr);
    if (!tr || !hr) {
        fprintf(stderr, "tetra tune: out of host memory\n");
        goto close;
    }
    printf("tetra tune on %s: %d tuning shapes, %d held-out, %d configurations, %s activations\n", s.info.name,
           train.n, held.n, NCONF, a.nvfp4 ? "NVFP4" : "BF16");
    for (int i = 0; i < train.n; i++) {
        char what[96];
        tr[i].shape = train.v[i];
        snprintf(what, sizeof what, "tune %lldx%lldx%lldx%lld", (long long)train.v[i].m, (long long)train.v[i].n,
                 (long long)train.v[i].k, (long long)train.v[i].l);
        cli_progress(i, train.n + held.n, what);
        sweep(&s, arm, &a, &tr[i], NULL);
        printf("  tune    %6lldx%6lldx%6lld  entry %-14s %10.2f us  best %-14s %10.2f us  (AUTO now %.2f us) %s\n",
               (long long)tr[i].shape.m, (long long)tr[i].shape.n, (long long)tr[i].shape.k,
               config_name(tr[i].pick, b2, sizeof b2), tr[i].pick >= 0 ? tr[i].us[tr[i].pick] : NAN,
               config_name(tr[i].best, b1, sizeof b1), tr[i].best >= 0 ? tr[i].us[tr[i].best] : NAN,
               tr[i].auto_us, tr[i].gate_msg);
    }
    if (write_table(a.out, &a, &s, tr, train.n, commit, date)) {
        fprintf(stderr, "tetra tune: cannot write %s: %s\n", a.out, strerror(errno));
        goto close;
    }
    printf("wrote %s\n", a.out);
    if (held.n && tetra_dispatch_load(a.out, &table, msg, sizeof msg)) {
        fprintf(stderr, "tetra tune: %s\n", msg);
        goto close;
    }
    for (int i = 0; i < held.n; i++) {
        char what[96];
        hr[i].shape = held.v[i];
        snprintf(what, sizeof what, "held-out %lldx%lldx%lldx%lld", (long long)held.v[i].m,
                 (long long)held.v[i].n, (long long)held.v[i].k, (long long)held.v[i].l);
        cli_progress(train.n + i, train.n + held.n, what);
        sweep(&s, arm, &a, &hr[i], &table);
    }
    cli_progress(train.n + held.n, train.n + held.n, "");
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
        printf("held-out: table (AUTO with the new table) vs best configuration, vs fixed %s\n",
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
        score_table = score_held_out(hr, held.n, fixed, 1);
        score_before = score_held_out(hr, held.n, fixed, 0);
        print_score("held-out score, new table", &score_table, fixed);
        print_score("held-out score, AUTO before it", &score_before, fixed);
        ship = score_table.n > 0 && score_table.within5 >= score_before.within5 &&
               score_table.within2_fixed >= score_before.within2_fixed && score_table.geomean <= score_before.geomean;
        printf("verdict: %s\n", ship ? "the new table is no worse than AUTO before it on every count: ship it"
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
        bjw_str(&w, "fixed_config", config_name(fixed, b1, sizeof b1));
        if (held.n) {
            json_score(&w, "score_table", &score_table);
            json_score(&w, "score_before", &score_before);
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
    tetra_dispatch_free(&table);
    bench_session_close(&s);
done:
    free(tr);
    free(hr);
    bench_shapes_free(&train);
    bench_shapes_free(&held);
    return rc;
usage_fail:
    bench_shapes_free(&train);
    bench_shapes_free(&held);
    return 2;
}
