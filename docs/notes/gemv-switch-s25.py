#!/usr/bin/env python3
"""The fragment GEMV / v7 switch at M = 9..16 (session 25, helper gswitch): data, split, model, scores.

Reads runs 107 / 109 / 110 (H200, tetra bench A = tetra-gemm-frag = the fragment GEMV at M <= 16,
B = tetra-gemm-frag-wgmma-t = v7 at 64 tokens per CTA), tabulates per (M, N, K), splits the (N, K)
pairs into a fitting and a checking half by a hash fixed before any rule was scored, fits a grid
model of both kernels on the fitting half and scores rules on the checking half.
Usage: python3 docs/notes/gemv-switch-s25.py [--table]"""
import json, math, sys, zlib
import numpy as np

R = "docs/results/h200-2026-12-02/"
FILES = [R + "run107-s22-v7diag-probes-switch/results/gemv-v7-switch-frag.json",
         R + "run109-s22-switch-grid-tune-table/results/gemv-v7-switch-grid.json",
         R + "run110-s22-rule-heldout-ctest/results/gemv-v7-rule-heldout.json"]
SMS = 132

# ---------------------------------------------------------------- the two launchers' grids (H200)
def gemv_auto_splits(nseg, tiles, sms=SMS, occ=4, long_segs=10):
    """gemv.cu gemv_auto_splits (L = 1), occupancy 4 (fragment-layout.md: 4 CTAs per SM)"""
    s = (sms * occ) // tiles
    s = min(s, nseg // 2, 4096); s = max(s, 1)
    s = min(s, max(nseg // 3, 8))
    sl = nseg // long_segs
    if sl >= 1 and sl < s and sl * tiles >= sms: s = sl
    longest = -(-nseg // s)
    return -(-nseg // longest)

def gemv_grid(n, k, splits=None):
    tiles, nseg = -(-n // 128), k // 128
    s = splits or gemv_auto_splits(nseg, tiles)
    ctas = tiles * s
    return dict(tiles=tiles, nseg=nseg, s=s, ctas=ctas, segs=-(-nseg // s),
                waves=-(-ctas // (4 * SMS)), per_sm=-(-ctas // SMS))

def ctas_t(m, n, bt=64): return -(-n // 256) * 2 * -(-m // bt)

def cost_t(m, n, k, bt, s, c64=0.62):
    kt = -(-k // 64); w = -(-ctas_t(m, n, bt) * s // SMS)
    c = w * (-(-kt // s) * c64 + 2)
    if s > 1: c += 4 + s * m * n * 8.0 / 2.6e6
    return c

def split_t(m, n, k, bt=64):
    """gemm_sm90.cu split_t as of main bdeab2e (the lead may change cost_t's constants)"""
    kt, ctas = -(-k // 64), ctas_t(m, n, bt)
    smax = min(16, kt // 4); best_cost, sp_best = kt + 2, 1
    if ctas >= SMS:
        base = best = cost_t(m, n, k, bt, 1)
        if ctas > 4 * SMS: return 1
        sp = 2
        while sp <= smax and ctas * sp <= 8 * SMS:
            c = cost_t(m, n, k, bt, sp)
            if c < best: best, sp_best = c, sp
            sp += 1
        return sp_best if best < 0.88 * base else 1
    sp = 2
    while sp <= smax and ctas * sp <= 2 * SMS:
        w = -(-ctas * sp // SMS); c = w * (-(-kt // sp) + 2) + 4
        if c < best_cost: best_cost, sp_best = c, sp
        sp += 1
    return sp_best

def v7_grid(m, n, k):
    s = split_t(m, n, k); ctas = ctas_t(m, n) * s; kt = -(-k // 64)
    return dict(s=s, ctas=ctas, kt=-(-kt // s), waves=-(-ctas // SMS))

# ---------------------------------------------------------------- data
def load():
    rows = {}
    for f in FILES:
        for r in json.load(open(f))["results"]:
            if r["status"] != "ok": continue
            s = r["shape"]
            key = (s["m"], s["n"], s["k"])
            rows.setdefault(key, []).append((r["a_us"], r["b_us"], f.split("/")[-3][:6]))
    out = {}
    for key, v in rows.items():  # repeats (run 107 and 109 share 5 shapes): the mean
        out[key] = (sum(x[0] for x in v) / len(v), sum(x[1] for x in v) / len(v), "+".join(x[2] for x in v))
    return out

def half(n, k):
    """The split, fixed before any rule was scored: crc32 of "NxK", low bit. 0 fits, 1 checks."""
    return zlib.crc32(b"%dx%d" % (n, k)) & 1

def table(d):
    print("M     N     K  h | GEMV s ctas segs w/sm | v7 s ctas kt w |  gemv_us   v7_us  v7/gemv  src")
    for (m, n, k), (a, b, src) in sorted(d.items()):
        g, v = gemv_grid(n, k), v7_grid(m, n, k)
        print("%2d %5d %5d  %d | %2d %4d %3d %d/%d | %2d %3d %3d %d | %7.2f %7.2f  %.3f  %s" %
              (m, n, k, half(n, k), g["s"], g["ctas"], g["segs"], g["waves"], g["per_sm"], v["s"], v["ctas"], v["kt"],
               v["waves"], a, b, b / a, src))

if __name__ == "__main__" and "--table" in sys.argv:
    table(load())

# ---------------------------------------------------------------- the shipped rule (gemv.cu)
def v7_split(m, n, k):
    """v7's split count as the C takes it (tetra_gemm_t_auto_splits at BT 64 = gemm_sm90.cu split_t,
    below one wave here): dispatch-ck.py's mirror with TETRA_GEMM_T_SPLIT_FIT_BELOW=2 (session 27)"""
    import importlib.util, os
    spec = importlib.util.spec_from_file_location("dc", os.path.join(os.path.dirname(os.path.abspath(__file__)), "dispatch-ck.py"))
    dc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dc)
    return dc.split_below_fit(m, n, k, 64, 1, 2)

def c_rule(m, n, k, sms=SMS, occ=4):
    """tetra_gemv_frag_v7_wins, coefficient for coefficient (rounded from fit_models())"""
    if m < 9 or m > 16: return False
    vc, kt = -(-n // 256) * 2, -(-k // 64)
    if vc >= sms: return False
    vs = v7_split(m, n, k) if sms == SMS else None
    if vs is None:  # session 25's traffic-blind count (another SM count)
        vs, best, smax = 1, kt + 2, min(kt // 4, 16)
        sp = 2
        while sp <= smax and vc * sp <= 2 * sms:
            c = -(-vc * sp // sms) * (-(-kt // sp) + 2) + 4
            if c < best: best, vs = c, sp
            sp += 1
    t_v = -0.16 + (2.15 if vs > 1 else 0) + -(-vc * vs // sms) * (0.254 * -(-kt // vs) + 3.72)
    tiles, nseg = -(-n // 128), k // 128
    gs = gemv_auto_splits(nseg, tiles, sms, occ)
    t_g = 5.28 + (0.76 if gs > 2 else 0) + (1.85 if gs == 2 else 0) + 0.456 * -(-tiles * gs // sms) * -(-nseg // gs)
    return t_v < 0.95 * t_g

def score(rows, choose):
    """(within 5% of the faster kernel, rows, worst chosen / faster, geomean chosen / GEMV)"""
    w, worst, lg = 0, 1.0, 0.0
    for m, n, k, a, b in rows:
        t = b if choose(m, n, k) else a
        w += t / min(a, b) <= 1.05; worst = max(worst, t / min(a, b)); lg += math.log(t / a)
    return w, len(rows), worst, math.exp(lg / len(rows))

if __name__ == "__main__" and "--score" in sys.argv:
    d = load()
    rows = [(m, n, k, a, b) for (m, n, k), (a, b, _) in d.items() if 9 <= m <= 16]
    for h, name in ((0, "fitting"), (1, "checking")):
        rs = [r for r in rows if half(r[1], r[2]) == h]
        for rn, f in (("current (GEMV)", lambda m, n, k: False), ("rule", c_rule), ("always v7", lambda m, n, k: True)):
            print("%-9s %-15s within 5%%: %d/%d  worst %.3f  geomean vs GEMV %.3f" % ((name, rn) + score(rs, f)))
    print("\nchanged (rule takes v7), M = 12 / 16:")
    for (m, n, k), (a, b, _) in sorted(d.items()):
        if 9 <= m <= 16 and c_rule(m, n, k):
            print("  %2dx%5dx%5d  %s  v7/GEMV measured %.3f" % (m, n, k, "check" if half(n, k) else "fit  ", b / a))
    print("\nC test table (M, N, K, expected):")
    print(", ".join("{%d, %d, %d, %d}" % (m, n, k, c_rule(m, n, k)) for (m, n, k) in sorted(d)))
