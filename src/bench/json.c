/* json.c - a small JSON writer (growable buffer, no recursion limits beyond 64 levels)
 * and a minimal reader (a tree of nodes) for what the report and calibration read. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* ---------------------------------------------------------------- writer */

static void put(bench_json_writer *w, const char *s, size_t n) {
    if (w->failed) return;
    if (w->len + n + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        char *b;
        while (cap < w->len + n + 1) cap *= 2;
        if (!(b = (char *)realloc(w->buf, cap))) {
            w->failed = 1;
            return;
        }
        w->buf = b;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = 0;
}
static void puts_(bench_json_writer *w, const char *s) { put(w, s, strlen(s)); }

static void put_string(bench_json_writer *w, const char *s) {
    char esc[8];
    puts_(w, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            esc[0] = '\\'; esc[1] = (char)c; put(w, esc, 2);
        } else if (c == '\n') puts_(w, "\\n");
        else if (c == '\t') puts_(w, "\\t");
        else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            puts_(w, esc);
        } else put(w, (const char *)&c, 1);
    }
    puts_(w, "\"");
}

static void newline(bench_json_writer *w) {
    puts_(w, "\n");
    for (int i = 0; i < w->depth; i++) puts_(w, " ");
}

static void item(bench_json_writer *w, const char *key) {
    if (w->depth > 0) {
        if (!w->first[w->depth]) puts_(w, ",");
        w->first[w->depth] = 0;
        newline(w);
    }
    if (key) {
        put_string(w, key);
        puts_(w, ": ");
    }
}

void bjw_init(bench_json_writer *w) { memset(w, 0, sizeof *w); }
void bjw_free(bench_json_writer *w) { free(w->buf); memset(w, 0, sizeof *w); }

static void open_(bench_json_writer *w, const char *key, const char *br) {
    item(w, key);
    puts_(w, br);
    if (w->depth < 63) w->depth++;
    w->first[w->depth] = 1;
}
static void close_(bench_json_writer *w, const char *br) {
    int empty = w->first[w->depth];
    if (w->depth > 0) w->depth--;
    if (!empty) newline(w);
    puts_(w, br);
    if (w->depth == 0) puts_(w, "\n");
}
void bjw_obj(bench_json_writer *w, const char *key) { open_(w, key, "{"); }
void bjw_obj_end(bench_json_writer *w) { close_(w, "}"); }
void bjw_arr(bench_json_writer *w, const char *key) { open_(w, key, "["); }
void bjw_arr_end(bench_json_writer *w) { close_(w, "]"); }

void bjw_num(bench_json_writer *w, const char *key, double v) {
    char b[40];
    item(w, key);
    if (!isfinite(v)) { puts_(w, "null"); return; }
    snprintf(b, sizeof b, "%.9g", v);
    puts_(w, b);
}
void bjw_int(bench_json_writer *w, const char *key, long long v) {
    char b[32];
    item(w, key);
    snprintf(b, sizeof b, "%lld", v);
    puts_(w, b);
}
void bjw_str(bench_json_writer *w, const char *key, const char *v) {
    item(w, key);
    if (v) put_string(w, v); else puts_(w, "null");
}
void bjw_bool(bench_json_writer *w, const char *key, int v) { item(w, key); puts_(w, v ? "true" : "false"); }
void bjw_null(bench_json_writer *w, const char *key) { item(w, key); puts_(w, "null"); }

void bjw_raw(bench_json_writer *w, const char *text) { puts_(w, text); }
void bjw_rawf(bench_json_writer *w, const char *fmt, ...) {
    char small[512];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) { put(w, small, (size_t)n); return; }
    {
        char *big = (char *)malloc((size_t)n + 1);
        if (!big) { w->failed = 1; return; }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        put(w, big, (size_t)n);
        free(big);
    }
}

/* ---------------------------------------------------------------- reader */

typedef struct { const char *s; size_t i; int depth; } parser;

static void ws(parser *p) {
    while (p->s[p->i] == ' ' || p->s[p->i] == '\n' || p->s[p->i] == '\r' || p->s[p->i] == '\t') p->i++;
}

static bench_json *node(bench_json_type t) {
    bench_json *j = (bench_json *)calloc(1, sizeof *j);
    if (j) j->type = t;
    return j;
}

static int push(bench_json *parent, bench_json *child) {
    bench_json **v = (bench_json **)realloc(parent->items, (size_t)(parent->n + 1) * sizeof *v);
    if (!v) return -1;
    parent->items = v;
    v[parent->n++] = child;
    return 0;
}

static char *parse_string(parser *p) {
    size_t cap = 32, n = 0;
    char *out = (char *)malloc(cap);
    if (!out || p->s[p->i] != '"') { free(out); return NULL; }
    p->i++;
    for (;;) {
        char c = p->s[p->i++];
        if (c == 0) { free(out); return NULL; }
        if (c == '"') break;
        if (c == '\\') {
            char e = p->s[p->i++];
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned v = 0;
                for (int k = 0; k < 4; k++) {
                    char h = p->s[p->i++];
                    v <<= 4;
                    if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
                    else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
                    else { free(out); return NULL; }
                }
                c = v < 0x80 ? (char)v : '?'; /* only ASCII escapes matter here */
                break;
            }
            case '"': case '\\': case '/': c = e; break;
            default: free(out); return NULL;
            }
        }
        if (n + 2 > cap) {
            char *o = (char *)realloc(out, cap *= 2);
            if (!o) { free(out); return NULL; }
            out = o;
        }
        out[n++] = c;
    }
    out[n] = 0;
    return out;
}

static bench_json *parse_value(parser *p);

static bench_json *parse_container(parser *p, int obj) {
    bench_json *j = node(obj ? BJ_OBJ : BJ_ARR);
    if (!j || ++p->depth > 200) { bench_json_free(j); return NULL; }
    p->i++;
    ws(p);
    if (p->s[p->i] == (obj ? '}' : ']')) { p->i++; p->depth--; return j; }
    for (;;) {
        char *key = NULL;
        bench_json *v;
        ws(p);
        if (obj) {
            if (!(key = parse_string(p))) break;
            ws(p);
            if (p->s[p->i] != ':') { free(key); break; }
            p->i++;
        }
        if (!(v = parse_value(p))) { free(key); break; }
        v->key = key;
        if (push(j, v)) { bench_json_free(v); break; }
        ws(p);
        if (p->s[p->i] == ',') { p->i++; continue; }
        if (p->s[p->i] == (obj ? '}' : ']')) { p->i++; p->depth--; return j; }
        break;
    }
    bench_json_free(j);
    return NULL;
}

static bench_json *parse_value(parser *p) {
    bench_json *j;
    char c;
    ws(p);
    c = p->s[p->i];
    if (c == '{') return parse_container(p, 1);
    if (c == '[') return parse_container(p, 0);
    if (c == '"') {
        char *s = parse_string(p);
        if (!s || !(j = node(BJ_STR))) { free(s); return NULL; }
        j->str = s;
        return j;
    }
    if (!strncmp(p->s + p->i, "null", 4)) { p->i += 4; return node(BJ_NULL); }
    if (!strncmp(p->s + p->i, "true", 4)) { p->i += 4; j = node(BJ_BOOL); if (j) j->num = 1; return j; }
    if (!strncmp(p->s + p->i, "false", 5)) { p->i += 5; return node(BJ_BOOL); }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        double v = strtod(p->s + p->i, &end);
        if (end == p->s + p->i) return NULL;
        p->i = (size_t)(end - p->s);
        if ((j = node(BJ_NUM))) j->num = v;
        return j;
    }
    return NULL;
}

bench_json *bench_json_parse(const char *text, char *err, size_t errlen) {
    parser p = {text, 0, 0};
    bench_json *j = parse_value(&p);
    if (j) {
        ws(&p);
        if (p.s[p.i] != 0) { bench_json_free(j); j = NULL; }
    }
    if (!j && err) snprintf(err, errlen, "malformed JSON near byte %zu", p.i);
    return j;
}

bench_json *bench_json_load(const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    long n;
    char *buf;
    bench_json *j;
    if (!f) {
        if (err) snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
        !(buf = (char *)malloc((size_t)n + 1))) {
        fclose(f);
        if (err) snprintf(err, errlen, "cannot read %s", path);
        return NULL;
    }
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        if (err) snprintf(err, errlen, "cannot read %s", path);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    j = bench_json_parse(buf, err, errlen);
    free(buf);
    return j;
}

void bench_json_free(bench_json *j) {
    if (!j) return;
    for (int i = 0; i < j->n; i++) bench_json_free(j->items[i]);
    free(j->items);
    free(j->str);
    free(j->key);
    free(j);
}

const bench_json *bench_json_get(const bench_json *o, const char *key) {
    if (!o || o->type != BJ_OBJ) return NULL;
    for (int i = 0; i < o->n; i++)
        if (o->items[i]->key && !strcmp(o->items[i]->key, key)) return o->items[i];
    return NULL;
}
double bench_json_num(const bench_json *j, double dflt) {
    return j && (j->type == BJ_NUM || j->type == BJ_BOOL) ? j->num : dflt;
}
const char *bench_json_str(const bench_json *j, const char *dflt) {
    return j && j->type == BJ_STR ? j->str : dflt;
}
const bench_json *bench_json_at(const bench_json *a, int i) {
    return a && (a->type == BJ_ARR || a->type == BJ_OBJ) && i >= 0 && i < a->n ? a->items[i] : NULL;
}
int bench_json_len(const bench_json *a) {
    return a && (a->type == BJ_ARR || a->type == BJ_OBJ) ? a->n : 0;
}

/* ---------------------------------------------------------------- files */

static void tmp_name(const char *path, char *out, size_t len) {
    snprintf(out, len, "%s.tmp.%ld", path, (long)getpid());
}

int bench_write_atomic(const char *path, const char *buf, size_t len) {
    char tmp[4096];
    FILE *f;
    tmp_name(path, tmp, sizeof tmp);
    if (!(f = fopen(tmp, "wb"))) return -1;
    if (fwrite(buf, 1, len, f) != len || fflush(f) || fsync(fileno(f))) {
        int e = errno;
        fclose(f);
        remove(tmp);
        errno = e;
        return -1;
    }
    if (fclose(f)) { remove(tmp); return -1; }
    if (rename(tmp, path)) {
        int e = errno;
        remove(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

int bench_check_writable(const char *path, char *err, size_t errlen) {
    char tmp[4096];
    FILE *f;
    size_t n = strlen(path);
    if (n == 0 || path[n - 1] == '/') {
        snprintf(err, errlen, "output path '%s' is not a file name", path);
        return -1;
    }
    tmp_name(path, tmp, sizeof tmp);
    if (!(f = fopen(tmp, "wb"))) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    fclose(f);
    remove(tmp);
    return 0;
}
