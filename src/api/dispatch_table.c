/* dispatch_table.c - parse, look up and select GEMM dispatch tables (dispatch_table.h). */
#include "dispatch_table.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* generated from the tables in data/dispatch (CMakeLists.txt): NULL-terminated */
extern const char *const tetra_dispatch_builtin_texts[];

static const struct {
    const char *name;
    tetra_gemm_path path;
} g_paths[] = {{"gemv", TETRA_PATH_GEMV}, {"mma_sync", TETRA_PATH_MMA_SYNC}, {"wgmma", TETRA_PATH_WGMMA},
                {"wgmma_t", TETRA_PATH_WGMMA_T}};

const char *tetra_dispatch_path_name(tetra_gemm_path p) {
    for (size_t i = 0; i < sizeof g_paths / sizeof g_paths[0]; i++)
        if (g_paths[i].path == p) return g_paths[i].name;
    return NULL;
}

int tetra_dispatch_path_parse(const char *name, tetra_gemm_path *p) {
    for (size_t i = 0; i < sizeof g_paths / sizeof g_paths[0]; i++)
        if (!strcmp(g_paths[i].name, name)) {
            *p = g_paths[i].path;
            return 0;
        }
    return -1;
}

void tetra_dispatch_free(tetra_dispatch_table *t) {
    if (!t) return;
    free(t->e);
    memset(t, 0, sizeof *t);
}

static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* One "entry" line's fields after the keyword. */
static int parse_entry(char *rest, tetra_dispatch_entry *e, char *why, size_t len) {
    char *f[9];
    int nf = 0;
    int64_t v;
    /* split on blanks in place (no strtok: contexts may be created on several threads) */
    for (char *c = rest; *c && nf < 9;) {
        while (*c == ' ' || *c == '\t') *c++ = 0;
        if (!*c) break;
        f[nf++] = c;
        while (*c && *c != ' ' && *c != '\t') c++;
    }
    if (nf < 7 || nf > 8) return snprintf(why, len, "an entry has 7 or 8 fields: a m n k path tile_m splits [us]"), -1;
    {
        char *colon = strchr(f[0], ':');
        e->fragment = 0;
        if (colon) {
            if (strcmp(colon + 1, "frag"))
                return snprintf(why, len, "weight layout '%s' is not frag (a is bf16, fp16 or nvfp4, :frag optional)",
                                colon + 1), -1;
            *colon = 0;
            e->fragment = 1;
        }
    }
    if (!strcmp(f[0], "bf16") || !strcmp(f[0], "fp16")) e->a_nvfp4 = 0;
    else if (!strcmp(f[0], "nvfp4")) e->a_nvfp4 = 1;
    else return snprintf(why, len, "activation kind '%s' is not bf16, fp16 or nvfp4", f[0]), -1;
    if (parse_i64(f[1], 1, (int64_t)1 << 47, &e->m) || parse_i64(f[2], 1, (int64_t)1 << 47, &e->n) ||
        parse_i64(f[3], 16, (int64_t)1 << 47, &e->k))
        return snprintf(why, len, "m, n, k must be integers >= 1 (k >= 16)"), -1;
    if (tetra_dispatch_path_parse(f[4], &e->path))
        return snprintf(why, len, "path '%s' is not gemv, mma_sync or wgmma", f[4]), -1;
    if (parse_i64(f[5], 0, 256, &v)) return snprintf(why, len, "tile_m '%s' is not in [0, 256]", f[5]), -1;
    e->tile_m = (int)v;
    if (parse_i64(f[6], 0, 4096, &v)) return snprintf(why, len, "splits '%s' is not in [0, 4096]", f[6]), -1;
    e->splits = (int)v;
    e->lm = log2((double)e->m);
    e->ln = log2((double)e->n);
    e->lk = log2((double)e->k);
    e->us = NAN;
    if (nf == 8) {
        char *end;
        e->us = strtod(f[7], &end);
        if (*end || !(e->us >= 0)) return snprintf(why, len, "time '%s' is not a number >= 0", f[7]), -1;
    }
    return 0;
}

int tetra_dispatch_parse(const char *text, tetra_dispatch_table *t, char *err, size_t errlen) {
    const char *p = text;
    int lineno = 0, have_header = 0, cap = 0;
    char line[1024], why[256];
    memset(t, 0, sizeof *t);
    snprintf(t->origin, sizeof t->origin, "text");
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *s, *hash, *key, *rest;
        lineno++;
        if (len >= sizeof line) {
            snprintf(err, errlen, "line %d: longer than %zu characters", lineno, sizeof line - 1);
            goto fail;
        }
        memcpy(line, p, len);
        line[len] = 0;
        p = nl ? nl + 1 : NULL;
        if ((hash = strchr(line, '#'))) *hash = 0;
        for (s = line + strlen(line); s > line && isspace((unsigned char)s[-1]); s--) s[-1] = 0;
        for (s = line; isspace((unsigned char)*s); s++) {}
        if (!*s) continue;
        key = s;
        while (*s && !isspace((unsigned char)*s)) s++;
        if (*s) *s++ = 0;
        while (isspace((unsigned char)*s)) s++;
        rest = s;
        if (!have_header) {
            if (strcmp(key, "tetra-dispatch-table") || strcmp(rest, "1")) {
                snprintf(err, errlen, "line %d: the first line must be 'tetra-dispatch-table 1'", lineno);
                goto fail;
            }
            have_header = 1;
        } else if (!strcmp(key, "device")) {
            snprintf(t->device, sizeof t->device, "%s", rest);
        } else if (!strcmp(key, "sm")) {
            int64_t v;
            if (parse_i64(rest, 0, 1000, &v)) {
                snprintf(err, errlen, "line %d: sm '%s' is not a number like 90", lineno, rest);
                goto fail;
            }
            t->sm = (int)v;
        } else if (!strcmp(key, "match")) {
            if (strcmp(rest, "exact") && strcmp(rest, "nearest")) {
                snprintf(err, errlen, "line %d: match '%s' is not exact or nearest", lineno, rest);
                goto fail;
            }
            t->exact = !strcmp(rest, "exact");
        } else if (!strcmp(key, "driver") || !strcmp(key, "commit") || !strcmp(key, "date") ||
                   !strcmp(key, "tuned-on") || !strcmp(key, "held-out")) {
            /* provenance: kept in the file, not needed to dispatch */
        } else if (!strcmp(key, "entry")) {
            tetra_dispatch_entry e;
            if (parse_entry(rest, &e, why, sizeof why)) {
                snprintf(err, errlen, "line %d: %s", lineno, why);
                goto fail;
            }
            if (t->n == cap) {
                tetra_dispatch_entry *ne;
                cap = cap ? 2 * cap : 32;
                if (!(ne = (tetra_dispatch_entry *)realloc(t->e, (size_t)cap * sizeof *ne))) {
                    snprintf(err, errlen, "out of host memory");
                    goto fail;
                }
                t->e = ne;
            }
            t->e[t->n++] = e;
        } else {
            snprintf(err, errlen, "line %d: unknown keyword '%s'", lineno, key);
            goto fail;
        }
    }
    if (!have_header) {
        snprintf(err, errlen, "empty table (no 'tetra-dispatch-table 1' line)");
        goto fail;
    }
    if (!t->device[0]) {
        snprintf(err, errlen, "the table has no 'device' line");
        goto fail;
    }
    return 0;
fail:
    tetra_dispatch_free(t);
    return -1;
}

int tetra_dispatch_load(const char *path, tetra_dispatch_table *t, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    int rc;
    memset(t, 0, sizeof *t);
    if (!f) return snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno)), -1;
    if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || n > (16 << 20) || fseek(f, 0, SEEK_SET)) {
        fclose(f);
        return snprintf(err, errlen, "%s: unreadable or larger than 16 MiB", path), -1;
    }
    if (!(buf = (char *)malloc((size_t)n + 1))) {
        fclose(f);
        return snprintf(err, errlen, "out of host memory"), -1;
    }
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return snprintf(err, errlen, "%s: read error", path), -1;
    }
    fclose(f);
    buf[n] = 0;
    rc = tetra_dispatch_parse(buf, t, err, errlen);
    free(buf);
    if (rc == 0) snprintf(t->origin, sizeof t->origin, "%s", path);
    return rc;
}

const tetra_dispatch_entry *tetra_dispatch_lookup(const tetra_dispatch_table *t, int a_nvfp4, int fragment,
                                                  int64_t m, int64_t n, int64_t k) {
    const tetra_dispatch_entry *best = NULL;
    double best_d = INFINITY, lm, ln, lk;
    if (!t || !t->n) return NULL;
    fragment = !!fragment;
    if (t->exact) {
        for (int i = 0; i < t->n; i++) {
            const tetra_dispatch_entry *e = &t->e[i];
            if (e->a_nvfp4 == a_nvfp4 && e->fragment == fragment && e->m == m && e->n == n && e->k == k) return e;
        }
        return NULL;
    }
    /* runs on every AUTO tetra_gemm call: three log2 here, none per entry */
    lm = log2((double)m);
    ln = log2((double)n);
    lk = log2((double)k);
    for (int i = 0; i < t->n; i++) {
        const tetra_dispatch_entry *e = &t->e[i];
        double d;
        if (e->a_nvfp4 != a_nvfp4) continue;
        if (e->fragment != fragment) continue;
        /* the GEMV takes M <= 16 only: never send a larger M there by proximity */
        if (e->path == TETRA_PATH_GEMV && m > 16) continue;
        d = 2.0 * fabs(lm - e->lm) + fabs(ln - e->ln) + fabs(lk - e->lk);
        if (d < best_d) { /* ties: the first entry in file order */
            best_d = d;
            best = e;
        }
    }
    return best;
}

int tetra_dispatch_builtin(const char *device, tetra_dispatch_table *t) {
    char err[256];
    memset(t, 0, sizeof *t);
    for (int i = 0; tetra_dispatch_builtin_texts[i]; i++) {
        tetra_dispatch_table c;
        /* the built-in tables are checked by test_dispatch_table; a bad one is skipped */
        if (tetra_dispatch_parse(tetra_dispatch_builtin_texts[i], &c, err, sizeof err)) continue;
        if (!strcmp(c.device, device)) {
            *t = c;
            snprintf(t->origin, sizeof t->origin, "built-in");
            return 0;
        }
        tetra_dispatch_free(&c);
    }
    return -1;
}
