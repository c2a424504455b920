#define _POSIX_C_SOURCE 200809L
/* Session 12 diagnostic driver (built on the device against a TETRA_GEMM_TRACE and/or
 * TETRA_GEMM_DIAG build of libtetra.a; not part of the library or its tests).
 *   session12-trace OUTPREFIX MxNxK [MxNxK ...]
 * Per shape: random BF16 A and NVFP4 B (swizzled scales, codes 0x30..0x3f), AUTO path.
 * Times median of 7 x (20 calls between events) for each TETRA_GEMM_DIAG_MODE listed in
 * $MODES (default "0"; modes other than 0 need a TETRA_GEMM_DIAG build and give wrong
 * outputs by design: 1 no dequantization, 3 no scale loads, 4 both), then, if $TRACE is set,
 * makes one traced call (TETRA_GEMM_TRACE build) writing OUTPREFIX-MxNxK.bin. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "tetra.h"

static int cmpf(const void *a, const void *b) {
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static void *dev_random(size_t bytes, int kind) {
    uint8_t *h = (uint8_t *)malloc(bytes);
    void *d = NULL;
    for (size_t i = 0; i < bytes; i++) {
        const uint32_t r = next32();
        if (kind == 0) h[i] = (uint8_t)r;                                    /* E2M1 pairs */
        else if (kind == 1) h[i] = (uint8_t)(0x30 + (r & 15));               /* UE4M3 scales */
        else h[i] = (i & 1) ? (uint8_t)(0x3B + (r & 3) + ((r >> 2 & 1) << 7)) /* BF16 high byte: +-[2^-9, 1) */
                            : (uint8_t)r;
    }
    if (cudaMalloc(&d, bytes) != cudaSuccess || cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "cuda alloc/copy failed\n");
        exit(1);
    }
    free(h);
    return d;
}

int main(int argc, char **argv) {
    tetra_context *ctx;
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUTPREFIX MxNxK [MxNxK ...]\n", argv[0]);
        return 2;
    }
    if (tetra_context_create(&ctx, 0) != TETRA_OK) {
        printf("no context: %s\n", tetra_last_error());
        return 1;
    }
    const char *modes = getenv("MODES") ? getenv("MODES") : "0";
    for (int s = 2; s < argc; s++) {
        long M, N, K;
        if (sscanf(argv[s], "%ldx%ldx%ld", &M, &N, &K) != 3) {
            fprintf(stderr, "bad shape %s\n", argv[s]);
            return 2;
        }
        void *a = dev_random((size_t)M * K * 2, 2), *b = dev_random((size_t)N * K / 2, 0);
        void *sc = dev_random((size_t)N * K / 16, 1), *d = NULL;
        cudaMalloc(&d, (size_t)M * N * 2);
        tetra_matrix A = tetra_matrix_dense(TETRA_DTYPE_BF16, a, M, K);
        tetra_matrix B = tetra_matrix_nvfp4(b, sc, TETRA_SCALE_SWIZZLED_128X4, N, K, 1.0f);
        tetra_matrix D = tetra_matrix_dense(TETRA_DTYPE_BF16, d, M, N);
        tetra_gemm_options o = tetra_gemm_options_default();
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        for (const char *m = modes; *m; m++) {
            if (*m == ' ' || *m == ',') continue;
            char mode[2] = {*m, 0};
            setenv("TETRA_GEMM_DIAG_MODE", mode, 1);
            float t[7];
            int ok = 1;
            for (int w = 0; w < 5; w++) ok &= tetra_gemm(ctx, &A, &B, &D, &o) == TETRA_OK;
            for (int r = 0; r < 7 && ok; r++) {
                cudaEventRecord(e0, 0);
                for (int i = 0; i < 20; i++) tetra_gemm(ctx, &A, &B, &D, &o);
                cudaEventRecord(e1, 0);
                cudaEventSynchronize(e1);
                cudaEventElapsedTime(&t[r], e0, e1);
                t[r] *= 1000.0f / 20;
            }
            if (!ok) {
                printf("%s mode %s: %s\n", argv[s], mode, tetra_last_error());
                continue;
            }
            qsort(t, 7, sizeof t[0], cmpf);
            printf("%s mode %s: median %.3f us (min %.3f max %.3f) %.1f TFLOP/s\n", argv[s], mode, t[3], t[0], t[6],
                   2.0 * M * N * K / (t[3] * 1e-6) / 1e12);
        }
        unsetenv("TETRA_GEMM_DIAG_MODE");
        if (getenv("TRACE")) {
            char path[512];
            snprintf(path, sizeof path, "%s-%s.bin", argv[1], argv[s]);
            setenv("TETRA_GEMM_TRACE_OUT", path, 1);
            for (int w = 0; w < 3; w++) tetra_gemm(ctx, &A, &B, &D, &o); /* the last call's trace stays */
            cudaDeviceSynchronize();
            unsetenv("TETRA_GEMM_TRACE_OUT");
            printf("%s traced -> %s (%s)\n", argv[s], path, cudaGetErrorString(cudaGetLastError()));
        }
        cudaFree(a);
        cudaFree(b);
        cudaFree(sc);
        cudaFree(d);
    }
    tetra_context_destroy(ctx);
    return 0;
}
