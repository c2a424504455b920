/* test_bench_json.c - the JSON writer/reader round trip (escapes, nesting, non-finite
 * numbers as null), atomic writes, the results file (PROTOCOL.md fields) and the report
 * generated from a synthetic results file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "testutil.h"

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    long n;
    char *b;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = (char *)malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    if (b) b[n] = 0;
    fclose(f);
    return b;
}

static void test_round_trip(void) {
    bench_json_writer w;
    bench_json *j;
    char err[128];
    const bench_json *arr, *o;
    bjw_init(&w);
    bjw_obj(&w, NULL);
    bjw_str(&w, "s", "quote \" backslash \\ newline \n tab \t ctl \x01 end");
    bjw_num(&w, "x", 1.25e-7);
    bjw_num(&w, "nan", NAN);
    bjw_int(&w, "i", -1234567890123LL);
    bjw_bool(&w, "t", 1);
    bjw_null(&w, "z");
    bjw_arr(&w, "a");
    bjw_num(&w, NULL, 1);
    bjw_obj(&w, NULL);
    bjw_str(&w, "k", "v");
    bjw_obj_end(&w);
    bjw_arr(&w, NULL);
    bjw_arr_end(&w);
    bjw_arr_end(&w);
    bjw_obj(&w, "empty");
    bjw_obj_end(&w);
    bjw_obj_end(&w);
    CHECK(!w.failed);
    j = bench_json_parse(w.buf, err, sizeof err);
    CHECK_MSG(j != NULL, "%s\n%s", err, w.buf);
    if (!j) { bjw_free(&w); return; }
    CHECK(!strcmp(bench_json_str(bench_json_get(j, "s"), ""), "quote \" backslash \\ newline \n tab \t ctl \x01 end"));
    CHECK(bench_json_num(bench_json_get(j, "x"), 0) == 1.25e-7);
    CHECK(bench_json_get(j, "nan")->type == BJ_NULL);
    CHECK(isnan(bench_json_num(bench_json_get(j, "nan"), NAN)));
    CHECK(bench_json_num(bench_json_get(j, "i"), 0) == -1234567890123.0);
    CHECK(bench_json_num(bench_json_get(j, "t"), 0) == 1);
    arr = bench_json_get(j, "a");
    CHECK(bench_json_len(arr) == 3);
    o = bench_json_at(arr, 1);
    CHECK(!strcmp(bench_json_str(bench_json_get(o, "k"), ""), "v"));
    CHECK(bench_json_len(bench_json_at(arr, 2)) == 0);
    CHECK(bench_json_get(j, "missing") == NULL);
    bench_json_free(j);
    bjw_free(&w);
    /* malformed inputs are rejected, not crashed on */
    {
        const char *bad[] = {"", "{", "{\"a\":}", "[1,]", "{\"a\" 1}", "\"abc", "[1] x", "{\"a\":tru}", "[\"\\q\"]"};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            bench_json *b = bench_json_parse(bad[i], err, sizeof err);
            CHECK_MSG(b == NULL, "accepted '%s'", bad[i]);
            bench_json_free(b);
        }
    }
}

static void test_atomic(const char *dir) {
    char path[512], err[256];
    char *text;
    snprintf(path, sizeof path, "%s/atomic.json", dir);
    CHECK(bench_check_writable(path, err, sizeof err) == 0);
    CHECK(access(path, F_OK) != 0); /* the check creates nothing */
    CHECK(bench_write_atomic(path, "{}\n", 3) == 0);
    text = slurp(path);
    CHECK(text && !strcmp(text, "{}\n"));
    free(text);
    CHECK(bench_check_writable("/nonexistent-dir-tetra/x.json", err, sizeof err) < 0);
    CHECK(bench_write_atomic("/nonexistent-dir-tetra/x.json", "x", 1) < 0);
}

static bench_row synthetic_row(const char *a, const char *b, int64_t m, double ratio, int status) {
    bench_row r;
    memset(&r, 0, sizeof r);
    r.shape.m = m;
    r.shape.n = 4096;
    r.shape.k = 4096;
    r.shape.l = 1;
    r.a = bench_arm_find(a);
    r.b = bench_arm_find(b);
    r.status = status;
    r.a_us = 10;
    r.b_us = 10 * ratio;
    r.ratio = ratio;
    r.ci_lo = ratio - 0.01;
    r.ci_hi = ratio + 0.01;
    r.ratio_ab_first = ratio + 0.002;
    r.ratio_ba_first = ratio - 0.002;
    r.replicate_ratio = NAN;
    r.call = r.verdict = ratio > 1.05 ? BENCH_VERDICT_FASTER : BENCH_VERDICT_WITHIN_NOISE;
    r.gate_a.applicable = r.gate_b.applicable = 1;
    r.gate_a.pass = r.gate_b.pass = 1;
    r.gate_a.normwise = 1e-3;
    r.ta.samples = r.tb.samples = 2;
    r.nblocks = 4;
    for (int i = 0; i < 4; i++) {
        r.blocks[i].ab_first = i % 2 == 0;
        r.blocks[i].ratio = ratio;
        r.blocks[i].a_med = 10;
        r.blocks[i].b_med = 10 * ratio;
        for (int s = 0; s < 4; s++) { r.blocks[i].a_us[s] = 10; r.blocks[i].b_us[s] = 10 * ratio; }
        r.blocks[i].tel.valid = 1;
        r.blocks[i].tel.sm_mhz = 1980 - i;
        r.blocks[i].tel.power_w = 400 + i;
        r.blocks[i].tel.temp_c = 50 + i;
    }
    if (status != BENCH_OK) snprintf(r.msg, sizeof r.msg, "cuBLASLt refuses <NVFP4> & co");
    snprintf(r.cmd, sizeof r.cmd, "tetra bench --a %s --b %s --shape %lldx4096x4096", a, b, (long long)m);
    bench_row_derive(&r, &(bench_ceilings){4450, 4190, 700, 0});
    return r;
}

static void test_results_and_report(const char *dir) {
    bench_row rows[3];
    bench_run_meta m;
    bench_json_writer w;
    tetra_device_info info;
    bench_opts o = bench_opts_default();
    char path[512], rdir[512], err[256];
    bench_json *j;
    const bench_json *files[1];
    const char *names[1];
    memset(&info, 0, sizeof info);
    snprintf(info.name, sizeof info.name, "Synthetic GPU");
    info.sms = 132;
    info.runtime_version = 13000;
    info.driver_version = 13000;
    rows[0] = synthetic_row("cublaslt-bf16-tuned", "cublaslt-bf16", 16, 1.10, BENCH_OK);
    rows[1] = synthetic_row("cublaslt-bf16-tuned", "cublaslt-fp8", 64, 0.70, BENCH_OK);
    rows[2] = synthetic_row("cublaslt-bf16-tuned", "cublaslt-nvfp4", 64, NAN, BENCH_UNSUPPORTED);
    memset(&m, 0, sizeof m);
    m.commit = "0123456789abcdef0123456789abcdef01234567";
    m.date = "2026-12-01T00:00:00Z";
    m.cmdline = "tetra bench --set decode";
    m.info = &info;
    m.nvml_note = "synthetic";
    m.ceilings = (bench_ceilings){4450, 4190, 700, 0};
    m.t_noise = 0.004;
    m.calibration_file = "cal.json";
    m.seed = 1;
    m.opts = &o;
    m.rows_planned = 5; /* as a sweep stopped after 3 of its 5 rows leaves its file */
    bjw_init(&w);
    bench_write_results(&w, &m, rows, 3);
    snprintf(path, sizeof path, "%s/results.json", dir);
    CHECK(!w.failed && bench_write_atomic(path, w.buf, w.len) == 0);
    bjw_free(&w);
    j = bench_json_load(path, err, sizeof err);
    CHECK_MSG(j != NULL, "%s", err);
    if (!j) return;
    /* PROTOCOL.md fields */
    {
        const bench_json *res = bench_json_get(j, "results"), *r0 = bench_json_at(res, 0);
        const char *top[] = {"tool", "commit", "date", "device", "ceilings", "t_noise", "results"};
        const char *row[] = {"op", "variant", "shape", "arm_a", "arm_b", "a_us", "b_us", "ratio", "ci", "verdict",
                             "tflops", "GBps", "pct_ceiling", "err", "telemetry", "blocks", "cmd",
                             "ratio_ab_first", "ratio_ba_first"};
        for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) CHECK_MSG(bench_json_get(j, top[i]), "missing %s", top[i]);
        for (size_t i = 0; i < sizeof row / sizeof row[0]; i++) CHECK_MSG(bench_json_get(r0, row[i]), "row missing %s", row[i]);
        CHECK(bench_json_len(res) == 3);
        CHECK(!strcmp(bench_json_str(bench_json_get(j, "tool"), ""), "tetra bench"));
        CHECK(bench_json_num(bench_json_get(bench_json_get(j, "device"), "sms"), 0) == 132);
        CHECK(fabs(bench_json_num(bench_json_get(r0, "ratio"), 0) - 1.10) < 1e-9);
        CHECK(!strcmp(bench_json_str(bench_json_get(r0, "verdict"), ""), "faster"));
        CHECK(bench_json_len(bench_json_get(r0, "blocks")) == 4);
        CHECK(bench_json_len(bench_json_get(bench_json_get(r0, "telemetry"), "sm_mhz")) == 2);
        CHECK(bench_json_num(bench_json_at(bench_json_get(bench_json_get(r0, "telemetry"), "sm_mhz"), 0), 0) == 1977);
        CHECK(!strcmp(bench_json_str(bench_json_get(bench_json_at(res, 2), "verdict"), ""), "skipped"));
        CHECK(bench_json_num(bench_json_get(r0, "pct_ceiling"), 0) > 0);
        CHECK(bench_json_get(j, "complete") && bench_json_get(j, "complete")->type == BJ_BOOL &&
              bench_json_num(bench_json_get(j, "complete"), 1) == 0);
        CHECK(bench_json_num(bench_json_get(j, "rows_planned"), 0) == 5);
    }
    files[0] = j;
    names[0] = "results.json";
    snprintf(rdir, sizeof rdir, "%s/report", dir);
    CHECK_MSG(bench_report(files, names, 1, rdir, err, sizeof err) == 0, "%s", err);
    {
        char p[600], *md, *svg;
        snprintf(p, sizeof p, "%s/report.md", rdir);
        md = slurp(p);
        CHECK(md && strstr(md, "Synthetic GPU") && strstr(md, "speedup.svg") && strstr(md, "1.100 [1.090, 1.110]"));
        CHECK(md && strstr(md, "skipped"));
        CHECK(md && strstr(md, "**partial**: 3 of 5 planned rows"));
        free(md);
        snprintf(p, sizeof p, "%s/speedup.svg", rdir);
        svg = slurp(p);
        CHECK(svg && !strncmp(svg, "<svg", 4) && strstr(svg, "</svg>") && strstr(svg, "<circle"));
        CHECK(svg && !strstr(svg, "nan") && !strstr(svg, "inf"));
        free(svg);
        snprintf(p, sizeof p, "%s/ceiling.svg", rdir);
        svg = slurp(p);
        CHECK(svg && strstr(svg, "</svg>") && strstr(svg, "&lt;") == NULL);
        free(svg);
    }
    bench_json_free(j);
}

/* FP8 arms are held to the FP8 GEMM ceiling: unknown ceiling -> no %, never the BF16 one
   (against which an FP8 GEMM reads above 100%). */
static void test_fp8_ceiling(void) {
    bench_row r;
    memset(&r, 0, sizeof r);
    r.shape.m = r.shape.n = r.shape.k = 4096;
    r.shape.l = 1;
    r.a = bench_arm_find("cublaslt-bf16-tuned");
    r.b = bench_arm_find("cublaslt-fp8");
    CHECK(r.a && r.b);
    if (!r.a || !r.b) return;
    r.a_us = 200; /* 687 TFLOP/s */
    r.b_us = 100; /* 1374 TFLOP/s: 196% of a 700 BF16 ceiling */
    bench_row_derive(&r, &(bench_ceilings){4450, 4190, 700, 0});
    CHECK(fabs(r.a_pct - 100.0 * 687.19476736 / 700) < 0.01);
    CHECK(isnan(r.b_pct));
    bench_row_derive(&r, &(bench_ceilings){4450, 4190, 700, 1400});
    CHECK(fabs(r.b_pct - 100.0 * 1374.38953472 / 1400) < 0.01);
}

int main(void) {
    char dir[] = "/tmp/tetra-bench-json-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip();
    test_atomic(dir);
    test_results_and_report(dir);
    test_fp8_ceiling();
    {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    }
    return tu_finish("test_bench_json");
}
