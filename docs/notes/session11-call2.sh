#!/usr/bin/env bash
# session 11, call 2. Trees (git archive, docs/results removed, carried): .scratch-main (main
# $C_MAIN, built twice: b with TETRA_GEMV_LONG_SPLIT_SEGS=0 = session 10's GEMV split rule,
# bl with =10), .scratch-sk (branch wgskinny $C_SK: the skinny wgmma kernel (c'), pinned path
# TETRA_PATH_SKINNY, arm tetra-gemm-skinny; AUTO unchanged).
# Predictions (written before this run):
# - skinny (docs/notes/skinny-gemm.md "(c') rebuilt, session 11", the helper's): 64x14336x4096
#   20 us (17-25), 64x4096x14336 19 (16-24), 64x28672x8192 58 (48-80), 64x768x6144 7 (6-9),
#   64x2048x6144 9 (8-11). Refuted if 64x14336x4096 > 25 us or 64x28672x8192 > 80 us or any
#   wide M = 64 row slower than tetra-gemm (v7). Lead's own expectation: correctness first;
#   the helper's kernel has never run, so a failing gate is the likeliest outcome.
# - GEMV split rule (docs/notes/gemv.md "Session 11"): with LONG=10, 1x14336x4096 -3.4%
#   (3 splits), 1x4096x14336 -4.5% (11 splits), the same direction at M = 8 / 16 (-2..-5%);
#   1x7168x2048x4 (1 split instead of 2) unknown, +-5%; controls (1x28672x8192, 1x4096x4096,
#   16x4096x2048) unchanged (same splits, same kernel). Refuted if the two 33 MB M = 1 rows
#   gain < 2% or any row loses > 2% beyond the off1/off2 spread.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r2; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 2>/dev/null && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local t=$1 d=$2 fl=$3 j=$4; shift 4
  ( cmake -S .scratch-$t -B .scratch-$t/$d -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $fl > $R/logs/build-$t-$d.log 2>&1 &&
    cmake --build .scratch-$t/$d -j$j "$@" >> $R/logs/build-$t-$d.log 2>&1; echo "rc=$?" >> $R/logs/build-$t-$d.log ) & }
bld main b "-DTETRA_GEMV_LONG_SPLIT_SEGS=0" 4 --target tetra_cli gpu_gemv
bld main bl "-DTETRA_GEMV_LONG_SPLIT_SEGS=10" 4 --target tetra_cli gpu_gemv
bld sk b "" 8
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
# correctness: skinny (full test, hashes), the branch's ctest minus the long GEMM/attention
# tests, gpu_gemv in both split builds (hashes; bl's changed-split cases differ by design)
( TETRA_SKINNY_TEST_HASH=1 timeout 240 .scratch-sk/b/tests/gpu_skinny > $R/logs/t-skinny.log 2>&1; echo "rc=$?" >> $R/logs/t-skinny.log ) &
( cd .scratch-sk/b && timeout 240 ctest --output-on-failure -E "gpu_gemm|gpu_attention|gpu_skinny|gpu_bench_aa" > $R/logs/t-sk-ctest.log 2>&1; echo "rc=$?" >> $R/logs/t-sk-ctest.log ) &
( TETRA_GEMV_TEST_HASH=1 timeout 200 .scratch-main/b/tests/gpu_gemv > $R/logs/t-gemv-b.log 2>&1; echo "rc=$?" >> $R/logs/t-gemv-b.log ) &
( TETRA_GEMV_TEST_HASH=1 timeout 200 .scratch-main/bl/tests/gpu_gemv > $R/logs/t-gemv-bl.log 2>&1; echo "rc=$?" >> $R/logs/t-gemv-bl.log ) &
wait; echo "tests done at $(el) s"
for f in $R/logs/t-*.log; do echo "$(basename $f .log): $(grep -ci 'fail' $f) fail lines; $(tail -2 $f | tr '\n' ' ')"; done
echo "gemv hash lines b vs bl differing: $(diff <(grep -E '^  i?hash ' $R/logs/t-gemv-b.log) <(grep -E '^  i?hash ' $R/logs/t-gemv-bl.log) | grep -c '^[<>]') of $(grep -cE '^  i?hash ' $R/logs/t-gemv-b.log)"
snap
for tool in memcheck racecheck synccheck; do
  TETRA_TEST_QUICK=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 .scratch-sk/b/tests/gpu_skinny > $R/logs/san-skinny-$tool.log 2>&1
  echo "== san skinny $tool rc=$? at $(el) s: $(tail -1 $R/logs/san-skinny-$tool.log)"
done
TETRA_TEST_QUICK=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 .scratch-main/bl/tests/gpu_gemv > $R/logs/san-gemv-bl-memcheck.log 2>&1
echo "== san gemv-bl memcheck rc=$? at $(el) s: $(tail -1 $R/logs/san-gemv-bl-memcheck.log)"; snap
declare -A C=([main]=$C_MAIN [sk]=$C_SK)
ab() { local tag=$1 t=$2 d=$3 lim=$4; shift 4
  [ $(left) -lt $(( lim + 30 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  echo "$tag: $d/tetra bench $*" >> $R/logs/commands.txt
  TETRA_COMMIT=${C[$t]} stdbuf -oL timeout $lim $d/tetra bench "$@" --no-replicate --out $R/results/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
ab skinny sk .scratch-sk/b 90 --shape 64x14336x4096,64x4096x14336,64x28672x8192,64x768x6144,64x2048x6144,32x14336x4096,17x14336x4096 --a tetra-gemm-skinny --b cublaslt-bf16-tuned,tetra-gemm --graph-below-us 400 --blocks 6
# --- GEMV split rule A/B: main built with TETRA_GEMV_LONG_SPLIT_SEGS=0 (b) and =10 (bl)
GS=1x14336x4096,8x14336x4096,16x14336x4096,1x4096x14336,8x4096x14336,16x4096x14336,1x7168x2048x4,1x28672x8192,1x4096x4096,16x4096x2048
GB="--a tetra-gemm-gemv-interleaved --b cublaslt-bf16-tuned,tetra-gemm --graph-below-us 400 --blocks 6"
ab split-off1 main .scratch-main/b 60 --shape $GS $GB
ab split-on main .scratch-main/bl 60 --shape $GS $GB
ab split-off2 main .scratch-main/b 60 --shape $GS $GB
if [ $(left) -gt 80 ]; then
  echo "ncu: skinny at 64x14336x4096" >> $R/logs/commands.txt
  timeout 60 ncu --clock-control none --kernel-name regex:skinny_wgmma --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy .scratch-sk/b/tetra bench --shape 64x14336x4096 --a tetra-gemm-skinny --b tetra-gemm-skinny --blocks 1 --no-replicate > $R/logs/ncu-skinny.txt 2>&1
  echo "== ncu rc=$? at $(el) s"; grep -E "Duration|Throughput|Warp Cycles|Eligible|Active Warps|Registers|Issued" $R/logs/ncu-skinny.txt | head -20
fi
echo "total $(el) s"; snap; rm -rf $OUT/r2
