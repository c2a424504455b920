#!/usr/bin/env bash
# Session 16, device call 4 (run 79). Run: C_MAIN=<hash> C_SK=<hash> BUDGET=560 bash docs/notes/session16-call4.sh
# .scratch-ssk = `git archive` of branch ssk (v10.10, stream-K persistent BT-256, helper ssk).
# Predictions:
# 1. v10.10 (the helper's, docs/notes/gemm-sm90.md "v10.10", written before this run): gpu_gemm,
#    _persistent, _sk, _sk_capped pass in build-sk; with TETRA_GEMM_SS_SK=0 every main hash line
#    is in the sk build's; memcheck / racecheck / synccheck clean with SK on and 3 clusters.
#    A/B against main in one process (A = main, B = build-sk; ratio B/A time): 256x14336x4096
#    0.76-0.82 as a cuBLAS ratio (a small loss), 256x28672x8192 0.99-1.04, 512x14336x4096
#    0.84-0.87, 512x28672x8192 0.87-0.91, the two K = 14336 shapes unchanged; refuted if
#    512x28672x8192 gains < +0.04 in cuBLAS-ratio terms (B/A time > ~0.95).
# 2. The cluster-K AUTO rule (main, mode 1) against cluster-K off (build-ck0, mode 0), one
#    process, B/A time (> 1: AUTO faster): rows where AUTO takes cluster-K as in run 78
#    (768x6144, 2048x6144 at M = 1; 4096x2048; 14336x4096; 28672x8192: 1.04-1.17), 16x2048x6144
#    about 0.95; rows it leaves alone (4096x4096, 4096x14336) within 0.01 of 1; the untested
#    rows it takes (7168x16384 S = 2, gpumode L = 4 / 8, M = 8 rows): >= 1.0, unknown.
# 3. gpu_gemv passes in main (AUTO) and gpu_gemv_ck (mode 2).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r79; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r79.tgz.tmp -C $OUT r79 2>/dev/null && mv $OUT/r79.tgz.tmp $OUT/r79.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local src=$1 dir=$2; shift 2; cmake -S $src -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$(basename $dir).log 2>&1 &&
  cmake --build $dir -j6 --target tetra_cli tetra_shared gpu_gemm gpu_gemv >> $R/logs/build-$(basename $dir).log 2>&1; echo "rc=$?" >> $R/logs/build-$(basename $dir).log; }
bld . build-main & bld . build-ck0 -DTETRA_GEMV_CLUSTER_K=0 & bld .scratch-ssk build-sk -DTETRA_GEMM_SS_STREAMK=1 & wait
echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
T=build-main/tetra; res=$R/results; export TETRA_COMMIT=$C_MAIN
san() { ( env TETRA_TEST_QUICK=1 TETRA_GEMM_SS_SK=1 TETRA_GEMM_SS_CLUSTERS=3 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $2 compute-sanitizer --tool $1 --error-exitcode 99 build-sk/tests/gpu_gemm > $R/logs/san-sk-$1.log 2>&1; echo "rc=$?" >> $R/logs/san-sk-$1.log ) & }
for tool in memcheck racecheck synccheck; do san $tool 260; done
( timeout 270 ctest --test-dir build-sk -R gpu_gemm -j4 --output-on-failure > $R/logs/ctest-sk.log 2>&1; echo "rc=$?" >> $R/logs/ctest-sk.log ) &
( timeout 200 ctest --test-dir build-main -R gpu_gemv -j2 --output-on-failure > $R/logs/ctest-gemv.log 2>&1; echo "rc=$?" >> $R/logs/ctest-gemv.log ) &
( env TETRA_GEMM_SS_SK=0 TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 build-sk/tests/gpu_gemm > $R/logs/sk-off.log 2>&1;
  env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 build-main/tests/gpu_gemm > $R/logs/main-hash.log 2>&1 ) &
wait
echo "tests done at $(el) s"; snap
for f in $R/logs/ctest-*.log; do echo "$(basename $f .log): $(grep -E 'tests passed|rc=' $f | tr '\n' ' ')"; grep -E "Failed|\*\*\*" $f | head -5; done
for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|checks passed' $f | tr '\n' ' ')"; done
grep hash $R/logs/main-hash.log | sort > $R/logs/h-main.txt; grep hash $R/logs/sk-off.log | sort > $R/logs/h-skoff.txt
echo "hash: main $(wc -l < $R/logs/h-main.txt) sk-off $(wc -l < $R/logs/h-skoff.txt); main lines missing from sk-off: $(comm -23 $R/logs/h-main.txt $R/logs/h-skoff.txt | wc -l)"
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
ab="--no-replicate --graph-below-us 400"
step sk-ab 120 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-sk/libtetra.so --shape 256x14336x4096,256x28672x8192,512x14336x4096,512x28672x8192,256x4096x14336,512x4096x14336 --blocks 6 $ab --out $res/sk-ab.json
step sk-ab-mode2 60 env TETRA_GEMM_SS_SK=2 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-sk/libtetra.so --shape 256x14336x4096,512x14336x4096,512x28672x8192 --blocks 6 $ab --out $res/sk-ab-mode2.json
step ck-rule-ab 80 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-ck0/libtetra.so --shape 1x14336x4096,8x14336x4096,16x14336x4096,1x28672x8192,8x28672x8192,16x28672x8192,1x7168x16384,8x7168x16384,16x7168x16384,1x4096x2048,16x4096x2048,1x768x6144,8x768x6144,16x768x6144,1x2048x6144,8x2048x6144,16x2048x6144,1x4096x4096,1x4096x14336 --blocks 6 $ab --out $res/ck-rule-ab.json
step ck-rule-gpumode 40 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-ck0/libtetra.so --set gpumode --blocks 6 $ab --out $res/ck-rule-gpumode.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
cal="--ceilings $C76/ceilings.json --calibration $C76/calibration.json --blocks 10 --no-replicate --graph-below-us 400"
step glm5-cal 60 $T bench --set glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned $cal --out $res/tetra-gemm-glm5.json
echo "total $(el) s"; snap; rm -rf $OUT/r79
