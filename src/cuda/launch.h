/*
 * launch.h - host launchers of the CUDA kernels, callable from C. Each validates only
 * what the public layer cannot know (device capability, alignment its fast path needs)
 * and returns TETRA_ERR_UNSUPPORTED when it cannot take a problem, so the dispatcher
 * can fall back to a slower correct path. All launches are asynchronous on
 * problem->ctx->stream and check cudaGetLastError.
 */
#ifndef TETRA_LAUNCH_H
#define TETRA_LAUNCH_H

#include "../core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* src/cuda/quantize.cu */
tetra_status tetra_launch_quantize(const tetra_convert_problem *p);
tetra_status tetra_launch_dequantize(const tetra_convert_problem *p);
tetra_status tetra_launch_convert_scales(const tetra_convert_problem *p);

/* src/cuda/interleave.cu: standard <-> TETRA_SCALE_INTERLEAVED_32X128 or
 * TETRA_SCALE_FRAGMENT_128X64 weights */
tetra_status tetra_launch_convert_weights(const tetra_convert_problem *p);

/* src/cuda/gemm_reference.cu: one output per thread, FP64 accumulation */
tetra_status tetra_launch_gemm_reference(const tetra_gemm_problem *p);

/* src/cuda/gemv.cu: decode path, M <= 16 */
tetra_status tetra_launch_gemv(const tetra_gemm_problem *p);
/* src/cuda/gemv.cu: 1 when AUTO tries the GEMV for TETRA_SCALE_FRAGMENT_128X64 weights at
 * M <= 16 (build switch TETRA_GEMV_FRAG, environment TETRA_GEMV_FRAG=0 / 1) */
int tetra_gemv_frag_auto(void);
/* src/cuda/gemv.cu: the largest M at which AUTO tries that GEMV on sm_90 (16 with the build
 * switch TETRA_GEMV_FRAG_X16, default on, or the environment's TETRA_GEMV_FRAG_MAX_M=1..16;
 * 8 without the switch) */
int tetra_gemv_frag_max_m_sm90(void);
/* src/cuda/gemv.cu: the smallest M at which that GEMV reads X as 16-byte words (17: never;
 * TETRA_GEMV_FRAG_X16, environment TETRA_GEMV_FRAG_X16_MIN_M), and the tests' pin of it
 * (min_m < 0: unpinned; returns 0 where the build lacks the switch) */
int tetra_gemv_frag_x16_min_m(void);
int tetra_gemv_frag_x16_pin(int min_m);
/* src/cuda/gemv.cu: the fragment GEMV / v7 switch at 9..16 rows: the pure estimate (tests), and
 * AUTO's test (build switch / environment TETRA_GEMV_FRAG_V7_SWITCH, default 1; 0: never) */
int tetra_gemv_frag_v7_wins(int64_t m, int64_t n, int64_t k, int sms, int gemv_occ);
int tetra_gemv_frag_prefers_v7(int64_t m, int64_t n, int64_t k, int sms, int device);
/* src/cuda/gemm_sm90.cu: the transposed GEMM's own split count at BT tokens per CTA (L = 1) */
int tetra_gemm_t_auto_splits(int64_t m, int64_t n, int64_t k, int bt, int sms);
/* src/cuda/gemm_sm90.cu: AUTO's tile (returned) and split count for standard-layout weights */
int tetra_gemm_t_auto_config(int64_t m, int64_t n, int64_t k, int64_t batch, int sms, int *splits);
/* ... with cluster-K in the choice (TETRA_GEMM_T_CK_RULE): resident64 / resident128[s - 2] the
 * clusters of s = 2 .. 16 CTAs resident at once at BT 64 / 128, fragment 1 for FRAGMENT-layout
 * weights (TETRA_GEMM_T_CK_KEEP64); *ck 1 where it chose cluster-K */
int tetra_gemm_t_auto_config_ck(int64_t m, int64_t n, int64_t k, int64_t batch, int sms, const int *resident64,
                                const int *resident128, int fragment, int *splits, int *ck);

/* src/cuda/gemm_mma.cu: portable mma.sync GEMM (sm_80+) */
tetra_status tetra_launch_gemm_mma(const tetra_gemm_problem *p);

/* src/cuda/gemm_sm90.cu: Hopper wgmma GEMM (sm_90a) */
tetra_status tetra_launch_gemm_wgmma(const tetra_gemm_problem *p);
/* src/cuda/gemm_sm90.cu: the transposed product D^T = B A^T, dequantized B in registers (sm_90a) */
tetra_status tetra_launch_gemm_wgmma_t(const tetra_gemm_problem *p);
/* src/cuda/gemm_sm90.cu: 1 when AUTO gives TETRA_SCALE_FRAGMENT_128X64 weights the BT-256 tile
 * where it gives it to standard weights (build switch TETRA_GEMM_FRAG_BT256, default 1,
 * environment TETRA_GEMM_FRAG_BT256=0 / 1; 0: 64 / 128 tokens per CTA, as in session 17) */
int tetra_gemm_frag_bt256_auto(void);
/* src/cuda/gemm_sm90.cu: v7.7 cluster-K (build switch TETRA_GEMM_T_CK, default 1; 0: not built):
 * the mode now (0 off, 1 AUTO, 2 everywhere; a test's pin, else the environment's
 * TETRA_GEMM_T_CK=0 / 1 / 2, else the build's), the tests' pin (mode < 0: unpinned; returns 0
 * where not built) and the cluster-K launches so far */
int tetra_gemm_t_ck_mode(void);
int tetra_gemm_t_ck_pin(int mode);
long long tetra_gemm_t_ck_launches(void);
/* ... and (tests) the clusters of S of its CTAs resident at once on the current device (tile bt) */
int tetra_gemm_t_ck_resident_clusters(int bt, int S);
/* src/cuda/gemm_sm90.cu: v7.9's build switch TETRA_GEMM_V7_PDL (0: v7 is an ordinary launch; tests) */
int tetra_gemm_v7_pdl_mode(void);
/* src/cuda/gemm_sm90.cu: the build switch TETRA_GEMM_W4A4_PDL (1: the BT-256 kernels as
 * programmatic dependents of the W4A4 staging pass) and such launches so far (tests) */
int tetra_gemm_w4a4_pdl_mode(void);
long long tetra_gemm_w4a4_pdl_launches(void);
/* src/cuda/skinny_sm90.cu: skinny-M GEMM (M <= 64), prepared weights, wgmma (sm_90a) */
tetra_status tetra_launch_gemm_skinny(const tetra_gemm_problem *p);

/* src/cuda/attention.cu */
tetra_status tetra_launch_attention(tetra_context *ctx, const tetra_attention_args *args);

/* src/cuda/attention_sm90.cu: attention path 3, Hopper (sm_90a) TMA + wgmma */
tetra_status tetra_launch_attention_sm90(tetra_context *ctx, const tetra_attention_args *args);

#ifdef __cplusplus
}
#endif

#endif /* TETRA_LAUNCH_H */
