#!/usr/bin/env bash
# (committed copy of .scratch-lead/callF.sh: device run 20; run as `CANDS="epi clu both bt" BUDGET=320 bash callF.sh` with each tree in .scratch-NAME and diagtimer.c in .scratch-lead)
# session 4, final lead call. Trees (git-archive copies, carried): .scratch-base (main) and the
# candidates in CANDS (each a merge onto main). BUDGET: wall seconds for this script.
# 0 builds (parallel) -> 1 plain tests of every tree (concurrent) -> 2 diag timing, A/B of each
# passing tree's transposed kernel against v6 (same code in every tree) -> winner ->
# 3 compute-sanitizer x3 on the winner + its full gpu_gemm -> 4 results sweep of AUTO on it.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-400}; CANDS=${CANDS:-}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/f; mkdir -p $R
snap() { tar czf $OUT/f.tgz.tmp -C $OUT f 2>/dev/null && mv $OUT/f.tgz.tmp $OUT/f.tgz; } # a kill keeps the last snapshot
# ---- 0: builds
for c in base $CANDS; do
  ( cmake -S .scratch-$c -B .scratch-$c/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/build-$c.log 2>&1 &&
    cmake --build .scratch-$c/b -j3 --target gpu_gemm gpu_nonfinite tetra_cli >> $R/build-$c.log 2>&1; echo "rc=$?" >> $R/build-$c.log ) &
done
( cmake -S .scratch-base -B .scratch-base/bd -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_DIAG > $R/build-diag.log 2>&1 &&
  cmake --build .scratch-base/bd -j2 --target tetra_static >> $R/build-diag.log 2>&1 &&
  gcc -std=c11 -O2 -I .scratch-base/include -I /usr/local/cuda/include .scratch-lead/diagtimer.c -L .scratch-base/bd -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o .scratch-base/bd/diagtimer >> $R/build-diag.log 2>&1; echo "rc=$?" >> $R/build-diag.log ) &
wait; echo "builds done at $(el) s"; for f in $R/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
# ---- 1: plain tests, focused on the transposed kernel, every tree concurrently
pids=()
for c in base $CANDS; do
  [ -x .scratch-$c/b/tests/gpu_gemm ] || continue
  ( TETRA_GEMM_TEST_ONLY=wgmma_t TETRA_GEMM_TEST_HASH=1 stdbuf -oL timeout 80 .scratch-$c/b/tests/gpu_gemm > $R/test-$c.log 2>&1; echo "rc=$?" >> $R/test-$c.log ) & pids+=($!)
  ( stdbuf -oL timeout 60 .scratch-$c/b/tests/gpu_nonfinite > $R/nonfinite-$c.log 2>&1; echo "rc=$?" >> $R/nonfinite-$c.log ) & pids+=($!)
done
wait "${pids[@]}"; echo "tests done at $(el) s"
# bit-identity with base: every base output hash must appear in the candidate's (extra cases allowed)
for c in $CANDS; do grep ' hash ' $R/test-$c.log > $R/h-$c.txt 2>/dev/null; n=$(grep ' hash ' $R/test-base.log | grep -cvxFf $R/h-$c.txt); rm -f $R/h-$c.txt
  echo "$c: $n of $(grep -c ' hash ' $R/test-base.log) base hash lines missing or different"; echo $n > $R/hashdiff-$c.txt; done
passed() { grep -q "all checks passed" $R/test-$1.log 2>/dev/null && grep -q "rc=0" $R/nonfinite-$1.log 2>/dev/null &&
  { [ $1 = base ] || [ $1 = bt ] || [ "$(cat $R/hashdiff-$1.txt 2>/dev/null)" = 0 ]; }; }  # bt changes split/tile choices: its own repeats decide
for c in base $CANDS; do echo "$c: $(grep -Eo 'all checks passed|FAIL.*' $R/test-$c.log | head -2 | tr '\n' ' ') $(tail -1 $R/test-$c.log) nonfinite $(tail -1 $R/nonfinite-$c.log 2>/dev/null); passed: $(passed $c && echo yes || echo no)"; done; snap
# ---- 2: diag timing (base, DIAG build) and the A/B of every passing tree
[ -x .scratch-base/bd/diagtimer ] && { timeout 30 .scratch-base/bd/diagtimer > $R/diag.log 2>&1; echo "diag at $(el) s"; cat $R/diag.log; }
AB="--shape 4096x4096x4096,1024x4096x4096 --a tetra-gemm-wgmma-t --b tetra-gemm-wgmma --blocks 4 --no-replicate"
ORDER="base both bt epi clu"   # the single-change trees last: attribution only, skipped when time is short
for c in $ORDER; do
  case " base $CANDS " in *" $c "*) ;; *) continue;; esac
  passed $c || { echo "$c: not passed, not benched"; continue; }
  case $c in epi|clu) [ $(left) -gt 175 ] || { echo "$c: A/B skipped (time)"; continue; };; esac
  timeout 30 .scratch-$c/b/tetra bench $AB --out $R/ab-$c.json > $R/ab-$c.log 2>&1
  echo "== A/B $c at $(el) s"; grep -E "^[0-9]+x" $R/ab-$c.log | cut -c1-130
done
score() { awk '/^[0-9]+x/ {s += $6} END {printf "%.4f", s + 0}' $R/ab-$1.log 2>/dev/null; }
W=base; ws=$(score base)
for c in $CANDS; do [ -f $R/ab-$c.log ] || continue; [ $c = bt ] && continue; sc=$(score $c); echo "$c score $sc (best so far $W $ws)"
  awk -v a=$sc -v b=$ws 'BEGIN{exit !(a > b)}' && { W=$c; ws=$sc; }; done
# bt is built on top of both: take it when it passed and is within 1% of the winner on the large shapes
if [ -f $R/ab-bt.log ]; then sb=$(score bt); echo "bt score $sb"; awk -v a=$sb -v b=$ws 'BEGIN{exit !(a >= 0.99 * b)}' && W=bt; fi
W=${WIN:-$W}; echo "WINNER $W"; echo $W > $R/winner.txt; snap
# ---- 3: compute-sanitizer on the winner (quick mode, all paths) + its full gpu_gemm
lim=$(( $(left) - 95 )); [ $lim -gt 150 ] && lim=150; [ $lim -lt 40 ] && lim=40
echo "sanitizer limit $lim s"; pids=()
( stdbuf -oL timeout $lim .scratch-$W/b/tests/gpu_gemm > $R/full-$W.log 2>&1; echo "rc=$?" >> $R/full-$W.log ) & pids+=($!)
for tool in memcheck racecheck synccheck; do
  # racecheck (the slowest) on the transposed kernel's cases, the other two on every path
  only=""; [ $tool = racecheck ] && only=wgmma_t
  ( TETRA_GEMM_TEST_ONLY=$only TETRA_TEST_QUICK=1 timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 .scratch-$W/b/tests/gpu_gemm > $R/san-$tool-$W.log 2>&1; echo "rc=$?" >> $R/san-$tool-$W.log ) & pids+=($!)
  ( timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 .scratch-$W/b/tests/gpu_nonfinite > $R/san-$tool-nonfinite-$W.log 2>&1; echo "rc=$?" >> $R/san-$tool-nonfinite-$W.log ) & pids+=($!)
done
wait "${pids[@]}"; echo "sanitizers done at $(el) s"
for f in $R/full-$W.log $R/san-*-$W.log; do echo "$(basename $f): $(grep -Eo 'all checks passed|ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY.*' $f | tail -1) $(tail -1 $f)"; done; snap
# ---- 4: results sweep of AUTO on the winner
T=.scratch-$W/b/tetra; res=$R/results; mkdir -p $res
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  stdbuf -oL timeout $limit "$@" > $res/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $res/$name.log | cut -c1-150; }
step ceilings 20 $T bench ceilings --out $res/ceilings.json
step calibrate 40 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
[ $W = bt ] && step small-m 25 $T bench --shape 64x14336x4096,64x4096x14336,64x28672x8192,128x7168x16384,128x4096x7168,128x7168x2048 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-small-m-v7.json
step prefill 50 $T bench --shape 1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336,256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192 --a tetra-gemm --b cublaslt-bf16-tuned $cal --out $res/tetra-gemm-prefill-v7.json
step glm5 20 $T bench --set glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-glm5.json
step w4a4 30 $T bench --shape 1024x4096x4096,4096x4096x4096 --a tetra-gemm-w4a4 --b tetra-gemm,cublaslt-bf16-tuned $cal --out $res/tetra-gemm-w4a4-prefill-v7.json
step fp8 20 $T bench --shape 1024x4096x4096,4096x4096x4096,2048x14336x4096 --a tetra-gemm --b cublaslt-fp8 $cal --out $res/tetra-gemm-fp8-v7.json
echo "total $(el) s"; snap; rm -rf $OUT/f
