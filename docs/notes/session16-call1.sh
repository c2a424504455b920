#!/usr/bin/env bash
# Session 16, device call 1 (run 76). Run: C_MAIN=<hash> BUDGET=560 bash docs/notes/session16-call1.sh
# 1. wgmma-T gpu_gemm + gpu_gemm_persistent on main (the launcher fold c7af0df and the bench's
#    --lib-a/-b have not run on a GPU). Prediction: pass.
# 2. --lib-b A/A (this build against its own libtetra.so, one process). Prediction: ratio within
#    the A/A noise of 1 (|1 - ratio| < 0.01) at 4096^3 and 64x28672x8192.
# 3. v7.5 (docs/notes/patches/v7.5-quad-scales.patch, .scratch-v75 = git archive HEAD + patch,
#    -DTETRA_GEMM_V7_QUADSCALE=1): gpu_gemm wgmma_t hash lines equal main's (same bits by design);
#    A/B in one process (A = main, B = v7.5 through --lib-b) at the three M = 64 shapes
#    and 128x28672x8192. Prediction: B 2-4% faster at M = 64 (ratio a_us/b_us... read the
#    times), within noise at M = 128 or slightly faster.
# 4. Calibrated sweeps on main (as run 57): ceilings, calibrate, glm5-tp8, midm. Prediction:
#    as run 57 (same kernels) except 512x14336x4096 (now v10.8) +0.01-0.03; glm5 and midm rows
#    within the cuBLAS arm's run-to-run spread (~0.02) of run 57's.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r76; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r76.tgz.tmp -C $OUT r76 2>/dev/null && mv $OUT/r76.tgz.tmp $OUT/r76.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B build-main -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build build-main -j16 --target tetra_cli gpu_gemm tetra_shared >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build main: $(tail -1 $R/logs/build.log) at $(el) s"
# v7.5 build in the background while the tests run (CPU only)
( cd .scratch-v75 && cmake -S . -B build-v75 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_GEMM_V7_QUADSCALE=1 > $R/logs/build-v75.log 2>&1 &&
  cmake --build build-v75 -j10 --target gpu_gemm tetra_shared >> $R/logs/build-v75.log 2>&1; echo "rc=$?" >> $R/logs/build-v75.log ) &
bpid=$!
T=build-main/tetra; res=$R/results; export TETRA_COMMIT=$C_MAIN
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x|ratio|FAIL|passed|Passed|Failed" $R/logs/$name.log | cut -c1-160 | head -30; }
step tests 170 env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t ctest --test-dir build-main -R 'gpu_gemm$|gpu_gemm_persistent' --output-on-failure
wait $bpid; echo "build v75: $(tail -1 $R/logs/build-v75.log) at $(el) s"
step tests-v75 120 env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t .scratch-v75/build-v75/tests/gpu_gemm
grep -h "hash" $R/logs/tests.log | sed 's/^[0-9]*: //' > $R/logs/hash-main.txt
grep -h "hash" $R/logs/tests-v75.log > $R/logs/hash-v75.txt
echo "hash lines main $(wc -l < $R/logs/hash-main.txt) v75 $(wc -l < $R/logs/hash-v75.txt); v75 lines not in main: $(grep -vxFf $R/logs/hash-main.txt $R/logs/hash-v75.txt | wc -l)"
step libaa 40 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-main/libtetra.so --shape 4096x4096x4096,64x28672x8192 --blocks 4 --no-replicate --out $res/lib-aa.json
step v75 90 $T bench --a tetra-gemm --b tetra-gemm --lib-b .scratch-v75/build-v75/libtetra.so --shape 64x14336x4096,64x4096x14336,64x28672x8192,128x28672x8192 --blocks 10 --no-replicate --graph-below-us 400 --out $res/v75-ab.json
step ceilings 30 $T bench ceilings --out $res/ceilings.json
step calibrate 50 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
step glm5 70 $T bench --set glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-glm5.json
step midm 60 $T bench --shape 64x14336x4096,64x4096x14336,64x28672x8192,256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-midm.json
echo "total $(el) s"; snap; rm -rf $OUT/r76
