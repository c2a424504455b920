# session 26, call 4 (run 128): cluster-K in AUTO's choice (TETRA_GEMM_T_CK_RULE=1, gemm_sm90.cu
# with_ck_t; mirror docs/notes/dispatch-ck.py choose_ck; fitted on run 127's 1350 cluster-K
# timings), A/B against the same build with the switch at 0 (main before: cluster-K only as
# v7.7's upgrade of the rules' split where the clusters fit in its waves), then the gpu_gemm tests.
#  1. A/B standard weights (tetra-gemm), 17 grid shapes drawn (seed 263; 6 at M <= 64, 5 at 65-128,
#     6 above; none held out, none of runs 126/127's) from the 435 of 1638 whose effective choice
#     (tile, splits, cluster-K) changes, + control 64x14336x8192 (unchanged: BT 64 unsplit).
#     Predictions (the estimates' B/A, +-0.10): 64x2048x2048 0.73, 48x3072x8192 0.94,
#     64x1024x3072 0.78, 48x1536x7168 0.84, 32x2048x4096 0.88, 64x2560x5120 0.80, 128x768x4096
#     0.74, 128x6144x16384 0.90, 128x3072x7168 0.84, 96x768x3072 0.88, 128x1536x6144 0.74,
#     1024x768x7168 0.92, 256x1536x6144 0.82, 512x1024x4096 0.84, 768x1024x5120 0.84,
#     1024x1024x2048 0.70, 768x1024x7168 0.92; control 0.98-1.02.
#     Adopt (default 1) only if no row reads above 1.02 and the geomean is below 0.97.
#  2. A/B fragment weights (tetra-gemm-frag), glm5-tp8 M = 64 and 256 and one M = 64 target shape
#     (held-out / benchmark shapes: this times the rule, it fits nothing): 64x768x6144,
#     64x2048x6144, 256x768x6144, 64x4096x14336. Prediction: none above 1.02; the glm5 M = 64
#     rows 0.75-0.95.
#  3. ctest -R "gpu_gemm|test_gemm_rule" on build-main (switch on): all pass.
RUN=r128 BUDGET=330 . docs/notes/device-lib.sh
bld build-main 11 all
bld build-a 5 "tetra_shared" -DTETRA_GEMM_T_CK_RULE=0
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
S=64x2048x2048,48x3072x8192,64x1024x3072,48x1536x7168,32x2048x4096,64x2560x5120,128x768x4096,128x6144x16384
S=$S,128x3072x7168,96x768x3072,128x1536x6144,1024x768x7168,256x1536x6144,512x1024x4096,768x1024x5120
S=$S,1024x1024x2048,768x1024x7168,64x14336x8192
step ab-ck 100 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-a build-a/libtetra.so \
  --shape $S --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/ck-rule-ab.json
step ab-ck-frag 50 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-a build-a/libtetra.so \
  --shape 64x768x6144,64x2048x6144,256x768x6144,64x4096x14336 --blocks 5 --no-replicate --graph-below-us 400 \
  --out $R/results/ck-rule-ab-frag.json
l=$(( $(left) - 5 )); [ $l -gt 150 ] && l=150
( cd build-main && timeout $l ctest -j4 --output-on-failure -R "gpu_gemm|test_gemm_rule" > $R/logs/ctest-gemm.log 2>&1; echo "rc=$?" >> $R/logs/ctest-gemm.log )
echo "ctest at $(el) s: $(grep -E 'tests passed|rc=' $R/logs/ctest-gemm.log | tr '\n' ' ')"
grep -E "Failed|\*\*\*|Not Run" $R/logs/ctest-gemm.log | head
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
