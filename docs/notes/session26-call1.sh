# session 26, call 1 (run 125): the per-tile rule (TETRA_GEMM_T_TILE_FIT=1; gemm_sm90.cu's
# k_fit_est, mirror docs/notes/dispatch-fit-draw.py) A/B against main's rules, then the whole ctest
# on main (gpu_gemm has not completed on session 25's final tile rules; the GEMV's occupancy is now
# cached per device: host code on its launch path not run on a device since), then memcheck on
# gpu_gemv (quick) if time is left. Written from session26-call1-draft.sh before the run.
#  1. A/B (A = main, B = build-fit), tetra-gemm, standard weights, paired, on 20 grid shapes drawn
#     (seed 26: 6 at M <= 64, 6 at 65-128, 8 above; none held out) from the 291 of 1638 whose
#     choice differs, plus the control 512x2048x6144 (same choice both ways: BT 256 s4).
#     Predictions (the estimate's own B/A, +-0.10): 64x6144x5120 0.96, 17x28672x16384 0.98,
#     64x3072x2048 1.00, 64x11008x4096 0.91, 32x28672x16384 1.00, 64x1024x4096 1.00,
#     128x11008x5120 0.94, 96x768x16384 0.99, 96x1536x4096 0.95, 128x6144x5120 0.93, 96x768x8192
#     0.93, 128x6144x8192 0.99, 256x768x2048 0.89, 1024x5120x3072 1.00, 512x2048x4096 0.94,
#     256x4096x4096 0.94, 512x1024x8192 0.93, 2048x3072x2048 1.00, 256x1024x16384 0.93,
#     2048x2560x2048 1.00; control 0.98-1.02. Caution from run 124: M <= 64 split counts moved by a
#     lower c(64) lost up to 1.24x; the estimate's F(64) may or may not hold them.
#     Adopt only if no row reads above 1.02 and the geomean is below 0.97; then score the 34
#     held-out shapes with build-fit (session25-call5.sh's score step) in the next call, and
#     regenerate tests/test_gemv_switch.c's table (v7's split counts at 9-16 rows change with it).
#  2. ctest (all 38 tests with a GPU) on build-main: all pass.
#  3. memcheck (TETRA_TEST_QUICK) on gpu_gemv: 0 errors.
RUN=r125 BUDGET=570 . docs/notes/device-lib.sh
bld build-main 11 all
bld build-fit 5 "tetra_shared" -DTETRA_GEMM_T_TILE_FIT=1
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
S=64x6144x5120,17x28672x16384,64x3072x2048,64x11008x4096,32x28672x16384,64x1024x4096,128x11008x5120,96x768x16384
S=$S,96x1536x4096,128x6144x5120,96x768x8192,128x6144x8192,256x768x2048,1024x5120x3072,512x2048x4096,256x4096x4096
S=$S,512x1024x8192,2048x3072x2048,256x1024x16384,2048x2560x2048
step ab-fit 150 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-b build-fit/libtetra.so \
  --shape $S,512x2048x6144 --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/tile-fit-ab.json
l=$(( $(left) - 60 )); [ $l -gt 260 ] && l=260
( cd build-main && timeout $l ctest -j4 --output-on-failure > $R/logs/ctest-main.log 2>&1; echo "rc=$?" >> $R/logs/ctest-main.log )
echo "ctest at $(el) s: $(grep -E 'tests passed|rc=' $R/logs/ctest-main.log | tr '\n' ' ')"; snap
grep -E "Failed|\*\*\*|Not Run" $R/logs/ctest-main.log | head
l=$(( $(left) - 5 )); [ $l -gt 90 ] && l=90
[ $l -ge 30 ] && step san-gemv $l env TETRA_TEST_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 99 build-main/tests/gpu_gemv
grep -E 'ERROR SUMMARY|all checks passed|CHECK failed|FAIL' $R/logs/san-gemv.log | head -4
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
