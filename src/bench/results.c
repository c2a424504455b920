/* results.c - results files (PROTOCOL.md fields plus raw blocks and telemetry) and the
 * markdown + SVG report. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench.h"

void bench_iso_date(char *out, size_t len) {
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void bench_git_commit(char *out, size_t len) {
    const char *env = getenv("TETRA_COMMIT");
    FILE *p;
    snprintf(out, len, "unknown");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return;
    }
    if ((p = popen("git rev-parse HEAD 2>/dev/null", "r"))) {
        char buf[64] = "";
        if (fgets(buf, sizeof buf, p) && strlen(buf) >= 40) {
            buf[40] = 0;
            snprintf(out, len, "%s", buf);
        }
        pclose(p);
    }
}

static const char *status_name(int st) {
    return st == BENCH_OK ? "ok" : st == BENCH_UNSUPPORTED ? "skipped" : "error";
}

void bench_write_env(bench_json_writer *w, const bench_run_meta *m) {
    char cuda[32], drv[32];
    bjw_str(w, "tool", "tetra bench");
    bjw_str(w, "tetra_version", tetra_version());
    bjw_str(w, "commit", m->commit);
    bjw_str(w, "date", m->date);
    bjw_str(w, "cmdline", m->cmdline);
    bjw_obj(w, "device");
    if (m->info) {
        snprintf(cuda, sizeof cuda, "%d.%d", m->info->runtime_version / 1000, (m->info->runtime_version % 1000) / 10);
        snprintf(drv, sizeof drv, "%d.%d", m->info->driver_version / 1000, (m->info->driver_version % 1000) / 10);
        bjw_str(w, "name", m->info->name);
        bjw_str(w, "driver", m->nvml_driver && *m->nvml_driver ? m->nvml_driver : drv);
        bjw_str(w, "cuda", cuda);
        bjw_str(w, "cuda_driver_api", drv);
        bjw_int(w, "sms", m->info->sms);
        bjw_int(w, "cc", m->info->major * 10 + m->info->minor);
        bjw_int(w, "l2_bytes", (long long)m->info->l2_bytes);
        bjw_int(w, "global_bytes", (long long)m->info->global_bytes);
    }
    bjw_obj_end(w);
    bjw_bool(w, "nvml", m->nvml);
    bjw_str(w, "telemetry_note", m->nvml_note ? m->nvml_note : "");
    bjw_obj(w, "ceilings");
    bjw_num(w, "read_GBps", m->ceilings.read_gbps > 0 ? m->ceilings.read_gbps : NAN);
    bjw_num(w, "copy_GBps", m->ceilings.copy_gbps > 0 ? m->ceilings.copy_gbps : NAN);
    bjw_num(w, "bf16_gemm_TFLOPs", m->ceilings.bf16_tflops > 0 ? m->ceilings.bf16_tflops : NAN);
    bjw_num(w, "fp8_gemm_TFLOPs", m->ceilings.fp8_tflops > 0 ? m->ceilings.fp8_tflops : NAN);
    bjw_obj_end(w);
    bjw_num(w, "t_noise", m->t_noise);
    bjw_str(w, "calibration_file", m->calibration_file);
    bjw_int(w, "seed", (long long)m->seed);
    if (m->opts) {
        bjw_obj(w, "protocol");
        bjw_int(w, "blocks", m->opts->blocks);
        bjw_str(w, "block_orders", "ABBA,BAAB alternating");
        bjw_int(w, "max_samples_per_segment", m->opts->max_samples);
        bjw_num(w, "segment_ms", m->opts->segment_ms);
        bjw_num(w, "warmup_ms", m->opts->warmup_ms);
        bjw_num(w, "graph_below_us", m->opts->graph_below_us);
        bjw_num(w, "graph_sample_us", m->opts->graph_sample_us);
        bjw_int(w, "rotate_bytes", (long long)m->rotate_bytes);
        bjw_str(w, "ci", "distribution-free order-statistic 95% CI of the median block ratio");
        bjw_obj_end(w);
    }
}

static void write_gate(bench_json_writer *w, const char *key, const bench_gate *g) {
    bjw_obj(w, key);
    bjw_bool(w, "applicable", g->applicable);
    bjw_bool(w, "pass", g->pass);
    if (g->applicable) {
        bjw_str(w, "method", g->method);
        bjw_bool(w, "exact", g->exact);
        bjw_num(w, "normwise", g->normwise);
        bjw_num(w, "max_rel", g->max_rel);
        bjw_num(w, "rel_p50", g->rel_p50);
        bjw_num(w, "rel_p99", g->rel_p99);
        bjw_num(w, "rel_max", g->rel_max);
        bjw_num(w, "floor_normwise", g->floor_normwise);
        bjw_num(w, "floor_max_rel", g->floor_max_rel);
        bjw_num(w, "limit_normwise", g->limit_normwise);
        bjw_num(w, "limit_max_rel", g->limit_max_rel);
        bjw_int(w, "nonfinite", g->nonfinite);
        bjw_int(w, "rows_checked", g->rows_checked);
        bjw_int(w, "rows_total", g->rows_total);
    } else {
        bjw_str(w, "method", g->method);
    }
    bjw_obj_end(w);
}

static void write_timing(bench_json_writer *w, const char *key, const bench_arm_timing *t) {
    bjw_obj(w, key);
    bjw_bool(w, "cuda_graph", t->graph);
    bjw_int(w, "launches_per_sample", t->launches);
    bjw_int(w, "samples_per_segment", t->samples);
    bjw_num(w, "estimate_us", t->est_us);
    bjw_obj_end(w);
}

static void minmax(const bench_row *r, int which, double *lo, double *hi) {
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < r->nblocks; i++) {
        const bench_tel *t = &r->blocks[i].tel;
        double v = which == 0 ? t->sm_mhz : which == 1 ? t->mem_mhz : which == 2 ? t->power_w : t->temp_c;
        if (!t->valid) continue;
        if (v < *lo) *lo = v;
        if (v > *hi) *hi = v;
    }
}

void bench_write_shape(bench_json_writer *w, const char *key, const bench_shape *sh) {
    bjw_obj(w, key);
    bjw_int(w, "m", sh->m);
    bjw_int(w, "n", sh->n);
    bjw_int(w, "k", sh->k);
    bjw_int(w, "l", sh->l);
    bjw_str(w, "set", sh->set);
    bjw_obj_end(w);
}

void bench_write_row(bench_json_writer *w, const bench_row *r, int with_blocks) {
    static const char *tel_keys[4] = {"sm_mhz", "mem_mhz", "power_w", "temp_c"};
    unsigned long long thr = 0;
    bjw_obj(w, NULL);
    bjw_str(w, "op", r->a->op);
    bjw_str(w, "variant", r->a->variant);
    bjw_str(w, "variant_b", r->b->variant);
    bench_write_shape(w, "shape", &r->shape);
    bjw_str(w, "arm_a", r->a->name);
    bjw_str(w, "arm_b", r->b->name);
    bjw_str(w, "timed_a", r->a->timed);
    bjw_str(w, "timed_b", r->b->timed);
    bjw_str(w, "status", status_name(r->status));
    bjw_str(w, "message", r->msg);
    bjw_num(w, "a_us", r->a_us);
    bjw_num(w, "b_us", r->b_us);
    bjw_num(w, "ratio", r->ratio);
    bjw_arr(w, "ci");
    bjw_num(w, NULL, r->ci_lo);
    bjw_num(w, NULL, r->ci_hi);
    bjw_arr_end(w);
    bjw_num(w, "ci_coverage", r->ci_coverage);
    bjw_num(w, "ratio_ab_first", r->ratio_ab_first);
    bjw_num(w, "ratio_ba_first", r->ratio_ba_first);
    bjw_str(w, "call", bench_verdict_name(r->call));
    bjw_num(w, "replicate_ratio", r->replicate_ratio);
    bjw_str(w, "verdict", r->status == BENCH_OK ? bench_verdict_name(r->verdict) : status_name(r->status));
    bjw_num(w, "flops", r->flops);
    bjw_num(w, "min_bytes", r->bytes);
    bjw_num(w, "tflops", r->a_tflops);
    bjw_num(w, "GBps", r->a_gbps);
    bjw_num(w, "pct_ceiling", r->a_pct);
    bjw_num(w, "b_tflops", r->b_tflops);
    bjw_num(w, "b_GBps", r->b_gbps);
    bjw_num(w, "b_pct_ceiling", r->b_pct);
    bjw_obj(w, "err");
    bjw_num(w, "normwise", r->gate_a.normwise);
    bjw_num(w, "max_rel", r->gate_a.max_rel);
    bjw_bool(w, "pass", r->gate_a.pass);
    bjw_obj_end(w);
    bjw_obj(w, "gate");
    write_gate(w, "a", &r->gate_a);
    write_gate(w, "b", &r->gate_b);
    bjw_obj_end(w);
    bjw_obj(w, "timing");
    write_timing(w, "a", &r->ta);
    write_timing(w, "b", &r->tb);
    bjw_obj_end(w);
    bjw_obj(w, "notes");
    bjw_str(w, "a", r->note_a);
    bjw_str(w, "b", r->note_b);
    bjw_obj_end(w);
    bjw_obj(w, "telemetry");
    for (int k = 0; k < 4; k++) {
        double lo, hi;
        minmax(r, k, &lo, &hi);
        bjw_arr(w, tel_keys[k]);
        if (isfinite(lo)) { bjw_num(w, NULL, lo); bjw_num(w, NULL, hi); }
        bjw_arr_end(w);
    }
    for (int i = 0; i < r->nblocks; i++) thr |= r->blocks[i].tel.throttle;
    bjw_int(w, "throttle_reasons_or", (long long)thr);
    bjw_obj_end(w);
    bjw_str(w, "cmd", r->cmd);
    if (with_blocks) {
        bjw_arr(w, "blocks");
        for (int i = 0; i < r->nblocks; i++) {
            const bench_block *b = &r->blocks[i];
            bjw_obj(w, NULL);
            bjw_str(w, "order", b->ab_first ? "ABBA" : "BAAB");
            bjw_num(w, "ratio", b->ratio);
            bjw_num(w, "a_med", b->a_med);
            bjw_num(w, "b_med", b->b_med);
            bjw_arr(w, "a_us");
            for (int j = 0; j < 2 * r->ta.samples && j < 16; j++) bjw_num(w, NULL, b->a_us[j]);
            bjw_arr_end(w);
            bjw_arr(w, "b_us");
            for (int j = 0; j < 2 * r->tb.samples && j < 16; j++) bjw_num(w, NULL, b->b_us[j]);
            bjw_arr_end(w);
            if (b->tel.valid) {
                bjw_num(w, "sm_mhz", b->tel.sm_mhz);
                bjw_num(w, "mem_mhz", b->tel.mem_mhz);
                bjw_num(w, "power_w", b->tel.power_w);
                bjw_num(w, "temp_c", b->tel.temp_c);
                bjw_int(w, "throttle", (long long)b->tel.throttle);
            }
            bjw_obj_end(w);
        }
        bjw_arr_end(w);
    }
    bjw_obj_end(w);
}

void bench_write_results(bench_json_writer *w, const bench_run_meta *m, const bench_row *rows, int n) {
    bjw_obj(w, NULL);
    bench_write_env(w, m);
    bjw_str(w, "kind", "results");
    /* a sweep rewrites its file after every row, so a killed run keeps the rows it finished */
    if (m->rows_planned) {
        bjw_num(w, "rows_planned", m->rows_planned);
        bjw_bool(w, "complete", n >= m->rows_planned);
    }
    bjw_arr(w, "results");
    for (int i = 0; i < n; i++) bench_write_row(w, &rows[i], 1);
    bjw_arr_end(w);
    bjw_obj_end(w);
}

/* ---------------------------------------------------------------- report */

typedef struct {
    char label[160];
    double ratio, lo, hi, t_noise, pct_a, pct_b;
    const char *verdict;
} rep_row;

static const char *jstr(const bench_json *o, const char *k) { return bench_json_str(bench_json_get(o, k), ""); }
static double jnum(const bench_json *o, const char *k) { return bench_json_num(bench_json_get(o, k), NAN); }

static int write_text(const char *dir, const char *name, const char *text, char *err, size_t errlen) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (bench_write_atomic(path, text, strlen(text))) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static void xml_escape(bench_json_writer *b, const char *s) {
    for (; *s; s++) {
        char c[2] = {*s, 0};
        if (*s == '<') bjw_raw(b, "&lt;");
        else if (*s == '>') bjw_raw(b, "&gt;");
        else if (*s == '&') bjw_raw(b, "&amp;");
        else bjw_raw(b, c);
    }
}

/* Speedup per row: a dot at the median ratio, whiskers at the CI, a band for 1 +- t_noise. */
static void svg_speedup(bench_json_writer *b, const rep_row *r, int n) {
    const int lw = 360, pw = 520, rh = 20, top = 40;
    int h = top + n * rh + 40;
    double lo = 1.0, hi = 1.0;
    for (int i = 0; i < n; i++) {
        double a = isfinite(r[i].lo) ? r[i].lo : r[i].ratio, z = isfinite(r[i].hi) ? r[i].hi : r[i].ratio;
        if (isfinite(r[i].t_noise)) { a = fmin(a, 1 - r[i].t_noise); z = fmax(z, 1 + r[i].t_noise); }
        if (isfinite(a)) lo = fmin(lo, a);
        if (isfinite(z)) hi = fmax(hi, z);
    }
    lo = log(lo * 0.97);
    hi = log(hi * 1.03);
#define XS(v) (lw + (log(v) - lo) / (hi - lo) * pw)
    bjw_rawf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n",
             lw + pw + 20, h);
    bjw_rawf(b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    bjw_rawf(b, "<text x=\"10\" y=\"18\" font-size=\"13\">ratio = time(B) / time(A), median over blocks with 95%% CI; above 1: A faster; grey band: 1 &#177; t_noise</text>\n");
    for (int i = 0; i < n; i++) {
        double y = top + i * rh + rh / 2.0;
        if (isfinite(r[i].t_noise) && r[i].t_noise > 0)
            bjw_rawf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#e6e6e6\"/>\n", XS(1 - r[i].t_noise),
                     y - rh / 2.0, XS(1 + r[i].t_noise) - XS(1 - r[i].t_noise), rh);
        bjw_rawf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", lw - 8, y + 4);
        xml_escape(b, r[i].label);
        bjw_raw(b, "</text>\n");
        if (!isfinite(r[i].ratio)) continue;
        if (isfinite(r[i].lo) && isfinite(r[i].hi))
            bjw_rawf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", XS(r[i].lo), XS(r[i].hi), y, y);
        bjw_rawf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", XS(r[i].ratio), y,
                 !strcmp(r[i].verdict, "faster") ? "#2a7" : !strcmp(r[i].verdict, "slower") ? "#c33" : "#555");
    }
    bjw_rawf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#06c\" stroke-dasharray=\"4 3\"/>\n", XS(1.0),
             XS(1.0), top - 5, top + n * rh);
    {
        double ticks[] = {0.25, 0.5, 0.67, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2, 3, 4, 8};
        for (int t = 0; t < 13; t++) {
            double v = ticks[t];
            if (log(v) < lo || log(v) > hi) continue;
            bjw_rawf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", XS(v), top + n * rh + 16, v);
            bjw_rawf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#999\"/>\n", XS(v), XS(v), top + n * rh,
                     top + n * rh + 4);
        }
    }
#undef XS
    bjw_raw(b, "</svg>\n");
}

/* % of the relevant ceiling per row, arms A and B as two bars. */
static void svg_ceiling(bench_json_writer *b, const rep_row *r, int n) {
    const int lw = 360, pw = 440, rh = 22, top = 40;
    int h = top + n * rh + 40;
    bjw_rawf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n",
             lw + pw + 60, h);
    bjw_rawf(b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    bjw_rawf(b, "<text x=\"10\" y=\"18\" font-size=\"13\">%% of the measured ceiling (larger of compute-time and byte-time floors): A blue, B orange</text>\n");
    for (int i = 0; i < n; i++) {
        double y = top + i * rh;
        double pa = isfinite(r[i].pct_a) ? fmin(r[i].pct_a, 120) : 0, pb = isfinite(r[i].pct_b) ? fmin(r[i].pct_b, 120) : 0;
        bjw_rawf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", lw - 8, y + 14);
        xml_escape(b, r[i].label);
        bjw_raw(b, "</text>\n");
        bjw_rawf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"9\" fill=\"#36c\"/>\n", lw, y + 2, pa / 100.0 * pw);
        bjw_rawf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"9\" fill=\"#e83\"/>\n", lw, y + 11, pb / 100.0 * pw);
        if (isfinite(r[i].pct_a)) bjw_rawf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\">%.0f%%</text>\n", lw + pa / 100.0 * pw + 3, y + 10, r[i].pct_a);
        if (isfinite(r[i].pct_b)) bjw_rawf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\">%.0f%%</text>\n", lw + pb / 100.0 * pw + 3, y + 19, r[i].pct_b);
    }
    for (int t = 0; t <= 100; t += 25) {
        double x = lw + t / 100.0 * pw;
        bjw_rawf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#bbb\" stroke-dasharray=\"2 3\"/>\n", x, x, top, top + n * rh);
        bjw_rawf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d%%</text>\n", x, top + n * rh + 16, t);
    }
    bjw_raw(b, "</svg>\n");
}

int bench_report(const bench_json *const *files, const char *const *names, int nfiles, const char *dir, char *err,
                 size_t errlen) {
    bench_json_writer md, svg;
    rep_row *rows = NULL;
    int n = 0, cap = 0, rc = -1;
    if (mkdir(dir, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create directory %s: %s", dir, strerror(errno));
        return -1;
    }
    bjw_init(&md);
    bjw_init(&svg);
    bjw_raw(&md, "# tetra bench report\n\n");
    bjw_raw(&md, "Generated by `tetra report` from the results files below. Ratio = time(B) / time(A): above 1 "
                 "means arm A is faster. A difference is called only when the 95% CI excludes 1 +- t_noise, "
                 "the AB-first and BA-first halves agree, and a replicate in a fresh process agrees "
                 "(docs/bench.md).\n\n");
    bjw_raw(&md, "![speedup per shape](speedup.svg)\n\n![percent of ceiling](ceiling.svg)\n\n");
    for (int f = 0; f < nfiles; f++) {
        const bench_json *j = files[f], *dev = bench_json_get(j, "device"), *ce = bench_json_get(j, "ceilings");
        const bench_json *res = bench_json_get(j, "results");
        double tn = jnum(j, "t_noise");
        bjw_rawf(&md, "## %s\n\n", names[f]);
        bjw_rawf(&md, "- device: %s (driver %s, CUDA %s, %.0f SMs)\n", jstr(dev, "name"), jstr(dev, "driver"),
                 jstr(dev, "cuda"), jnum(dev, "sms"));
        bjw_rawf(&md, "- commit `%s`, date %s\n", jstr(j, "commit"), jstr(j, "date"));
        {
            const bench_json *done = bench_json_get(j, "complete");
            if (done && done->type == BJ_BOOL && !done->num)
                bjw_rawf(&md, "- **partial**: %d of %.0f planned rows (the sweep was stopped before its end)\n",
                         bench_json_len(res), jnum(j, "rows_planned"));
        }
        if (isfinite(jnum(ce, "read_GBps")))
            bjw_rawf(&md, "- ceilings: read %.0f GB/s, copy %.0f GB/s, BF16 GEMM %.0f TFLOP/s, FP8 GEMM %.0f TFLOP/s\n",
                     jnum(ce, "read_GBps"), jnum(ce, "copy_GBps"), jnum(ce, "bf16_gemm_TFLOPs"),
                     jnum(ce, "fp8_gemm_TFLOPs"));
        else
            bjw_raw(&md, "- ceilings: not measured in this run\n");
        if (isfinite(tn)) bjw_rawf(&md, "- t_noise: %.4f (%s)\n", tn, jstr(j, "calibration_file"));
        else bjw_raw(&md, "- t_noise: not calibrated (no verdicts called)\n");
        bjw_rawf(&md, "- telemetry: %s\n", jstr(j, "telemetry_note"));
        if (!strcmp(jstr(j, "kind"), "calibration")) {
            bjw_rawf(&md, "- calibration of `%s`: t_noise = %.4f over %d fresh processes\n\n", jstr(j, "arm"), tn,
                     bench_json_len(bench_json_get(j, "runs")));
            continue;
        }
        if (!strcmp(jstr(j, "kind"), "ceilings")) {
            bjw_raw(&md, "\n");
            continue;
        }
        bjw_raw(&md, "\n| shape (MxNxK) | A | B | A us | B us | ratio [95% CI] | AB / BA first | verdict | A TFLOP/s | A GB/s | A % ceil | B % ceil | gate A / B |\n");
        bjw_raw(&md, "|---|---|---|---:|---:|---|---|---|---:|---:|---:|---:|---|\n");
        for (int i = 0; i < bench_json_len(res); i++) {
            const bench_json *r = bench_json_at(res, i), *sh = bench_json_get(r, "shape"), *ci = bench_json_get(r, "ci");
            const bench_json *ga = bench_json_get(bench_json_get(r, "gate"), "a"), *gb = bench_json_get(bench_json_get(r, "gate"), "b");
            rep_row rr;
            char shape[64];
            snprintf(shape, sizeof shape, "%.0fx%.0fx%.0f", jnum(sh, "m"), jnum(sh, "n"), jnum(sh, "k"));
            if (strcmp(jstr(r, "status"), "ok")) {
                bjw_rawf(&md, "| %s | %s | %s | | | %s | | %s | | | | | |\n", shape, jstr(r, "arm_a"), jstr(r, "arm_b"),
                         jstr(r, "message"), jstr(r, "status"));
                continue;
            }
            memset(&rr, 0, sizeof rr);
            snprintf(rr.label, sizeof rr.label, "%s vs %s %s", jstr(r, "arm_b"), jstr(r, "arm_a"), shape);
            rr.ratio = jnum(r, "ratio");
            rr.lo = bench_json_num(bench_json_at(ci, 0), NAN);
            rr.hi = bench_json_num(bench_json_at(ci, 1), NAN);
            rr.t_noise = tn;
            rr.pct_a = jnum(r, "pct_ceiling");
            rr.pct_b = jnum(r, "b_pct_ceiling");
            rr.verdict = jstr(r, "verdict");
            bjw_rawf(&md, "| %s | %s | %s | %.2f | %.2f | %.3f [%.3f, %.3f] | %.3f / %.3f | %s | %.1f | %.0f | %.1f | %.1f | %s / %s |\n",
                     shape, jstr(r, "arm_a"), jstr(r, "arm_b"), jnum(r, "a_us"), jnum(r, "b_us"), rr.ratio, rr.lo, rr.hi,
                     jnum(r, "ratio_ab_first"), jnum(r, "ratio_ba_first"), rr.verdict, jnum(r, "tflops"), jnum(r, "GBps"),
                     rr.pct_a, rr.pct_b, bench_json_num(bench_json_get(ga, "pass"), 0) ? "pass" : "FAIL",
                     bench_json_num(bench_json_get(gb, "pass"), 0) ? "pass" : "FAIL");
            if (n == cap) {
                rep_row *v = (rep_row *)realloc(rows, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *v);
                if (!v) { snprintf(err, errlen, "out of memory"); goto done; }
                rows = v;
            }
            rows[n++] = rr;
        }
        bjw_raw(&md, "\nReplay any row with its `cmd` field in the JSON file.\n\n");
    }
    svg_speedup(&svg, rows, n);
    if (svg.failed || write_text(dir, "speedup.svg", svg.buf ? svg.buf : "", err, errlen)) goto done;
    bjw_free(&svg);
    bjw_init(&svg);
    svg_ceiling(&svg, rows, n);
    if (svg.failed || write_text(dir, "ceiling.svg", svg.buf ? svg.buf : "", err, errlen)) goto done;
    if (md.failed || write_text(dir, "report.md", md.buf ? md.buf : "", err, errlen)) goto done;
    rc = 0;
done:
    bjw_free(&md);
    bjw_free(&svg);
    free(rows);
    return rc;
}
