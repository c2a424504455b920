# NOT RUN in session 25 (the device budget ran out before a start); the first call of session 26.
# session 25, call 6 (run 125): main's final state of the session (split traffic 1, BT 64 switch
# taken out): gpu_gemm (every AUTO and pinned case against the reference; run 124's -R gpu_gemm
# pass ran out of time on it, the other 11 passed), and the one held-out shape whose choice differs
# between run 124's build and main (100x768x6144: BT 128 with 16 splits, run 121's choice), paired.
# Predictions: gpu_gemm passes; 100x768x6144 AUTO within 1% of the best (run 121: x1.002).
RUN=r125 BUDGET=260 . docs/notes/device-lib.sh
bld build-main 16 "tetra_cli tetra_shared gpu_gemm"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
H gpu-gemm timeout 190 build-main/tests/gpu_gemm
wait; echo "gpu_gemm at $(el) s: $(grep -E 'all checks passed|CHECK failed|FAIL|rc=' $R/logs/gpu-gemm.log | head -3 | tr '\n' ' ')"; snap
TB=docs/results/h200-2026-12-02/run109-s22-switch-grid-tune-table/results/dispatch-table.txt
step score 40 build-main/tetra tune --table $TB --holdout-shape 100x768x6144 --paired-rounds 4 --json $R/results/tune-100x768x6144.json
grep -E "100x|held-out score" $R/logs/score.log | cut -c1-200
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
