#!/usr/bin/env python3
"""Randomized protocol model of v10.6 (gemm_wgmma_t_ss_p_kernel, TETRA_GEMM_SS_PERSISTENT=1; made
from v10.4-protocol-model.py: per unit v10.3's K loop with the issue rules bounded to the unit,
the next unit's first raw / A stages issued between a unit's last K-tile and its epilogue, and
the W-ring handover a named barrier: 8 consumer warps bar.arrive, 4 transform warps bar.sync):
one 2-CTA cluster walking U units of nk K-tiles. Agents (Python generators, interleaved at
random): per CTA 4 transform warps (warp 1 loads the raw ring with linear scales), 8 consumer
warps (warp 0 issues the raw ring with bulk scales, warp 4 the A ring, multicast into both
CTAs), asynchronous TMA landings, cp.async arrivals and wgmma group completions. Every mbarrier
has its phase count and parity waits are modeled exactly (try_wait.parity P passes iff
completed % 2 != P). Checked: no deadlock; every wgmma reads the W and A tiles of its own
K-tile; no TMA / transform / staging write lands on a tile that a wgmma or the epilogue still
reads; no write or remote arrival reaches a CTA after its exit barrier.
Named barriers are modeled as the hardware counts them (arrivals per generation; bar.arrive
does not wait); a consumer warp arriving twice in one generation fails the walk.
Usage: python3 v10.6-protocol-model.py [walks] [bug]  (bug: nowfree, nolast, nobar, early,
blockprefetch: the next unit's A stages waited for instead of tried)."""
import random, sys

SA, SW, SR = 4, 4, 6
LEAD = SR - 2

class Fail(Exception):
    pass

class Bar:
    def __init__(self, count):
        self.count, self.pending, self.tx, self.completed = count, count, 0, 0
    def _check(self):
        if self.pending == 0 and self.tx == 0:
            self.completed += 1
            self.pending = self.count
    def arrive(self, tx=0):
        if self.pending <= 0:
            raise Fail("arrival on a full barrier")
        self.tx += tx
        self.pending -= 1
        self._check()
    def complete_tx(self, n):
        self.tx -= n
        self._check()
    def done(self, parity):
        return self.completed % 2 != parity

def run(U, nk, bulk, seed, bug=None):
    rng = random.Random(seed)
    total_k = U * nk
    ctas = []
    for c in range(2):
        d = dict(
            afull=[Bar(1) for _ in range(SA)], aempty=[Bar(16) for _ in range(SA)],
            rfull=[Bar(1 if bulk else 2) for _ in range(SR)], rempty=[Bar(4) for _ in range(SR)],
            wfull=[Bar(4) for _ in range(SW)], wempty=[Bar(8) for _ in range(SW)],
            atag=[[None, None] for _ in range(SA)], wtag=[[None] * 4 for _ in range(SW)],
            rtag=[None] * SR, rreads=[4] * SR, inflight=[[] for _ in range(8)], staging=[False] * 8,
            nbar={}, exited=False)
        ctas.append(d)
    events = []  # callables: asynchronous completions
    exitbar = {"n": 0}

    def named_bar(c, key, n):
        nb = ctas[c]["nbar"].setdefault(key, [0, 0])
        gen = nb[1]
        nb[0] += 1
        if nb[0] == n:
            nb[0] = 0
            nb[1] += 1
        while ctas[c]["nbar"][key][1] == gen:
            yield

    def named_arrive(c, key, n, w):  # bar.arrive: counted, no wait; once per warp per generation
        nb = ctas[c]["nbar"].setdefault(key, [0, 0])
        seen = ctas[c].setdefault("arrived", {}).setdefault((key, nb[1]), set())
        if w in seen:
            raise Fail("warp %d arrives twice in one generation of %r" % (w, key))
        seen.add(w)
        nb[0] += 1
        if nb[0] == n:
            nb[0] = 0
            nb[1] += 1

    def wait(pred):
        while not pred():
            yield

    def a_reads(c, s):
        return any(g[1] == s for w in ctas[c]["inflight"] for g in w)

    def w_reads(c, s):
        return any(g[0] == s for w in ctas[c]["inflight"] for g in w)

    def issue_a(c, s, g):  # this CTA's half of K-tile g into slot s of both CTAs
        ctas[c]["afull"][s].arrive(tx=2)
        for d in range(2):
            def land(d=d):
                if ctas[d]["exited"]:
                    raise Fail("A multicast into an exited CTA")
                if a_reads(d, s):
                    raise Fail("A TMA over a wgmma read (cta %d slot %d)" % (d, s))
                ctas[d]["atag"][s][c] = g
                ctas[d]["afull"][s].complete_tx(1)
            events.append(land)

    def issue_raw(c, s, g, lin):
        if ctas[c]["rreads"][s] != 4:
            raise Fail("raw issue before the transform read the slot")
        ctas[c]["rfull"][s].arrive(tx=1)
        def land():
            if ctas[c]["rreads"][s] != 4:
                raise Fail("raw TMA over unread raw bytes")
            ctas[c]["rtag"][s] = g
            ctas[c]["rreads"][s] = 0
            ctas[c]["rfull"][s].complete_tx(1)
        events.append(land)
        if lin:
            events.append(lambda: ctas[c]["rfull"][s].arrive())  # the lanes' cp.async arrivals

    def a_ahead(c, st, need, upto):
        while st["na"] < upto:
            s, ph = st["na"] % SA, (st["na"] // SA) & 1
            e = ctas[c]["aempty"][s]
            if st["na"] <= need:
                yield from wait(lambda: e.done(ph ^ 1))
            elif not e.done(ph ^ 1):
                return
            issue_a(c, s, st["na"])
            st["na"] += 1
            yield

    def consumer(c, w):
        me = ctas[c]
        raw_issuer = bulk and w == 0
        a_issuer = w == 4
        st = {"na": 0}  # the next A stage to issue, as a global K-tile index
        nr = 0          # the next raw stage to issue, global
        def raw_to(upto):
            nonlocal nr
            while nr < upto:
                s, ph = nr % SR, (nr // SR) & 1
                yield from wait(lambda: me["rempty"][s].done(ph ^ 1))
                issue_raw(c, s, nr, False)
                nr += 1
        if raw_issuer:
            yield from raw_to(min(nk, SR))
        if a_issuer:
            yield from a_ahead(c, st, min(nk, SA) - 1, min(nk, SA))
        for j in range(U):
            base = j * nk
            a_prev = w_prev = None
            for k in range(nk):  # v10.3's loop, bounds of this unit
                i = base + k
                if a_issuer:
                    yield from a_ahead(c, st, i, base + min(nk, k + SA - 1))
                ws, wp, as_, ap = i % SW, (i // SW) & 1, i % SA, (i // SA) & 1
                yield from wait(lambda: me["wfull"][ws].done(wp))
                yield from wait(lambda: me["afull"][as_].done(ap))
                if me["wtag"][ws] != [i] * 4:
                    raise Fail("wgmma of K-tile %d reads W %r" % (i, me["wtag"][ws]))
                if me["atag"][as_] != [i, i]:
                    raise Fail("wgmma of K-tile %d reads A %r" % (i, me["atag"][as_]))
                me["inflight"][w].append((ws, as_))
                events.append(lambda w=w: me["inflight"][w] and me["inflight"][w].pop(0) and None)
                if raw_issuer and k + SR < nk:
                    yield from raw_to(i + SR + 1)
                yield from wait(lambda: len(me["inflight"][w]) <= 1)
                if k > 0:
                    me["aempty"][a_prev].arrive()
                    if ctas[c ^ 1]["exited"]:
                        raise Fail("remote arrival on an exited CTA")
                    ctas[c ^ 1]["aempty"][a_prev].arrive()
                    me["wempty"][w_prev].arrive()
                if a_issuer and k > 0:
                    yield from a_ahead(c, st, -1, base + min(nk, k + SA))
                a_prev, w_prev = as_, ws
                yield
            yield from wait(lambda: len(me["inflight"][w]) == 0)
            if bug != "nolast":
                me["aempty"][a_prev].arrive()
                if ctas[c ^ 1]["exited"]:
                    raise Fail("remote arrival on an exited CTA")
                ctas[c ^ 1]["aempty"][a_prev].arrive()
                me["wempty"][w_prev].arrive()
            more = j + 1 < U
            if more:  # the next unit's first stages, before the epilogue
                nb = base + nk
                if st["na"] != nb and a_issuer:
                    raise Fail("A issuer behind at the unit's end")
                if raw_issuer:
                    yield from raw_to(nb + min(nk, SR))
                if a_issuer:
                    need = nb + min(nk, SA) - 1 if bug == "blockprefetch" else -1
                    yield from a_ahead(c, st, need, nb + min(nk, SA))
            # epilogue: stage D^T in the W ring, read it back, release the ring
            if bug != "nobar":
                yield from named_bar(c, "cons", 8)
            for s in range(SW):
                if w_reads(c, s):
                    raise Fail("staging over a wgmma read of W slot %d" % s)
                me["wtag"][s] = ["staged"] * 4
            me["staging"][w] = True
            yield
            yield from named_bar(c, ("wg", w // 4), 4)
            if bug == "early" and more:
                named_arrive(c, "wfree", 12, w)
            yield  # the warp's staged reads and global stores
            me["staging"][w] = False
            if bug != "early" and more:
                named_arrive(c, "wfree", 12, w)
                if a_issuer:  # one more try after the epilogue
                    yield from a_ahead(c, st, -1, nb + min(nk, SA))
            yield
        exitbar["n"] += 1
        yield from wait(lambda: exitbar["n"] == 24)
        me["exited"] = True

    def transform(c, w):
        me = ctas[c]
        lin = (not bulk) and w == 1
        nr = 0
        def raw_one():
            nonlocal nr
            s, ph = nr % SR, (nr // SR) & 1
            yield from wait(lambda: me["rempty"][s].done(ph ^ 1))
            issue_raw(c, s, nr, True)
            nr += 1
        if lin:
            while nr < min(nk, LEAD):
                yield from raw_one()
        for j in range(U):
            base = j * nk
            if j > 0 and bug != "nowfree":
                yield from named_bar(c, "wfree", 12)
            for k in range(nk):  # v10.3's loop, bounds of this unit
                i = base + k
                if lin and nr < base + nk:
                    yield from raw_one()
                rs, rp = i % SR, (i // SR) & 1
                yield from wait(lambda: me["rfull"][rs].done(rp))
                if me["rtag"][rs] != i:
                    raise Fail("transform of K-tile %d reads raw %r" % (i, me["rtag"][rs]))
                ws, wp = i % SW, (i // SW) & 1
                yield from wait(lambda: me["wempty"][ws].done(wp ^ 1))
                yield
                if w_reads(c, ws):
                    raise Fail("transform write over a wgmma read of W slot %d" % ws)
                if any(me["staging"]):
                    raise Fail("transform write into the W ring during the epilogue")
                me["wtag"][ws][w] = i
                me["rreads"][rs] += 1
                me["rempty"][rs].arrive()
                me["wfull"][ws].arrive()
                yield
            if lin and j + 1 < U:  # the next unit's first raw stages, before the handover
                while nr < base + nk + min(nk, LEAD):
                    yield from raw_one()
        exitbar["n"] += 1
        yield from wait(lambda: exitbar["n"] == 24)
        me["exited"] = True

    agents = [consumer(c, w) for c in range(2) for w in range(8)] + [transform(c, w) for c in range(2) for w in range(4)]
    live = list(agents)
    steps = 0
    while live or events:
        steps += 1
        if steps > 2_000_000:
            raise Fail("no progress (livelock)")
        if events and (not live or rng.random() < 0.3):
            events.pop(rng.randrange(len(events)))()
            continue
        a = live[rng.randrange(len(live))]
        try:
            next(a)
        except StopIteration:
            live.remove(a)
        # deadlock: all agents spin with no pending events -> detected by a bounded stall
        if not events and steps % 5000 == 0:
            snap = repr([(c["nbar"].get("wfree"), [b.completed for b in c["wfull"]], [b.completed for b in c["afull"]]) for c in ctas])
            if getattr(run, "_snap", None) == snap:
                raise Fail("deadlock")
            run._snap = snap
    for c in ctas:  # every K-tile went through the W ring, every epilogue released it
        wf = c["nbar"].get("wfree", [0, 0])
        if sum(b.completed for b in c["wfull"]) != total_k or wf != [0, U - 1] or not c["exited"]:
            raise Fail("incomplete walk")
    return True

if __name__ == "__main__":
    walks = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    bug = sys.argv[2] if len(sys.argv) > 2 else None
    fails = 0
    for t in range(walks):
        r = random.Random(t)
        U, nk, bulk = r.randint(1, 5), r.choice([1, 2, 3, 4, 5, 7, 9, 11]), r.random() < 0.5
        run._snap = None
        try:
            run(U, nk, bulk, seed=1000 + t, bug=bug)
        except Fail as e:
            fails += 1
            if fails <= 3:
                print("walk %d (U=%d nk=%d bulk=%d): %s" % (t, U, nk, bulk, e))
    print("%d of %d walks failed%s" % (fails, walks, " (bug %s)" % bug if bug else ""))
