/* shapes.c - named shape sets from data/shapes.txt and --m/--n/--k lists. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

int bench_shapes_push(bench_shapes *s, bench_shape sh) {
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        bench_shape *v = (bench_shape *)realloc(s->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = sh;
    return 0;
}

void bench_shapes_free(bench_shapes *s) {
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int parse_i64(const char *p, const char **end, int64_t *v) {
    char *e;
    long long x;
    if (!isdigit((unsigned char)*p)) return -1;
    x = strtoll(p, &e, 10);
    if (x < 1 || x > (1LL << 40)) return -1;
    *v = x;
    *end = e;
    return 0;
}

int bench_parse_list(const char *text, int64_t *out, int cap) {
    const char *p = text;
    int n = 0;
    if (!text || !*text) return -1;
    for (;;) {
        int64_t a, b;
        if (parse_i64(p, &p, &a)) return -1;
        b = a;
        if (*p == '-') {
            p++;
            if (parse_i64(p, &p, &b) || b < a) return -1;
        }
        for (int64_t v = a; v <= b; v++) {
            if (n >= cap) return -1;
            out[n++] = v;
        }
        if (*p == 0) return n;
        if (*p != ',') return -1;
        p++;
    }
}

int bench_parse_shape(const char *text, bench_shape *out) {
    int64_t v[4] = {0, 0, 0, 1};
    const char *p = text;
    int i = 0;
    memset(out, 0, sizeof *out);
    for (;;) {
        if (i >= 4 || parse_i64(p, &p, &v[i])) return -1;
        i++;
        if (*p == 0) break;
        if (*p != 'x' && *p != 'X') return -1;
        p++;
    }
    if (i < 3) return -1;
    out->m = v[0];
    out->n = v[1];
    out->k = v[2];
    out->l = v[3];
    return 0;
}

int bench_shapes_add_list(bench_shapes *s, const char *list, char *err, size_t errlen) {
    char tok[128];
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        bench_shape sh;
        if (n == 0 || n >= sizeof tok) {
            snprintf(err, errlen, "malformed shape list '%s' (want MxNxK or MxNxKxL, comma-separated)", list);
            return -1;
        }
        memcpy(tok, p, n);
        tok[n] = 0;
        if (bench_parse_shape(tok, &sh)) {
            snprintf(err, errlen, "malformed shape '%s' (want MxNxK or MxNxKxL)", tok);
            return -1;
        }
        if (bench_shapes_push(s, sh)) {
            snprintf(err, errlen, "out of host memory");
            return -1;
        }
        p += n;
        if (*p == ',') p++;
    }
    return 0;
}

int bench_find_shapes_file(const char *explicit_path, char *out, size_t outlen) {
    char exe[4096], cand[4200];
    const char *env = getenv("TETRA_SHAPES");
    ssize_t n;
    if (explicit_path) {
        snprintf(out, outlen, "%s", explicit_path);
        return access(out, R_OK) ? -1 : 0;
    }
    if (env && *env && !access(env, R_OK)) {
        snprintf(out, outlen, "%s", env);
        return 0;
    }
    if (!access("data/shapes.txt", R_OK)) {
        snprintf(out, outlen, "data/shapes.txt");
        return 0;
    }
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        char *slash;
        exe[n] = 0;
        if ((slash = strrchr(exe, '/'))) *slash = 0;
        const char *rel[] = {"/../data/shapes.txt", "/../../data/shapes.txt", "/../share/tetra/shapes.txt"};
        for (int i = 0; i < 3; i++) {
            snprintf(cand, sizeof cand, "%s%s", exe, rel[i]);
            if (!access(cand, R_OK)) {
                snprintf(out, outlen, "%s", cand);
                return 0;
            }
        }
    }
    return -1;
}

int bench_shapes_add_sets(bench_shapes *s, const char *path, const char *names, char *err, size_t errlen) {
    char want[512], line[512];
    char *save = NULL, *tok;
    FILE *f;
    snprintf(want, sizeof want, "%s", names);
    for (tok = strtok_r(want, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0, lineno = 0;
        if (!(f = fopen(path, "r"))) {
            snprintf(err, errlen, "cannot read shapes file %s", path);
            return -1;
        }
        while (fgets(line, sizeof line, f)) {
            char set[64];
            long long m, n, k, l = 1;
            int got;
            char *hash = strchr(line, '#');
            lineno++;
            if (hash) *hash = 0;
            got = sscanf(line, "%63s %lld %lld %lld %lld", set, &m, &n, &k, &l);
            if (got <= 0) continue;
            if (got < 4 || m < 1 || n < 1 || k < 1 || l < 1) {
                snprintf(err, errlen, "%s:%d: malformed line (want: set m n k [l])", path, lineno);
                fclose(f);
                return -1;
            }
            if (strcmp(set, tok)) continue;
            bench_shape sh;
            memset(&sh, 0, sizeof sh);
            sh.m = m; sh.n = n; sh.k = k; sh.l = l;
            snprintf(sh.set, sizeof sh.set, "%.31s", set);
            if (bench_shapes_push(s, sh)) {
                fclose(f);
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            found++;
        }
        fclose(f);
        if (!found) {
            snprintf(err, errlen, "unknown shape set '%s' (not in %s)", tok, path);
            return -1;
        }
    }
    return 0;
}
