/* cmd_demo.c - `tetra info` and `tetra demo`: the main job in one command. The demo
 * quantizes a random weight matrix to NVFP4 (ModelOpt recipe), runs Y = X * W^T on the
 * GPU through tetra_gemm's dispatcher (the best path tetra has), and checks it against
 * the FP64 CPU oracle. Without a CUDA device it says so and runs the CPU path only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cli.h"
#include "format/float16.h"
#include "ref/errstats.h"
#include "ref/rng.h"
#include "tetra.h"

int cmd_info(int argc, char **argv) {
    tetra_device_info info;
    tetra_status st;
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "tetra info: takes no arguments\n");
        return 2;
    }
    printf("tetra %s\n", tetra_version());
    st = tetra_device_info_get(-1, &info);
    if (st != TETRA_OK) {
        printf("no CUDA device found (%s: %s); host functions (quantize, oracle) still work\n",
               tetra_status_string(st), tetra_last_error());
        return 0;
    }
    printf("device: %s, sm_%d%d, %d SMs, %.1f GiB, L2 %.1f MiB, driver %d, runtime %d\n",
           info.name, info.major, info.minor, info.sms, (double)info.global_bytes / (1 << 30),
           (double)info.l2_bytes / (1 << 20), info.driver_version, info.runtime_version);
    return 0;
}

static void print_stats(const char *what, const tetra_err_stats *s) {
    printf("  %-34s normwise %.3e  max|err|/max|ref| %.3e  rel p50 %.2e p99 %.2e max %.2e%s\n",
           what, s->normwise, s->max_rel, s->rel_p50, s->rel_p99, s->rel_max,
           s->n_nonfinite ? "  NON-FINITE" : "");
}

#define DEMO_CUDA(x)                                                                        \
    do {                                                                                    \
        cudaError_t e_ = (x);                                                               \
        if (e_ != cudaSuccess) {                                                            \
            fprintf(stderr, "tetra demo: %s: %s\n", #x, cudaGetErrorString(e_));             \
            rc = 1;                                                                         \
            goto done;                                                                      \
        }                                                                                   \
    } while (0)

int cmd_demo(int argc, char **argv) {
    long long M = 8, N = 4096, K = 4096, seed = 1;
    int force_cpu = 0, rc = 0;
    tetra_rng rng;
    float *w = NULL;
    uint16_t *x = NULL, *y = NULL;
    uint8_t *wq = NULL, *ws = NULL;
    double *ref = NULL, *dense_ref = NULL;
    void *dx = NULL, *dwq = NULL, *dws = NULL, *dy = NULL;
    tetra_context *ctx = NULL;
    tetra_matrix mx, mw, mwq, my;
    tetra_err_stats floor_stats, s;
    tetra_status st;
    size_t sbytes;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long long *target = !strcmp(a, "--m") ? &M : !strcmp(a, "--n") ? &N
                          : !strcmp(a, "--k") ? &K : !strcmp(a, "--seed") ? &seed : NULL;
        if (target) {
            if ((*target = cli_parse_count(a, i + 1 < argc ? argv[i + 1] : NULL)) < 0) return 2;
            i++;
        } else if (!strcmp(a, "--cpu")) {
            force_cpu = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: tetra demo [--m M] [--n N] [--k K] [--seed S] [--cpu]\n");
            return 0;
        } else {
            fprintf(stderr, "tetra demo: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (K % 16) {
        fprintf(stderr, "tetra demo: --k %lld is not a multiple of 16 (the NVFP4 block)\n", K);
        return 2;
    }
    if (M * K > (1LL << 31) || N * K > (1LL << 31)) {
        fprintf(stderr, "tetra demo: problem too large for the demo (M*K and N*K <= 2^31)\n");
        return 2;
    }
    printf("tetra demo: Y[%lld,%lld] = X[%lld,%lld] (BF16) * W[%lld,%lld]^T (NVFP4), seed %lld\n",
           M, N, M, K, N, K, seed);
    rng.s = (uint64_t)seed;
    sbytes = tetra_nvfp4_scale_bytes(N, K, TETRA_SCALE_LINEAR);
    w = malloc((size_t)(N * K) * sizeof *w);
    x = malloc((size_t)(M * K) * sizeof *x);
    y = malloc((size_t)(M * N) * sizeof *y);
    wq = malloc((size_t)(N * K / 2));
    ws = malloc(sbytes);
    ref = malloc((size_t)(M * N) * sizeof *ref);
    dense_ref = malloc((size_t)(M * N) * sizeof *dense_ref);
    if (!w || !x || !y || !wq || !ws || !ref || !dense_ref) {
        fprintf(stderr, "tetra demo: out of host memory\n");
        rc = 1;
        goto done;
    }
    /* weights: normal with a few 20x outliers, as real checkpoints have */
    for (long long i = 0; i < N * K; i++)
        w[i] = (float)(0.02 * tetra_rng_normal(&rng) * (tetra_rng_uniform(&rng) < 0.001 ? 20 : 1));
    for (long long i = 0; i < M * K; i++) x[i] = tetra_f32_to_bf16((float)tetra_rng_normal(&rng));

    mx = tetra_matrix_dense(TETRA_DTYPE_BF16, x, M, K);
    mw = tetra_matrix_dense(TETRA_DTYPE_FP32, w, N, K);
    mwq = tetra_matrix_nvfp4(wq, ws, TETRA_SCALE_LINEAR, N, K, 0.0f);
    my = tetra_matrix_dense(TETRA_DTYPE_BF16, y, M, N);
    if ((st = tetra_quantize_host(&mw, &mwq, TETRA_GLOBAL_SCALE_FROM_AMAX)) != TETRA_OK) {
        fprintf(stderr, "tetra demo: quantize: %s\n", tetra_last_error());
        rc = 1;
        goto done;
    }
    printf("  quantized W: global scale %.6e, %zu bytes packed + %zu bytes of block scales\n",
           (double)mwq.global_scale, (size_t)(N * K / 2), sbytes);
    if (tetra_gemm_host(&mx, &mwq, &my, 1.0f, NULL, ref, 0) != TETRA_OK ||
        tetra_gemm_host(&mx, &mw, &my, 1.0f, NULL, dense_ref, 0) != TETRA_OK) {
        fprintf(stderr, "tetra demo: oracle: %s\n", tetra_last_error());
        rc = 1;
        goto done;
    }
    s = tetra_err_compare(dense_ref, ref, -1, M * N, 0);
    print_stats("NVFP4 quantization vs FP32 weights", &s);

    if (force_cpu) {
        printf("  --cpu: GPU path skipped; the CPU oracle result above is the product\n");
        goto done;
    }
    st = tetra_context_create(&ctx, -1);
    if (st == TETRA_ERR_NO_DEVICE) {
        printf("  no CUDA device found (%s): ran the CPU path only (oracle, FP64)\n",
               tetra_last_error());
        goto done;
    }
    if (st != TETRA_OK) {
        fprintf(stderr, "tetra demo: %s\n", tetra_last_error());
        rc = 1;
        goto done;
    }
    DEMO_CUDA(cudaMalloc(&dx, (size_t)(M * K) * 2));
    DEMO_CUDA(cudaMalloc(&dwq, (size_t)(N * K / 2)));
    DEMO_CUDA(cudaMalloc(&dws, sbytes));
    DEMO_CUDA(cudaMalloc(&dy, (size_t)(M * N) * 2));
    DEMO_CUDA(cudaMemcpy(dx, x, (size_t)(M * K) * 2, cudaMemcpyHostToDevice));
    DEMO_CUDA(cudaMemcpy(dwq, wq, (size_t)(N * K / 2), cudaMemcpyHostToDevice));
    DEMO_CUDA(cudaMemcpy(dws, ws, sbytes, cudaMemcpyHostToDevice));
    DEMO_CUDA(cudaMemset(dy, 0xFF, (size_t)(M * N) * 2)); /* poison: NaN in BF16 */
    {
        tetra_matrix gx = tetra_matrix_dense(TETRA_DTYPE_BF16, dx, M, K);
        tetra_matrix gw = tetra_matrix_nvfp4(dwq, dws, TETRA_SCALE_LINEAR, N, K, mwq.global_scale);
        tetra_matrix gy = tetra_matrix_dense(TETRA_DTYPE_BF16, dy, M, N);
        if ((st = tetra_gemm(ctx, &gx, &gw, &gy, NULL)) != TETRA_OK) {
            fprintf(stderr, "tetra demo: tetra_gemm: %s: %s\n", tetra_status_string(st),
                    tetra_last_error());
            rc = 1;
            goto done;
        }
    }
    DEMO_CUDA(cudaDeviceSynchronize());
    DEMO_CUDA(cudaMemcpy(y, dy, (size_t)(M * N) * 2, cudaMemcpyDeviceToHost));
    floor_stats = tetra_err_dtype_floor(ref, TETRA_DTYPE_BF16, M * N);
    s = tetra_err_compare(ref, y, TETRA_DTYPE_BF16, M * N, 0);
    print_stats("oracle rounded to BF16 (the floor)", &floor_stats);
    print_stats("GPU tetra_gemm vs FP64 oracle", &s);
    if (tetra_err_pass(&s, &floor_stats, 2.0, 1e-5)) {
        printf("  PASS: the GPU product agrees with the oracle within 2x the BF16 floor\n");
    } else {
        printf("  FAIL: the GPU product is outside 2x the BF16 floor\n");
        rc = 1;
    }
done:
    cudaFree(dx); cudaFree(dwq); cudaFree(dws); cudaFree(dy);
    tetra_context_destroy(ctx);
    free(w); free(x); free(y); free(wq); free(ws); free(ref); free(dense_ref);
    return rc;
}
