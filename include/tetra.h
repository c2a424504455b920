/*
 * tetra.h - the one public header of tetra: NVFP4 inference kernels for NVIDIA GPUs.
 *
 * Pure C (C99 and later, C++ via extern "C", Python via ctypes). Every entry point
 * validates its arguments and returns a tetra_status; on failure tetra_last_error()
 * returns a per-thread message that names the offending argument.
 *
 * Conventions
 *   - Matrices are row-major with K (the reduction dimension) contiguous.
 *   - NVFP4: two E2M1 values per byte along K, the even-indexed element in the low
 *     nibble; one UE4M3 block scale per 16 consecutive K elements; one FP32 global
 *     (decode) scale per tensor. Real value = e2m1 * ue4m3 * global_scale.
 *   - Batched problems (L > 1): L independent matrices, L outermost in memory.
 *   - Functions whose name ends in _host work on host memory and need no GPU.
 *     All other data pointers are device pointers.
 */
#ifndef TETRA_H
#define TETRA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TETRA_VERSION_MAJOR 0
#define TETRA_VERSION_MINOR 1
#define TETRA_VERSION_PATCH 0

/* ---------------------------------------------------------------- status */

typedef enum tetra_status {
    TETRA_OK = 0,
    TETRA_ERR_INVALID_ARGUMENT = 1, /* a bad argument; the message names it */
    TETRA_ERR_UNSUPPORTED = 2,      /* valid, but no path in this build/device takes it */
    TETRA_ERR_NO_DEVICE = 3,        /* no CUDA device visible */
    TETRA_ERR_CUDA = 4,             /* a CUDA runtime / library call failed */
    TETRA_ERR_OUT_OF_MEMORY = 5,
    TETRA_ERR_NON_FINITE = 6,       /* NaN or Inf where a finite value is required */
    TETRA_ERR_INTERNAL = 7
} tetra_status;

/* A static string naming the status ("TETRA_ERR_INVALID_ARGUMENT"). Never NULL. */
const char *tetra_status_string(tetra_status status);

/* The message of the last failing call on this thread ("" if none). Never NULL. */
const char *tetra_last_error(void);

/* "0.1.0" */
const char *tetra_version(void);

/* ---------------------------------------------------------------- types */

typedef enum tetra_dtype {
    TETRA_DTYPE_FP32 = 0,
    TETRA_DTYPE_FP16 = 1,
    TETRA_DTYPE_BF16 = 2,
    TETRA_DTYPE_NVFP4 = 3
} tetra_dtype;

typedef enum tetra_scale_layout {
    /* [rows, K/16] row-major, row pitch scale_ld bytes. */
    TETRA_SCALE_LINEAR = 0,
    /* cuBLAS/CUTLASS 128x4 swizzle: rows padded to 128, scale columns to 4, padding
     * zero-filled; offset(r,kb) = 512*((r/128)*ceil(nkb/4) + kb/4) + 16*(r%32)
     *                            + 4*((r%128)/32) + kb%4. */
    TETRA_SCALE_SWIZZLED_128X4 = 1,
    /* Prepared weights for the decode GEMV (docs/notes/gemv-prepared-weights.md): values,
     * block scales and a per-row NaN flag interleaved in 32-row x 128-K blocks of 2304
     * bytes; rows padded to 128 and K to 128 inside (zero values, scale 0). Built only by
     * tetra_convert_weights[_host]; read only as tetra_gemm's b with M <= 16 (GEMV and
     * reference paths, batch_invariant 0). data holds everything: scales must be NULL and
     * ld, batch_stride, scale_ld, scale_batch_stride 0; data 16-byte aligned and
     * tetra_nvfp4_interleaved_bytes(rows, K) * L bytes (batch l at l times that). */
    TETRA_SCALE_INTERLEAVED_32X128 = 2,
    /* Prepared weights for the Hopper wgmma-T GEMM (docs/notes/fragment-layout.md): values
     * in 128-row x 64-K blocks of 4096 bytes, each the K-tile's wgmma register fragments
     * (every 4-bit code scattered over a 32-bit word; rows padded to 128 and K to 64 inside,
     * padding code 0); block scales in `scales`, exactly as TETRA_SCALE_SWIZZLED_128X4.
     * Built only by tetra_convert_weights[_host]; read only as tetra_gemm's b: by the decode
     * GEMV (M <= 16, BF16 a or W4A4, K % 128 == 0; AUTO takes it there), on sm_90a by the
     * wgmma-T GEMM (BF16 / FP16 / NVFP4 a, any M, tile_m 64, 128 or 256, batch-invariant too),
     * and by the reference path. data 16-byte aligned, tetra_nvfp4_fragment_bytes(rows, K) * L bytes
     * (batch l at l times that); scales non-NULL, 16-byte aligned,
     * tetra_nvfp4_scale_bytes(rows, K, TETRA_SCALE_FRAGMENT_128X64) * L bytes (the swizzled
     * size); ld, batch_stride, scale_ld and scale_batch_stride 0 (the layout fixes them). */
    TETRA_SCALE_FRAGMENT_128X64 = 3
} tetra_scale_layout;

/*
 * A matrix (or a batch of L matrices) of any dtype.
 *
 * Dense (FP32/FP16/BF16): data points at rows x cols elements; ld = elements between
 * rows (0 means cols). NVFP4: cols is K (logical 4-bit elements, a multiple of 16),
 * data holds rows x ld/2 bytes, scales holds the UE4M3 block scales in scale_layout.
 * batch_stride counts elements (NVFP4: 4-bit elements, so bytes = batch_stride/2);
 * 0 means rows*ld. scale_batch_stride counts scale bytes; 0 means the size of one
 * batch's scales in its layout (tetra_nvfp4_scale_bytes).
 * Initialise with tetra_matrix_dense() / tetra_matrix_nvfp4() and adjust fields.
 */
typedef struct tetra_matrix {
    tetra_dtype dtype;
    void *data;
    int64_t rows;
    int64_t cols;
    int64_t ld;
    int64_t batch;        /* L; 0 is treated as 1 */
    int64_t batch_stride; /* elements; 0 = rows*ld */
    /* NVFP4 only (ignored for dense dtypes) */
    void *scales;
    tetra_scale_layout scale_layout;
    int64_t scale_ld;           /* linear layout: scale bytes between rows; 0 = cols/16 */
    int64_t scale_batch_stride; /* scale bytes between batches; 0 = packed size */
    float global_scale;         /* decode scale; used when global_scale_dev is NULL */
    float *global_scale_dev;    /* optional device pointer to one FP32 global scale */
} tetra_matrix;

/* Convenience initialisers: contiguous, batch = 1. */
tetra_matrix tetra_matrix_dense(tetra_dtype dtype, void *data, int64_t rows, int64_t cols);
tetra_matrix tetra_matrix_nvfp4(void *data, void *scales, tetra_scale_layout layout,
                                int64_t rows, int64_t k, float global_scale);

/* Bytes of one batch's packed values (rows * k/2) and block scales in a layout
 * (linear: rows*k/16; swizzled: round_up(rows,128) * round_up(k/16,4)).
 * Return 0 for invalid sizes (k not a positive multiple of 16, rows < 1, overflow). */
size_t tetra_nvfp4_data_bytes(int64_t rows, int64_t k);
size_t tetra_nvfp4_scale_bytes(int64_t rows, int64_t k, tetra_scale_layout layout);
/* Bytes of one batch in TETRA_SCALE_INTERLEAVED_32X128 (values, scales, flags, padding),
 * a multiple of 256; 0 for invalid sizes. tetra_nvfp4_scale_bytes returns 0 for that
 * layout (its scales live in data). */
size_t tetra_nvfp4_interleaved_bytes(int64_t rows, int64_t k);
/* Bytes of one batch's values in TETRA_SCALE_FRAGMENT_128X64: round_up(rows, 128) *
 * round_up(k, 64) / 2, a multiple of 4096; 0 for invalid sizes. Its scales take
 * tetra_nvfp4_scale_bytes(rows, k, TETRA_SCALE_FRAGMENT_128X64), the swizzled-128x4 size. */
size_t tetra_nvfp4_fragment_bytes(int64_t rows, int64_t k);

/* ---------------------------------------------------------------- format core (host) */

/* Scalar codecs. E2M1: round to nearest, ties to even, saturate at +-6, sign kept
 * (-0 and tiny negatives encode as 0x8); NaN encodes as +6 (quantizers reject NaN
 * before encoding). UE4M3: round to nearest even, saturate at 448, negative and NaN
 * inputs encode as 0; decoding reads the byte as FP8 E4M3 (0x7F/0xFF are NaN). */
uint8_t tetra_e2m1_encode(float x);
float tetra_e2m1_decode(uint8_t code); /* low nibble */
uint8_t tetra_ue4m3_encode(float x);
float tetra_ue4m3_decode(uint8_t code);

/* How quantization picks the global scale. */
typedef enum tetra_global_scale_mode {
    /* g = amax(|x|) / (6*448) over the whole tensor (all batches); written to
     * dst->global_scale (host functions) or *dst->global_scale_dev (GPU; required). */
    TETRA_GLOBAL_SCALE_FROM_AMAX = 0,
    /* use dst->global_scale (or *dst->global_scale_dev when set) as given */
    TETRA_GLOBAL_SCALE_SUPPLIED = 1
} tetra_global_scale_mode;

/* Quantize a dense FP32/FP16/BF16 host matrix to NVFP4 (ModelOpt/TensorRT-LLM recipe):
 * per 16-block s = ue4m3_rn(amax_block / (6 g)), q = e2m1_rn(x / (s g)); a block whose
 * scale rounds to 0 stores zeros. Non-finite input -> TETRA_ERR_NON_FINITE. If the
 * tensor is all zeros, FROM_AMAX sets g = 1. Swizzled padding is zero-filled. */
tetra_status tetra_quantize_host(const tetra_matrix *src, tetra_matrix *dst,
                                 tetra_global_scale_mode mode);

/* Dequantize an NVFP4 host matrix into a dense host matrix: e2m1 * ue4m3 * g in FP32,
 * rounded once to the destination dtype (round to nearest even). */
tetra_status tetra_dequantize_host(const tetra_matrix *src, tetra_matrix *dst);

/* Rewrite src's block scales into dst's layout (dst->scales, dst->scale_layout,
 * dst->scale_ld, dst->scale_batch_stride; rows, cols, batch must match). Packed values
 * are not touched. */
tetra_status tetra_convert_scales_host(const tetra_matrix *src, tetra_matrix *dst);

/* GPU MODE pre-permuted scales: a contiguous tensor of shape
 * (32, 4, rest_m, 4, rest_k, L), rest_m = ceil(rows/128), rest_k = ceil(K/64), where
 * element [i0,i1,rm,i3,rk,l] is the scale of row rm*128+i1*32+i0, block rk*4+i3 of
 * batch l (zero for padding). Per batch it is a view of the swizzled-128x4 layout.
 * `out` must hold tetra_nvfp4_scale_bytes(rows, K, SWIZZLED) * L bytes. */
tetra_status tetra_scales_to_prepermuted_host(const tetra_matrix *src, uint8_t *out);

/* ---------------------------------------------------------------- the CPU oracle */

/* D = alpha * A * B^T (+ bias) computed on the host in FP64 from exactly dequantized
 * operands (NVFP4 includes both global scales), rounded once to D's dtype.
 * A: [M,K] NVFP4 (W4A4) or FP32/FP16/BF16 (W4A16); B: [N,K] NVFP4 or dense;
 * D: [M,N] FP32/FP16/BF16; bias: NULL or N host floats; batched over L.
 * Multithreaded over output rows; `threads` <= 0 uses all online CPUs.
 * If d64 is not NULL it receives the unrounded FP64 result (L*M*N, packed). */
tetra_status tetra_gemm_host(const tetra_matrix *a, const tetra_matrix *b, tetra_matrix *d,
                             float alpha, const float *bias, double *d64, int threads);

/* ---------------------------------------------------------------- GPU context */

typedef struct tetra_context tetra_context;

/* Create a context on CUDA device `device` (-1: the current device). Returns
 * TETRA_ERR_NO_DEVICE when no CUDA device is visible. The context owns a workspace
 * that grows on demand; set_workspace replaces it with caller memory (W4A4's staging
 * buffer, see tetra_gemm, stays context-owned). Growing a buffer synchronizes the
 * context's stream, which a stream being captured into a CUDA graph refuses: run each
 * shape once before capturing it, or give the context a large enough workspace. */
tetra_status tetra_context_create(tetra_context **ctx, int device);
tetra_status tetra_context_destroy(tetra_context *ctx);
/* stream is a cudaStream_t (NULL: the legacy default stream). */
tetra_status tetra_context_set_stream(tetra_context *ctx, void *stream);
void *tetra_context_stream(const tetra_context *ctx);
int tetra_context_device(const tetra_context *ctx);

/* The GEMM dispatch table (docs/tuning.md): per-shape configurations written by
 * `tetra tune`. A context starts with the table built into tetra for its GPU if there is
 * one, else none (the dispatcher's heuristics decide). path: a table file to use instead
 * (its device line must name this GPU); NULL: back to the built-in table. */
tetra_status tetra_context_load_dispatch_table(tetra_context *ctx, const char *path);
/* Where the context's table came from: "built-in", the file's path, or "none". */
const char *tetra_context_dispatch_table(const tetra_context *ctx);
tetra_status tetra_context_set_workspace(tetra_context *ctx, void *workspace, size_t bytes);

/* Device description for tools: name, compute capability, SMs. */
typedef struct tetra_device_info {
    char name[256];
    int major, minor;
    int sms;
    size_t l2_bytes;
    size_t global_bytes;
    int driver_version;  /* e.g. 13000 */
    int runtime_version;
} tetra_device_info;
tetra_status tetra_device_info_get(int device, tetra_device_info *info);

/* ---------------------------------------------------------------- GPU ops */

/* Quantize a dense FP32/FP16/BF16 device matrix to NVFP4 (same recipe and bits as
 * tetra_quantize_host). FROM_AMAX runs a reduction pass first and requires
 * dst->global_scale_dev, where it writes g. Asynchronous on the context's stream. */
tetra_status tetra_quantize(tetra_context *ctx, const tetra_matrix *src, tetra_matrix *dst,
                            tetra_global_scale_mode mode);

/* Dequantize NVFP4 to FP32/FP16/BF16 on the device (same bits as the host version). */
tetra_status tetra_dequantize(tetra_context *ctx, const tetra_matrix *src, tetra_matrix *dst);

/* Convert block-scale layouts on the device (same bytes as the host version). */
tetra_status tetra_convert_scales(tetra_context *ctx, const tetra_matrix *src, tetra_matrix *dst);

/* Rewrite NVFP4 weights (values and block scales) between a standard layout (linear or
 * swizzled-128x4, any valid strides) and a prepared layout, TETRA_SCALE_INTERLEAVED_32X128
 * or TETRA_SCALE_FRAGMENT_128X64, either direction (exactly one of src, dst prepared;
 * INTERLEAVED <-> FRAGMENT is refused: convert through a standard layout); rows, cols and
 * batch must match. Padding is written as zeros (a prepared dst's padded values and
 * scales, a swizzled dst's padded scales; a standard dst's row padding beyond K is not
 * touched). dst->global_scale and dst->global_scale_dev are set to src's. src and dst
 * must not overlap. The device version is asynchronous on the context's stream and
 * writes the same bytes as the host version. */
tetra_status tetra_convert_weights(tetra_context *ctx, const tetra_matrix *src, tetra_matrix *dst);
tetra_status tetra_convert_weights_host(const tetra_matrix *src, tetra_matrix *dst);

/* Which kernel family runs a product. AUTO lets the dispatcher choose; the others force
 * one (TETRA_ERR_UNSUPPORTED if it cannot take the problem). */
typedef enum tetra_gemm_path {
    TETRA_PATH_AUTO = 0,
    TETRA_PATH_REFERENCE = 1, /* one output per thread, FP64 accumulation: a checker */
    TETRA_PATH_GEMV = 2,      /* decode kernels, M <= 16, sm_80+ (fragment-ordered B: BF16 A,
                               * K % 128 == 0) */
    TETRA_PATH_MMA_SYNC = 3,  /* portable tensor-core GEMM, sm_80+ */
    TETRA_PATH_WGMMA = 4,     /* Hopper GEMM, sm_90a */
    /* Hopper GEMM computing D^T with the dequantized weights as wgmma's register operand,
     * sm_90a (tile_m 64, 128 or 256 tokens per CTA, chosen from M by a cost estimate;
     * split-K under one wave of CTAs); with the GEMV (M <= 16) the paths that read
     * TETRA_SCALE_FRAGMENT_128X64 weights fast (tile_m 64, 128 or 256, chosen as for
     * standard weights; batch-invariant products 256) */
    TETRA_PATH_WGMMA_T = 5,
    /* Skinny-M Hopper GEMM, sm_90a (AUTO's choice for prepared weights at 17 <= M <= 64):
     * M <= 64, b prepared weights (TETRA_SCALE_INTERLEAVED_32X128), a BF16/FP16 16-byte
     * aligned with ld and batch_stride multiples of 8; 64 tokens and 256 weight rows per CTA,
     * the GEMV's prepared-weights data path feeding wgmma; split-K from N, K, L and the SM
     * count (opts.splits pins 1..64), reduced in one launch through distributed shared memory
     * for 2..16 splits; row m of D does not depend on M (docs/notes/skinny-gemm.md).
     * Anything else: TETRA_ERR_UNSUPPORTED. */
    TETRA_PATH_SKINNY = 6
} tetra_gemm_path;

typedef struct tetra_gemm_options {
    float alpha;            /* multiplied with the NVFP4 global scales */
    const void *bias;       /* NULL or device pointer to N values of bias_dtype */
    tetra_dtype bias_dtype; /* FP32, FP16 or BF16 */
    tetra_gemm_path path;
    /* 1: row m of D is bit-identical whatever M is. The configuration then depends on N, K
     * and the device only: one kernel family and tile for every M (no GEMV/GEMM switch at
     * M = 16) and no split-K. It costs speed at small M (docs/notes/gemm-sm90.md). */
    int batch_invariant;
    /* Pin a configuration of the forced path (0 = the path's own choice; a pin needs a
     * path other than AUTO, and a pin the path cannot take is TETRA_ERR_UNSUPPORTED).
     * tile_m: WGMMA 64, 128 or 256 rows per CTA, WGMMA_T 64, 128 or 256 tokens per CTA,
     * MMA_SYNC 128. splits: 1 = no split-K, > 1 = that many K slices summed in a fixed
     * order (WGMMA and WGMMA_T up to 16, GEMV). For tests and tuning. */
    int tile_m;
    int splits;
} tetra_gemm_options;

/* alpha 1, no bias, AUTO, not batch-invariant, nothing pinned */
tetra_gemm_options tetra_gemm_options_default(void);

/* D[M,N] = alpha * gA * gB * A[M,K] * B[N,K]^T (+ bias[N]), batched over L.
 * B: NVFP4 weights (an interleaved B, TETRA_SCALE_INTERLEAVED_32X128, is taken for
 * M <= 16 by AUTO, GEMV and REFERENCE, for 17 <= M <= 64 by AUTO and SKINNY (sm_90a,
 * BF16/FP16 A), not batch-invariant; the other paths, M > 64, and what SKINNY refuses at
 * 17 <= M <= 64 return TETRA_ERR_UNSUPPORTED; a fragment-ordered B, TETRA_SCALE_FRAGMENT_128X64,
 * is taken for M <= 16 by GEMV and AUTO (sm_80+;
 * BF16 A, or NVFP4 A with a host global scale on sm_90+ through the staging pass; K % 128 == 0;
 * AUTO sends what the GEMV refuses to the next path), at every M by AUTO and WGMMA_T on sm_90a
 * (64, 128 or 256 tokens per CTA; batch-invariant: 256, no split-K), by AUTO
 * and REFERENCE elsewhere; the other paths return TETRA_ERR_UNSUPPORTED).
 * A: NVFP4 (W4A4) or BF16/FP16 (W4A16). D: FP32/FP16/BF16.
 * opts may be NULL (defaults). Asynchronous on the context's stream.
 * W4A4 on the Hopper wgmma path first dequantizes A (exactly) into a BF16 staging buffer
 * the context owns (M*K*L*2 bytes, grown on demand, freed with the context); an A whose
 * global scale is a device pointer goes to the mma.sync path instead.
 * Programmatic dependent launch (sm_90): some of tetra's kernels are launched with
 * cudaLaunchAttributeProgrammaticStreamSerialization (they wait for the previous kernel on the
 * stream before reading anything) and release their own dependents before they have written D.
 * Ordinary launches after a tetra call are unaffected; a kernel of yours that you launch with
 * that attribute after a tetra call must call cudaGridDependencySynchronize() before it reads
 * D (the attribute's usual contract). */
tetra_status tetra_gemm(tetra_context *ctx, const tetra_matrix *a, const tetra_matrix *b,
                        tetra_matrix *d, const tetra_gemm_options *opts);

/* Attention forward: O = softmax(scale * Q K^T + causal mask) V.
 * Q [B, Nq, Hq, D], K/V [B, Nk, Hkv, D], O [B, Nq, Hq, D]; BF16 or FP16; D in {64,128};
 * Hkv divides Hq (GQA/MQA); strides in elements (0 = contiguous); causal mask aligned
 * bottom-right when Nq != Nk; lse: NULL or device FP32 [B, Hq, Nq]. */
typedef struct tetra_attention_args {
    tetra_dtype dtype;
    const void *q, *k, *v;
    void *o;
    float *lse;
    int64_t batch, seqlen_q, seqlen_k, heads_q, heads_kv, head_dim;
    /* strides in elements for [B, N, H] (D is contiguous); 0 = contiguous */
    int64_t q_strides[3], k_strides[3], v_strides[3], o_strides[3];
    float scale; /* 0 = 1/sqrt(head_dim) */
    int causal;
    int path;    /* 0 auto, 1 reference, 2 portable mma.sync, 3 Hopper wgmma */
    /* Pin the query rows per tile (0 = the kernel's choice; for tests and measurement).
     * Needs path 3: 128 or 192 at head_dim 64, 128 at head_dim 128; anything else is
     * TETRA_ERR_INVALID_ARGUMENT. */
    int tile_rows;
} tetra_attention_args;

tetra_status tetra_attention_fwd(tetra_context *ctx, const tetra_attention_args *args);

#ifdef __cplusplus
}
#endif

#endif /* TETRA_H */
