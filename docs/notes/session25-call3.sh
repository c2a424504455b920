# session 25, call 3 (run 122): helper gswitch's fragment GEMV / v7 switch at 9-16 rows
# (TETRA_GEMV_FRAG_V7_SWITCH; docs/notes/gemv-switch-s25.md: model, fitting / checking halves,
# predictions written before this run), and the whole ctest with the switch on and session 25's
# tile-rule constants.
# A/B predictions (helper's, B/A = switch 1 / switch 0, +-0.04): 12x7168x4096 0.83, 12x8192x4096
# 0.89, 12x16384x2048 0.87, 12x16384x4096 0.86, 12x2048x14336 0.92, 12x4096x8192 0.97,
# 16x7168x4096 0.83, 12x1024x4096 1.03; controls 12x11008x4096, 12x28672x8192 1.00 +- 0.02.
# Refuted if any of the six rows predicted below 0.93 reads above 0.97, or a control leaves 0.98-1.02.
# Tests: ctest all pass on build-sw1 (switch on: AUTO's fragment cases at 9-16 rows that the rule
# sends to v7 are checked against the reference like any other), memcheck 0 errors on
# gpu_gemm_fragment with the switch on.
RUN=r122 BUDGET=470 . docs/notes/device-lib.sh
bld build-sw1 12 all -DTETRA_GEMV_FRAG_V7_SWITCH=1
bld build-sw0 4 "tetra_cli tetra_shared"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
step gswitch-ab 100 env -u TETRA_GEMV_FRAG_V7_SWITCH build-sw0/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag \
  --lib-b build-sw1/libtetra.so \
  --shape 12x7168x4096,12x8192x4096,12x16384x2048,12x16384x4096,12x2048x14336,12x4096x8192,16x7168x4096,12x1024x4096,12x11008x4096,12x28672x8192 \
  --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/gswitch-ab.json
l=$(( $(left) - 100 )); [ $l -gt 250 ] && l=250
( cd build-sw1 && timeout $l ctest -j4 --output-on-failure > $R/logs/ctest-sw1.log 2>&1; echo "rc=$?" >> $R/logs/ctest-sw1.log )
echo "ctest at $(el) s: $(grep -E 'tests passed|rc=' $R/logs/ctest-sw1.log | tr '\n' ' ')"; snap
grep -E "Failed|\*\*\*|Not Run" $R/logs/ctest-sw1.log | head
l=$(( $(left) - 5 )); [ $l -gt 90 ] && l=90
[ $l -ge 30 ] && step san-frag $l env TETRA_TEST_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 99 build-sw1/tests/gpu_gemm_fragment
grep -E 'ERROR SUMMARY|all checks passed|CHECK failed|FAIL' $R/logs/san-frag.log | head -4
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
