/*
 * internal.h - what the public entry points share: error recording, descriptor
 * validation, the resolved problem structs handed to launchers, and the context.
 * Data flows one way: public API (src/api) -> launchers (src/cuda) -> kernels.
 */
#ifndef TETRA_INTERNAL_H
#define TETRA_INTERNAL_H

#include "tetra.h"

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Record a per-thread message and return st (so: `return tetra_fail(...)`). */
tetra_status tetra_fail(tetra_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void tetra_clear_error(void);

/* The context. */
struct tetra_context {
    int device;
    void *stream;
    void *workspace;
    size_t workspace_bytes;
    int owns_workspace;
    void *stage; /* NVFP4 activations staged as BF16 for the wgmma GEMM (gemm_api.c) */
    size_t stage_bytes;
    int sm_major, sm_minor, sms;
    size_t l2_bytes;
    char device_name[256];
    struct tetra_dispatch_table *dispatch; /* GEMM configurations per shape, or NULL */
};

/* Grow (or check) the context workspace to at least `bytes`. */
tetra_status tetra_context_workspace(tetra_context *ctx, size_t bytes, void **ptr);

/* Grow the context's staging buffer (always context-owned) to at least `bytes`. */
tetra_status tetra_context_stage(tetra_context *ctx, size_t bytes, void **ptr);

/* Resolved defaults of a tetra_matrix (0 fields replaced by their meaning). */
int64_t tetra_matrix_ld(const tetra_matrix *m);
int64_t tetra_matrix_batch(const tetra_matrix *m);
int64_t tetra_matrix_batch_stride(const tetra_matrix *m);
int64_t tetra_matrix_scale_ld(const tetra_matrix *m);
int64_t tetra_matrix_scale_batch_stride(const tetra_matrix *m);
size_t tetra_dtype_bits(tetra_dtype dt);

/* Where a pointer must live. */
typedef enum { TETRA_MEM_HOST = 0, TETRA_MEM_DEVICE = 1 } tetra_mem;

/* Validate one descriptor: NULL, dtype, sizes (>0, no overflow), ld >= cols,
 * NVFP4 K multiple of 16, even ld, scale layout and strides, and (for TETRA_MEM_DEVICE)
 * that data/scales are not plain host memory. `name` appears in the message
 * ("b.scales is NULL"). */
tetra_status tetra_check_matrix(const tetra_matrix *m, const char *name, tetra_mem where);
/* tetra_check_matrix refuses the prepared layouts TETRA_SCALE_INTERLEAVED_32X128 and
 * TETRA_SCALE_FRAGMENT_128X64 (INVALID_ARGUMENT, "use tetra_convert_weights"), so every entry
 * point that does not read prepared weights refuses them; tetra_check_weights also validates
 * those layouts (tetra_gemm's b, convert_weights). */
tetra_status tetra_check_weights(const tetra_matrix *m, const char *name, tetra_mem where);

/* The checks of tetra_convert_weights[_host] (src/format/nvfp4.c). */
tetra_status tetra_check_convert_weights(const tetra_matrix *src, const tetra_matrix *dst, tetra_mem where);

/* Check that a pointer is usable device memory (not pageable host); name for message. */
tetra_status tetra_check_device_ptr(const void *p, const char *name);

/* Check `p` is aligned to `bytes`. */
int tetra_aligned(const void *p, size_t bytes);

/* ---- a resolved operand, as launchers see it ---- */
typedef struct tetra_operand {
    tetra_dtype dtype;
    const void *data;
    int64_t ld;           /* elements */
    int64_t batch_stride; /* elements */
    const uint8_t *scales;
    tetra_scale_layout scale_layout;
    int64_t scale_ld;
    int64_t scale_batch_stride;
    float gscale;            /* host global scale (NVFP4) */
    const float *gscale_dev; /* device global scale or NULL */
} tetra_operand;

tetra_operand tetra_operand_from(const tetra_matrix *m);

/* D[M,N] = alpha * A[M,K] * B[N,K]^T (+bias). The effective scale a kernel applies is
 * alpha * (a.gscale_dev ? *a.gscale_dev : 1) * (b.gscale_dev ? *b.gscale_dev : 1):
 * the API folds host global scales into alpha, device ones stay pointers. */
typedef struct tetra_gemm_problem {
    int64_t m, n, k, batch;
    tetra_operand a, b;
    tetra_dtype d_dtype;
    void *d;
    int64_t ldd, d_batch_stride;
    float alpha;
    const void *bias;
    tetra_dtype bias_dtype;
    int batch_invariant; /* configuration must not depend on M (no split-K) */
    int tile_m, splits;  /* pinned configuration; 0 = the launcher chooses */
    /* 1: the kernel may start before the previous kernel on the stream has finished
     * (programmatic dependent launch, sm_90+) and waits for it before reading A; set only
     * right after the W4A4 staging pass (gemm_api.c), so the previous kernel wrote only A.
     * The GEMV launcher takes it, and the wgmma-T launcher's BT-256 kernels (gemm_sm90.cu,
     * build switch TETRA_GEMM_W4A4_PDL, default 1); every other launcher ignores it */
    int pdl;
    tetra_context *ctx;
} tetra_gemm_problem;

/* Dense <-> NVFP4 element-wise problem (quantize, dequantize, convert scales). */
typedef struct tetra_convert_problem {
    int64_t rows, cols, batch;
    tetra_operand src;
    tetra_operand dst; /* dst.data/scales are written (const cast inside launchers) */
    tetra_global_scale_mode mode;
    tetra_context *ctx;
} tetra_convert_problem;

#ifdef __cplusplus
}
#endif

#endif /* TETRA_INTERNAL_H */
