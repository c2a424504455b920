#!/usr/bin/env bash
# Draft device call for helper w4pdl (session 21; NOT run): TETRA_GEMM_W4A4_PDL=1, the BT-256
# wgmma-T kernels (v10.3 / v10.8) of a W4A4 product as programmatic dependents of its staging pass
# (docs/notes/gemm-sm90.md, "W4A4 PDL: the BT-256 kernels under the staging pass").
# Run from the root of the w4pdl tree (docs/ may be left out; N below needs nothing from it):
#   C_MAIN=<main hash> [MAIN_SRC=<main's tree>] BUDGET=300 bash docs/notes/w4pdl-call-draft.sh
# MAIN_SRC: a directory holding main's tree (e.g. git archive main | tar -x -C .main); without it
# build-main is this tree at TETRA_GEMM_W4A4_PDL=0, whose gemm_sm90.cu SASS is main's function for
# function (sm_90a; the notes) and whose host code differs only in ignoring q.pdl.
# PREDICTIONS (before any device run; B/A = build-w4's time / build-main's, one process, --lib-b,
# tetra-gemm-w4a4-frag as run 95 measured): 1024x4096x4096 0.950 [0.92, 0.985];
#   2048x14336x4096 0.991 [0.98, 1.00]; 4096x4096x4096 0.984 [0.965, 0.995]; 4096x4096x14336 0.995
#   [0.985, 1.003]; 8192x8192x8192 0.998 [0.99, 1.005]; 8192x4096x14336 0.998 [0.99, 1.005].
#   Refuted if 1024x4096x4096 >= 0.985 or any row > 1.01. Standard weights (tetra-gemm-w4a4):
#   the same within 0.01. Control (W4A16, tetra-gemm-frag, 4096^3): 1.000 +- 0.01.
#   Correctness: gpu_gemm_w4pdl and gpu_gemm_w4pdl_p pass on build-w4 (every W4A4 call a PDL launch,
#   every output byte-identical to its W4A16 twin); gpu_gemm (wgmma_t, and with
#   TETRA_GEMM_SS_CLUSTERS=3) hash lines of build-w4 equal build-main's (its W4A4 cases at BT 256
#   now run the PDL instances); gpu_gemm_pdl passes on build-w4; compute-sanitizer memcheck /
#   synccheck 0 errors and racecheck 0 hazards on gpu_gemm_w4pdl (quick).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-300}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/w4pdl; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/w4pdl.tgz.tmp -C $OUT w4pdl 2>/dev/null && mv $OUT/w4pdl.tgz.tmp $OUT/w4pdl.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
MS=${MAIN_SRC:-.}
bld() { local src=$1 dir=$2 j=$3 tg=$4; shift 4; ( [ -f $dir/CMakeCache.txt ] || cmake -S $src -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$(basename $dir).log 2>&1;
  cmake --build $dir -j$j --target $tg >> $R/logs/build-$(basename $dir).log 2>&1; echo "rc=$?" >> $R/logs/build-$(basename $dir).log ) & }
if [ "$MS" = . ]; then
  bld . build-main 8 "tetra_cli tetra_shared gpu_gemm" -DTETRA_GEMM_W4A4_PDL=0
else
  bld $MS $PWD/build-main 8 "tetra_cli tetra_shared gpu_gemm"
fi
bld . build-w4 8 "tetra_shared gpu_gemm gpu_gemm_w4pdl gpu_gemm_pdl" -DTETRA_GEMM_W4A4_PDL=1
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
grep -H '^TETRA_GEMM_W4A4_PDL' build-*/CMakeCache.txt
# 1. correctness, all in parallel (one GPU; none of it is timed): the new test (and its capped-
#    cluster variant), gpu_gemm's hash lines in both builds, the existing PDL stream-order test, and
#    the sanitizers on the new test (quick: 3 cases, 4 iterations, no reference kernel)
H() { local name=$1; shift; ( env "$@" > $R/logs/$name.log 2>&1; echo "rc=$?" >> $R/logs/$name.log ) & }
H w4-ctest timeout 150 ctest --test-dir build-w4 -R 'gpu_gemm_w4pdl' --output-on-failure -V
for b in build-main build-w4; do
  H $b-gemm-hash TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 $b/tests/gpu_gemm
  H $b-gemm-hash-p TETRA_GEMM_SS_CLUSTERS=3 TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 $b/tests/gpu_gemm
done
H w4-pdl timeout 150 build-w4/tests/gpu_gemm_pdl
for t in memcheck synccheck racecheck; do
  H san-w4pdl-$t TETRA_TEST_QUICK=1 TETRA_GEMM_W4A4_PDL_EXPECT=1 timeout 150 compute-sanitizer --tool $t --error-exitcode 99 build-w4/tests/gpu_gemm_w4pdl
done
wait; echo "correctness runs and sanitizers done at $(el) s"; snap
for s in "" -p; do
  grep " hash " $R/logs/build-main-gemm-hash$s.log | sort > $R/logs/h-main$s.txt; grep " hash " $R/logs/build-w4-gemm-hash$s.log | sort > $R/logs/h-w4$s.txt
  echo "gemm hash lines$s w4: $(wc -l < $R/logs/h-w4$s.txt) vs main $(wc -l < $R/logs/h-main$s.txt), differing $(comm -3 $R/logs/h-main$s.txt $R/logs/h-w4$s.txt | wc -l) (expect 0)"; done
for f in $R/logs/san-*.log $R/logs/*-hash*.log $R/logs/w4-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|tests passed|tests failed|FAIL|rc=' $f | head -4 | tr '\n' ' ')"; done
# 2. A/B timing (in priority order; a step the budget cannot hold is skipped) (A = build-main's library, B = build-w4's through --lib-b)
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 15 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -20; }
T=build-main/tetra
S6=1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336,8192x8192x8192,8192x4096x14336
step ab-w4a4-frag 90 $T bench --a tetra-gemm-w4a4-frag --b tetra-gemm-w4a4-frag --lib-b build-w4/libtetra.so --shape $S6 --blocks 3 --no-replicate --out $R/results/w4pdl-ab-frag.json
step ctl-w4a16 25 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-w4/libtetra.so --shape 4096x4096x4096 --blocks 3 --no-replicate --out $R/results/w4pdl-control.json
step ab-w4a4-std 40 $T bench --a tetra-gemm-w4a4 --b tetra-gemm-w4a4 --lib-b build-w4/libtetra.so --shape 1024x4096x4096,4096x4096x4096 --blocks 3 --no-replicate --out $R/results/w4pdl-ab-std.json
echo "total $(el) s"; snap; rm -rf $OUT/w4pdl
