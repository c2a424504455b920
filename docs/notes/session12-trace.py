#!/usr/bin/env python3
"""Reads a v10.1 clock trace (TETRA_GEMM_TRACE build, written by launch_traced in
src/cuda/gemm_sm90.cu; driver docs/notes/session12-trace.c) and splits the kernel's
SM-time into where it went. Usage: session12-trace.py FILE.bin [--json OUT.json]

Format of session 12's second trace build (13 readings per K-tile; run 52's files had 8).
All times are SM clock cycles (clock64, per SM). The account is per SM: from the
kernel's first CTA start on any SM to its last CTA end (the span, from globaltimer,
converted to cycles at the median clock rate), each SM's time is
  idle     no CTA of this kernel on it (before its first, between CTAs, after its last)
  init     CTA entry to the consumers' loop start (barrier init, cluster sync, setmaxnreg)
  fill     loop start to K-tile 0's operands ready (first raw/A round trip + one transform)
  loop     K-tile 0 ready to the last K-tile's wgmmas issued, split into
           ideal (1024 cycles per K-tile: 8 x m64n256k16 at 2048 FMA/clk/SM) and
           excess (the rest: the pipe waited for W or A, or issue overhead)
  drain    the last wgmma group's completion
  epilogue store_tile_t (D through shared memory to global)
Figures are truncated, never rounded."""
import json
import math
import struct
import sys

SS_TR = dict(SMID=0, GT0=1, CLK0=2, INIT=3, LOOP_END=4, DRAINED=5, STORED=6, GT1=7, NK=8, SYNCED=9, HDR=16)
TK = dict(C_WAIT=0, C_WFULL=1, C_AFULL=2, C_PREV_DONE=3, X_WEMPTY0=4, X_DONE0=8, A_ISSUED=12, N=13)
IDEAL_PER_KTILE = 1024


def trunc(x, d=1):
    f = 10 ** d
    return math.floor(x * f) / f


def pct(v, lo, hi):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * lo))], v[len(v) // 2], v[min(len(v) - 1, int(len(v) * hi))]


def load(path):
    raw = open(path, "rb").read()
    magic, gx, gy, gz, stride, ktiles = struct.unpack_from("<6q", raw, 0)
    assert magic == 0x54524143, "not a trace file"
    ctas = gx * gy * gz
    words = struct.unpack_from("<%dQ" % (ctas * stride), raw, 48)
    recs = []
    for c in range(ctas):
        w = words[c * stride:(c + 1) * stride]
        if w[SS_TR["GT1"]] == 0:
            continue  # a CTA past N stores nothing? it still traces; 0 = never ran
        nk = w[SS_TR["NK"]]
        clk0 = w[SS_TR["CLK0"]]
        base = clk0 & 0xFFFFFFFF
        rel = lambda v: (v - base) & 0xFFFFFFFF
        kt_words = w[SS_TR["HDR"]:]
        kt = []
        for i in range(nk):
            e = []
            for j in range(TK["N"]):
                idx = i * TK["N"] + j
                v = (kt_words[idx // 2] >> (32 * (idx % 2))) & 0xFFFFFFFF
                e.append(rel(v))
            kt.append(e)
        recs.append(dict(cta=c, sm=w[0] & 0xFFFFFFFF, rank=w[0] >> 32, gt0=w[SS_TR["GT0"]], gt1=w[SS_TR["GT1"]],
                         clk0=clk0, stored=w[SS_TR["STORED"]] - clk0, init=rel(w[SS_TR["INIT"]]),
                         synced=rel(w[SS_TR["SYNCED"]]) if w[SS_TR["SYNCED"]] else 0,
                         loop_end=rel(w[SS_TR["LOOP_END"]]), drained=rel(w[SS_TR["DRAINED"]]), nk=nk, kt=kt))
    return dict(grid=(gx, gy, gz), stride=stride, ktiles=ktiles, recs=recs)


def analyse(tr):
    recs = tr["recs"]
    rates = sorted((r["gt1"] - r["gt0"]) / r["stored"] for r in recs if r["stored"] > 0)
    ns_per_clk = rates[len(rates) // 2]
    sms = sorted(set(r["sm"] for r in recs))
    span_ns = max(r["gt1"] for r in recs) - min(r["gt0"] for r in recs)
    span_clk = span_ns / ns_per_clk
    acc = dict(init=0.0, fill=0.0, ideal=0.0, excess=0.0, drain=0.0, epilogue=0.0)
    per = dict(init=[], synced=[], fill=[], period=[], drain=[], epilogue=[], total=[], wait_w=[], wait_a=[], prev=[],
               gap=[], first=[], last=[], ctas_per_sm=[])
    for w in range(4):  # transform warp w: W-empty wait, work, and how long before W-full it was done
        per["x%d_wempty" % w] = []
        per["x%d_work" % w] = []
        per["x%d_early" % w] = []
    per["a_iss_to_wfull"] = []
    for r in recs:
        kt = r["kt"]
        if not kt:
            continue
        first_ready = kt[0][TK["C_AFULL"]]
        acc["init"] += r["init"]
        acc["fill"] += first_ready - r["init"]
        loop = r["loop_end"] - first_ready
        ideal = IDEAL_PER_KTILE * (r["nk"] - 1)  # the last K-tile's tensor time is in drain
        acc["ideal"] += ideal
        acc["excess"] += loop - ideal
        acc["drain"] += r["drained"] - r["loop_end"]
        acc["epilogue"] += r["stored"] - r["drained"]
        per["init"].append(r["init"])
        per["synced"].append(r["synced"])
        per["fill"].append(first_ready - r["init"])
        per["drain"].append(r["drained"] - r["loop_end"])
        per["epilogue"].append(r["stored"] - r["drained"])
        per["total"].append(r["stored"])
        for i in range(2, r["nk"] - 1):  # steady state
            e, n = kt[i], kt[i + 1]
            per["period"].append(n[TK["C_WAIT"]] - e[TK["C_WAIT"]])
            per["wait_w"].append(e[TK["C_WFULL"]] - e[TK["C_WAIT"]])
            per["wait_a"].append(e[TK["C_AFULL"]] - e[TK["C_WFULL"]])
            per["prev"].append(e[TK["C_PREV_DONE"]] - e[TK["C_AFULL"]])
            p = kt[i - 1]
            for w in range(4):
                per["x%d_wempty" % w].append(e[TK["X_WEMPTY0"] + w] - p[TK["X_DONE0"] + w])
                per["x%d_work" % w].append(e[TK["X_DONE0"] + w] - e[TK["X_WEMPTY0"] + w])
                per["x%d_early" % w].append(e[TK["C_WFULL"]] - e[TK["X_DONE0"] + w])
            per["a_iss_to_wfull"].append(e[TK["C_WFULL"]] - e[TK["A_ISSUED"]])
    t_min = min(r["gt0"] for r in recs)
    t_max = max(r["gt1"] for r in recs)
    idle = 0.0
    for sm in sms:
        rs = sorted((r for r in recs if r["sm"] == sm), key=lambda r: r["clk0"])
        per["ctas_per_sm"].append(len(rs))
        first = (rs[0]["gt0"] - t_min) / ns_per_clk
        last = (t_max - rs[-1]["gt1"]) / ns_per_clk
        per["first"].append(first)
        per["last"].append(last)
        gaps = [rs[j + 1]["clk0"] - (rs[j]["clk0"] + rs[j]["stored"]) for j in range(len(rs) - 1)]
        per["gap"].extend(gaps)
        idle += first + last + sum(gaps)
    total = span_clk * len(sms)
    parts = dict(idle=idle, **acc)
    parts["unaccounted"] = total - sum(parts.values())
    return dict(ns_per_clk=ns_per_clk, clock_ghz=1 / ns_per_clk, sms=len(sms), ctas=len(recs), span_us=span_ns / 1e3,
                span_clk=span_clk, share={k: v / total for k, v in parts.items()},
                stats={k: pct(v, 0.1, 0.9) for k, v in per.items()})


def main():
    path = sys.argv[1]
    res = analyse(load(path))
    print("%s: %d CTAs on %d SMs, span %.2f us at %.3f GHz (median CTA clock rate)" %
          (path, res["ctas"], res["sms"], trunc(res["span_us"], 2), trunc(res["clock_ghz"], 3)))
    print("share of SM-time (SMs x span):")
    for k, v in res["share"].items():
        print("  %-12s %5.1f%%" % (k, trunc(100 * v)))
    print("per CTA / per K-tile, cycles: p10 / median / p90")
    for k, v in res["stats"].items():
        if isinstance(v, tuple):
            print("  %-12s %s" % (k, " / ".join(str(int(x)) for x in v)))
    if "--json" in sys.argv:
        json.dump(res, open(sys.argv[sys.argv.index("--json") + 1], "w"), indent=1)


if __name__ == "__main__":
    main()
