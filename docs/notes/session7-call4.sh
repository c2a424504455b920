#!/usr/bin/env bash
# session 7, call 4: main at $C_MAIN (n11disp + n11gemv merged), GPU otherwise idle: full build,
# ceilings + calibration, calibrated sweeps of what changed (prepared GEMV weights on the
# decode/gpumode/small shapes; AUTO's wgmma-T tile rule on glm5-tp8 and M = 64-512), then
# ctest (no A/A timing test) beside compute-sanitizer x3 on gpu_gemv and gpu_interleaved.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-480}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r4; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r4.tgz.tmp -C $OUT r4 2>/dev/null && mv $OUT/r4.tgz.tmp $OUT/r4.tgz; }
export TETRA_COMMIT=$C_MAIN
M=.scratch-main; BD=$M/build-device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
cmake -S $M -B $BD -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 && cmake --build $BD -j16 >> $R/logs/build.log 2>&1
echo "build rc=$? at $(el) s"
T=$BD/tetra; res=$R/results
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150; }
step ceilings 25 $T bench ceilings --out $res/ceilings.json
step calibrate 45 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
G="--graph-below-us 400"
DEC="1x4096x4096,4x4096x4096,8x4096x4096,16x4096x4096,1x14336x4096,4x14336x4096,8x14336x4096,16x14336x4096,1x4096x14336,4x4096x14336,8x4096x14336,16x4096x14336,1x28672x8192,4x28672x8192,8x28672x8192,16x28672x8192,1x7168x16384,4x7168x16384,8x7168x16384,16x7168x16384,1x7168x16384x1,1x4096x7168x8,1x7168x2048x4"
step gemv-prepared 70 $T bench --shape $DEC --a tetra-gemm-gemv-interleaved --b cublaslt-bf16-tuned,tetra-gemm $G $cal --out $res/gemv-prepared-decode.json
SM="1x2048x6144,4x2048x6144,8x2048x6144,16x2048x6144,1x768x6144,4x768x6144,8x768x6144,16x768x6144,1x4096x2048,4x4096x2048,8x4096x2048,16x4096x2048"
step gemv-prepared-small 35 $T bench --shape $SM --a tetra-gemm-gemv-interleaved --b cublaslt-bf16-tuned $G $cal --out $res/gemv-prepared-small.json
step glm5 30 $T bench --set glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned $G $cal --out $res/tetra-gemm-glm5.json
step midm 45 $T bench --shape 64x14336x4096,64x4096x14336,64x28672x8192,256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192 --a tetra-gemm --b cublaslt-bf16-tuned $G $cal --out $res/tetra-gemm-midm.json
lim=$(( $(left) - 8 ))
if [ $lim -gt 60 ]; then
  ( cd $BD && timeout $lim ctest -E 'aa' --output-on-failure > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) &
  for t in gpu_gemv gpu_interleaved; do for tool in memcheck racecheck synccheck; do
    ( TETRA_TEST_QUICK=1 timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 $BD/tests/$t > $R/logs/san-$tool-$t.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-$t.log ) &
  done; done
  wait; echo "ctest + sanitizers done at $(el) s"
  grep -E "tests passed|tests failed|rc=" $R/logs/ctest.log | tail -3
  for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1) $(tail -1 $f)"; done
fi
echo "total $(el) s"; snap; rm -rf $OUT/r4
