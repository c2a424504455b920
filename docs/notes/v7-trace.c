#define _POSIX_C_SOURCE 200809L
/* Session 18 (helper v7trace) diagnostic driver for v7's clock trace (built on the device
 * against a TETRA_GEMM_TRACE build of libtetra.a; not part of the library or its tests).
 * docs/notes/session12-trace.c's driver with fragment-ordered weights.
 *   v7-trace OUTPREFIX MxNxK [MxNxK ...]
 * Per shape: random BF16 A and NVFP4 B (swizzled scales, codes 0x30..0x3f), converted to
 * TETRA_SCALE_FRAGMENT_128X64 on the device unless FRAG=0; AUTO path unless TILE_M / SPLITS
 * pin v7's tile or split count (path WGMMA_T). Times the median of 7 x (20 calls between
 * events) (in a TETRA_GEMM_TRACE build these untraced calls run the instrumented kernel
 * with its readings off: compare with the same driver on a plain build for the cost of
 * the instrument's instructions), then, if $TRACE is set, makes one traced call writing
 * OUTPREFIX-MxNxK.bin (docs/notes/v7-trace.py reads it). */
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

static void *dev_alloc(size_t bytes) {
    void *d = NULL;
    if (cudaMalloc(&d, bytes) != cudaSuccess) {
        fprintf(stderr, "cuda alloc failed\n");
        exit(1);
    }
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
    const int frag = getenv("FRAG") ? atoi(getenv("FRAG")) : 1;
    for (int s = 2; s < argc; s++) {
        long M, N, K;
        if (sscanf(argv[s], "%ldx%ldx%ld", &M, &N, &K) != 3) {
            fprintf(stderr, "bad shape %s\n", argv[s]);
            return 2;
        }
        void *a = dev_random((size_t)M * K * 2, 2), *b = dev_random((size_t)N * K / 2, 0);
        void *sc = dev_random((size_t)N * K / 16, 1), *d = dev_alloc((size_t)M * N * 2);
        void *fb = NULL, *fsc = NULL;
        tetra_matrix A = tetra_matrix_dense(TETRA_DTYPE_BF16, a, M, K);
        tetra_matrix B = tetra_matrix_nvfp4(b, sc, TETRA_SCALE_SWIZZLED_128X4, N, K, 1.0f);
        tetra_matrix D = tetra_matrix_dense(TETRA_DTYPE_BF16, d, M, N);
        if (frag) {
            fb = dev_alloc(tetra_nvfp4_fragment_bytes(N, K));
            fsc = dev_alloc(tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_FRAGMENT_128X64));
            tetra_matrix F = tetra_matrix_nvfp4(fb, fsc, TETRA_SCALE_FRAGMENT_128X64, N, K, 1.0f);
            if (tetra_convert_weights(ctx, &B, &F) != TETRA_OK) {
                printf("%s: convert: %s\n", argv[s], tetra_last_error());
                return 1;
            }
            B = F;
        }
        tetra_gemm_options o = tetra_gemm_options_default();
        if (getenv("TILE_M") || getenv("SPLITS")) {
            o.path = TETRA_PATH_WGMMA_T;
            o.tile_m = getenv("TILE_M") ? atoi(getenv("TILE_M")) : 0;
            o.splits = getenv("SPLITS") ? atoi(getenv("SPLITS")) : 0;
        }
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
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
            printf("%s: %s\n", argv[s], tetra_last_error());
        } else {
            qsort(t, 7, sizeof t[0], cmpf);
            printf("%s frag %d: median %.3f us (min %.3f max %.3f) %.1f TFLOP/s\n", argv[s], frag, t[3], t[0], t[6],
                   2.0 * M * N * K / (t[3] * 1e-6) / 1e12);
        }
        if (getenv("TRACE") && ok) {
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
        if (fb) cudaFree(fb);
        if (fsc) cudaFree(fsc);
    }
    tetra_context_destroy(ctx);
    return 0;
}
