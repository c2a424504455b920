#!/usr/bin/env bash
# Session 18, helper gx (written without a GPU; NOT yet run): the fragment GEMV's X as 16-byte loads,
# build switch TETRA_GEMV_FRAG_X16 (default 0 = main's code and SASS). Notes: fragment-layout.md,
# "X as 16-byte loads (helper gx, NOT run on a GPU)".
# Run from the gx tree: C_MAIN=<hash> BUDGET=480 bash docs/notes/session18-gx.sh
# Builds (sm_90a): build-x16 (-DTETRA_GEMV_FRAG_X16=1), build-x16ctl (the same kernels, threshold 99:
# the new loop never runs; --lib-b control in one process), build-x16v2 (=2: 8-byte loads variant),
# build-x16a2 (=1 with -DTETRA_GEMV_FRAG_X16_AHEAD=2: X two segments ahead at M <= 8).
# PREDICTIONS (before any device run; B/A = B's time over A's, > 1: A faster):
# (a) ctest gpu_gemm_fragment (x16_case lines "16-byte X == 4-byte X bits" at M = 1/2/8/9/12/16),
#     gpu_gemm_fragment_x16 (every GEMV case through the new loop, AUTO GEMV up to M = 16),
#     gpu_gemv: pass; the v2 build's gpu_gemm_fragment with MIN_M=1 passes; memcheck / racecheck /
#     synccheck clean.
# (b) A = tetra-gemm-frag (X16, MAX_M=16), B = tetra-gemm (standard weights):
#     1x4096x14336 1.17 (1.15-1.18, unchanged: M = 1 keeps the old loop), 2x 1.12 (1.05-1.17),
#     8x 1.05 (0.98-1.12; run 87: 0.922), 16x 0.90 (0.82-1.00; 0.749), 16x28672x8192 0.82
#     (0.72-0.92; 0.657).
# (c) the same with TETRA_GEMV_FRAG_X16_MIN_M=99 (old loop, same binary): run 87's ratios within 1-2%.
# (d) one process, A = build-x16, B = build-x16ctl (old loop), B/A: 2x 1.00 (0.97-1.03),
#     8x 1.14 (1.06-1.22), 12x 1.18, 16x 1.20 (1.10-1.30), 16x28672x8192 1.25 (1.10-1.35).
#     Refuted (the L1-wavefront reading, fragment-layout.md) if 8x is below 1.03.
# (e) one process, A = build-x16, B = build-x16v2 (8-byte loads), B/A: within 0.95-1.05 at 8x and
#     16x; above 1 if L1 wavefronts bind (v2 has 2x the load instructions), below 1 if issue binds
#     (v2 has 15-20% fewer instructions per segment).
# (f) one process, A = build-x16a2 (X two segments ahead at M <= 8), B = build-x16, B/A: 2x 1.00
#     (0.97-1.03), 8x 1.04 (0.98-1.10: more if run 89's X wait is the one-segment distance, less if
#     it is queueing), 16x 1.00 +- 0.01 (same two-tile loop). Its gpu_gemm_fragment (MIN_M=1) passes.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-480}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/rgx; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/rgx.tgz.tmp -C $OUT rgx 2>/dev/null && mv $OUT/rgx.tgz.tmp $OUT/rgx.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 tg=$2; shift 2; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j4 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-x16 "tetra_cli tetra_shared gpu_gemm_fragment gpu_gemv" -DTETRA_GEMV_FRAG_X16=1
bld build-x16ctl tetra_shared -DTETRA_GEMV_FRAG_X16=1 -DTETRA_GEMV_FRAG_X16_MIN_M=99
bld build-x16v2 "tetra_shared gpu_gemm_fragment" -DTETRA_GEMV_FRAG_X16=2
bld build-x16a2 "tetra_shared gpu_gemm_fragment" -DTETRA_GEMV_FRAG_X16=1 -DTETRA_GEMV_FRAG_X16_AHEAD=2
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
T=build-x16/tetra; export TETRA_COMMIT=$C_MAIN
san() { ( env TETRA_TEST_QUICK=1 TETRA_GEMV_FRAG_X16_MIN_M=1 TETRA_GEMV_FRAG_MAX_M=16 timeout 200 compute-sanitizer --tool $1 --error-exitcode 99 build-x16/tests/gpu_gemm_fragment > $R/logs/san-$1.log 2>&1; echo "rc=$?" >> $R/logs/san-$1.log ) & }
for tool in memcheck racecheck synccheck; do san $tool; done
( timeout 230 ctest --test-dir build-x16 -R 'gpu_gemm_fragment|gpu_gemv$' --output-on-failure > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) &
for v in v2 a2; do ( env TETRA_GEMV_FRAG_X16_MIN_M=1 TETRA_GEMV_FRAG_MAX_M=16 timeout 200 build-x16$v/tests/gpu_gemm_fragment > $R/logs/$v-test.log 2>&1; echo "rc=$?" >> $R/logs/$v-test.log ) & done
wait; echo "tests done at $(el) s"; snap
echo "ctest: $(grep -E 'tests passed|rc=' $R/logs/ctest.log | tr '\n' ' ')"; grep -E "Failed|\*\*\*|CHECK failed" $R/logs/ctest.log | head -10
grep -E "x16 M=" $R/logs/ctest.log | head -12
for v in v2 a2; do echo "$v test: $(grep -E 'rc=|checks passed' $R/logs/$v-test.log | tr '\n' ' ')"; grep -E "x16 M=|CHECK failed" $R/logs/$v-test.log | head -12; done
for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|checks passed' $f | tr '\n' ' ')"; done
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
S=2x4096x14336,8x4096x14336,16x4096x14336,16x28672x8192,1x4096x14336
ab="--blocks 6 --no-replicate"
step x16-vs-std 90 env TETRA_GEMV_FRAG_MAX_M=16 $T bench --a tetra-gemm-frag --b tetra-gemm --shape $S $ab --out $R/results/x16-vs-std.json
step x16ctl-vs-std 90 env TETRA_GEMV_FRAG_MAX_M=16 TETRA_GEMV_FRAG_X16_MIN_M=99 $T bench --a tetra-gemm-frag --b tetra-gemm --shape $S $ab --out $R/results/x16ctl-vs-std.json
step x16-vs-ctl 90 env TETRA_GEMV_FRAG_MAX_M=16 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-x16ctl/libtetra.so --shape 2x4096x14336,8x4096x14336,12x4096x14336,16x4096x14336,16x28672x8192 $ab --out $R/results/x16-vs-ctl.json
step x16-vs-v2 70 env TETRA_GEMV_FRAG_MAX_M=16 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-x16v2/libtetra.so --shape 8x4096x14336,16x4096x14336,16x28672x8192 $ab --out $R/results/x16-vs-v2.json
step x16a2-vs-x16 60 env TETRA_GEMV_FRAG_MAX_M=16 build-x16/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-a build-x16a2/libtetra.so --shape 2x4096x14336,8x4096x14336,16x4096x14336 $ab --out $R/results/x16a2-vs-x16.json
NS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section InstructionStats"
step ncu-x16-8 40 env TETRA_GEMV_FRAG_MAX_M=16 ncu --clock-control none --kernel-name regex:gemv_nvfp4_mma_frag --launch-skip 2 --launch-count 1 $NS $T bench --a tetra-gemm-frag --b tetra-gemm-frag --shape 8x4096x14336 --blocks 1 --no-replicate
step ncu-x16ctl-8 40 env TETRA_GEMV_FRAG_MAX_M=16 TETRA_GEMV_FRAG_X16_MIN_M=99 ncu --clock-control none --kernel-name regex:gemv_nvfp4_mma_frag --launch-skip 2 --launch-count 1 $NS $T bench --a tetra-gemm-frag --b tetra-gemm-frag --shape 8x4096x14336 --blocks 1 --no-replicate
echo "total $(el) s"; snap; rm -rf $OUT/rgx
