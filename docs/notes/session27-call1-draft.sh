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
RUN=r131 BUDGET=330 . docs/notes/device-lib.sh
bld build-main 16 "tetra_cli tetra_shared"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
cal="--ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400"
step glm5 150 build-main/tetra bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --set glm5-tp8 $cal --blocks 4 \
  --out $R/results/glm5-frag.json
step small 80 build-main/tetra bench --a tetra-gemm-frag --b cublaslt-bf16-tuned,cublaslt-fp8 \
  --shape 128x7168x16384,128x4096x7168,128x7168x2048,64x14336x4096,64x4096x14336,64x28672x8192 $cal --blocks 4 \
  --out $R/results/small-frag.json
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
