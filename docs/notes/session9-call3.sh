#!/usr/bin/env bash
# session 9, call 3: main at $C_MAIN and n13skinny at $C_SK (tetra_cli each, sm_90a).
# 1. P0, the mma.sync rate probe (call 1's shape 1x1x1 was refused: K must be a multiple of 16).
# 2. ncu of the skinny kernel at 64x14336x4096 (SOL, warp states, source counters): why 50 us.
# 3. tetra tune's held-out score of AUTO on decode + seed000 (the sets session 8 did not score).
# 4. the three seed000 shapes call 2's 150 s limit cut (W4A16 vs tuned cuBLASLt BF16), with
#    call 2's ceilings and calibration (.scratch-lead/r2res).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r3; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r3.tgz.tmp -C $OUT r3 2>/dev/null && mv $OUT/r3.tgz.tmp $OUT/r3.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
for t in main sk; do
  ( cmake -S .scratch-$t -B .scratch-$t/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-$t.log 2>&1 &&
    cmake --build .scratch-$t/b -j8 --target tetra_cli >> $R/logs/build-$t.log 2>&1; echo "rc=$?" >> $R/logs/build-$t.log ) &
done; wait
echo "builds done at $(el) s: $(tail -1 $R/logs/build-main.log) $(tail -1 $R/logs/build-sk.log)"
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-170; }
TETRA_COMMIT=$C_SK step p0 25 .scratch-sk/b/tetra bench --shape 1x16x16 --a probe-mma-sync-rate --b probe-mma-sync-rate --blocks 4 --no-replicate --out $R/results/p0.json
TETRA_COMMIT=$C_SK step ncu-skinny 70 ncu --clock-control none --kernel-name regex:skinny_nvfp4_mma --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis --print-details all .scratch-sk/b/tetra bench --shape 64x14336x4096 --a tetra-gemm-skinny --b tetra-gemm-skinny --blocks 1 --no-replicate
grep -E "Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Block Limit|Grid Size|Block Size|Issued|Eligible|Active Warps|Stall|No Eligible" $R/logs/ncu-skinny.log | head -40
export TETRA_COMMIT=$C_MAIN
step tune 220 .scratch-main/b/tetra tune --shape 1x3072x3072 --holdout-set decode,seed000 --out $R/results/dispatch-table-1shape.txt --json $R/results/tune-holdout-decode-seed000.json
tail -4 $R/logs/tune.log | cut -c1-200
cal="--ceilings .scratch-lead/r2res/ceilings.json --calibration .scratch-lead/r2res/calibration.json --blocks 10 --no-replicate"
step seed000-large 200 .scratch-main/b/tetra bench --shape 8192x4096x14336,8192x28672x8192,16384x16384x16384 --a tetra-gemm --b cublaslt-bf16-tuned $cal --out $R/results/tetra-gemm-seed000-large.json
echo "total $(el) s"; snap; rm -rf $OUT/r3
