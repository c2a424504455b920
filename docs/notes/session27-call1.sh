# DRAFT for session 27 (written at the end of session 26, before any run): the small-M
# targets re-measured against cuBLAS on main's final defaults (session 26's cluster-K choice in
# the tile rule changes M <= 256 shapes with few tiles; only its paired B/A was measured).
# A = tetra-gemm-frag (fragment weights, AUTO), B = cublaslt-bf16-tuned (and FP8 for gpumode),
# run 76's ceilings and calibration, graph timing below 400 us. Ratio = cuBLAS's time / tetra's.
# Predictions (run 104 / 114's ratios divided by run 128 / 129's B/A where the choice changed):
#  glm5-tp8: 1x768x6144 ~1.72, 1x2048x6144 ~1.64, 4x768x6144 ~1.52, 4x2048x6144 ~1.46 (GEMV,
#    unchanged); 64x768x6144 1.00-1.05 (unchanged, 0.998); 64x2048x6144 1.20-1.28 (1.127-1.148 /
#    0.919); 256x768x6144 up ~1.2x from its last figure (0.839 B/A); 256 / 512 / 1024 x 2048x6144
#    as before unless the rule changed them.
#  gpumode (choose_ck): 128x7168x16384 unchanged (128/2, already cluster-K by v7.7's upgrade;
#    ~1.03 BF16), 128x4096x7168 unchanged (128/4, not cluster-K; ~0.96), 128x7168x2048 CHANGED
#    (BT 64 unsplit -> cluster-K 128/2, the estimates' B/A 0.90: from 0.90 to ~1.0 BF16 if it
#    holds); M = 64 issue shapes unchanged (1.48-1.54).
# Part 2, the A/B (from session27-call3-draft.sh, its header as written at the end of session 26):
# the A/B of
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
# Session 27 call 1 (run 131): both drafts in one call (one machine start).
RUN=r131 BUDGET=520 . docs/notes/device-lib.sh
bld build-main 11 "tetra_cli tetra_shared"
bld build-b 5 "tetra_shared" -DTETRA_GEMM_T_SPLIT_FIT_BELOW=1
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
cal="--ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400"
step glm5 150 build-main/tetra bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --set glm5-tp8 $cal --blocks 4 \
  --out $R/results/glm5-frag.json
step small 80 build-main/tetra bench --a tetra-gemm-frag --b cublaslt-bf16-tuned,cublaslt-fp8 \
  --shape 128x7168x16384,128x4096x7168,128x7168x2048,64x14336x4096,64x4096x14336,64x28672x8192 $cal --blocks 4 \
  --out $R/results/small-frag.json
S=48x11008x3072,96x11008x4096,96x11008x5120,192x6144x6144,192x6144x8192,192x11008x5120,256x6144x8192,256x11008x5120
S=$S,256x11008x6144,512x3072x8192,512x5120x6144,768x2048x7168,768x2048x8192,1024x2560x6144,2048x768x7168,2048x768x8192
step ab-below 100 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-b build-b/libtetra.so \
  --shape $S,64x14336x8192 --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/split-fit-below-ab.json
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
