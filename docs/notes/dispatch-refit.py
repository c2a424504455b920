#!/usr/bin/env python3
"""dispatch-refit.py - re-fit the wgmma-T tile choice (choose_config_t / cost_t / split_t in
src/cuda/gemm_sm90.cu) on a `tetra tune --json` file's TRAINING shapes ("tuned"), never on
its held-out ones. Python mirror of the C rules; a grid search over c(128), c(64) and T_BYTES.

  python3 docs/notes/dispatch-refit.py TUNE.json [--sms 132] [--cur-c128 C]

Per training shape with M > 64 (where the rule chooses between two tiles), the rule's tile is
scored by the sweep's timing of wgmma_t/BT/0 (that tile under the kernel's own split rule,
which this script does not change) against the faster of the two candidate tiles' /0 timings.
Prints the current constants' loss, the best grid point, and every shape the choice changes."""
import json, math, sys, itertools

W_BK, SPLIT_MAX, T_FIXED, T_REDUCE, T_SPLIT_GAIN = 64, 16, 2, 4, 0.12

def ctas_t(m, n, l, bt):
    return (n + 255) // 256 * 2 * ((m + bt - 1) // bt) * l

def cost_t(m, n, k, l, bt, s, sms, c, tb):
    kt = (k + W_BK - 1) // W_BK
    waves = (ctas_t(m, n, l, bt) * s + sms - 1) // sms
    cost = waves * (((kt + s - 1) // s) * c[bt] + T_FIXED)
    if s > 1:
        cost += T_REDUCE + s * m * n * l * 8.0 / tb
    return cost

def split_t(m, n, k, l, bt, sms, c, tb):
    kt = (k + W_BK - 1) // W_BK
    ctas = ctas_t(m, n, l, bt)
    smax = min(SPLIT_MAX, kt // 4)
    if ctas >= sms:
        best = base = cost_t(m, n, k, l, bt, 1, sms, c, tb)
        splits = 1
        if ctas > 4 * sms:
            return 1
        sp = 2
        while sp <= smax and ctas * sp <= 8 * sms:
            cc = cost_t(m, n, k, l, bt, sp, sms, c, tb)
            if cc < best:
                best, splits = cc, sp
            sp += 1
        return splits if best < (1 - T_SPLIT_GAIN) * base else 1
    best_cost, splits, sp = kt + T_FIXED, 1, 2
    while sp <= smax and ctas * sp <= 2 * sms:
        waves = (ctas * sp + sms - 1) // sms
        cc = waves * ((kt + sp - 1) // sp + T_FIXED) + T_REDUCE
        if cc < best_cost:
            best_cost, splits = cc, sp
        sp += 1
    return splits

def choose(m, n, k, l, sms, c, tb):
    bt = 64 if m <= 64 else 128 if m <= 128 else 256
    s = split_t(m, n, k, l, bt, sms, c, tb)
    if m > 64:
        bt2 = bt // 2
        s2 = split_t(m, n, k, l, bt2, sms, c, tb)
        if cost_t(m, n, k, l, bt2, s2, sms, c, tb) < cost_t(m, n, k, l, bt, s, sms, c, tb):
            return bt2, s2
    return bt, s

def main():
    path = sys.argv[1]
    sms = int(sys.argv[sys.argv.index("--sms") + 1]) if "--sms" in sys.argv else 132
    d = json.load(open(path))
    rows = []
    for r in d["tuned"]:
        sh = r["shape"]
        m, n, k, l = sh["m"], sh["n"], sh["k"], sh.get("l", 1) or 1
        if m <= 64:
            continue
        us = {c["config"]: c["us"] for c in r["configs"]}
        bt = 128 if m <= 128 else 256
        a, b = us.get("wgmma_t/%d/0" % (bt // 2)), us.get("wgmma_t/%d/0" % bt)
        if a is None or b is None:
            continue
        rows.append((m, n, k, l, {bt // 2: a, bt: b}, us))
    # the constants of the build that made the tune file (its /0 rows ran their split rule):
    # 0.70 since session 24 (run 117); runs 115-116 and earlier tune files: --cur-c128 0.75
    cur128 = float(sys.argv[sys.argv.index("--cur-c128") + 1]) if "--cur-c128" in sys.argv else 0.70
    cur = {64: 0.62, 128: cur128, 256: 1.0}
    def timed(m, n, k, l, bt, s, t, us):
        """the sweep's time of (BT, s): /0 is the tuned build's own split rule (the current
        constants'), else the pinned split's row if the sweep has it, else None"""
        if s == split_t(m, n, k, l, bt, sms, cur, 2.6e6):
            return t[bt]
        return us.get("wgmma_t/%d/%d" % (bt, s))
    def loss(c, tb, show=False):
        tot, worst, miss = 0.0, 1.0, 0
        for m, n, k, l, t, us in rows:
            bt, s = choose(m, n, k, l, sms, c, tb)
            tt = timed(m, n, k, l, bt, s, t, us)
            if tt is None:  # a split the sweep did not time: counted as a miss
                miss += 1
                if show:
                    print("  %5dx%6dx%6d  BT %3d (s %2d)  not timed by the sweep" % (m, n, k, bt, s))
                continue
            r = tt / min(list(t.values()) + [tt])
            tot += math.log(r)
            worst = max(worst, r)
            miss += r > 1.05
            if show:
                print("  %5dx%6dx%6d  BT %3d (s %2d)  %8.2f us  best %8.2f  x%.3f  [%s]" % (
                    m, n, k, bt, s, tt, min(list(t.values()) + [tt]), r,
                    " ".join("%d:%.2f" % kv for kv in sorted(t.items()))))
        return math.exp(tot / max(1, len(rows))), worst, miss
    print("training shapes with a tile choice: %d (%s)" % (len(rows), path))
    print("current c(128) %.2f c(64) 0.62 T_BYTES 2.6e6: geomean x%.4f worst x%.3f misses>5%% %d" % ((cur128,) + loss(cur, 2.6e6)))
    loss(cur, 2.6e6, True)
    best = None
    for c128, c64, tb in itertools.product([x / 100 for x in range(55, 96)], [x / 100 for x in range(45, 81)],
                                           [0.33e6, 0.65e6, 1.3e6, 2.6e6, 5.2e6]):
        cc = {64: c64, 128: c128, 256: 1.0}
        g, w, mi = loss(cc, tb)
        key = (mi, round(g, 4), w)
        if best is None or key < best[0]:
            best = (key, c128, c64, tb)
    (mi, g, w), c128, c64, tb = best
    print("best grid point: c(128) %.2f c(64) %.2f T_BYTES %.1e: geomean x%.4f worst x%.3f misses>5%% %d" % (
        c128, c64, tb, g, w, mi))
    # the plateau: every grid point as good as the best, so the reader can pick its middle
    ok = [(a, b, t) for a, b, t in itertools.product([x / 100 for x in range(55, 96)], [x / 100 for x in range(45, 81)],
                                                     [0.33e6, 0.65e6, 1.3e6, 2.6e6, 5.2e6])
          if (lambda r: (r[2], round(r[0], 4)) == (mi, g))(loss({64: b, 128: a, 256: 1.0}, t))]
    print("plateau: c(128) %.2f-%.2f, c(64) %.2f-%.2f, T_BYTES %s" % (
        min(a for a, _, _ in ok), max(a for a, _, _ in ok), min(b for _, b, _ in ok), max(b for _, b, _ in ok),
        sorted(set(t for _, _, t in ok))))
    loss({64: c64, 128: c128, 256: 1.0}, tb, True)

if __name__ == "__main__":
    main()
