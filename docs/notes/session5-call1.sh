#!/usr/bin/env bash
# session 5, call 1: main (.scratch-base, + cand7's gpu_attention.c for hashes) vs cand7
# (.scratch-c7 = main + n6clu4 + n6smallm + n6attn). Tests, hash identity, cross-tree A/B
# (cuBLAS / cuDNN as the common yardstick in each binary), then calibrated sweeps on the winner.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-520}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r; mkdir -p $R
snap() { tar czf $OUT/r.tgz.tmp -C $OUT r 2>/dev/null && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/gpu.txt 2>&1
# ---- 0: builds
for c in base c7; do
  ( cmake -S .scratch-$c -B .scratch-$c/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/build-$c.log 2>&1 &&
    cmake --build .scratch-$c/b -j8 --target gpu_gemm gpu_nonfinite gpu_attention tetra_cli >> $R/build-$c.log 2>&1; echo "rc=$?" >> $R/build-$c.log ) &
done
wait; echo "builds done at $(el) s"; for c in base c7; do echo "$c $(tail -1 $R/build-$c.log)"; done; snap
# ---- 1: focused tests (hashes) in both trees, concurrently
pids=()
for c in base c7; do
  ( TETRA_GEMM_TEST_ONLY=wgmma_t TETRA_GEMM_TEST_HASH=1 stdbuf -oL timeout 150 .scratch-$c/b/tests/gpu_gemm > $R/gemm-$c.log 2>&1; echo "rc=$?" >> $R/gemm-$c.log ) & pids+=($!)
  ( TETRA_ATTN_TEST_HASH=1 stdbuf -oL timeout 150 .scratch-$c/b/tests/gpu_attention > $R/attn-$c.log 2>&1; echo "rc=$?" >> $R/attn-$c.log ) & pids+=($!)
done
( stdbuf -oL timeout 60 .scratch-c7/b/tests/gpu_nonfinite > $R/nonfinite-c7.log 2>&1; echo "rc=$?" >> $R/nonfinite-c7.log ) & pids+=($!)
wait "${pids[@]}"; echo "tests done at $(el) s"
for f in $R/gemm-*.log $R/attn-*.log $R/nonfinite-c7.log; do echo "$(basename $f): $(grep -Eo 'all checks passed' $f | head -1) $(grep -c FAIL $f) FAIL; $(tail -1 $f)"; done
grep '^  hash' $R/gemm-base.log > $R/hg-base.txt; grep '^  hash' $R/gemm-c7.log | grep -v ' clu[124] ' > $R/hg-c7.txt
echo "gemm hash lines: base $(wc -l < $R/hg-base.txt), c7 $(wc -l < $R/hg-c7.txt); base lines missing in c7: $(grep -cvxFf $R/hg-c7.txt $R/hg-base.txt)"
grep -c 'bit-identical to cluster 2: yes' $R/gemm-c7.log
grep 'hash' $R/attn-base.log > $R/ha-base.txt; grep 'hash' $R/attn-c7.log > $R/ha-c7.txt
echo "attn hash lines: base $(wc -l < $R/ha-base.txt), c7 $(wc -l < $R/ha-c7.txt); diff lines: $(diff $R/ha-base.txt $R/ha-c7.txt | grep -c '^[<>]')"
snap
# ---- 2: cross-tree A/B (same commands in both binaries; the yardstick arm is the same code)
GS="4096x4096x4096,2048x14336x4096,1024x4096x4096,256x14336x4096,64x14336x4096,64x4096x14336,128x7168x16384,128x4096x7168,128x7168x2048"
for c in base c7; do
  timeout 90 .scratch-$c/b/tetra bench --shape $GS --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6 --no-replicate --out $R/abg-$c.json > $R/abg-$c.log 2>&1
  echo "== gemm A/B $c at $(el) s"; grep -E "^[0-9]+x" $R/abg-$c.log | cut -c1-140
done
for c in base c7; do
  timeout 60 .scratch-$c/b/tetra bench --shape 2048x16x64x2,2048x16x128x2,8192x16x64x2,8192x16x128x2 --a tetra-attention --b cudnn-sdpa --blocks 8 --no-replicate --out $R/aba-$c.json > $R/aba-$c.log 2>&1
  echo "== attn A/B $c at $(el) s"; grep -E "^[0-9]+x" $R/aba-$c.log | cut -c1-140
done
timeout 40 .scratch-c7/b/tetra bench --shape 2048x16x64x2,8192x16x64x2 --a tetra-attention --b tetra-attention-rows192 --blocks 8 --no-replicate > $R/ab-rows192-c7.log 2>&1
grep -E "^[0-9]+x" $R/ab-rows192-c7.log | cut -c1-140
snap
# ---- 3: calibrated sweeps on WIN (default c7 if its tests passed)
W=${WIN:-c7}
okc7() { grep -q 'all checks passed' $R/gemm-c7.log && grep -q 'all checks passed' $R/attn-c7.log && grep -q 'rc=0' $R/nonfinite-c7.log; }
okc7 || W=base; echo "SWEEPS ON $W"; echo $W > $R/winner.txt
T=.scratch-$W/b/tetra; res=$R/results; mkdir -p $res
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  stdbuf -oL timeout $limit "$@" > $res/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $res/$name.log | cut -c1-160; }
step ceilings 25 $T bench ceilings --out $res/ceilings.json
step calibrate 45 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
step prefill 150 $T bench --set seed000 --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 $cal --out $res/tetra-gemm-prefill.json
step midm 45 $T bench --shape 64x14336x4096,64x4096x14336,64x28672x8192,256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-midm.json
step glm5 30 $T bench --set glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-glm5.json
step gpumode 25 $T bench --shape 128x7168x16384,128x4096x7168,128x7168x2048 --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 --graph-below-us 400 $cal --out $res/tetra-gemm-gpumode-prefill.json
step w4a4 50 $T bench --shape 1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336 --a tetra-gemm-w4a4 --b cublaslt-bf16-tuned,tetra-gemm $cal --out $res/tetra-gemm-w4a4-prefill.json
step batchinv 40 $T bench --a tetra-gemm-batchinv --b tetra-gemm --graph-below-us 400 --shape 1x4096x4096,16x4096x4096,64x14336x4096,128x7168x16384,1024x4096x4096,4096x4096x4096 $cal --out $res/tetra-gemm-batchinv.json
echo "total $(el) s"; snap; rm -rf $OUT/r
