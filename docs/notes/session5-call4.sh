#!/usr/bin/env bash
# NOTE (after run 24): the ctest line redirects to ../../$R/..., but $R is absolute, so the
# redirection failed and ctest never ran in run 24. Fix: redirect to $R/logs/ctest.log.
# session 5, call 4 (final): main at $C_MAIN in .scratch-main. Build everything; ctest and
# compute-sanitizer x3 x the GPU tests concurrently (correctness only); then, on an idle GPU,
# the A/A test, ceilings, calibration and the sweeps main changed since run 19/20.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-515}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r4; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r4.tgz.tmp -C $OUT r4 2>/dev/null && mv $OUT/r4.tgz.tmp $OUT/r4.tgz; }
export TETRA_COMMIT=$C_MAIN
M=.scratch-main; BD=$M/build-device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
cmake -S $M -B $BD -DCMAKE_BUILD_TYPE=Release > $R/logs/build.log 2>&1 && cmake --build $BD -j16 >> $R/logs/build.log 2>&1; brc=$?
echo "build rc=$brc at $(el) s"; tail -2 $R/logs/build.log
# ---- correctness: ctest (without the A/A timing test) and 18 sanitizer runs at once
SL=${SAN_LIMIT:-200}
( cd $BD && stdbuf -oL timeout $SL ctest -j4 -E gpu_bench_aa --output-on-failure --output-junit ctest.xml > ../../$R/logs/ctest.log 2>&1; echo "rc=$?" >> ../../$R/logs/ctest.log ) &
pids=($!)
for tool in memcheck racecheck synccheck; do
  for t in $BD/tests/gpu_*; do
    n=$(basename $t); [ $n = gpu_bench_aa ] && continue
    ( TETRA_TEST_QUICK=1 timeout $SL compute-sanitizer --tool $tool --error-exitcode 99 $t > $R/logs/san-$tool-$n.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-$n.log ) & pids+=($!)
  done
done
wait "${pids[@]}"; echo "correctness done at $(el) s"
cp $BD/ctest.xml $R/logs/ 2>/dev/null
grep -E "tests passed|tests failed|\(Failed\)|Not Run" $R/logs/ctest.log | head; tail -1 $R/logs/ctest.log
for f in $R/logs/san-*.log; do printf "%s: %s %s\n" "$(basename $f .log)" "$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors' $f | tail -1)" "$(tail -1 $f)"; done
snap
# ---- timing, GPU idle from here
( stdbuf -oL timeout 60 $BD/tests/gpu_bench_aa > $R/logs/gpu_bench_aa.log 2>&1; echo "rc=$?" >> $R/logs/gpu_bench_aa.log ); echo "gpu_bench_aa $(tail -1 $R/logs/gpu_bench_aa.log) at $(el) s"
T=$BD/tetra; res=$R/results
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150; }
step ceilings 25 $T bench ceilings --out $res/ceilings.json
step calibrate 45 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
G="--graph-below-us 400"
step attention 75 $T bench --set attention --a tetra-attention --b cudnn-sdpa,tetra-attention-portable $cal --out $res/attention.json
step midm 40 $T bench --shape 64x14336x4096,64x4096x14336,64x28672x8192,256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192 --a tetra-gemm --b cublaslt-bf16-tuned $G $cal --out $res/tetra-gemm-midm.json
step glm5 25 $T bench --set glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned $G $cal --out $res/tetra-gemm-glm5.json
step gpumode 20 $T bench --shape 128x7168x16384,128x4096x7168,128x7168x2048 --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 $G $cal --out $res/tetra-gemm-gpumode-prefill.json
step prefill 80 $T bench --shape 1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336,8192x8192x8192 --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 $cal --out $res/tetra-gemm-prefill.json
step attention-fp16 60 $T bench --shape 2048x16x128x2,8192x16x128x2,16384x16x128x2 --a tetra-attention-fp16 --b cudnn-sdpa-fp16 $cal --out $res/attention-fp16.json
echo "total $(el) s"; snap; rm -rf $OUT/r4
