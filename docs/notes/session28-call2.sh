# Session 28, call 2 (run 136; written after run 135, before this run). Run 135's two exact tunes
# (45 `tune` shapes each) ran past their 200 s limits at 43 / 44 shapes (predicted ~130 s: the
# M = 1024-2048 shapes dominate), so no table was written. Their sweeps name the candidates: the
# shapes whose fastest nameable configuration read under 0.97x AUTO (standard: ten at M <= 128,
# GEMV split counts and 128x6144x2048; fragment: eleven, among them 512x11008x4096 BT 128 78.98 us
# against AUTO's BT 256 88.28 and 256x24576x6144 BT 128 118.6 against 128.7), plus the shapes the
# runs did not reach. This call tunes those shapes again (a fresh sweep picks the entry, then the
# paired check keeps it under 0.98x AUTO); predictions: standard 5-9 of 12 kept (the GEMV splits
# at 0.89-0.95x AUTO in run 135), fragment 5-9 of 13.
# Then an A/B the sweep suggests: fragment-ordered weights at M = 256-2048 on v7's BT 128 (A: a
# build with TETRA_GEMM_FRAG_BT256=0) against main's BT-256 FRAG kernels (B), B/A = BT 256's time
# over BT 128's. Predictions: 512x11008x4096 1.11 (+-0.05; run 135's sweep), 256x24576x6144 1.08;
# the six M = 256 / 512 shapes 0.95-1.10 (not known); M >= 1024 0.90-1.00. Nothing is
# adopted from this run: where A wins by >= 3% at >= 4 of the six shapes, a fragment tile
# rule is drafted and A/B'd on fresh shapes.
RUN=r136 BUDGET=470 . docs/notes/device-lib.sh
bld build-main 12 "all"
bld build-a 4 "tetra_shared" -DTETRA_GEMM_FRAG_BT256=0
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
S=4x3072x3072,12x3072x3072,4x6144x2048,12x6144x2048,128x6144x2048,1x11008x4096,4x11008x4096,12x11008x4096
S=$S,1x24576x6144,4x24576x6144,1024x24576x6144,2048x24576x6144
step tune-std 150 build-main/tetra tune --exact --shape $S --holdout-shape none --out $R/results/exact-std.txt \
  --json $R/results/tune-exact-std.json
grep -E "^  exact|kept:|candidates" $R/logs/tune-std.log | cut -c1-200
F=12x3072x3072,2048x3072x3072,12x6144x2048,1024x6144x2048,1x11008x4096,4x11008x4096,512x11008x4096
F=$F,1x5120x13824,12x5120x13824,1x24576x6144,12x24576x6144,256x24576x6144,2048x24576x6144
step tune-frag 150 build-main/tetra tune --exact --weights fragment --shape $F --holdout-shape none \
  --out $R/results/exact-frag.txt --json $R/results/tune-exact-frag.json
grep -E "^  exact|kept:|candidates" $R/logs/tune-frag.log | cut -c1-200
AB=256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192
AB=$AB,512x11008x4096,256x24576x6144,1024x14336x4096,2048x14336x4096,1024x2048x6144,512x2048x6144
l=$(( $(left) - 8 ))
step ab-fragbt $l build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-a build-a/libtetra.so \
  --shape $AB --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/frag-bt256-ab.json
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
