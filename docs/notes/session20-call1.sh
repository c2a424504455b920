#!/usr/bin/env bash
# Session 20 call 1 (run 98; drafted at the end of session 19, run unchanged in session 20).
# what session 19 could not measure for lack of device time. Run: C_MAIN=<hash> BUDGET=560 bash ...
# (pass C_MAIN explicitly: `git rev-parse` on the device copy does not give this tree's commit).
# build-main = main (defaults: fragment GEMV cluster-K at M <= 4, v7.7, v7.8); build-tr = main with
# -DTETRA_GEMM_TRACE (v7.8's trace; the producers' columns are per stage, see v7k2's notes).
# PREDICTIONS (written in session 19, before any run):
# (1) ctest -j3 of the whole default build: all pass (session 19 ran each new switch's tests, not
#     the whole suite with all three on). racecheck of gpu_gemm (wgmma_t, quick) with
#     TETRA_GEMM_T_CK=2 on its own: 0 hazards (run 96 at KT 1: clean; run 97 at KT 2 timed out).
# (2) calibrated vs tuned cuBLASLt BF16 (run 76's t_noise and ceilings), fragment weights: M = 64
#     = run 91's ratios / run 97's v7.8 B/A: 64x14336x4096 ~1.43, 64x4096x14336 ~1.50,
#     64x28672x8192 ~1.59 (the cuBLAS arm's pick moves a few %); 32x14336x4096 ~1.5; glm5
#     64x768x6144 ~1.21, 64x2048x6144 ~1.13, 4x2048x6144 ~1.43. Target 1.8 / 1.5: still missed.
# (3) v7.8's trace at 64x14336x4096: period ~550-575 cycles traced (run 94: 605 at KT 1); the
#     odd K-tiles' rfull / afull segments near 0-40 cycles, the even ones ~170 / ~100 as before.
# (4) seed000 16384^3 with fragment weights ~0.96 (standard 0.949, run 58; fragment 1.03-1.05x).
# (5) gpumode (M = 128, fragment weights, v7 BT 128 + v7.8): 0.9-1.2x cuBLAS BF16, 0.6-0.8x FP8.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r98; mkdir -p $R/logs $R/results $R/trace
snap() { tar czf $OUT/r98.tgz.tmp -C $OUT r98 2>/dev/null && mv $OUT/r98.tgz.tmp $OUT/r98.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 j=$2 tg=$3 flags=$4; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=$flags" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j$j $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main 12 "" ""
bld build-tr 4 "--target tetra_static" "-DTETRA_GEMM_TRACE"
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/v7-trace.c -L build-tr -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-tr/v7-trace-drv > $R/logs/drv-build.log 2>&1; echo "drv rc=$?"
snap
# (1) correctness, in parallel (no timing meanwhile)
( timeout 420 ctest --test-dir build-main -j3 --output-on-failure > $R/logs/ctest-main.log 2>&1; echo "rc=$?" >> $R/logs/ctest-main.log ) &
( env TETRA_GEMM_T_CK=2 TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 420 compute-sanitizer --tool racecheck --error-exitcode 99 build-main/tests/gpu_gemm > $R/logs/san-ck2-racecheck.log 2>&1; echo "rc=$?" >> $R/logs/san-ck2-racecheck.log ) &
wait; echo "correctness done at $(el) s"; snap
for f in $R/logs/ctest-main.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'RACECHECK SUMMARY|tests passed|all checks passed|CHECK failed|rc=' $f | head -4 | tr '\n' ' ')"; done
grep -E "Failed|\*\*\*" $R/logs/ctest-main.log | head
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
T=build-main/tetra
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
cal="--ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400"
# (2)
step m64-cal 60 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 64x14336x4096,64x4096x14336,64x28672x8192,32x14336x4096,64x768x6144,64x2048x6144,4x2048x6144 $cal --blocks 8 --out $R/results/m64-glm5-frag-calibrated.json
# (3)
step drv-tr 40 env TRACE=1 build-tr/v7-trace-drv $R/trace/kt2 64x14336x4096
for f in $R/trace/*.bin; do python3 docs/notes/v7-trace.py $f --json ${f%.bin}.json > ${f%.bin}.txt 2>&1; head -40 ${f%.bin}.txt; done; snap
# (5)
step gpumode 60 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned,cublaslt-fp8 --shape 128x7168x16384,128x4096x7168,128x7168x2048 $cal --blocks 6 --out $R/results/gpumode-frag.json
# (4) last: long calls
step big 200 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 16384x16384x16384 $cal --blocks 2 --max-samples 3 --out $R/results/seed000-16384-frag.json
echo "total $(el) s"; snap; rm -rf $OUT/r98
