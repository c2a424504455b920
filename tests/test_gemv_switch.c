/* test_gemv_switch.c - the fragment GEMV / v7 switch's estimate (tetra_gemv_frag_v7_wins, a pure
 * host function; build switch TETRA_GEMV_FRAG_V7_SWITCH): its choice at every shape runs 107 /
 * 109 / 110 timed (H200: 132 SMs, the fragment GEMV at 4 CTAs per SM) is the one
 * docs/notes/gemv-switch-s25.py computes, and it never takes v7 outside 9..16 rows. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda/launch.h"
#include "testutil.h"

/* python3 docs/notes/gemv-switch-s25.py --score, last line (v7's split as TETRA_GEMM_T_SPLIT_FIT_BELOW=2
 * gives it since session 27: 12x11008x3072 now takes v7, unsplit) */
static const int k_cases[][4] = {
    {8, 768, 6144, 0}, {8, 2048, 6144, 0}, {8, 4096, 4096, 0}, {8, 4096, 14336, 0}, {8, 7168, 16384, 0}, {8, 14336, 4096, 0},
    {8, 28672, 8192, 0}, {12, 768, 6144, 0}, {12, 1024, 2048, 0}, {12, 1024, 4096, 1}, {12, 1024, 6144, 0}, {12, 1024, 8192, 0},
    {12, 1024, 14336, 0}, {12, 2048, 2048, 0}, {12, 2048, 4096, 0}, {12, 2048, 6144, 0}, {12, 2048, 8192, 0}, {12, 2048, 14336, 1},
    {12, 3584, 4096, 0}, {12, 4096, 2048, 0}, {12, 4096, 4096, 0}, {12, 4096, 6144, 0}, {12, 4096, 8192, 1}, {12, 4096, 14336, 1},
    {12, 5120, 2048, 0}, {12, 5120, 3072, 0}, {12, 5120, 4096, 0}, {12, 6144, 2048, 0}, {12, 6144, 3072, 0}, {12, 6144, 4096, 0},
    {12, 7168, 2048, 0}, {12, 7168, 4096, 1}, {12, 7168, 6144, 0}, {12, 7168, 8192, 0}, {12, 7168, 14336, 0}, {12, 7168, 16384, 0},
    {12, 8192, 2048, 0}, {12, 8192, 3072, 0}, {12, 8192, 4096, 1}, {12, 11008, 2048, 0}, {12, 11008, 3072, 1}, {12, 11008, 4096, 0},
    {12, 11008, 5120, 0}, {12, 12288, 2048, 0}, {12, 12288, 3072, 1}, {12, 12288, 4096, 1}, {12, 14336, 2048, 1}, {12, 14336, 4096, 1},
    {12, 14336, 6144, 0}, {12, 14336, 8192, 0}, {12, 14336, 14336, 0}, {12, 16384, 2048, 1}, {12, 16384, 3072, 1}, {12, 16384, 4096, 1},
    {12, 18432, 2048, 0}, {12, 18432, 4096, 0}, {12, 18432, 6144, 0}, {12, 18432, 8192, 0}, {12, 18432, 14336, 0}, {12, 28672, 2048, 0},
    {12, 28672, 4096, 0}, {12, 28672, 6144, 0}, {12, 28672, 8192, 0}, {12, 28672, 14336, 0}, {16, 768, 6144, 0}, {16, 1024, 2048, 0},
    {16, 1024, 4096, 1}, {16, 1024, 6144, 0}, {16, 1024, 8192, 0}, {16, 1024, 14336, 0}, {16, 2048, 2048, 0}, {16, 2048, 4096, 0},
    {16, 2048, 6144, 0}, {16, 2048, 8192, 0}, {16, 2048, 14336, 1}, {16, 4096, 2048, 0}, {16, 4096, 4096, 0}, {16, 4096, 6144, 0},
    {16, 4096, 8192, 1}, {16, 4096, 14336, 1}, {16, 7168, 2048, 0}, {16, 7168, 4096, 1}, {16, 7168, 6144, 0}, {16, 7168, 8192, 0},
    {16, 7168, 14336, 0}, {16, 7168, 16384, 0}, {16, 14336, 2048, 1}, {16, 14336, 4096, 1}, {16, 14336, 6144, 0}, {16, 14336, 8192, 0},
    {16, 14336, 14336, 0}, {16, 18432, 2048, 0}, {16, 18432, 4096, 0}, {16, 18432, 6144, 0}, {16, 18432, 8192, 0}, {16, 18432, 14336, 0},
    {16, 28672, 2048, 0}, {16, 28672, 4096, 0}, {16, 28672, 6144, 0}, {16, 28672, 8192, 0}, {16, 28672, 14336, 0},
};

int main(void) {
    const int n = (int)(sizeof k_cases / sizeof k_cases[0]);
    if (TETRA_GEMM_T_SPLIT_FIT_BELOW != 2) { /* v7's split below one wave follows that switch (the table: 2) */
        printf("test_gemv_switch: built with TETRA_GEMM_T_SPLIT_FIT_BELOW=%d, a v7 split the table does not describe: skipped\n",
               TETRA_GEMM_T_SPLIT_FIT_BELOW);
        return 77;
    }
    int v7 = 0;
    for (int i = 0; i < n; i++) {
        const int *c = k_cases[i];
        const int got = tetra_gemv_frag_v7_wins(c[0], c[1], c[2], 132, 4);
        CHECK_MSG(got == c[3], "%dx%dx%d: %d, the script says %d", c[0], c[1], c[2], got, c[3]);
        v7 += got;
    }
    CHECK_MSG(v7 == 21, "v7 at %d shapes, the script says 21", v7);
    /* outside 9..16 rows, or bad arguments: never v7 (12x14336x4096 takes it) */
    CHECK(tetra_gemv_frag_v7_wins(12, 14336, 4096, 132, 4) == 1);
    CHECK(tetra_gemv_frag_v7_wins(8, 14336, 4096, 132, 4) == 0);
    CHECK(tetra_gemv_frag_v7_wins(17, 14336, 4096, 132, 4) == 0);
    CHECK(tetra_gemv_frag_v7_wins(12, 14336, 64, 132, 4) == 0);
    CHECK(tetra_gemv_frag_v7_wins(12, 14336, 4096, 0, 4) == 0);
    CHECK(tetra_gemv_frag_v7_wins(12, 14336, 4096, 132, 0) == 0);
    /* v7 at two waves before its split (2 ceil(N / 256) >= SMs): never */
    CHECK(tetra_gemv_frag_v7_wins(12, 16896, 2048, 132, 4) == 0);
    /* a build with the switch off (no environment override) keeps the GEMV */
#if !TETRA_GEMV_FRAG_V7_SWITCH
    if (!getenv("TETRA_GEMV_FRAG_V7_SWITCH")) CHECK(tetra_gemv_frag_prefers_v7(12, 14336, 4096, 132, 0) == 0);
#endif
    return tu_finish("test_gemv_switch");
}
