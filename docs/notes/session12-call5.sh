#!/usr/bin/env bash
# session 12, call 5 (device run 56), tree = branch v103 $C_CAND. Builds: v3 (plain v10.3),
# lf (TETRA_GEMM_SS_LATE_FENCE=1), lf533 (+ ring split 5/3/3). Tests of lf (hashes against v3,
# racecheck, synccheck), then ABA v3 / lf / lf533 / v3.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-330}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r5; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r5.tgz.tmp -C $OUT r5 2>/dev/null && mv $OUT/r5.tgz.tmp $OUT/r5.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local name=$1 flags=$2; shift 2
  ( cmake -S . -B build-$name -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=$flags" > $R/logs/build-$name.log 2>&1 &&
    cmake --build build-$name -j5 --target "$@" >> $R/logs/build-$name.log 2>&1; echo "rc=$?" >> $R/logs/build-$name.log ) & }
bld v3 "" tetra_cli gpu_gemm
bld lf "-DTETRA_GEMM_SS_LATE_FENCE=1" tetra_cli gpu_gemm
bld lf533 "-DTETRA_GEMM_SS_LATE_FENCE=1 -DTETRA_GEMM_SS_SA=5 -DTETRA_GEMM_SS_SW=3 -DTETRA_GEMM_SS_SR=3" tetra_cli
wait
for n in v3 lf lf533; do echo "build $n: $(tail -1 $R/logs/build-$n.log)"; done; echo "builds at $(el) s"
for n in v3 lf; do
  ( TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 build-$n/tests/gpu_gemm > $R/logs/t-gemm-$n.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-$n.log ) &
done
for tool in racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 build-lf/tests/gpu_gemm > $R/logs/san-lf-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-lf-$tool.log ) &
done; wait
echo "tests done at $(el) s"
for f in $R/logs/t-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -ci 'fail' $f) fail lines; $(tail -2 $f | tr '\n' ' ')"; done
echo "hash lines differing v3 vs lf: $(diff <(grep ' hash ' $R/logs/t-gemm-v3.log) <(grep ' hash ' $R/logs/t-gemm-lf.log) | grep -c '^[<>]') of $(grep -c ' hash ' $R/logs/t-gemm-v3.log)"; snap
export TETRA_COMMIT=$C_CAND
SHB=2048x14336x4096,4096x4096x4096
for tag in a1:v3 f:lf g:lf533 a2:v3; do
  n=${tag%%:*}; d=${tag#*:}; l=$(( $(left) - 5 )); [ $l -lt 30 ] && { echo "$n SKIPPED"; continue; }; [ $l -gt 60 ] && l=60
  echo "$n: build-$d/tetra bench --shape $SHB --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate" >> $R/logs/commands.txt
  timeout $l build-$d/tetra bench --shape $SHB --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate --out $R/results/lf-$n.json > $R/logs/lf-$n.log 2>&1
  echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/lf-$n.log | cut -c1-150; snap
done
echo "total $(el) s"; snap; rm -rf $OUT/r5
