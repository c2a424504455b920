#!/usr/bin/env bash
# session 11, call 5: main $C_MAIN (68c7fd8: skinny EPI 1 by default, AUTO gives prepared
# weights at 17 <= M <= 64 to the skinny kernel, gpu_interleaved's changed refusal test).
# Checks: ctest (GPU tests included, the A/A bench test excluded); compute-sanitizer x3 on
# gpu_interleaved and gpu_skinny (quick sets); skinny (= AUTO for prepared weights) at
# M = 17..64 against cuBLAS and v7. Predictions: everything passes; the skinny rows as run 50's
# variant e (64x14336x4096 ~34.6 us, 17x ~25.4, 32x ~27.1).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-470}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r5; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r5.tgz.tmp -C $OUT r5 2>/dev/null && mv $OUT/r5.tgz.tmp $OUT/r5.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S .scratch-main -B .scratch-main/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build .scratch-main/b -j16 >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build: $(tail -1 $R/logs/build.log) at $(el) s"; strings .scratch-main/b/tetra | grep tetra-skinny-variant | head -1
G=.scratch-main/b/tests
for t in gpu_interleaved gpu_skinny; do for tool in memcheck racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 $G/$t > $R/logs/san-$t-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$t-$tool.log ) &
done; done; wait
echo "sanitizers done at $(el) s"; for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(tail -3 $f | tr '\n' ' ')"; done; snap
( cd .scratch-main/b && timeout $(( $(left) - 90 )) ctest --output-on-failure -E gpu_bench_aa > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log )
echo "ctest at $(el) s: $(grep -E 'tests passed|tests failed' $R/logs/ctest.log) $(tail -1 $R/logs/ctest.log)"
grep -E "AUTO at M = 17" $R/logs/ctest.log | head -2; snap
if [ $(left) -gt 50 ]; then
  echo "skinny: build/tetra bench ..." >> $R/logs/commands.txt
  TETRA_COMMIT=$C_MAIN timeout $(( $(left) - 5 )) .scratch-main/b/tetra bench --shape 17x14336x4096,32x14336x4096,48x14336x4096,64x14336x4096,32x4096x14336,64x4096x14336,32x28672x8192,64x28672x8192,64x768x6144,64x2048x6144 --a tetra-gemm-skinny --b cublaslt-bf16-tuned,tetra-gemm --graph-below-us 400 --blocks 6 --no-replicate --out $R/results/skinny-midm.json > $R/logs/skinny-midm.log 2>&1
  echo "== skinny rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/skinny-midm.log | cut -c1-140
fi
echo "total $(el) s"; snap; rm -rf $OUT/r5
