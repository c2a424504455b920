# Session 27, call 3 (run 133; written after run 132, before this run). Main now has
# TETRA_GEMM_T_SPLIT_FIT_BELOW=2 (adopted by run 132's rule: 22 fresh rows, none above 1.02,
# 20 at 0.81-0.92) and TETRA_GEMM_T_CK_KEEP64=1 (new: where the rules chose BT 64 the cluster-K
# choice stays at BT 64; from run 132's fragment A/B, 128x7168x2048 1.163x and 112x7168x2048 1.120x
# where the choice moved BT 64 unsplit -> cluster-K 128/2; 1.072x on standard weights).
# A = build-a (both switches 0: run 132's main), B = main.
# 1. A/B on fragment weights: the 5 fresh grid shapes where KEEP64 changes the choice (M 80-128,
#    N 6144-8192, K 2048: cluster-K 128/2 -> BT 64 unsplit; 5 of the 13 fresh, picked by hand to span M and N),
#    128x7168x2048 (run 132's shape, now the issue's gpumode row), 12x11008x3072 and 16x11008x3072
#    (the only M 9-16 shapes of the switch's grid where v7's unsplit count flips the fragment GEMV /
#    v7 switch to v7), control 64x14336x8192. Standard weights: 3 of the KEEP64 shapes.
#    Predictions: KEEP64 rows 0.86-0.93 on fragment weights (1/1.163 .. 1/1.120), 0.93-0.98 on
#    standard; 12x11008x3072 ~0.89 (run 110: GEMV 18.09 us, v7 with 3 splits 18.48; unsplit v7 ~0.87x
#    of that by run 132's 3 -> 1 rows), 16x11008x3072 0.85-0.95; control 0.98-1.02.
#    Keep KEEP64 = 1 only if none of its rows reads above 1.02 and their geomean is below 0.97
#    (else 0); the switch's flip stays only if both rows read below 1.0 (else the GEMV / v7
#    estimate is refitted or the flip excluded).
# 2. 128x7168x2048 against cuBLAS BF16 / FP8 on the new main (run 131: 0.775 / 0.543; run 104 0.900).
# 3. Held-out score of main's final rules (session26-call5.sh's 34 shapes, --samples 2, 2 paired
#    rounds). Prediction: 30-31 of 34 within 5% (run 129: 30; offline on run 129's sweep the new
#    rules change only 832x1536x5120, to BT 256 / 5 at x1.16 by that sweep, and 112x7168x2048, to
#    BT 64 unsplit, the sweep's best), 31-32 of 34 within 2% of the fixed configuration.
# 4. The whole ctest on build-main (GPU tests with the new rules), then memcheck on the fastest
#    GPU tests in the time left (docs/notes/san-sweep.py).
RUN=r133 BUDGET=470 . docs/notes/device-lib.sh
bld build-main 10 "all"
bld build-a 6 "tetra_shared" -DTETRA_GEMM_T_SPLIT_FIT_BELOW=0 -DTETRA_GEMM_T_CK_KEEP64=0
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
F=80x8192x2048,100x6144x2048,112x8192x2048,120x7168x2048,128x8192x2048,128x7168x2048,12x11008x3072,16x11008x3072,64x14336x8192
step ab-frag 60 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-a build-a/libtetra.so \
  --shape $F --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/keep64-below2-frag-ab.json
step ab-std 25 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-a build-a/libtetra.so \
  --shape 80x8192x2048,100x6144x2048,120x7168x2048 --blocks 5 --no-replicate --graph-below-us 400 \
  --out $R/results/keep64-std-ab.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
step gpumode 25 build-main/tetra bench --a tetra-gemm-frag --b cublaslt-bf16-tuned,cublaslt-fp8 --shape 128x7168x2048 \
  --ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400 --blocks 4 \
  --out $R/results/gpumode-frag.json
TB=docs/results/h200-2026-12-02/run109-s22-switch-grid-tune-table/results/dispatch-table.txt
HO=256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192,1024x14336x4096,768x4096x4096
HO=$HO,1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336
HO=$HO,100x768x6144,112x7168x2048,384x4096x4096,768x1792x5120,1024x2816x7168,512x2304x10240
HO=$HO,768x2048x6144,960x2048x7168,832x1536x5120,1024x1792x6144,768x2304x8192,1152x2048x4096
step score 150 build-main/tetra tune --table $TB --holdout-set glm5-tp8 --holdout-shape $HO --samples 2 --paired-rounds 2 \
  --json $R/results/tune-final-holdout.json
grep -E "held-out score|verdict" $R/logs/score.log | cut -c1-220
grep -E "AUTO x1\.(0[5-9]|[1-9])" $R/logs/score.log | cut -c1-200
l=$(( $(left) - 60 ))
[ $l -gt 60 ] && step ctest $l ctest --test-dir build-main --output-on-failure -j1
tail -5 $R/logs/ctest.log
l=$(( $(left) - 10 ))
[ $l -gt 20 ] && python3 docs/notes/san-sweep.py build-main $R/logs $l --jobs 6 --skip '^gpu_(bench|gemv|gemm$|gemm_t_ck|gemm_persistent)' \
  > $R/logs/san-sweep.log 2>&1; cat $R/logs/san-sweep.log
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
