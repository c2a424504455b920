#!/usr/bin/env bash
# Session 16, device call 3 (run 78). Run: C_MAIN=<hash> BUDGET=540 bash docs/notes/session16-call3.sh
# Cluster-K GEMV (helper gemvck, merged default-off as 0689346) and v7.5's calibrated M = 64 rows.
# Predictions (the helper's, docs/notes/gemv.md "Session 16", written before this run):
# 1. build-ck (-DTETRA_GEMV_CLUSTER_K=1): ctest gpu_gemv + gpu_gemv_ck pass; the CK twins
#    bit-identical to the ordinary kernel pinned at P splits; racecheck / memcheck / synccheck
#    clean on the CK cases.
# 2. CK against main in one process (B = build-ck via --lib-b), B/A time: 1x768x6144 0.60-0.75,
#    1x2048x6144 0.55-0.70, 16x768x6144 0.60-0.78, 16x2048x6144 0.65-0.85; 1x4096x4096 and
#    1x4096x2048 0.70-0.85; 1x4096x14336 and 1x14336x4096 0.85-1.00; 1x28672x8192 0.95-1.10.
#    Refuted if either glm5-tp8 M = 1 row is above 0.85.
# 3. Calibrated against cuBLAS (A = build-ck via --lib-a): glm5-tp8 M = 1 at 1.5x or more.
# 4. v7.5 calibrated M = 64 (main): 64x14336x4096 / 64x4096x14336 / 64x28672x8192 about
#    1.08 / 1.18 / 1.06 (run 76's v7 ratios divided by the in-process factors), +-0.02.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-540}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r78; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r78.tgz.tmp -C $OUT r78 2>/dev/null && mv $OUT/r78.tgz.tmp $OUT/r78.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { cmake -S . -B $1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $2 > $R/logs/build-$1.log 2>&1 &&
  cmake --build $1 -j8 --target tetra_cli tetra_shared gpu_gemv >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log; }
bld build-main -DTETRA_GEMV_CLUSTER_K=0 & bld build-ck -DTETRA_GEMV_CLUSTER_K=1 & wait
echo "builds: main $(tail -1 $R/logs/build-build-main.log) ck $(tail -1 $R/logs/build-build-ck.log) at $(el) s"
T=build-main/tetra; res=$R/results; export TETRA_COMMIT=$C_MAIN
san() { ( env TETRA_GEMV_CK=1 TETRA_GEMV_TEST_ONLY=ck timeout $2 compute-sanitizer --tool $1 --error-exitcode 99 build-ck/tests/gpu_gemv > $R/logs/san-$1.log 2>&1; echo "rc=$?" >> $R/logs/san-$1.log ) & }
for tool in memcheck racecheck synccheck; do san $tool 220; done
( timeout 200 ctest --test-dir build-ck -R gpu_gemv -j2 -V > $R/logs/ctest-ck.log 2>&1; echo "rc=$?" >> $R/logs/ctest-ck.log ) &
wait
echo "tests done at $(el) s"; snap
grep -E "tests passed|Failed|Total Test|rc=|ck:|CK" $R/logs/ctest-ck.log | head -20
for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|checks passed' $f | tr '\n' ' ')"; done
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -30; }
ab="--graph-below-us 400 --no-replicate"
step ck-ab-glm5 60 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-ck/libtetra.so --shape 1x768x6144,16x768x6144,1x2048x6144,16x2048x6144 --blocks 10 $ab --out $res/ck-ab-glm5.json
step ck-ab-il 50 $T bench --a tetra-gemm-gemv-interleaved --b tetra-gemm-gemv-interleaved --lib-b build-ck/libtetra.so --shape 1x768x6144,16x768x6144,1x2048x6144,16x2048x6144 --blocks 10 $ab --out $res/ck-ab-glm5-il.json
step ck-ab-decode 70 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-ck/libtetra.so --shape 1x4096x4096,1x4096x2048,1x4096x14336,1x14336x4096,1x28672x8192 --blocks 6 $ab --out $res/ck-ab-decode.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
cal="--ceilings $C76/ceilings.json --calibration $C76/calibration.json --blocks 10 --no-replicate --graph-below-us 400"
step ck-glm5-cal 50 $T bench --a tetra-gemm --lib-a build-ck/libtetra.so --b cublaslt-bf16-tuned --shape 1x768x6144,1x2048x6144,16x768x6144,16x2048x6144 $cal --out $res/ck-glm5-calibrated.json
step midm64 40 $T bench --a tetra-gemm --b cublaslt-bf16-tuned --shape 64x14336x4096,64x4096x14336,64x28672x8192 $cal --out $res/tetra-gemm-m64.json
echo "total $(el) s"; snap; rm -rf $OUT/r78
