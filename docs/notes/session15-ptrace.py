#!/usr/bin/env python3
"""Session 15: where the persistent BT-256 kernel's time goes, unit by unit, against v10.3's CTAs.

Reads the trace files the TETRA_GEMM_TRACE build writes (docs/notes/session12-trace.c makes the
traced call when $TRACE is set):
  - magic 0x50545243: the persistent kernel's unit trace (TETRA_GEMM_TRACE_PERSISTENT=1; at
    K > 4096 also TETRA_GEMM_SS_CLUSTERS=<resident clusters>, which lifts the K rule);
  - magic 0x54524143: v10.3's per-CTA trace (session 12's format; only its globaltimer words
    GT0 / GT1 are used here).
Prints, in microseconds (globaltimer ns / 1000, truncated): the kernel span; per unit (or CTA)
the K loop, epilogue and gap medians and spread; the spread of the SMs' finish times (the
tail); per-SM busy time (does any SM run slower than the rest?).
Usage: session15-ptrace.py TRACE.bin [TRACE.bin ...]
"""
import math
import statistics
import struct
import sys

SS_TR_SMID, SS_TR_GT0, SS_TR_CLK0, SS_TR_INIT, SS_TR_LOOP_END, SS_TR_DRAINED, SS_TR_STORED, SS_TR_GT1 = range(8)
SS_TR_UNITS, SS_TR_HDR = 10, 16
SS_PU_UNIT, SS_PU_BEGIN, SS_PU_KDONE, SS_PU_EPI, SS_PU_N = range(5)


def t(x, d=2):
    return "%.*f" % (d, math.floor(x * 10 ** d) / 10 ** d)


def spread(name, v):
    if not v:
        return
    v = sorted(v)
    q = lambda f: v[min(len(v) - 1, int(f * len(v)))]
    print("  %-28s n %5d  median %s  p10 %s  p90 %s  max %s" % (name, len(v), t(statistics.median(v)), t(q(0.1)),
                                                                t(q(0.9)), t(v[-1])))


def load(path):
    raw = open(path, "rb").read()
    magic, a, b, c, stride, ktiles = struct.unpack_from("<6q", raw, 0)
    if magic == 0x50545243:
        ctas, clusters, units = a, b, c
    elif magic == 0x54524143:
        ctas, clusters, units = a * b * c, None, None
    else:
        raise SystemExit("%s: not a trace file" % path)
    words = struct.unpack_from("<%dQ" % (ctas * stride), raw, 48)
    rows = [words[i * stride:(i + 1) * stride] for i in range(ctas)]
    return magic, ctas, clusters, units, ktiles, rows


def analyse(path):
    magic, ctas, clusters, units, ktiles, rows = load(path)
    t0 = min(r[SS_TR_GT0] for r in rows)
    span = (max(r[SS_TR_GT1] for r in rows) - t0) / 1e3
    kind = "persistent (unit trace)" if magic == 0x50545243 else "v10.3 (per-CTA trace)"
    print("%s: %s, %d CTAs, %d K-tiles, kernel span %s us" % (path, kind, ctas, ktiles, t(span)))
    ends = [(r[SS_TR_GT1] - t0) / 1e3 for r in rows]
    spread("CTA end (from first start)", ends)
    per_sm = {}
    if magic == 0x50545243:
        kl, ep, gap, first, last = [], [], [], [], []
        for r in rows:
            n = r[SS_TR_UNITS]
            u = [r[SS_TR_HDR + j * SS_PU_N:SS_TR_HDR + (j + 1) * SS_PU_N] for j in range(n)]
            if not u:
                continue
            first.append((u[0][SS_PU_BEGIN] - r[SS_TR_GT0]) / 1e3)
            last.append((r[SS_TR_GT1] - u[-1][SS_PU_EPI]) / 1e3)
            for j, x in enumerate(u):
                kl.append((x[SS_PU_KDONE] - x[SS_PU_BEGIN]) / 1e3)
                ep.append((x[SS_PU_EPI] - x[SS_PU_KDONE]) / 1e3)
                if j + 1 < n:
                    gap.append((u[j + 1][SS_PU_BEGIN] - x[SS_PU_EPI]) / 1e3)
            sm = r[SS_TR_SMID] & 0xFFFFFFFF
            per_sm.setdefault(sm, []).append(sum((x[SS_PU_KDONE] - x[SS_PU_BEGIN]) / 1e3 for x in u) / n)
        print("  units %d on %d clusters (%s rounds)" % (units, clusters, t(units / clusters)))
        spread("start -> first K loop", first)
        spread("K loop per unit", kl)
        spread("epilogue (store issued)", ep)
        spread("gap to next K loop", gap)
        spread("last store -> CTA end", last)
        spread("per-SM mean K loop", [statistics.mean(v) for v in per_sm.values()])
    else:
        cta = [(r[SS_TR_GT1] - r[SS_TR_GT0]) / 1e3 for r in rows]
        spread("CTA span (GT0 -> GT1)", cta)
        starts = sorted((r[SS_TR_GT0] - t0) / 1e3 for r in rows)
        spread("CTA start (from first)", starts)
        for r in rows:
            per_sm.setdefault(r[SS_TR_SMID] & 0xFFFFFFFF, []).append((r[SS_TR_GT1] - r[SS_TR_GT0]) / 1e3)
        spread("per-SM mean CTA span", [statistics.mean(v) for v in per_sm.values()])
        spread("per-SM busy (sum of spans)", [sum(v) for v in per_sm.values()])


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for p in sys.argv[1:]:
        analyse(p)
