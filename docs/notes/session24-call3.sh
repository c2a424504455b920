# session 24, call 3 (run 116; run 115 was call 2, one command line: `tetra tune` on 21 training
# shapes, M 256-1024, 15 of the `tune` set plus 6 new ones). Main after v7.14's ROT part was taken
# out (FOLD kept: gemm_sm90.cu's sm_90a SASS = run 114's build-f, checked offline).
#  1. The tile rule's training data at M = 128 (the BT 64 / 128 choice), which run 115 lacked: the
#     `tune` set's five M = 128 shapes plus 96x6144x2048 and 96x3072x3072 (none held out), so that
#     docs/notes/dispatch-refit.py fits c(64) and c(128) together. Run 115's refit alone moved
#     c(128) to 0.66-0.73, which would also move BT 64 / 128 choices at M 65-128 it never timed.
#  2. The whole ctest on main (FOLD on; last whole run: run 110).
#  3. compute-sanitizer racecheck and synccheck on gpu_gemm_fragment (FOLD changes only register
#     arithmetic; run 114 ran memcheck).
# Predictions (written before the run): the ctest 37 of 37; 0 hazards / 0 errors; the M = 128
# sweep: the rule's BT (64 or 128) within 5% of the better of the two on >= 6 of 7.
RUN=r116 . docs/notes/device-lib.sh
bld build-main 16 all
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
S=128x3072x3072,128x6144x2048,128x11008x4096,128x5120x13824,128x24576x6144,96x6144x2048,96x3072x3072
step tune 90 build-main/tetra tune --shape $S --holdout-shape none --paired-rounds 0 \
  --out $R/results/dispatch-table-m128.txt --json $R/results/tune-m128.json
grep -E "^  tune" $R/logs/tune.log | cut -c1-200
l=$(( $(left) - 70 )); [ $l -gt 240 ] && l=240
( cd build-main && timeout $l ctest -j4 --output-on-failure > $R/logs/ctest-main.log 2>&1; echo "rc=$?" >> $R/logs/ctest-main.log )
echo "ctest at $(el) s: $(grep -E 'tests passed|rc=' $R/logs/ctest-main.log | tr '\n' ' ')"; snap
grep -E "Failed|\*\*\*|Not Run" $R/logs/ctest-main.log | head
l=$(( $(left) - 5 )); [ $l -gt 90 ] && l=90
if [ $l -ge 30 ]; then
  for t in racecheck synccheck; do
    H san-frag-$t TETRA_TEST_QUICK=1 timeout $l compute-sanitizer --tool $t --error-exitcode 99 build-main/tests/gpu_gemm_fragment
  done
  wait
fi
for f in $R/logs/san-*.log; do [ -f $f ] && echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|FAIL|rc=' $f | head -4 | tr '\n' ' ')"; done
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
