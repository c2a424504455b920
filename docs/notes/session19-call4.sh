#!/usr/bin/env bash
# Session 19, device call 4: helper v7k2's v7.8 (TETRA_GEMM_V7_STAGE_KT=2: two K-tiles per ring
# stage, half the barrier traffic per K-tile; merged default 1 = main's SASS), from
# docs/notes/v7k2-call-draft.sh, compressed into one parallel correctness phase; plus main's
# default build (v7.7 now on) under its gpu_gemm_t_ck / gpu_gemm_fragment_t_ck ctest entries.
# Run: C_MAIN=<hash> BUDGET=430 bash docs/notes/session19-call4.sh
# PREDICTIONS (the helper's, written before the run; B/A = k2 time / main time, fragment weights):
#   64x14336x4096 0.86 [0.81, 0.92], 64x4096x14336 0.87 [0.82, 0.93], 64x28672x8192 0.85
#   [0.80, 0.91], 32x14336x4096 0.86, 64x768x6144 0.93-1.01, 128x28672x8192 (BT 128) 0.89
#   [0.84, 0.95]. Refuted if >= 0.97 at the three M = 64 shapes. Hash lines of k2 = main's (both
#   with and without TETRA_GEMM_T_CK=2); gpu_gemm_fragment passes on k2; racecheck 0 hazards,
#   synccheck / memcheck 0 errors. Main's ctest entries pass.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-430}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r97; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r97.tgz.tmp -C $OUT r97 2>/dev/null && mv $OUT/r97.tgz.tmp $OUT/r97.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 tg=$2; shift 2; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j8 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment"
bld build-k2 "tetra_shared gpu_gemm gpu_gemm_fragment" -DTETRA_GEMM_V7_STAGE_KT=2
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
# correctness, one parallel phase
P=170
for tool in racecheck synccheck memcheck; do ( env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $P compute-sanitizer --tool $tool --error-exitcode 99 build-k2/tests/gpu_gemm > $R/logs/san-k2-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-k2-$tool.log ) & done
( env TETRA_GEMM_T_CK=2 TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $P compute-sanitizer --tool racecheck --error-exitcode 99 build-k2/tests/gpu_gemm > $R/logs/san-k2-ck-racecheck.log 2>&1; echo "rc=$?" >> $R/logs/san-k2-ck-racecheck.log ) &
( env TETRA_TEST_QUICK=1 timeout $P compute-sanitizer --tool memcheck --error-exitcode 99 build-k2/tests/gpu_gemm_fragment > $R/logs/san-k2-frag-memcheck.log 2>&1; echo "rc=$?" >> $R/logs/san-k2-frag-memcheck.log ) &
for b in main k2; do
  ( env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $P build-$b/tests/gpu_gemm > $R/logs/$b-hash.log 2>&1; echo "rc=$?" >> $R/logs/$b-hash.log ) &
  ( env TETRA_GEMM_T_CK=2 TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $P build-$b/tests/gpu_gemm > $R/logs/$b-hash-ck.log 2>&1; echo "rc=$?" >> $R/logs/$b-hash-ck.log ) &
done
( timeout $P build-k2/tests/gpu_gemm_fragment > $R/logs/k2-fragment.log 2>&1; echo "rc=$?" >> $R/logs/k2-fragment.log ) &
( env TETRA_GEMM_T_CK=2 timeout $P build-k2/tests/gpu_gemm_fragment > $R/logs/k2-fragment-ck.log 2>&1; echo "rc=$?" >> $R/logs/k2-fragment-ck.log ) &
( timeout $P ctest --test-dir build-main -R 'gpu_gemm_fragment_t_ck' --output-on-failure > $R/logs/ctest-main.log 2>&1; echo "rc=$?" >> $R/logs/ctest-main.log ) &
wait; echo "correctness done at $(el) s"; snap
for f in $R/logs/san-*.log $R/logs/*-hash*.log $R/logs/k2-fragment*.log $R/logs/ctest-main.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|tests passed|all checks passed|CHECK failed|rc=' $f | head -4 | tr '\n' ' ')"; done
for s in "" -ck; do grep " hash " $R/logs/main-hash$s.log | sort > $R/logs/h-main$s.txt; grep " hash " $R/logs/k2-hash$s.log | sort > $R/logs/h-k2$s.txt
  echo "hash$s lines: main $(wc -l < $R/logs/h-main$s.txt), k2 $(wc -l < $R/logs/h-k2$s.txt), main only $(comm -23 $R/logs/h-main$s.txt $R/logs/h-k2$s.txt | wc -l), k2 only $(comm -13 $R/logs/h-main$s.txt $R/logs/h-k2$s.txt | wc -l) (expect 0 and 0)"; done
snap
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=$C_MAIN
step ab-k2 60 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-k2/libtetra.so --shape 64x14336x4096,64x4096x14336,64x28672x8192,32x14336x4096,64x768x6144,128x28672x8192 --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/v7k2-ab.json
step ab-k2-std 40 build-main/tetra bench --a tetra-gemm --b tetra-gemm --lib-b build-k2/libtetra.so --shape 64x14336x4096,64x4096x14336,64x28672x8192,128x28672x8192 --blocks 4 --no-replicate --graph-below-us 400 --out $R/results/v7k2-ab-standard.json
echo "total $(el) s"; snap; rm -rf $OUT/r97
