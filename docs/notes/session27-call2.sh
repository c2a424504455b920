# Session 27, call 2 (run 132; written after run 131, before this run).
# 1. Fragment weights under session 26's cluster-K choice. Run 131 measured 128x7168x2048 (gpumode)
#    at 13.38 us with fragment weights against 11.42 in run 104 (unpaired; cuBLAS ratio 0.900 ->
#    0.775), where the choice moved it from BT 64 unsplit to cluster-K 128/2 (the estimates' B/A
#    0.90). Runs 128-129 A/B'd the choice on standard weights only (plus 64x2048x6144 0.919 and
#    256x768x6144 0.839 on fragment weights). A = TETRA_GEMM_T_CK_RULE=0, B = main, tetra-gemm-frag,
#    paired, on the shapes where the choice takes cluster-K against the rules (run 129's 14 fresh
#    shapes, glm5's 64/256/512 x 2048x6144 and 256x768x6144, 128x7168x2048, 112x7168x2048), control
#    64x14336x8192 (unchanged choice), and 128x7168x2048 on standard weights.
#    Predictions: 128x7168x2048 1.10-1.20 on fragment weights (run 131 vs 104), 0.95-1.05 standard;
#    112x7168x2048 the same as 128x7168x2048; 64x2048x6144 0.92 and 256x768x6144 0.84 (run 129);
#    the 14 fresh shapes 0.85-1.00 (standard weights 0.78-0.97; fragment kernels spend less per
#    K-tile, so the fixed costs cluster-K saves weigh the same and the split traffic less).
#    Added before the run (21:30, after reading run 129's held-out sweep): at 112x7168x2048 on
#    standard weights BT 64 unsplit took 13.93 us, the chosen cluster-K 128/2 14.28 (1.025x); the
#    fragment layout makes BT 64's dequant cheaper (run 104: 11.42 us) while cluster-K 128/2 ran
#    13.38 (run 131), so the choice is biased wherever it moves BT 64 -> 128 on fragment weights.
#    Sharper prediction: the rows where the choice leaves BT 64 for 128 (128x7168x2048,
#    112x7168x2048) read above 1.05 on fragment weights; the rows that keep the tile or go from
#    128 to 64 (192x768x5120, 192x2560x2048) as on standard weights or lower; the BT 256 -> 128
#    rows (512x2048x6144, 1024x1024x4096): no prediction (the FRAG BT-256 kernels gain too).
#    Rule (written now): if no fragment row reads above 1.02 and the geomean is below 0.97 the
#    choice stays for fragment weights; if rows above 1.05 share a feature (e.g. K <= 2048, the
#    rules' choice unsplit) the choice is narrowed to exclude it for fragment weights and A/B'd on
#    fresh shapes; otherwise (geomean >= 0.97) the choice is turned off for fragment weights.
# 2. TETRA_GEMM_T_SPLIT_FIT_BELOW=2 (unsplit below one wave where k_fit_est prefers no split,
#    else the rules' count; from run 131's A/B of mode 1: 3 or 5 splits -> none 0.80-0.94x the time
#    at nine rows, 5 -> 2 splits 1.010-1.035x at five). A = main, B = mode 2, tetra-gemm, paired,
#    on all 22 grid shapes (M 17-2048 x 17 N x 10 K) where mode 2 changes choose_ck's choice and
#    that no session 24-27 script used; control 64x14336x8192. Predictions: the 20 rows where
#    3 splits become none 0.80-0.93 (run 131's 3 -> 1 rows 0.799-0.890); 320x3072x4096 (cluster-K
#    128/3 -> BT 128 unsplit) 0.95-1.10; 640x2048x5120 (128/3 -> cluster-K 128/4) 0.90-1.05.
#    Adopt (default 2) only if no row reads above 1.02 and the geomean is below 0.97.
# 3. The remaining time: every GPU test of build-main (ctest's list, variants included) under
#    compute-sanitizer memcheck with TETRA_TEST_QUICK=1 (docs/notes/san-sweep.py), 6 at a time.
RUN=r132 BUDGET=560 . docs/notes/device-lib.sh
bld build-main 10 "all"
bld build-a 3 "tetra_shared" -DTETRA_GEMM_T_CK_RULE=0
bld build-c 3 "tetra_shared" -DTETRA_GEMM_T_SPLIT_FIT_BELOW=2
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
F=128x7168x2048,112x7168x2048,64x2048x6144,256x2048x6144,512x2048x6144,256x768x6144
F=$F,64x2048x3072,64x6144x7168,64x2560x4096,32x6144x6144,128x2560x5120,96x2560x6144,128x2560x2048,96x2560x3072
F=$F,384x1024x6144,256x2048x3072,192x768x5120,384x1024x7168,192x2560x2048,1024x1024x4096,64x14336x8192
step ab-ck-frag 110 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-a build-a/libtetra.so \
  --shape $F --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/ck-rule-frag-ab.json
step ab-ck-std 15 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-a build-a/libtetra.so \
  --shape 128x7168x2048 --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/ck-rule-std-ab.json
S=17x11008x3072,24x11008x3072,32x11008x4096,48x11008x4096,64x11008x5120,80x11008x4096,112x11008x5120
S=$S,160x11008x4096,160x11008x5120,320x3072x4096,512x5120x5120,640x2048x5120,768x3072x5120,896x1536x5120
S=$S,896x2560x5120,896x2816x6144,1024x2304x5120,1024x2816x5120,1024x2816x6144,1536x1536x5120,1536x1792x5120
S=$S,1536x1792x6144,64x14336x8192
step ab-below2 120 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-b build-c/libtetra.so \
  --shape $S --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/split-fit-below2-ab.json
l=$(( $(left) - 12 ))
echo "sanitizer sweep: $l s"
python3 docs/notes/san-sweep.py build-main $R/logs $l --jobs 6 > $R/logs/san-sweep.log 2>&1
cat $R/logs/san-sweep.log
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
