# session 26, call 2 (run 126): a training sweep with every wgmma_t split count (tetra tune now
# times 74 configurations: wgmma_t BT 64 / 128 / 256 x splits 0 (the rule), 1 .. 16), to fit the
# split choice where run 125 says the estimates are off (TETRA_GEMM_T_TILE_FIT's lower split
# counts at M 64-128 gained 0.76-0.86x where main picks 3-5 splits over one wave; its extra splits
# on 224-CTA shapes and its BT 64 at N = 768 lost 1.02-1.10x).
# Shapes (training; none held out): run 125's 21 A/B shapes + 24 grid shapes at M <= 256 drawn
# with seed 261 (16 at M <= 128, 8 at 129-256; none held out, none of run 125's).
# Predictions, written before the run:
#  - where main picks s >= 3 with CTAs x s above 132 at M <= 128 (64x6144x5120, 64x3072x2048,
#    64x11008x4096, 128x11008x5120, 128x6144x5120, 128x6144x8192, 64x6144x6144, 128x5120x8192,
#    32x5120x6144, 64x5120x3072), the sweep's best count is lower than main's at >= 7 of 10 and
#    main's (the wgmma_t/BT/0 slot) is >= 5% slower than the best at >= 5 of 10;
#  - self-check: the AUTO slot and wgmma_t/BT/s at main's (BT, s) agree within 3% on >= 40 of 45;
#  - the sweep of 74 configurations takes <= 0.1 s per configuration and shape (<= 330 s here).
RUN=r126 BUDGET=480 . docs/notes/device-lib.sh
bld build-main 16 "tetra_cli"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
S=64x6144x5120,17x28672x16384,64x3072x2048,64x11008x4096,32x28672x16384,64x1024x4096,128x11008x5120,96x768x16384
S=$S,96x1536x4096,128x6144x5120,96x768x8192,128x6144x8192,256x768x2048,1024x5120x3072,512x2048x4096,256x4096x4096
S=$S,512x1024x8192,2048x3072x2048,256x1024x16384,2048x2560x2048,512x2048x6144
S=$S,64x6144x6144,17x2048x6144,32x4096x3072,17x2560x4096,96x6144x3072,128x8192x14336,96x28672x6144,48x1536x5120
S=$S,32x5120x6144,128x5120x8192,48x1536x4096,64x2048x16384,64x14336x8192,64x5120x3072,32x28672x6144,48x768x14336
S=$S,192x3072x4096,256x2560x8192,192x5120x5120,192x14336x5120,192x2048x6144,192x1536x4096,192x6144x2048,192x4096x6144
l=$(( $(left) - 10 ))
step tune $l build-main/tetra tune --shape $S --holdout-shape none --paired-rounds 0 \
  --out $R/results/dispatch-table-splits.txt --json $R/results/tune-splits.json
grep -E "^  tune" $R/logs/tune.log | cut -c1-200 | tail -50
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
