/* testutil.h - the small test framework: CHECK macros that count failures, a GPU skip,
 * sentinel-guarded device buffers and seeded inputs. */
#ifndef TETRA_TESTUTIL_H
#define TETRA_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ref/rng.h"
#include "tetra.h"

extern int tu_failures;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            tu_failures++;                                                             \
            if (tu_failures < 50)                                                      \
                fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                              \
    } while (0)

#define CHECK_MSG(cond, ...)                                                           \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            tu_failures++;                                                             \
            if (tu_failures < 50) {                                                    \
                fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
                fprintf(stderr, __VA_ARGS__);                                          \
                fputc('\n', stderr);                                                   \
            }                                                                          \
        }                                                                              \
    } while (0)

/* Assert a call fails with `status` and that the message contains `needle`. */
#define CHECK_ERR(call, status, needle) tu_check_err((call), (status), (needle), #call, __FILE__, __LINE__)
void tu_check_err(tetra_status got, tetra_status want, const char *needle, const char *what,
                  const char *file, int line);

/* Print a summary and return the exit code (0 pass, 1 fail). */
int tu_finish(const char *name);

/* GPU tests: create a context or exit 77 (skip) when no device is visible. */
tetra_context *tu_gpu_or_skip(const char *name);

/* Device buffer with 256 guard bytes on each side filled with a sentinel; the usable
 * region is poisoned with `poison`. tu_dev_check_guards fails the test if a guard was
 * overwritten. */
typedef struct { uint8_t *base; void *ptr; size_t bytes; } tu_devbuf;
tu_devbuf tu_dev_alloc(size_t bytes, uint8_t poison);
void tu_dev_upload(tu_devbuf *b, const void *host, size_t bytes);
void tu_dev_download(const tu_devbuf *b, void *host, size_t bytes);
int tu_dev_check_guards(const tu_devbuf *b, const char *what);
void tu_dev_free(tu_devbuf *b);

/* True when TETRA_TEST_QUICK is set (scripts/device-check.sh sets it under
 * compute-sanitizer): tests then skip their largest cases, saying so. */
int tu_quick(void);

/* "fp32", "fp16", "bf16", "nvfp4"; and bytes per element of a dense dtype (4 or 2). */
const char *tu_dtype_name(tetra_dtype dt);
size_t tu_dtype_size(tetra_dtype dt);

/* Fill n floats with seeded normal values times `scale`. */
void tu_fill_normal(tetra_rng *r, float *x, long long n, float scale);

/* malloc that exits on failure (and never asks for 0 bytes). */
void *tu_xmalloc(size_t n);
/* The same, 64-byte aligned (the prepared weight layouts require 16-byte aligned data). */
void *tu_amalloc(size_t n);

/* A random standard NVFP4 matrix on the host (64-byte aligned buffers; free data and
 * scales with free()): linear scale_ld = K/16 + spad; batch strides padded by 64 elements
 * and 24 scale bytes when L > 1. One RNG draw per value byte, then one per scale byte,
 * reduced modulo scale_mod (0x7F: codes 0x00..0x7E, no NaN flags; 256: any byte). */
typedef struct {
    tetra_matrix m;
    uint8_t *data, *scales;
    size_t dbytes, sbytes;
} tu_stdmat;
tu_stdmat tu_std_make(tetra_rng *r, long long N, long long K, long long L, tetra_scale_layout lay, long long spad,
                      float gscale, unsigned scale_mod);

/* Element i of a dense FP32/FP16/BF16 buffer: written from a float (rounded to nearest
 * even), read as a float (exact). */
void tu_put_dense(void *buf, tetra_dtype dt, int64_t i, float v);
float tu_get_dense(const void *buf, tetra_dtype dt, int64_t i);

#endif
