/* test_fragment_wtile.c - the BT-256 wgmma-T kernels' FRAG transform (src/cuda/gemm_sm90.cu,
 * helper v10frag; docs/notes/fragment-layout.md, "BT 256 reader") emulated on the host: for
 * each 128-row x 64-K block of a TETRA_SCALE_FRAGMENT_128X64 matrix, transform thread
 * (warp q, lane) reads its two groups' 16 bytes at tetra_frag_xform_raw_off, extracts the
 * four slots of each word with the codec's tetra_frag_slot_bits (the kernels' extraction:
 * BF16 patterns of the codes), and
 * each step's stmatrix.x4 (lane 4i + t holds row i, columns 2t, 2t + 1 of matrix j = its
 * register j; lane 8j + i gives row i's address, tetra_frag_xform_st_off) writes them into a
 * W tile. That tile must equal, byte for byte, the one the standard transform writes from
 * the standard layout (xform_thread_consts / xform_row's placement: row r = t with bits 2
 * and 3 swapped, flip f, chunk c ^ 4f ^ (r % 8)), every byte written exactly once, and both
 * must hold element (r, k) at r * 128 + (((k / 8) ^ (r % 8)) << 4) + 2 (k % 8), the byte the
 * consumers' SS wgmma descriptors read. A mutated store mapping (the matrices' row and chunk
 * roles swapped) must fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/fragment_map.h"
#include "testutil.h"

#define NAME "test_fragment_wtile"
enum { N = 256, K = 192, TILE = 128 * 64 * 2 };

static unsigned codes[N][K];

/* the BF16 pattern the standard path's e2m1x2_bits makes of one code: magnitude at bits 6-8, sign at 15 */
static uint16_t pattern(unsigned c) { return (uint16_t)(((c & 7u) << 6) | ((c & 8u) << 12)); }

static void put16(uint8_t *tile, uint8_t *hits, uint32_t off, uint16_t v) {
    tile[off] = (uint8_t)v;
    tile[off + 1] = (uint8_t)(v >> 8);
    hits[off]++;
    hits[off + 1]++;
}
static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* the standard transform of block (nb, kt): thread t's row, flip and chunk offsets as
 * xform_thread_consts, the pairs as xform_row (byte q of word c: k = 8 kc + 2q (low half),
 * + 1 (high half), at chunk + 4q) */
static void std_tile(int nb, int kt, uint8_t *tile, uint8_t *hits) {
    for (uint32_t t = 0; t < 128; t++) {
        const uint32_t r = (t & ~12u) | ((t & 4u) << 1) | ((t & 8u) >> 1), f = (r >> 3) & 1;
        for (uint32_t c = 0; c < 8; c++) {
            const uint32_t chunk = r * 128 + ((((r & 7) ^ (4 * f)) ^ c) << 4);
            const uint32_t kc = c < 4 ? 4 * f + c : 4 * (1 - f) + (c - 4); /* h0 = half f, h1 the other */
            for (uint32_t q = 0; q < 4; q++)
                for (uint32_t e = 0; e < 2; e++)
                    put16(tile, hits, chunk + 4 * q + 2 * e, pattern(codes[128 * nb + r][64 * kt + 8 * kc + 2 * q + e]));
        }
    }
}

/* the FRAG transform of block (nb, kt) from the fragment bytes; mutate: the wrong store map */
static void frag_tile(const uint8_t *frag, int nb, int kt, uint8_t *tile, uint8_t *hits, int mutate) {
    const uint8_t *blk = frag + 4096 * (nb * (K / 64) + kt);
    for (uint32_t q = 0; q < 4; q++)
        for (uint32_t h = 0; h < 2; h++) {
            const uint32_t G = 2 * q + h;
            uint32_t reg[32][4][4]; /* [lane][step][register] */
            for (uint32_t lane = 0; lane < 32; lane++) {
                const uint32_t off = tetra_frag_xform_raw_off(q, lane, h);
                /* the v7 consumer thread (G / 4, G % 4, lane)'s bytes */
                CHECK(off == 2048 * (G / 4) + 512 * (G % 4) + 16 * lane);
                for (uint32_t s = 0; s < 4; s++) {
                    const uint32_t x = rd32(blk + off + 4 * s);
                    for (uint32_t j = 0; j < 4; j++) reg[lane][s][j] = tetra_frag_slot_bits(x, j);
                }
            }
            for (uint32_t s = 0; s < 4; s++)
                for (uint32_t j = 0; j < 4; j++)
                    for (uint32_t lane = 0; lane < 32; lane++) {
                        const uint32_t i = lane / 4, t = lane % 4;
                        uint32_t a;
                        if (!mutate) a = 2048 * G + tetra_frag_xform_st_off(8 * j + i, s);
                        else { /* row half from j / 2, chunk half from j % 2: the wrong roles */
                            const uint32_t R = i + 8 * (j >> 1), c = 2 * s + (j & 1);
                            a = 2048 * G + R * 128 + ((c ^ (R & 7)) << 4);
                        }
                        put16(tile, hits, a + 4 * t, (uint16_t)reg[lane][s][j]);
                        put16(tile, hits, a + 4 * t + 2, (uint16_t)(reg[lane][s][j] >> 16));
                    }
        }
}

int main(void) {
    static uint8_t frag[N / 128 * (K / 64) * 4096];
    static uint8_t ts[TILE], tf[TILE], hs[TILE], hf[TILE];
    tetra_rng r = {20261218ull};
    int blocks_ok = 0, mutation_caught = 0;
    memset(frag, 0, sizeof frag);
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++) {
            uint32_t *w;
            codes[n][k] = (unsigned)(tetra_rng_next(&r) & 15u);
            w = (uint32_t *)(frag + tetra_frag_word_offset(n, k, K));
            *w = tetra_frag_put(*w, n, k, codes[n][k]);
        }
    for (int nb = 0; nb < N / 128; nb++)
        for (int kt = 0; kt < K / 64; kt++) {
            int ok = 1;
            memset(ts, 0xA5, TILE);
            memset(tf, 0x5A, TILE);
            memset(hs, 0, TILE);
            memset(hf, 0, TILE);
            std_tile(nb, kt, ts, hs);
            frag_tile(frag, nb, kt, tf, hf, 0);
            for (int b = 0; b < TILE; b++)
                if (hs[b] != 1 || hf[b] != 1) ok = 0;
            CHECK_MSG(ok, "block (%d, %d): a W-tile byte written other than once", nb, kt);
            CHECK_MSG(memcmp(ts, tf, TILE) == 0, "block (%d, %d): FRAG W tile differs from the standard one", nb, kt);
            /* the consumers' view: element (row, k) of the swizzled K-major tile */
            for (uint32_t row = 0; row < 128; row++)
                for (uint32_t k = 0; k < 64; k++) {
                    const uint32_t off = row * 128 + (((k >> 3) ^ (row & 7)) << 4) + 2 * (k & 7);
                    const uint16_t v = (uint16_t)(tf[off] | tf[off + 1] << 8);
                    if (v != pattern(codes[128 * nb + row][64 * kt + k])) ok = 0;
                }
            CHECK_MSG(ok, "block (%d, %d): W tile element at the wrong byte", nb, kt);
            blocks_ok += ok && memcmp(ts, tf, TILE) == 0;
            memset(tf, 0x5A, TILE);
            memset(hf, 0, TILE);
            frag_tile(frag, nb, kt, tf, hf, 1);
            mutation_caught += memcmp(ts, tf, TILE) != 0;
        }
    printf("  %d of %d blocks: FRAG transform W tile == standard transform W tile, each byte once\n", blocks_ok,
           (N / 128) * (K / 64));
    CHECK_MSG(mutation_caught == (N / 128) * (K / 64), "a mutated store map went unnoticed (%d)", mutation_caught);
    printf("  mutated store map (row / chunk roles of the matrices swapped) caught in %d blocks\n", mutation_caught);
    return tu_finish(NAME);
}
