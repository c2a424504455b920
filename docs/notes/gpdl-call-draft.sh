#!/usr/bin/env bash
# Draft device call (session 20 helper gpdl): the decode GEMV as a programmatic dependent in every
# call (TETRA_GEMV_PDL_ALL; docs/notes/gemv.md, "GEMV PDL in every call").
# Run from the repo root with the branch extracted to .gpdl:
#   git archive gpdl | tar -x -C .gpdl; C_MAIN=<gpdl hash> BUDGET=580 bash docs/notes/gpdl-call-draft.sh
# (a second call for the timing alone: SKIP_CORRECT=1; the builds are reused)
# Builds (sm_90a): build-main = the branch at its defaults (TETRA_GEMV_PDL_ALL=0: main's gemv.cu
# SASS), build-g1 (=1), build-g2 (=2, the experiment: weight ring before the wait in every call).
# PREDICTIONS (written before any run; B/A = build-gN time / build-main time, tetra-gemm-frag both
# arms, fragment weights, graph timing):
#   g1: 1x768x6144 0.93 [0.86, 0.97]; 4x768x6144 0.93 [0.86, 0.97]; 1x2048x6144 0.95 [0.90, 0.98];
#   4x2048x6144 0.95 [0.90, 0.98]; 16x4096x14336 0.985 [0.97, 1.00]; 1x4096x14336 0.98 [0.96, 1.00].
#   Refuted if 1x768x6144 >= 0.98 or any row > 1.02.
#   g2: 1x768x6144 0.75 [0.55, 0.92]; 4x768x6144 0.77 [0.55, 0.92]; 1x2048x6144 0.85 [0.70, 0.95];
#   4x2048x6144 0.86 [0.70, 0.95]; 16x4096x14336 0.96 [0.92, 0.99]; 1x4096x14336 0.95 [0.90, 0.99].
#   Refuted if 1x768x6144 > 0.92.
#   Control (TETRA_GEMV_PDL_ALL_OFF=1: build-g1's kernels with main's launches): 1.00 +- 0.01.
#   Correctness: gpu_gemv and gpu_gemm_fragment hash lines equal in all three builds; ctest
#   gpu_gemv|gpu_gemm_pdl|gpu_gemm_fragment passes in g1 and g2 (g2 skips the W-writer sequences);
#   gpu_gemm_pdl passes in build-main (mode 0) and with the control's launches; sanitizers 0
#   errors / hazards on gpu_gemm_pdl (quick) in g1; the W-race run of g2 reports differing
#   W-by-GEMV outputs (the test sees a ring read before the wait).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-580}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/rgpdl; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/rgpdl.tgz.tmp -C $OUT rgpdl 2>/dev/null && mv $OUT/rgpdl.tgz.tmp $OUT/rgpdl.tgz; }
cd .gpdl || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
TESTS="gpu_gemv gpu_gemm_fragment gpu_gemm_pdl"
bld() { local dir=$1 tg=$2; shift 2; ( [ -f $dir/CMakeCache.txt ] || cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1;
  cmake --build $dir -j5 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_cli tetra_shared $TESTS"
bld build-g1 "tetra_shared $TESTS" -DTETRA_GEMV_PDL_ALL=1
bld build-g2 "tetra_shared $TESTS" -DTETRA_GEMV_PDL_ALL=2
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
for b in build-main build-g1 build-g2; do echo "$b: $(grep -E '^TETRA_GEMV_PDL_ALL' $b/CMakeCache.txt | tr '\n' ' ')"; done
if [ "${SKIP_CORRECT:-0}" = 0 ]; then
# 1. same bits: hash lines of gpu_gemv and gpu_gemm_fragment in the three builds
for b in build-main build-g1 build-g2; do
  ( env TETRA_GEMV_TEST_HASH=1 timeout 200 $b/tests/gpu_gemv > $R/logs/$b-gemv-hash.log 2>&1; echo "rc=$?" >> $R/logs/$b-gemv-hash.log ) &
  ( env TETRA_GEMM_FRAGMENT_TEST_HASH=1 timeout 200 $b/tests/gpu_gemm_fragment > $R/logs/$b-frag-hash.log 2>&1; echo "rc=$?" >> $R/logs/$b-frag-hash.log ) &
done
( env TETRA_GEMM_V7_PDL_EXPECT=1 TETRA_GEMV_PDL_ALL_EXPECT=0 timeout 150 build-main/tests/gpu_gemm_pdl > $R/logs/main-gpu_gemm_pdl.log 2>&1; echo "rc=$?" >> $R/logs/main-gpu_gemm_pdl.log ) &
wait; echo "hash runs done at $(el) s"; snap
for k in gemv frag; do
  grep -E ' i?hash ' $R/logs/build-main-$k-hash.log > $R/logs/h-$k-main.txt
  for b in build-g1 build-g2; do grep -E ' i?hash ' $R/logs/$b-$k-hash.log > $R/logs/h-$k-$b.txt
    echo "$k hash lines $b: $(wc -l < $R/logs/h-$k-$b.txt) vs main $(wc -l < $R/logs/h-$k-main.txt), differing $(diff $R/logs/h-$k-main.txt $R/logs/h-$k-$b.txt | grep -c '^[<>]') (expect 0)"; done
done
# 2. the stream-order tests in g1 / g2 (ctest sets the expected modes), the control's launches,
#    and g2's W-race run (informational: its W-by-GEMV lines should report differing outputs)
for b in build-g1 build-g2; do
  ( timeout 240 ctest --test-dir $b -R 'gpu_gemv|gpu_gemm_pdl|gpu_gemm_fragment' --output-on-failure > $R/logs/ctest-$b.log 2>&1; echo "rc=$?" >> $R/logs/ctest-$b.log ) &
done
( env TETRA_GEMV_PDL_ALL_OFF=1 TETRA_GEMV_PDL_ALL_EXPECT=1 timeout 150 build-g1/tests/gpu_gemm_pdl > $R/logs/g1-off-gpu_gemm_pdl.log 2>&1; echo "rc=$?" >> $R/logs/g1-off-gpu_gemm_pdl.log ) &
( env TETRA_TEST_GEMV_W_RACE=1 timeout 150 build-g2/tests/gpu_gemm_pdl > $R/logs/g2-race-gpu_gemm_pdl.log 2>&1; echo "rc=$?" >> $R/logs/g2-race-gpu_gemm_pdl.log ) &
wait; echo "ctest done at $(el) s"; snap
grep -E "W-by-GEMV|convert" $R/logs/g2-race-gpu_gemm_pdl.log | head -30
# 3. sanitizers on gpu_gemm_pdl (quick) in g1
for t in memcheck synccheck racecheck; do
  ( env TETRA_TEST_QUICK=1 timeout 230 compute-sanitizer --tool $t --error-exitcode 99 build-g1/tests/gpu_gemm_pdl > $R/logs/san-g1-pdl-$t.log 2>&1; echo "rc=$?" >> $R/logs/san-g1-pdl-$t.log ) &
done
wait; echo "sanitizers done at $(el) s"
for f in $R/logs/san-*.log $R/logs/ctest-*.log $R/logs/*-hash.log $R/logs/*gpu_gemm_pdl.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|tests passed|FAIL|rc=' $f | head -4 | tr '\n' ' ')"; done
snap
fi
# 4. time (one process per pair: A = build-main's library, B = --lib-b)
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
SH=1x768x6144,1x2048x6144,4x768x6144,4x2048x6144,16x4096x14336,1x4096x14336
step ab-g1 120 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-g1/libtetra.so --shape $SH --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/gpdl-g1-ab.json
step ab-g2 120 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-g2/libtetra.so --shape $SH --blocks 6 --no-replicate --graph-below-us 400 --out $R/results/gpdl-g2-ab.json
step ctl-g1 90 env TETRA_GEMV_PDL_ALL_OFF=1 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-g1/libtetra.so --shape 1x768x6144,1x2048x6144,16x4096x14336 --blocks 4 --no-replicate --graph-below-us 400 --out $R/results/gpdl-g1-control.json
echo "total $(el) s"; snap; rm -rf $OUT/rgpdl
