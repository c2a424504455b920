#!/usr/bin/env bash
# session 5, call 3: GEMV candidates (gv = n7gemv, gv2 = n7gemv2 at 32 rows/warp, gv2r16 =
# the same at 16) and the attention candidate (at = n7attn) beside main (base); ncu of the
# v7 GEMM at 4096^3 and the GEMV; then tetra tune on main. Trees present decide what runs.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-420}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r3; mkdir -p $R
snap() { tar czf $OUT/r3.tgz.tmp -C $OUT r3 2>/dev/null && mv $OUT/r3.tgz.tmp $OUT/r3.tgz; }
has() { [ -d .scratch-$1 ]; }
bld() { # tree builddir flags targets...
  local t=$1 d=$2 f=$3; shift 3
  ( cmake -S .scratch-$t -B .scratch-$t/$d -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a ${f:+-DCMAKE_CUDA_FLAGS=$f} > $R/build-$t-$d.log 2>&1 &&
    cmake --build .scratch-$t/$d -j3 --target "$@" >> $R/build-$t-$d.log 2>&1; echo "rc=$?" >> $R/build-$t-$d.log ) &
}
bld base b "" gpu_gemv gpu_attention tetra_cli
has gv && bld gv b "" gpu_gemv tetra_cli
has gv2 && bld gv2 b "-DTETRA_GEMV_ROWS_PER_WARP=32" gpu_gemv gpu_gemm tetra_cli
has gv2 && [ -n "${GV2_ALT:-}" ] && bld gv2 b16 "$GV2_ALT" gpu_gemv tetra_cli
has at && bld at b "" gpu_attention tetra_cli
wait; echo "builds done at $(el) s"; for f in $R/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
# ---- tests (concurrent)
pids=()
run_t() { local name=$1 lim=$2; shift 2; ( stdbuf -oL timeout $lim "$@" > $R/$name.log 2>&1; echo "rc=$?" >> $R/$name.log ) & pids+=($!); }
has gv && run_t gemv-gv 170 .scratch-gv/b/tests/gpu_gemv
has gv2 && run_t gemv-gv2 170 .scratch-gv2/b/tests/gpu_gemv
has gv2 && run_t gemm-gv2 170 env TETRA_TEST_QUICK=1 .scratch-gv2/b/tests/gpu_gemm
has gv2 && [ -x .scratch-gv2/b16/tests/gpu_gemv ] && run_t gemv-gv2b16 170 .scratch-gv2/b16/tests/gpu_gemv
has at && run_t attn-at 170 env TETRA_ATTN_TEST_HASH=1 .scratch-at/b/tests/gpu_attention
has at && run_t attn-base 170 env TETRA_ATTN_TEST_HASH=1 .scratch-base/b/tests/gpu_attention
wait "${pids[@]}"; echo "tests done at $(el) s"
for f in $R/gemv-*.log $R/gemm-*.log $R/attn-*.log; do [ -f $f ] && echo "$(basename $f): $(grep -Eo 'all checks passed' $f | head -1) $(grep -c FAIL $f) FAIL; $(tail -1 $f)"; done
grep -h "CHECK failed\|FAIL" $R/*.log | head -8
if has at; then grep 'hash' $R/attn-base.log > $R/ha-base.txt; grep 'hash' $R/attn-at.log > $R/ha-at.txt
  echo "attn hash: base $(wc -l < $R/ha-base.txt), at $(wc -l < $R/ha-at.txt); base lines missing in at: $(grep -cvxFf $R/ha-at.txt $R/ha-base.txt)"; fi
snap
ok() { grep -q 'all checks passed' $R/$1.log 2>/dev/null; }
# ---- A/B
SM="1x4096x4096,8x4096x4096,16x4096x4096,1x2048x6144,16x2048x6144,1x768x6144,16x768x6144,1x4096x2048,16x4096x2048"
abv() { # tag tree builddir
  local tag=$1 t=$2 d=$3
  TETRA_COMMIT=$tag timeout 80 .scratch-$t/$d/tetra bench --set decode,gpumode --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6 --no-replicate --out $R/abd-$tag.json > $R/abd-$tag.log 2>&1
  echo "== decode A/B $tag at $(el) s"; grep -E "^[0-9]+x" $R/abd-$tag.log | cut -c1-110
  TETRA_COMMIT=$tag timeout 40 .scratch-$t/$d/tetra bench --shape $SM --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6 --no-replicate --out $R/abs-$tag.json > $R/abs-$tag.log 2>&1
  echo "== small A/B $tag at $(el) s"; grep -E "^[0-9]+x" $R/abs-$tag.log | cut -c1-110
  TETRA_COMMIT=$tag timeout 30 .scratch-$t/$d/tetra bench --shape 1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384 --a tetra-gemm-w4a4 --b tetra-gemm --graph-below-us 400 --blocks 6 --no-replicate --out $R/abw-$tag.json > $R/abw-$tag.log 2>&1
  grep -E "^[0-9]+x" $R/abw-$tag.log | cut -c1-110; snap
}
abv base base b
has gv && ok gemv-gv && abv gv gv b
has gv2 && ok gemv-gv2 && ok gemm-gv2 && abv gv2 gv2 b
has gv2 && ok gemv-gv2b16 && abv gv2b16 gv2 b16
if has at && ok attn-at; then
  for t in base at; do TETRA_COMMIT=$t timeout 60 .scratch-$t/b/tetra bench --shape 2048x16x64x2,8192x16x64x2,16384x16x64x2,2048x16x128x2 --a tetra-attention --b cudnn-sdpa --blocks 8 --no-replicate --out $R/aba-$t.json > $R/aba-$t.log 2>&1
    echo "== attn A/B $t at $(el) s"; grep -E "^[0-9]+x" $R/aba-$t.log | cut -c1-110; done
  TETRA_COMMIT=at timeout 40 .scratch-at/b/tetra bench --shape 2048x16x64x2,8192x16x64x2 --a tetra-attention --b tetra-attention-rows192 --blocks 8 --no-replicate --out $R/ab-rows192-at.json > $R/ab-rows192-at.log 2>&1
  grep -E "^[0-9]+x" $R/ab-rows192-at.log | cut -c1-110; snap
fi
# ---- ncu: v7 GEMM at 4096^3 (main), the best GEMV tree at 1x28672x8192
NCU="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section SourceCounters --print-details all"
[ $(left) -gt 230 ] && { timeout 50 ncu --kernel-name regex:gemm_wgmma_t --launch-skip 3 --launch-count 1 $NCU .scratch-base/b/tetra bench --shape 4096x4096x4096 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate > $R/ncu-gemm-4096.txt 2>&1; echo "ncu gemm rc=$? at $(el) s"; snap; }
# ---- tune on main (the rest of the budget)
lim=$(( $(left) - 5 )); [ $lim -gt 20 ] && { TETRA_COMMIT=$C_BASE stdbuf -oL timeout $lim .scratch-base/b/tetra tune --set tune --holdout-set decode,glm5-tp8,moe --out $R/dispatch-table.txt --json $R/tune.json > $R/tune.log 2>&1; echo "tune rc=$? at $(el) s"; tail -4 $R/tune.log | cut -c1-160; }
echo "total $(el) s"; snap; rm -rf $OUT/r3
