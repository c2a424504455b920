#!/usr/bin/env bash
# Session 17, device call 3 (run 82): TETRA_SCALE_FRAGMENT_128X64 (v7 reading fragment-ordered
# weights; format side merged from branch fragfmt). Run: C_MAIN=<hash> BUDGET=560 bash docs/notes/session17-call3.sh
# PREDICTIONS (written before the run):
# (a) ctest (all GPU tests) pass, including gpu_gemm_fragment (fragment == standard bits at 64 / 128
#     tokens x 0 / 1 / 2 / 3 / 5 splits, BF16 / FP16 / NVFP4 a; AUTO within the oracle gate; the
#     refusals) and gpu_fragment (device converter == host converter; reference path same bits).
#     compute-sanitizer memcheck / racecheck / synccheck on gpu_gemm_fragment (quick): 0 errors.
# (b) A = tetra-gemm-frag, B = tetra-gemm (standard swizzled weights), one process, B/A time
#     (> 1: the fragment layout faster):
#     - 64x14336x4096, 64x4096x14336, 64x28672x8192: 1.20-1.33 (run 80's probe: -21.3% of the
#       kernel's time in a diag build whose v7 is 14% slower than main's; same absolute saving on
#       main's faster kernel -> 1.33, same fraction -> 1.27; minus fixed costs the probe had too).
#       Refuted below 1.10.
#     - 128x28672x8192 (BT 128): 1.15-1.30. 32x14336x4096: 1.15-1.30.
#     - glm5 64x768x6144 / 64x2048x6144 (run 80: about 7 us of 9-12 us is fixed cost): 1.02-1.10.
#     - 16x4096x14336 (frag runs v7 BT 64; standard runs the GEMV): below 1 (0.5-0.8): the GEMV
#       does not read the layout yet. 256x14336x4096 (frag: v7 BT 128; standard: v10 BT 256):
#       0.8-0.95.
# (c) calibrated against tuned cuBLASLt BF16 (run 76's t_noise and ceilings), tetra = the
#     fragment layout: M = 64 (14336x4096 / 4096x14336 / 28672x8192) about 1.31-1.45 / 1.42-1.57 /
#     1.33-1.47 (v7.5's 1.089 / 1.181 / 1.108 x (b)); still under the issue's 1.8x.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r82; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r82.tgz.tmp -C $OUT r82 2>/dev/null && mv $OUT/r82.tgz.tmp $OUT/r82.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B build-main -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build build-main -j16 >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build: $(tail -1 $R/logs/build.log) at $(el) s"
T=build-main/tetra; export TETRA_COMMIT=$C_MAIN
san() { ( env TETRA_TEST_QUICK=1 timeout $2 compute-sanitizer --tool $1 --error-exitcode 99 build-main/tests/gpu_gemm_fragment > $R/logs/san-$1.log 2>&1; echo "rc=$?" >> $R/logs/san-$1.log ) & }
for tool in memcheck racecheck synccheck; do san $tool 200; done
( timeout 240 ctest --test-dir build-main -L gpu -j4 --output-on-failure > $R/logs/ctest-gpu.log 2>&1; echo "rc=$?" >> $R/logs/ctest-gpu.log ) &
wait; echo "tests done at $(el) s"; snap
echo "ctest: $(grep -E 'tests passed|rc=' $R/logs/ctest-gpu.log | tr '\n' ' ')"; grep -E "Failed|\*\*\*|CHECK failed" $R/logs/ctest-gpu.log | head -10
for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|passed' $f | tr '\n' ' ')"; done
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
step frag-ab 150 $T bench --a tetra-gemm-frag --b tetra-gemm --shape 64x14336x4096,64x4096x14336,64x28672x8192,128x28672x8192,32x14336x4096,64x768x6144,64x2048x6144,16x4096x14336,256x14336x4096 --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/frag-ab.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
cal="--ceilings $C76/ceilings.json --calibration $C76/calibration.json --blocks 10 --no-replicate --graph-below-us 400"
step frag-cal 150 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 64x14336x4096,64x4096x14336,64x28672x8192,64x768x6144,64x2048x6144,128x7168x16384,128x4096x7168,128x7168x2048 $cal --out $R/results/tetra-gemm-frag-calibrated.json
V="--shape 64x28672x8192 --a tetra-gemm-frag --b tetra-gemm --blocks 1 --no-replicate"
MET=sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed.sum,sm__cycles_active.avg,gpu__time_duration.sum
l=$(( $(left) - 5 )); [ $l -gt 60 ] && l=60
[ $l -gt 15 ] && { timeout $l ncu --clock-control none --kernel-name regex:gemm_wgmma_t_kernel --launch-skip 4 --launch-count 4 --metrics $MET $T bench $V > $R/logs/ncu-frag.txt 2>&1
  echo "== ncu rc=$? at $(el) s"; grep -E "gemm_wgmma_t_kernel|sm__|gpu__" $R/logs/ncu-frag.txt | head -30; }
echo "total $(el) s"; snap; rm -rf $OUT/r82
