# session 25, call 2 (run 121): the tile rule's session-25 constants (c(128) 0.70 -> 0.66, T_BYTES
# 2.6e6 -> 1.8e6 at 2 splits / 3.6e6 above; fitted on 40 training shapes, runs 115, 116, 120:
# docs/notes/dispatch-refit.py) scored on held-out shapes, paired, and its own A/B.
#  1. A/B of the rule (same kernels; build-old = the constants patched back), tetra-gemm, standard
#     weights, on the shapes whose choice changes: training 640x2048x8192 (BT 256 s5 -> 128 s3),
#     896x2048x5120 (256 s2 -> 128 s1), 1024x2048x8192 (256 s2 -> 128 s1), 1024x5120x13824 (256 s3 ->
#     s4); held-out 1024x2048x6144 (256 s2 -> 128 s1); fresh 960x2048x7168, 1024x1792x6144 (256 s2
#     -> 128 s1); control 512x2048x6144 (unchanged, BT 256 s4).
#     Predictions B/A (from run 120 / 115 / 117 sweeps): 0.99-1.01, 0.77-0.83, 0.91-0.96, 0.92-0.97;
#     0.84-0.89; fresh 0.84-0.95 each; control 0.98-1.02.
#  2. Held-out score: run 117's 28 shapes (glm5-tp8 + 18 named) plus six FRESH ones chosen before
#     any timing (768x2048x6144, 960x2048x7168, 832x1536x5120, 1024x1792x6144, 768x2304x8192,
#     1152x2048x4096). Predictions: the rules within 5% of the sweep's best on >= 27 of 28 of run
#     117's (1024x2048x6144 fixed, 512x2048x6144 x1.04-1.08 stays) and >= 5 of the 6 fresh; within
#     2% of the best fixed configuration on all 34.
RUN=r121 BUDGET=420 . docs/notes/device-lib.sh
rm -rf /tmp/old && mkdir -p /tmp/old && tar --exclude='./build-*' --exclude=./.git -cf - . | tar -xf - -C /tmp/old
sed -i 's/bt == 128 ? 0.66 : 0.62, t_bytes = splits == 2 ? 1.8e6 : 3.6e6;/bt == 128 ? 0.70 : 0.62, t_bytes = 2.6e6;/' /tmp/old/src/cuda/gemm_sm90.cu
grep -c "bt == 128 ? 0.70 : 0.62, t_bytes = 2.6e6;" /tmp/old/src/cuda/gemm_sm90.cu
bld build-main 10 "tetra_cli tetra_shared"
( cmake -S /tmp/old -B build-old -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_BUILD_TESTS=OFF > $R/logs/build-old.log 2>&1
  cmake --build build-old -j6 --target tetra_shared >> $R/logs/build-old.log 2>&1; echo "rc=$?" >> $R/logs/build-old.log ) &
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
step ab-rule 90 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-a build-old/libtetra.so \
  --shape 640x2048x8192,896x2048x5120,1024x2048x8192,1024x5120x13824,1024x2048x6144,960x2048x7168,1024x1792x6144,512x2048x6144 \
  --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/rule-ab.json
TB=docs/results/h200-2026-12-02/run109-s22-switch-grid-tune-table/results/dispatch-table.txt
HO=256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192,1024x14336x4096,768x4096x4096
HO=$HO,1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336
HO=$HO,100x768x6144,112x7168x2048,384x4096x4096,768x1792x5120,1024x2816x7168,512x2304x10240
HO=$HO,768x2048x6144,960x2048x7168,832x1536x5120,1024x1792x6144,768x2304x8192,1152x2048x4096
l=$(( $(left) - 10 ))
step score $l build-main/tetra tune --table $TB --holdout-set glm5-tp8 --holdout-shape $HO --paired-rounds 4 \
  --json $R/results/tune-rule-holdout.json
grep -E "held-out|score|verdict|A/A|ship|AUTO" $R/logs/score.log | cut -c1-220 | tail -50
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
