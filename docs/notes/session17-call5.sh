#!/usr/bin/env bash
# Session 17, device call 5 (run 85): why v7 at M = 17..32 takes longer than at M = 64 (run 83:
# standard weights 32.30 / 30.75 us at M = 17 / 32 against 28.86 at M = 64, 14336x4096; run 84:
# the spread fragment blocks 29.36 at M = 32 against 23.5 at 64). Same grid and split count at
# every M <= 64 (BT 64); what differs is the activation tile (at M <= 32 the second CTA's half of
# the 64-token box is all out of bounds, zero-filled by the TMA) and the epilogue's rows.
# Run: C_MAIN=<hash> BUDGET=200 bash docs/notes/session17-call5.sh
# PREDICTION: no number; a candidate is confirmed if the M = 32 kernel shows a longer wait on the
# activation barrier (afull) or more DRAM/L2 traffic per K-tile than M = 64, same instructions.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/r85; mkdir -p $R/logs
( cmake -S . -B build-main -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build build-main -j16 --target tetra_cli >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build $(tail -1 $R/logs/build.log) at $(el) s"
MET=gpu__time_duration.sum,sm__inst_executed.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,sm__cycles_active.avg,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__cycles_active.avg,l1tex__m_xbar2l1tex_read_bytes.sum
for M in 32 64 17; do
  timeout 60 ncu --clock-control none --kernel-name regex:gemm_wgmma_t_kernel --launch-skip 4 --launch-count 4 --metrics $MET \
    --section WarpStateStats build-main/tetra bench --shape ${M}x14336x4096 --a tetra-gemm-frag --b tetra-gemm --blocks 1 --no-replicate > $R/logs/ncu-m$M.txt 2>&1
  echo "== M=$M rc=$? at $(el) s"; grep -E "gemm_wgmma_t_kernel|gpu__time|dram__bytes|lts__t_sectors|inst_executed|stalled|Stall|Warp Cycles" $R/logs/ncu-m$M.txt | head -40
done
tar czf $OUT/r85.tgz -C $OUT r85; rm -rf $OUT/r85
