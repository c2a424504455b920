/* kernels.h - the instrument's own CUDA kernels (kernels.cu): seeded input fills, an
 * NVFP4 -> BF16 expansion for the cuBLAS BF16 baseline's weights, and the 16-byte
 * vector memory read/copy kernels of the memory arms and the bandwidth ceilings. */
#ifndef TETRA_BENCH_KERNELS_H
#define TETRA_BENCH_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* All return a cudaError_t as int (0 = success) and run on `stream`. */

/* n BF16 values, approximately normal(0, 1) (sum of four uniforms), from (seed, index). */
int bench_fill_bf16(uint16_t *p, int64_t n, uint64_t seed, void *stream);
/* n FP8 E4M3 codes: random sign, exponent field 5..9, random mantissa (|x| in [0.25, 30)). */
int bench_fill_e4m3(uint8_t *p, int64_t n, uint64_t seed, void *stream);
/* out[r, c] = bf16(e2m1 * ue4m3 * g) for NVFP4 with linear scales [rows, k/16]; exact
 * when g is a power of two. */
int bench_nvfp4_to_bf16(const uint8_t *data, const uint8_t *scales, int64_t rows, int64_t k,
                        float g, uint16_t *out, void *stream);
/* Read `bytes` (multiple of 16) with 16-byte loads; writes one word to sink only if the
 * XOR of everything read equals `never` (keeps the loads alive). */
int bench_mem_read(const void *src, int64_t bytes, uint32_t never, uint32_t *sink, int sms, void *stream);
/* the same read with ctas_per_sm CTAs of 512 threads per SM (at most one per 16 bytes;
 * bench_mem_read uses 4): the grid-shape probe of mem-read-nvfp4 */
int bench_mem_read_grid(const void *src, int64_t bytes, uint32_t never, uint32_t *sink, int sms, int ctas_per_sm,
                        void *stream);
/* dst = src, 16-byte loads and stores. */
int bench_mem_copy(void *dst, const void *src, int64_t bytes, int sms, void *stream);

#ifdef __cplusplus
}
#endif
#endif
