# session 23, call 1 (run 111): the wgmma-mix SPLIT probe; tune over the `tune` set without a
# held-out pass, so that every configuration's timing on the 45 training shapes is written (tune.json)
# for the dispatcher re-fit, and the table for the scored call that follows.
#
# Predictions (written before the run):
# - SPLIT (gemm-sm90.md, last subsection, has the session's and the helper's predictions): per-SM
#   serialization expected (over_sum 0.83-0.95 at (2, 2), ~400-450 cycles per K-tile), per-warp
#   (over_max <= 1.15, ~300) the less likely outcome. 80 CSV rows.
# - tune: 45 shapes in 420-480 s (run 109: ~450 s); the entries equal run 109's table on >= 40 of
#   45 (the ones that differ: where two configurations are within ~2% in run 109's log).
#   tune.json holds all 35 configurations' timings per shape.
RUN=r111 . docs/notes/device-lib.sh
bld build-main 16 "tetra_cli"
( nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o $R/wgmma-mix docs/notes/wgmma-mix.cu > $R/logs/build-wgmix.log 2>&1; echo "rc=$?" >> $R/logs/build-wgmix.log ) &
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
step wgmix 40 $R/wgmma-mix
mv $R/logs/wgmix.log $R/results/wgmma-mix-split.csv
grep -E '^form|,SPLIT,' $R/results/wgmma-mix-split.csv | cut -c1-200
l=$(( $(left) - 6 ))
step tune $l build-main/tetra tune --set tune --holdout-shape none --paired-rounds 0 \
  --out $R/results/dispatch-table.txt --json $R/results/tune.json
grep -E "wrote|score|verdict" $R/logs/tune.log | cut -c1-220
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
