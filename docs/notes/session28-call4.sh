# Session 28, call 4 (run 138; written after run 137, before this run; ~110 s of device time left).
# 1. Sweep data (no table kept: --out under $R) at the ggml comparison's decode shapes on
#    fragment-ordered weights, 1 / 8 x 4096 x 14336: runs 135-136 found GEMV split counts 0.82-0.96x
#    AUTO's time at 15 of the `tune` set's M <= 12 shapes; does the ggml shape have such a gap?
#    Prediction: AUTO within 5% of the best GEMV pin at M = 1 (14.08 us in run 104; the copy-only
#    probe of the same bytes 10.27 us), a 5-15% gap at M = 8. Data for a GEMV split rule, not a
#    table entry (benchmarked shapes never go into the shipped table).
# 2. synccheck on the GPU tests (san-sweep.py, quick, six at a time) in the time left.
RUN=r138 BUDGET=110 . docs/notes/device-lib.sh
bld build-main 16 "all"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
step tune-ggml 25 build-main/tetra tune --weights fragment --shape 1x4096x14336,8x4096x14336 --holdout-shape none \
  --out $R/results/ggml-nearest-unshipped.txt --json $R/results/tune-ggml-frag.json
grep -E "^  tune" $R/logs/tune-ggml.log | cut -c1-200
l=$(( $(left) - 5 ))
python3 docs/notes/san-sweep.py build-main $R/logs $l --tool synccheck --jobs 6 > $R/logs/san-sweep.log 2>&1
cat $R/logs/san-sweep.log | tail -25
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
