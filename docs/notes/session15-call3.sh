#!/usr/bin/env bash
# Session 15 call 3 (run 73): (a) v10.8 replication, (b) v7 dequantization probes, (c) why v7.4 did not move.
# Trees (untracked, deleted after the call): .scratch-0 = git archive f283de9 (main before v10.8);
# .scratch-p = main 058bed1 + the probe (TETRA_GEMM_DIAG build, modes 5/6/7 in dequant_frag,
# docs/notes/patches/v7-probe-dequant.patch); .scratch-s = f283de9 + v7.4-streamk.patch.
# Run: C_M=058bed1 C_N=f283de9 BUDGET=420 bash docs/notes/session15-call3.sh
# No correctness run for m: its gemm_sm90.cu equals run 71's p8 tree but for the #define default
# line that CMake overrides (tests and the 3 sanitizers passed there).
# PREDICTIONS (written before the run):
# (a) m - b0 paired ratio, legs m,b0,m,b0 (the reverse of run 72's order): 4096x4096x1024 +0.03 to
#     +0.07; 4096x4096x14336 and 8192x4096x14336 within +-0.02 and tetra's own time within 1% of
#     b0's (run 72: 726.13/711.87 vs 729.97/710.92; 1439.67/1437.98 vs 1443.71/1439.70). Refuted
#     (revert v10.8) if m's tetra time is > 1% above b0's in both pairs at a K = 14336 shape.
# (b) DIAG modes on v7 (same binary; 0 = v7's dequantization, 1 = none, 5 = no gather (lds64 of
#     8 bytes), 6 = scales as 16-bit values (lds64 + 4 PRMT instead of scale_pairs4's ~11 ALU
#     + 4 HMUL2 per row), 7 = 5 + 6). ALU instructions per thread per K-tile (estimate): 0 ~78,
#     5 ~66, 6 ~60, 7 ~48. If the consumers are ALU-bound: 64x28672x8192 (mode 0 ~115 us):
#     5 -5..-8%, 6 -6..-10%, 7 -12..-18%; mode 1 ~65 us (run 64). The ALU hypothesis is refuted
#     if mode 7 gains < 5% at 64x16896x8192 (one wave).
#     ncu (mode 0 vs 7, 64x28672x8192): sm__inst_executed_pipe_alu falls by ~35%.
# (c) v7.4: at 64x33792x8192 (132 units, 2 per cluster with SK_CLUSTERS=66: no split pieces)
#     the sk kernel within 3% of v7 (b0) -> its per-K-tile rate is v7's; then run 72's
#     no-gain at 64x28672x8192 comes from the split pieces (fix-up) or load imbalance.
#     ncu: the sk kernel is the one launched at 64x28672x8192 (grid 132 CTAs), duration ~ run
#     72's 115 us.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-420}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/c3; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/c3.tgz.tmp -C $OUT c3 2>/dev/null && mv $OUT/c3.tgz.tmp $OUT/c3.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { ( cmake -S $2 -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "${@:3}" > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j4 --target tetra_cli >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log ) & }
bld b0 .scratch-0; bld m .; bld p .scratch-p -DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_DIAG; bld s .scratch-s -DTETRA_GEMM_V7_STREAMK=1
wait; echo "builds at $(el) s: $(for b in b0 m p s; do echo -n "$b $(tail -1 $R/logs/build-$b.log) "; done)"
bench() { # tag build commit shapes [env...]
  local l=$(( $(left) - 5 )); [ $l -lt 25 ] && { echo "$1 SKIPPED"; return; }; [ $l -gt 110 ] && l=110
  env "${@:5}" TETRA_COMMIT=$3 timeout $l /tmp/$2/tetra bench --shape $4 --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
    --out $R/results/$1.json > $R/logs/$1.log 2>&1
  echo "== $1 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$1.log | cut -c1-130; snap; }
# (b) probes first (small shapes, short)
PS=64x28672x8192,64x16896x8192,64x4096x14336
for md in 0 5 6 7 1 0; do bench p-$md-$(el) p $C_M+probe $PS TETRA_GEMM_DIAG_MODE=$md; done
# (c) v7.4
KS=64x33792x8192,64x28672x8192
bench k-b0 b0 $C_N $KS; bench k-s s $C_N+v7.4 $KS; bench k-s66 s $C_N+v7.4 64x33792x8192 TETRA_GEMM_V7_SK_CLUSTERS=66
V="--shape 64x28672x8192 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate"
timeout 60 ncu --clock-control none --kernel-name regex:gemm_wgmma_t --launch-skip 2 --launch-count 1 --section SpeedOfLight \
  --section LaunchStats /tmp/s/tetra bench $V > $R/logs/ncu-sk.txt 2>&1
echo "== ncu-sk rc=$? at $(el) s"; grep -E "gemm_wgmma|Duration|Grid Size|Cluster Size" $R/logs/ncu-sk.txt | head; snap
MET=sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_fmaheavy.sum,sm__inst_executed.sum,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,gpu__time_duration.sum
for md in 0 7; do
  TETRA_GEMM_DIAG_MODE=$md timeout 60 ncu --clock-control none --kernel-name regex:gemm_wgmma_t_kernel --launch-skip 2 --launch-count 1 \
    --metrics $MET /tmp/p/tetra bench $V > $R/logs/ncu-p$md.txt 2>&1
  echo "== ncu-p$md rc=$? at $(el) s"; grep -E "sm__|gpu__" $R/logs/ncu-p$md.txt | head -10; snap
done
# (a) v10.8 replication, order m, b0, m, b0
S3=4096x4096x1024,4096x4096x14336,8192x4096x14336
bench e-ma m $C_M $S3; bench e-b0a b0 $C_N $S3; bench e-mb m $C_M $S3; bench e-b0b b0 $C_N $S3
echo "total $(el) s"; snap; rm -rf $OUT/c3
