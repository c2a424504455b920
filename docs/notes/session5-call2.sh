#!/usr/bin/env bash
# session 5, call 2: main (.scratch-base) vs n7gemv (.scratch-gv, + b8/b256 switch builds)
# vs n7smallm (.scratch-sm). Tests, then cross-build A/B (cuBLAS as yardstick in each binary).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-470}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r2; mkdir -p $R
snap() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 2>/dev/null && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
declare -A C=([base]=$C_BASE [gv]=$C_GV [sm]=$C_SM)
( cmake -S .scratch-base -B .scratch-base/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/build-base.log 2>&1 &&
  cmake --build .scratch-base/b -j4 --target gpu_gemm gpu_gemv tetra_cli >> $R/build-base.log 2>&1; echo "rc=$?" >> $R/build-base.log ) &
( cmake -S .scratch-gv -B .scratch-gv/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/build-gv.log 2>&1 &&
  cmake --build .scratch-gv/b -j4 --target gpu_gemm gpu_gemv tetra_cli >> $R/build-gv.log 2>&1; echo "rc=$?" >> $R/build-gv.log ) &
( cmake -S .scratch-gv -B .scratch-gv/b8 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_CUDA_FLAGS=-DTETRA_GEMV_LAST_CTA_MAX_SPLITS=8 > $R/build-gv8.log 2>&1 &&
  cmake --build .scratch-gv/b8 -j3 --target tetra_cli >> $R/build-gv8.log 2>&1; echo "rc=$?" >> $R/build-gv8.log ) &
( cmake -S .scratch-gv -B .scratch-gv/b256 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_CUDA_FLAGS=-DTETRA_GEMV_L2_256B=1 > $R/build-gv256.log 2>&1 &&
  cmake --build .scratch-gv/b256 -j3 --target tetra_cli >> $R/build-gv256.log 2>&1; echo "rc=$?" >> $R/build-gv256.log ) &
( cmake -S .scratch-sm -B .scratch-sm/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/build-sm.log 2>&1 &&
  cmake --build .scratch-sm/b -j3 --target gpu_gemm gpu_nonfinite tetra_cli >> $R/build-sm.log 2>&1; echo "rc=$?" >> $R/build-sm.log ) &
wait; echo "builds done at $(el) s"; for f in $R/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
# ---- tests
pids=()
( stdbuf -oL timeout 170 .scratch-gv/b/tests/gpu_gemv > $R/gemv-gv.log 2>&1; echo "rc=$?" >> $R/gemv-gv.log ) & pids+=($!)
( TETRA_TEST_QUICK=1 stdbuf -oL timeout 170 .scratch-gv/b/tests/gpu_gemm > $R/gemm-gv.log 2>&1; echo "rc=$?" >> $R/gemm-gv.log ) & pids+=($!)
( TETRA_GEMM_TEST_ONLY=wgmma_t TETRA_GEMM_TEST_HASH=1 stdbuf -oL timeout 170 .scratch-sm/b/tests/gpu_gemm > $R/gemm-sm.log 2>&1; echo "rc=$?" >> $R/gemm-sm.log ) & pids+=($!)
( TETRA_GEMM_TEST_ONLY=wgmma_t TETRA_GEMM_TEST_HASH=1 stdbuf -oL timeout 170 .scratch-base/b/tests/gpu_gemm > $R/gemm-base.log 2>&1; echo "rc=$?" >> $R/gemm-base.log ) & pids+=($!)
( stdbuf -oL timeout 60 .scratch-sm/b/tests/gpu_nonfinite > $R/nonfinite-sm.log 2>&1; echo "rc=$?" >> $R/nonfinite-sm.log ) & pids+=($!)
wait "${pids[@]}"; echo "tests done at $(el) s"
for f in $R/gemv-gv.log $R/gemm-*.log $R/nonfinite-sm.log; do echo "$(basename $f): $(grep -Eo 'all checks passed' $f | head -1) $(grep -c FAIL $f) FAIL; $(tail -1 $f)"; done
grep FAIL $R/gemv-gv.log | head -5
grep '^  hash' $R/gemm-base.log > $R/hg-base.txt; grep '^  hash' $R/gemm-sm.log > $R/hg-sm.txt
echo "gemm hash: base $(wc -l < $R/hg-base.txt), sm $(wc -l < $R/hg-sm.txt); base lines missing in sm: $(grep -cvxFf $R/hg-sm.txt $R/hg-base.txt)"
snap
okgv() { grep -q 'all checks passed' $R/gemv-gv.log; }
# ---- GEMV A/B (decode + gpumode + small shapes), base and gv; switch builds on their shapes
SM="1x4096x4096,8x4096x4096,16x4096x4096,1x2048x6144,16x2048x6144,1x768x6144,16x768x6144,1x4096x2048,16x4096x2048"
for c in base gv; do
  [ $c = gv ] && ! okgv && { echo "gv failed its test: not benched"; continue; }
  TETRA_COMMIT=${C[$c]} timeout 100 .scratch-$c/b/tetra bench --set decode,gpumode --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6 --no-replicate --out $R/abd-$c.json > $R/abd-$c.log 2>&1
  echo "== decode A/B $c at $(el) s"; grep -E "^[0-9]+x" $R/abd-$c.log | cut -c1-130; snap
  TETRA_COMMIT=${C[$c]} timeout 60 .scratch-$c/b/tetra bench --shape $SM --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6 --no-replicate --out $R/abs-$c.json > $R/abs-$c.log 2>&1
  echo "== small A/B $c at $(el) s"; grep -E "^[0-9]+x" $R/abs-$c.log | cut -c1-130; snap
done
if okgv; then
  TETRA_COMMIT=$C_GV-b8 timeout 40 .scratch-gv/b8/tetra bench --shape 1x4096x4096,1x768x6144,16x768x6144 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6 --no-replicate --out $R/ab-gv8.json > $R/ab-gv8.log 2>&1
  grep -E "^[0-9]+x" $R/ab-gv8.log | cut -c1-130
  TETRA_COMMIT=$C_GV-b256 timeout 40 .scratch-gv/b256/tetra bench --shape 1x28672x8192,1x14336x4096 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6 --no-replicate --out $R/ab-gv256.json > $R/ab-gv256.log 2>&1
  grep -E "^[0-9]+x" $R/ab-gv256.log | cut -c1-130
  TETRA_COMMIT=$C_GV timeout 40 .scratch-gv/b/tetra bench --shape 1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384 --a tetra-gemm-w4a4 --b tetra-gemm --graph-below-us 400 --blocks 6 --no-replicate --out $R/ab-gv-w4a4.json > $R/ab-gv-w4a4.log 2>&1
  grep -E "^[0-9]+x" $R/ab-gv-w4a4.log | cut -c1-130
fi
snap
# ---- GEMM A/B: base vs sm
GS="128x7168x16384,128x7168x2048,64x4096x14336,128x4096x7168,64x14336x4096,1024x4096x4096,256x768x6144,1024x768x6144,64x2048x6144"
for c in base sm; do
  TETRA_COMMIT=${C[$c]} timeout 70 .scratch-$c/b/tetra bench --shape $GS --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6 --no-replicate --out $R/abg-$c.json > $R/abg-$c.log 2>&1
  echo "== gemm A/B $c at $(el) s"; grep -E "^[0-9]+x" $R/abg-$c.log | cut -c1-130; snap
done
echo "total $(el) s"; snap; rm -rf $OUT/r2
