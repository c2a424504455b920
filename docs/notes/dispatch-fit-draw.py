#!/usr/bin/env python3
"""dispatch-fit-draw.py - Python mirror of TETRA_GEMM_T_TILE_FIT (gemm_sm90.cu, fit_cost_t /
fit_split_t / choose_config_t; session 25) and the draw of A/B shapes for its first device run:
grid shapes (none held out) where its choice differs from main's rules (dispatch-refit.py's choose
with c(128) 0.66, T_BYTES 1.8e6 / 3.6e6, the below-one-wave count by cost_t), stratified by M,
seed 26, each with the estimate's own B/A (a prediction, +-0.10). Run 125 refuted the rule (6 of
20 rows above 1.02x); session 26 removed it from gemm_sm90.cu (docs/notes/patches/
s26-tile-fit-removed.patch). Its estimate stays: with_ck_t prices the rules' choice with it.

  python3 docs/notes/dispatch-fit-draw.py [--all]"""
import importlib.util, itertools, os, random, sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("refit", os.path.join(here, "dispatch-refit.py"))
refit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(refit)
SMS = 132
C = {64: 0.521, 128: 0.665, 256: 1.0}
F = {64: 3.46, 128: 4.66, 256: 6.97}

def fit_cost(m, n, k, bt, s):
    return refit.cost_t(m, n, k, 1, bt, s, SMS, C, (1.83e6, 2.93e6), fixed=F, reduce=4.7)

def fit_split(m, n, k, bt):
    kt = (k + 63) // 64
    ctas = refit.ctas_t(m, n, 1, bt)
    best, s = fit_cost(m, n, k, bt, 1), 1
    sp = 2
    while sp <= 16 and sp <= kt // 4 and ctas * sp <= 8 * SMS:
        c = fit_cost(m, n, k, bt, sp)
        if c < best:
            best, s = c, sp
        sp += 1
    return s, best

def choose_fit(m, n, k):
    bt0 = 64 if m <= 64 else 128 if m <= 128 else 256
    bt_min = 64 if m > 64 else bt0
    best = None
    bt = bt0
    while bt >= bt_min:
        s, c = fit_split(m, n, k, bt)
        if best is None or c < best[0]:
            best = (c, bt, s)
        bt //= 2
    return best[1], best[2]

def choose_main(m, n, k):
    return refit.choose(m, n, k, 1, SMS, {64: 0.62, 128: 0.66, 256: 1.0}, (1.8e6, 3.6e6), True)

HELD = set()
for line in open(os.path.join(here, "..", "..", "data", "shapes.txt")):
    p = line.split()
    if len(p) >= 4 and p[0] in ("seed000", "glm5-tp8", "decode", "moe", "gpumode"):
        HELD.add(tuple(map(int, p[1:4])))
for s in ("256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192,"
          "1024x14336x4096,768x4096x4096,1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336,"
          "100x768x6144,112x7168x2048,384x4096x4096,768x1792x5120,1024x2816x7168,512x2304x10240,"
          "768x2048x6144,960x2048x7168,832x1536x5120,1024x1792x6144,768x2304x8192,1152x2048x4096").split(","):
    HELD.add(tuple(map(int, s.split("x"))))

def main():
    ch = []
    for m, n, k in itertools.product([17, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048],
                                     [768, 1024, 1536, 2048, 2560, 3072, 4096, 5120, 6144, 7168, 8192, 11008, 14336, 28672],
                                     [2048, 3072, 4096, 5120, 6144, 7168, 8192, 14336, 16384]):
        if (m, n, k) in HELD:
            continue
        a, b = choose_main(m, n, k), choose_fit(m, n, k)
        if a != b:
            ch.append((m, n, k, a, b))
    print("grid shapes whose choice differs: %d of %d" % (len(ch), 13 * 14 * 9))
    if "--all" in sys.argv:
        for x in ch:
            print(x)
    random.seed(26)
    lo = [x for x in ch if x[0] <= 64]
    mid = [x for x in ch if 64 < x[0] <= 128]
    hi = [x for x in ch if x[0] > 128]
    pick = random.sample(lo, min(6, len(lo))) + random.sample(mid, min(6, len(mid))) + random.sample(hi, min(8, len(hi)))
    for m, n, k, a, b in pick:
        print("%-16s main BT %3d s %2d -> fit BT %3d s %2d  estimate B/A %.2f" % (
            "%dx%dx%d" % (m, n, k), a[0], a[1], b[0], b[1], fit_cost(m, n, k, *b) / fit_cost(m, n, k, *a)))
    print(",".join("%dx%dx%d" % x[:3] for x in pick))

if __name__ == "__main__":
    main()
