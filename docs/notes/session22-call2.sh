#!/usr/bin/env bash
# Session 22 call 2 (run 108): the dispatcher's held-out score on main's defaults (last scored in
# session 13's run 61 with v10.3), with tune's new paired pass (--paired-rounds 4: table, AUTO, the
# sweep's best and the best fixed configuration timed in rounds ABCD / DCBA, ratios within a round).
# Same tuning shape and held-out set as run 61 (glm5-tp8 and eight M = 256..1024 shapes).
# Run from the repo root of main right after call 1 (reuses its build-main while the machine is
# warm; builds it otherwise): C_MAIN=<hash> BUDGET=560 bash docs/notes/session22-call2.sh
# PREDICTIONS (written before the run):
# - sweep score (as run 61's): 18/18 within 5% of the best; "within 2% of the best fixed" 14-16 of
#   18 (run 61: 14, three of the four misses were AUTO running the fixed configuration itself).
# - paired score: 18/18 within 5%; within 2% of fixed >= the sweep's count, the rows where AUTO and
#   the fixed configuration are one kernel at x0.99-x1.01, the A/A readings (best == fixed) within
#   x0.99-x1.01, the TABLE slot's spread <= x1.03 on rows above 20 us.
# - misses that remain are real rule errors: run 61's 256x2048x6144 (BT 128 split 4 against BT 256
#   split 8, ~x1.03) and 1024x2048x6144 (BT 256 against BT 128, ~x1.04) if v10.3's successors
#   did not move them.
RUN=r108 . docs/notes/device-lib.sh
bld build-main 16 "tetra_cli"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
l=$(( $(left) - 180 )); [ $l -gt 340 ] && l=340
HO=256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192,1024x14336x4096,768x4096x4096
step tune $l build-main/tetra tune --shape 1x3072x3072 --holdout-set glm5-tp8 --holdout-shape $HO --paired-rounds 4 \
  --out $R/results/dispatch-table.txt --json $R/results/tune-holdout.json
grep -E "held-out|score|verdict|A/A" $R/logs/tune.log | cut -c1-200
# the sanitizers for the GPU tests changed since their last sanitizer runs (quick): gpu_gemm_fragment
# with TETRA_GEMM_FRAGMENT_TEST_HASH=1 (memcheck) and gpu_gemm_pdl (memcheck, synccheck, racecheck).
# Prediction: 0 errors / 0 hazards; the fragment test's hash lines as in an unsanitized run.
l=$(( $(left) - 8 )); [ $l -gt 170 ] && l=170
if [ $l -ge 40 ]; then
  bld build-main 16 "gpu_gemm_fragment gpu_gemm_pdl"; wait
  H san-frag-memcheck TETRA_TEST_QUICK=1 TETRA_GEMM_FRAGMENT_TEST_HASH=1 timeout $l compute-sanitizer --tool memcheck --error-exitcode 99 build-main/tests/gpu_gemm_fragment
  for t in memcheck synccheck racecheck; do
    H san-pdl-$t TETRA_TEST_QUICK=1 timeout $l compute-sanitizer --tool $t --error-exitcode 99 build-main/tests/gpu_gemm_pdl
  done
  wait
fi
for f in $R/logs/san-*.log; do [ -f $f ] && echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|FAIL|rc=' $f | head -4 | tr '\n' ' ')"; done
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
