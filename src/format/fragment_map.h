/* fragment_map.h - walking TETRA_SCALE_FRAGMENT_128X64 (nvfp4_codec.h, section
 * "TETRA_SCALE_FRAGMENT_128X64") word by word, for its converters: the host's
 * (src/format/nvfp4.c) and the device's (src/cuda/interleave.cu) call the same functions,
 * so they write the same bytes. The bit map itself stays in nvfp4_codec.h
 * (tetra_frag_word_offset, tetra_frag_bit, tetra_frag_get, tetra_frag_put). */
#ifndef TETRA_FRAGMENT_MAP_H
#define TETRA_FRAGMENT_MAP_H

#include "nvfp4_codec.h"

/* The elements of the word at byte offset `off` (a multiple of 4) of one batch of a
 * kcols-column fragment matrix: rows n0 and n0 + 8 times columns k0, k0 + 1, k0 + 8,
 * k0 + 9 (a thread's two fragment rows and its two k pairs of one k16 step). The inverse
 * of tetra_frag_word_offset: block b = off / 4096 (128-row block b / kt, K-tile b % kt),
 * block byte o = off % 4096 = 2048 wg + 512 w + 16 lane + 4 s. */
TETRA_HD void tetra_frag_word_elements(int64_t off, int64_t kcols, int64_t *n0, int64_t *k0) {
    const int64_t kt = tetra_frag_padded_k(kcols) / 64, b = off / 4096, o = off % 4096;
    const int64_t wg = o / 2048, w = (o % 2048) / 512, lane = (o % 512) / 16, s = (o % 16) / 4;
    *n0 = 128 * (b / kt) + 64 * wg + 16 * w + lane / 4;
    *k0 = 64 * (b % kt) + 16 * s + 2 * (lane % 4);
}

/* The fragment word at byte offset `off` built from a standard batch (row n's values at
 * src + n * row_bytes, element k in nibble k % 2 of byte k / 2) of rows x kcols
 * elements; elements outside it (padding) are code 0. */
TETRA_HD uint32_t tetra_frag_gather_word(const uint8_t *src, int64_t row_bytes, int64_t rows, int64_t kcols,
                                         int64_t off) {
    int64_t n0, k0;
    uint32_t word = 0;
    tetra_frag_word_elements(off, kcols, &n0, &k0);
    for (int i = 0; i < 2; i++) {
        const int64_t n = n0 + 8 * i;
        if (n >= rows) continue;
        for (int j = 0; j < 4; j++) {
            const int64_t k = k0 + (j & 1) + 8 * (j >> 1);
            if (k >= kcols) continue;
            word = tetra_frag_put(word, n, k, (src[n * row_bytes + k / 2] >> (4 * (k & 1))) & 15u);
        }
    }
    return word;
}

/* Standard byte k / 2 (k even) of row n: elements k and k + 1 (one word holds both), read
 * from one batch of a kcols-column fragment matrix at `frag` (4-byte aligned). */
TETRA_HD uint8_t tetra_frag_std_byte(const uint8_t *frag, int64_t n, int64_t k, int64_t kcols) {
    const uint8_t *p = frag + tetra_frag_word_offset(n, k, kcols);
    const uint32_t word = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return (uint8_t)(tetra_frag_get(word, n, k) | tetra_frag_get(word, n, k + 1) << 4);
}

/* The BT-256 wgmma-T kernels' transform of a fragment block into their 16-bit W tile
 * (src/cuda/gemm_sm90.cu, FRAG instances; the tile is K-major with the 128-byte swizzle:
 * row R at R * 128, 16-byte chunk c = k 8c .. 8c + 7 at ((c ^ (R % 8)) << 4)). Transform
 * thread (warp q of the producer warpgroup's 4, lane) takes 16-row groups G = 2q + h,
 * h = 0, 1 (group G = 4 wg + w, v7's consumer warp (wg, w)): it computes v7 consumer thread
 * (G / 4, G % 4, lane)'s 16 A registers from the 16 block bytes at
 * tetra_frag_xform_raw_off(q, lane, h) and stores step s's four (register j = matrix j of
 * one stmatrix.x4; lane 4i + t holds row i, columns 2t, 2t + 1 of each) at the addresses the
 * lanes give: lane L = 8j + i the address of row i of matrix j, W row
 * R = 16 G + i + 8 (j % 2), chunk c = 2 s + j / 2, i.e. byte 2048 G + tetra_frag_xform_st_off(L, s)
 * of the tile. Matrix j's 8 rows have R % 8 = i: 8 distinct 16-byte bank groups. */
TETRA_HD uint32_t tetra_frag_xform_raw_off(uint32_t q, uint32_t lane, uint32_t h) {
    return 512u * (2u * q + h) + 16u * lane;
}
TETRA_HD uint32_t tetra_frag_xform_st_off(uint32_t lane, uint32_t s) {
    const uint32_t j = lane >> 3, i = lane & 7u, r = i + 8u * (j & 1u), c = 2u * s + (j >> 1);
    return r * 128u + ((c ^ (r & 7u)) << 4);
}

#endif /* TETRA_FRAGMENT_MAP_H */
