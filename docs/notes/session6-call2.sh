#!/usr/bin/env bash
# session 6, call 2: correctness of main at $C_MAIN (.scratch-main): build everything; ctest
# (without the A/A timing test) and compute-sanitizer x3 x every GPU test, all at once; the
# output hashes of gpu_gemm / gpu_gemv / gpu_attention (compared offline with call 1's and
# with .scratch-hb = main before the attention change, built with the new attention test
# file); then gpu_bench_aa alone on an idle GPU.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-570}
el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/r2; mkdir -p $R/logs
snap() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 2>/dev/null && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
export TETRA_COMMIT=$C_MAIN
M=.scratch-main; BD=$M/build-device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S .scratch-hb -B .scratch-hb/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-hb.log 2>&1 && cmake --build .scratch-hb/b -j4 --target gpu_attention >> $R/logs/build-hb.log 2>&1; echo "rc=$?" >> $R/logs/build-hb.log ) &
hbp=$!
cmake -S $M -B $BD -DCMAKE_BUILD_TYPE=Release > $R/logs/build.log 2>&1 && cmake --build $BD -j16 >> $R/logs/build.log 2>&1; brc=$?
echo "build rc=$brc at $(el) s"; tail -2 $R/logs/build.log
SL=${SAN_LIMIT:-470}
pids=()
( cd $BD && stdbuf -oL timeout $SL ctest -j4 -E gpu_bench_aa --output-on-failure --output-junit ctest.xml > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) & pids+=($!)
for tool in memcheck racecheck synccheck; do
  for t in $BD/tests/gpu_*; do
    n=$(basename $t); [ $n = gpu_bench_aa ] && continue
    ( TETRA_TEST_QUICK=1 timeout $SL compute-sanitizer --tool $tool --error-exitcode 99 $t > $R/logs/san-$tool-$n.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-$n.log ) & pids+=($!)
  done
done
wait $hbp; echo "hb build $(tail -1 $R/logs/build-hb.log) at $(el) s"
for p in "gemm:TETRA_GEMM_TEST_HASH:$BD/tests/gpu_gemm" "gemv:TETRA_GEMV_TEST_HASH:$BD/tests/gpu_gemv" "attn:TETRA_ATTN_TEST_HASH:$BD/tests/gpu_attention" "attn-hb:TETRA_ATTN_TEST_HASH:.scratch-hb/b/tests/gpu_attention"; do
  IFS=: read n v b <<< "$p"
  ( env $v=1 stdbuf -oL timeout $SL $b > $R/logs/hash-$n.log 2>&1; echo "rc=$?" >> $R/logs/hash-$n.log ) & pids+=($!)
done
wait "${pids[@]}"; echo "correctness done at $(el) s"; snap
cp $BD/ctest.xml $R/logs/ 2>/dev/null
grep -E "tests passed|tests failed|\(Failed\)|Not Run|Timeout" $R/logs/ctest.log | head; tail -1 $R/logs/ctest.log
for f in $R/logs/san-*.log; do printf "%s: %s %s\n" "$(basename $f .log)" "$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors' $f | tail -1)" "$(tail -1 $f)"; done
for f in $R/logs/hash-*.log; do echo "$(basename $f .log): $(grep -c hash $f) hash lines, $(grep -c FAIL $f) FAIL, $(tail -1 $f)"; done
echo "attn hash lines of hb missing in main: $(LC_ALL=C comm -23 <(grep hash $R/logs/hash-attn-hb.log | LC_ALL=C sort) <(grep hash $R/logs/hash-attn.log | LC_ALL=C sort) | wc -l)"
snap
l=$(( B - $(el) - 5 )); [ $l -gt 20 ] && { ( stdbuf -oL timeout $l $BD/tests/gpu_bench_aa > $R/logs/gpu_bench_aa.log 2>&1; echo "rc=$?" >> $R/logs/gpu_bench_aa.log ); echo "gpu_bench_aa $(tail -1 $R/logs/gpu_bench_aa.log) at $(el) s"; tail -4 $R/logs/gpu_bench_aa.log; }
echo "total $(el) s"; snap; rm -rf $OUT/r2
