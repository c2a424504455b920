# DRAFT for session 27 (written at the end of session 26, before any run): training data around
# run 129's held-out dispatcher misses (100x768x6144 cluster-K 64/8 vs the rule's 128/16;
# 832x1536x5120 BT 128 s3 vs unsplit; 1024x2816x7168 BT 256 s3 vs s1; 768x2304x8192 BT 256 s2 vs
# BT 128), with the 104-configuration sweep (every wgmma_t split count, cluster-K pins, which kernel
# ran). 18 training shapes drawn (seed 270; 5 at M 96-112, 13 at M 640-1024, N 1024-3072, K
# 4096-10240; none held out, none of sessions 25-26's scripts). The held-out shapes' own sweeps
# (run 129) must not be used for fitting.
# Prediction (before the run): at the M 640-1024 shapes where the rules split a BT-256 or BT-128
# tile 2-5 ways at 1-2 waves, the unsplit or smaller-split configuration is faster at >= 5 of 10
# (the estimate underprices the split: e.g. 832x1536x5120's s3); dispatch-ck.py's non-cluster
# estimate (k_fit_est) picks the faster one more often than the rules' cost_t.
RUN=r132 BUDGET=200 . docs/notes/device-lib.sh
bld build-main 16 "tetra_cli"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
S=96x3072x5120,100x2816x4096,96x1792x10240,112x3072x5120,100x2048x7168,640x1024x7168,960x2560x7168,1024x2048x4096
S=$S,704x1792x4096,640x1792x7168,896x2816x5120,960x1792x7168,768x3072x7168,768x2560x4096,1024x2304x8192
S=$S,1024x1792x10240,960x1024x7168,768x2048x10240
l=$(( $(left) - 10 ))
step tune $l build-main/tetra tune --shape $S --holdout-shape none --paired-rounds 0 \
  --out $R/results/dispatch-table-miss.txt --json $R/results/tune-miss.json
grep -E "^  tune" $R/logs/tune.log | cut -c1-200 | tail -20
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
