#!/usr/bin/env bash
# session 10, call 4: main at $C_MAIN (aeb312b: the GEMV's split-K reduce launched as a
# programmatic dependent, merged after call 2's A/B and call 3's sanitizers), tetra_cli, sm_90a.
# Issue 4's calibrated decode figures at the merged code (ceilings, A/A, decode + gpumode,
# small shapes, W4A4 vs W4A16 at M = 1 in both weight layouts), then Nsight Compute of the
# small shape 1x768x6144 (both kernels: where its ~6 us go).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-500}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r4; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r4.tgz.tmp -C $OUT r4 2>/dev/null && mv $OUT/r4.tgz.tmp $OUT/r4.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S .scratch-main -B .scratch-main/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build .scratch-main/b -j16 --target tetra_cli >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build done at $(el) s: $(tail -1 $R/logs/build.log)"
T=.scratch-main/b/tetra; res=$R/results; export TETRA_COMMIT=$C_MAIN
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150; }
step ceilings 25 $T bench ceilings --out $res/ceilings.json
step calibrate 45 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
step gemv-decode 130 $T bench --shape 1x4096x4096,4x4096x4096,8x4096x4096,16x4096x4096,1x14336x4096,4x14336x4096,8x14336x4096,16x14336x4096,1x4096x14336,4x4096x14336,8x4096x14336,16x4096x14336,1x28672x8192,4x28672x8192,8x28672x8192,16x28672x8192,1x7168x16384,4x7168x16384,8x7168x16384,16x7168x16384,1x7168x16384x1,1x4096x7168x8,1x7168x2048x4 --a tetra-gemm-gemv-interleaved --b cublaslt-bf16-tuned,tetra-gemm --graph-below-us 400 $cal --out $res/gemv-prepared-decode.json
step gemv-small 70 $T bench --shape 1x2048x6144,4x2048x6144,8x2048x6144,16x2048x6144,1x768x6144,4x768x6144,8x768x6144,16x768x6144,1x4096x2048,4x4096x2048,8x4096x2048,16x4096x2048 --a tetra-gemm-gemv-interleaved --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/gemv-prepared-small.json
step w4a4-il 60 $T bench --shape 1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384 --a tetra-gemm-w4a4-interleaved --b tetra-gemm-gemv-interleaved,tetra-gemm-w4a4-full-interleaved --graph-below-us 400 $cal --out $res/w4a4-interleaved.json
step w4a4-std 50 $T bench --shape 1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384 --a tetra-gemm-w4a4 --b tetra-gemm,tetra-gemm-w4a4-full --graph-below-us 400 $cal --out $res/w4a4-standard.json
step ncu-gemv-768 40 ncu --clock-control none --launch-skip 6 --launch-count 2 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --print-details all --kernel-name regex:gemv $T bench --shape 1x768x6144 --a tetra-gemm-gemv-interleaved --b tetra-gemm-gemv-interleaved --blocks 1 --no-replicate
grep -E "gemv_|Duration|DRAM Throughput|Grid Size|Waves Per SM|Achieved Occupancy" $R/logs/ncu-gemv-768.log | cut -c1-150
echo "total $(el) s"; snap; rm -rf $OUT/r4
