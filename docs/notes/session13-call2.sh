#!/usr/bin/env bash
# Session 13 call 2 (run 60): v10.4 again with the test fixed (branch p4m 2c8af5f = main 3c211d8 +
# the v10.4 patch + pinned case 3 with a host global scale). Correctness runs all in parallel
# (hash b0 / b1 / b1 at 1 and 3 clusters, memcheck / racecheck / synccheck, racecheck at 2
# clusters), then the ABA b0 / b1 / b0 against tuned cuBLASLt BF16.
# Before the call: rm -rf .scratch-p4 && mkdir .scratch-p4 && git -C /work/wt-p4m archive HEAD | tar x -C .scratch-p4 && rm -rf .scratch-p4/docs/results
# Run: C_P4=2c8af5f BUDGET=560 bash docs/notes/session13-call2.sh
# Prediction (helper's, session 12): 4096^3 +3-5%, 2048x14336x4096 +4-5%, 8192^3 +2-3%,
# 1024x4096x4096 +-2%; refuted if b1 is no more than 0.025 above both b0 legs at 4096^3 and
# 2048x14336x4096.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r2; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 2>/dev/null && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
G=.scratch-p4
for v in 0 1; do
  ( cmake -S $G -B $G/b$v -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_GEMM_SS_PERSISTENT=$v > $R/logs/build-b$v.log 2>&1 &&
    cmake --build $G/b$v -j8 --target tetra_cli gpu_gemm >> $R/logs/build-b$v.log 2>&1; echo "rc=$?" >> $R/logs/build-b$v.log ) &
done; wait
echo "builds at $(el) s: $(tail -1 $R/logs/build-b0.log) $(tail -1 $R/logs/build-b1.log)"
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
( env TETRA_GEMM_TEST_HASH=1 $T timeout 240 $G/b0/tests/gpu_gemm > $R/logs/t-gemm-b0.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-b0.log ) &
( env TETRA_GEMM_TEST_HASH=1 $T timeout 240 $G/b1/tests/gpu_gemm > $R/logs/t-gemm-b1.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-b1.log ) &
for c in 1 3; do
  ( env TETRA_GEMM_SS_CLUSTERS=$c TETRA_GEMM_TEST_HASH=1 $T timeout 300 $G/b1/tests/gpu_gemm > $R/logs/t-gemm-b1-c$c.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-b1-c$c.log ) &
done
for tool in memcheck racecheck synccheck; do
  ( env TETRA_TEST_QUICK=1 $T timeout 300 compute-sanitizer --tool $tool --error-exitcode 99 $G/b1/tests/gpu_gemm > $R/logs/san-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool.log ) &
done
( env TETRA_GEMM_SS_CLUSTERS=2 TETRA_TEST_QUICK=1 $T timeout 300 compute-sanitizer --tool racecheck --error-exitcode 99 $G/b1/tests/gpu_gemm > $R/logs/san-racecheck-c2.log 2>&1; echo "rc=$?" >> $R/logs/san-racecheck-c2.log ) &
wait
echo "correctness at $(el) s"
for f in $R/logs/t-gemm-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed checks; $(tail -3 $f | tr '\n' ' ' | cut -c1-200)"; done
grep ' hash ' $R/logs/t-gemm-b0.log > $R/logs/h0
for x in b1 b1-c1 b1-c3; do echo "hash lines differing b0 vs $x: $(diff $R/logs/h0 <(grep ' hash ' $R/logs/t-gemm-$x.log) | grep -c '^[<>]') of $(wc -l < $R/logs/h0)"; done; snap
SH=1024x4096x4096,2048x14336x4096,4096x4096x4096,8192x8192x8192; export TETRA_COMMIT=$C_P4
for tag in p0a:b0 p1:b1 p0b:b0; do
  n=${tag%%:*}; d=${tag#*:}; l=$(( $(left) - 5 )); [ $l -lt 40 ] && { echo "$n SKIPPED"; continue; }; [ $l -gt 95 ] && l=95
  timeout $l $G/$d/tetra bench --shape $SH --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate --out $R/results/p4-$n.json > $R/logs/p4-$n.log 2>&1
  echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/p4-$n.log | cut -c1-150; snap
done
echo "total $(el) s"; snap; rm -rf $OUT/r2
