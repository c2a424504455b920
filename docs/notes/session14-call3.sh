#!/usr/bin/env bash
# Session 14, device call 3 (run 68). Prepare .scratch-n = main + v10.6b patch (see call 1's
# header for the commands, with docs/notes/patches/v10.6b-persistent-one-wave-rule.patch).
# Part 1: v10.6b (TETRA_GEMM_SS_PERSISTENT=1, bar.arrive handover as run 66, one-wave rule)
# against main (b0), eager (the protocol's timing), legs b0 / p / b0 / p (two ABA pairs).
# Predictions (written before the run, from runs 66-67): p - b0 ratio: 4096x4096x1024 +0.03
# (run 67: +0.031), 2048x14336x4096 0 +- 0.02 (run 67's one pair -0.033, v10.4 run 60 +0.015),
# 4096^3 +0.005 (run 67 +0.005), 4096x4096x14336 0..+0.01.
# Part 2: ncu on main's v7 (gemm_wgmma_t_kernel, BT 64) at 64x28672x8192: warp-state and
# per-SASS-instruction stall samples. Expectation: the consumer warps' top stalls sit in the
# dequantization chain (short scoreboard on the raw-fragment LDS, wait / math dependency on
# the PRMT-IMAD-LOP3-HMUL2 chain) and at the wgmma wait, tensor pipe active well under 50%.
# Run: C_N=<hash> C_P=<hash>+v10.6b BUDGET=520 bash docs/notes/session14-call3.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-520}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/n3; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/n3.tgz.tmp -C $OUT n3 2>/dev/null && mv $OUT/n3.tgz.tmp $OUT/n3.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B /tmp/b0 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-b0.log 2>&1 &&
  cmake --build /tmp/b0 -j8 --target tetra_cli >> $R/logs/build-b0.log 2>&1; echo "rc=$?" >> $R/logs/build-b0.log ) &
( cmake -S .scratch-n -B /tmp/p -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_GEMM_SS_PERSISTENT=1 > $R/logs/build-p.log 2>&1 &&
  cmake --build /tmp/p -j8 --target tetra_cli >> $R/logs/build-p.log 2>&1; echo "rc=$?" >> $R/logs/build-p.log ) &
wait; echo "builds at $(el) s: b0 $(tail -1 $R/logs/build-b0.log) p $(tail -1 $R/logs/build-p.log)"
bench() { # tag build commit shapes
  local l=$(( $(left) - 130 )); [ $l -lt 40 ] && { echo "$1 SKIPPED"; return; }; [ $l -gt 90 ] && l=90
  TETRA_COMMIT=$3 timeout $l /tmp/$2/tetra bench --shape $4 --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
    --out $R/results/$1.json > $R/logs/$1.log 2>&1
  echo "== $1 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$1.log | cut -c1-150; snap; }
S=2048x14336x4096,4096x4096x1024,4096x4096x4096,4096x4096x14336
bench e-b0a b0 $C_N $S; bench e-pa p $C_P $S; bench e-b0b b0 $C_N $S; bench e-pb p $C_P $S
V="--shape 64x28672x8192 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate"
echo "ncu-v7: ncu --clock-control none --kernel-name regex:gemm_wgmma_t_kernel --launch-skip 2 --launch-count 1 [--section WarpStateStats --section ComputeWorkloadAnalysis --section SpeedOfLight --section Occupancy] tetra bench $V" > $R/logs/commands.txt
timeout 60 ncu --clock-control none --kernel-name regex:gemm_wgmma_t_kernel --launch-skip 2 --launch-count 1 --section SpeedOfLight \
  --section WarpStateStats --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats /tmp/b0/tetra bench $V > $R/logs/ncu-v7-64.txt 2>&1
echo "== ncu rc=$? at $(el) s"; grep -E "Duration|SM Frequency|Issue Slots Busy|Warp Cycles Per Issued|Stall|Grid Size|Registers|Theoretical Occ|Achieved Occ" $R/logs/ncu-v7-64.txt | head -30; snap
timeout 70 ncu --clock-control none --kernel-name regex:gemm_wgmma_t_kernel --launch-skip 2 --launch-count 1 --section WarpStateStats \
  --section SourceCounters --page source --print-source sass --csv /tmp/b0/tetra bench $V > $R/logs/ncu-src-v7-64.csv 2> $R/logs/ncu-src.err
echo "== ncu-src rc=$? at $(el) s $(wc -l < $R/logs/ncu-src-v7-64.csv) lines"
echo "total $(el) s"; snap; rm -rf $OUT/n3
