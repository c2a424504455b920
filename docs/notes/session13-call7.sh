#!/usr/bin/env bash
# Session 13 call 7 (run 65): v7.2 (branch v7prep, -DTETRA_GEMM_V7_PREP=1: idle producer warps
# pre-arrange v7's raw stages) against main (b0). Prediction: see gemm-sm90.md "v7.2" (the
# helper's, written before this run).
# Before the call: rm -rf .scratch-v7p && mkdir .scratch-v7p && git -C /work/wt-v7prep archive HEAD | tar x -C .scratch-v7p && rm -rf .scratch-v7p/docs/results
# Run: C_MAIN=<hash> C_V7P=<hash> BUDGET=265 bash docs/notes/session13-call7.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-265}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r7; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r7.tgz.tmp -C $OUT r7 2>/dev/null && mv $OUT/r7.tgz.tmp $OUT/r7.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { ( cmake -S $2 -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $3 > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j8 --target tetra_cli gpu_gemm >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log ) & }
bld b0 . ""; bld b1 .scratch-v7p "-DTETRA_GEMM_V7_PREP=1"; wait
echo "builds at $(el) s: b0 $(tail -1 $R/logs/build-b0.log) b1 $(tail -1 $R/logs/build-b1.log)"
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
for b in b0 b1; do
  ( env TETRA_GEMM_TEST_HASH=1 $T timeout 200 /tmp/$b/tests/gpu_gemm > $R/logs/t-gemm-$b.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-$b.log ) &
done
for tool in memcheck racecheck synccheck; do
  ( env TETRA_TEST_QUICK=1 $T timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/b1/tests/gpu_gemm > $R/logs/san-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool.log ) &
done
wait; echo "correctness at $(el) s"
for f in $R/logs/t-gemm-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed; $(tail -3 $f | tr '\n' ' ' | cut -c1-170)"; done
grep ' hash ' $R/logs/t-gemm-b0.log > $R/logs/h0
ND=$(diff $R/logs/h0 <(grep ' hash ' $R/logs/t-gemm-b1.log) | grep -c '^[<>]'); echo "hash lines differing b0 vs b1: $ND of $(wc -l < $R/logs/h0)"; snap
if grep -q "rc=0" $R/logs/t-gemm-b1.log && [ "$ND" = 0 ]; then
  SM=64x14336x4096,64x4096x14336,64x28672x8192,64x2048x6144,32x14336x4096
  for tag in v0a:b0:$C_MAIN v1:b1:$C_V7P v0b:b0:$C_MAIN; do
    IFS=: read n d c <<< "$tag"; l=$(( $(left) - 5 )); [ $l -lt 20 ] && { echo "$n SKIPPED"; continue; }; [ $l -gt 45 ] && l=45
    TETRA_COMMIT=$c timeout $l /tmp/$d/tetra bench --shape $SM --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
      --out $R/results/v7p-$n.json > $R/logs/v7p-$n.log 2>&1
    echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/v7p-$n.log | cut -c1-150; snap
  done
fi
echo "total $(el) s"; snap; rm -rf $OUT/r7
