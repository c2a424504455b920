#!/usr/bin/env bash
# Session 17, device call 4 (run 83): the fragment layout with contiguous 4096-byte blocks (b8cf412).
# Run: C_MAIN=<hash> BUDGET=400 bash docs/notes/session17-call4.sh
# Trees: . = main; .scratch-spread = git archive 2ac5a6d (run 82's version: blocks spread over 128 rows).
# PREDICTIONS (written before the run):
# (a) gpu_gemm_fragment, gpu_fragment, gpu_gemm_reference pass; compute-sanitizer memcheck /
#     racecheck / synccheck on gpu_gemm_fragment (quick) and memcheck on gpu_fragment: clean.
# (b) A = main's tetra-gemm-frag (contiguous), B = 2ac5a6d's (spread) via --lib-b, B/A time:
#     0.98-1.03 at 64x14336x4096, 64x4096x14336, 64x28672x8192, 128x28672x8192 (the raw TMA moves
#     the same 4096 bytes per K-tile; only the DRAM pattern changes).
# (c) A = tetra-gemm-frag, B = tetra-gemm (standard), B/A across M at 14336x4096 (M = 17, 24, 32,
#     48, 64) and 1x4096x14336: run 82 had 1.223 at M = 64 and 1.069 at M = 32; M = 1 below 1
#     (v7 against the GEMV). Looking for where the M = 32 anomaly starts; no number predicted.
# (d) calibrated against cuBLAS (run 76's t_noise): M = 64 as run 82 within noise (1.295 / 1.381 /
#     1.378), glm5 64x768x6144 / 64x2048x6144 0.865 / 1.049 within noise.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-400}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r83; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r83.tgz.tmp -C $OUT r83 2>/dev/null && mv $OUT/r83.tgz.tmp $OUT/r83.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local src=$1 dir=$2 tg=$3; ( cmake -S $src -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-$(basename $dir).log 2>&1 &&
  cmake --build $dir -j8 --target $tg >> $R/logs/build-$(basename $dir).log 2>&1; echo "rc=$?" >> $R/logs/build-$(basename $dir).log ) & }
bld . build-main "tetra_cli tetra_shared gpu_gemm_fragment gpu_fragment gpu_gemm_reference"; bld .scratch-spread build-spread tetra_shared
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
T=build-main/tetra; export TETRA_COMMIT=$C_MAIN
san() { ( env TETRA_TEST_QUICK=1 timeout 150 compute-sanitizer --tool $1 --error-exitcode 99 build-main/tests/$2 > $R/logs/san-$1-$2.log 2>&1; echo "rc=$?" >> $R/logs/san-$1-$2.log ) & }
for tool in memcheck racecheck synccheck; do san $tool gpu_gemm_fragment; done; san memcheck gpu_fragment
( timeout 150 ctest --test-dir build-main -R 'gpu_gemm_fragment|gpu_fragment|gpu_gemm_reference' -j3 --output-on-failure > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) &
wait; echo "tests done at $(el) s"; snap
echo "ctest: $(grep -E 'tests passed|rc=' $R/logs/ctest.log | tr '\n' ' ')"; grep -E "Failed|\*\*\*|CHECK failed" $R/logs/ctest.log | head -10
for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|passed' $f | tr '\n' ' ')"; done
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
ab="--blocks 6 --no-replicate --graph-below-us 400"
step contig-ab 90 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-spread/libtetra.so --shape 64x14336x4096,64x4096x14336,64x28672x8192,128x28672x8192 $ab --out $R/results/frag-contiguous-vs-spread.json
step frag-m 90 $T bench --a tetra-gemm-frag --b tetra-gemm --shape 17x14336x4096,24x14336x4096,32x14336x4096,48x14336x4096,64x14336x4096,1x4096x14336 $ab --out $R/results/frag-vs-standard-m.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
step frag-cal 90 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 64x14336x4096,64x4096x14336,64x28672x8192,64x768x6144,64x2048x6144 --ceilings $C76/ceilings.json --calibration $C76/calibration.json --blocks 10 --no-replicate --graph-below-us 400 --out $R/results/tetra-gemm-frag-calibrated.json
echo "total $(el) s"; snap; rm -rf $OUT/r83
