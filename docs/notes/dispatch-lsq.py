#!/usr/bin/env python3
"""dispatch-lsq.py - least-squares fit of a per-tile form of the wgmma-T tile estimate (session 25)
to every timed wgmma_t configuration of `tetra tune --json` files' TRAINING shapes ("tuned", M > 64):

  time = waves x (ceil(K-tiles / s) x c(BT) + F(BT)) + [s = 2] (R2 + b2 x MB) + [s > 2] (Rk + bk x MB)

waves = ceil(CTAs x s / SMs), MB = s x M x N x 8 / 1e6 (the partials written and read back). Weighted
by 1 / time (relative error). Needs numpy.

  python3 docs/notes/dispatch-lsq.py TUNE.json[:C128,TB2,TBK[,TRAFFIC]] ...

Each file's suffix names the constants of the build that made it (its /0 rows ran that build's
split rule; dispatch-refit.py's --cur). Session 25 on runs 115, 116, 120 (480 timings):
c(64, 128, 256) 0.339 / 0.433 / 0.670 us, F 2.31 / 3.08 / 4.20 us, R 3.2 us, b2 0.358 / bk 0.214
us per MB: c(128) / c(256) 0.646, T_BYTES 1.87 / 3.14 MB, rms 3.4%."""
import importlib.util, json, os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("refit", os.path.join(here, "dispatch-refit.py"))
refit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(refit)
SMS = 132

def features(m, n, k, bt, s):
    kt = (k + 63) // 64
    w = (refit.ctas_t(m, n, 1, bt) * s + SMS - 1) // SMS
    f = np.zeros(10)
    i = {64: 0, 128: 1, 256: 2}[bt]
    f[i] = w * ((kt + s - 1) // s)
    f[3 + i] = w
    if s == 2:
        f[6], f[8] = 1, s * m * n * 8e-6
    elif s > 2:
        f[7], f[9] = 1, s * m * n * 8e-6
    return f

def main():
    X, Y, meta = [], [], []
    for arg in sys.argv[1:]:
        path, _, cur = arg.partition(":")
        c = (cur or "0.66,1.8e6,3.6e6,1").split(",")
        cons = ({64: 0.62, 128: float(c[0]), 256: 1.0}, (float(c[1]), float(c[2])), len(c) > 3 and c[3] == "1")
        for r in json.load(open(path))["tuned"]:
            sh = r["shape"]
            m, n, k = sh["m"], sh["n"], sh["k"]
            if m <= 64 or (sh.get("l", 1) or 1) != 1:
                continue
            for cf in r["configs"]:
                if not cf["config"].startswith("wgmma_t/") or not cf["us"]:
                    continue
                bt, s = (int(x) for x in cf["config"].split("/")[1:])
                if s == 0:
                    s = refit.split_t(m, n, k, 1, bt, SMS, cons[0], cons[1], cons[2])
                X.append(features(m, n, k, bt, s))
                Y.append(cf["us"])
                meta.append("%dx%dx%d BT %d s %d" % (m, n, k, bt, s))
    X, Y = np.array(X), np.array(Y)
    sol = np.linalg.lstsq(X / Y[:, None], np.ones(len(Y)), rcond=None)[0]
    for name, v in zip(["c64", "c128", "c256", "F64", "F128", "F256", "R2", "Rk", "b2", "bk"], sol):
        print("%5s %8.4f" % (name, v))
    err = X @ sol / Y
    print("timings %d, relative error rms %.3f, range %.3f-%.3f" % (len(Y), np.sqrt(np.mean((err - 1) ** 2)), err.min(), err.max()))
    print("in BT-256 K-tiles: c(64) %.3f c(128) %.3f F %.2f / %.2f / %.2f, T_BYTES %.2e / %.2e" % (
        sol[0] / sol[2], sol[1] / sol[2], sol[3] / sol[2], sol[4] / sol[2], sol[5] / sol[2],
        sol[2] / sol[8] * 1e6, sol[2] / sol[9] * 1e6))
    for i in np.argsort(-abs(err - 1))[:10]:
        print("  %-28s %8.2f us, estimate %8.2f" % (meta[i], Y[i], (X @ sol)[i]))

if __name__ == "__main__":
    main()
