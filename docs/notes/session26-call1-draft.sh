# DRAFT for session 26 (written at the end of session 25, before any run): the per-tile rule
# (TETRA_GEMM_T_TILE_FIT=1; gemm_sm90.cu fit_cost_t, mirror docs/notes/dispatch-fit-draw.py) A/B
# against main's rules, then gpu_gemm on main (session25-call6.sh's step).
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
RUN=r125 BUDGET=420 . docs/notes/device-lib.sh
bld build-main 10 "tetra_cli tetra_shared gpu_gemm"
bld build-fit 6 "tetra_shared" -DTETRA_GEMM_T_TILE_FIT=1
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
S=64x6144x5120,17x28672x16384,64x3072x2048,64x11008x4096,32x28672x16384,64x1024x4096,128x11008x5120,96x768x16384
S=$S,96x1536x4096,128x6144x5120,96x768x8192,128x6144x8192,256x768x2048,1024x5120x3072,512x2048x4096,256x4096x4096
S=$S,512x1024x8192,2048x3072x2048,256x1024x16384,2048x2560x2048
step ab-fit 150 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-b build-fit/libtetra.so \
  --shape $S,512x2048x6144 --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/tile-fit-ab.json
H gpu-gemm timeout 200 build-main/tests/gpu_gemm
wait; echo "gpu_gemm at $(el) s: $(grep -E 'all checks passed|CHECK failed|FAIL|rc=' $R/logs/gpu-gemm.log | head -3 | tr '\n' ' ')"
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
