#!/usr/bin/env python3
"""Checks the TETRA_SCALE_FRAGMENT_128X64 bit map (src/format/nvfp4_codec.h) offline:
(1) every (n, k) of a 128 x 64 block maps to a distinct (word, bit) and the block's words
    are exactly its 4096 bytes; (2) for every pair of codes in every slot, the kernel's
    extraction gives the standard path's BF16 pattern e2m1x2_bits(lo | hi << 16)
    (and, for FP16, ((p << 3) | p) & 0x8E008E00 gives its FP16 pattern)."""
M = 0x81C081C0
POS = [[6, 7, 8, 15], [3, 4, 5, 12], [0, 1, 2, 9], [13, 14, 10, 11]]
def bit(n, k, b): return POS[2 * ((k % 16) // 8) + (n % 16) // 8][b] + 16 * (k % 2)
def word_off(n, k, kcols):
    r, kk = n % 128, k % 64
    lane = 4 * (r % 8) + (kk % 8) // 2
    o = 2048 * (r // 64) + 512 * ((r % 64) // 16) + 16 * lane + 4 * (kk // 16)
    kp = (kcols + 63) // 64 * 64
    return 4096 * ((n // 128) * (kp // 64) + k // 64) + o
seen = set()
for n in range(128):
    for k in range(64):
        w = word_off(n, k, 64)
        assert w % 4 == 0 and 0 <= w < 4096
        for b in range(4):
            key = (w, bit(n, k, b)); assert key not in seen; seen.add(key)
assert len(seen) == 4096 * 8
def bf16_std(lo, hi): return ((lo | hi << 16) * 0x1040) & M & 0xFFFFFFFF
def extract(x, j):
    if j == 0: return x & M
    if j == 1: return (x << 3) & M & 0xFFFFFFFF
    if j == 2: return (x << 6) & M & 0xFFFFFFFF
    return ((((x >> 7) & 0x00D800D8) * 0x821) & 0xFFFFFFFF) & M
import random
rnd = random.Random(1)
for j in range(4):
    n, k = (8 if j % 2 else 0), (8 if j >= 2 else 0)  # an element in slot j, even k
    for lo in range(16):
        for hi in range(16):
            for trial in range(4):
                x = rnd.getrandbits(32) if trial else 0  # other slots' bits: random, then zero
                for b in range(4):  # place lo at (n, k), hi at (n, k + 1)
                    for code, kk in ((lo, k), (hi, k + 1)):
                        p = bit(n, kk, b)
                        x = (x & ~(1 << p)) | (((code >> b) & 1) << p)
                got = extract(x, j)
                assert got == bf16_std(lo, hi), (j, lo, hi, hex(x), hex(got))
                f16 = ((got << 3) | got) & 0x8E008E00
                assert f16 == ((((lo | hi << 16) << 9) | ((lo | hi << 16) << 12)) & 0x8E008E00), (j, lo, hi)
print("fragment layout: bijective on a block; all 4 slots x 256 code pairs x random neighbours extract exactly (BF16, FP16)")
