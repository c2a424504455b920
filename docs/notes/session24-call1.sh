# session 24, call 1 (run 114): v7.14 = fewer dequantization instructions per weight on the
# fragment path, in two independent parts (notes: gemm-sm90.md, "v7.14"):
#   FOLD  TETRA_GEMM_V7_SCALE_FOLD=1: a step's scale pairs as 16-bit broadcasts that ptxas folds
#         into the HMUL2s' operand selectors (-8 PRMT per K-tile and consumer thread);
#   ROT   TETRA_FRAG_ROT=1: the fragment layout's bits placed so that slots 1-2 are rotations and
#         slot 3 takes three instructions, not four (-4 per K-tile and thread; a format change,
#         host converter, device converter, reference kernel, v7, the BT-256 transform and the
#         fragment GEMV all through nvfp4_codec.h's tetra_frag_bit / tetra_frag_slot_bits).
# Builds: b = this tree (FOLD 1, ROT 1), a = FOLD 0, ROT 0 (SASS of gemm_sm90.cu identical to
# session 23's main, checked offline), f = FOLD 1, ROT 0.
# Compile evidence (offline, nvcc 13.0, sm_90a, gemm_wgmma_t_kernel<BF16, 64, FRAG>, the K loop
# unrolled by two): 231 instructions per two K-tiles (a) -> 215 (f) -> 207 (b); per K-tile and
# consumer thread 115.5 -> 107.5 -> 103.5, the dequantization 74 -> 66 -> 62.
# Predictions (written before the run):
#  - bits: hash lines of gpu_gemm_fragment (368) and gpu_gemm wgmma_t (164) equal between a and b;
#    the ctest subset (fragment, gemv, format, reference, interleaved, pdl, bench) passes on b;
#    memcheck 0 errors on gpu_gemm_fragment and gpu_fragment (b).
#  - time, B/A on fragment weights at M = 64 (64x14336x4096, 64x4096x14336, 64x28672x8192):
#    b / a 0.92-0.96 (the model: dequant ~222 of ~548 cycles per K-tile scales with its
#    instructions, 74 -> 62: -6.6%; run 73's issue-bound ratio, -16% time for -19% instructions,
#    applied to -10.4%: -8.7%); f / a 0.95-0.98. M = 128: 0.94-0.98. 256x14336x4096 (BT-256
#    FRAG transform): 0.97-1.00. Fragment GEMV (M = 1, 4, 8): 0.98-1.02 (memory-bound), 64x768x6144
#    (6 K-tiles per CTA): 0.96-1.00.
#  - M = 64 against cublaslt-bf16-tuned (b): 1.56-1.63x (run 104: 1.478-1.513x).
RUN=r114 . docs/notes/device-lib.sh
bld build-b 8 all
bld build-a 4 "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment" -DTETRA_FRAG_ROT=0 -DTETRA_GEMM_V7_SCALE_FOLD=0
bld build-f 4 "tetra_shared" -DTETRA_FRAG_ROT=0
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
for b in a b; do
  H $b-hash TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 build-$b/tests/gpu_gemm
  H $b-frag TETRA_GEMM_FRAGMENT_TEST_HASH=1 timeout 150 build-$b/tests/gpu_gemm_fragment
done
( cd build-b && timeout 200 ctest -j4 --output-on-failure -R "fragment|gemv|gpu_format|gemm_reference|interleaved|nonfinite|gemm_pdl|bench|cli" \
  > $R/logs/ctest-b.log 2>&1; echo "rc=$?" >> $R/logs/ctest-b.log ) &
wait; echo "tests at $(el) s: $(grep -E 'tests passed|rc=' $R/logs/ctest-b.log | tr '\n' ' ')"; snap
grep -E "Failed|\*\*\*|Not Run" $R/logs/ctest-b.log | head
for k in hash frag; do for b in a b; do grep " hash " $R/logs/$b-$k.log | sort > $R/logs/h-$b-$k.txt; done
  echo "hash $k: a $(wc -l < $R/logs/h-a-$k.txt), b $(wc -l < $R/logs/h-b-$k.txt), a only $(comm -23 $R/logs/h-a-$k.txt $R/logs/h-b-$k.txt | wc -l), b only $(comm -13 $R/logs/h-a-$k.txt $R/logs/h-b-$k.txt | wc -l) (expect 0 0)"
done
for f in $R/logs/a-*.log $R/logs/b-*.log; do echo "$(basename $f .log): $(grep -E 'all checks passed|CHECK failed|FAIL|rc=' $f | head -3 | tr '\n' ' ')"; done
step ab-frag 150 build-a/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-b/libtetra.so \
  --shape 64x14336x4096,64x4096x14336,64x28672x8192,64x768x6144,128x4096x7168,128x14336x4096,256x14336x4096,1x4096x14336,4x2048x6144,8x14336x4096 \
  --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/v714-ab-frag.json
step ab-fold 50 build-a/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-f/libtetra.so \
  --shape 64x14336x4096,64x4096x14336,64x28672x8192 --blocks 5 --no-replicate --graph-below-us 400 \
  --out $R/results/v714-ab-fold.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
step ratio 80 build-b/tetra bench --a cublaslt-bf16-tuned --b tetra-gemm-frag \
  --shape 64x14336x4096,64x4096x14336,64x28672x8192,64x768x6144,64x2048x6144 \
  --ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400 --blocks 4 \
  --out $R/results/m64-ratio.json
l=$(( $(left) - 8 )); [ $l -gt 120 ] && l=120
if [ $l -ge 40 ]; then
  H san-frag TETRA_TEST_QUICK=1 timeout $l compute-sanitizer --tool memcheck --error-exitcode 99 build-b/tests/gpu_gemm_fragment
  H san-fmt timeout $l compute-sanitizer --tool memcheck --error-exitcode 99 build-b/tests/gpu_fragment
  wait
fi
for f in $R/logs/san-*.log; do [ -f $f ] && echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|all checks passed|CHECK failed|FAIL|rc=' $f | head -4 | tr '\n' ' ')"; done
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
