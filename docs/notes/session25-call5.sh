# session 25, call 5 (run 124): BT 64 above M = 128 (TETRA_GEMM_T_BT64=1: the cheapest of BT 256,
# 128, 64 by cost_t with c(64) 0.47 instead of 0.62; the one grid point with none of 51 training
# shapes more than 5% off), its A/B, the held-out score of the candidate rules, tests.
#  1. A/B (A = main's defaults: split traffic 1, BT64 0; B = BT64 1), tetra-gemm, standard weights,
#     on 16 training shapes drawn (seed 25; 4 at M <= 64, 6 at M 65-128, 6 above) from the grid
#     shapes where the switch changes the choice (none held out) + training shapes 512x1536x2048 and
#     256x3072x3072 + a control. Predictions (the least-squares per-tile estimate, B/A +-0.10):
#     64x7168x2048 0.97, 17x6144x3072 0.92, 32x6144x3072 0.91, 32x11008x3072 0.91, 128x2560x2048
#     0.91, 128x1024x4096 0.88, 96x768x5120 0.91, 96x2560x2048 0.92, 128x8192x3072 0.82,
#     96x7168x3072 0.90, 384x2048x3072 0.90, 256x1024x4096 0.95, 192x768x8192 0.96, 384x2560x2048
#     0.78, 192x768x14336 1.00, 1024x1024x3072 0.82, 512x1536x2048 0.73 (run 123's sweep: 13.53 /
#     18.36), 256x3072x3072 0.89 (run 115: 18.82 / 20.88); control 512x2048x6144 0.98-1.02.
#     Adopt (default 1) if no row reads above 1.02 and the geomean is below 0.97.
#  2. Held-out score of build-main (split traffic 1 and BT64 1: the candidate rules), the same 34
#     shapes as run 121 (28 of them scored in runs 111-121, six fresh in run 121). Predictions: >= 31
#     of 34 within 5% of the best configuration (run 121: 31; 832x1536x5120 x1.12 may stay: BT 128
#     with 3 splits both ways), 34 of 34 within 2% of the best fixed configuration.
#  3. ctest -R "gpu_gemm" on build-main (every path's AUTO and pinned cases, the new splits and
#     tiles included): all pass.
#  4. If present: the wgmma-mix probe's session-25b kinds (docs/notes/wgmma-mix-s25b.md).
RUN=r124 BUDGET=470 . docs/notes/device-lib.sh
bld build-main 10 all -DTETRA_GEMM_T_BT64=1
bld build-a 5 "tetra_shared"
if [ -f docs/notes/wgmma-mix-s25b.md ]; then
  ( nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/wgmix docs/notes/wgmma-mix.cu \
      > $R/logs/ptxas.txt 2>&1; echo "rc=$?" >> $R/logs/ptxas.txt ) &
fi
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
if [ -x /tmp/wgmix ]; then
  /tmp/wgmix > $R/results/wgmma-mix-s25b.csv 2> $R/logs/wgmma-mix-s25b.stderr; echo "wgmix rc=$? at $(el) s"
  tail -3 $R/logs/wgmma-mix-s25b.stderr; grep -E '^form|,SPLIT,' $R/results/wgmma-mix-s25b.csv | tail -40; snap
fi
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
S=64x7168x2048,17x6144x3072,32x6144x3072,32x11008x3072,128x2560x2048,128x1024x4096,96x768x5120,96x2560x2048
S=$S,128x8192x3072,96x7168x3072,384x2048x3072,256x1024x4096,192x768x8192,384x2560x2048,192x768x14336,1024x1024x3072
step ab-bt64 110 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-a build-a/libtetra.so \
  --shape $S,512x1536x2048,256x3072x3072,512x2048x6144 \
  --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/bt64-ab.json
TB=docs/results/h200-2026-12-02/run109-s22-switch-grid-tune-table/results/dispatch-table.txt
HO=256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192,1024x14336x4096,768x4096x4096
HO=$HO,1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336
HO=$HO,100x768x6144,112x7168x2048,384x4096x4096,768x1792x5120,1024x2816x7168,512x2304x10240
HO=$HO,768x2048x6144,960x2048x7168,832x1536x5120,1024x1792x6144,768x2304x8192,1152x2048x4096
step score 250 build-main/tetra tune --table $TB --holdout-set glm5-tp8 --holdout-shape $HO --paired-rounds 4 \
  --json $R/results/tune-rule-holdout.json
grep -E "held-out score|verdict" $R/logs/score.log | cut -c1-220
grep -E "AUTO x1\.(0[5-9]|[1-9])" $R/logs/score.log | cut -c1-200
l=$(( $(left) - 5 )); [ $l -gt 120 ] && l=120
( cd build-main && timeout $l ctest -j4 --output-on-failure -R "gpu_gemm" > $R/logs/ctest-gemm.log 2>&1; echo "rc=$?" >> $R/logs/ctest-gemm.log )
echo "ctest at $(el) s: $(grep -E 'tests passed|rc=' $R/logs/ctest-gemm.log | tr '\n' ' ')"
grep -E "Failed|\*\*\*|Not Run" $R/logs/ctest-gemm.log | head
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
