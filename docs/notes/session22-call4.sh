#!/usr/bin/env bash
# Session 22 call 4 (run 110): the GEMV / v7 rule for fragment weights at M = 9..16
# (frag_v7_over_gemv in src/api/gemm_api.c: v7 where 4096 < N <= 16384 and K <= 4096, fitted on
# run 109's grid) checked on held-out (N, K) it was not fitted on; the decode rows it changes
# against cuBLAS; the whole ctest of main with the rule on.
# Run from the repo root of main: C_MAIN=<hash> BUDGET=330 bash docs/notes/session22-call4.sh
# PREDICTIONS (written before the run):
# (1) held-out, rule off (AUTO = the GEMV) against v7, M = 12: B/A (v7 / GEMV) < 1 on at least 15
#     of the 18 in-domain shapes (N 5120 / 6144 / 8192 / 11008 / 12288 / 16384 x K 2048 / 3072 /
#     4096) and above 1.05 on none; the two out-of-domain controls (12x11008x5120, 12x3584x4096)
#     > 1. If the in-domain count is below 15 or any reads > 1.05, the rule is turned off.
# (2) 12x14336x4096 / 16x14336x4096 against cublaslt-bf16-tuned with the rule on: ~1.5x (run 104:
#     1.214x at 16 rows on the GEMV; v7 at 64 rows 1.497x).
# (3) ctest: every test passes (run 106: 37 of 37).
RUN=r110 . docs/notes/device-lib.sh
bld build-main 16 all
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
T=build-main/tetra
SH=""
for n in 5120 6144 8192 11008 12288 16384; do for k in 2048 3072 4096; do SH="$SH,12x${n}x$k"; done; done
SH="${SH#,},12x11008x5120,12x3584x4096"
step heldout 60 env TETRA_GEMV_FRAG_V7_RULE=0 $T bench --a tetra-gemm-frag --b tetra-gemm-frag-wgmma-t --shape $SH \
  --blocks 3 --no-replicate --graph-below-us 400 --out $R/results/gemv-v7-rule-heldout.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
step decode 40 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 12x14336x4096,16x14336x4096 \
  --ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400 --blocks 4 \
  --out $R/results/decode-rule.json
if [ -f docs/notes/wgmma-mix.cu ] && grep -q v_nohmul docs/notes/wgmma-mix.cu; then
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o /tmp/wgmix docs/notes/wgmma-mix.cu > $R/logs/build-wgmix.log 2>&1
  step wgmix 20 /tmp/wgmix
  cp $R/logs/wgmix.log $R/results/wgmma-mix-variants.csv
fi
l=$(( $(left) - 5 ))
( cd build-main && timeout $l ctest -j4 --output-on-failure > $R/logs/ctest-main.log 2>&1; echo "rc=$?" >> $R/logs/ctest-main.log )
echo "ctest at $(el) s: $(grep -E 'tests passed|rc=' $R/logs/ctest-main.log | tr '\n' ' ')"
grep -E "Failed|\*\*\*|Not Run" $R/logs/ctest-main.log | head
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
