#!/usr/bin/env bash
# Session 17, device call 1 (run 80). Run: C_MAIN=<hash> BUDGET=540 bash docs/notes/session17-call1.sh
# Trees: . = main; .scratch-p8 = git archive of main + docs/notes/patches/v7-probe-fragment-layout.patch
# (TETRA_GEMM_DIAG build; untracked, deleted after the call).
# PREDICTIONS (written before the run):
# (a) main: gpu_gemv (cluster-K AUTO, refitted rule ed6e6f2) and gpu_gemv_ck pass; gpu_gemv's
#     cluster-K cases under memcheck / racecheck / synccheck: 0 errors (the post-run-78 test
#     changes: mode parsing, staged-X dtype flag, residency log).
# (b) residency log: run 78's candidate for the S = 4 / 512-CTA loss holds if fewer than 128
#     4-CTA clusters are resident at once (a second wave). No number predicted.
# (c) cluster-K refit A/B (A = main AUTO, B = build-ck0 off, B/A time): 1x14336x4096,
#     16x14336x4096, 1x7168x2048x4 within 0.01 of 1 (the refit leaves them to the ordinary
#     kernels); controls as run 79: 1x768x6144 ~1.17, 16x28672x8192 ~1.08.
# (d) fragment-layout probe (ncu, 64x28672x8192, one DIAG binary): mode 8 about -19% duration
#     and about -24% instructions against mode 0. If the duration moves by less than -10%, the
#     prepared layout is not worth a format of its own.
# (e) glm5 M = 64 (64x768x6144: rule BT 64 x 16 splits, reduce kernel; 64x2048x6144: BT 64 x 8
#     splits, 128 CTAs): ncu per kernel. Expect the wgmma-T kernel to be 60-75% of the bench's
#     9.05 / 11.72 us (run 79) and the reduce kernel 1-2 us. tetra tune with the new pinned
#     BT-64 / 128 split counts: the rule's pick within 5% of the best pinned one.
# (f) GEMV 1x768x6144 (cluster-K S = 6): ncu duration ~4 us (bench 5.29 us incl. graph launch),
#     DRAM throughput well under 50% of peak (latency-bound).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-540}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r80; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r80.tgz.tmp -C $OUT r80 2>/dev/null && mv $OUT/r80.tgz.tmp $OUT/r80.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local src=$1 dir=$2 tg=$3; shift 3; ( cmake -S $src -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$(basename $dir).log 2>&1 &&
  cmake --build $dir -j6 --target $tg >> $R/logs/build-$(basename $dir).log 2>&1; echo "rc=$?" >> $R/logs/build-$(basename $dir).log ) & }
bld . build-main "tetra_cli tetra_shared gpu_gemv"; bld . build-ck0 tetra_shared -DTETRA_GEMV_CLUSTER_K=0
bld .scratch-p8 build-p8 tetra_cli -DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_DIAG
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
T=build-main/tetra; export TETRA_COMMIT=$C_MAIN
# (a) tests and sanitizers, in parallel (correctness only)
san() { ( env TETRA_GEMV_CK=1 TETRA_GEMV_TEST_ONLY=ck timeout $2 compute-sanitizer --tool $1 --error-exitcode 99 build-main/tests/gpu_gemv > $R/logs/san-$1.log 2>&1; echo "rc=$?" >> $R/logs/san-$1.log ) & }
for tool in memcheck racecheck synccheck; do san $tool 150; done
( timeout 150 ctest --test-dir build-main -R 'gpu_gemv$|gpu_gemv_ck' -j2 --output-on-failure > $R/logs/ctest-gemv.log 2>&1; echo "rc=$?" >> $R/logs/ctest-gemv.log ) &
wait; echo "tests done at $(el) s"; snap
for f in $R/logs/ctest-*.log; do echo "$(basename $f .log): $(grep -E 'tests passed|rc=' $f | tr '\n' ' ')"; grep -E "Failed|\*\*\*" $f | head -5; done
for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|checks passed' $f | tr '\n' ' ')"; done
# (b) residency per S
TETRA_GEMV_TEST_ONLY=ck timeout 60 build-main/tests/gpu_gemv > $R/logs/gemv-ck-only.log 2>&1; grep -iE "resident|checks passed" $R/logs/gemv-ck-only.log | head -20
# (d) fragment probe, ncu, modes 0 8 0 in one binary
V="--shape 64x28672x8192 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate"
MET=sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed.sum,sm__cycles_active.avg,gpu__time_duration.sum
for md in 0 8 0; do
  TETRA_GEMM_DIAG_MODE=$md timeout 60 ncu --clock-control none --kernel-name regex:gemm_wgmma_t_kernel --launch-skip 2 --launch-count 1 \
    --metrics $MET build-p8/tetra bench $V > $R/logs/ncu-p8-mode$md-$(el).txt 2>&1
  echo "== ncu probe mode $md rc=$? at $(el) s"; grep -E "sm__|gpu__" $R/logs/ncu-p8-mode$md-*.txt | tail -5
done; snap
# (e) glm5 M = 64: per-kernel ncu on main, then the pinned-split sweep
for s in 64x768x6144 64x2048x6144; do
  timeout 60 ncu --clock-control none --kernel-name regex:"gemm_wgmma" --launch-skip 4 --launch-count 4 --section SpeedOfLight --section LaunchStats \
    $T bench --shape $s --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate > $R/logs/ncu-glm5-$s.txt 2>&1
  echo "== ncu $s rc=$? at $(el) s"; grep -E "gemm_wgmma|Duration|Grid Size|Cluster Size|Memory Throughput|DRAM Through" $R/logs/ncu-glm5-$s.txt | head -24
done; snap
# (f) GEMV at 1x768x6144
timeout 60 ncu --clock-control none --kernel-name regex:"gemv" --launch-skip 4 --launch-count 2 --section SpeedOfLight --section LaunchStats --section MemoryWorkloadAnalysis \
  $T bench --shape 1x768x6144 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate > $R/logs/ncu-gemv-1x768x6144.txt 2>&1
echo "== ncu gemv rc=$? at $(el) s"; grep -E "gemv|Duration|Grid Size|Cluster Size|Memory Throughput|DRAM Through|L2 Hit" $R/logs/ncu-gemv-1x768x6144.txt | head -20; snap
l=$(( $(left) - 100 )); [ $l -gt 90 ] && l=90
if [ $l -gt 20 ]; then timeout $l $T tune --shape 64x768x6144,64x2048x6144,64x14336x4096 --holdout-shape none --out $R/results/tune-m64.txt \
  --json $R/results/tune-m64.json > $R/logs/tune-m64.log 2>&1; echo "== tune rc=$? at $(el) s"; tail -8 $R/logs/tune-m64.log; fi; snap
# (c) cluster-K refit A/B
l=$(( $(left) - 8 ))
if [ $l -gt 30 ]; then timeout $l $T bench --a tetra-gemm --b tetra-gemm --lib-b build-ck0/libtetra.so \
  --shape 1x14336x4096,16x14336x4096,1x7168x2048x4,1x768x6144,16x28672x8192 --blocks 6 --no-replicate --graph-below-us 400 \
  --out $R/results/ck-refit-ab.json > $R/logs/ck-refit-ab.log 2>&1
echo "== ck-refit rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/ck-refit-ab.log | cut -c1-150; fi
echo "total $(el) s"; snap; rm -rf $OUT/r80
