#!/usr/bin/env bash
# SUPERSEDED (session 20): run as part of docs/notes/session20-call2.sh (run 99); both switches merged, default 1.
# Draft device call for v7.10 (helper v7al; docs/notes/gemm-sm90.md, "v7.10: no A multicast pair at
# small M"): build-main (this branch at the default TETRA_GEMM_V7_A_LOCAL=0: main's SASS), build-al
# (=1: BT 64 without the pair) and build-al2 (=2: BT 64 and 128); correctness (ctest gpu_gemm*, hash
# lines, sanitizers) before timing; then the A/Bs on fragment weights.
# Run: C_MAIN=<hash> BUDGET=540 bash docs/notes/v7al-call-draft.sh
# PREDICTIONS (written before the run; B/A = al time / main time, fragment weights):
#   build-al: 64x14336x4096 0.97 [0.95, 0.99]; 64x4096x14336 0.975 [0.955, 0.995]; 64x28672x8192
#   0.975 [0.95, 1.00]; 32x14336x4096 0.97 [0.95, 0.99]; controls (kernels unchanged at 1):
#   64x768x6144 (v7.7) 1.00 [0.99, 1.01], 128x28672x8192 (BT 128) 1.00 [0.99, 1.01].
#   build-al2: 128x28672x8192 0.99 [0.96, 1.03]; 64x14336x4096 as build-al.
#   Refuted if the four M <= 64 ordinary shapes read >= 0.99, or any reads > 1.02 (the doubled L2
#   reads of A cost more than the pair's sync). Hash lines: all equal in both builds. ctest
#   gpu_gemm* passes in both; sanitizers 0 errors / hazards. The correctness part (ctest x2, 6
#   sanitizer runs) may need a call of its own before the bench steps.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-540}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/v7al; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/v7al.tgz.tmp -C $OUT v7al 2>/dev/null && mv $OUT/v7al.tgz.tmp $OUT/v7al.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
TESTS="gpu_gemm gpu_gemm_fragment gpu_gemm_reference"
bld() { local dir=$1 tg=$2; shift 2; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j6 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_cli tetra_shared gpu_gemm"
bld build-al "tetra_shared $TESTS" -DTETRA_GEMM_V7_A_LOCAL=1
bld build-al2 "tetra_shared $TESTS" -DTETRA_GEMM_V7_A_LOCAL=2
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
for b in build-main build-al build-al2; do echo "$b: $(grep '^TETRA_GEMM_V7_A_LOCAL' $b/CMakeCache.txt)"; done   # 0 / 1 / 2
# correctness first: the hash lines in all three builds, ctest gpu_gemm* on both switch builds
for b in build-main build-al build-al2; do
  ( env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 $b/tests/gpu_gemm > $R/logs/$b-hash.log 2>&1; echo "rc=$?" >> $R/logs/$b-hash.log ) &
done
wait; echo "hash runs done at $(el) s"
for b in build-al build-al2; do
  ( timeout 280 ctest --test-dir $b -R gpu_gemm --output-on-failure > $R/logs/ctest-$b.log 2>&1; echo "rc=$?" >> $R/logs/ctest-$b.log ) &
done
wait; echo "ctest done at $(el) s"; snap
grep " hash " $R/logs/build-main-hash.log | sort > $R/logs/h-main.txt
for b in build-al build-al2; do grep " hash " $R/logs/$b-hash.log | sort > $R/logs/h-$b.txt
  echo "hash lines $b: $(wc -l < $R/logs/h-$b.txt) vs main $(wc -l < $R/logs/h-main.txt), differing $(comm -3 $R/logs/h-main.txt $R/logs/h-$b.txt | wc -l) (expect 0)"; done
# sanitizers (quick): gpu_gemm wgmma_t in both switch builds, in parallel
for b in build-al build-al2; do for t in memcheck synccheck racecheck; do
  ( env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 220 compute-sanitizer --tool $t --error-exitcode 99 $b/tests/gpu_gemm > $R/logs/san-$b-gemm-$t.log 2>&1; echo "rc=$?" >> $R/logs/san-$b-gemm-$t.log ) &
done; done
wait; echo "sanitizers done at $(el) s"
for f in $R/logs/san-*.log $R/logs/ctest-*.log $R/logs/*-hash.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|tests passed|rc=' $f | head -4 | tr '\n' ' ')"; done
snap
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=${C_MAIN:-unknown}
SH=64x14336x4096,64x4096x14336,64x28672x8192,32x14336x4096,64x768x6144,128x28672x8192
step ab-al 120 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-al/libtetra.so --shape $SH --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/v7al-ab.json
step ab-al2 60 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-al2/libtetra.so --shape 128x28672x8192,64x14336x4096 --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/v7al2-ab.json
echo "total $(el) s"; snap; rm -rf $OUT/v7al
