#!/usr/bin/env python3
"""Randomized protocol model of the TETRA_GEMM_SS_WHALF=1 K loop of gemm_wgmma_t_ss_kernel
(v10.5 lever, session 13 helper xf8; not run on a GPU). One CTA: 4 transform warps (warp 1
loads the raw ring with linear scales, lead SR - 2), 8 consumer warps (warp 0 issues the raw
ring with bulk scales, warp 4 the A ring), asynchronous TMA landings and wgmma group
completions (in order per warp, at random times). The cluster's second CTA is left out: the A
ring's protocol is v10.3's, which WHALF does not change (its aempty counts 16 warps of two
CTAs instead of 8 here). Every mbarrier has its phase count; try_wait.parity P passes iff
completed % 2 != P. Each W stage is two halves (lo: k16 steps 0-1, hi: 2-3), each with its own
wfull (4 transform arrivals: one per warp here, 128 threads on the GPU) and wempty (8).
Checked: no deadlock; every wgmma group reads the W half and A stage of its own K-tile; no
transform store lands on a W half that an in-flight group reads; no raw TMA lands on a stage
that a transform warp has not read; no A TMA lands on a stage an in-flight group reads.
Usage: python3 v10.5-whalf-protocol-model.py [walks] [bug]
  bug: early_lo (release W lo at the first wait_group), hi_as_lo (the transform waits on the
  lo wempty before its hi stores), no_hi_wait (the consumer skips W-full hi),
  rempty_late (rempty after the hi half: must still pass, only slower)."""
import random, sys

SA, SW, SR = 4, 4, 6
LEAD = SR - 2
NX, NC = 4, 8  # transform warps, consumer warps


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


def run(nk, bulk, seed, bug=None):
    rng = random.Random(seed)
    afull = [Bar(1) for _ in range(SA)]
    aempty = [Bar(NC) for _ in range(SA)]
    rfull = [Bar(1 if bulk else 2) for _ in range(SR)]
    rempty = [Bar(NX) for _ in range(SR)]
    wfull = [[Bar(NX), Bar(NX)] for _ in range(SW)]
    wempty = [[Bar(NC), Bar(NC)] for _ in range(SW)]
    atag = [None] * SA
    rtag = [None] * SR
    rread = [set(range(NX)) for _ in range(SR)]  # transform warps that read the stage's current tile
    wtag = [[[None] * NX for _ in range(2)] for _ in range(SW)]
    inflight = [[] for _ in range(NC)]  # per consumer warp: groups (k-tile, w slot, half, a slot), oldest first
    events = []

    def wait(pred):
        while not pred():
            yield "blocked"

    def reads_w(s, h):
        return any(g[1] == s and g[2] == h for w in inflight for g in w)

    def reads_a(s):
        return any(g[3] == s for w in inflight for g in w)

    def issue_a(s, g):
        afull[s].arrive(tx=1)

        def land():
            if reads_a(s):
                raise Fail("A TMA over a stage an in-flight group reads")
            atag[s] = g
            afull[s].complete_tx(1)
        events.append(land)

    def issue_raw(s, g, by_warp):
        if rread[s] != set(range(NX)):
            raise Fail("raw TMA issued before every transform warp read the stage")
        rfull[s].arrive(tx=1)

        def land():
            rtag[s] = g
            rread[s] = set()
            rfull[s].complete_tx(1)
        events.append(land)
        if not bulk:
            rfull[s].arrive()  # the lanes' scale cp.async arrivals (one here)

    def transform(x):
        rr = rw = 0
        rr_ph = rw_ph = 0
        rp = rp_ph = 0
        nr = 0
        role = (not bulk) and x == 1
        for i in range(nk):
            if role:
                while nr < nk and nr < i + LEAD + 1:
                    yield from wait(lambda s=rp, p=rp_ph: rempty[s].done(p ^ 1))
                    issue_raw(rp, nr, x)
                    nr += 1
                    rp += 1
                    if rp == SR:
                        rp, rp_ph = 0, rp_ph ^ 1
                    yield
            yield from wait(lambda s=rr, p=rr_ph: rfull[s].done(p))
            if rtag[rr] != i:
                raise Fail("transform reads raw stage of K-tile %s for %d" % (rtag[rr], i))
            rread[rr].add(x)
            yield
            yield from wait(lambda s=rw, p=rw_ph: wempty[s][0].done(p ^ 1))
            if reads_w(rw, 0):
                raise Fail("transform store on W lo half an in-flight group reads")
            wtag[rw][0][x] = i
            yield
            if bug != "rempty_late":
                rempty[rr].arrive()
            wfull[rw][0].arrive()
            yield
            hb = 0 if bug == "hi_as_lo" else 1
            yield from wait(lambda s=rw, p=rw_ph, hb=hb: wempty[s][hb].done(p ^ 1))
            if reads_w(rw, 1):
                raise Fail("transform store on W hi half an in-flight group reads")
            wtag[rw][1][x] = i
            yield
            if bug == "rempty_late":
                rempty[rr].arrive()
            wfull[rw][1].arrive()
            rr += 1
            if rr == SR:
                rr, rr_ph = 0, rr_ph ^ 1
            rw += 1
            if rw == SW:
                rw, rw_ph = 0, rw_ph ^ 1
            yield

    def wait_group(w, n):
        while len(inflight[w]) > n:
            yield "blocked"

    def issue_group(w, i, s, h, a):
        if any(t != i for t in wtag[s][h]):
            raise Fail("group of K-tile %d reads W half %d holding %s" % (i, h, wtag[s][h]))
        if atag[a] != i:
            raise Fail("group of K-tile %d reads A stage holding %s" % (i, atag[a]))
        inflight[w].append((i, s, h, a))

    def consumer(w):
        ra = rw = 0
        ra_ph = rw_ph = 0
        a_prev = w_prev = 0
        rp = rp_ph = 0
        rn = rn_ph = 0
        na = 0
        raw_issuer = bulk and w == 0
        a_issuer = w == 4

        def a_ahead(need, upto):
            nonlocal na, rn, rn_ph
            while na < upto:
                if na <= need:
                    yield from wait(lambda s=rn, p=rn_ph: aempty[s].done(p ^ 1))
                elif not aempty[rn].done(rn_ph ^ 1):
                    break
                issue_a(rn, na)
                na += 1
                rn += 1
                if rn == SA:
                    rn, rn_ph = 0, rn_ph ^ 1
                yield

        if raw_issuer:
            for j in range(min(nk, SR)):
                yield from wait(lambda s=rp, p=rp_ph: rempty[s].done(p ^ 1))
                issue_raw(rp, j, None)
                rp += 1
                if rp == SR:
                    rp, rp_ph = 0, rp_ph ^ 1
        if a_issuer:
            yield from a_ahead(min(nk, SA) - 1, min(nk, SA))
        for i in range(nk):
            if a_issuer:
                yield from a_ahead(i, min(nk, i + SA - 1))
            yield from wait(lambda s=rw, p=rw_ph: wfull[s][0].done(p))
            yield from wait(lambda s=ra, p=ra_ph: afull[s].done(p))
            issue_group(w, i, rw, 0, ra)
            yield
            if raw_issuer and i + SR < nk:
                yield from wait(lambda s=rp, p=rp_ph: rempty[s].done(p ^ 1))
                issue_raw(rp, i + SR, None)
                rp += 1
                if rp == SR:
                    rp, rp_ph = 0, rp_ph ^ 1
            yield from wait_group(w, 1)
            if i > 0:
                aempty[a_prev].arrive()
                wempty[w_prev][1].arrive()
            if bug == "early_lo":
                wempty[rw][0].arrive()
            if a_issuer and i > 0:
                yield from a_ahead(-1, min(nk, i + SA))
            if bug != "no_hi_wait":
                yield from wait(lambda s=rw, p=rw_ph: wfull[s][1].done(p))
            issue_group(w, i, rw, 1, ra)
            yield
            yield from wait_group(w, 1)
            if bug != "early_lo":
                wempty[rw][0].arrive()
            a_prev, w_prev = ra, rw
            ra += 1
            if ra == SA:
                ra, ra_ph = 0, ra_ph ^ 1
            rw += 1
            if rw == SW:
                rw, rw_ph = 0, rw_ph ^ 1
            yield
        yield from wait_group(w, 0)

    agents = [transform(x) for x in range(NX)] + [consumer(w) for w in range(NC)]
    live = list(agents)
    stall = 0
    while live:
        progressed = False
        # asynchronous completions: TMA landings, and the oldest group of a random warp
        if events and rng.random() < 0.3:
            events.pop(rng.randrange(len(events)))()
            progressed = True
        ws = [w for w in range(NC) if inflight[w]]
        if ws and rng.random() < 0.3:
            inflight[rng.choice(ws)].pop(0)
            progressed = True
        a = rng.choice(live)
        try:
            if next(a) != "blocked":
                progressed = True
        except StopIteration:
            live.remove(a)
            progressed = True
        if progressed:
            stall = 0
        else:
            stall += 1
            if stall > 5000 and not events and not any(inflight):
                raise Fail("deadlock")
    return True


def main():
    walks = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    bug = sys.argv[2] if len(sys.argv) > 2 else None
    fails = 0
    for k in range(walks):
        rng = random.Random(1000 + k)
        nk = rng.randint(1, 13)
        bulk = rng.random() < 0.5
        try:
            run(nk, bulk, k, bug)
        except Fail as e:
            fails += 1
            if fails <= 3:
                print("walk %d (nk %d, %s scales): %s" % (k, nk, "bulk" if bulk else "linear", e))
    print("%d walks, %d failures%s" % (walks, fails, " (bug %s)" % bug if bug else ""))


if __name__ == "__main__":
    main()
