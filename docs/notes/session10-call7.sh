#!/usr/bin/env bash
# session 10, call 7: main at $C_MAIN (aad7353: host-only clean-ups of tune's slot loop and the
# GEMV's dependent-launch condition). gpu_gemv with hashes and tune with one held-out shape.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
R=$OUT/r7; mkdir -p $R
( cmake -S .scratch-main -B .scratch-main/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/build.log 2>&1 &&
  cmake --build .scratch-main/b -j16 --target tetra_cli gpu_gemv >> $R/build.log 2>&1; echo "rc=$?" >> $R/build.log ); tail -1 $R/build.log
TETRA_GEMV_TEST_HASH=1 timeout 120 .scratch-main/b/tests/gpu_gemv > $R/gpu_gemv.log 2>&1; echo "gpu_gemv rc=$?"; tail -1 $R/gpu_gemv.log
TETRA_COMMIT=$C_MAIN timeout 120 .scratch-main/b/tetra tune --shape 1x3072x3072 --holdout-shape 4x4096x4096 --out $R/table.txt --json $R/tune.json > $R/tune.log 2>&1; echo "tune rc=$?"; tail -4 $R/tune.log | cut -c1-200
