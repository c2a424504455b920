#include "testutil.h"

#include <string.h>

#include <cuda_runtime_api.h>

#include "format/float16.h"

int tu_failures = 0;

#define TU_GUARD 256
#define TU_SENTINEL 0xA5

void tu_check_err(tetra_status got, tetra_status want, const char *needle, const char *what,
                  const char *file, int line) {
    const char *msg = tetra_last_error();
    if (got != want) {
        tu_failures++;
        fprintf(stderr, "%s:%d: %s returned %s, want %s (%s)\n", file, line, what,
                tetra_status_string(got), tetra_status_string(want), msg);
    } else if (needle && !strstr(msg, needle)) {
        tu_failures++;
        fprintf(stderr, "%s:%d: %s: message '%s' does not name '%s'\n", file, line, what, msg,
                needle);
    }
}

int tu_finish(const char *name) {
    if (tu_failures) {
        fprintf(stderr, "%s: %d check(s) FAILED\n", name, tu_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

tetra_context *tu_gpu_or_skip(const char *name) {
    tetra_context *ctx = NULL;
    tetra_status st = tetra_context_create(&ctx, -1);
    if (st == TETRA_ERR_NO_DEVICE) {
        printf("%s: SKIPPED: no CUDA device (%s)\n", name, tetra_last_error());
        exit(77);
    }
    if (st != TETRA_OK) {
        fprintf(stderr, "%s: cannot create a context: %s\n", name, tetra_last_error());
        exit(1);
    }
    return ctx;
}

static void tu_cuda(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

tu_devbuf tu_dev_alloc(size_t bytes, uint8_t poison) {
    tu_devbuf b;
    tu_cuda(cudaMalloc((void **)&b.base, bytes + 2 * TU_GUARD), "cudaMalloc");
    tu_cuda(cudaMemset(b.base, TU_SENTINEL, bytes + 2 * TU_GUARD), "cudaMemset");
    tu_cuda(cudaMemset(b.base + TU_GUARD, poison, bytes), "cudaMemset");
    b.ptr = b.base + TU_GUARD;
    b.bytes = bytes;
    return b;
}

void tu_dev_upload(tu_devbuf *b, const void *host, size_t bytes) {
    tu_cuda(cudaMemcpy(b->ptr, host, bytes, cudaMemcpyHostToDevice), "upload");
}

void tu_dev_download(const tu_devbuf *b, void *host, size_t bytes) {
    tu_cuda(cudaDeviceSynchronize(), "kernel");
    tu_cuda(cudaMemcpy(host, b->ptr, bytes, cudaMemcpyDeviceToHost), "download");
}

int tu_dev_check_guards(const tu_devbuf *b, const char *what) {
    uint8_t g[2 * TU_GUARD];
    int bad = 0;
    tu_cuda(cudaDeviceSynchronize(), "kernel");
    tu_cuda(cudaMemcpy(g, b->base, TU_GUARD, cudaMemcpyDeviceToHost), "guard");
    tu_cuda(cudaMemcpy(g + TU_GUARD, b->base + TU_GUARD + b->bytes, TU_GUARD,
                       cudaMemcpyDeviceToHost), "guard");
    for (int i = 0; i < 2 * TU_GUARD; i++) bad |= g[i] != TU_SENTINEL;
    if (bad) {
        tu_failures++;
        fprintf(stderr, "out-of-bounds write detected around %s\n", what);
    }
    return !bad;
}

void tu_dev_free(tu_devbuf *b) {
    cudaFree(b->base);
    b->base = NULL;
    b->ptr = NULL;
}

int tu_quick(void) {
    const char *v = getenv("TETRA_TEST_QUICK");
    return v && *v && strcmp(v, "0") != 0;
}

const char *tu_dtype_name(tetra_dtype dt) {
    switch (dt) {
    case TETRA_DTYPE_FP32: return "fp32";
    case TETRA_DTYPE_FP16: return "fp16";
    case TETRA_DTYPE_BF16: return "bf16";
    default: return "nvfp4";
    }
}

size_t tu_dtype_size(tetra_dtype dt) { return dt == TETRA_DTYPE_FP32 ? 4 : 2; }

void tu_fill_normal(tetra_rng *r, float *x, long long n, float scale) {
    for (long long i = 0; i < n; i++) x[i] = (float)tetra_rng_normal(r) * scale;
}

void *tu_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    return p;
}

void *tu_amalloc(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 1)) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    return p;
}

tu_stdmat tu_std_make(tetra_rng *r, long long N, long long K, long long L, tetra_scale_layout lay, long long spad,
                      float gscale, unsigned scale_mod) {
    tu_stdmat s;
    const long long bs = N * K + (L > 1 ? 64 : 0);
    const long long sbs = (long long)tetra_nvfp4_scale_bytes(N, K, lay) + (lay == TETRA_SCALE_LINEAR ? N * spad : 0) +
                          (L > 1 ? 24 : 0);
    s.dbytes = (size_t)(L * bs / 2);
    s.sbytes = (size_t)(L * sbs);
    s.data = (uint8_t *)tu_amalloc(s.dbytes);
    s.scales = (uint8_t *)tu_amalloc(s.sbytes);
    for (size_t i = 0; i < s.dbytes; i++) s.data[i] = (uint8_t)tetra_rng_next(r);
    for (size_t i = 0; i < s.sbytes; i++) s.scales[i] = (uint8_t)(tetra_rng_next(r) % scale_mod);
    s.m = tetra_matrix_nvfp4(s.data, s.scales, lay, N, K, gscale);
    s.m.batch = L;
    s.m.batch_stride = L > 1 ? bs : 0;
    s.m.scale_ld = lay == TETRA_SCALE_LINEAR ? K / 16 + spad : 0;
    s.m.scale_batch_stride = L > 1 ? sbs : 0;
    return s;
}

void tu_put_dense(void *buf, tetra_dtype dt, int64_t i, float v) {
    switch (dt) {
    case TETRA_DTYPE_FP32: ((float *)buf)[i] = v; break;
    case TETRA_DTYPE_FP16: ((uint16_t *)buf)[i] = tetra_f32_to_f16(v); break;
    default: ((uint16_t *)buf)[i] = tetra_f32_to_bf16(v); break;
    }
}

float tu_get_dense(const void *buf, tetra_dtype dt, int64_t i) {
    switch (dt) {
    case TETRA_DTYPE_FP32: return ((const float *)buf)[i];
    case TETRA_DTYPE_FP16: return tetra_f16_to_f32(((const uint16_t *)buf)[i]);
    default: return tetra_bf16_to_f32(((const uint16_t *)buf)[i]);
    }
}
