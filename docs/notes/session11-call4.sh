#!/usr/bin/env bash
# session 11, call 4. Trees: .scratch-s2 (branch skinny2 $C_S2: four compile switches on the
# skinny wgmma kernel, defaults = main's kernel), .scratch-main (main $C_MAIN).
# 1. skinny2 variants d (default), w (WAIT=2), x (XAHEAD=2), e (EPI=1: cluster reduce / PDL),
#    a (all four incl. BAR=1): gpu_skinny hashes equal across variants, sanitizers x3 on a,
#    bench vs cuBLAS and v7. Predictions: docs/notes/skinny-gemm.md "skinny2 (session 11)"
#    (64x14336x4096: w 36, x 38.5, e 35.5, a 21 (17-27) us against d ~42.5).
# 2. Issue 4: a bare read of the prepared bytes at the small decode shapes (the floor a
#    single launch of that size has in a graph); the W4A4 chain's kernels under Nsight
#    Compute at 1x7168x16384 and 1x14336x4096 (per-kernel durations: why W4A4 trails W4A16 by
#    1.0-2.7 us); racecheck + synccheck on gpu_gemv at main (memcheck ran in run 48).
#    Prediction: the bare read of 2.6-9.4 MB takes 3.5-5 us (so 2x cuBLAS's 7-12 us needs a
#    kernel at or under a bare read); the W4A4 GEMV kernel itself within 3% of W4A16's.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r4; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r4.tgz.tmp -C $OUT r4 2>/dev/null && mv $OUT/r4.tgz.tmp $OUT/r4.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S .scratch-main -B .scratch-main/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-main.log 2>&1 &&
  cmake --build .scratch-main/b -j6 --target tetra_cli gpu_gemv >> $R/logs/build-main.log 2>&1; echo "rc=$?" >> $R/logs/build-main.log ) &
S2=.scratch-s2; V=$S2/v; mkdir -p $V
GEN=""; command -v ninja > /dev/null && GEN="-G Ninja"; echo "generator: ${GEN:-make}"
cmake $GEN -S $S2 -B $S2/bsk -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-sk.log 2>&1
for cfg in "d:1:1:0:0" "w:2:1:0:0" "x:1:2:0:0" "e:1:1:0:1" "a:2:2:1:1"; do
  IFS=: read n W X Bb E <<< "$cfg"
  cmake -S $S2 -B $S2/bsk -DTETRA_SKINNY_WAIT=$W -DTETRA_SKINNY_XAHEAD=$X -DTETRA_SKINNY_BAR=$Bb -DTETRA_SKINNY_EPI=$E > /dev/null 2>&1
  cmake --build $S2/bsk -j12 --target tetra_cli gpu_skinny > $R/logs/build-sk-$n.log 2>&1 || echo "BUILD FAIL $n"
  cp $S2/bsk/tetra $V/tetra-$n; cp $S2/bsk/tests/gpu_skinny $V/gpu_skinny-$n
  echo "variant $n built at $(el) s: $(strings $V/tetra-$n | grep tetra-skinny-variant | head -1)"
done
wait; echo "main build: $(tail -1 $R/logs/build-main.log) at $(el) s"; snap
for n in d w x e a; do
  ( TETRA_SKINNY_TEST_HASH=1 timeout 200 $V/gpu_skinny-$n > $R/logs/t-skinny-$n.log 2>&1; echo "rc=$?" >> $R/logs/t-skinny-$n.log ) &
done; wait; echo "skinny tests done at $(el) s"
for n in d w x e a; do echo "$n: $(tail -2 $R/logs/t-skinny-$n.log | tr '\n' ' ') hash lines $(grep -c hash $R/logs/t-skinny-$n.log), differing from d: $(diff <(grep hash $R/logs/t-skinny-d.log) <(grep hash $R/logs/t-skinny-$n.log) | grep -c '^[<>]')"; done; snap
for tool in memcheck racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 $V/gpu_skinny-a > $R/logs/san-skinny-a-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-skinny-a-$tool.log ) &
done
for tool in racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 .scratch-main/b/tests/gpu_gemv > $R/logs/san-gemv-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-gemv-$tool.log ) &
done; wait; echo "sanitizers done at $(el) s"
for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(tail -3 $f | tr '\n' ' ')"; done; snap
ab() { local tag=$1 c=$2 d=$3 lim=$4; shift 4
  [ $(left) -lt $(( lim + 20 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  echo "$tag: $d bench $*" >> $R/logs/commands.txt
  TETRA_COMMIT=$c stdbuf -oL timeout $lim $d bench "$@" --no-replicate --out $R/results/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
SK=64x14336x4096,64x4096x14336,64x28672x8192,64x2048x6144,32x14336x4096,17x14336x4096
for n in d a w x e; do
  ab skinny-$n $C_S2 $V/tetra-$n 60 --shape $SK --a tetra-gemm-skinny --b cublaslt-bf16-tuned,tetra-gemm --graph-below-us 400 --blocks 6
done
T=.scratch-main/b/tetra
for c in 4 8; do
  TETRA_BENCH_READ_CTAS=$c ab read-small-c$c $C_MAIN $T 40 --shape 1x768x6144,1x2048x6144,1x4096x2048,1x4096x4096,1x4096x7168x8,1x7168x2048x4 --a mem-read-nvfp4 --b tetra-gemm-gemv-interleaved --graph-below-us 400 --blocks 6
done
if [ $(left) -gt 60 ]; then
  echo "ncu-w4a4: per-kernel durations of the W4A4 chain and W4A16" >> $R/logs/commands.txt
  for s in 1x7168x16384 1x14336x4096; do
    timeout 45 ncu --clock-control none --launch-skip 40 --launch-count 12 --section SpeedOfLight $T bench --shape $s --a tetra-gemm-w4a4-interleaved --b tetra-gemm-gemv-interleaved --graph-below-us 1 --blocks 1 --no-replicate > $R/logs/ncu-w4a4-$s.txt 2>&1
    echo "== ncu $s rc=$? at $(el) s"; grep -E "^  [a-z_].*\(|Duration" $R/logs/ncu-w4a4-$s.txt | head -30
  done
fi
echo "total $(el) s"; snap; rm -rf $OUT/r4
