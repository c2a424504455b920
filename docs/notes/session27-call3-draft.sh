# DRAFT for session 27 (written at the end of session 26, before any run): the A/B of
# TETRA_GEMM_T_SPLIT_FIT_BELOW (split counts below one wave priced by the least-squares estimate
# k_fit_est instead of the rules' cost_t; gemm_sm90.cu split_t; mirror dispatch-ck.py
# rules_choice(below_fit=True); CPU test tables k_rules_below / k_rules_ck_below). Offline on runs
# 126-127's 45 training shapes: 42 of 45 within 5% of the best (main: 40). It changes the effective
# choice (tile, splits, cluster-K) at 27 of 1638 grid shapes (none held out, none in sessions
# 24-27's scripts); 16 drawn with seed 272.
# A = main, B = the switch at 1; tetra-gemm, standard weights, paired. Predictions (the estimates'
# B/A, +-0.10): 48x11008x3072 0.87, 96x11008x4096 0.91, 96x11008x5120 0.99, 192x6144x6144 0.94,
# 192x6144x8192 0.99, 192x11008x5120 0.97, 256x6144x8192 0.97, 256x11008x5120 0.91,
# 256x11008x6144 0.97, 512x3072x8192 0.97, 512x5120x6144 0.99, 768x2048x7168 0.92, 768x2048x8192
# 0.97, 1024x2560x6144 0.99, 2048x768x7168 0.92, 2048x768x8192 0.97; control 64x14336x8192
# 0.98-1.02. The training data said more than the estimate where 3 splits at 86 CTAs were replaced
# (64x11008x4096 and 128x11008x5120: 0.83-0.86x): the x11008 rows may read lower.
# Adopt (default 1) only if no row reads above 1.02 and the geomean is below 0.97; then score
# the 34 held-out shapes (session26-call5.sh's score step) and regenerate nothing else (the
# GEMV / v7 switch's test skips in a switch build: its v7 split below one wave changes too, so
# adopting it also needs test_gemv_switch's table regenerated from gemv-switch-s25.py with the
# new split).
RUN=r133 BUDGET=200 . docs/notes/device-lib.sh
bld build-main 11 "tetra_cli tetra_shared"
bld build-b 5 "tetra_shared" -DTETRA_GEMM_T_SPLIT_FIT_BELOW=1
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
S=48x11008x3072,96x11008x4096,96x11008x5120,192x6144x6144,192x6144x8192,192x11008x5120,256x6144x8192,256x11008x5120
S=$S,256x11008x6144,512x3072x8192,512x5120x6144,768x2048x7168,768x2048x8192,1024x2560x6144,2048x768x7168,2048x768x8192
step ab-below 100 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-b build-b/libtetra.so \
  --shape $S,64x14336x8192 --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/split-fit-below-ab.json
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
