#!/usr/bin/env bash
# session 8, call 2: cand = main + n12fold (re-applied) + n12attn + n12gemv, built with
# TETRA_ATTN_PV_SPLIT=1 (cb) and also with TETRA_GEMV_IL_PAIRS=1 (cp). Cross-build ABA against
# main (mb): portable attention (order 1) vs cuDNN; prepared GEMV vs the standard layout
# (half-selectors, option B); the copy-only probe; W4A4 with prepared weights at M = 1.
# Then ctest on cand and compute-sanitizer x3 on cand's GPU tests (not gpu_gemm), with the
# output hashes of main and cand.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-575}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r2; mkdir -p $R/logs
snap() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 2>/dev/null && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local t=$1 d=$2 fl=$3 j=$4; shift 4
  ( cmake -S .scratch-$t -B .scratch-$t/$d -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=-DTETRA_ATTN_PV_SPLIT=1" $fl > $R/logs/build-$t-$d.log 2>&1 &&
    cmake --build .scratch-$t/$d -j$j ${1:+--target "$@"} >> $R/logs/build-$t-$d.log 2>&1; echo "rc=$?" >> $R/logs/build-$t-$d.log ) & }
bld main b "-DCMAKE_CUDA_FLAGS=" 4 tetra_cli gpu_gemv gpu_interleaved gpu_attention
bld cand b "" 8
bld cand bp "-DTETRA_GEMV_IL_PAIRS=1" 4 tetra_cli gpu_gemv gpu_interleaved test_interleaved_layout
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
grep -h "TETRA_ATTN_PV_SPLIT\|CMAKE_CUDA_FLAGS:" .scratch-main/b/CMakeCache.txt .scratch-cand/b/CMakeCache.txt | head -4
declare -A D=([m]=.scratch-main/b [c]=.scratch-cand/b [p]=.scratch-cand/bp)
declare -A C=([m]=$C_MAIN [c]=$C_CAND [p]=$C_CAND)
ab() { local tag=$1 t=$2 lim=$3; shift 3
  [ $(left) -lt $(( lim + 240 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  echo "$tag: ${D[$t]}/tetra bench $*" >> $R/logs/commands.txt
  TETRA_COMMIT=${C[$t]} stdbuf -oL timeout $lim ${D[$t]}/tetra bench "$@" --no-replicate --out $R/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
AT=2048x16x128x2,8192x16x128x2,16384x16x128x2,16384x16x64x2
i=0; for t in m c m c; do i=$((i+1)); ab at$i-$t $t 45 --shape $AT --a tetra-attention-portable --b cudnn-sdpa --blocks 6; done
i=0; for t in m c m; do i=$((i+1)); ab atc$i-$t $t 30 --shape 8192x16x128x2,16384x16x128x2 --a tetra-attention-portable-causal --b cudnn-sdpa-causal --blocks 6; done
S=1x28672x8192,1x14336x4096,1x4096x14336,1x7168x16384,1x4096x4096,16x28672x8192,16x14336x4096,16x4096x14336,16x7168x16384,16x4096x4096,4x28672x8192,8x28672x8192
i=0; for t in m c p m; do i=$((i+1)); ab il$i-$t $t 45 --shape $S --a tetra-gemm-gemv-interleaved --b tetra-gemm --graph-below-us 400 --blocks 10; done
ab probe c 30 --shape 1x28672x8192,1x14336x4096,1x4096x14336,1x7168x16384,1x4096x4096,16x28672x8192 --a probe-gemv-interleaved-copy --b tetra-gemm-gemv-interleaved --graph-below-us 400 --blocks 10
ab w4a4il c 40 --shape 1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384 --a tetra-gemm-w4a4-interleaved --b tetra-gemm-gemv-interleaved,tetra-gemm-w4a4-full-interleaved --graph-below-us 400 --blocks 10
# correctness: everything at once
lim=$(( $(left) - 8 )); echo "correctness with limit $lim s at $(el) s"
CB=.scratch-cand/b
( cd $CB && timeout $lim ctest -E 'aa' --output-on-failure > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) &
for t in gpu_attention gpu_format gpu_gemm_reference gpu_nonfinite gpu_gemv gpu_interleaved; do for tool in memcheck racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 $CB/tests/$t > $R/logs/san-$tool-$t.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-$t.log ) &
done; done
for p in "attn-m:TETRA_ATTN_TEST_HASH:.scratch-main/b/tests/gpu_attention" "attn-c:TETRA_ATTN_TEST_HASH:$CB/tests/gpu_attention" "gemv-m:TETRA_GEMV_TEST_HASH:.scratch-main/b/tests/gpu_gemv" "gemv-c:TETRA_GEMV_TEST_HASH:$CB/tests/gpu_gemv" "gemv-p:TETRA_GEMV_TEST_HASH:.scratch-cand/bp/tests/gpu_gemv" "il-p::.scratch-cand/bp/tests/gpu_interleaved" "ill-p::.scratch-cand/bp/tests/test_interleaved_layout" "il-m::.scratch-main/b/tests/gpu_interleaved"; do
  IFS=: read n v b <<< "$p"
  ( env ${v:+$v=1} timeout $lim $b > $R/logs/hash-$n.log 2>&1; echo "rc=$?" >> $R/logs/hash-$n.log ) &
done
wait; echo "correctness done at $(el) s"; snap
grep -E "tests passed|tests failed|\(Failed\)|Timeout" $R/logs/ctest.log | head; tail -1 $R/logs/ctest.log
for f in $R/logs/san-*.log; do printf "%s: %s %s\n" "$(basename $f .log)" "$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors' $f | tail -1)" "$(tail -1 $f)"; done
for f in $R/logs/hash-*.log; do echo "$(basename $f .log): $(grep -c hash $f) hash lines, $(grep -c FAIL $f) FAIL, $(tail -2 $f | tr '\n' ' ')"; done
cmp3() { echo "$1: lines of $2 not in $3: $(LC_ALL=C comm -23 <(grep -E "$4" $R/logs/hash-$2.log | LC_ALL=C sort) <(grep -E "$4" $R/logs/hash-$3.log | LC_ALL=C sort) | wc -l)"; }
cmp3 attn attn-m attn-c hash; cmp3 attn attn-c attn-m hash
cmp3 gemv gemv-m gemv-c 'i?hash'; cmp3 gemv gemv-c gemv-m 'i?hash'; cmp3 gemv-pairs-std gemv-m gemv-p '^  hash '
echo "pairs gated lines not passing: $(grep 'interleaved W (gated)' $R/logs/hash-gemv-p.log | grep -vc pass)"
echo "total $(el) s"; snap; rm -rf $OUT/r2
