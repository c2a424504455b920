#!/usr/bin/env bash
# session 9, call 1 (draft written in session 8): branch n13skinny (merged with main 70f0114+) as
# .scratch-sk, main as .scratch-main. Builds: main (tetra_cli gpu_gemv), sk (all), skc (sk with
# -DTETRA_SKINNY_CLUSTER=1: tetra_cli gpu_skinny). Then: gpu_skinny (hashes, both builds, the
# hash lines must be equal), gpu_gemv hashes sk vs main (the gemv_warp.cuh move), P0 probe,
# the skinny bench (M = 64 and glm5 shapes) against cuBLAS and tetra-gemm in both builds,
# compute-sanitizer x3 on gpu_skinny (both builds), ctest on sk.
# Session 9 final: sk = n13skinny 5f3b892 (main 1df1de0 and n14gemv merged). Build skr = sk with
# -DTETRA_GEMV_REFILL_BEFORE_WAIT=1 (tetra_cli gpu_gemv): gemv hashes vs main, cross-build ABA
# sk / skr / sk (gemv-interleaved vs tetra-gemm), sanitizers x3 on skr's gpu_gemv.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r1; mkdir -p $R/logs
snap() { tar czf $OUT/r1.tgz.tmp -C $OUT r1 2>/dev/null && mv $OUT/r1.tgz.tmp $OUT/r1.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local t=$1 d=$2 fl=$3 j=$4; shift 4
  ( cmake -S .scratch-$t -B .scratch-$t/$d -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a ${fl:+"-DCMAKE_CUDA_FLAGS=$fl"} > $R/logs/build-$t-$d.log 2>&1 &&
    cmake --build .scratch-$t/$d -j$j ${1:+--target "$@"} >> $R/logs/build-$t-$d.log 2>&1; echo "rc=$?" >> $R/logs/build-$t-$d.log ) & }
bld main b "" 4 tetra_cli gpu_gemv
bld sk b "" 8
bld sk bc "-DTETRA_SKINNY_CLUSTER=1" 4 tetra_cli gpu_skinny
bld sk br "-DTETRA_GEMV_REFILL_BEFORE_WAIT=1" 4 tetra_cli gpu_gemv
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
SK=.scratch-sk/b; SC=.scratch-sk/bc
for p in "sk:TETRA_SKINNY_TEST_HASH:$SK/tests/gpu_skinny" "skc:TETRA_SKINNY_TEST_HASH:$SC/tests/gpu_skinny" "gemv-sk:TETRA_GEMV_TEST_HASH:$SK/tests/gpu_gemv" "gemv-m:TETRA_GEMV_TEST_HASH:.scratch-main/b/tests/gpu_gemv" "gemv-skr:TETRA_GEMV_TEST_HASH:.scratch-sk/br/tests/gpu_gemv" "il-sk::$SK/tests/gpu_interleaved"; do
  IFS=: read n v b <<< "$p"
  ( env ${v:+$v=1} timeout 150 $b > $R/logs/t-$n.log 2>&1; echo "rc=$?" >> $R/logs/t-$n.log ) &
done
wait; echo "tests done at $(el) s"
for f in $R/logs/t-*.log; do echo "$(basename $f .log): $(grep -c hash $f) hash lines, $(grep -ci fail $f) fail, $(tail -2 $f | tr '\n' ' ')"; done
echo "skinny hash lines differing (cluster vs workspace reduce): $(LC_ALL=C comm -3 <(grep hash $R/logs/t-sk.log | LC_ALL=C sort) <(grep hash $R/logs/t-skc.log | LC_ALL=C sort) | wc -l)"
echo "gemv hash lines differing (sk vs main): $(LC_ALL=C comm -3 <(grep -E 'i?hash' $R/logs/t-gemv-m.log | LC_ALL=C sort) <(grep -E 'i?hash' $R/logs/t-gemv-sk.log | LC_ALL=C sort) | wc -l)"
echo "gemv hash lines differing (refill vs main): $(LC_ALL=C comm -3 <(grep -E 'i?hash' $R/logs/t-gemv-m.log | LC_ALL=C sort) <(grep -E 'i?hash' $R/logs/t-gemv-skr.log | LC_ALL=C sort) | wc -l)"
snap
ab() { local tag=$1 d=$2 lim=$3; shift 3
  [ $(left) -lt $(( lim + 150 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  echo "$tag: $d/tetra bench $*" >> $R/logs/commands.txt
  TETRA_COMMIT=$C_SK stdbuf -oL timeout $lim $d/tetra bench "$@" --no-replicate --out $R/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
ab p0 $SK 20 --shape 1x1x1 --a probe-mma-sync-rate --b probe-mma-sync-rate --blocks 4
MS=64x14336x4096,64x4096x14336,64x28672x8192,64x768x6144,64x2048x6144,32x14336x4096,17x14336x4096
ab sk-midm $SK 60 --shape $MS --a tetra-gemm-skinny --b cublaslt-bf16-tuned,tetra-gemm --graph-below-us 400 --blocks 6
ab skc-midm $SC 60 --shape $MS --a tetra-gemm-skinny --b cublaslt-bf16-tuned,tetra-gemm --graph-below-us 400 --blocks 6
RS=1x28672x8192,1x7168x16384,1x14336x4096,8x28672x8192,16x28672x8192
RB="--a tetra-gemm-gemv-interleaved --b tetra-gemm --graph-below-us 400 --blocks 6"
ab rf-sk1 $SK 40 --shape $RS $RB
ab rf-on .scratch-sk/br 40 --shape $RS $RB
ab rf-sk2 $SK 40 --shape $RS $RB
ab sk-m16 $SK 20 --shape 16x14336x4096,16x768x6144 --a tetra-gemm-skinny --b tetra-gemm-gemv-interleaved --graph-below-us 400 --blocks 6
lim=$(( $(left) - 5 )); echo "correctness with limit $lim s at $(el) s"
( cd $SK && timeout $lim ctest -E 'aa' --output-on-failure > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) &
for d in b bc; do for tool in memcheck racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 .scratch-sk/$d/tests/gpu_skinny > $R/logs/san-$tool-$d.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-$d.log ) &
done; done
for tool in memcheck racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 .scratch-sk/br/tests/gpu_gemv > $R/logs/san-$tool-br.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-br.log ) &
done
wait; echo "correctness done at $(el) s"; snap
grep -E "tests passed|tests failed|\(Failed\)|Timeout" $R/logs/ctest.log | head; tail -1 $R/logs/ctest.log
for f in $R/logs/san-*.log; do printf "%s: %s %s\n" "$(basename $f .log)" "$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors' $f | tail -1)" "$(tail -1 $f)"; done
echo "total $(el) s"; snap; rm -rf $OUT/r1
