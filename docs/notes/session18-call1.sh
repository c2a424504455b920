#!/usr/bin/env bash
# Session 18, device call 1 (run 89): the v10 half-tile patch A/B, and two ncu readings.
# Run: C_MAIN=<hash> BUDGET=330 bash docs/notes/session18-call1.sh ; .scratch-h10 = main + patches/v10-half-tile.patch.
# PREDICTIONS (written before the run):
# (a) v10 half tile (gemm-sm90.md, "v10 half tile"): gpu_gemm wgmma_t hash lines equal main's, also
#     with TETRA_GEMM_SS_CLUSTERS=2 (the persistent kernel walks units); memcheck / racecheck /
#     synccheck clean. Time, A = main, B = patched (--lib-b), B/A: 300x14336x4096 and 300x4096x14336
#     1.02-1.05 (one of two token tiles skips a wholly-out-of-bounds box); 1100x4096x4096 (M % 256 =
#     76) 1.00-1.03; 256x14336x4096 and 512x4096x14336 (M % 256 = 0) within 0.005 of 1.
#     Refuted: the M % 256 in 1..128 shapes below 1.01.
# (b) ncu, the fragment GEMV against the standard GEMV at 8x4096x14336 (fragment-layout.md, "Why the
#     fragment GEMV loses at M = 8 / 16"): global-load L1 wavefronts per warp-segment ~128 (fragment)
#     against ~32 (standard); L1/TEX throughput % of peak higher than the standard kernel's and the
#     top unit in SOL for the fragment kernel. Refuted if the fragment kernel's global-load
#     wavefronts are < 2x the standard kernel's: then the loss is elsewhere (stall profile).
# (c) ncu, v7 on fragment weights at 64x14336x4096 (AUTO: BT 64, 1 split, 112 CTAs): what binds at
#     M = 64 (not measured since the layout change). Expect: tensor pipe active ~35-45% of elapsed
#     (7.6 us of work at peak in ~22.9 us with 112 of 132 SMs), L2 throughput high (the activation
#     tile is re-read by every 128-row CTA: A traffic about equal to W traffic at BT 64), DRAM ~35%.
#     This is a reading for the next step, not a pass/fail.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-330}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r89; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r89.tgz.tmp -C $OUT r89 2>/dev/null && mv $OUT/r89.tgz.tmp $OUT/r89.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local src=$1 dir=$2 tg=$3; ( cmake -S $src -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-$(basename $dir).log 2>&1 &&
  cmake --build $dir -j8 --target $tg >> $R/logs/build-$(basename $dir).log 2>&1; echo "rc=$?" >> $R/logs/build-$(basename $dir).log ) & }
bld . build-main "tetra_cli tetra_shared gpu_gemm"; bld .scratch-h10 build-h10 "tetra_shared gpu_gemm"
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
T=build-main/tetra; export TETRA_COMMIT=$C_MAIN
san() { ( env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t TETRA_GEMM_SS_CLUSTERS=2 timeout 200 compute-sanitizer --tool $1 --error-exitcode 99 build-h10/tests/gpu_gemm > $R/logs/san-$1.log 2>&1; echo "rc=$?" >> $R/logs/san-$1.log ) & }
for tool in memcheck racecheck synccheck; do san $tool; done
hash() { local tag=$1; shift; ( for b in main h10; do env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t "$@" timeout 200 build-$b/tests/gpu_gemm > $R/logs/$b-hash$tag.log 2>&1; done ) & }
hash "" ; hash -c2 TETRA_GEMM_SS_CLUSTERS=2
wait; echo "tests done at $(el) s"; snap
for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|checks passed' $f | tr '\n' ' ')"; done
for tag in "" -c2; do grep -c "all checks passed" $R/logs/h10-hash$tag.log; grep "CHECK failed" $R/logs/h10-hash$tag.log | head -3
  grep hash $R/logs/main-hash$tag.log | sort > $R/logs/h-main$tag.txt; grep hash $R/logs/h10-hash$tag.log | sort > $R/logs/h-h10$tag.txt
  echo "hash$tag: main $(wc -l < $R/logs/h-main$tag.txt) h10 $(wc -l < $R/logs/h-h10$tag.txt) differing: $(comm -3 $R/logs/h-main$tag.txt $R/logs/h-h10$tag.txt | wc -l)"; done
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
ab="--blocks 6 --no-replicate --graph-below-us 400"
step halftile-v10 90 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-h10/libtetra.so --shape 300x14336x4096,300x4096x14336,1100x4096x4096,256x14336x4096,512x4096x14336 $ab --out $R/results/v10-halftile.json
# (b) ncu GEMV: one arm on both sides so every launch is that arm's kernel
NS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section LaunchStats"
step ncu-gemv-frag 40 ncu --clock-control none --kernel-name regex:gemv_nvfp4_mma_frag --launch-skip 2 --launch-count 1 $NS $T bench --a tetra-gemm-frag --b tetra-gemm-frag --shape 8x4096x14336 --blocks 1 --no-replicate
step ncu-gemv-std 40 ncu --clock-control none --kernel-name regex:gemv_nvfp4_mma --launch-skip 2 --launch-count 1 $NS $T bench --a tetra-gemm --b tetra-gemm --shape 8x4096x14336 --blocks 1 --no-replicate
step ncu-gemv-frag-src 40 ncu --clock-control none --kernel-name regex:gemv_nvfp4_mma_frag --launch-skip 2 --launch-count 1 --section WarpStateStats --section SourceCounters --page source --print-source sass --csv $T bench --a tetra-gemm-frag --b tetra-gemm-frag --shape 8x4096x14336 --blocks 1 --no-replicate
# (c) ncu v7 fragment at M = 64
step ncu-v7frag-64 45 ncu --clock-control none --kernel-name regex:gemm_wgmma_t_kernel --launch-skip 2 --launch-count 1 $NS --section ComputeWorkloadAnalysis --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,sm__cycles_active.avg $T bench --a tetra-gemm-frag --b tetra-gemm-frag --shape 64x14336x4096 --blocks 1 --no-replicate
step ncu-v7frag-64-src 45 ncu --clock-control none --kernel-name regex:gemm_wgmma_t_kernel --launch-skip 2 --launch-count 1 --section WarpStateStats --section SourceCounters --page source --print-source sass --csv $T bench --a tetra-gemm-frag --b tetra-gemm-frag --shape 64x14336x4096 --blocks 1 --no-replicate
echo "total $(el) s"; snap; rm -rf $OUT/r89
