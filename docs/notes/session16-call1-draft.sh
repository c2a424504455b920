#!/usr/bin/env bash
# DRAFT for session 16's first call (written in session 15, not run): issue 5's calibrated
# sweeps on main (v10.8 for BT 256 at K <= 4096, fold108's kernel folds, SASS as 612e5f2), as
# run 57 did at b9d9594, plus gpu_gemm / gpu_gemm_persistent (the K rule and, if merged first,
# fold108's launcher fold 2530b3e, merged unrun). Run: C_MAIN=<hash> BUDGET=560 bash docs/notes/session16-call1-draft.sh
# Predictions: seed000 W4A16 as run 57 (same kernels) except 2048x14336x4096 +0.01-0.03 and
# 4096^3 within noise (v10.8, runs 72-74); M = 512 at (14336, 4096) +0.01-0.03; everything else
# within the run-to-run spread of the cuBLAS arm (~0.02). gpu_gemm tests pass. The --lib-b A/A:
# ratio within noise of 1.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r6; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r6.tgz.tmp -C $OUT r6 2>/dev/null && mv $OUT/r6.tgz.tmp $OUT/r6.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B build-main -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build build-main -j16 --target tetra_cli gpu_gemm tetra_shared >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build: $(tail -1 $R/logs/build.log) at $(el) s"
T=build-main/tetra; res=$R/results; export TETRA_COMMIT=$C_MAIN
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150; }
step tests 150 env TETRA_GEMM_TEST_ONLY=wgmma_t ctest --test-dir build-main -R 'gpu_gemm$|gpu_gemm_persistent' --output-on-failure
# the bench's --lib-b (session 15, never run on a GPU): an A/A of this build against its own
# libtetra.so, one process; predicted ratio within noise of 1 and the note naming the library
step libaa 40 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-main/libtetra.so --shape 4096x4096x4096,64x28672x8192 --blocks 4 --no-replicate --out $res/lib-aa.json
step ceilings 30 $T bench ceilings --out $res/ceilings.json
step calibrate 50 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
step seed000 200 $T bench --set seed000 --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 $cal --out $res/tetra-gemm-seed000.json
step midm 50 $T bench --shape 64x14336x4096,64x4096x14336,64x28672x8192,256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-midm.json
step w4a4-seed000 110 $T bench --set seed000 --a tetra-gemm-w4a4 --b cublaslt-bf16-tuned $cal --out $res/tetra-gemm-w4a4-seed000.json
step glm5 70 $T bench --set glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-glm5.json
echo "total $(el) s"; snap; rm -rf $OUT/r6
