/* lib.c - another libtetra build in the same process (--lib-a / --lib-b): its tetra_gemm
 * timed against this build's, paired and order-balanced in one run, instead of two processes
 * whose clocks and tuned cuBLAS choices differ (session 15: up to 3% between processes). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct bench_lib {
    void *handle;
    char path[512];
    tetra_status (*context_create)(tetra_context **, int);
    tetra_status (*context_destroy)(tetra_context *);
    tetra_status (*context_set_stream)(tetra_context *, void *);
    tetra_status (*gemm)(tetra_context *, const tetra_matrix *, const tetra_matrix *, tetra_matrix *,
                         const tetra_gemm_options *);
    tetra_status (*convert_weights)(tetra_context *, const tetra_matrix *, tetra_matrix *);
    const char *(*last_error)(void);
    tetra_context *ctx;
};

bench_lib *bench_lib_load(const char *path, char *msg, size_t len) {
    bench_lib *l;
    void *h;
    if (!path || !*path) return bench_set_msg(msg, len, "no library path"), (bench_lib *)NULL;
    /* RTLD_LOCAL: its symbols stay out of the global scope. Its own calls bind to its own
     * functions as long as this executable does not export its statically linked copies (it
     * does not: no -rdynamic); checked below. (RTLD_DEEPBIND would also do, but the
     * sanitizer runtime of the CI's ASan build refuses it.) */
    if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        const char *e = dlerror();
        bench_set_msg(msg, len, "cannot load %s: %s", path, e ? e : "unknown error");
        return NULL;
    }
    if (!(l = (bench_lib *)calloc(1, sizeof *l))) {
        dlclose(h);
        bench_set_msg(msg, len, "out of memory");
        return NULL;
    }
    l->handle = h;
    snprintf(l->path, sizeof l->path, "%s", path);
    /* dlsym returns void *; POSIX guarantees the conversion to a function pointer */
    *(void **)&l->context_create = dlsym(h, "tetra_context_create");
    *(void **)&l->context_destroy = dlsym(h, "tetra_context_destroy");
    *(void **)&l->context_set_stream = dlsym(h, "tetra_context_set_stream");
    *(void **)&l->gemm = dlsym(h, "tetra_gemm");
    *(void **)&l->convert_weights = dlsym(h, "tetra_convert_weights");
    *(void **)&l->last_error = dlsym(h, "tetra_last_error");
    if (!l->context_create || !l->context_destroy || !l->context_set_stream || !l->gemm || !l->convert_weights ||
        !l->last_error) {
        bench_set_msg(msg, len, "%s is not a tetra library (tetra_context_create / tetra_gemm / ... missing)",
                      path);
        bench_lib_free(l);
        return NULL;
    }
    if (l->gemm == tetra_gemm) { /* resolved to this executable's copy: the A/B would compare a build with itself */
        bench_set_msg(msg, len, "%s: its tetra_gemm resolves to this executable's own", path);
        bench_lib_free(l);
        return NULL;
    }
    return l;
}

void bench_lib_free(bench_lib *l) {
    if (!l) return;
    if (l->ctx) l->context_destroy(l->ctx);
    if (l->handle) dlclose(l->handle);
    free(l);
}

int bench_session_use_lib(bench_session *s, int side, bench_lib *l, char *msg, size_t len) {
    if (side < 0 || side > 1 || !l) return bench_set_msg(msg, len, "bad library side"), BENCH_ERROR;
    if (l->context_create(&l->ctx, s->env.device) != TETRA_OK ||
        l->context_set_stream(l->ctx, s->env.stream) != TETRA_OK) {
        bench_set_msg(msg, len, "%s: context: %s", l->path, l->last_error());
        bench_lib_free(l);
        return BENCH_ERROR;
    }
    bench_lib_free(s->lib[side]);
    s->lib[side] = l;
    return BENCH_OK;
}

void bench_lib_apply(const bench_lib *l, bench_env *e) {
    if (!l) return;
    e->gemm = l->gemm;
    e->convert_weights = l->convert_weights;
    e->gemm_ctx = l->ctx;
    e->gemm_last_error = l->last_error;
    e->gemm_lib = l->path;
}
