#!/usr/bin/env bash
# session 10, call 1 (DRAFT written in session 9; nothing here has run). Trees (git archive,
# docs/results removed, carried): .scratch-main (main), .scratch-wg (n15wgskinny: the skinny
# wgmma kernel (c')), .scratch-gv (n15gemv: TETRA_GEMV_TWO_SEGMENTS forms 1 and 2),
# .scratch-tu (n15tune: AUTO timed inside tune's passes). Set C_MAIN C_WG C_GV C_TU.
# Order: builds; correctness runs (hashes); the benches (wgmma skinny vs cuBLAS / v7 / the
# mma.sync skinny; GEMV ABA main / form 1 / form 2 / main); tune at 8192^3 with n15tune;
# sanitizers on what is left in the budget (the merge candidates need them: run call 2 if cut).
# Predictions are in the branches' notes: skinny-gemm.md "Session 9 device results and (c')"
# (64x14336x4096 20 us, 64x28672x8192 67 us; refuted > 26 / > 80 us or slower than v7);
# gemv-prepared-weights.md "two segments per iteration" (form 1 0.97, form 2 1.04 at
# 1x28672x8192; control 16x28672x8192 1.00 +- 0.01).
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
bld main b "" 3 tetra_cli gpu_gemv
bld wg b "" 6
bld gv b1 "-DTETRA_GEMV_TWO_SEGMENTS=1" 3 tetra_cli gpu_gemv gpu_interleaved
bld gv b2 "-DTETRA_GEMV_TWO_SEGMENTS=2" 3 tetra_cli gpu_gemv gpu_interleaved
bld tu b "" 2 tetra_cli
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
WG=.scratch-wg/b
for p in "wg::$WG/tests/gpu_skinny" "wg16:TETRA_SKINNY_TEST_TILE_M=16:$WG/tests/gpu_skinny" \
         "gemv-m:TETRA_GEMV_TEST_HASH=1:.scratch-main/b/tests/gpu_gemv" \
         "gemv-1:TETRA_GEMV_TEST_HASH=1:.scratch-gv/b1/tests/gpu_gemv" "gemv-2:TETRA_GEMV_TEST_HASH=1:.scratch-gv/b2/tests/gpu_gemv" \
         "il-1::.scratch-gv/b1/tests/gpu_interleaved" "il-2::.scratch-gv/b2/tests/gpu_interleaved"; do
  IFS=: read n v b <<< "$p"
  ( env ${v:+$v} timeout 150 $b > $R/logs/t-$n.log 2>&1; echo "rc=$?" >> $R/logs/t-$n.log ) &
done
wait; echo "tests done at $(el) s"
for f in $R/logs/t-*.log; do echo "$(basename $f .log): $(grep -ci 'fail\|differ' $f) fail/differ lines, $(tail -2 $f | tr '\n' ' ')"; done
# main's hash lines must be the first lines of each form's (n15gemv appends its cases after main's)
n=$(grep -cE '^  i?hash ' $R/logs/t-gemv-m.log)
for f in 1 2; do echo "gemv form $f: main's $n hash lines differing: $(diff <(grep -E '^  i?hash ' $R/logs/t-gemv-m.log) <(grep -E '^  i?hash ' $R/logs/t-gemv-$f.log | head -n $n) | grep -c '^[<>]')"; done
echo "gemv form 1 vs form 2, all hash lines differing: $(diff <(grep -E '^  i?hash ' $R/logs/t-gemv-1.log) <(grep -E '^  i?hash ' $R/logs/t-gemv-2.log) | grep -c '^[<>]')"
snap
declare -A C=([main]=$C_MAIN [wg]=$C_WG [gv]=$C_GV [tu]=$C_TU)
ab() { local tag=$1 t=$2 d=$3 lim=$4; shift 4
  [ $(left) -lt $(( lim + 60 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  echo "$tag: $d/tetra bench $*" >> $R/logs/commands.txt
  TETRA_COMMIT=${C[$t]} stdbuf -oL timeout $lim $d/tetra bench "$@" --no-replicate --out $R/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
MS=64x14336x4096,64x4096x14336,64x28672x8192,64x768x6144,64x2048x6144,32x14336x4096,17x14336x4096
ab wg-midm wg $WG 70 --shape $MS --a tetra-gemm-skinny --b cublaslt-bf16-tuned,tetra-gemm --graph-below-us 400 --blocks 6
ab wg-vs-mma wg $WG 40 --shape 64x14336x4096,64x28672x8192,32x14336x4096 --a tetra-gemm-skinny --b tetra-gemm-skinny-mma --graph-below-us 400 --blocks 6
RS=1x28672x8192,1x7168x16384,1x14336x4096,8x28672x8192,16x28672x8192
RB="--a tetra-gemm-gemv-interleaved --b tetra-gemm --graph-below-us 400 --blocks 6"
ab two-main1 main .scratch-main/b 40 --shape $RS $RB
ab two-form1 gv .scratch-gv/b1 40 --shape $RS $RB
ab two-form2 gv .scratch-gv/b2 40 --shape $RS $RB
ab two-main2 main .scratch-main/b 40 --shape $RS $RB
if [ $(left) -gt 200 ]; then
  echo "tune: n15tune at 8192^3, 8192x4096x14336" >> $R/logs/commands.txt
  TETRA_COMMIT=$C_TU timeout 170 stdbuf -oL .scratch-tu/b/tetra tune --shape 1x3072x3072 --holdout-shape 8192x8192x8192,8192x4096x14336 --out $R/tune-table.txt --json $R/tune-8192.json > $R/logs/tune-8192.log 2>&1
  echo "== tune rc=$? at $(el) s"; grep -E "table|held-out score" $R/logs/tune-8192.log | cut -c1-190; snap
fi
lim=$(( $(left) - 5 )); echo "sanitizers with limit $lim s at $(el) s"
( cd $WG && timeout $lim ctest -E aa --output-on-failure > $R/logs/ctest-wg.log 2>&1; echo "rc=$?" >> $R/logs/ctest-wg.log ) &
for tool in memcheck racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 $WG/tests/gpu_skinny > $R/logs/san-$tool-wg.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-wg.log ) &
  ( TETRA_TEST_QUICK=1 timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 .scratch-gv/b2/tests/gpu_gemv > $R/logs/san-$tool-gv2.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-gv2.log ) &
done
wait; echo "sanitizers done at $(el) s"
for f in $R/logs/san-*.log; do printf "%s: %s %s\n" "$(basename $f .log)" "$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors' $f | tail -1)" "$(tail -1 $f)"; done
grep -E "tests passed|tests failed|\(Failed\)" $R/logs/ctest-wg.log; tail -1 $R/logs/ctest-wg.log
echo "total $(el) s"; snap; rm -rf $OUT/r1
