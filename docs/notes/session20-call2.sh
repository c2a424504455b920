#!/usr/bin/env bash
# Session 20 call 2 (run 99): v7.9 (PDL, helper v7pdl) and v7.10 (A_LOCAL, helper v7al) on one tree:
# branch s20al = main fc8a0d0 + the revert of f6ef690 (v7pdl + v7al's code back, default off).
# Run from the repo root with the branch extracted to .s20al:
#   git archive s20al | tar -x -C .s20al; C_MAIN=<s20al hash> BUDGET=580 bash docs/notes/session20-call2.sh
# Builds (sm_90a): build-main = the branch at its defaults (main's kernels), build-pdl
# (TETRA_GEMM_V7_PDL=1), build-al (TETRA_GEMM_V7_A_LOCAL=1). Mode 2 of each is left out (time).
# PREDICTIONS (written before the run; the helpers' own, from their drafts; B/A = switch time / main
# time, fragment weights):
#   pdl: 64x768x6144 0.94 [0.90, 0.97]; 64x2048x6144 0.99 [0.97, 1.00]; 64x14336x4096 0.975
#   [0.955, 0.99]; 64x28672x8192 0.99 [0.985, 0.997]; 128x4096x7168 1.00 [0.98, 1.01]. Refuted if
#   64x768x6144 >= 0.97 or any shape > 1.02.
#   al: 64x14336x4096 0.97 [0.95, 0.99]; 64x4096x14336 0.975; 64x28672x8192 0.975; 32x14336x4096
#   0.97; controls 64x768x6144 (v7.7 ck kernel, unchanged) and 128x28672x8192 (BT 128) 1.00 [0.99,
#   1.01]. Refuted if the four M <= 64 shapes read >= 0.99 or any > 1.02.
#   Correctness: hash lines equal in all three builds; ctest gpu_gemm* passes in pdl and al;
#   gpu_gemm_pdl passes in build-main (expects no PDL) and build-pdl; sanitizers 0 errors/hazards.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-580}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r99; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r99.tgz.tmp -C $OUT r99 2>/dev/null && mv $OUT/r99.tgz.tmp $OUT/r99.tgz; }
cd .s20al || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
TESTS="gpu_gemm gpu_gemm_fragment gpu_gemm_reference"
bld() { local dir=$1 tg=$2; shift 2; ( [ -f $dir/CMakeCache.txt ] || cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1;
  cmake --build $dir -j5 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_cli tetra_shared gpu_gemm gpu_gemm_pdl"
bld build-pdl "tetra_shared $TESTS gpu_gemm_pdl" -DTETRA_GEMM_V7_PDL=1
bld build-al "tetra_shared $TESTS" -DTETRA_GEMM_V7_A_LOCAL=1
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
for b in build-main build-pdl build-al; do echo "$b: $(grep -E '^TETRA_GEMM_V7_(PDL|A_LOCAL)' $b/CMakeCache.txt | tr '\n' ' ')"; done
if [ "${SKIP_CORRECT:-0}" = 0 ]; then
for b in build-main build-pdl build-al; do
  ( env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 $b/tests/gpu_gemm > $R/logs/$b-hash.log 2>&1; echo "rc=$?" >> $R/logs/$b-hash.log ) &
done
( env TETRA_GEMM_V7_PDL_EXPECT=0 timeout 120 build-main/tests/gpu_gemm_pdl > $R/logs/main-gpu_gemm_pdl.log 2>&1; echo "rc=$?" >> $R/logs/main-gpu_gemm_pdl.log ) &
wait; echo "hash runs done at $(el) s"
for b in build-pdl build-al; do
  ( timeout 240 ctest --test-dir $b -R gpu_gemm --output-on-failure > $R/logs/ctest-$b.log 2>&1; echo "rc=$?" >> $R/logs/ctest-$b.log ) &
done
wait; echo "ctest done at $(el) s"; snap
grep " hash " $R/logs/build-main-hash.log | sort > $R/logs/h-main.txt
for b in build-pdl build-al; do grep " hash " $R/logs/$b-hash.log | sort > $R/logs/h-$b.txt
  echo "hash lines $b: $(wc -l < $R/logs/h-$b.txt) vs main $(wc -l < $R/logs/h-main.txt), differing $(comm -3 $R/logs/h-main.txt $R/logs/h-$b.txt | wc -l) (expect 0)"; done
for t in memcheck synccheck racecheck; do
  ( env TETRA_TEST_QUICK=1 timeout 230 compute-sanitizer --tool $t --error-exitcode 99 build-pdl/tests/gpu_gemm_pdl > $R/logs/san-pdl-pdl-$t.log 2>&1; echo "rc=$?" >> $R/logs/san-pdl-pdl-$t.log ) &
  for b in build-pdl build-al; do
  ( env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 230 compute-sanitizer --tool $t --error-exitcode 99 $b/tests/gpu_gemm > $R/logs/san-$b-gemm-$t.log 2>&1; echo "rc=$?" >> $R/logs/san-$b-gemm-$t.log ) &
  done
done
wait; echo "sanitizers done at $(el) s"
for f in $R/logs/san-*.log $R/logs/ctest-*.log $R/logs/*-hash.log $R/logs/main-gpu_gemm_pdl.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|tests passed|rc=' $f | head -4 | tr '\n' ' ')"; done
snap
fi
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
step ab-pdl 90 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-pdl/libtetra.so --shape 64x768x6144,64x2048x6144,64x14336x4096,64x28672x8192,128x4096x7168 --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/v7pdl-ab.json
step ab-al 90 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-al/libtetra.so --shape 64x14336x4096,64x4096x14336,64x28672x8192,32x14336x4096,64x768x6144,128x28672x8192 --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/v7al-ab.json
echo "total $(el) s"; snap; rm -rf $OUT/r99
