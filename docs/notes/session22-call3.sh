#!/usr/bin/env bash
# Session 22 call 3 (run 109): (1) the GEMV / v7 switch on fragment weights over a grid of (N, K)
# at M = 12 and 16 (run 107 found v7 faster at M = 9..16 at 14336x4096 and 768x6144 only: the data
# for a rule); (2) `tetra tune` on the `tune` set (45 shapes), scored on held-out shapes that
# include seed000 (data/dispatch/README.md's condition for shipping an H200 table): glm5-tp8 and
# seed000, with the paired pass (run 61's eight M = 256..1024 shapes left out for time).
# Run from the repo root of main: C_MAIN=<hash> BUDGET=560 bash docs/notes/session22-call3.sh
# PREDICTIONS (written before the run):
# (1) B/A (v7 time / GEMV time, one process) is nearly the same at M = 12 and 16 (the GEMV's
#     second token half runs from M = 9): within 0.03 of each other on every (N, K). v7 wins
#     (B/A < 1) at N >= 14336 with K <= 4096 and at N <= 1024 with K >= 6144; the GEMV elsewhere.
# (2) tune: the table's held-out score no worse than the rules' (AUTO before it) on within-5% and
#     within-2%-of-fixed counts (paired); the one rules miss of run 108 (1024x2048x6144: BT 256
#     where BT 128 is ~10% faster) fixed by the table if a tuning shape near it (N 3072 / 6144, M
#     1024) has BT 128 as its entry; seed000 rows within 2% between table and rules (BT 256 at
#     M >= 1024 on both). If the verdict is "ship it", the table is committed as data/dispatch/h200.txt.
RUN=r109 . docs/notes/device-lib.sh
bld build-main 16 "tetra_cli"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
T=build-main/tetra
SX=""
for m in 12 16; do for n in 1024 2048 4096 7168 14336 18432 28672; do for k in 2048 4096 6144 8192 14336; do
  SX="$SX,${m}x${n}x$k"; done; done; done
step switch 100 $T bench --a tetra-gemm-frag --b tetra-gemm-frag-wgmma-t --shape ${SX#,} --blocks 3 --no-replicate \
  --graph-below-us 400 --out $R/results/gemv-v7-switch-grid.json
l=$(( $(left) - 8 ))
step tune $l $T tune --set tune --holdout-set glm5-tp8,seed000 --paired-rounds 4 \
  --out $R/results/dispatch-table.txt --json $R/results/tune-holdout.json
grep -E "^held-out|score|verdict|wrote" $R/logs/tune.log | cut -c1-220
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
