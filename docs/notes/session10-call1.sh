#!/usr/bin/env bash
# session 10, call 1: main at $C_MAIN (4ece790; tetra_cli, sm_90a). The session-9 offline
# branches (n15wgskinny, n15gemv, n15tune) did not survive into this session's checkout, so
# this call measures main only:
# 1. ceilings + A/A calibration;
# 2. Nsight Compute of v10.1 at 4096^3 and 2048x14336x4096 (seed000's weakest, K = 4096) and of
#    v7 at 64x14336x4096 (issue 5's M = 64 row): which stall binds;
# 3. issue 4's calibrated GEMV sweeps at current main (run 32's are before the half-selectors);
# 4. Nsight Compute of the GEMV at 1x14336x4096 (a 33 MB shape: 44% of read bandwidth);
# 5. W4A4 at 16384^3 (run 38's limit cut it).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r1; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r1.tgz.tmp -C $OUT r1 2>/dev/null && mv $OUT/r1.tgz.tmp $OUT/r1.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S .scratch-main -B .scratch-main/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build .scratch-main/b -j16 --target tetra_cli >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build done at $(el) s: $(tail -1 $R/logs/build.log)"
T=.scratch-main/b/tetra; res=$R/results; export TETRA_COMMIT=$C_MAIN
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150; }
NCU="ncu --clock-control none --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis --print-details all"
nsum() { grep -E "Duration|Compute \(SM\) Throughput|DRAM Throughput|Memory Throughput|Registers|Achieved Occupancy|Issued Ipc|Eligible Warps|Active Warps Per|No Eligible|Stall|Tensor" $R/logs/$1.log | head -40 | cut -c1-150; }
step ceilings 25 $T bench ceilings --out $res/ceilings.json
step calibrate 45 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
step ncu-v101-4096 60 $NCU --kernel-name regex:gemm_wgmma_t_ss $T bench --shape 4096x4096x4096 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate; nsum ncu-v101-4096
step ncu-v101-2048 60 $NCU --kernel-name regex:gemm_wgmma_t_ss $T bench --shape 2048x14336x4096 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate; nsum ncu-v101-2048
step ncu-v7-64 50 $NCU --kernel-name regex:gemm_wgmma_t_kernel $T bench --shape 64x14336x4096 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate; nsum ncu-v7-64
step gemv-decode 130 $T bench --shape 1x4096x4096,4x4096x4096,8x4096x4096,16x4096x4096,1x14336x4096,4x14336x4096,8x14336x4096,16x14336x4096,1x4096x14336,4x4096x14336,8x4096x14336,16x4096x14336,1x28672x8192,4x28672x8192,8x28672x8192,16x28672x8192,1x7168x16384,4x7168x16384,8x7168x16384,16x7168x16384,1x7168x16384x1,1x4096x7168x8,1x7168x2048x4 --a tetra-gemm-gemv-interleaved --b cublaslt-bf16-tuned,tetra-gemm --graph-below-us 400 $cal --out $res/gemv-prepared-decode.json
step gemv-small 70 $T bench --shape 1x2048x6144,4x2048x6144,8x2048x6144,16x2048x6144,1x768x6144,4x768x6144,8x768x6144,16x768x6144,1x4096x2048,4x4096x2048,8x4096x2048,16x4096x2048 --a tetra-gemm-gemv-interleaved --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/gemv-prepared-small.json
step ncu-gemv-14336 40 ncu --clock-control none --launch-skip 4 --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --print-details all --kernel-name regex:gemv $T bench --shape 1x14336x4096 --a tetra-gemm-gemv-interleaved --b tetra-gemm-gemv-interleaved --blocks 1 --no-replicate; nsum ncu-gemv-14336
step w4a4-16384 80 $T bench --shape 16384x16384x16384 --a tetra-gemm-w4a4 --b cublaslt-bf16-tuned $cal --out $res/tetra-gemm-w4a4-16384.json
echo "total $(el) s"; snap; rm -rf $OUT/r1
