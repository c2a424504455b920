# session 23, call 2 (run 113; run 112 was the sanitizers of run 111's build-sc, one command line):
# the scale pairs on standard-layout weights only (cfg_t's FRAG), default 1, against a build with
# TETRA_GEMM_V7_SCALE_PAIRS=0.
# Predictions (written before the run): hash lines equal (gpu_gemm wgmma_t: 164, gpu_gemm_fragment:
# 368); B/A (switch 1 / switch 0) on standard weights at M = 64 as run 111: 0.93-0.96; on fragment
# weights the FRAG kernels are main's again: 0.99-1.01 (within noise).
RUN=r113 . docs/notes/device-lib.sh
TG="tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment"
bld build-sc 8 "$TG"
bld build-0 8 "$TG" -DTETRA_GEMM_V7_SCALE_PAIRS=0
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
for b in sc 0; do
  H $b-hash TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 100 build-$b/tests/gpu_gemm
  H $b-frag TETRA_GEMM_FRAGMENT_TEST_HASH=1 timeout 100 build-$b/tests/gpu_gemm_fragment
done
wait
for k in hash frag; do for b in sc 0; do grep " hash " $R/logs/$b-$k.log | sort > $R/logs/h-$b-$k.txt; done
  echo "hash $k: 0 $(wc -l < $R/logs/h-0-$k.txt), sc $(wc -l < $R/logs/h-sc-$k.txt), 0 only $(comm -23 $R/logs/h-0-$k.txt $R/logs/h-sc-$k.txt | wc -l), sc only $(comm -13 $R/logs/h-0-$k.txt $R/logs/h-sc-$k.txt | wc -l) (expect 0 0)"
done
for f in $R/logs/sc-*.log $R/logs/0-*.log; do echo "$(basename $f .log): $(grep -E 'all checks passed|CHECK failed|FAIL|rc=' $f | head -3 | tr '\n' ' ')"; done
step ab-std 40 build-0/tetra bench --a tetra-gemm --b tetra-gemm --lib-b build-sc/libtetra.so \
  --shape 64x14336x4096,64x4096x14336,64x28672x8192 --blocks 5 --no-replicate --graph-below-us 400 \
  --out $R/results/v7sc-std-ab.json
step ab-frag 30 build-0/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-sc/libtetra.so \
  --shape 64x14336x4096,64x4096x14336 --blocks 5 --no-replicate --graph-below-us 400 \
  --out $R/results/v7sc-frag-ab.json
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
