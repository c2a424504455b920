# session 26, call 3 (run 127): the same 45 training shapes as run 126, swept with cluster-K on
# pinned split counts too (TETRA_GEMM_T_CK=2: v7.7, the splits reduced in the cluster, wherever
# clusters of S are resident), and again in the default mode 1 (cluster-K only on AUTO's choice,
# where t_ck_takes finds the clusters fit in the waves); tune now records per configuration whether
# its launches were cluster-K, and the resident clusters per tile and S.
# Why: run 125's A/B timed TILE_FIT's AUTO at 7.45 us on 64x3072x2048 (BT 64, 4 splits) where run
# 126's pinned wgmma_t/64/4 took 10.05: a pinned split count never takes cluster-K in mode 1, so
# run 126's sweep did not time what AUTO runs, and neither estimate prices cluster-K.
# Predictions, written before the run:
#  - mode 2: at BT 64 / 128 with s >= 2 where cluster-K launched, the time is below run 126's
#    (non-cluster) time of the same configuration at >= 80% of the (shape, configuration) pairs;
#  - mode 2's best is >= 5% faster than run 126's best at >= 10 of the 45 shapes (those at
#    M <= 128 with few CTAs);
#  - mode 1 again: the pinned configurations' times within 3% of run 126's at >= 90% of pairs (the
#    sweep's run-to-run noise), AUTO cluster-K at 64x3072x2048? no (main: s5 non-cluster, 9.8 us).
RUN=r127 BUDGET=420 . docs/notes/device-lib.sh
bld build-main 16 "tetra_cli"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
S=64x6144x5120,17x28672x16384,64x3072x2048,64x11008x4096,32x28672x16384,64x1024x4096,128x11008x5120,96x768x16384
S=$S,96x1536x4096,128x6144x5120,96x768x8192,128x6144x8192,256x768x2048,1024x5120x3072,512x2048x4096,256x4096x4096
S=$S,512x1024x8192,2048x3072x2048,256x1024x16384,2048x2560x2048,512x2048x6144
S=$S,64x6144x6144,17x2048x6144,32x4096x3072,17x2560x4096,96x6144x3072,128x8192x14336,96x28672x6144,48x1536x5120
S=$S,32x5120x6144,128x5120x8192,48x1536x4096,64x2048x16384,64x14336x8192,64x5120x3072,32x28672x6144,48x768x14336
S=$S,192x3072x4096,256x2560x8192,192x5120x5120,192x14336x5120,192x2048x6144,192x1536x4096,192x6144x2048,192x4096x6144
step tune-ck2 170 env TETRA_GEMM_T_CK=2 build-main/tetra tune --shape $S --holdout-shape none --paired-rounds 0 \
  --out $R/results/dispatch-table-ck2.txt --json $R/results/tune-ck2.json
grep -E "^  tune" $R/logs/tune-ck2.log | cut -c1-200 | tail -46
l=$(( $(left) - 10 ))
step tune-ck1 $l build-main/tetra tune --shape $S --holdout-shape none --paired-rounds 0 \
  --out $R/results/dispatch-table-ck1.txt --json $R/results/tune-ck1.json
grep -E "^  tune" $R/logs/tune-ck1.log | cut -c1-200 | tail -46
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
