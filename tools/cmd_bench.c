/* cmd_bench.c - `tetra bench` (sweep, ceilings, calibrate, list) and `tetra report`:
 * the CLI over src/bench. Every usage error exits 2 with a message before any device
 * work and before any output file exists. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cli.h"

#define MAX_LIST 4096

typedef struct {
    bench_opts o;
    const char *arm_a, *arms_b, *sets, *shape_list, *m_list, *n_list, *k_list, *shapes_file;
    const char *out, *ceilings, *calibration, *row_out;
    long long seed;
    int replicate; /* 1: replicate candidate calls in a fresh process (default) */
    int processes;
    tetra_scale_layout layout;
    long long oracle_macs;
    double gib_read;
    long long gemm_dim;
    /* --lib-a / --lib-b: another libtetra build whose tetra_gemm that side's tetra arms run
     * (loaded while parsing; the session takes it over) */
    const char *lib_path[2];
    bench_lib *lib[2];
} args;

static int parse_double(const char *opt, const char *v, double lo, double hi, double *out) {
    char *end;
    double x;
    if (!v) { fprintf(stderr, "tetra bench: %s needs a value\n", opt); return -1; }
    x = strtod(v, &end);
    if (*end || !(x >= lo && x <= hi)) {
        fprintf(stderr, "tetra bench: %s '%s' is not a number in [%g, %g]\n", opt, v, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

static void usage(FILE *f) {
    fprintf(f,
        "usage:\n"
        "  tetra bench [options]            paired A/B sweep: arm A against each arm B on each shape\n"
        "  tetra bench ceilings [--out F]   measure read/copy bandwidth and BF16 GEMM rate\n"
        "  tetra bench calibrate [--arm X] [--shape S,...] [--processes N] [--out F]\n"
        "                                   A/A runs in fresh processes -> t_noise\n"
        "  tetra bench list                 arms and shape sets\n"
        "  tetra report FILE... [--out DIR] markdown + SVG report\n"
        "\n"
        "sweep options:\n"
        "  --a ARM              arm A (default cublaslt-bf16-tuned)\n"
        "  --b ARM[,ARM...]     arms B (default cublaslt-bf16,cublaslt-fp8)\n"
        "  --set NAME[,NAME]    shape sets from data/shapes.txt (default decode)\n"
        "  --shape MxNxK[,...]  explicit shapes\n"
        "  --m L --n L --k L    value lists / ranges (1,8,16 or 1-16), cartesian product\n"
        "  --shapes-file F      the shapes file (default: data/shapes.txt, found near the binary)\n"
        "  --ceilings F         ceilings JSON (from bench ceilings): adds %% of ceiling\n"
        "  --calibration F      calibration JSON (from bench calibrate): enables verdicts\n"
        "  --no-replicate       do not re-run candidate calls in a fresh process\n                       (calls are then reported as faster-/slower-unreplicated)\n"
        "  --blocks N           ABBA/BAAB blocks per row (default 20)\n"
        "  --max-samples N      samples per segment at most (default 5)\n"
        "  --segment-ms X       target time per segment (default 2)\n"
        "  --graph-below-us X   time calls shorter than X us as CUDA-graph replays (default 20;\n"
        "                       raise it for decode shapes, where host launch cost is not the kernel's)\n"
        "  --warmup-ms X        warm-up per arm (default 50)\n"
        "  --seed S             input seed (default 1)\n"
        "  --scale-layout L     linear|swizzled NVFP4 scales for tetra arms (default swizzled)\n"
        "  --oracle-macs N      CPU oracle budget before rows are sampled (default 2^31)\n"
        "  --out F              results JSON (written atomically)\n"
        "  --lib-a PATH         arm A's tetra GEMM calls run in another libtetra build (its\n"
        "  --lib-b PATH         libtetra.so; inputs, gate and the other arms stay this build's):\n"
        "                       two builds timed against each other in one process, e.g.\n"
        "                       --a tetra-gemm --b tetra-gemm --lib-b other/libtetra.so\n"
        "\ninstrument knobs (environment, for grid sweeps; record them with the results):\n"
        "  TETRA_BENCH_GEMV_SPLITS=S  the interleaved-W arms and probe-gemv-interleaved-copy pin\n"
        "                             the GEMV to S splits instead of AUTO's rule\n"
        "  TETRA_BENCH_READ_CTAS=C    mem-read-nvfp4 runs C CTAs of 512 threads per SM (default 4)\n");
}

/* Parse options shared by sweep, calibrate and the hidden row command. */
static int parse(int argc, char **argv, int first, args *a) {
    for (int i = first; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **sv = !strcmp(o, "--a") || !strcmp(o, "--arm") ? &a->arm_a
                        : !strcmp(o, "--b") ? &a->arms_b : !strcmp(o, "--set") ? &a->sets
                        : !strcmp(o, "--shape") ? &a->shape_list : !strcmp(o, "--m") ? &a->m_list
                        : !strcmp(o, "--n") ? &a->n_list : !strcmp(o, "--k") ? &a->k_list
                        : !strcmp(o, "--shapes-file") ? &a->shapes_file : !strcmp(o, "--out") ? &a->out
                        : !strcmp(o, "--ceilings") ? &a->ceilings : !strcmp(o, "--calibration") ? &a->calibration
                        : !strcmp(o, "--row-out") ? &a->row_out : NULL;
        long long x;
        if (!strcmp(o, "--lib-a") || !strcmp(o, "--lib-b")) {
            const int side = o[6] == 'b';
            char msg[600];
            if (!v || !*v) { fprintf(stderr, "tetra bench: %s needs a value\n", o); return -1; }
            bench_lib_free(a->lib[side]);
            if (!(a->lib[side] = bench_lib_load(v, msg, sizeof msg))) {
                fprintf(stderr, "tetra bench: %s: %s\n", o, msg);
                return -1;
            }
            a->lib_path[side] = v;
            i++;
            continue;
        }
        if (sv) {
            if (!v || !*v) { fprintf(stderr, "tetra bench: %s needs a value\n", o); return -1; }
            *sv = v;
            i++;
        } else if (!strcmp(o, "--blocks") || !strcmp(o, "--max-samples") || !strcmp(o, "--seed") ||
                   !strcmp(o, "--processes") || !strcmp(o, "--oracle-macs") || !strcmp(o, "--gemm-dim")) {
            if ((x = cli_parse_count(o, v)) < 0) return -1;
            if (!strcmp(o, "--blocks")) {
                if (x > BENCH_MAX_BLOCKS) { fprintf(stderr, "tetra bench: --blocks at most %d\n", BENCH_MAX_BLOCKS); return -1; }
                a->o.blocks = (int)x;
            } else if (!strcmp(o, "--max-samples")) {
                if (x > 8) { fprintf(stderr, "tetra bench: --max-samples at most 8\n"); return -1; }
                a->o.max_samples = (int)x;
            } else if (!strcmp(o, "--seed")) a->seed = x;
            else if (!strcmp(o, "--processes")) a->processes = (int)(x > 1000 ? 1000 : x);
            else if (!strcmp(o, "--gemm-dim")) a->gemm_dim = x;
            else a->oracle_macs = x;
            i++;
        } else if (!strcmp(o, "--segment-ms")) {
            if (parse_double(o, v, 0.01, 1000, &a->o.segment_ms)) return -1;
            i++;
        } else if (!strcmp(o, "--graph-below-us")) {
            if (parse_double(o, v, 0, 1e6, &a->o.graph_below_us)) return -1;
            i++;
        } else if (!strcmp(o, "--warmup-ms")) {
            if (parse_double(o, v, 0, 10000, &a->o.warmup_ms)) return -1;
            i++;
        } else if (!strcmp(o, "--read-gib")) {
            if (parse_double(o, v, 0.01, 64, &a->gib_read)) return -1;
            i++;
        } else if (!strcmp(o, "--scale-layout")) {
            if (!v || (strcmp(v, "linear") && strcmp(v, "swizzled"))) {
                fprintf(stderr, "tetra bench: --scale-layout must be linear or swizzled\n");
                return -1;
            }
            a->layout = !strcmp(v, "linear") ? TETRA_SCALE_LINEAR : TETRA_SCALE_SWIZZLED_128X4;
            i++;
        } else if (!strcmp(o, "--no-replicate")) {
            a->replicate = 0;
        } else if (!strcmp(o, "--replicate")) {
            a->replicate = 1;
        } else {
            fprintf(stderr, "tetra bench: unknown option '%s' (tetra bench --help)\n", o);
            return -1;
        }
    }
    return 0;
}

static void args_init(args *a) {
    memset(a, 0, sizeof *a);
    a->o = bench_opts_default();
    a->seed = 1;
    a->replicate = 1;
    a->processes = 10;
    a->layout = TETRA_SCALE_SWIZZLED_128X4;
    a->oracle_macs = 1LL << 31;
    a->gib_read = 2.0;
    a->gemm_dim = 8192;
}

/* Resolve arms: "x,y" -> list; exit-2 message on an unknown name. */
static int resolve_arms(const char *list, const bench_arm **out, int cap) {
    char buf[1024], *save = NULL, *tok;
    int n = 0;
    snprintf(buf, sizeof buf, "%s", list);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const bench_arm *arm = bench_arm_find(tok);
        if (!arm) {
            int na;
            const bench_arm *const *all = bench_arms(&na);
            fprintf(stderr, "tetra bench: unknown arm '%s'; arms:", tok);
            for (int i = 0; i < na; i++)
                if (!all[i]->hidden) fprintf(stderr, " %s", all[i]->name);
            fprintf(stderr, "\n");
            return -1;
        }
        if (n >= cap) { fprintf(stderr, "tetra bench: too many arms\n"); return -1; }
        out[n++] = arm;
    }
    if (!n) { fprintf(stderr, "tetra bench: empty arm list\n"); return -1; }
    return n;
}

static int collect_shapes(const args *a, bench_shapes *s, const char *dflt_set) {
    char err[512], path[4096];
    if (a->shape_list && bench_shapes_add_list(s, a->shape_list, err, sizeof err)) {
        fprintf(stderr, "tetra bench: %s\n", err);
        return -1;
    }
    if (a->m_list || a->n_list || a->k_list) {
        static int64_t mv[MAX_LIST], nv[MAX_LIST], kv[MAX_LIST];
        int nm, nn, nk;
        if (!a->m_list || !a->n_list || !a->k_list) {
            fprintf(stderr, "tetra bench: --m, --n and --k go together\n");
            return -1;
        }
        if ((nm = bench_parse_list(a->m_list, mv, MAX_LIST)) < 0 || (nn = bench_parse_list(a->n_list, nv, MAX_LIST)) < 0 ||
            (nk = bench_parse_list(a->k_list, kv, MAX_LIST)) < 0) {
            fprintf(stderr, "tetra bench: malformed --m/--n/--k list (want 1,8,16 or 1-16)\n");
            return -1;
        }
        for (int i = 0; i < nm; i++)
            for (int j = 0; j < nn; j++)
                for (int k = 0; k < nk; k++) {
                    bench_shape sh;
                    memset(&sh, 0, sizeof sh);
                    sh.m = mv[i]; sh.n = nv[j]; sh.k = kv[k]; sh.l = 1;
                    bench_shapes_push(s, sh);
                }
    }
    if (a->sets || (!s->n && dflt_set)) {
        if (bench_find_shapes_file(a->shapes_file, path, sizeof path)) {
            fprintf(stderr, "tetra bench: shapes file not found (%s); give --shapes-file\n",
                    a->shapes_file ? a->shapes_file : "data/shapes.txt");
            return -1;
        }
        if (bench_shapes_add_sets(s, path, a->sets ? a->sets : dflt_set, err, sizeof err)) {
            fprintf(stderr, "tetra bench: %s\n", err);
            return -1;
        }
    }
    if (!s->n) { fprintf(stderr, "tetra bench: no shapes\n"); return -1; }
    for (int i = 0; i < s->n; i++)
        if (s->v[i].k % 16) {
            fprintf(stderr, "tetra bench: K = %lld is not a multiple of 16 (the NVFP4 block)\n", (long long)s->v[i].k);
            return -1;
        }
    return 0;
}

/* collect_shapes, releasing what it gathered when it fails (usage errors exit 2 without
 * leaks, which the sanitizer build checks) */
static int resolve_shapes(const args *a, bench_shapes *s, const char *dflt_set) {
    int rc = collect_shapes(a, s, dflt_set);
    if (rc) bench_shapes_free(s);
    return rc;
}

static int load_t_noise(const char *path, double *t) {
    char err[512];
    bench_json *j = bench_json_load(path, err, sizeof err);
    if (!j) { fprintf(stderr, "tetra bench: calibration file: %s\n", err); return -1; }
    *t = bench_json_num(bench_json_get(j, "t_noise"), NAN);
    bench_json_free(j);
    if (!isfinite(*t) || *t < 0) { fprintf(stderr, "tetra bench: %s has no valid t_noise\n", path); return -1; }
    return 0;
}

static int load_ceilings(const char *path, bench_ceilings *c) {
    char err[512];
    const bench_json *ce;
    bench_json *j = bench_json_load(path, err, sizeof err);
    if (!j) { fprintf(stderr, "tetra bench: ceilings file: %s\n", err); return -1; }
    ce = bench_json_get(j, "ceilings");
    c->read_gbps = bench_json_num(bench_json_get(ce, "read_GBps"), 0);
    c->copy_gbps = bench_json_num(bench_json_get(ce, "copy_GBps"), 0);
    c->bf16_tflops = bench_json_num(bench_json_get(ce, "bf16_gemm_TFLOPs"), 0);
    c->fp8_tflops = bench_json_num(bench_json_get(ce, "fp8_gemm_TFLOPs"), 0); /* absent in older files */
    bench_json_free(j);
    if (!(c->read_gbps > 0)) { fprintf(stderr, "tetra bench: %s has no ceilings\n", path); return -1; }
    return 0;
}

static void shape_str(const bench_shape *s, char *out, size_t len) {
    if (s->l > 1) snprintf(out, len, "%lldx%lldx%lldx%lld", (long long)s->m, (long long)s->n, (long long)s->k, (long long)s->l);
    else snprintf(out, len, "%lldx%lldx%lld", (long long)s->m, (long long)s->n, (long long)s->k);
}

static void join_cmdline(int argc, char **argv, char *out, size_t len) {
    size_t n = 0;
    out[0] = 0;
    n += (size_t)snprintf(out, len, "tetra");
    for (int i = 0; i < argc && n < len; i++) n += (size_t)snprintf(out + n, len - n, " %s", argv[i]);
}

/* The provenance every results file starts with: commit, date, command line, device and
 * telemetry source. date, commit and cmdline are the caller's buffers (64, 64, 2048). */
static void run_meta(bench_run_meta *m, const bench_session *s, const args *a, int argc, char **argv,
                     char *date, char *commit, char *cmdline) {
    memset(m, 0, sizeof *m);
    bench_iso_date(date, 64);
    bench_git_commit(commit, 64);
    join_cmdline(argc, argv, cmdline, 2048);
    m->commit = commit;
    m->date = date;
    m->cmdline = cmdline;
    m->info = &s->info;
    m->nvml = s->nvml;
    m->nvml_note = s->nvml_note;
    m->nvml_driver = bench_tel_driver();
    m->seed = (uint64_t)a->seed;
}

/* Run one row in a fresh process (the same binary, hidden `bench __row`); returns its
 * median ratio, NaN on failure. Also returns the CI when lo/hi are given. */
static double row_in_fresh_process(const args *a, const bench_arm *A, const bench_arm *B, const bench_shape *sh,
                                   double *lo, double *hi) {
    char shape[96], blocks[16], samples[16], seg[32], warm[32], seed[32], macs[32], gb[32], tmp[256], err[256];
    pid_t pid;
    int status = 0;
    double r = NAN;
    bench_json *j;
    shape_str(sh, shape, sizeof shape);
    snprintf(blocks, sizeof blocks, "%d", a->o.blocks);
    snprintf(samples, sizeof samples, "%d", a->o.max_samples);
    snprintf(seg, sizeof seg, "%g", a->o.segment_ms);
    snprintf(warm, sizeof warm, "%g", a->o.warmup_ms);
    snprintf(gb, sizeof gb, "%g", a->o.graph_below_us);
    snprintf(seed, sizeof seed, "%lld", a->seed);
    snprintf(macs, sizeof macs, "%lld", a->oracle_macs);
    snprintf(tmp, sizeof tmp, "/tmp/tetra-row-%ld-%d.json", (long)getpid(), rand());
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        char *argv[] = {(char *)"tetra", (char *)"bench", (char *)"__row", (char *)"--a", (char *)A->name,
                        (char *)"--b", (char *)B->name, (char *)"--shape", shape, (char *)"--blocks", blocks,
                        (char *)"--max-samples", samples, (char *)"--segment-ms", seg, (char *)"--warmup-ms", warm, (char *)"--graph-below-us", gb,
                        (char *)"--seed", seed, (char *)"--oracle-macs", macs, (char *)"--scale-layout",
                        (char *)(a->layout == TETRA_SCALE_LINEAR ? "linear" : "swizzled"), (char *)"--row-out", tmp,
                        NULL, NULL, NULL, NULL, NULL};
        int na = (int)(sizeof argv / sizeof argv[0]) - 5; /* the first NULL: the libraries go there */
        for (int side = 0; side < 2; side++)
            if (a->lib_path[side]) {
                argv[na++] = (char *)(side ? "--lib-b" : "--lib-a");
                argv[na++] = (char *)a->lib_path[side];
            }
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        remove(tmp);
        return NAN;
    }
    if ((j = bench_json_load(tmp, err, sizeof err))) {
        const bench_json *ci = bench_json_get(j, "ci");
        r = bench_json_num(bench_json_get(j, "ratio"), NAN);
        if (lo) *lo = bench_json_num(bench_json_at(ci, 0), NAN);
        if (hi) *hi = bench_json_num(bench_json_at(ci, 1), NAN);
        bench_json_free(j);
    }
    remove(tmp);
    return r;
}

static int open_session(bench_session *s, args *a) {
    char msg[512];
    int rc = bench_session_open(s, (uint64_t)a->seed, msg, sizeof msg);
    if (rc != BENCH_OK) {
        fprintf(stderr, "tetra bench: %s\n", msg);
        return -1;
    }
    s->env.scale_layout = a->layout;
    s->env.oracle_macs = a->oracle_macs;
    for (int side = 0; side < 2; side++) {
        if (!a->lib[side]) continue;
        rc = bench_session_use_lib(s, side, a->lib[side], msg, sizeof msg); /* the session owns it now */
        a->lib[side] = NULL;
        if (rc != BENCH_OK) {
            fprintf(stderr, "tetra bench: --lib-%c: %s\n", side ? 'b' : 'a', msg);
            bench_session_close(s);
            return -1;
        }
    }
    return 0;
}


static int write_json_file(const char *path, bench_json_writer *w) {
    if (w->failed || bench_write_atomic(path, w->buf, w->len)) {
        fprintf(stderr, "tetra bench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The sweep's results file with its first n rows. */
static int write_sweep(const args *a, const bench_run_meta *m, const bench_row *rows, int n) {
    bench_json_writer w;
    int rc;
    bjw_init(&w);
    bench_write_results(&w, m, rows, n);
    rc = write_json_file(a->out, &w);
    bjw_free(&w);
    return rc;
}

/* ---------------------------------------------------------------- hidden: one row */

static int cmd_row(int argc, char **argv) {
    args a;
    const bench_arm *A, *B;
    bench_shapes shapes = {0};
    bench_session s;
    bench_row *row;
    bench_json_writer w;
    int rc = 1;
    args_init(&a);
    if (parse(argc, argv, 2, &a) || !a.arm_a || !a.arms_b || !a.row_out || !a.shape_list) return 2;
    if (resolve_arms(a.arm_a, &A, 1) < 0 || resolve_arms(a.arms_b, &B, 1) < 0 || resolve_shapes(&a, &shapes, NULL)) return 2;
    if (open_session(&s, &a)) return 1;
    row = (bench_row *)calloc(1, sizeof *row);
    if (row) {
        bench_run_row(&s, &a.o, &shapes.v[0], A, B, row);
        if (row->status == BENCH_OK) {
            bjw_init(&w);
            bench_write_row(&w, row, 0);
            rc = write_json_file(a.row_out, &w) ? 1 : 0;
            bjw_free(&w);
        } else {
            fprintf(stderr, "tetra bench __row: %s\n", row->msg);
        }
    }
    free(row);
    bench_session_close(&s);
    bench_shapes_free(&shapes);
    return rc;
}

/* ---------------------------------------------------------------- ceilings */

static int cmd_ceilings(int argc, char **argv) {
    args a;
    bench_session s;
    bench_ceilings c;
    bench_run_meta m;
    bench_json_writer w;
    char msg[512], date[64], commit[64], cmdline[2048];
    int rc;
    args_init(&a);
    if (parse(argc, argv, 2, &a)) return 2;
    if (a.out && bench_check_writable(a.out, msg, sizeof msg)) { fprintf(stderr, "tetra bench: %s\n", msg); return 2; }
    if (open_session(&s, &a)) return 1;
    fprintf(stderr, "tetra bench ceilings: read %.1f GiB, copy %.1f GiB, BF16 GEMM %lld^3 (tuned cuBLASLt)...\n",
            a.gib_read, a.gib_read / 2, a.gemm_dim);
    rc = bench_measure_ceilings(&s, (size_t)(a.gib_read * 1073741824.0), (size_t)(a.gib_read * 536870912.0),
                                a.gemm_dim, &c, msg, sizeof msg);
    if (rc) {
        fprintf(stderr, "tetra bench ceilings: %s\n", msg);
        bench_session_close(&s);
        return 1;
    }
    printf("device: %s\n", s.info.name);
    printf("read  %8.1f GB/s  (16-byte streaming loads over %.1f GiB)\n", c.read_gbps, a.gib_read);
    printf("copy  %8.1f GB/s  (bytes read + written, %.1f GiB each way)\n", c.copy_gbps, a.gib_read / 2);
    printf("bf16  %8.1f TFLOP/s (cuBLASLt tuned, %lld^3)\n", c.bf16_tflops, a.gemm_dim);
    if (c.fp8_tflops > 0) printf("fp8   %8.1f TFLOP/s (cuBLASLt E4M3, %lld^3)\n", c.fp8_tflops, a.gemm_dim);
    else printf("fp8   not measured (the cuBLASLt FP8 arm does not run here)\n");
    if (a.out) {
        run_meta(&m, &s, &a, argc, argv, date, commit, cmdline);
        m.ceilings = c; m.t_noise = NAN;
        bjw_init(&w);
        bjw_obj(&w, NULL);
        bench_write_env(&w, &m);
        bjw_str(&w, "kind", "ceilings");
        bjw_obj(&w, "method");
        bjw_num(&w, "read_bytes", a.gib_read * 1073741824.0);
        bjw_num(&w, "copy_bytes_each_way", a.gib_read * 536870912.0);
        bjw_int(&w, "gemm_dim", a.gemm_dim);
        bjw_str(&w, "statistic", "median of 20 (memory) / 10 (GEMM) event-timed runs after 3 warm-up runs");
        bjw_obj_end(&w);
        bjw_obj_end(&w);
        rc = write_json_file(a.out, &w) ? 1 : 0;
        bjw_free(&w);
    }
    bench_session_close(&s);
    return rc;
}

/* ---------------------------------------------------------------- calibrate */

static int cmd_calibrate(int argc, char **argv) {
    args a;
    const bench_arm *arm;
    bench_shapes shapes = {0};
    bench_session s;
    bench_run_meta m;
    bench_json_writer w;
    char msg[512], date[64], commit[64], cmdline[2048];
    double t_noise = 0, *ratios, *los, *his;
    int n, failed = 0, rc = 0;
    args_init(&a);
    a.arm_a = "cublaslt-bf16";
    if (parse(argc, argv, 2, &a)) return 2;
    /* default: one CUDA-graph-timed shape and one event-timed shape */
    if (!a.shape_list && !a.sets && !a.m_list && !a.n_list && !a.k_list) a.shape_list = "16x4096x4096,4096x4096x4096";
    if (a.processes < 10) { fprintf(stderr, "tetra bench calibrate: --processes must be at least 10\n"); return 2; }
    if (a.out && bench_check_writable(a.out, msg, sizeof msg)) { fprintf(stderr, "tetra bench: %s\n", msg); return 2; }
    if (resolve_arms(a.arm_a, &arm, 1) < 0 || resolve_shapes(&a, &shapes, NULL)) return 2;
    n = a.processes * shapes.n;
    ratios = (double *)calloc((size_t)n, sizeof(double));
    los = (double *)calloc((size_t)n, sizeof(double));
    his = (double *)calloc((size_t)n, sizeof(double));
    if (!ratios || !los || !his) {
        free(ratios); free(los); free(his); bench_shapes_free(&shapes);
        return 1;
    }
    for (int p = 0; p < a.processes; p++)
        for (int i = 0; i < shapes.n; i++) {
            char sh[96];
            int idx = p * shapes.n + i;
            shape_str(&shapes.v[i], sh, sizeof sh);
            cli_progress(idx, n, sh);
            ratios[idx] = row_in_fresh_process(&a, arm, arm, &shapes.v[i], &los[idx], &his[idx]);
            if (!isfinite(ratios[idx])) failed++;
            else if (fabs(ratios[idx] - 1) > t_noise) t_noise = fabs(ratios[idx] - 1);
        }
    cli_progress(n, n, "");
    if (failed) {
        fprintf(stderr, "tetra bench calibrate: %d of %d fresh-process runs failed (run one with "
                        "`tetra bench --a %s --b %s --shape ...` to see why)\n", failed, n, arm->name, arm->name);
        rc = 1;
    }
    printf("A/A calibration of %s over %d fresh processes x %d shapes:\n", arm->name, a.processes, shapes.n);
    for (int i = 0; i < shapes.n; i++) {
        char sh[96];
        double mx = 0;
        shape_str(&shapes.v[i], sh, sizeof sh);
        for (int p = 0; p < a.processes; p++) {
            double r = ratios[p * shapes.n + i];
            if (isfinite(r) && fabs(r - 1) > mx) mx = fabs(r - 1);
        }
        printf("  %-22s max |ratio - 1| = %.4f\n", sh, mx);
    }
    printf("t_noise = %.4f\n", t_noise);
    if (a.out && !rc) {
        if (open_session(&s, &a)) return 1;
        run_meta(&m, &s, &a, argc, argv, date, commit, cmdline);
        m.t_noise = t_noise; m.opts = &a.o; m.rotate_bytes = s.env.rotate_bytes;
        bjw_init(&w);
        bjw_obj(&w, NULL);
        bench_write_env(&w, &m);
        bjw_str(&w, "kind", "calibration");
        bjw_str(&w, "arm", arm->name);
        bjw_int(&w, "processes", a.processes);
        bjw_str(&w, "rule", "t_noise = max |median ratio - 1| over A/A runs, each in a fresh process");
        bjw_arr(&w, "runs");
        for (int p = 0; p < a.processes; p++)
            for (int i = 0; i < shapes.n; i++) {
                int idx = p * shapes.n + i;
                bjw_obj(&w, NULL);
                bjw_int(&w, "process", p);
                bjw_int(&w, "m", shapes.v[i].m);
                bjw_int(&w, "n", shapes.v[i].n);
                bjw_int(&w, "k", shapes.v[i].k);
                bjw_num(&w, "ratio", ratios[idx]);
                bjw_arr(&w, "ci");
                bjw_num(&w, NULL, los[idx]);
                bjw_num(&w, NULL, his[idx]);
                bjw_arr_end(&w);
                bjw_obj_end(&w);
            }
        bjw_arr_end(&w);
        bjw_obj_end(&w);
        rc = write_json_file(a.out, &w) ? 1 : 0;
        bjw_free(&w);
        bench_session_close(&s);
    }
    free(ratios); free(los); free(his);
    bench_shapes_free(&shapes);
    return rc;
}

/* ---------------------------------------------------------------- sweep */

static int cmd_list(void) {
    int n;
    const bench_arm *const *all = bench_arms(&n);
    char path[4096];
    printf("arms:\n");
    for (int i = 0; i < n; i++)
        if (!all[i]->hidden) printf("  %-22s %s %s (%s)\n", all[i]->name, all[i]->op, all[i]->variant, all[i]->timed);
    if (!bench_find_shapes_file(NULL, path, sizeof path)) printf("shape sets: see %s\n", path);
    return 0;
}

static int cmd_sweep(int argc, char **argv) {
    args a;
    const bench_arm *A, *Bs[32];
    int nb, rc = 0, nrows, r = 0;
    bench_shapes shapes = {0};
    bench_ceilings ceil = {0, 0, 0, 0};
    double t_noise = NAN;
    char msg[512], date[64], commit[64], cmdline[2048];
    bench_session s;
    bench_row *rows;
    bench_run_meta m;
    args_init(&a);
    if (parse(argc, argv, 1, &a)) return 2;
    if (!a.arm_a) a.arm_a = "cublaslt-bf16-tuned";
    if (!a.arms_b) a.arms_b = "cublaslt-bf16,cublaslt-fp8";
    if (resolve_arms(a.arm_a, &A, 1) < 0 || (nb = resolve_arms(a.arms_b, Bs, 32)) < 0) return 2;
    if (a.calibration && load_t_noise(a.calibration, &t_noise)) return 2;
    if (a.ceilings && load_ceilings(a.ceilings, &ceil)) return 2;
    if (a.out && bench_check_writable(a.out, msg, sizeof msg)) { fprintf(stderr, "tetra bench: %s\n", msg); return 2; }
    if (resolve_shapes(&a, &shapes, "decode")) return 2; /* last: nothing to free before it */
    if (!a.calibration)
        fprintf(stderr, "tetra bench: no --calibration file: t_noise unknown, every verdict is within-noise "
                        "(run `tetra bench calibrate --out cal.json`)\n");
    if (open_session(&s, &a)) { bench_shapes_free(&shapes); return 1; }
    if (!s.nvml) fprintf(stderr, "tetra bench: %s\n", s.nvml_note);
    nrows = shapes.n * nb;
    rows = (bench_row *)calloc((size_t)nrows, sizeof *rows);
    if (!rows) { bench_session_close(&s); bench_shapes_free(&shapes); return 1; }
    run_meta(&m, &s, &a, argc, argv, date, commit, cmdline);
    m.ceilings = ceil; m.t_noise = t_noise; m.calibration_file = a.calibration;
    m.opts = &a.o; m.rotate_bytes = s.env.rotate_bytes; m.rows_planned = nrows;
    printf("%-20s %-22s %-22s %10s %10s  %-26s %-13s %-12s %7s %7s\n", "shape", "A", "B", "A us", "B us",
           "ratio B/A [95% CI]", "AB / BA", "verdict", "A %ceil", "B %ceil");
    for (int i = 0; i < shapes.n; i++)
        for (int j = 0; j < nb; j++, r++) {
            bench_row *row = &rows[r];
            char sh[96];
            shape_str(&shapes.v[i], sh, sizeof sh);
            snprintf(msg, sizeof msg, "%s vs %s %s", Bs[j]->name, A->name, sh);
            cli_progress(r, nrows, msg);
            bench_run_row(&s, &a.o, &shapes.v[i], A, Bs[j], row);
            snprintf(row->cmd, sizeof row->cmd, "tetra bench --a %s --b %s --shape %s --blocks %d --seed %lld --graph-below-us %g%s%s%s%s",
                     A->name, Bs[j]->name, sh, a.o.blocks, a.seed, a.o.graph_below_us, a.calibration ? " --calibration " : "",
                     a.calibration ? a.calibration : "", a.ceilings ? " --ceilings " : "", a.ceilings ? a.ceilings : "");
            if (row->status == BENCH_OK) {
                bench_row_derive(row, &ceil);
                row->call = bench_call(row->ci_lo, row->ci_hi, row->ratio_ab_first, row->ratio_ba_first, t_noise);
                if (row->call != BENCH_VERDICT_WITHIN_NOISE && a.replicate)
                    row->replicate_ratio = row_in_fresh_process(&a, A, Bs[j], &shapes.v[i], NULL, NULL);
                row->verdict = bench_verdict_final(row->call, row->replicate_ratio);
                cli_progress(r + 1, nrows, "");
                printf("%-20s %-22s %-22s %10.2f %10.2f  %.3f [%.3f, %.3f]%*s %.3f/%.3f  %-12s %7.1f %7.1f\n", sh,
                       A->name, Bs[j]->name, row->a_us, row->b_us, row->ratio, row->ci_lo, row->ci_hi, 3, "",
                       row->ratio_ab_first, row->ratio_ba_first, bench_verdict_name(row->verdict), row->a_pct,
                       row->b_pct);
            } else {
                cli_progress(r + 1, nrows, "");
                printf("%-20s %-22s %-22s %s: %s\n", sh, A->name, Bs[j]->name,
                       row->status == BENCH_UNSUPPORTED ? "skipped" : "ERROR", row->msg);
                if (row->status == BENCH_ERROR) rc = 1;
            }
            printf("    %s\n", row->cmd);
            fflush(stdout);
            /* rewritten (atomically) after every row: a sweep killed by a time limit keeps
             * the rows it finished, marked "complete": false */
            if (a.out && r + 1 < nrows && write_sweep(&a, &m, rows, r + 1)) rc = 1;
        }
    cli_progress(nrows, nrows, "");
    if (a.out) {
        if (write_sweep(&a, &m, rows, nrows)) rc = 1;
        else fprintf(stderr, "tetra bench: wrote %s\n", a.out);
    }
    free(rows);
    bench_session_close(&s);
    bench_shapes_free(&shapes);
    return rc;
}

int cmd_bench(int argc, char **argv) {
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "ceilings")) return cmd_ceilings(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "calibrate")) return cmd_calibrate(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "__row")) return cmd_row(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "list")) return cmd_list();
    return cmd_sweep(argc, argv);
}

int cmd_report(int argc, char **argv) {
    const char *dir = "tetra-report";
    const bench_json *files[256];
    const char *names[256];
    bench_json *owned[256];
    int n = 0, rc;
    char err[512];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out")) {
            if (i + 1 >= argc) { fprintf(stderr, "tetra report: --out needs a directory\n"); return 2; }
            dir = argv[++i];
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: tetra report FILE... [--out DIR]   (writes DIR/report.md, speedup.svg, ceiling.svg)\n");
            return 0;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "tetra report: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (n < 256) {
            names[n++] = argv[i];
        }
    }
    if (!n) { fprintf(stderr, "tetra report: no results files given\n"); return 2; }
    for (int i = 0; i < n; i++) {
        if (!(owned[i] = bench_json_load(names[i], err, sizeof err))) {
            fprintf(stderr, "tetra report: %s: %s\n", names[i], err);
            for (int k = 0; k < i; k++) bench_json_free(owned[k]);
            return 2;
        }
        files[i] = owned[i];
    }
    rc = bench_report(files, names, n, dir, err, sizeof err);
    if (rc) fprintf(stderr, "tetra report: %s\n", err);
    else printf("tetra report: wrote %s/report.md, %s/speedup.svg, %s/ceiling.svg\n", dir, dir, dir);
    for (int i = 0; i < n; i++) bench_json_free(owned[i]);
    return rc ? 1 : 0;
}
