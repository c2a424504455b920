#!/usr/bin/env bash
# Session 20 call 3 (run 100): main 62f638d (v7.9 PDL with the idle-SM rule and v7.10 A_LOCAL on by
# default) against main fc8a0d0 (before them; extracted to .s20old), and the calibrated figures.
# Run: git archive fc8a0d0 <all but docs> | tar -x -C .s20old; C_MAIN=62f638d... BUDGET=500 bash docs/notes/session20-call3.sh
# PREDICTIONS (written before the run; B/A = new time / old time, fragment weights; from run 99's
# per-switch A/Bs multiplied, and the rule's choice):
#   64x768x6144 ~0.92 (PDL on: 96 CTAs; A_LOCAL does not touch the cluster-K kernel);
#   64x2048x6144 ~0.985 (128 CTAs: PDL off; A_LOCAL on); 64x14336x4096 ~0.94 (both);
#   64x4096x14336 ~0.98 (128 CTAs: PDL off); 64x28672x8192 ~0.97 (both); 32x14336x4096 ~0.94;
#   128x4096x7168 (BT 128, 128 CTAs: neither) 1.00 [0.99, 1.01].
#   Calibrated vs tuned cuBLASLt BF16 (run 98's ratio / the above): 64x14336x4096 ~1.54,
#   64x4096x14336 ~1.52, 64x28672x8192 ~1.51, 32x14336x4096 ~1.52; 64x768x6144 ~1.03 (cuBLAS's
#   pick moved to 7.47 us in run 98); 64x2048x6144 ~1.145; 4x2048x6144 ~1.46 (GEMV, unchanged).
#   The M = 64 target (1.8x) stays missed. ctest of the whole default build: all pass;
#   memcheck of gpu_gemm_pdl (quick) 0 errors.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-500}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r100; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r100.tgz.tmp -C $OUT r100 2>/dev/null && mv $OUT/r100.tgz.tmp $OUT/r100.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B build-main -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-main.log 2>&1 &&
  cmake --build build-main -j11 >> $R/logs/build-main.log 2>&1; echo "rc=$?" >> $R/logs/build-main.log ) &
( cd .s20old && cmake -S . -B build-old -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-old.log 2>&1 &&
  cmake --build build-old -j5 --target tetra_cli tetra_shared >> $R/logs/build-old.log 2>&1; echo "rc=$?" >> $R/logs/build-old.log ) &
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
grep -E '^TETRA_GEMM_V7_(PDL|A_LOCAL)' build-main/CMakeCache.txt .s20old/build-old/CMakeCache.txt
( timeout 330 ctest --test-dir build-main -j3 --output-on-failure > $R/logs/ctest-main.log 2>&1; echo "rc=$?" >> $R/logs/ctest-main.log ) &
( env TETRA_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 build-main/tests/gpu_gemm_pdl > $R/logs/san-pdl-memcheck.log 2>&1; echo "rc=$?" >> $R/logs/san-pdl-memcheck.log ) &
wait; echo "correctness done at $(el) s"; snap
for f in $R/logs/ctest-main.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|tests passed|all checks passed|CHECK failed|rc=' $f | head -4 | tr '\n' ' ')"; done
grep -E "Failed|\*\*\*|Not Run|Timeout" $R/logs/ctest-main.log | head
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
cal="--ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400"
step ab-new 90 .s20old/build-old/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-main/libtetra.so --shape 64x768x6144,64x2048x6144,64x14336x4096,64x4096x14336,64x28672x8192,32x14336x4096,128x4096x7168 --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/new-vs-old-ab.json
step m64-cal 60 build-main/tetra bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 64x14336x4096,64x4096x14336,64x28672x8192,32x14336x4096,64x768x6144,64x2048x6144,4x2048x6144 $cal --blocks 8 --out $R/results/m64-glm5-frag-calibrated.json
echo "total $(el) s"; snap; rm -rf $OUT/r100
