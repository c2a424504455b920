#!/usr/bin/env bash
# SUPERSEDED (session 20): run as part of docs/notes/session20-call2.sh (run 99); both switches merged, default 1.
# Draft device call for v7.9 (helper v7pdl; docs/notes/gemm-sm90.md, "v7.9: the prologue under the
# previous kernel"): build-main (this branch at the default TETRA_GEMM_V7_PDL=0: main's SASS),
# build-pdl (=1) and build-pdl2 (=2); correctness (ctest gpu_gemm*, hash lines, sanitizers) before
# timing; then the A/Bs on fragment weights. Run: C_MAIN=<hash> BUDGET=540 bash docs/notes/v7pdl-call-draft.sh
# PREDICTIONS (written before the run; B/A = pdl time / main time, fragment weights, mode 1 / mode 2):
#   64x768x6144 0.94 [0.90, 0.97] / 0.92 [0.87, 0.96]; 64x2048x6144 (reduce kernel between the
#   v7s) 0.99 [0.97, 1.00]; 64x14336x4096 0.975 [0.955, 0.99] / 0.97 [0.95, 0.985]; 64x28672x8192
#   0.99 [0.985, 0.997]; 128x4096x7168 (control: reduce kernel) 1.00 [0.98, 1.01]. Refuted if
#   64x768x6144 >= 0.97 in mode 1 or any shape > 1.02. Hash lines: all equal in both modes.
#   ctest gpu_gemm* passes in both builds; sanitizers 0 errors / hazards. The correctness part
#   (ctest x2, 12 sanitizer runs) may need a call of its own before the two bench steps.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-540}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/v7pdl; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/v7pdl.tgz.tmp -C $OUT v7pdl 2>/dev/null && mv $OUT/v7pdl.tgz.tmp $OUT/v7pdl.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
TESTS="gpu_gemm gpu_gemm_fragment gpu_gemm_reference gpu_gemm_pdl"
bld() { local dir=$1 tg=$2; shift 2; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j6 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_cli tetra_shared gpu_gemm gpu_gemm_pdl"
bld build-pdl "tetra_shared $TESTS" -DTETRA_GEMM_V7_PDL=1
bld build-pdl2 "tetra_shared $TESTS" -DTETRA_GEMM_V7_PDL=2
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
# correctness first: the new test in all three builds, the hash lines, ctest gpu_gemm* on both PDL builds
for b in build-main build-pdl build-pdl2; do
  ( env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 $b/tests/gpu_gemm > $R/logs/$b-hash.log 2>&1; echo "rc=$?" >> $R/logs/$b-hash.log ) &
done
wait; echo "hash runs done at $(el) s"
for b in build-pdl build-pdl2; do
  ( timeout 280 ctest --test-dir $b -R gpu_gemm --output-on-failure > $R/logs/ctest-$b.log 2>&1; echo "rc=$?" >> $R/logs/ctest-$b.log ) &
done
( env TETRA_GEMM_V7_PDL_EXPECT=0 timeout 120 build-main/tests/gpu_gemm_pdl > $R/logs/main-gpu_gemm_pdl.log 2>&1; echo "rc=$?" >> $R/logs/main-gpu_gemm_pdl.log ) &
wait; echo "ctest done at $(el) s"; snap
grep " hash " $R/logs/build-main-hash.log | sort > $R/logs/h-main.txt
for b in build-pdl build-pdl2; do grep " hash " $R/logs/$b-hash.log | sort > $R/logs/h-$b.txt
  echo "hash lines $b: $(wc -l < $R/logs/h-$b.txt) vs main $(wc -l < $R/logs/h-main.txt), differing $(comm -3 $R/logs/h-main.txt $R/logs/h-$b.txt | wc -l) (expect 0)"; done
# sanitizers (quick): gpu_gemm_pdl and gpu_gemm wgmma_t in both PDL builds, in parallel
for b in build-pdl build-pdl2; do for t in memcheck synccheck racecheck; do
  ( env TETRA_TEST_QUICK=1 timeout 200 compute-sanitizer --tool $t --error-exitcode 99 $b/tests/gpu_gemm_pdl > $R/logs/san-$b-pdl-$t.log 2>&1; echo "rc=$?" >> $R/logs/san-$b-pdl-$t.log ) &
  ( env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 220 compute-sanitizer --tool $t --error-exitcode 99 $b/tests/gpu_gemm > $R/logs/san-$b-gemm-$t.log 2>&1; echo "rc=$?" >> $R/logs/san-$b-gemm-$t.log ) &
done; done
wait; echo "sanitizers done at $(el) s"
for f in $R/logs/san-*.log $R/logs/ctest-*.log $R/logs/*-hash.log $R/logs/main-gpu_gemm_pdl.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|tests passed|rc=' $f | head -4 | tr '\n' ' ')"; done
snap
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=${C_MAIN:-unknown}
SH=64x768x6144,64x2048x6144,64x14336x4096,64x28672x8192,128x4096x7168
step ab-pdl 90 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-pdl/libtetra.so --shape $SH --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/v7pdl-ab.json
step ab-pdl2 90 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-pdl2/libtetra.so --shape $SH --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/v7pdl2-ab.json
echo "total $(el) s"; snap; rm -rf $OUT/v7pdl
