#!/usr/bin/env bash
# Session 18, device call 5 (run 93; the budget's last ~100 s): helper gvck's cluster-K for the
# fragment GEMV (TETRA_GEMV_FRAG_CK; merged default 0). build-fck = main with -DTETRA_GEMV_FRAG_CK=1.
# Run: C_MAIN=<hash> BUDGET=95 bash docs/notes/session18-call5.sh  (steps in priority order)
# PREDICTIONS (the helper's, written before any device run): the fragck cases pass (oracle, and
# bytes equal to the ordinary fragment kernel pinned at P = 4S splits); memcheck clean. A =
# tetra-gemm-frag (CK where AUTO takes it), B = tetra-gemm (standard weights, standard CK), B/A:
# 1x768x6144 1.04 (today 0.897, run 87), 1x2048x6144 1.10 (today 1.022). Refuted: 1x768x6144 below
# 0.95 or any fragck twin differing.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-95}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r93; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r93.tgz.tmp -C $OUT r93 2>/dev/null && mv $OUT/r93.tgz.tmp $OUT/r93.tgz; }
( cmake -S . -B build-fck -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_GEMV_FRAG_CK=1 > $R/logs/build.log 2>&1 &&
  cmake --build build-fck -j16 --target tetra_cli gpu_gemm_fragment >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build: $(tail -n1 $R/logs/build.log) at $(el) s"; snap
( env TETRA_GEMV_FRAG_CK=2 TETRA_GEMM_FRAGMENT_TEST_ONLY=gemv timeout 40 build-fck/tests/gpu_gemm_fragment > $R/logs/fragck-test.log 2>&1; echo "rc=$?" >> $R/logs/fragck-test.log )
echo "test: $(grep -cE 'fragck' $R/logs/fragck-test.log) fragck lines, $(grep -E 'rc=|checks passed|FAIL' $R/logs/fragck-test.log | head -3 | tr '\n' ' ') at $(el) s"; snap
T=build-fck/tetra; export TETRA_COMMIT=$C_MAIN
( timeout $(( $(left) > 25 ? 22 : 5 )) $T bench --a tetra-gemm-frag --b tetra-gemm --shape 1x768x6144,1x2048x6144 --blocks 4 --no-replicate --graph-below-us 400 --out $R/results/fragck-vs-standard.json > $R/logs/bench.log 2>&1; echo "rc=$?" >> $R/logs/bench.log )
echo "bench at $(el) s"; grep -E "^[0-9]+x" $R/logs/bench.log | cut -c1-150; snap
l=$(( $(left) - 3 )); if [ $l -gt 15 ]; then ( env TETRA_TEST_QUICK=1 TETRA_GEMV_FRAG_CK=2 TETRA_GEMM_FRAGMENT_TEST_ONLY=gemv timeout $l compute-sanitizer --tool memcheck --error-exitcode 99 build-fck/tests/gpu_gemm_fragment > $R/logs/san-memcheck.log 2>&1; echo "rc=$?" >> $R/logs/san-memcheck.log )
  echo "memcheck: $(grep -E 'ERROR SUMMARY|rc=' $R/logs/san-memcheck.log | tr '\n' ' ') at $(el) s"; fi
echo "total $(el) s"; snap; rm -rf $OUT/r93
