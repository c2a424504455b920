#!/usr/bin/env bash
# Session 18, device call 3 (run 91): main with run 90's defaults (TETRA_GEMM_FRAG_BT256=1,
# TETRA_GEMV_FRAG_X16=1: the fragment GEMV's 16-byte X loads at M >= 2, AUTO's sm_90 bound 16).
# build-ctl = main with -DTETRA_GEMV_FRAG_X16_MIN_M=99 (the same kernels, old X loop always);
# build-b0 = main with -DTETRA_GEMV_FRAG_X16=0 -DTETRA_GEMM_FRAG_BT256=0 (session 17's routing and kernel).
# Run: C_MAIN=<hash> BUDGET=540 bash docs/notes/session18-call3.sh
# PREDICTIONS (written before the run; B/A = B's time over A's, > 1: A faster):
# (a) the whole ctest passes on main (GPU tests included); memcheck / racecheck on gpu_gemm_fragment
#     (quick, defaults) clean.
# (b) the X16 threshold, A = main (new loop at M >= 2), B = build-ctl (old loop), 4096x14336:
#     M = 2 0.94 (run 90), rising through 1 between M = 3 and 6, M = 7 ~1.15. The default
#     threshold becomes the smallest M from which every measured M reads > 1.
# (c) M = 1 unchanged by the new kernel's second loop (registers 104 -> 122): A = main, B = b0,
#     fragment weights: 1x4096x14336, 1x14336x4096, 1x28672x8192 within 0.98-1.02. 16x4096x14336
#     (main: the GEMV, b0: v7): ~1.12 (run 90: GEMV 20.3 us; run 88: v7 ~0.94 of the standard GEMV
#     at 21.7 us, i.e. ~23 us).
# (d) calibrated against tuned cuBLASLt BF16 (run 76's t_noise and ceilings), fragment weights with
#     main's AUTO: M = 1 / 8 / 16 x 4096x14336 ~1.9 / ~2.2 / ~1.9 (decode GEMV); M = 64 as run 83
#     (1.335 / 1.420 / 1.330, within ~0.02); M = 256 / 512 (BT 256 now): 0.85 / 0.81 / 0.98 and
#     0.85 / 0.80 / 0.82 (run 76's standard-weight ratios x 1.03-1.05, run 90). ggml's own figures
#     (unpaired): 15.6 us at 1x4096x14336, 39.3 at 8x, 457 at 512x.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-540}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r91; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r91.tgz.tmp -C $OUT r91 2>/dev/null && mv $OUT/r91.tgz.tmp $OUT/r91.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 tg=$2; shift 2; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j$J --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
J=10 bld build-main all; J=3 bld build-ctl tetra_shared -DTETRA_GEMV_FRAG_X16_MIN_M=99
J=3 bld build-b0 tetra_shared -DTETRA_GEMV_FRAG_X16=0 -DTETRA_GEMM_FRAG_BT256=0
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
T=build-main/tetra; export TETRA_COMMIT=$C_MAIN
( timeout 230 ctest --test-dir build-main -j4 --output-on-failure > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) &
for tool in memcheck racecheck; do ( env TETRA_TEST_QUICK=1 timeout 220 compute-sanitizer --tool $tool --error-exitcode 99 build-main/tests/gpu_gemm_fragment > $R/logs/san-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool.log ) & done
wait; echo "tests done at $(el) s"; snap
echo "ctest: $(grep -E 'tests passed|rc=' $R/logs/ctest.log | tr '\n' ' ')"; grep -E "Failed|\*\*\*|CHECK failed" $R/logs/ctest.log | head -10
for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|checks passed' $f | tr '\n' ' ')"; done
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
ab="--blocks 5 --no-replicate --graph-below-us 400"
step x16-threshold 50 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-ctl/libtetra.so --shape 2x4096x14336,3x4096x14336,4x4096x14336,5x4096x14336,6x4096x14336,7x4096x14336 $ab --out $R/results/x16-threshold.json
step m1-vs-b0 45 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-b0/libtetra.so --shape 1x4096x14336,1x14336x4096,1x28672x8192,16x4096x14336,256x14336x4096 $ab --out $R/results/main-vs-session17.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
step frag-cal 150 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 1x4096x14336,8x4096x14336,16x4096x14336,64x14336x4096,64x4096x14336,64x28672x8192,256x14336x4096,256x4096x14336,512x14336x4096,512x4096x14336 --ceilings $C76/ceilings.json --calibration $C76/calibration.json --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/tetra-gemm-frag-calibrated.json
echo "total $(el) s"; snap; rm -rf $OUT/r91
