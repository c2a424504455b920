# session 26, call 6 (run 130): the gpu_gemm tests on main's final rule (cluster-K choice, margin
# 0.10; run 128 ran them at 0.05: 13 of 13 passed). The margin changes which configurations AUTO
# picks, not kernels. Prediction: all pass.
RUN=r130 BUDGET=215 . docs/notes/device-lib.sh
bld build-main 16 all
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
l=$(( $(left) - 5 ))
( cd build-main && timeout $l ctest -j4 --output-on-failure -R "gpu_gemm|test_gemm_rule" > $R/logs/ctest-gemm.log 2>&1; echo "rc=$?" >> $R/logs/ctest-gemm.log )
echo "ctest at $(el) s: $(grep -E 'tests passed|rc=' $R/logs/ctest-gemm.log | tr '\n' ' ')"
grep -E "Failed|\*\*\*|Not Run|Passed" $R/logs/ctest-gemm.log | head -20
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
