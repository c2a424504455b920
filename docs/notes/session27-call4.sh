# Session 27, call 4 (run 134; written after run 133, before this run). Main now: SPLIT_FIT_BELOW=2,
# CK_KEEP64 for FRAGMENT weights only (run 133: fragment rows 0.853-0.951x; standard rows 1.031 /
# 1.003 / 0.956x, one above the rule's 1.02, so standard weights keep session 26's choice), and
# test_gemv_switch's count fixed (run 133's ctest: 21 v7 shapes, the test said 20).
# 1. Held-out: of the 34 held-out shapes only 832x1536x5120 changes its choice against run 129's
#    rules (BT 128 / 3 -> BT 256 / 5; SPLIT_FIT_BELOW=2 at BT 128 gives none, then cost_t prefers
#    BT 256 / 5). Its held-out line re-measured (104-configuration sweep, 2 paired rounds);
#    prediction: still a 5% miss (run 129's sweep: x1.161 against the best, x1.018 against the
#    fixed configuration wgmma_t/128/0), so 30/34 within 5% as in run 129, 31-32/34 within 2%.
# 2. The GPU tests run 133's ctest did not reach (it stopped in gpu_gemm_w4pdl), on this build.
RUN=r134 BUDGET=265 . docs/notes/device-lib.sh
bld build-main 16 "all"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
TB=docs/results/h200-2026-12-02/run109-s22-switch-grid-tune-table/results/dispatch-table.txt
step score 45 build-main/tetra tune --table $TB --holdout-shape 832x1536x5120 --samples 2 --paired-rounds 2 \
  --json $R/results/tune-832.json
grep -E "held-out score|verdict|832x1536" $R/logs/score.log | cut -c1-240
l=$(( $(left) - 8 ))
step ctest $l ctest --test-dir build-main --output-on-failure -j1 \
  -E '^(gpu_attention|gpu_bench_aa|gpu_format|gpu_fragment|gpu_gemm|gpu_gemm_fragment|gpu_gemm_pdl|gpu_gemm_reference)$'
grep -E "tests passed|Failed|\*\*\*|Passed" $R/logs/ctest.log | cut -c1-100 | tail -30
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
