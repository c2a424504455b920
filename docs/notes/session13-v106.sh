#!/usr/bin/env bash
# Session 13, helper v106 (v10.6: persistent v10.3 whose K loops stay v10.3's; docs/notes/gemm-sm90.md,
# "v10.6"): one tree, two builds (sm_90a only):
#   b0 = -DTETRA_GEMM_SS_PERSISTENT=0 (main's code, SASS identical), b1 = -DTETRA_GEMM_SS_PERSISTENT=1.
# PART=test: bits (every wgmma_t hash line of b1 equals b0's, at the default grid and at 1 and 3
#   clusters), memcheck / racecheck / synccheck (quick wgmma_t set) and racecheck at 2 clusters.
# PART=bench: ABA b0 / b1 / b0 against tuned cuBLASLt BF16, graph-timed (--graph-below-us 1000000).
# PART=all (default): both, the bench only if the bits are equal.
# Prediction (helper, before any device run; ratio = time against tuned cuBLASLt BF16, b1 minus the
# mean of the b0 legs): 4096x4096x1024 +0.035..+0.055, 8192x8192x1024 +0.055..+0.08 (v10.4: +0.034 /
# +0.056), 1024x4096x4096 0 +- 0.01 (one round, no walk), 4096^3 +0.01..+0.025, 8192^3 +0.005..+0.015.
# Refuted if 8192x8192x1024 gains < +0.04 or 4096x4096x1024 < +0.02 (not even v10.4's K = 1024 gain),
# or if b1 is not above both b0 legs at 4096^3 and at 8192^3 (the loop was not what cost v10.4 at
# K >= 4096).
# Run (from the branch checkout): BUDGET=560 PART=all bash docs/notes/session13-v106.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}; P=${PART:-all}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/v106; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/v106.tgz.tmp -C $OUT v106 2>/dev/null && mv $OUT/v106.tgz.tmp $OUT/v106.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
C=$(git rev-parse --short HEAD 2>/dev/null || echo v106)
for v in 0 1; do
  ( cmake -S . -B /tmp/b$v -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_GEMM_SS_PERSISTENT=$v > $R/logs/build-b$v.log 2>&1 &&
    cmake --build /tmp/b$v -j8 --target tetra_cli gpu_gemm >> $R/logs/build-b$v.log 2>&1; echo "rc=$?" >> $R/logs/build-b$v.log ) &
done; wait
echo "builds at $(el) s: b0 $(tail -1 $R/logs/build-b0.log) b1 $(tail -1 $R/logs/build-b1.log)"
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
OK=1
if [ $P != bench ]; then
  ( env TETRA_GEMM_TEST_HASH=1 $T timeout 240 /tmp/b0/tests/gpu_gemm > $R/logs/t-gemm-b0.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-b0.log ) &
  ( env TETRA_GEMM_TEST_HASH=1 $T timeout 240 /tmp/b1/tests/gpu_gemm > $R/logs/t-gemm-b1.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-b1.log ) &
  for c in 1 3; do
    ( env TETRA_GEMM_SS_CLUSTERS=$c TETRA_GEMM_TEST_HASH=1 $T timeout 300 /tmp/b1/tests/gpu_gemm > $R/logs/t-gemm-b1-c$c.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-b1-c$c.log ) &
  done
  for tool in memcheck racecheck synccheck; do
    ( env TETRA_TEST_QUICK=1 $T timeout 300 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/b1/tests/gpu_gemm > $R/logs/san-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool.log ) &
  done
  ( env TETRA_GEMM_SS_CLUSTERS=2 TETRA_TEST_QUICK=1 $T timeout 300 compute-sanitizer --tool racecheck --error-exitcode 99 /tmp/b1/tests/gpu_gemm > $R/logs/san-racecheck-c2.log 2>&1; echo "rc=$?" >> $R/logs/san-racecheck-c2.log ) &
  wait
  echo "correctness at $(el) s"
  for f in $R/logs/t-gemm-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed checks; $(tail -3 $f | tr '\n' ' ' | cut -c1-200)"; done
  grep ' hash ' $R/logs/t-gemm-b0.log > $R/logs/h0
  for x in b1 b1-c1 b1-c3; do
    n=$(diff $R/logs/h0 <(grep ' hash ' $R/logs/t-gemm-$x.log) | grep -c '^[<>]')
    echo "hash lines differing b0 vs $x: $n of $(wc -l < $R/logs/h0)"; [ $n = 0 ] || OK=0
    grep -q "rc=0" $R/logs/t-gemm-$x.log || OK=0
  done
  [ -s $R/logs/h0 ] || OK=0
  echo "OK=$OK"; snap
fi
SH=4096x4096x1024,8192x8192x1024,1024x4096x4096,4096x4096x4096,8192x8192x8192; export TETRA_COMMIT=$C
if [ $P != test ] && [ $OK = 1 ]; then
  for tag in b0a:b0 b1:b1 b0b:b0; do
    n=${tag%%:*}; d=${tag#*:}; l=$(( $(left) - 5 )); [ $l -lt 40 ] && { echo "$n SKIPPED"; continue; }; [ $l -gt 170 ] && l=170
    timeout $l /tmp/$d/tetra bench --shape $SH --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
      --graph-below-us 1000000 --out $R/results/v106-$n.json > $R/logs/v106-$n.log 2>&1
    echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/v106-$n.log | cut -c1-150; snap
  done
fi
echo "total $(el) s"; snap; rm -rf $OUT/v106
