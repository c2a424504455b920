#!/usr/bin/env bash
# session 10, call 3: main at $C_MAIN (gemvpdl merged, with the ptxVersion guard), sm_90a.
# 1. tetra tune's held-out score at 8192^3 and 8192x4096x14336 with AUTO and the table timed
#    inside the forward/backward passes (76fc3b0). Check: AUTO, the table (which runs the
#    rules: one tuning shape) and wgmma_t/256/0 within a few % of each other at 8192^3
#    (session 9, timed apart: 1434 / 1623 / 1526 us).
# 2. the whole ctest (GPU tests included, the A/A test excluded) and compute-sanitizer x3 on
#    gpu_gemv (the merged reduce-as-dependent launch and its new cases).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r3; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r3.tgz.tmp -C $OUT r3 2>/dev/null && mv $OUT/r3.tgz.tmp $OUT/r3.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S .scratch-main -B .scratch-main/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build .scratch-main/b -j16 >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build done at $(el) s: $(tail -1 $R/logs/build.log)"
export TETRA_COMMIT=$C_MAIN
echo "tune: .scratch-main/b/tetra tune --shape 1x3072x3072 --holdout-shape 8192x8192x8192,8192x4096x14336" >> $R/logs/commands.txt
timeout 230 stdbuf -oL .scratch-main/b/tetra tune --shape 1x3072x3072 --holdout-shape 8192x8192x8192,8192x4096x14336 --out $R/results/dispatch-table-1shape-8192.txt --json $R/results/tune-holdout-8192.json > $R/logs/tune-8192.log 2>&1
echo "== tune rc=$? at $(el) s"; cut -c1-200 $R/logs/tune-8192.log | grep -v "^\s*$" | tail -12; snap
lim=$(( $(left) - 10 )); echo "ctest + sanitizers with limit $lim s at $(el) s"
( cd .scratch-main/b && timeout $lim ctest -E aa --output-on-failure > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) &
for tool in memcheck racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 .scratch-main/b/tests/gpu_gemv > $R/logs/san-$tool-gemv.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-gemv.log ) &
done
wait; echo "ctest + sanitizers done at $(el) s"
for f in $R/logs/san-*.log; do printf "%s: %s %s\n" "$(basename $f .log)" "$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors' $f | tail -1)" "$(tail -1 $f)"; done
grep -E "tests passed|tests failed|\(Failed\)|Timeout" $R/logs/ctest.log; tail -1 $R/logs/ctest.log
echo "total $(el) s"; snap; rm -rf $OUT/r3
