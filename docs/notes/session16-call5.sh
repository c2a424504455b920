#!/usr/bin/env bash
# Session 16, device call 5 (run 80): the cluster-K AUTO rule refitted on run 79 (nseg / P >= 12
# or <= 3 CTAs per SM). Run: C_MAIN=<hash> BUDGET=190 bash docs/notes/session16-call5.sh
# Predictions: gpu_gemv (AUTO) and gpu_gemv_ck pass. A/B main (AUTO) against build-ck0
# (cluster-K off), B/A time: rows the refit leaves to the ordinary kernels (1x14336x4096,
# 16x14336x4096, 1x7168x2048x4) within 0.01 of 1; controls as run 79 (1x768x6144 ~1.17,
# 16x28672x8192 ~1.08).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-190}
el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/r80; mkdir -p $R/logs $R/results
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { cmake -S . -B $1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $2 > $R/logs/build-$1.log 2>&1 &&
  cmake --build $1 -j8 --target tetra_cli tetra_shared gpu_gemv >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log; }
bld build-main "" & bld build-ck0 -DTETRA_GEMV_CLUSTER_K=0 & wait
echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
timeout 100 ctest --test-dir build-main -R 'gpu_gemv$|gpu_gemv_ck' -j2 --output-on-failure > $R/logs/ctest-gemv.log 2>&1; echo "ctest rc=$? at $(el) s"
grep -E "tests passed|Failed" $R/logs/ctest-gemv.log
# cluster residency per S (run 78's candidate for the S = 4 / 512-CTA loss: fewer than 128
# resident 4-CTA clusters would make a second wave); printed by gpu_gemv since 2e5b3b6+
TETRA_GEMV_TEST_ONLY=ck timeout 60 build-main/tests/gpu_gemv > $R/logs/gemv-ck-only.log 2>&1; grep -E "mode|resident|checks passed" $R/logs/gemv-ck-only.log
export TETRA_COMMIT=$C_MAIN
timeout $(( B - $(el) - 5 )) build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-b build-ck0/libtetra.so --shape 1x14336x4096,16x14336x4096,1x7168x2048x4,1x768x6144,16x28672x8192 --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/ck-refit-ab.json > $R/logs/ck-refit-ab.log 2>&1
echo "bench rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/ck-refit-ab.log | cut -c1-150
tar czf $OUT/r80.tgz -C $OUT r80; rm -rf $OUT/r80
