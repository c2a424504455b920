#!/usr/bin/env bash
# DRAFT for the next session (session 18 lead; NOT run yet): finish the fragment GEMV's cluster-K
# (helper gvck, merged default off: TETRA_GEMV_FRAG_CK=0) before turning it on.
# build-fck = main with -DTETRA_GEMV_FRAG_CK=1 (AUTO by ck_auto_takes); build-main = default (off).
# Run: C_MAIN=<hash> BUDGET=300 bash docs/notes/fragck-call-draft.sh
# PREDICTIONS (session 18, before the run): racecheck and synccheck clean with CK forced (the
# cluster reduce reuses each warp's ring after cp_async_wait<0> and __syncwarp, as the standard
# CK path, which passed them in run 78); A = build-fck, B = build-main (--lib-b), fragment weights,
# B/A: where AUTO takes CK 1.05-1.30 (run 93: 1.127 / 1.130x the standard CK path at 1x768x6144 /
# 1x2048x6144; run 87 before it 0.897 / 1.022), elsewhere within 0.01 of 1; calibrated vs cuBLAS:
# 1x768x6144 ~1.45, 1x2048x6144 ~1.5 (run 92 without CK: 1.196 / 1.377). Refuted (keep it off) if
# a sanitizer reports anything or any shape AUTO gives CK reads B/A < 0.98.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-300}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/fck; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/fck.tgz.tmp -C $OUT fck 2>/dev/null && mv $OUT/fck.tgz.tmp $OUT/fck.tgz; }
bld() { local dir=$1 tg=$2; shift 2; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j8 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_cli tetra_shared"; bld build-fck "tetra_cli tetra_shared gpu_gemm_fragment" -DTETRA_GEMV_FRAG_CK=1
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
for tool in racecheck synccheck memcheck; do ( env TETRA_TEST_QUICK=1 TETRA_GEMV_FRAG_CK=2 TETRA_GEMM_FRAGMENT_TEST_ONLY=gemv timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 build-fck/tests/gpu_gemm_fragment > $R/logs/san-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool.log ) & done
( timeout 200 ctest --test-dir build-fck -R gpu_gemm_fragment --output-on-failure > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) &
wait; echo "tests done at $(el) s"; snap
for f in $R/logs/san-*.log $R/logs/ctest.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|tests passed|rc=' $f | tr '\n' ' ')"; done
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=$C_MAIN
step fck-ab 60 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-fck/libtetra.so --shape 1x768x6144,1x2048x6144,4x768x6144,16x2048x6144,1x4096x4096,1x4096x14336,1x14336x4096,8x4096x14336,16x4096x14336,1x7168x2048 --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/fragck-ab.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
step fck-cal 45 build-fck/tetra bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 1x768x6144,1x2048x6144 --ceilings $C76/ceilings.json --calibration $C76/calibration.json --blocks 10 --no-replicate --graph-below-us 400 --out $R/results/fragck-calibrated.json
echo "total $(el) s"; snap; rm -rf $OUT/fck
