#!/usr/bin/env bash
# Session 14, device call 2 (run 67): v10.6 as merged (working tree: TETRA_GEMM_SS_PERSISTENT
# default 1, consumers bar.sync on the W-ring handover, persistent only with more units than
# clusters) against the same tree built with TETRA_GEMM_SS_PERSISTENT=0 (v10.3 only).
# Predictions (written before the run): racecheck with 2 clusters forced: 0 hazards (run 66's
# 76 came from bar.arrive, which racecheck does not treat as ordering); hash lines equal to b0's
# at clusters 1 / 3 / default; eager ratio change p - b0: 4096x4096x1024 +0.04-0.06,
# 8192x8192x1024 +0.05-0.07, 4096^3 +0.005-0.02, 2048x14336x4096 +0.005-0.02,
# 4096x4096x14336 and 8192x4096x14336 0-+0.01.
# Run: C_P=<hash> BUDGET=560 bash docs/notes/session14-call2.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/n2; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/n2.tgz.tmp -C $OUT n2 2>/dev/null && mv $OUT/n2.tgz.tmp $OUT/n2.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B /tmp/p -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-p.log 2>&1 &&
  cmake --build /tmp/p -j10 >> $R/logs/build-p.log 2>&1; echo "rc=$?" >> $R/logs/build-p.log ) &
( cmake -S . -B /tmp/b0 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_GEMM_SS_PERSISTENT=0 > $R/logs/build-b0.log 2>&1 &&
  cmake --build /tmp/b0 -j6 --target tetra_cli gpu_gemm >> $R/logs/build-b0.log 2>&1; echo "rc=$?" >> $R/logs/build-b0.log ) &
wait; echo "builds at $(el) s: p $(tail -1 $R/logs/build-p.log) b0 $(tail -1 $R/logs/build-b0.log)"
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
tg() { ( env TETRA_GEMM_TEST_HASH=1 $T $2 timeout 280 /tmp/$1/tests/gpu_gemm > $R/logs/t-gemm-$3.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-$3.log ) & }
tg b0 "" b0; tg p "" p; tg p TETRA_GEMM_SS_CLUSTERS=1 p-c1; tg p TETRA_GEMM_SS_CLUSTERS=3 p-c3
san() { ( env TETRA_TEST_QUICK=1 $T $2 timeout 300 compute-sanitizer --tool $1 --error-exitcode 99 /tmp/p/tests/gpu_gemm > $R/logs/san-$3.log 2>&1; echo "rc=$?" >> $R/logs/san-$3.log ) & }
for tool in memcheck racecheck synccheck; do san $tool TETRA_GEMM_SS_CLUSTERS=2 $tool-c2; done
san racecheck "" racecheck
wait; echo "correctness at $(el) s"
( cd /tmp/p && timeout 240 ctest --output-on-failure -E gpu_bench_aa > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log )
echo "ctest at $(el) s: $(grep -E 'tests passed|tests failed' $R/logs/ctest.log) $(tail -1 $R/logs/ctest.log)"
for f in $R/logs/t-gemm-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed; $(tail -3 $f | tr '\n' ' ' | cut -c1-160)"; done
grep ' hash ' $R/logs/t-gemm-b0.log > $R/logs/h0
OK=1
for x in p p-c1 p-c3; do
  nd=$(diff $R/logs/h0 <(grep ' hash ' $R/logs/t-gemm-$x.log) | grep -c '^[<>]'); echo "hash lines differing b0 vs $x: $nd of $(wc -l < $R/logs/h0)"
  { grep -q "rc=0" $R/logs/t-gemm-$x.log && [ "$nd" = 0 ]; } || OK=0
done; echo "OK=$OK"; snap
bench() { # tag build shapes
  local l=$(( $(left) - 5 )); [ $l -lt 25 ] && { echo "$1 SKIPPED"; return; }; [ $l -gt 110 ] && l=110
  TETRA_COMMIT=$C_P timeout $l /tmp/$2/tetra bench --shape $3 --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
    --out $R/results/$1.json > $R/logs/$1.log 2>&1
  echo "== $1 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$1.log | cut -c1-150; snap; }
S=4096x4096x1024,8192x8192x1024,4096x4096x4096,2048x14336x4096,4096x4096x14336,8192x4096x14336
if [ $OK = 1 ]; then bench e-b0a b0 $S; bench e-p p $S; bench e-b0b b0 $S; fi
echo "total $(el) s"; snap; rm -rf $OUT/n2
