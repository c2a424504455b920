/* bench.h - the instrument (PROTOCOL.md): arms, the paired ABBA/BAAB protocol, the
 * correctness gate, statistics, telemetry, shapes, a small JSON writer/reader and the
 * markdown/SVG report. Linked into the CLI and the tests, never into libtetra.
 *
 * An arm is a named struct of C callbacks; adding one is a table entry (arms_*.c). */
#ifndef TETRA_BENCH_H
#define TETRA_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tetra.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ shapes */

typedef struct bench_shape {
    int64_t m, n, k, l;
    char set[32]; /* the named set it came from, "" for --m/--n/--k */
} bench_shape;

typedef struct bench_shapes {
    bench_shape *v;
    int n, cap;
} bench_shapes;

/* Append the shapes of the named sets ("seed000,decode") read from a shapes file
 * (data/shapes.txt: lines "set m n k [l]", '#' comments). Returns 0, or -1 with a
 * message in err (unknown set, unreadable or malformed file). */
int bench_shapes_add_sets(bench_shapes *s, const char *path, const char *names, char *err, size_t errlen);
/* Parse "1,8,16" or "1-16" or "1-16,64" into values (at most cap). -1 on a malformed list. */
int bench_parse_list(const char *text, int64_t *out, int cap);
/* "MxNxK[xL]" -> shape; -1 if malformed. */
int bench_parse_shape(const char *text, bench_shape *out);
int bench_shapes_push(bench_shapes *s, bench_shape sh);
/* Append "MxNxK[xL],..." (--shape); -1 with a message naming the bad entry. */
int bench_shapes_add_list(bench_shapes *s, const char *list, char *err, size_t errlen);
void bench_shapes_free(bench_shapes *s);
/* Find the shapes file: explicit path, $TETRA_SHAPES, ./data/shapes.txt, then next to the
 * executable (../data, ../../data). Writes the path found into out; -1 if none. */
int bench_find_shapes_file(const char *explicit_path, char *out, size_t outlen);

/* ------------------------------------------------------------------ statistics */

double bench_median(const double *x, int n);              /* copies; NaN if n == 0 */
double bench_quantile(const double *x, int n, double q);  /* linear interpolation */
/* Distribution-free 95% CI of the median from order statistics: [x_(j), x_(n+1-j)] with
 * j the largest rank such that P(Bin(n,1/2) < j) <= 0.025. With n < 6 no rank qualifies
 * and the CI is [min, max] (coverage below 95%; *coverage says how much). */
void bench_median_ci(const double *x, int n, double *lo, double *hi, double *coverage);
/* Block orders: block b is "ABBA" when b is even and "BAAB" when odd, so the two halves
 * have equal size. order[4] receives 0 for A, 1 for B. */
void bench_block_order(int block, int order[4]);

typedef enum {
    BENCH_VERDICT_WITHIN_NOISE = 0,
    BENCH_VERDICT_FASTER = 1, /* arm A faster: ratio b/a above 1 + t_noise */
    BENCH_VERDICT_SLOWER = 2,
    /* the call was made but no replicate ran (--no-replicate): a lead, not a verdict */
    BENCH_VERDICT_FASTER_UNREPLICATED = 3,
    BENCH_VERDICT_SLOWER_UNREPLICATED = 4
} bench_verdict;
const char *bench_verdict_name(bench_verdict v);
/* The single-process call: faster iff ci_lo > 1 + t_noise, slower iff ci_hi < 1 - t_noise,
 * and both half-ratios on the same side of 1 as the call; otherwise within noise. */
bench_verdict bench_call(double ci_lo, double ci_hi, double ab_ratio, double ba_ratio, double t_noise);
/* The final verdict: the call stands only if a replicate in a fresh process has a
 * median ratio on the same side of 1; a replicate on the other side makes it within noise;
 * none (replicate_ratio NaN) leaves it *_UNREPLICATED. */
bench_verdict bench_verdict_final(bench_verdict call, double replicate_ratio);

/* ------------------------------------------------------------------ the gate */

/* Constants (docs/bench.md): pass iff no non-finite output and
 *   normwise <= BENCH_GATE_FACTOR * floor.normwise + slack and
 *   max_rel  <= BENCH_GATE_FACTOR * floor.max_rel  + slack,
 * floor = the FP64 oracle rounded to the output dtype, slack = BENCH_GATE_ACC * sqrt(K)
 * * 2^-24 (FP32 accumulation). Exact ops (quantize) must match bit for bit. */
#define BENCH_GATE_FACTOR 2.0
#define BENCH_GATE_ACC 8.0

typedef struct bench_gate {
    int applicable; /* 0: the arm has no gate (memory arms) */
    int pass;
    int exact;      /* compared for equality */
    char method[96];
    long long rows_checked, rows_total;
    double normwise, max_rel, rel_p50, rel_p99, rel_max;
    double floor_normwise, floor_max_rel;
    double limit_normwise, limit_max_rel;
    long long nonfinite;
} bench_gate;

/* What an arm's check callback fills: the FP64 reference and the arm's output (as
 * doubles) over the same n elements, the output dtype (for the floor) and K. */
typedef struct bench_check {
    double *ref, *out; /* malloc'ed by the arm, freed by the caller */
    long long n;
    tetra_dtype out_dtype;
    int64_t k;
    int exact;
    char method[96];
    long long rows_checked, rows_total;
    /* Two-reference gate (attention, seed 004) instead of the dtype-floor rule: pass iff no
     * non-finite output and max|out - ref| <= BENCH_GATE2_FACTOR * same_dtype_max_abs +
     * BENCH_GATE2_SLACK, where same_dtype_max_abs = max|same-dtype reference - ref| (the
     * arm computes it). Reported as max_rel against limit_max_rel (both / max|ref|). */
    int two_ref;
    double same_dtype_max_abs;
} bench_check;

#define BENCH_GATE2_FACTOR 2.0
#define BENCH_GATE2_SLACK 1e-4

/* Evaluate ref vs out under the rule above. */
bench_gate bench_gate_eval(const bench_check *c);

/* ------------------------------------------------------------------ arms */

typedef struct bench_env {
    int device;
    int sm_major, sm_minor, sms;
    size_t l2_bytes;
    void *stream;          /* cudaStream_t the arms run on */
    tetra_context *ctx;    /* on that stream */
    void *lt;              /* cublasLtHandle_t */
    void *lt_workspace;    /* cuBLASLt workspace (device) */
    size_t lt_workspace_bytes;
    uint64_t seed;
    size_t rotate_bytes;   /* input sets rotate over at least this many bytes (2 x L2) */
    tetra_scale_layout scale_layout; /* NVFP4 scale layout the tetra arms use */
    int64_t oracle_macs;   /* CPU oracle budget: above it, rows are sampled */
    /* The GEMM call the tetra GEMM arms time and gate: this build's tetra_gemm on ctx
     * (bench_session_open sets them); with --lib-a / --lib-b, that side's arms call another
     * libtetra build's tetra_gemm (bench_lib_load) on gemm_ctx, a context of that build on the
     * same stream, so two builds are compared in one process, paired and order-balanced.
     * Inputs are made by this build (same data formats), except prepared weights: that build's
     * tetra_convert_weights makes them (a prepared layout may differ between builds, e.g.
     * session 24's fragment bit placements), and that build's reference kernel checks its outputs. */
    tetra_status (*gemm)(tetra_context *, const tetra_matrix *, const tetra_matrix *, tetra_matrix *,
                         const tetra_gemm_options *);
    tetra_status (*convert_weights)(tetra_context *, const tetra_matrix *, tetra_matrix *);
    tetra_context *gemm_ctx;
    const char *(*gemm_last_error)(void); /* that build's tetra_last_error */
    const char *gemm_lib; /* that build's path, for the arm's note; NULL with this build */
    int verbose;
} bench_env;

#define BENCH_OK 0
#define BENCH_ERROR (-1)
#define BENCH_UNSUPPORTED (-2) /* skipped cleanly; msg says why */

typedef struct bench_arm {
    const char *name;
    const char *op;      /* gemm, quantize, dequantize, mem */
    const char *variant; /* w4a16, w4a4, bf16, fp8, nvfp4, read, copy */
    const char *timed;   /* "kernel" (pre-packed inputs) or "full-call" */
    int hidden;          /* not in the default list (broken-gemm) */
    int (*setup)(const bench_env *env, const bench_shape *s, void **state, char *msg, size_t len);
    int (*run)(void *state);   /* one call on env->stream; rotates the input set */
    int (*check)(void *state, bench_check *out, char *msg, size_t len); /* NULL: no gate */
    void (*teardown)(void *state);
    double (*flops)(const bench_shape *s);
    double (*bytes)(const bench_shape *s); /* minimum bytes: inputs read, outputs written once */
    int copy_ceiling;    /* % of the copy ceiling instead of the read ceiling */
    /* optional: a line about what setup chose (the tuned algorithm), or NULL */
    const char *(*describe)(void *state);
} bench_arm;

const bench_arm *bench_arm_find(const char *name);
/* All arms, hidden ones included; *n receives the count. */
const bench_arm *const *bench_arms(int *n);
/* How many input sets of per_set bytes an arm rotates through: enough to cover
 * env->rotate_bytes (2x L2), at most max_sets, fewer if they would not fit in 80% of the
 * free device memory. 0 (with a message) when not even one set fits. */
int bench_rotation_sets(const bench_env *env, size_t per_set, int max_sets, char *msg, size_t len);
/* Sets the arm's tetra/cuBLAS status message. */
int bench_set_msg(char *msg, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ------------------------------------------------------------------ telemetry (NVML) */

typedef struct bench_tel {
    double sm_mhz, mem_mhz, power_w, temp_c;
    unsigned long long throttle; /* NVML clocks-event reasons bitmask */
    int valid;
} bench_tel;

/* dlopen("libnvidia-ml.so.1") and find the device with the CUDA device's PCI bus id.
 * Returns 1 if available; otherwise 0 and note says why. Read-only: never sets clocks. */
int bench_tel_open(int cuda_device, char *note, size_t len);
bench_tel bench_tel_sample(void);
const char *bench_tel_driver(void); /* NVML driver version or "" */
void bench_tel_close(void);

/* ------------------------------------------------------------------ timing protocol */

typedef struct bench_opts {
    int blocks;            /* ABBA/BAAB blocks (default 20) */
    int max_samples;       /* samples per segment at most (default 5) */
    double segment_ms;     /* target time per segment (default 2) */
    double warmup_ms;      /* warm-up per arm (default 50) */
    double graph_below_us; /* calls shorter than this are timed as graph replays (20) */
    double graph_sample_us;/* target duration of one graph replay (500) */
} bench_opts;
bench_opts bench_opts_default(void);

#define BENCH_MAX_BLOCKS 256

typedef struct bench_block {
    int ab_first;
    double a_med, b_med, ratio;
    int ns;                 /* samples per arm in this block */
    double a_us[16], b_us[16];
    bench_tel tel;
} bench_block;

typedef struct bench_arm_timing {
    int graph;              /* timed as CUDA-graph replays */
    int launches;           /* launches per sample */
    int samples;            /* samples per segment */
    int sets;               /* input sets rotated */
    double est_us;
} bench_arm_timing;

/* Everything one row (shape x arm A x arm B) produces. */
typedef struct bench_row {
    bench_shape shape;
    const bench_arm *a, *b;
    int status;             /* BENCH_OK, BENCH_UNSUPPORTED (skipped), BENCH_ERROR */
    char msg[512];
    bench_gate gate_a, gate_b;
    bench_arm_timing ta, tb;
    int nblocks;
    bench_block blocks[BENCH_MAX_BLOCKS];
    double a_us, b_us, ratio, ci_lo, ci_hi, ci_coverage;
    double ratio_ab_first, ratio_ba_first;
    bench_verdict call, verdict;
    double replicate_ratio; /* NaN: not replicated */
    double flops, bytes;
    double a_tflops, a_gbps, a_pct, b_tflops, b_gbps, b_pct;
    char cmd[1024];         /* replayable command line */
    char note_a[160], note_b[160]; /* what setup chose (tuned algorithm, path) */
} bench_row;

typedef struct bench_ceilings {
    /* 0 = unknown; fp8_tflops is the ceiling of FP8 arms (their FLOPs run at twice the
       BF16 rate on Hopper, so a BF16 ceiling would put them above 100%) */
    double read_gbps, copy_gbps, bf16_tflops, fp8_tflops;
} bench_ceilings;

/* A device session: stream, context, cuBLASLt handle, telemetry. */
typedef struct bench_lib bench_lib; /* another libtetra build, loaded (bench_lib_load) */
typedef struct bench_session {
    bench_env env;
    tetra_device_info info;
    int nvml;
    char nvml_note[256];
    /* --lib-a / --lib-b: side 0 (arm A) or 1 (arms B) runs its tetra GEMM calls in another
     * build (bench_session_use_lib); NULL: this build */
    bench_lib *lib[2];
} bench_session;

/* Load another libtetra build (a shared library: libtetra.so of that build) and resolve the
 * calls the bench needs. No device needed. NULL with a message (path unreadable, not a tetra
 * library). */
bench_lib *bench_lib_load(const char *path, char *msg, size_t len);
void bench_lib_free(bench_lib *l);
/* Side 0 (arm A) or 1 (arms B) of the session runs its tetra GEMM calls in l (a context of
 * that build on the session's device and stream). The session owns l afterwards. */
int bench_session_use_lib(bench_session *s, int side, bench_lib *l, char *msg, size_t len);
/* env with l's GEMM call, context and path (l NULL: env unchanged). */
void bench_lib_apply(const bench_lib *l, bench_env *env);

/* 0 ok; BENCH_UNSUPPORTED when there is no device (msg). */
int bench_session_open(bench_session *s, uint64_t seed, char *msg, size_t len);
void bench_session_close(bench_session *s);

/* Run one row: setup both arms, gate both, time interleaved blocks. A failing gate or
 * an unsupported arm leaves the row untimed with status/msg set. */
void bench_run_row(bench_session *s, const bench_opts *o, const bench_shape *shape,
                   const bench_arm *a, const bench_arm *b, bench_row *row);
/* The correctness gate of one arm state (runs arm->check and bench_gate_eval). */
void bench_gate_arm(const bench_arm *arm, void *state, bench_gate *g, char *msg, size_t len);
/* Median microseconds per call of arm->run(state) over `samples` samples, each a CUDA-graph
 * replay of enough calls to last ~500 us (a launch loop if capture fails): kernel time
 * without host launch cost, for comparing configurations (tetra tune). NaN on error. */
double bench_time_calls(bench_session *s, const bench_arm *arm, void *state, int samples);
/* call(ctx, 0) .. call(ctx, n - 1) (each returning 0 on success) captured on `stream` into an
 * instantiated CUDA graph (a cudaGraphExec_t); NULL where the capture or a call fails (the
 * CUDA error is cleared). Used by the runner's graph-timed rows and by the tuned cuBLASLt arm's
 * candidate timing. */
void *bench_capture_calls(void *stream, int (*call)(void *ctx, int i), void *ctx, int n);
/* Pin the configuration of a tetra GEMM arm's state (tetra-gemm*, as tetra_gemm_options:
 * path, tile_m, splits; AUTO/0/0 = the arm's default). Returns the status of one call
 * under the pin (synchronised), so TETRA_ERR_UNSUPPORTED means the pin cannot run here. */
tetra_status bench_gemm_pin(void *state, tetra_gemm_path path, int tile_m, int splits);

/* Fill derived numbers (TFLOP/s, GB/s, % of ceiling) from ceilings (may be zeros). */
void bench_row_derive(bench_row *row, const bench_ceilings *c);

/* Measure the ceilings: read bandwidth over read_bytes, copy over copy_bytes (each
 * direction), tuned BF16 GEMM of gemm_dim^3. 0 ok. */
int bench_measure_ceilings(bench_session *s, size_t read_bytes, size_t copy_bytes,
                           int64_t gemm_dim, bench_ceilings *out, char *msg, size_t len);

/* ------------------------------------------------------------------ JSON */

typedef struct bench_json_writer {
    char *buf;
    size_t len, cap;
    int depth;
    int first[64];
    int failed;
} bench_json_writer;

void bjw_init(bench_json_writer *w);
void bjw_free(bench_json_writer *w);
/* key is NULL inside arrays */
void bjw_obj(bench_json_writer *w, const char *key);
void bjw_obj_end(bench_json_writer *w);
void bjw_arr(bench_json_writer *w, const char *key);
void bjw_arr_end(bench_json_writer *w);
void bjw_num(bench_json_writer *w, const char *key, double v); /* non-finite -> null */
void bjw_int(bench_json_writer *w, const char *key, long long v);
void bjw_str(bench_json_writer *w, const char *key, const char *v); /* NULL -> null */
void bjw_bool(bench_json_writer *w, const char *key, int v);
void bjw_null(bench_json_writer *w, const char *key);
/* {"m", "n", "k", "l", "set"} under key, as every results file writes a shape */
void bench_write_shape(bench_json_writer *w, const char *key, const bench_shape *sh);
/* The writer's buffer as a plain string builder (markdown, SVG). */
void bjw_raw(bench_json_writer *w, const char *text);
void bjw_rawf(bench_json_writer *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

typedef enum { BJ_NULL, BJ_BOOL, BJ_NUM, BJ_STR, BJ_ARR, BJ_OBJ } bench_json_type;
typedef struct bench_json {
    bench_json_type type;
    double num;
    char *str;                 /* BJ_STR; also the key when inside an object */
    char *key;
    struct bench_json **items; /* BJ_ARR / BJ_OBJ */
    int n;
} bench_json;

/* Parse text; NULL on malformed input (err gets the offset). */
bench_json *bench_json_parse(const char *text, char *err, size_t errlen);
bench_json *bench_json_load(const char *path, char *err, size_t errlen);
void bench_json_free(bench_json *j);
const bench_json *bench_json_get(const bench_json *obj, const char *key); /* NULL if absent */
double bench_json_num(const bench_json *j, double dflt);   /* number or dflt */
const char *bench_json_str(const bench_json *j, const char *dflt);
const bench_json *bench_json_at(const bench_json *arr, int i);
int bench_json_len(const bench_json *arr);

/* Write buf to path atomically: path.tmp.<pid>, then rename. 0 ok, -1 (errno kept). */
int bench_write_atomic(const char *path, const char *buf, size_t len);
/* Can we create a file next to path? 0 yes, -1 no (message in err). Creates nothing. */
int bench_check_writable(const char *path, char *err, size_t errlen);

/* ------------------------------------------------------------------ results files */

typedef struct bench_run_meta {
    const char *commit, *date, *cmdline;
    const tetra_device_info *info;
    const char *nvml_driver, *nvml_note;
    int nvml;
    bench_ceilings ceilings;
    double t_noise;      /* NaN: uncalibrated */
    const char *calibration_file;
    uint64_t seed;
    const bench_opts *opts;
    size_t rotate_bytes;
    int rows_planned; /* rows the sweep will run; a file with fewer is partial (0: unknown) */
} bench_run_meta;

void bench_write_env(bench_json_writer *w, const bench_run_meta *m);
void bench_write_row(bench_json_writer *w, const bench_row *r, int with_blocks);
void bench_write_results(bench_json_writer *w, const bench_run_meta *m, const bench_row *rows, int n);

/* ------------------------------------------------------------------ report */

/* Markdown report (report.md) + speedup.svg + ceiling.svg into dir from parsed results
 * files. 0 ok, -1 with message. */
int bench_report(const bench_json *const *files, const char *const *names, int nfiles,
                 const char *dir, char *err, size_t errlen);

/* Helpers shared by the CLI. */
void bench_iso_date(char *out, size_t len);
void bench_git_commit(char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
