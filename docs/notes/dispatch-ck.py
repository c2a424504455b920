#!/usr/bin/env python3
"""dispatch-ck.py - cluster-K (v7.7) in the wgmma-T tile choice (session 26). Reads tune --json
files: NONCK files (pinned splits never cluster-K: TETRA_GEMM_T_CK mode 1, e.g. runs 126, 127's
ck1) and one CK file (mode 2: pinned splits at BT 64 / 128 take cluster-K where resident; its
rows flagged cluster_k, and its cluster_k_resident table). Fits the cluster-K time

  rounds x (ceil(K-tiles / s) x c(BT) + F(BT)),   rounds = ceil(clusters / resident(BT, s)),
  clusters = ceil(N / 128) x ceil(M / BT)

by least squares, then scores rules on the same training shapes against the best of every timed
configuration (cluster-K or not): main (AUTO's timings) and main + the cluster-K alternative
(taken where its estimate is below (1 - margin) x the non-cluster estimate of main's choice).

Also "below": the rules with TETRA_GEMM_T_SPLIT_FIT_BELOW=1 (split counts below one wave by the
least-squares estimate; split_below_fit / rules_choice(below_fit=True)), with the cluster-K choice;
mode 1 was refuted by run 131 and is gone from the C, kept here as the record of what ran. The C's
default since session 27 is below_fit=2 (no split where that estimate prefers none), and for
fragment weights choose_ck(keep64=True) (TETRA_GEMM_T_CK_KEEP64).

  python3 docs/notes/dispatch-ck.py CK.json NONCK.json [NONCK2.json ...]"""
import importlib.util, json, math, os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("refit", os.path.join(here, "dispatch-refit.py"))
refit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(refit)
SMS, US = 132, 0.6685  # us per BT-256 K-tile (dispatch-lsq.py's c(256))
FIT = dict(c={64: 0.521, 128: 0.665, 256: 1.0}, F={64: 3.46, 128: 4.66, 256: 6.97}, R=4.7, tb=(1.83e6, 2.93e6))

def key(r):
    s = r["shape"]
    return s["m"], s["n"], s["k"]

def nonck_est(m, n, k, bt, s):  # the TILE_FIT estimate, BT-256 K-tiles
    return refit.cost_t(m, n, k, 1, bt, s, SMS, FIT["c"], FIT["tb"], fixed=FIT["F"], reduce=FIT["R"])

def ck_est(m, n, k, bt, s, res, cc):
    kt = (k + 63) // 64
    clusters = (n + 127) // 128 * ((m + bt - 1) // bt)
    r = res[bt][s - 2]
    if r < 1:
        return math.inf
    return (clusters + r - 1) // r * ((kt + s - 1) // s * cc["c"][bt] + cc["F"][bt])

# the C rule's constants (gemm_sm90.cu, T_CK_C / T_CK_F / T_CK_MARGIN: this fit on run 127, rounded)
CK_C, CK_F, CK_MARGIN = {64: 0.487, 128: 0.597}, {64: 6.69, 128: 8.54}, 0.10
H200_RESIDENT = {64: [66, 39, 30, 22, 17, 15, 15, 9, 7, 7, 7, 7, 7, 7, 7],
                 128: [66, 39, 30, 22, 17, 15, 15, 9, 7, 7, 7, 7, 7, 7, 7]}  # run 127, s = 2 .. 16

RULES_C, RULES_TB = {64: 0.62, 128: 0.66, 256: 1.0}, (1.8e6, 3.6e6)

def split_below_fit(m, n, k, bt, l=1, mode=1):
    """split_t under TETRA_GEMM_T_SPLIT_FIT_BELOW=mode: below one wave by the least-squares estimate
    (mode 1), or (mode 2, session 27) unsplit where that estimate prefers no split, else the rules' count"""
    ctas, kt = refit.ctas_t(m, n, l, bt), (k + 63) // 64
    if ctas >= SMS:
        return refit.split_t(m, n, k, l, bt, SMS, RULES_C, RULES_TB, True)
    best, s = refit.cost_t(m, n, k, l, bt, 1, SMS, FIT["c"], FIT["tb"], fixed=FIT["F"], reduce=FIT["R"]), 1
    for sp in range(2, 17):
        if sp > kt // 4 or ctas * sp > 2 * SMS:
            break
        e = refit.cost_t(m, n, k, l, bt, sp, SMS, FIT["c"], FIT["tb"], fixed=FIT["F"], reduce=FIT["R"])
        if e < best:
            best, s = e, sp
    if mode == 2 and s > 1:
        return refit.split_t(m, n, k, l, bt, SMS, RULES_C, RULES_TB, True)
    return s

def rules_choice(m, n, k, l=1, below_fit=False):
    """choose_config_t's rules (dispatch-refit.py's choose), optionally with split_below_fit
    (below_fit: False / True = mode 1 / 2)"""
    if not below_fit:
        return refit.choose(m, n, k, l, SMS, RULES_C, RULES_TB, True)
    mode = 2 if below_fit == 2 else 1
    bt = 64 if m <= 64 else 128 if m <= 128 else 256
    s = split_below_fit(m, n, k, bt, l, mode)
    if m > 64:
        bt2 = bt // 2
        s2 = split_below_fit(m, n, k, bt2, l, mode)
        if refit.cost_t(m, n, k, l, bt2, s2, SMS, RULES_C, RULES_TB) < refit.cost_t(m, n, k, l, bt, s, SMS, RULES_C, RULES_TB):
            return bt2, s2
    return bt, s

def choose_ck(m, n, k, res=H200_RESIDENT, l=1, below_fit=False, keep64=False):
    """choose_config_t with the cluster-K alternative (with_ck_t): (BT, splits, ck); keep64 (session
    27): where the rules chose BT 64, cluster-K at BT 64 only"""
    bt0, s0 = rules_choice(m, n, k, l, below_fit)
    best, out = (1 - CK_MARGIN) * refit.cost_t(m, n, k, l, bt0, s0, SMS, FIT["c"], FIT["tb"], fixed=FIT["F"],
                                              reduce=FIT["R"]), (bt0, s0, 0)
    kt = (k + 63) // 64
    for bt in (64, 128):
        if bt == 128 and (m <= 64 or (keep64 and bt0 == 64)):
            continue
        for s in range(2, 17):
            if s > kt // 4:
                break
            r = res[bt][s - 2]
            if r < 1:
                continue
            clusters = (n + 127) // 128 * ((m + bt - 1) // bt) * l
            e = (clusters + r - 1) // r * ((kt + s - 1) // s * CK_C[bt] + CK_F[bt])
            if e < best:
                best, out = e, (bt, s, 1)
    return out

def ck_upgrade(m, n, k, bt, s, res=H200_RESIDENT):
    """v7.7's upgrade of a non-cluster split (t_ck_takes, mode 1): 1 where it runs cluster-K"""
    if bt not in (64, 128) or s < 2 or res[bt][s - 2] < 1:
        return 0
    clusters, ctas = (n + 127) // 128 * ((m + bt - 1) // bt), refit.ctas_t(m, n, 1, bt) * s
    return int((clusters + res[bt][s - 2] - 1) // res[bt][s - 2] <= (ctas + SMS - 1) // SMS)

def choose_fit(m, n, k):  # TETRA_GEMM_T_TILE_FIT's choice (dispatch-fit-draw.py's choose_fit)
    bt0 = 64 if m <= 64 else 128 if m <= 128 else 256
    best = None
    for bt in [b for b in (256, 128, 64) if b <= bt0 and (m > 64 or b == bt0)]:
        ctas, kt = refit.ctas_t(m, n, 1, bt), (k + 63) // 64
        for s in range(1, 17):
            if s > 1 and (s > kt // 4 or ctas * s > 8 * SMS):
                break
            c = nonck_est(m, n, k, bt, s)
            if best is None or c < best[0]:
                best = (c, bt, s)
    return best[1], best[2]

def main():
    ckd = json.load(open(sys.argv[1]))
    res = {int(b): v for b, v in ckd["cluster_k_resident"].items()}
    T = {}  # shape -> {(bt, s, ck): [us]}
    AUTO = {}
    for path in sys.argv[2:]:
        for r in json.load(open(path))["tuned"]:
            for c in r["configs"]:
                if c["config"].startswith("wgmma_t/") and c["us"] and not c.get("cluster_k"):
                    bt, s = map(int, c["config"].split("/")[1:])
                    if s:
                        T.setdefault(key(r), {}).setdefault((bt, s, 0), []).append(c["us"])
            AUTO.setdefault(key(r), []).append(r["auto_us"])
    X, Y = [], []
    for r in ckd["tuned"]:
        m, n, k = key(r)
        kt = (k + 63) // 64
        for c in r["configs"]:
            if c["config"].startswith("wgmma_t/") and c["us"] and c.get("cluster_k"):
                bt, s = map(int, c["config"].split("/")[1:])
                if s < 2:
                    continue
                T.setdefault((m, n, k), {}).setdefault((bt, s, 1), []).append(c["us"])
                clusters = (n + 127) // 128 * ((m + bt - 1) // bt)
                rounds = (clusters + res[bt][s - 2] - 1) // res[bt][s - 2]
                f = np.zeros(4)
                i = 0 if bt == 64 else 1
                f[i], f[2 + i] = rounds * ((kt + s - 1) // s), rounds
                X.append(f)
                Y.append(c["us"])
    X, Y = np.array(X), np.array(Y)
    sol = np.linalg.lstsq(X / Y[:, None], np.ones(len(Y)), rcond=None)[0]
    err = X @ sol / Y
    print("cluster-K fit: %d timings, c64 %.3f c128 %.3f F64 %.2f F128 %.2f us; rms %.3f" % (len(Y), *sol, np.sqrt(np.mean((err - 1) ** 2))))
    cc = dict(c={64: sol[0] / US, 128: sol[1] / US}, F={64: sol[2] / US, 128: sol[3] / US})
    print("  in BT-256 K-tiles: c %.3f / %.3f, F %.2f / %.2f" % (cc["c"][64], cc["c"][128], cc["F"][64], cc["F"][128]))
    for base, margin in [("main", None)] + [(b, x) for b in ("main", "fit") for x in (0.0, 0.05, 0.10)] + \
            [("below", CK_MARGIN)]:
        within, logs, rows = 0, [], []
        for sh, t in sorted(T.items()):
            m, n, k = sh
            tt = {kk: sum(v) / len(v) for kk, v in t.items()}
            best = min(tt.values())
            au = sum(AUTO[sh]) / len(AUTO[sh])
            pick, us = "AUTO", au
            if margin is not None:
                if base in ("main", "below"):
                    bt0, s0 = rules_choice(m, n, k, 1, base == "below")
                    if base == "below":  # v7.7's upgrade of a non-cluster choice, as the launcher does
                        pick, us = "below %d/%d" % (bt0, s0), tt.get((bt0, s0, ck_upgrade(m, n, k, bt0, s0, res)),
                                                                    tt.get((bt0, s0, 0), math.nan))
                else:
                    bt0, s0 = choose_fit(m, n, k)
                    pick, us = "fit %d/%d" % (bt0, s0), tt.get((bt0, s0, 0), math.nan)
                e0 = nonck_est(m, n, k, bt0, s0)
                cands = [(ck_est(m, n, k, bt, s, res, cc), bt, s) for bt in ((64,) if m <= 64 else (64, 128))
                         for s in range(2, 17) if s <= (k + 63) // 64 // 4]
                e1, bt1, s1 = min(cands)
                if base in ("main", "below") and margin == CK_MARGIN:  # the C rule's own choice
                    bt1, s1, ck = choose_ck(m, n, k, res, below_fit=base == "below")
                    e1 = -1 if ck else math.inf
                if e1 < (1 - margin) * e0 and (bt1, s1, 1) in tt:
                    pick, us = "ck %d/%d" % (bt1, s1), tt[(bt1, s1, 1)]
            within += us <= 1.05 * best
            logs.append(math.log(us / best))
            rows.append("%-16s %-9s %7.2f best %7.2f x%.3f" % ("%dx%dx%d" % sh, pick, us, best, us / best))
        print("%s + cluster-K, margin %s: %d of %d within 5%% of the best, geomean x%.3f" % (base, margin, within, len(T), math.exp(sum(logs) / len(logs))))
        if "-v" in sys.argv[:1] or os.environ.get("V") == "%s%s" % (base, margin):
            print("\n".join(rows))

if __name__ == "__main__":
    main()
