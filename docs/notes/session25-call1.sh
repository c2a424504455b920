# session 25, call 1 (run 120). Three independent measurements on main (15f75ce's kernels).
#  1. The wgmma-mix probe's session-25 kinds (docs/notes/wgmma-mix-s25.md: dfold / dhalf slope,
#     FP8 e4m3 k32 RS tensor groups). Predictions: that file's table (written before the run);
#     the first 80 rows repeat run 111's within ~2%.
#  2. M = 64 lever (a), "the 20 idle SMs": fragment weights at M = 64 with 112 CTAs (14336 rows),
#     132 CTAs (16896 rows = 132 x 128) and 108 (13824); two waves 224 (28672) vs 264 (33792).
#     If v7's per-CTA rate holds when every SM has a CTA, time(16896) / time(14336) <= 1.03 and
#     a stream-K v7 (132 CTAs sharing 112 tiles' K-tiles) could gain up to 132 / 112 = 1.18x
#     less its second pipeline fill and reduce (~4-6%). If a shared resource (L2 -> SM, HBM)
#     sets the rate, the ratio is ~1.18 (time follows the bytes): lever (a) is worth nothing.
#     My prediction: 1.00-1.04 (weights at ~1.7 TB/s of ~4.0 measured, L2 not the bound per
#     run 107's DIAG modes 5-7).
#  3. Dispatcher training data (NOT held-out shapes) around the two held-out misses at N = 2048,
#     K = 6144 (BT 256 with a split, 128 CTAs, x1.071 / x1.162 over BT 128 at 128 CTAs):
#     12 fresh shapes M 512-1024, N 1024-3072, K 4096-8192 where BT 256 needs a split to fill a
#     wave and BT 128 nearly fills it. Prediction: on most of them BT 128 (split or not) beats
#     BT 256 with a split by 5-15% where both make ~128 CTAs (the held-out pattern), so a refit
#     moves T_BYTES down (the split's partial traffic dearer) or c(128) down.
RUN=r120 BUDGET=330 . docs/notes/device-lib.sh
bld build-main 14 "tetra_cli tetra_shared"
( nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/wgmix docs/notes/wgmma-mix.cu \
    > $R/logs/ptxas.txt 2>&1; echo "rc=$?" >> $R/logs/ptxas.txt ) &
wait; echo "build: $(tail -qn1 $R/logs/build-*.log $R/logs/ptxas.txt | tr '\n' ' ') at $(el) s"; snap
/tmp/wgmix > $R/results/wgmma-mix-s25.csv 2> $R/logs/wgmma-mix-s25.stderr; echo "wgmix rc=$? at $(el) s"
cat $R/logs/wgmma-mix-s25.stderr | tail -3; grep -E '^form|,SPLIT,' $R/results/wgmma-mix-s25.csv; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
step m64-fill 90 build-main/tetra bench --a cublaslt-bf16-tuned --b tetra-gemm-frag \
  --shape 64x14336x4096,64x16896x4096,64x13824x4096,64x28672x4096,64x33792x4096 \
  --ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400 --blocks 4 \
  --out $R/results/m64-fill.json
S=512x2560x5120,768x2560x5120,1024x2560x5120,640x2048x8192,1024x2048x8192,768x2048x4096,1024x1536x6144,512x1536x8192,1024x2304x4096,896x2048x5120,1024x1024x8192,768x3072x4096
step tune 150 build-main/tetra tune --shape $S --holdout-shape none --paired-rounds 0 \
  --out $R/results/dispatch-table-n2k.txt --json $R/results/tune-n2k.json
grep -E "^  tune" $R/logs/tune.log | cut -c1-200
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
