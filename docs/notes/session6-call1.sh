#!/usr/bin/env bash
# session 6, call 1: the three end-of-session-5 branches beside main, timing first (idle GPU),
# then their tests with output hashes, then Nsight Compute's stall table of the GEMV.
#   base = main 30da074; per = n8persist 1bd3f33; gv = n8gemv e9d18ba built 5 ways
#   (b = default, SASS-identical to main; g2 = SEGS_PER_COPY=2; r1 = SPLIT_RULE=1;
#   g2r1 = both; acc2 = ACC_SETS=2); at = n8attn 48fbc04.
# Cross-build A/B: each binary paired against cuBLASLt / cuDNN in its own process (the common
# yardstick); base trees run first and last to show drift.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-575}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r1; mkdir -p $R/logs
snap() { tar czf $OUT/r1.tgz.tmp -C $OUT r1 2>/dev/null && mv $OUT/r1.tgz.tmp $OUT/r1.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { # tree builddir flags targets...
  local t=$1 d=$2 f=$3; shift 3
  ( cmake -S .scratch-$t -B .scratch-$t/$d -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a ${f:+-DCMAKE_CUDA_FLAGS=$f} > $R/logs/build-$t-$d.log 2>&1 &&
    cmake --build .scratch-$t/$d -j2 --target "$@" >> $R/logs/build-$t-$d.log 2>&1; echo "rc=$?" >> $R/logs/build-$t-$d.log ) &
}
bld base b "" tetra_cli gpu_gemm gpu_attention
bld per b "" tetra_cli gpu_gemm
bld gv b "" tetra_cli gpu_gemv
bld gv g2 "-DTETRA_GEMV_SEGS_PER_COPY=2" tetra_cli gpu_gemv
bld gv r1 "-DTETRA_GEMV_SPLIT_RULE=1" tetra_cli gpu_gemv
bld gv g2r1 "-DTETRA_GEMV_SEGS_PER_COPY=2 -DTETRA_GEMV_SPLIT_RULE=1" tetra_cli gpu_gemv
bld gv acc2 "-DTETRA_GEMV_ACC_SETS=2" tetra_cli gpu_gemv
bld at b "" tetra_cli gpu_attention
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
ab() { # tag tree builddir limit bench-args...
  local tag=$1 t=$2 d=$3 lim=$4; shift 4
  [ -x .scratch-$t/$d/tetra ] || { echo "$tag: no binary"; return; }
  [ $(left) -lt $(( lim + 10 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  TETRA_COMMIT=$tag stdbuf -oL timeout $lim .scratch-$t/$d/tetra bench "$@" --no-replicate --out $R/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-112; snap
}
# ---- GEMV (M = 1..16; CUDA graphs below 400 us)
GVL="1x28672x8192,8x28672x8192,16x28672x8192,1x14336x4096,1x4096x14336,1x7168x16384,1x4096x2048"
GVS="1x4096x4096,8x4096x4096,16x4096x4096,1x768x6144,1x2048x6144"
gvab() { ab gv-$1-$2 gv $1 50 --shape $3 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6; }
gvab b 1 $GVL,$GVS; gvab g2 1 $GVL,$GVS; gvab r1 1 $GVS; gvab g2r1 1 $GVS; gvab acc2 1 $GVL; gvab b 2 $GVL
# ---- GEMM prefill and M = 128..512
GM="4096x4096x4096,2048x14336x4096,1024x4096x4096,4096x4096x14336,8192x8192x8192,128x7168x16384,128x7168x2048,512x4096x14336"
ab gm-base-1 base b 60 --shape $GM --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
ab gm-per-1 per b 60 --shape $GM --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
ab gm-base-2 base b 60 --shape $GM --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
# ---- attention (non-causal; n8attn changes only the non-causal store)
AT="2048x16x128x2,8192x16x128x2,2048x16x64x2,512x16x128x2"
ab at-base-1 base b 50 --shape $AT --a tetra-attention --b cudnn-sdpa --blocks 8
ab at-at-1 at b 50 --shape $AT --a tetra-attention --b cudnn-sdpa --blocks 8
ab at-base-2 base b 50 --shape $AT --a tetra-attention --b cudnn-sdpa --blocks 8
# ---- ncu: the GEMV's stall reasons and per-instruction samples at 1x28672x8192 (main's code)
NCU="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section SourceCounters --section Occupancy --print-details all"
if [ $(left) -gt 110 ]; then
  timeout 60 ncu --kernel-name regex:gemv_nvfp4_mma --launch-skip 3 --launch-count 1 $NCU -o $R/ncu-gemv-1 .scratch-gv/b/tetra bench --shape 1x28672x8192 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate > $R/logs/ncu-gemv-1.txt 2>&1; echo "ncu gemv rc=$? at $(el) s"
  ncu -i $R/ncu-gemv-1.ncu-rep $NCU > $R/ncu-gemv-1-details.txt 2>&1
  ncu -i $R/ncu-gemv-1.ncu-rep --page source --csv --print-source sass > $R/ncu-gemv-1-sass.csv 2>&1; echo "sass csv $(wc -l < $R/ncu-gemv-1-sass.csv) lines"
  rm -f $R/ncu-gemv-1.ncu-rep; snap
fi
# ---- tests with output hashes (correctness of the branches; concurrent, GPU shared)
pids=()
run_t() { local name=$1 lim=$2; shift 2; ( stdbuf -oL timeout $lim "$@" > $R/logs/$name.log 2>&1; echo "rc=$?" >> $R/logs/$name.log ) & pids+=($!); }
lim=$(( $(left) - 15 ))
if [ $lim -gt 60 ]; then
  run_t t-gemm-base $lim env TETRA_GEMM_TEST_HASH=1 .scratch-base/b/tests/gpu_gemm
  run_t t-gemm-per $lim env TETRA_GEMM_TEST_HASH=1 .scratch-per/b/tests/gpu_gemm
  run_t t-attn-base $lim env TETRA_ATTN_TEST_HASH=1 .scratch-base/b/tests/gpu_attention
  run_t t-attn-at $lim env TETRA_ATTN_TEST_HASH=1 .scratch-at/b/tests/gpu_attention
  for d in b g2 r1 g2r1 acc2; do run_t t-gemv-$d $lim env TETRA_GEMV_TEST_HASH=1 .scratch-gv/$d/tests/gpu_gemv; done
  wait "${pids[@]}"; echo "tests done at $(el) s"
  for f in $R/logs/t-*.log; do echo "$(basename $f .log): $(grep -c 'hash' $f) hash lines, $(grep -c FAIL $f) FAIL, '$(grep -Eo 'all checks passed' $f | head -1)' $(tail -1 $f)"; done
  hcmp() { grep 'hash' $R/logs/$1.log | sort > $R/logs/h-$1.txt; grep 'hash' $R/logs/$2.log | sort > $R/logs/h-$2.txt
    echo "hash $1 vs $2: $(wc -l < $R/logs/h-$1.txt) / $(wc -l < $R/logs/h-$2.txt) lines; lines of $1 missing in $2: $(comm -23 $R/logs/h-$1.txt $R/logs/h-$2.txt | wc -l)"; }
  hcmp t-gemm-base t-gemm-per; hcmp t-attn-base t-attn-at; hcmp t-gemv-b t-gemv-g2; hcmp t-gemv-b t-gemv-acc2; hcmp t-gemv-r1 t-gemv-g2r1
fi
echo "total $(el) s"; snap; rm -rf $OUT/r1
