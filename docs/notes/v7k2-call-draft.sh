#!/usr/bin/env bash
# Draft device call for v7.8 (helper v7k2; docs/notes/gemm-sm90.md, "v7.8: two K-tiles per ring
# stage"): build-main (this branch at the default TETRA_GEMM_V7_STAGE_KT=1: main's SASS) and
# build-k2 (=2); correctness (hash lines, fragment == standard bits, sanitizers) before timing;
# then the A/B on fragment weights. Run: C_MAIN=<hash> BUDGET=420 bash docs/notes/v7k2-call-draft.sh
# PREDICTIONS (written before the run; B/A = k2 time / main time, fragment weights):
#   64x14336x4096 0.86 [0.81, 0.92], 64x4096x14336 0.87 [0.82, 0.93], 64x28672x8192 0.85
#   [0.80, 0.91], 32x14336x4096 0.86 [0.81, 0.92], 64x768x6144 0.93-1.01, 128x28672x8192 (BT 128)
#   0.89 [0.84, 0.95]. Refuted if >= 0.97 at the three M = 64 shapes. Hash lines (both builds
#   from this branch, so both run the 2 new linear-scale cases): all equal, none only in one.
#   gpu_gemm_fragment passes; racecheck 0 hazards, synccheck / memcheck 0 errors.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-420}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/v7k2; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/v7k2.tgz.tmp -C $OUT v7k2 2>/dev/null && mv $OUT/v7k2.tgz.tmp $OUT/v7k2.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 tg=$2; shift 2; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j8 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_cli tetra_shared gpu_gemm"
bld build-k2 "tetra_shared gpu_gemm gpu_gemm_fragment" -DTETRA_GEMM_V7_STAGE_KT=2
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
# correctness (in parallel, before any timing)
for tool in racecheck synccheck memcheck; do ( env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 180 compute-sanitizer --tool $tool --error-exitcode 99 build-k2/tests/gpu_gemm > $R/logs/san-k2-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-k2-$tool.log ) & done
( env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 build-main/tests/gpu_gemm > $R/logs/main-hash.log 2>&1; echo "rc=$?" >> $R/logs/main-hash.log ) &
( env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 build-k2/tests/gpu_gemm > $R/logs/k2-hash.log 2>&1; echo "rc=$?" >> $R/logs/k2-hash.log ) &
( timeout 150 build-k2/tests/gpu_gemm_fragment > $R/logs/k2-fragment.log 2>&1; echo "rc=$?" >> $R/logs/k2-fragment.log ) &
wait; echo "correctness done at $(el) s"
# v7.7's cluster-K instances everywhere (TETRA_GEMM_T_CK=2): hashes, fragment bits, racecheck
for b in main k2; do ( env TETRA_GEMM_T_CK=2 TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 build-$b/tests/gpu_gemm > $R/logs/$b-hash-ck.log 2>&1; echo "rc=$?" >> $R/logs/$b-hash-ck.log ) & done
( env TETRA_GEMM_T_CK=2 timeout 150 build-k2/tests/gpu_gemm_fragment > $R/logs/k2-fragment-ck.log 2>&1; echo "rc=$?" >> $R/logs/k2-fragment-ck.log ) &
( env TETRA_GEMM_T_CK=2 TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 180 compute-sanitizer --tool racecheck --error-exitcode 99 build-k2/tests/gpu_gemm > $R/logs/san-k2-ck-racecheck.log 2>&1; echo "rc=$?" >> $R/logs/san-k2-ck-racecheck.log ) &
wait; echo "cluster-K correctness done at $(el) s"
( env TETRA_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 build-k2/tests/gpu_gemm_fragment > $R/logs/san-k2-frag-memcheck.log 2>&1; echo "rc=$?" >> $R/logs/san-k2-frag-memcheck.log )
for f in $R/logs/san-*.log $R/logs/*-hash*.log $R/logs/k2-fragment*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|rc=' $f | head -4 | tr '\n' ' ')"; done
grep " hash " $R/logs/main-hash.log | sort > $R/logs/h-main.txt; grep " hash " $R/logs/k2-hash.log | sort > $R/logs/h-k2.txt
echo "hash lines: main $(wc -l < $R/logs/h-main.txt), k2 $(wc -l < $R/logs/h-k2.txt), main only $(comm -23 $R/logs/h-main.txt $R/logs/h-k2.txt | wc -l), k2 only $(comm -13 $R/logs/h-main.txt $R/logs/h-k2.txt | wc -l) (expect 0 and 0)"
grep " hash " $R/logs/main-hash-ck.log | sort > $R/logs/h-main-ck.txt; grep " hash " $R/logs/k2-hash-ck.log | sort > $R/logs/h-k2-ck.txt
echo "hash lines (T_CK=2): main $(wc -l < $R/logs/h-main-ck.txt), k2 $(wc -l < $R/logs/h-k2-ck.txt), differing $(diff $R/logs/h-main-ck.txt $R/logs/h-k2-ck.txt | grep -c '^>') (expect 0)"
snap
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=${C_MAIN:-unknown}
step ab-k2 90 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-k2/libtetra.so --shape 64x14336x4096,64x4096x14336,64x28672x8192,32x14336x4096,64x768x6144,128x28672x8192 --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/v7k2-ab.json
echo "total $(el) s"; snap; rm -rf $OUT/v7k2
