#!/usr/bin/env python3
"""dispatch-refit.py - re-fit the wgmma-T tile choice (choose_config_t / cost_t / split_t in
src/cuda/gemm_sm90.cu) on a `tetra tune --json` file's TRAINING shapes ("tuned"), never on
its held-out ones. Python mirror of the C rules; a grid search over c(128), c(64) and T_BYTES.

  python3 docs/notes/dispatch-refit.py TUNE.json [TUNE2.json ...] [--sms 132] [--cur C128,TB2,TBK ...]

T_BYTES is a pair since session 25: (2 splits, summed by the tile's last CTA; more, summed by
the reduce kernel). --cur gives, per tune file in order, the constants of the build that made it
(its /0 rows ran that build's split rule), with a 4th field 1 where the build priced splits below
one wave by cost_t (TETRA_GEMM_T_SPLIT_TRAFFIC=1): 0.75,2.6e6,2.6e6 for runs 115-116,
0.70,2.6e6,2.6e6 for run 120, 0.66,1.8e6,3.6e6 for run 123, 0.66,1.8e6,3.6e6,1 from run 124 on
(the default).

Per training shape with M > 64 (where the rule chooses between two tiles), the rule's tile is
scored by the sweep's timing of wgmma_t/BT/0 (that tile under the kernel's own split rule,
which this script does not change) against the faster of the two candidate tiles' /0 timings.
Prints the current constants' loss, the best grid point, and every shape the choice changes."""
import json, math, sys, itertools

W_BK, SPLIT_MAX, T_FIXED, T_REDUCE, T_SPLIT_GAIN = 64, 16, 2, 4, 0.12

def ctas_t(m, n, l, bt):
    return (n + 255) // 256 * 2 * ((m + bt - 1) // bt) * l

def cost_t(m, n, k, l, bt, s, sms, c, tb, fixed=None, reduce=T_REDUCE):
    """estimate_t (gemm_sm90.cu): fixed = the fixed cost per wave by BT (default T_FIXED for all)"""
    kt = (k + W_BK - 1) // W_BK
    waves = (ctas_t(m, n, l, bt) * s + sms - 1) // sms
    cost = waves * (((kt + s - 1) // s) * c[bt] + (fixed[bt] if fixed else T_FIXED))
    if s > 1:
        cost += reduce + s * m * n * l * 8.0 / (tb[0] if s == 2 else tb[1])
    return cost

def split_t(m, n, k, l, bt, sms, c, tb, traffic=True):
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
    if traffic:  # below one wave by cost_t too (TETRA_GEMM_T_SPLIT_TRAFFIC=1, session 25)
        best, splits, sp = cost_t(m, n, k, l, bt, 1, sms, c, tb), 1, 2
        while sp <= smax and ctas * sp <= 2 * sms:
            cc = cost_t(m, n, k, l, bt, sp, sms, c, tb)
            if cc < best:
                best, splits = cc, sp
            sp += 1
        return splits
    best_cost, splits, sp = kt + T_FIXED, 1, 2
    while sp <= smax and ctas * sp <= 2 * sms:
        waves = (ctas * sp + sms - 1) // sms
        cc = waves * ((kt + sp - 1) // sp + T_FIXED) + T_REDUCE
        if cc < best_cost:
            best_cost, splits = cc, sp
        sp += 1
    return splits

def choose(m, n, k, l, sms, c, tb, traffic=True):
    bt = 64 if m <= 64 else 128 if m <= 128 else 256
    s = split_t(m, n, k, l, bt, sms, c, tb, traffic)
    if m > 64:
        bt2 = bt // 2
        s2 = split_t(m, n, k, l, bt2, sms, c, tb, traffic)
        if cost_t(m, n, k, l, bt2, s2, sms, c, tb) < cost_t(m, n, k, l, bt, s, sms, c, tb):
            return bt2, s2
    return bt, s

def main():
    args = sys.argv[1:]
    sms = int(args[args.index("--sms") + 1]) if "--sms" in args else 132
    curs = args[args.index("--cur") + 1:] if "--cur" in args else []
    paths = [a for a in args[:args.index("--cur")] if a.endswith(".json")] if "--cur" in args else \
        [a for a in args if a.endswith(".json")]
    rows = []
    for fi, path in enumerate(paths):
        f = (curs[fi] if fi < len(curs) else "0.66,1.8e6,3.6e6,1").split(",")
        c128, tb2, tbk = (float(x) for x in f[:3])
        cur = ({64: 0.62, 128: c128, 256: 1.0}, (tb2, tbk), len(f) > 3 and f[3] == "1")
        for r in json.load(open(path))["tuned"]:
            sh = r["shape"]
            m, n, k, l = sh["m"], sh["n"], sh["k"], sh.get("l", 1) or 1
            if m <= 64:
                continue
            us = {c["config"]: c["us"] for c in r["configs"] if c["us"]}
            rows.append((m, n, k, l, us, cur))
    def timed(m, n, k, l, bt, s, us, cur):
        """the sweep's time of (BT, s): /0 is the tuned build's own split rule (that file's
        constants), else the pinned split's row if the sweep has it, else None"""
        if s == split_t(m, n, k, l, bt, sms, cur[0], cur[1], cur[2]):
            return us.get("wgmma_t/%d/0" % bt)
        return us.get("wgmma_t/%d/%d" % (bt, s))
    def loss(c, tb, show=False):
        tot, worst, miss = 0.0, 1.0, 0
        for m, n, k, l, us, cur in rows:
            bt, s = choose(m, n, k, l, sms, c, tb)
            tt = timed(m, n, k, l, bt, s, us, cur)
            best = min(v for key, v in us.items() if key.startswith("wgmma_t/"))
            if tt is None:  # a split the sweep did not time: counted as a miss
                miss += 1
                if show:
                    print("  %5dx%6dx%6d  BT %3d (s %2d)  not timed by the sweep" % (m, n, k, bt, s))
                continue
            r = tt / best
            tot += math.log(r)
            worst = max(worst, r)
            miss += r > 1.05
            if show:
                print("  %5dx%6dx%6d  BT %3d (s %2d)  %8.2f us  best %8.2f  x%.3f" % (m, n, k, bt, s, tt, best, r))
        return math.exp(tot / max(1, len(rows))), worst, miss
    print("training shapes with a tile choice: %d (%s)" % (len(rows), " ".join(paths)))
    now = ({64: 0.62, 128: 0.66, 256: 1.0}, (1.8e6, 3.6e6))
    print("main's constants c(128) 0.66 c(64) 0.62 T_BYTES 1.8e6 / 3.6e6: geomean x%.4f worst x%.3f misses>5%% %d"
          % loss(*now))
    loss(*now, show=True)
    grid = list(itertools.product([x / 100 for x in range(55, 86)], [0.62],
                                  [0.65e6, 0.9e6, 1.3e6, 1.8e6, 2.6e6], [1.3e6, 1.8e6, 2.6e6, 3.6e6, 5.2e6]))
    scored = [(loss({64: c64, 128: c128, 256: 1.0}, (t2, tk)), c128, c64, t2, tk) for c128, c64, t2, tk in grid]
    (g, w, mi), c128, c64, t2, tk = min(scored, key=lambda x: (x[0][2], round(x[0][0], 4), x[0][1]))
    print("best grid point: c(128) %.2f c(64) %.2f T_BYTES %.1e / %.1e: geomean x%.4f worst x%.3f misses>5%% %d" % (
        c128, c64, t2, tk, g, w, mi))
    ok = [x for x in scored if x[0][2] == mi]
    print("grid points with %d misses: c(128) %s; T_BYTES(2) %s; T_BYTES(>2) %s" % (
        mi, sorted(set(x[1] for x in ok)), sorted(set(x[3] for x in ok)), sorted(set(x[4] for x in ok))))
    loss({64: c64, 128: c128, 256: 1.0}, (t2, tk), True)

if __name__ == "__main__":
    main()
