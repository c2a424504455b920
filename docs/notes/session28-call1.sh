# Session 28, call 1 (run 135; written before the run). Exact dispatch tables (commit 53b95e0):
# `match exact` entries serve only their own shape (activation kind, weight layout, M, N, K), so a
# shipped table cannot lose to the rules off its shapes, where nearest-entry tables did (runs 15,
# 23, 111). `tetra tune --exact` writes a candidate where the sweep's fastest nameable
# configuration (no cluster-K pin) is under 0.97x AUTO's time, then keeps it where a paired pass
# (4 rounds: table, AUTO, best) times the table under 0.98x AUTO (median of per-round ratios).
# 1. gpu_dispatch_table (new): AUTO follows an exact entry on standard and fragment weights, not
#    at M - 1 nor the other layout; a nearest entry serves M - 1. Prediction: passes.
# 2. tune --exact on the 45 `tune` shapes (M 1-2048 x 5 model N x K), standard weights, then
#    fragment-ordered weights; no held-out pass here (call 2 scores the rules on the 34).
#    Predictions: standard: 5-15 candidates, 3-10 kept at 0.85-0.97x AUTO (the sweep put the rules
#    within 5% of the best on 41-44 of 45-46 training shapes in runs 126-127, and the best there is
#    often a cluster-K pin a table cannot name); fragment: 5-15 candidates (its rules were fitted on
#    standard weights but for KEEP64), 3-10 kept. ~130 s a sweep (run 126: 90 s at 74 configurations).
# Adoption (written before the run): data/dispatch/h200.txt = the kept entries of both layouts,
# `match exact`, if any is kept; call 2 then runs ctest, memcheck and the held-out score on it.
RUN=r135 BUDGET=470 . docs/notes/device-lib.sh
bld build-main 16 "all"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
step dtable 30 bash -c "cd build-main && ./tests/gpu_dispatch_table"
tail -5 $R/logs/dtable.log
step tune-std 200 build-main/tetra tune --exact --set tune --holdout-shape none --out $R/results/exact-std.txt \
  --json $R/results/tune-exact-std.json
grep -E "^  exact|kept:|candidates" $R/logs/tune-std.log | cut -c1-200
l=$(( $(left) - 8 ))
step tune-frag $l build-main/tetra tune --exact --weights fragment --set tune --holdout-shape none \
  --out $R/results/exact-frag.txt --json $R/results/tune-exact-frag.json
grep -E "^  exact|kept:|candidates" $R/logs/tune-frag.log | cut -c1-200
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
