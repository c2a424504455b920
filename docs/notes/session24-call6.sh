# session 24, call 6 (run 119): v7.15, TETRA_GEMM_V7_EARLY_SYNC (notes: gemm-sm90.md, "v7.15"):
# after a stage's last wgmma group is committed, test_waits on the next raw and A stages (a stage
# found complete is not waited on again), and the aempty arrive moved from after wgmma_wait<1> to
# after the next group's commit. Run 118's DIAG-1 trace put ~100 cycles per K-tile in the rfull
# segment with or without the dequant, and ~95 in afull (u' = 0) with the data 4 stages ahead.
# Builds: m = main (switch 0), e = switch 1, etr = switch 1 + TETRA_GEMM_TRACE.
# Compile evidence (sm_90a, BF16 BT 64 FRAG loop, two K-tiles): 215 -> 242 instructions (+2
# test_waits, moved arrive, predicate and ring arithmetic); SASS of the switch-0 build = main's.
# Predictions (written before the run):
#  - bits: hash lines equal m vs e (gpu_gemm wgmma_t 164, gpu_gemm_fragment 368); gpu_gemm_pdl
#    passes; memcheck / racecheck / synccheck clean on gpu_gemm_fragment (e).
#  - time e / m, fragment weights, M = 64: 0.88-0.97 if the ~100-cycle segments are the barrier
#    operations' latency on the chain; >= 0.99 refutes that (then they are the trace's own stores
#    or the SM's issue rate beside the tensor pipe). M = 128 and standard weights: 0.92-1.00.
#  - trace (e, 64x14336x4096): rfull 105 -> 20-60, afull (u' = 0) 113 -> 30-70, period 547 -> 430-510.
RUN=r119 . docs/notes/device-lib.sh
bld build-m 6 "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment"
bld build-e 6 "tetra_shared gpu_gemm gpu_gemm_fragment gpu_gemm_pdl" -DTETRA_GEMM_V7_EARLY_SYNC=1
bld build-etr 4 "tetra_static" -DTETRA_GEMM_V7_EARLY_SYNC=1 "-DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_TRACE"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
for b in m e; do
  H $b-hash TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 120 build-$b/tests/gpu_gemm
  H $b-frag TETRA_GEMM_FRAGMENT_TEST_HASH=1 timeout 120 build-$b/tests/gpu_gemm_fragment
done
H e-pdl TETRA_GEMM_V7_PDL_EXPECT=1 TETRA_GEMV_PDL_ALL_EXPECT=1 timeout 120 build-e/tests/gpu_gemm_pdl
wait; echo "hash runs at $(el) s"; snap
for k in hash frag; do for b in m e; do grep " hash " $R/logs/$b-$k.log | sort > $R/logs/h-$b-$k.txt; done
  echo "hash $k: m $(wc -l < $R/logs/h-m-$k.txt), e $(wc -l < $R/logs/h-e-$k.txt), m only $(comm -23 $R/logs/h-m-$k.txt $R/logs/h-e-$k.txt | wc -l), e only $(comm -13 $R/logs/h-m-$k.txt $R/logs/h-e-$k.txt | wc -l) (expect 0 0)"
done
for f in $R/logs/m-*.log $R/logs/e-*.log; do echo "$(basename $f .log): $(grep -E 'all checks passed|CHECK failed|FAIL|rc=' $f | head -3 | tr '\n' ' ')"; done
step ab-frag 60 build-m/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-e/libtetra.so \
  --shape 64x14336x4096,64x4096x14336,64x28672x8192,64x768x6144,64x2048x6144,128x4096x7168,128x14336x4096 \
  --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/v715-ab-frag.json
step ab-std 40 build-m/tetra bench --a tetra-gemm --b tetra-gemm --lib-b build-e/libtetra.so \
  --shape 64x14336x4096,64x4096x14336,64x28672x8192,128x14336x4096 --blocks 5 --no-replicate --graph-below-us 400 \
  --out $R/results/v715-ab-std.json
gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/v7-trace.c -L build-etr -l:libtetra.a \
  -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-etr/v7-trace-drv > $R/logs/drv.log 2>&1; echo "drv rc=$?"
mkdir -p $R/trace
step trace-e 20 env TRACE=1 build-etr/v7-trace-drv $R/trace/e 64x14336x4096
for f in $R/trace/e*.bin; do [ -f "$f" ] || continue; python3 docs/notes/v7-trace.py $f --kt 2 --json ${f%.bin}.json > ${f%.bin}.txt 2>&1; head -32 ${f%.bin}.txt; rm -f $f; done
l=$(( $(left) - 5 )); [ $l -gt 100 ] && l=100
if [ $l -ge 30 ]; then
  for t in memcheck racecheck synccheck; do
    H san-frag-$t TETRA_TEST_QUICK=1 timeout $l compute-sanitizer --tool $t --error-exitcode 99 build-e/tests/gpu_gemm_fragment
  done
  wait
fi
for f in $R/logs/san-*.log; do [ -f $f ] && echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|FAIL|rc=' $f | head -4 | tr '\n' ' ')"; done
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
