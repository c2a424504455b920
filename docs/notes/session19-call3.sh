#!/usr/bin/env bash
# Session 19, device call 3: (1) main's new defaults (fragment GEMV cluster-K on at M <= 4; the
# dupfold test folds) under the whole ctest and memcheck; (2) helper v7ck's v7.7 (v7's split-K
# reduced in the cluster, TETRA_GEMM_T_CK, default 0): tests, sanitizers, bits, A/B; (3) glm5-tp8
# calibrated on the new defaults. Run: C_MAIN=<hash> BUDGET=480 bash docs/notes/session19-call3.sh
# PREDICTIONS (written before the run):
# (1) ctest: every GPU test passes (gpu_gemm_fragment_ck included, now registered by default);
#     memcheck clean on gpu_fragment, gpu_interleaved, gpu_gemm_fragment (quick).
# (2) the helper's (docs/notes/gemm-sm90.md "v7.7"): gpu_gemm's cluster-K cases pass; the three
#     sanitizers clean with TETRA_GEMM_T_CK=2; hash lines of build-ck at mode 0 = main's, and at
#     mode 2 = mode 0's. B/A = ck / main time: 64x768x6144 0.72-0.81, 64x2048x6144 0.77-0.86,
#     64x4096x14336 0.91-0.96, 128x4096x7168 0.95-1.02, 64x14336x4096 (no split) 0.99-1.01;
#     refuted if 64x768x6144 gains less than 10%.
# (3) glm5 vs tuned cuBLASLt BF16 (fragment weights): M = 1 ~1.6 / ~1.5 (run 94 with the fck
#     build: 1.597 / 1.536), M = 64 with build-ck 1.20-1.36 / 1.29-1.45 (the helper's).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-480}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r96; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r96.tgz.tmp -C $OUT r96 2>/dev/null && mv $OUT/r96.tgz.tmp $OUT/r96.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 j=$2; shift 2; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j$j >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main 10
bld build-ck 6 -DTETRA_GEMM_T_CK=1
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
# correctness, in parallel
( timeout 260 ctest --test-dir build-main -j3 --output-on-failure > $R/logs/ctest-main.log 2>&1; echo "rc=$?" >> $R/logs/ctest-main.log ) &
san() { local tag=$1 tool=$2 exe=$3; shift 3; ( env TETRA_TEST_QUICK=1 "$@" timeout 260 compute-sanitizer --tool $tool --error-exitcode 99 $exe > $R/logs/san-$tag-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$tag-$tool.log ) & }
for t in gpu_fragment gpu_interleaved gpu_gemm_fragment; do san $t memcheck build-main/tests/$t; done
for tool in memcheck racecheck synccheck; do san ck $tool build-ck/tests/gpu_gemm TETRA_GEMM_TEST_ONLY=wgmma_t TETRA_GEMM_T_CK=2; done
( timeout 260 ctest --test-dir build-ck -R 'gpu_gemm' --output-on-failure > $R/logs/ctest-ck.log 2>&1; echo "rc=$?" >> $R/logs/ctest-ck.log ) &
( env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 build-main/tests/gpu_gemm > $R/logs/hash-main.log 2>&1
  for m in 0 2; do env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t TETRA_GEMM_T_CK=$m timeout 200 build-ck/tests/gpu_gemm > $R/logs/hash-ck$m.log 2>&1; done ) &
wait; echo "correctness done at $(el) s"; snap
for f in $R/logs/ctest-*.log $R/logs/san-*.log $R/logs/hash-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|tests passed|all checks passed|CHECK failed|rc=' $f | head -4 | tr '\n' ' ')"; done
grep -E "Failed|\*\*\*" $R/logs/ctest-main.log | head
for h in main ck0 ck2; do grep " hash " $R/logs/hash-$h.log | sort > $R/logs/h-$h.txt; done
echo "hash lines: main $(wc -l < $R/logs/h-main.txt), ck0 $(wc -l < $R/logs/h-ck0.txt), ck2 $(wc -l < $R/logs/h-ck2.txt); main vs ck0 differing $(comm -3 $R/logs/h-main.txt $R/logs/h-ck0.txt | wc -l), ck0 vs ck2 differing $(comm -3 $R/logs/h-ck0.txt $R/logs/h-ck2.txt | wc -l)"
grep -A1 "cluster-K" $R/logs/hash-ck2.log | head -20
snap
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=$C_MAIN
T=build-main/tetra
step ck-ab 60 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-ck/libtetra.so --shape 64x768x6144,64x2048x6144,64x4096x14336,128x4096x7168,64x14336x4096,128x7168x2048,32x2048x6144 --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/v7ck-ab.json
step ck-ab-std 40 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-ck/libtetra.so --shape 64x768x6144,64x2048x6144,64x4096x14336,128x4096x7168 --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/v7ck-ab-standard.json
step ck-ab-m2 40 env TETRA_GEMM_T_CK=2 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-ck/libtetra.so --shape 64x768x6144,64x2048x6144,64x4096x14336 --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/v7ck-ab-mode2.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
cal="--ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400"
step glm5-main 45 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 1x768x6144,1x2048x6144,4x768x6144,4x2048x6144,64x768x6144,64x2048x6144 $cal --blocks 8 --out $R/results/glm5-frag-main.json
step glm5-ck 40 build-ck/tetra bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 64x768x6144,64x2048x6144 $cal --blocks 8 --out $R/results/glm5-frag-ck.json
echo "total $(el) s"; snap; rm -rf $OUT/r96
