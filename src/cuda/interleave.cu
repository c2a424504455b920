/*
 * interleave.cu - tetra_convert_weights on the device: NVFP4 weights between a standard
 * layout (linear or swizzled-128x4 scales, any strides) and TETRA_SCALE_INTERLEAVED_32X128
 * (nvfp4_codec.h, docs/notes/gemv-prepared-weights.md). Same bytes as
 * tetra_convert_weights_host (tests/gpu_interleaved.c checks whole buffers).
 *
 * il_chunks_kernel: one thread per (padded row n, segment, t): the row's 16-byte chunk of
 *   elements [128 seg + 32 t, +32) and its 2 block scales (blocks 8 seg + 2t, +1); K and
 *   row padding are zeros. From the interleaved side it writes the valid bytes back, and a
 *   swizzled destination's padded scale positions as zeros.
 * il_flags_kernel (to interleaved only): one thread per byte from the flags to the end of
 *   the batch: a row's flag (any scale code 0x7F or with bit 7 set), zeros after the rows.
 * Standard rows need not be 16-byte aligned, so they are read and written byte by byte: a
 * one-time preparation pass, not a hot loop.
 *
 * TETRA_SCALE_FRAGMENT_128X64 (nvfp4_codec.h, fragment_map.h), the same contract:
 * frag_pack_kernel: one thread per 32-bit word of the padded fragment matrix (its 8 codes
 *   gathered by tetra_frag_gather_word, padding code 0), every word of every batch.
 * frag_unpack_kernel: one thread per valid standard value byte (tetra_frag_std_byte).
 * The scales are the swizzled-128x4 bytes: tetra_launch_convert_scales (quantize.cu) moves
 *   them, the fragment side described as TETRA_SCALE_SWIZZLED_128X4 (its padding zeroed).
 * Host and device call the same fragment_map.h functions, so the bytes agree by construction.
 */
#include <limits.h>
#include <stdint.h>

#include "common.cuh"
#include "launch.h"
#include "../format/fragment_map.h"

namespace {

constexpr int kThreads = 256;

struct std_view {
    uint8_t *data; /* bytes */
    int64_t row_bytes, batch_bytes;
    uint8_t *scales;
    int64_t scale_ld, scale_batch;
    int swizzled;
};

struct il_shape {
    int64_t rows, k, nkb, nseg, batch_bytes, flags_off;
    int64_t rows_cover; /* padded rows the chunk kernel visits */
};

__global__ void __launch_bounds__(kThreads)
il_chunks_kernel(std_view sv, uint8_t *il, il_shape sh, int to_il) {
    const int64_t l = blockIdx.y;
    const int64_t total = sh.rows_cover * sh.nseg * 4;
    uint8_t *ib = il + l * sh.batch_bytes;
    const int64_t nkb_pad = sv.swizzled ? (sh.nkb + 3) / 4 * 4 : sh.nkb;
    for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < total;
         x += (int64_t)gridDim.x * blockDim.x) {
        const int t = (int)(x & 3);
        const int64_t seg = (x >> 2) % sh.nseg, n = (x >> 2) / sh.nseg;
        const int64_t k0 = seg * TETRA_IL_K + 32 * t;
        const int64_t kb0 = k0 / 16;
        const bool row_ok = n < sh.rows;
        /* valid bytes of this chunk: 16, 8 (K % 32 == 16 at the end) or 0 */
        const int64_t left = sh.k - k0;
        const int nbytes = !row_ok || left <= 0 ? 0 : left >= 32 ? 16 : (int)(left / 2);
        uint8_t *chunk = ib + tetra_il_data_offset(n, k0, sh.nseg);
        uint8_t *row = sv.data + l * sv.batch_bytes + n * sv.row_bytes + k0 / 2;
        const uint8_t *ssrc = sv.scales + l * sv.scale_batch;
        if (to_il) {
            uint8_t b[16];
#pragma unroll
            for (int i = 0; i < 16; i++) b[i] = i < nbytes ? row[i] : 0;
            uint4 v;
            memcpy(&v, b, 16);
            v = make_uint4(tetra_il_word_pack(v.x), tetra_il_word_pack(v.y), tetra_il_word_pack(v.z),
                           tetra_il_word_pack(v.w));
            *(uint4 *)chunk = v;
#pragma unroll
            for (int j = 0; j < 2; j++) {
                const int64_t kb = kb0 + j;
                ib[tetra_il_scale_offset(n, kb, sh.nseg)] =
                    row_ok && kb < sh.nkb
                        ? ssrc[tetra_scale_offset(sv.swizzled, n, kb, sh.nkb, sv.scale_ld)]
                        : 0;
            }
        } else {
            uint4 v = *(const uint4 *)chunk;
            v = make_uint4(tetra_il_word_unpack(v.x), tetra_il_word_unpack(v.y), tetra_il_word_unpack(v.z),
                           tetra_il_word_unpack(v.w));
            uint8_t b[16];
            memcpy(b, &v, 16);
            for (int i = 0; i < nbytes; i++) row[i] = b[i];
#pragma unroll
            for (int j = 0; j < 2; j++) {
                const int64_t kb = kb0 + j;
                uint8_t *d = sv.scales + l * sv.scale_batch +
                             tetra_scale_offset(sv.swizzled, n, kb, sh.nkb, sv.scale_ld);
                if (row_ok && kb < sh.nkb) *d = ib[tetra_il_scale_offset(n, kb, sh.nseg)];
                else if (sv.swizzled && kb < nkb_pad) *d = 0; /* swizzle padding */
            }
        }
    }
}

__global__ void __launch_bounds__(kThreads) il_flags_kernel(std_view sv, uint8_t *il, il_shape sh) {
    const int64_t l = blockIdx.y;
    const int64_t total = sh.batch_bytes - sh.flags_off;
    const uint8_t *ssrc = sv.scales + l * sv.scale_batch;
    for (int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; n < total;
         n += (int64_t)gridDim.x * blockDim.x) {
        uint8_t flag = 0;
        if (n < sh.rows)
            for (int64_t kb = 0; kb < sh.nkb; kb++)
                flag |= (uint8_t)tetra_scale_code_bad(
                    ssrc[tetra_scale_offset(sv.swizzled, n, kb, sh.nkb, sv.scale_ld)]);
        il[l * sh.batch_bytes + sh.flags_off + n] = flag;
    }
}

__global__ void __launch_bounds__(kThreads)
frag_pack_kernel(std_view sv, uint8_t *fr, int64_t rows, int64_t k, int64_t fbytes) {
    const int64_t l = blockIdx.y;
    const uint8_t *sb = sv.data + l * sv.batch_bytes;
    uint32_t *out = (uint32_t *)(fr + l * fbytes);
    for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < fbytes / 4;
         x += (int64_t)gridDim.x * blockDim.x)
        out[x] = tetra_frag_gather_word(sb, sv.row_bytes, rows, k, 4 * x);
}

__global__ void __launch_bounds__(kThreads)
frag_unpack_kernel(std_view sv, const uint8_t *fr, int64_t rows, int64_t k, int64_t fbytes) {
    const int64_t l = blockIdx.y, row_vals = k / 2;
    const uint8_t *fb = fr + l * fbytes;
    uint8_t *sb = sv.data + l * sv.batch_bytes;
    for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < rows * row_vals;
         x += (int64_t)gridDim.x * blockDim.x) {
        const int64_t n = x / row_vals, c = x % row_vals;
        sb[n * sv.row_bytes + c] = tetra_frag_std_byte(fb, n, 2 * c, k);
    }
}

unsigned grid_for(int64_t threads) {
    int64_t g = (threads + kThreads - 1) / kThreads;
    if (g > 65536) g = 65536; /* grid-stride past that */
    return (unsigned)(g < 1 ? 1 : g);
}

/* The kernels' view of the standard side of a conversion (byte pitches, scale layout). */
std_view std_view_of(const tetra_operand &sd) {
    std_view sv;
    sv.data = (uint8_t *)sd.data;
    sv.row_bytes = sd.ld / 2;
    sv.batch_bytes = sd.batch_stride / 2;
    sv.scales = (uint8_t *)sd.scales;
    sv.scale_ld = sd.scale_ld;
    sv.scale_batch = sd.scale_batch_stride;
    sv.swizzled = sd.scale_layout == TETRA_SCALE_SWIZZLED_128X4;
    return sv;
}

/* Standard <-> TETRA_SCALE_FRAGMENT_128X64: values here, scales by the scale converter. */
tetra_status convert_fragment(const tetra_convert_problem *p) {
    const bool to_fr = p->dst.scale_layout == TETRA_SCALE_FRAGMENT_128X64;
    const tetra_operand &fr = to_fr ? p->dst : p->src, &sd = to_fr ? p->src : p->dst;
    const cudaStream_t stream = TETRA_STREAM(p);
    const std_view sv = std_view_of(sd);
    const int64_t fbytes = fr.batch_stride / 2; /* tetra_nvfp4_fragment_bytes */
    if (to_fr)
        frag_pack_kernel<<<dim3(grid_for(fbytes / 4), (unsigned)p->batch), kThreads, 0, stream>>>(
            sv, (uint8_t *)fr.data, p->rows, p->cols, fbytes);
    else
        frag_unpack_kernel<<<dim3(grid_for(p->rows * (p->cols / 2)), (unsigned)p->batch), kThreads, 0, stream>>>(
            sv, (const uint8_t *)fr.data, p->rows, p->cols, fbytes);
    TETRA_LAUNCH_CHECK();
    tetra_convert_problem q = *p; /* the fragment side's scales are swizzled-128x4 bytes */
    tetra_operand &fq = to_fr ? q.dst : q.src;
    fq.scale_layout = TETRA_SCALE_SWIZZLED_128X4;
    fq.scale_ld = 0;
    return tetra_launch_convert_scales(&q);
}

} /* namespace */

extern "C" tetra_status tetra_launch_convert_weights(const tetra_convert_problem *p) {
    if (p->batch > TETRA_MAX_GRID_Y)
        return tetra_fail(TETRA_ERR_UNSUPPORTED, "tetra_convert_weights: batch too large for one grid");
    if (p->src.scale_layout == TETRA_SCALE_FRAGMENT_128X64 || p->dst.scale_layout == TETRA_SCALE_FRAGMENT_128X64)
        return convert_fragment(p);
    const bool to_il = p->dst.scale_layout == TETRA_SCALE_INTERLEAVED_32X128;
    const tetra_operand &il = to_il ? p->dst : p->src, &sd = to_il ? p->src : p->dst;
    const cudaStream_t stream = TETRA_STREAM(p);
    const std_view sv = std_view_of(sd);
    il_shape sh;
    sh.rows = p->rows;
    sh.k = p->cols;
    sh.nkb = p->cols / 16;
    sh.nseg = tetra_il_segments(p->cols);
    sh.batch_bytes = il.batch_stride / 2;
    sh.flags_off = tetra_il_flags_offset(p->rows, p->cols);
    const int64_t rows128 = (p->rows + TETRA_IL_TILE_ROWS - 1) / TETRA_IL_TILE_ROWS * TETRA_IL_TILE_ROWS;
    sh.rows_cover = to_il || sv.swizzled ? rows128 : p->rows;
    il_chunks_kernel<<<dim3(grid_for(sh.rows_cover * sh.nseg * 4), (unsigned)p->batch), kThreads, 0, stream>>>(
        sv, (uint8_t *)il.data, sh, to_il ? 1 : 0);
    TETRA_LAUNCH_CHECK();
    if (to_il) {
        il_flags_kernel<<<dim3(grid_for(sh.batch_bytes - sh.flags_off), (unsigned)p->batch), kThreads, 0,
                          stream>>>(sv, (uint8_t *)il.data, sh);
        TETRA_LAUNCH_CHECK();
    }
    return TETRA_OK;
}
