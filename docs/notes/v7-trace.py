#!/usr/bin/env python3
"""Reads v7's clock trace (gemm_wgmma_t_kernel, BT 64 / 128; a TETRA_GEMM_TRACE build, written by
launch_traced in src/cuda/gemm_sm90.cu, magic "TRA7"; driver docs/notes/v7-trace.c) and says where
each K-tile's time goes. Session 18 helper v7trace.

Usage: v7-trace.py FILE.bin [--block CYCLES] [--ctas N] [--kt KT] [--json OUT.json]
       v7-trace.py --selftest
--kt KT (v7.8 / v7.11 builds, TETRA_GEMM_V7_STAGE_KT = KT; helper v7k4): also the consumer segments
split by u' = (i + 1) % KT, the place in its stage of the K-tile whose fragments a step loads (stages
count from the CTA's own range): u' = 0 waits on rfull (and the next step on afull), the step of
u' = 1 arrives on aempty, u' = KT - 1's dequant arrives on rempty (KT 1: none of that is split).

Readings (SM clock cycles, clock64's low 32 bits; all of one CTA on one SM), per CTA and K-tile i
(i counts the CTA's own K-tiles, 0 .. nk - 1), for each consumer warpgroup (lane 0 of warps 0, 4):
  RFULL[i]   rfull wait returned for raw stage i (made during K-tile i - 1's step)
  DEQUANT[i] raw stage i dequantized into fragments (after the rempty arrive)
  AFULL[i]   afull wait returned for A stage i
  ISSUED[i]  K-tile i's 4 wgmmas issued and committed
  WAIT1[i]   wgmma_wait<1> returned (K-tile i - 1's group complete)
and for the producer's issuers (lane 0): A_EMPTY / A_ISSUED (A stage i: aempty wait returned,
multicast TMA issued), R_EMPTY / R_ISSUED (raw stage i: rempty wait returned, TMA + bulk scale
copies issued). Per CTA: entry (clock64 + globaltimer), after the cluster sync, first K-tile start
(INIT), loop end, wgmma_wait<0> (DRAINED), epilogue end, SM id and cluster rank.

What it prints (p10 / median / p90 over all CTAs' steady K-tiles, i in [2, nk - 2], both
warpgroups; then one line per CTA with its medians):
  period       ISSUED[i + 1] - ISSUED[i]: the K-tile period
  tensor_wait  WAIT1[i] - ISSUED[i]: wait<1> (the previous group still on the tensor pipe)
  gap          ISSUED[i + 1] - WAIT1[i]: wait<1> return to the next group's issue, split into
    rfull      RFULL[i + 1] - WAIT1[i] (the aempty arrives, then the raw-stage wait)
    dequant    DEQUANT[i + 1] - RFULL[i + 1]
    afull      AFULL[i + 1] - DEQUANT[i + 1]
    issue      ISSUED[i + 1] - AFULL[i + 1] (4 wgmmas, commit)
  blocked %    share of K-tiles whose wait (tensor_wait, rfull, afull; the issuers' empty
               waits) took more than --block cycles (default 100: an mbarrier try_wait that
               returns at once plus the reading costs well under that)
  a_empty / r_empty  X_EMPTY[i] - X_ISSUED[i - 1]: each issuer's wait for a free slot
  a_lead / r_lead    stages issued ahead, in K-tiles, when stage i is issued: i minus the
               K-tiles warpgroup 0 has consumed by then (A: ISSUED, raw: DEQUANT readings)
  a_ahead / r_ahead  AFULL[i] - A_ISSUED[i], RFULL[i] - R_ISSUED[i]: issue to consumption
  peer_a_late  the cluster peer's A_ISSUED[i] minus this CTA's (afull needs both halves), the
               peer's clock mapped onto this CTA's through the two entry (globaltimer, clock64)
               pairs: approximate (globaltimer's resolution), only as a sign of which CTA issues last
  fixed costs  entry -> synced, synced -> INIT, fill (INIT -> ISSUED[0]), loop (INIT -> loop
               end), drain (loop end -> DRAINED), epilogue (DRAINED -> end), tail (loop end -> end)
Figures are truncated, never rounded."""
import json
import math
import struct
import sys

MAGIC = 0x54524137  # "TRA7": v7 (gemm_sm90.cu TRACE_MAGIC_V7)
TR = dict(SMID=0, GT0=1, CLK0=2, INIT=3, LOOP_END=4, DRAINED=5, STORED=6, GT1=7, NK=8, SYNCED=9, INIT1=10,
          LOOP_END1=11, DRAINED1=12, STORED1=13, LAYOUT=15, HDR=16)
TK = dict(C_RFULL=0, C_DEQUANT=1, C_AFULL=2, C_ISSUED=3, C_WAIT1=4, WG=5, A_EMPTY=10, A_ISSUED=11, R_EMPTY=12,
          R_ISSUED=13, N=14)
M32 = 0xFFFFFFFF


def trunc(x, d=1):
    f = 10 ** d
    return math.floor(x * f) / f


def pct(v):
    """p10, median, p90 (None if empty)"""
    if not v:
        return None
    v = sorted(v)
    n = len(v)
    return v[min(n - 1, int(n * 0.1))], v[n // 2], v[min(n - 1, int(n * 0.9))]


def med(v):
    return sorted(v)[len(v) // 2] if v else None


def load(path):
    raw = open(path, "rb").read()
    magic, gx, gy, gz, stride, ktiles = struct.unpack_from("<6q", raw, 0)
    if magic != MAGIC:
        raise SystemExit("%s: magic %#x, not a v7 trace (%#x; v10.3's: session12-trace.py)" % (path, magic, MAGIC))
    ctas = gx * gy * gz
    words = struct.unpack_from("<%dQ" % (ctas * stride), raw, 48)
    recs = []
    for c in range(ctas):
        w = words[c * stride:(c + 1) * stride]
        if w[TR["GT1"]] == 0 or w[TR["CLK0"]] == 0:
            continue  # not written (no trace buffer, or the CTA did not finish)
        clk0 = w[TR["CLK0"]]
        base = clk0 & M32
        rel = lambda v: (v - base) & M32
        lay = w[TR["LAYOUT"]]
        if lay & 0xFF != TK["N"]:
            raise SystemExit("%s: %d readings per K-tile, this reader knows %d" % (path, lay & 0xFF, TK["N"]))
        nk = w[TR["NK"]]
        kt_words = w[TR["HDR"]:]
        kt = []
        for i in range(nk):
            e = []
            for j in range(TK["N"]):
                idx = i * TK["N"] + j
                v = (kt_words[idx // 2] >> (32 * (idx % 2))) & M32
                e.append(rel(v) if v else None)
            kt.append(e)
        bx, by, bz = c % gx, (c // gx) % gy, c // (gx * gy)
        recs.append(dict(cta=c, bx=bx, by=by, bz=bz, sm=w[0] & M32, rank=w[0] >> 32, gt0=w[TR["GT0"]],
                         gt1=w[TR["GT1"]], clk0=clk0, stored=w[TR["STORED"]] - clk0, nk=nk, bt=lay >> 16,
                         frag=(lay >> 8) & 0xFF, synced=rel(w[TR["SYNCED"]]),
                         init=(rel(w[TR["INIT"]]), rel(w[TR["INIT1"]])),
                         loop_end=(rel(w[TR["LOOP_END"]]), rel(w[TR["LOOP_END1"]])),
                         drained=(rel(w[TR["DRAINED"]]), rel(w[TR["DRAINED1"]])),
                         stored1=rel(w[TR["STORED1"]]), kt=kt))
    return dict(grid=(gx, gy, gz), stride=stride, ktiles=ktiles, recs=recs)


def consumed(times, t):
    """how many of the (increasing) times are <= t"""
    lo, hi = 0, len(times)
    while lo < hi:
        m = (lo + hi) // 2
        if times[m] <= t:
            lo = m + 1
        else:
            hi = m
    return lo


def cta_stats(r, blk, ns_per_clk, peer):
    kt, nk = r["kt"], r["nk"]
    s = {k: [] for k in ("period", "tensor_wait", "gap", "rfull", "dequant", "afull", "issue", "a_empty", "r_empty",
                         "a_issue", "r_issue", "a_lead", "r_lead", "a_ahead", "r_ahead", "peer_a_late",
                         "order_bad")}
    s.update({k + "_wg%d" % w: [] for k in ("period", "tensor_wait", "rfull", "afull") for w in (0, 1)})
    steady = range(2, nk - 1)  # i and i + 1 both steady
    g = lambda i, e: kt[i][e]
    for w in (0, 1):
        o = w * TK["WG"]
        for i in steady:
            iss, w1 = g(i, o + TK["C_ISSUED"]), g(i, o + TK["C_WAIT1"])
            rf, dq = g(i + 1, o + TK["C_RFULL"]), g(i + 1, o + TK["C_DEQUANT"])
            af, iss1 = g(i + 1, o + TK["C_AFULL"]), g(i + 1, o + TK["C_ISSUED"])
            if None in (iss, w1, rf, dq, af, iss1):
                continue
            # the readings of one warpgroup must come in program order
            s["order_bad"].append(0 if iss < w1 <= rf <= dq <= af < iss1 else 1)
            for k, v in (("period", iss1 - iss), ("tensor_wait", w1 - iss), ("rfull", rf - w1), ("afull", af - dq)):
                s[k].append(v)
                s[k + "_wg%d" % w].append(v)
            s["gap"].append(iss1 - w1)
            s["dequant"].append(dq - rf)
            s["issue"].append(iss1 - af)
            if KT_SPLIT > 1:
                u = (i + 1) % KT_SPLIT
                for k, v in (("period", iss1 - iss), ("rfull", rf - w1), ("dequant", dq - rf), ("afull", af - dq),
                             ("issue", iss1 - af)):
                    s.setdefault("%s_u%d" % (k, u), []).append(v)
    # the issuers, against warpgroup 0's consumption
    iss0 = [g(i, TK["C_ISSUED"]) for i in range(nk)]
    dq0 = [g(i, TK["C_DEQUANT"]) for i in range(nk)]
    ok_iss = None not in iss0
    ok_dq = None not in dq0
    for i in range(1, nk):
        for x in ("a", "r"):
            E, I = TK[x.upper() + "_EMPTY"], TK[x.upper() + "_ISSUED"]
            if None not in (g(i, E), g(i - 1, I)):
                s[x + "_empty"].append(g(i, E) - g(i - 1, I))
            if None not in (g(i, E), g(i, I)):
                s[x + "_issue"].append(g(i, I) - g(i, E))
    for i in range(nk):
        ai, ri = g(i, TK["A_ISSUED"]), g(i, TK["R_ISSUED"])
        if ai is not None and ok_iss:
            s["a_lead"].append(i - consumed(iss0, ai))
        if ri is not None and ok_dq:
            s["r_lead"].append(i - consumed(dq0, ri))
        if ai is not None and g(i, TK["C_AFULL"]) is not None:
            s["a_ahead"].append(g(i, TK["C_AFULL"]) - ai)
        if ri is not None and g(i, TK["C_RFULL"]) is not None:
            s["r_ahead"].append(g(i, TK["C_RFULL"]) - ri)
    if peer is not None and ns_per_clk:
        # the peer's reading t (its clock, relative to its entry) on this CTA's relative clock
        shift = (peer["gt0"] - r["gt0"]) / ns_per_clk
        for i in range(min(nk, peer["nk"])):
            a, b = g(i, TK["A_ISSUED"]), peer["kt"][i][TK["A_ISSUED"]]
            if a is not None and b is not None:
                s["peer_a_late"].append(b + shift - a)
    blocked = {}
    for k in ("tensor_wait", "rfull", "afull", "a_empty", "r_empty"):
        v = s[k]
        blocked[k] = sum(1 for x in v if x > blk) / len(v) if v else None
    fixed = dict(entry_synced=r["synced"], synced_init=r["init"][0] - r["synced"],
                 fill=(iss0[0] - r["init"][0]) if iss0[0] is not None else None,
                 loop=r["loop_end"][0] - r["init"][0], drain=r["drained"][0] - r["loop_end"][0],
                 epilogue=r["stored"] - r["drained"][0], tail=r["stored"] - r["loop_end"][0], total=r["stored"],
                 wg1_init_lag=r["init"][1] - r["init"][0], wg1_loop_end_lag=r["loop_end"][1] - r["loop_end"][0])
    return s, blocked, fixed


def analyse(tr, blk=100):
    recs = tr["recs"]
    if not recs:
        raise SystemExit("no CTA in the trace wrote its readings")
    rates = sorted((r["gt1"] - r["gt0"]) / r["stored"] for r in recs if r["stored"] > 0)
    ns_per_clk = rates[len(rates) // 2]
    by_pos = {(r["bx"], r["by"], r["bz"]): r for r in recs}
    allk, allb, allf, per = {}, {}, {}, []
    for r in recs:
        peer = by_pos.get((r["bx"] ^ 1, r["by"], r["bz"]))
        s, b, f = cta_stats(r, blk, ns_per_clk, peer)
        for k, v in s.items():
            allk.setdefault(k, []).extend(v)
        for k, v in b.items():
            if v is not None:
                allb.setdefault(k, []).append(v)
        for k, v in f.items():
            if v is not None:
                allf.setdefault(k, []).append(v)
        per.append(dict(cta=r["cta"], bx=r["bx"], by=r["by"], bz=r["bz"], sm=r["sm"], rank=r["rank"], nk=r["nk"],
                        med={k: med(v) for k, v in s.items()}, blocked=b, fixed=f))
    # blocked shares over all K-tiles (not the mean of per-CTA shares)
    blocked_all = {k: (sum(1 for x in allk[k] if x > blk) / len(allk[k]) if allk.get(k) else None) for k in allb}
    order = allk.pop("order_bad", [])
    span_ns = max(r["gt1"] for r in recs) - min(r["gt0"] for r in recs)
    r0 = recs[0]
    return dict(grid=tr["grid"], ktiles=tr["ktiles"], bt=r0["bt"], frag=r0["frag"], ctas=len(recs),
                sms=len(set(r["sm"] for r in recs)), ns_per_clk=ns_per_clk, clock_ghz=1 / ns_per_clk,
                span_us=span_ns / 1e3, block=blk, order_bad=(sum(order), len(order)), stats={k: pct(v) for k, v in allk.items()},
                blocked=blocked_all, blocked_cta=({k: pct(v) for k, v in allb.items()}),
                fixed={k: pct(v) for k, v in allf.items()}, per_cta=per)


ORDER = ["period", "tensor_wait", "gap", "rfull", "dequant", "afull", "issue", "period_wg0", "period_wg1",
         "tensor_wait_wg0", "tensor_wait_wg1", "rfull_wg0", "rfull_wg1", "afull_wg0", "afull_wg1", "a_empty",
         "a_issue", "r_empty", "r_issue", "a_lead", "r_lead", "a_ahead", "r_ahead", "peer_a_late"]
KT_SPLIT = 1  # --kt: K-tiles per ring stage of the traced build


def fmt3(t):
    return "-" if t is None else " / ".join(str(int(x)) for x in t)


def report(res, max_ctas=None, out=sys.stdout):
    p = lambda *a: print(*a, file=out)
    p("v7 trace: grid %s, BT %d, %s weights, %d K-tiles, %d CTAs on %d SMs, span %.2f us at %.3f GHz" %
      (res["grid"], res["bt"], "fragment" if res["frag"] else "standard", res["ktiles"], res["ctas"], res["sms"],
       trunc(res["span_us"], 2), trunc(res["clock_ghz"], 3)))
    p("readings out of program order: %d of %d steady K-tiles (expected 0)" % res["order_bad"])
    p("per steady K-tile (both warpgroups), cycles: p10 / median / p90")
    for k in ORDER:
        if res["stats"].get(k):
            p("  %-16s %s" % (k, fmt3(res["stats"][k])))
    if KT_SPLIT > 1:
        p("by u' = (i + 1) %% %d (the next K-tile's place in its stage): rfull / dequant / afull / issue / period,"
          " p10 / median / p90" % KT_SPLIT)
        for u in range(KT_SPLIT):
            p("  u' = %d  %s" % (u, "  |  ".join(fmt3(res["stats"].get("%s_u%d" % (k, u)))
                                             for k in ("rfull", "dequant", "afull", "issue", "period"))))
    p("blocked (> %d cycles), share of K-tiles [per-CTA shares p10 / median / p90]:" % res["block"])
    for k, v in res["blocked"].items():
        if v is not None:
            c = res["blocked_cta"].get(k)
            p("  %-16s %5.1f%%  [%s]" % (k, trunc(100 * v), " / ".join("%.1f%%" % trunc(100 * x) for x in c)))
    p("per-CTA fixed costs, cycles: p10 / median / p90")
    for k, v in res["fixed"].items():
        p("  %-16s %s" % (k, fmt3(v)))
    per = res["per_cta"] if max_ctas is None else res["per_cta"][:max_ctas]
    p("per CTA (medians; blocked % of tensor_wait / rfull / afull):")
    p("  %5s %4s %3s %2s %4s %4s %6s %6s %6s %6s %6s %6s %5s %5s %17s %7s %7s" %
      ("cta", "x", "y", "rk", "sm", "nk", "period", "tens", "rfull", "deq", "afull", "issue", "aLead", "rLead",
       "blocked", "init", "tail"))
    for c in per:
        m, b, f = c["med"], c["blocked"], c["fixed"]
        n = lambda x: "-" if x is None else str(int(x))
        bl = "/".join("-" if b[k] is None else "%d" % int(100 * b[k]) for k in ("tensor_wait", "rfull", "afull"))
        p("  %5d %4d %3d %2d %4d %4d %6s %6s %6s %6s %6s %6s %5s %5s %17s %7s %7s" %
          (c["cta"], c["bx"], c["by"], c["rank"], c["sm"], c["nk"], n(m["period"]), n(m["tensor_wait"]),
           n(m["rfull"]), n(m["dequant"]), n(m["afull"]), n(m["issue"]), n(m["a_lead"]), n(m["r_lead"]), bl,
           n(f["synced_init"] + f["entry_synced"]), n(f["tail"])))


# ---------------------------------------------------------------- self-test (no GPU)
def synth(path, nk=40, gx=4, peer_late=100):
    """Writes a v7 trace with known timings (see selftest) to path; returns what it used."""
    ns_per_clk = 0.5
    stride = TR["HDR"] + (nk * TK["N"] + 1) // 2
    P = dict(tw=[30, 30, 30, 250], rf=(20, 320, 5), dq=120, af=(10, 200, 10), iss=40, la=6, lr=9, a_cost=15,
             r_cost=25, synced=1000, init=1500, fill=700, drain=400, epi=2000, wg1=3)
    words = []
    for c in range(gx):
        rank = c % 2
        clk0 = (1 << 40) + (M32 + 1) - 5000 if c == 0 else (1 << 36) + 7919 * c  # CTA 0: low 32 bits wrap
        gt0 = 10 ** 9 + 1000 * (c // 2)  # a cluster pair enters together
        ti = P["init"]
        R = [[0] * TK["N"] for _ in range(nk)]
        for w in (0, 1):
            o, d = w * TK["WG"], w * P["wg1"]
            t = ti + P["fill"] - P["rf"][0] - P["dq"] - P["af"][0] - P["iss"]  # so ISSUED[0] = init + fill
            for i in range(nk):
                rf = P["rf"][1] if i % P["rf"][2] == 0 and i > 0 else P["rf"][0]
                af = P["af"][1] if i % P["af"][2] == 0 and i > 0 else P["af"][0]
                R[i][o + TK["C_RFULL"]] = t + rf + d
                R[i][o + TK["C_DEQUANT"]] = t + rf + P["dq"] + d
                R[i][o + TK["C_AFULL"]] = t + rf + P["dq"] + af + d
                R[i][o + TK["C_ISSUED"]] = t + rf + P["dq"] + af + P["iss"] + d
                R[i][o + TK["C_WAIT1"]] = R[i][o + TK["C_ISSUED"]] + P["tw"][i % 4]
                t = R[i][o + TK["C_WAIT1"]] - d
        for i in range(nk):
            # A stage i issued just before K-tile i - la's wgmmas (rank 0 peer_late cycles before
            # rank 1), raw stage i just after stage i - lr's dequant
            ai = (R[i - P["la"]][TK["C_ISSUED"]] - 5 - (peer_late if rank == 0 else 0)) if i >= P["la"] else ti + 10 * i
            ri = (R[i - P["lr"]][TK["C_DEQUANT"]] + 7) if i >= P["lr"] else ti + 10 * i + 3
            R[i][TK["A_ISSUED"]], R[i][TK["A_EMPTY"]] = ai, ai - P["a_cost"]
            R[i][TK["R_ISSUED"]], R[i][TK["R_EMPTY"]] = ri, ri - P["r_cost"]
        loop_end = R[nk - 1][TK["C_WAIT1"]] + 50
        drained = loop_end + P["drain"]
        stored = drained + P["epi"]
        h = [0] * TR["HDR"]
        h[TR["SMID"]] = (c * 2) | rank << 32
        h[TR["CLK0"]] = clk0
        h[TR["GT0"]] = gt0
        h[TR["STORED"]] = clk0 + stored
        h[TR["GT1"]] = gt0 + int(stored * ns_per_clk)
        h[TR["NK"]] = nk
        h[TR["LAYOUT"]] = TK["N"] | 1 << 8 | 64 << 16
        lo = lambda v: (clk0 + v) & M32
        h[TR["SYNCED"]], h[TR["INIT"]], h[TR["INIT1"]] = lo(P["synced"]), lo(ti), lo(ti + P["wg1"])
        h[TR["LOOP_END"]], h[TR["LOOP_END1"]] = lo(loop_end), lo(loop_end + P["wg1"])
        h[TR["DRAINED"]], h[TR["DRAINED1"]], h[TR["STORED1"]] = lo(drained), lo(drained), lo(stored)
        flat = [lo(v) for e in R for v in e]
        if len(flat) % 2:
            flat.append(0)
        kw = [flat[2 * j] | flat[2 * j + 1] << 32 for j in range(len(flat) // 2)]
        cw = h + kw
        assert len(cw) == stride
        words.extend(cw)
    with open(path, "wb") as f:
        f.write(struct.pack("<6q", MAGIC, gx, 1, 1, stride, nk))
        f.write(struct.pack("<%dQ" % len(words), *words))
    return P


def selftest():
    import os
    import tempfile
    nk = 40
    path = os.path.join(tempfile.mkdtemp(), "synth.bin")
    P = synth(path, nk=nk)
    res = analyse(load(path), blk=100)
    st, bl, fx = res["stats"], res["blocked"], res["fixed"]
    steady = list(range(2, nk - 1))
    fails, n = [], [0]

    def check(name, got, want):
        n[0] += 1
        if got != want:
            fails.append("%s: got %r, want %r" % (name, got, want))

    # the parts of the gap between wait<1>(i) and the issue of K-tile i + 1
    rf = [P["rf"][1] if (i + 1) % P["rf"][2] == 0 else P["rf"][0] for i in steady]
    af = [P["af"][1] if (i + 1) % P["af"][2] == 0 else P["af"][0] for i in steady]
    tw = [P["tw"][i % 4] for i in steady]
    check("rfull median", st["rfull"][1], med(rf))
    check("dequant", st["dequant"], (P["dq"],) * 3)
    check("afull median", st["afull"][1], med(af))
    check("issue", st["issue"], (P["iss"],) * 3)
    check("tensor_wait median", st["tensor_wait"][1], med(tw))
    per = [rf[j] + P["dq"] + af[j] + P["iss"] + tw[j] for j in range(len(steady))]
    check("period median", st["period"][1], med(per))
    check("gap median", st["gap"][1], med([per[j] - tw[j] for j in range(len(steady))]))
    check("blocked tensor_wait", bl["tensor_wait"], sum(x > 100 for x in tw) / len(tw))
    check("blocked rfull", bl["rfull"], sum(x > 100 for x in rf) / len(rf))
    check("blocked afull", bl["afull"], sum(x > 100 for x in af) / len(af))
    check("a_issue", st["a_issue"], (P["a_cost"],) * 3)
    check("r_issue", st["r_issue"], (P["r_cost"],) * 3)
    check("a_lead median", st["a_lead"][1], P["la"])
    check("r_lead median", st["r_lead"][1], P["lr"] - 1)
    # rank 0 sees its peer +100 late, rank 1 -100 (the first la stages: together)
    check("peer_a_late p10 / p90", (st["peer_a_late"][0], st["peer_a_late"][2]), (-100.0, 100.0))
    check("entry_synced", fx["entry_synced"], (P["synced"],) * 3)
    check("synced_init", fx["synced_init"], (P["init"] - P["synced"],) * 3)
    check("fill", fx["fill"], (P["fill"],) * 3)
    check("drain", fx["drain"], (P["drain"],) * 3)
    check("epilogue", fx["epilogue"], (P["epi"],) * 3)
    check("wg1_init_lag", fx["wg1_init_lag"], (P["wg1"],) * 3)
    check("clock", trunc(res["clock_ghz"], 3), 2.0)
    check("ctas", res["ctas"], 4)
    check("order", res["order_bad"], (0, 4 * 2 * len(steady)))
    # a v10.3 file ("TRAC") is refused
    raw = bytearray(open(path, "rb").read())
    raw[0:8] = struct.pack("<q", 0x54524143)
    p2 = path + ".trac"
    open(p2, "wb").write(bytes(raw))
    try:
        load(p2)
        check("TRAC refused", False, True)
    except SystemExit:
        check("TRAC refused", True, True)
    import io
    buf = io.StringIO()
    report(res, out=buf)  # must not raise
    if fails:
        print("selftest FAILED:\n  " + "\n  ".join(fails))
        return 1
    print("selftest passed (%d checks on a synthetic %d-CTA, %d-K-tile trace, one CTA's clock wrapping)" %
          (n[0], res["ctas"], nk))
    return 0


def main():
    if "--selftest" in sys.argv:
        sys.exit(selftest())
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    blk = int(sys.argv[sys.argv.index("--block") + 1]) if "--block" in sys.argv else 100
    mc = int(sys.argv[sys.argv.index("--ctas") + 1]) if "--ctas" in sys.argv else None
    global KT_SPLIT
    KT_SPLIT = int(sys.argv[sys.argv.index("--kt") + 1]) if "--kt" in sys.argv else 1
    res = analyse(load(sys.argv[1]), blk)
    report(res, mc)
    if "--json" in sys.argv:
        json.dump(res, open(sys.argv[sys.argv.index("--json") + 1], "w"), indent=1)


if __name__ == "__main__":
    main()
