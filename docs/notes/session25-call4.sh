# session 25, call 4 (run 123): the tile rule's split count below one wave priced by cost_t
# (TETRA_GEMM_T_SPLIT_TRAFFIC=1: the tile's c(BT) and the partials' traffic, as above one wave;
# 0 = the traffic-blind count), and training data with the five new pinned splits of `tetra tune`.
#  1. A/B (A = switch 0 = main, B = switch 1), tetra-gemm, standard weights, paired, on 14 training
#     shapes drawn (seed 25) from the 69 of a 1092-shape grid where the switch changes the choice
#     (none held out), plus training shapes 128x11008x4096 (x1.29 off the best in run 116),
#     256x11008x4096, 1024x2304x4096, and a control whose choice does not change (512x2048x6144).
#     Predictions (a least-squares fit of a per-tile estimate to runs 115/116/120's 480 timings,
#     B/A, +-0.10): 16x11008x2048 0.82, 32x3072x14336 0.90, 48x6144x3072 0.90, 128x1536x3072 0.98,
#     128x3072x14336 0.83, 192x11008x2048 0.69, 256x11008x3072 0.77, 384x1024x14336 0.92,
#     512x1536x2048 0.96, 512x5120x4096 0.87, 768x1536x8192 0.83, 768x3072x4096 0.89,
#     1024x2560x2048 0.76, 1024x2560x4096 0.87, 128x11008x4096 0.78 (run 116's sweep: 31.12 / 40.12),
#     256x11008x4096 0.85, 1024x2304x4096 0.89; control 0.98-1.02.
#     Adopt (default 1) if no row reads above 1.02 and the geomean is below 0.95.
#  2. `tetra tune` sweep (40 configurations: + wgmma_t 256/1, 256/3, 128/2, 128/3, 64/2) on the
#     same 14 shapes: data for the next refit, no prediction.
#  3. If present: the wgmma-mix probe's session-25b kinds (docs/notes/wgmma-mix-s25b.md, its own
#     predictions).
RUN=r123 BUDGET=330 . docs/notes/device-lib.sh
bld build-main 10 "tetra_cli tetra_shared"
bld build-st 6 "tetra_shared" -DTETRA_GEMM_T_SPLIT_TRAFFIC=1
if [ -f docs/notes/wgmma-mix-s25b.md ]; then
  ( nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/wgmix docs/notes/wgmma-mix.cu \
      > $R/logs/ptxas.txt 2>&1; echo "rc=$?" >> $R/logs/ptxas.txt ) &
fi
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
if [ -x /tmp/wgmix ]; then
  /tmp/wgmix > $R/results/wgmma-mix-s25b.csv 2> $R/logs/wgmma-mix-s25b.stderr; echo "wgmix rc=$? at $(el) s"
  tail -3 $R/logs/wgmma-mix-s25b.stderr; grep -E '^form|,SPLIT,' $R/results/wgmma-mix-s25b.csv | tail -24; snap
fi
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
S=16x11008x2048,32x3072x14336,48x6144x3072,128x1536x3072,128x3072x14336,192x11008x2048,256x11008x3072,384x1024x14336
S=$S,512x1536x2048,512x5120x4096,768x1536x8192,768x3072x4096,1024x2560x2048,1024x2560x4096
step ab-split 120 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-b build-st/libtetra.so \
  --shape $S,128x11008x4096,256x11008x4096,1024x2304x4096,512x2048x6144 \
  --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/split-traffic-ab.json
l=$(( $(left) - 10 ))
step tune $l build-main/tetra tune --shape $S --holdout-shape none --paired-rounds 0 \
  --out $R/results/dispatch-table-uw.txt --json $R/results/tune-uw.json
grep -E "^  tune" $R/logs/tune.log | cut -c1-200
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
