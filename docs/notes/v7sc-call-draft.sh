#!/usr/bin/env bash
# Draft device call for v7's scale pairs (helper v7sc, session 23; docs/notes/v7-scale-pairs.md):
# build-main (this branch, TETRA_GEMM_V7_SCALE_PAIRS=0: main's SASS, checked offline) and build-sc (=1);
# correctness before timing (hash lines of both builds diffed, sanitizers on build-sc), then the A/B
# on fragment weights (B/A = build-sc's time / build-main's). ~120 s of GPU, ~300 s with the builds.
# Run from the branch's repo root: C_MAIN=<hash> BUDGET=420 bash docs/notes/v7sc-call-draft.sh
# PREDICTIONS (written before any run; docs/notes/v7-scale-pairs.md, "Predictions"):
#   hash lines: gpu_gemm (wgmma_t), gpu_gemm_fragment, gpu_gemm (T_CK=2): all equal, none only in one.
#   sanitizers on build-sc: memcheck / synccheck 0 errors, racecheck 0 hazards.
#   B/A at M = 64 (64x14336x4096, 64x4096x14336, 64x28672x8192): 0.97 [0.93, 1.02];
#   128x4096x7168 (BT 128): 0.99 [0.96, 1.02]; 64x768x6144 (cluster-K): 0.99 [0.96, 1.02].
RUN=v7sc BUDGET=${BUDGET:-420} . docs/notes/device-lib.sh
bld build-main 8 "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment gpu_gemm_pdl" -DTETRA_GEMM_V7_SCALE_PAIRS=0
bld build-sc 8 "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment gpu_gemm_pdl" -DTETRA_GEMM_V7_SCALE_PAIRS=1
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
# bits: every hash line of both builds (v7 ordinary, fragment layout, cluster-K everywhere)
for b in main sc; do
  H $b-hash TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 build-$b/tests/gpu_gemm
  H $b-hash-ck TETRA_GEMM_T_CK=2 TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 build-$b/tests/gpu_gemm
  H $b-frag TETRA_GEMM_FRAGMENT_TEST_HASH=1 timeout 150 build-$b/tests/gpu_gemm_fragment
  H $b-pdl TETRA_GEMM_V7_PDL_EXPECT=1 TETRA_GEMV_PDL_ALL_EXPECT=1 timeout 150 build-$b/tests/gpu_gemm_pdl
done
wait; echo "hash runs done at $(el) s"; snap
for k in hash hash-ck frag; do
  grep " hash " $R/logs/main-$k.log | sort > $R/logs/h-main-$k.txt; grep " hash " $R/logs/sc-$k.log | sort > $R/logs/h-sc-$k.txt
  echo "hash $k: main $(wc -l < $R/logs/h-main-$k.txt), sc $(wc -l < $R/logs/h-sc-$k.txt), main only $(comm -23 $R/logs/h-main-$k.txt $R/logs/h-sc-$k.txt | wc -l), sc only $(comm -13 $R/logs/h-main-$k.txt $R/logs/h-sc-$k.txt | wc -l) (expect 0 0)"
done
# sanitizers on build-sc (quick cases), in parallel
for t in memcheck racecheck synccheck; do
  H san-frag-$t TETRA_TEST_QUICK=1 timeout 200 compute-sanitizer --tool $t --error-exitcode 99 build-sc/tests/gpu_gemm_fragment
  H san-pdl-$t TETRA_TEST_QUICK=1 TETRA_GEMM_V7_PDL_EXPECT=1 TETRA_GEMV_PDL_ALL_EXPECT=1 timeout 200 compute-sanitizer --tool $t --error-exitcode 99 build-sc/tests/gpu_gemm_pdl
done
H san-gemm-racecheck TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 compute-sanitizer --tool racecheck --error-exitcode 99 build-sc/tests/gpu_gemm
wait
for f in $R/logs/san-*.log $R/logs/*-pdl.log $R/logs/*-frag.log $R/logs/*-hash*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|FAIL|rc=' $f | head -4 | tr '\n' ' ')"; done
snap
export TETRA_COMMIT=${C_MAIN:-unknown}
# the A/B: A = build-main, B = build-sc's library in the same process
step ab-frag 110 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-sc/libtetra.so \
  --shape 64x14336x4096,64x4096x14336,64x28672x8192,128x4096x7168,128x14336x4096,64x768x6144 --blocks 5 \
  --no-replicate --graph-below-us 400 --out $R/results/v7sc-ab-frag.json
# standard weights, the three M = 64 shapes (the standard layout's dequant_frag path)
step ab-std 60 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-b build-sc/libtetra.so \
  --shape 64x14336x4096,64x4096x14336,64x28672x8192 --blocks 5 --no-replicate --graph-below-us 400 \
  --out $R/results/v7sc-ab-std.json
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
