#!/usr/bin/env bash
# Session 14, device call 4 (run 69). Prepare .scratch-f = main + docs/notes/patches/fold-skinny-epilogue-walk.patch
# (as call 1's header, with that patch). Three parts, all on main's kernels unless stated:
# 1. The skinny epilogue-walk fold (SASS 3976 vs 4344 instructions): gpu_skinny hash lines of
#    main (b0) and the fold (f) must be equal; f under memcheck and racecheck (quick); ABA
#    b0 / f / b0 of tetra-gemm-skinny at M = 32 / 64. Prediction: equal hashes, clean
#    sanitizers, time within +-2% (the walk is epilogue-only, a few % of the instructions).
# 2. v7's wave quantization at M = 64 (run 68's ncu: 224 CTAs = 1.70 waves, SM active 79.6% of
#    the elapsed cycles): tetra-gemm at 64 x N x 8192 for N = 16896 (132 CTAs, one wave), 28672
#    (224) and 33792 (264, two full waves). Prediction: t(28672) ~ t(33792) (the partial
#    second wave costs a whole wave), t(16896) ~ 0.5 x t(33792) + fixed.
# 3. tetra tune's sweep of every configuration at M = 64 and M = 256 on the three (N, K)
#    (no held-out scoring): whether any existing configuration beats AUTO's there.
# Run: C_N=<hash> C_F=<hash>+fold BUDGET=340 bash docs/notes/session14-call4.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-340}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/n4; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/n4.tgz.tmp -C $OUT n4 2>/dev/null && mv $OUT/n4.tgz.tmp $OUT/n4.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B /tmp/b0 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-b0.log 2>&1 &&
  cmake --build /tmp/b0 -j8 --target tetra_cli gpu_skinny >> $R/logs/build-b0.log 2>&1; echo "rc=$?" >> $R/logs/build-b0.log ) &
( cmake -S .scratch-f -B /tmp/f -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-f.log 2>&1 &&
  cmake --build /tmp/f -j8 --target tetra_cli gpu_skinny >> $R/logs/build-f.log 2>&1; echo "rc=$?" >> $R/logs/build-f.log ) &
wait; echo "builds at $(el) s: b0 $(tail -1 $R/logs/build-b0.log) f $(tail -1 $R/logs/build-f.log)"
( TETRA_SKINNY_TEST_HASH=1 timeout 150 /tmp/b0/tests/gpu_skinny > $R/logs/t-skinny-b0.log 2>&1; echo "rc=$?" >> $R/logs/t-skinny-b0.log ) &
( TETRA_SKINNY_TEST_HASH=1 timeout 150 /tmp/f/tests/gpu_skinny > $R/logs/t-skinny-f.log 2>&1; echo "rc=$?" >> $R/logs/t-skinny-f.log ) &
for tool in memcheck racecheck; do
  ( TETRA_TEST_QUICK=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/f/tests/gpu_skinny > $R/logs/san-f-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-f-$tool.log ) &
done
wait; echo "tests at $(el) s"
for f in $R/logs/t-skinny-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(tail -2 $f | tr '\n' ' ' | cut -c1-160)"; done
nd=$(diff <(grep -i 'hash' $R/logs/t-skinny-b0.log) <(grep -i 'hash' $R/logs/t-skinny-f.log) | grep -c '^[<>]')
echo "hash lines differing b0 vs f: $nd of $(grep -ci 'hash' $R/logs/t-skinny-b0.log)"; snap
bench() { # tag build commit arm shapes
  local l=$(( $(left) - 5 )); [ $l -lt 20 ] && { echo "$1 SKIPPED"; return; }; [ $l -gt 60 ] && l=60
  TETRA_COMMIT=$3 timeout $l /tmp/$2/tetra bench --shape $5 --a $4 --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
    --out $R/results/$1.json > $R/logs/$1.log 2>&1
  echo "== $1 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$1.log | cut -c1-150; snap; }
SK=32x14336x4096,64x14336x4096,64x4096x14336,64x28672x8192
if grep -q "rc=0" $R/logs/t-skinny-f.log && [ "$nd" = 0 ]; then
  bench s-b0a b0 $C_N tetra-gemm-skinny $SK; bench s-f f $C_F tetra-gemm-skinny $SK; bench s-b0b b0 $C_N tetra-gemm-skinny $SK
fi
bench w-b0 b0 $C_N tetra-gemm 64x16896x8192,64x28672x8192,64x33792x8192
l=$(( $(left) - 5 )); if [ $l -gt 30 ]; then
  TETRA_COMMIT=$C_N timeout $l /tmp/b0/tetra tune --shape 64x28672x8192,64x4096x14336,64x14336x4096,256x28672x8192,256x4096x14336,256x14336x4096 \
    --holdout-shape none --out $R/results/tune-m64-m256.txt --json $R/results/tune-m64-m256.json > $R/logs/tune.log 2>&1
  echo "== tune rc=$? at $(el) s"; tail -20 $R/logs/tune.log | cut -c1-160
fi
echo "total $(el) s"; snap; rm -rf $OUT/n4
