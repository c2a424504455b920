#!/usr/bin/env bash
# session 8, call 3: main at $C_MAIN (order 1 + half-selectors merged): ceilings, calibration,
# the calibrated attention sets (issue 6's final figures). Cross-build ABA against cuBLAS:
# GEMM v10.1 (n12xform rebased on main, $C_XFORM) and the wgmma-T split rule above one wave
# ($C_SPLIT). Then their gpu_gemm (wgmma-T cases) hashes beside main's and compute-sanitizer x3.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-500}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r3; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r3.tgz.tmp -C $OUT r3 2>/dev/null && mv $OUT/r3.tgz.tmp $OUT/r3.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local t=$1 j=$2; shift 2
  ( cmake -S .scratch-$t -B .scratch-$t/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-$t.log 2>&1 &&
    cmake --build .scratch-$t/b -j$j --target "$@" >> $R/logs/build-$t.log 2>&1; echo "rc=$?" >> $R/logs/build-$t.log ) & }
bld main 6 tetra_cli gpu_gemm
bld xform 5 tetra_cli gpu_gemm gpu_nonfinite
bld split 5 tetra_cli gpu_gemm
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
declare -A C=([main]=$C_MAIN [xform]=$C_XFORM [split]=$C_SPLIT)
T=.scratch-main/b/tetra; res=$R/results
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  TETRA_COMMIT=$C_MAIN stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150; }
step ceilings 25 $T bench ceilings --out $res/ceilings.json
step calibrate 45 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
step attention 60 $T bench --set attention --a tetra-attention --b cudnn-sdpa,tetra-attention-portable $cal --out $res/attention.json
step attention-causal 45 $T bench --shape 2048x16x128x2,8192x16x128x2,16384x16x128x2 --a tetra-attention-causal --b cudnn-sdpa-causal,tetra-attention-portable-causal $cal --out $res/attention-causal.json
ab() { local tag=$1 t=$2 lim=$3; shift 3
  [ $(left) -lt $(( lim + 90 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  echo "$tag: .scratch-$t/b/tetra bench $*" >> $R/logs/commands.txt
  TETRA_COMMIT=${C[$t]} stdbuf -oL timeout $lim .scratch-$t/b/tetra bench "$@" --no-replicate --out $R/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
SP=1024x5120x13824,768x7168x16384,1536x4096x14336,64x24576x6144,96x24576x6144,1024x4096x14336
i=0; for t in main split main; do i=$((i+1)); ab sp$i-$t $t 40 --shape $SP --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6; done
GM=4096x4096x4096,8192x8192x8192
i=0; for t in main xform main; do i=$((i+1)); ab gm$i-$t $t 45 --shape $GM --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6; done
lim=$(( $(left) - 5 )); echo "correctness with limit $lim s at $(el) s"
for t in main xform split; do
  ( TETRA_GEMM_TEST_ONLY=wgmma_t TETRA_GEMM_TEST_HASH=1 timeout $lim .scratch-$t/b/tests/gpu_gemm > $R/logs/hash-$t.log 2>&1; echo "rc=$?" >> $R/logs/hash-$t.log ) &
done
for t in xform split; do for tool in memcheck racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 .scratch-$t/b/tests/gpu_gemm > $R/logs/san-$tool-$t.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-$t.log ) &
done; done
( timeout $lim .scratch-xform/b/tests/gpu_nonfinite > $R/logs/nonfinite-xform.log 2>&1; echo "rc=$?" >> $R/logs/nonfinite-xform.log ) &
wait; echo "correctness done at $(el) s"; snap
for f in $R/logs/san-*.log; do printf "%s: %s %s\n" "$(basename $f .log)" "$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors' $f | tail -1)" "$(tail -1 $f)"; done
for f in $R/logs/hash-*.log $R/logs/nonfinite-xform.log; do echo "$(basename $f .log): $(grep -c hash $f) hash lines, $(grep -c FAIL $f) FAIL, $(tail -2 $f | tr '\n' ' ')"; done
for t in xform split; do echo "$t: main lines missing: $(LC_ALL=C comm -23 <(grep hash $R/logs/hash-main.log | LC_ALL=C sort) <(grep hash $R/logs/hash-$t.log | LC_ALL=C sort) | wc -l), new lines: $(LC_ALL=C comm -13 <(grep hash $R/logs/hash-main.log | LC_ALL=C sort) <(grep hash $R/logs/hash-$t.log | LC_ALL=C sort) | wc -l)"; done
echo "total $(el) s"; snap; rm -rf $OUT/r3
