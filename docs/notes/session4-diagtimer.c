#define _POSIX_C_SOURCE 200809L
/* scratch (not committed): time the transposed kernel in TETRA_GEMM_DIAG builds, where the
 * outputs are wrong by design (mode 1: no dequantization, 3: no scale loads, 4: both), so
 * the bench's gate would refuse the timing. Median of 7 x (20 calls / events). */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include "tetra.h"
static int cmpf(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return (x > y) - (x < y); }
int main(int argc, char **argv) {
    tetra_context *ctx;
    if (tetra_context_create(&ctx, 0) != TETRA_OK) { printf("no ctx: %s\n", tetra_last_error()); return 1; }
    const long shapes[][3] = {{4096, 4096, 4096}, {2048, 14336, 4096}};
    const char *modes[] = {"0", "1", "3", "4"};
    for (int si = 0; si < 2; si++) {
        long M = shapes[si][0], N = shapes[si][1], K = shapes[si][2];
        void *a, *b, *sc, *d;
        cudaMalloc(&a, M * K * 2); cudaMemset(a, 0x3c, M * K * 2);
        cudaMalloc(&b, N * K / 2); cudaMemset(b, 0x25, N * K / 2);
        cudaMalloc(&sc, N * K / 16); cudaMemset(sc, 0x38, N * K / 16);
        cudaMalloc(&d, M * N * 2);
        tetra_matrix A = tetra_matrix_dense(TETRA_DTYPE_BF16, a, M, K);
        tetra_matrix B = tetra_matrix_nvfp4(b, sc, TETRA_SCALE_SWIZZLED_128X4, N, K, 1.0f);
        tetra_matrix D = tetra_matrix_dense(TETRA_DTYPE_BF16, d, M, N);
        for (int path = 5; path <= 5; path++)
        for (int mi = 0; mi < 4; mi++) {
            tetra_gemm_options o = tetra_gemm_options_default();
            o.path = (tetra_gemm_path)path;
            setenv("TETRA_GEMM_DIAG_MODE", modes[mi], 1);
            float t[7];
            cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
            int ok = 1;
            for (int w = 0; w < 3; w++) ok &= tetra_gemm(ctx, &A, &B, &D, &o) == TETRA_OK;
            for (int r = 0; r < 7 && ok; r++) {
                cudaEventRecord(e0, 0);
                for (int i = 0; i < 20; i++) tetra_gemm(ctx, &A, &B, &D, &o);
                cudaEventRecord(e1, 0); cudaEventSynchronize(e1);
                cudaEventElapsedTime(&t[r], e0, e1); t[r] *= 1000.0f / 20;
            }
            if (!ok) { printf("%ldx%ldx%ld path %d mode %s: %s\n", M, N, K, path, modes[mi], tetra_last_error()); continue; }
            qsort(t, 7, sizeof t[0], cmpf);
            printf("%ldx%ldx%ld path %d diag %s: median %.2f us (min %.2f max %.2f)\n", M, N, K, path, modes[mi], t[3], t[0], t[6]);
        }
        cudaFree(a); cudaFree(b); cudaFree(sc); cudaFree(d);
    }
    return 0;
}
