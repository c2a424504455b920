#!/usr/bin/env bash
# session 8, call 4: W4A4 GEMV through the staging pass + programmatic dependent launch
# (r14-w4a4, $C_W4) against main ($C_MAIN) in cross-build ABA (prepared and standard weights);
# tetra tune's held-out score of the launchers' rules at main (glm5-tp8, moe); ctest at main;
# the W4A4 branch's GEMV / format tests with hashes and compute-sanitizer x3.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-400}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r4; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r4.tgz.tmp -C $OUT r4 2>/dev/null && mv $OUT/r4.tgz.tmp $OUT/r4.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local t=$1 j=$2; shift 2
  ( cmake -S .scratch-$t -B .scratch-$t/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-$t.log 2>&1 &&
    cmake --build .scratch-$t/b -j$j ${1:+--target "$@"} >> $R/logs/build-$t.log 2>&1; echo "rc=$?" >> $R/logs/build-$t.log ) & }
bld main 10
bld w4 6 tetra_cli gpu_gemv gpu_format gpu_nonfinite gpu_interleaved
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
declare -A C=([main]=$C_MAIN [w4]=$C_W4)
ab() { local tag=$1 t=$2 lim=$3; shift 3
  [ $(left) -lt $(( lim + 200 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  echo "$tag: .scratch-$t/b/tetra bench $*" >> $R/logs/commands.txt
  TETRA_COMMIT=${C[$t]} stdbuf -oL timeout $lim .scratch-$t/b/tetra bench "$@" --no-replicate --out $R/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
WS=1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384,8x28672x8192,16x28672x8192
i=0; for t in main w4 main; do i=$((i+1)); ab wi$i-$t $t 30 --shape $WS --a tetra-gemm-w4a4-interleaved --b tetra-gemm-gemv-interleaved,tetra-gemm-w4a4-full-interleaved --graph-below-us 400 --blocks 6; done
i=0; for t in main w4; do i=$((i+1)); ab ws$i-$t $t 25 --shape 1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384 --a tetra-gemm-w4a4 --b tetra-gemm --graph-below-us 400 --blocks 6; done
lim=$(( $(left) - 150 )); [ $lim -gt 230 ] && lim=230
if [ $lim -gt 60 ]; then
  echo "tune: .scratch-main/b/tetra tune --shape 1x3072x3072 --holdout-set glm5-tp8,moe" >> $R/logs/commands.txt
  TETRA_COMMIT=$C_MAIN stdbuf -oL timeout $lim .scratch-main/b/tetra tune --shape 1x3072x3072 --holdout-set glm5-tp8,moe --out $R/results/dispatch-table-1shape.txt --json $R/results/tune-holdout.json > $R/logs/tune.log 2>&1
  echo "tune rc=$? at $(el) s"; tail -5 $R/logs/tune.log | cut -c1-220; snap
fi
lim=$(( $(left) - 5 )); echo "correctness with limit $lim s at $(el) s"
( cd .scratch-main/b && timeout $lim ctest -E 'aa' --output-on-failure > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) &
for t in gpu_gemv gpu_format; do for tool in memcheck racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 .scratch-w4/b/tests/$t > $R/logs/san-$tool-$t.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-$t.log ) &
done; done
for t in main w4; do ( TETRA_GEMV_TEST_HASH=1 timeout $lim .scratch-$t/b/tests/gpu_gemv > $R/logs/hash-gemv-$t.log 2>&1; echo "rc=$?" >> $R/logs/hash-gemv-$t.log ) & done
for t in gpu_nonfinite gpu_interleaved; do ( timeout $lim .scratch-w4/b/tests/$t > $R/logs/w4-$t.log 2>&1; echo "rc=$?" >> $R/logs/w4-$t.log ) & done
wait; echo "correctness done at $(el) s"; snap
grep -E "tests passed|tests failed|\(Failed\)|Timeout" $R/logs/ctest.log | head; tail -1 $R/logs/ctest.log
for f in $R/logs/san-*.log; do printf "%s: %s %s\n" "$(basename $f .log)" "$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors' $f | tail -1)" "$(tail -1 $f)"; done
for f in $R/logs/hash-*.log $R/logs/w4-*.log; do echo "$(basename $f .log): $(grep -c hash $f) hash lines, $(grep -c FAIL $f) FAIL, $(tail -2 $f | tr '\n' ' ')"; done
echo "gemv hash lines of main not in w4: $(LC_ALL=C comm -23 <(grep -E 'i?hash' $R/logs/hash-gemv-main.log | LC_ALL=C sort) <(grep -E 'i?hash' $R/logs/hash-gemv-w4.log | LC_ALL=C sort) | wc -l)"
LC_ALL=C comm -23 <(grep -E 'i?hash' $R/logs/hash-gemv-main.log | LC_ALL=C sort) <(grep -E 'i?hash' $R/logs/hash-gemv-w4.log | LC_ALL=C sort) | cut -c1-120 | head -5
echo "total $(el) s"; snap; rm -rf $OUT/r4
