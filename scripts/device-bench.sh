#!/usr/bin/env bash
# The benchmark run behind docs/results/: ceilings, A/A calibration, then the paired
# sweeps (tetra kernels vs tuned cuBLASLt BF16; cuBLASLt default vs tuned vs FP8; W4A4
# vs W4A16; quantize/dequantize bandwidth), then the markdown/SVG report.
#   scripts/device-bench.sh [build-dir]     results to $OUT/results (or build-dir/results)
# Env: TETRA_COMMIT (the commit, when the tree has no .git), TETRA_BENCH_ONLY (a
# space-separated subset of: ceilings calibrate tetra small w4a4 prefill batchinv fp8 gpumode
# attention quant cublas tune), TETRA_BENCH_FLAGS (extra sweep flags, e.g.
# "--blocks 10 --no-replicate" for a quick pass), TETRA_BENCH_BUDGET (wall seconds for all
# steps, 0 = none: each step's limit is cut to what is left, steps past it are skipped; a
# sweep rewrites its JSON after every row, so a cut step keeps the rows it finished).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
res=${OUT:-$build}/results
mkdir -p "$res"
export PATH="/usr/local/cuda/bin:$PATH"
[ -x "$build/tetra" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
                           cmake --build "$build" -j "$(nproc)" >/dev/null; } || exit 1
T="$build/tetra"
only=${TETRA_BENCH_ONLY:-ceilings calibrate tetra small w4a4 prefill batchinv fp8 gpumode attention quant cublas tune}
F=${TETRA_BENCH_FLAGS:-}
budget=${TETRA_BENCH_BUDGET:-0}
t_start=$(date +%s)
want() { case " $only " in *" $1 "*) return 0;; esac; return 1; }
step() { # name timeout command...
  local name=$1 limit=$2; shift 2
  if [ "$budget" -gt 0 ]; then
    local left=$(( budget - ($(date +%s) - t_start) - 15 ))   # 15 s kept for the report
    [ "$left" -lt 10 ] && { echo "== $name: skipped (TETRA_BENCH_BUDGET spent)"; return; }
    [ "$limit" -gt "$left" ] && limit=$left
  fi
  echo "== $name: $*"
  local t0=$(date +%s)
  # line-buffered: a step cut by its limit still leaves every line it printed
  stdbuf -oL timeout "$limit" "$@" > "$res/$name.log" 2>&1
  local rc=$?
  echo "   rc=$rc in $(( $(date +%s) - t0 )) s"; tail -n 60 "$res/$name.log" | cut -c1-220
}
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json $F"
want ceilings && step ceilings 120 "$T" bench ceilings --out "$res/ceilings.json"
want calibrate && step calibrate 180 "$T" bench calibrate --out "$res/calibration.json"
# decode: CUDA-graph replays (--graph-below-us), as issue 4 asks; host launch cost is
# not the kernel's and would otherwise decide the timing mode
G="--graph-below-us 400"
want tetra && step tetra-decode 240 "$T" bench --set decode,gpumode --a tetra-gemm \
  --b cublaslt-bf16-tuned $G $cal --out "$res/tetra-gemm-decode.json"
want small && step tetra-small 240 "$T" bench --a tetra-gemm --b cublaslt-bf16-tuned $G $cal \
  --m 1-16 --n 4096 --k 4096 --out "$res/tetra-gemm-small-4096.json"
want small && step tetra-small 150 "$T" bench --a tetra-gemm --b cublaslt-bf16-tuned $G $cal \
  --shape 1x2048x6144,4x2048x6144,8x2048x6144,16x2048x6144,1x768x6144,4x768x6144,8x768x6144,16x768x6144,1x4096x2048,4x4096x2048,8x4096x2048,16x4096x2048 \
  --out "$res/tetra-gemm-small.json"
want w4a4 && step w4a4 120 "$T" bench --shape 1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384 \
  --a tetra-gemm-w4a4 --b tetra-gemm,tetra-gemm-w4a4-full $G $cal --out "$res/w4a4.json"
# prefill: seed000 + glm5-tp8 (the 8192^3-class rows take 10-25 s each; a sweep writes its
# JSON after every row, so a step limit costs only the rows not reached), W4A4, M = 64 /
# 256 / 512, and the portable kernel
want prefill && step tetra-prefill 600 "$T" bench --set seed000,glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 $G $cal \
  --out "$res/tetra-gemm-prefill.json"
want prefill && step tetra-prefill-w4a4 400 "$T" bench --a tetra-gemm-w4a4 --b cublaslt-bf16-tuned,tetra-gemm $cal \
  --shape 1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336,8192x8192x8192 --out "$res/tetra-gemm-w4a4-prefill.json"
want prefill && step tetra-prefill-m 300 "$T" bench --a tetra-gemm --b cublaslt-bf16-tuned $G $cal \
  --shape 64x14336x4096,64x4096x14336,64x28672x8192,256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192 \
  --out "$res/tetra-gemm-midm.json"
want prefill && step tetra-gemm-mma 300 "$T" bench --a tetra-gemm-mma --b cublaslt-bf16-tuned $cal \
  --shape 1024x4096x4096,4096x4096x4096,2048x14336x4096 --out "$res/tetra-gemm-mma.json"
# the cost of batch-invariant mode (one configuration for every M, no split-K)
want batchinv && step batchinv 240 "$T" bench --a tetra-gemm-batchinv --b tetra-gemm $G $cal \
  --shape 1x4096x4096,16x4096x4096,64x14336x4096,128x7168x16384,1024x4096x4096,4096x4096x4096 \
  --out "$res/tetra-gemm-batchinv.json"
want fp8 && step fp8 90 "$T" bench --a cublaslt-bf16-tuned --b cublaslt-fp8 $G $cal \
  --shape 1x4096x4096,16x14336x4096,4096x4096x4096,8192x8192x8192 --out "$res/cublaslt-fp8.json"
want gpumode && step gpumode 150 "$T" bench --set gpumode --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 \
  $G $cal --out "$res/tetra-gemm-gpumode.json"
for v in "" -causal; do
  want attention && step "attention$v" 300 "$T" bench --set attention --a "tetra-attention$v" \
    --b "cudnn-sdpa$v,tetra-attention-portable$v" $cal --out "$res/attention$v.json"
done
for v in -fp16 -fp16-causal; do
  want attention && step "attention$v" 240 "$T" bench --set attention --a "tetra-attention$v" \
    --b "cudnn-sdpa$v" $cal --out "$res/attention$v.json"
done
want quant && step quant 120 "$T" bench --set quant --a tetra-quantize --b tetra-dequantize \
  $cal --out "$res/quantize.json"
want cublas && step cublas 300 "$T" bench --set seed000,decode --a cublaslt-bf16-tuned \
  --b cublaslt-bf16,cublaslt-fp8 $cal --out "$res/cublaslt.json"
# the dispatch table: tuned on the tune set, scored on the benchmarked sets it never saw
want tune && step tune 600 "$T" tune --set tune --holdout-set decode,seed000,glm5-tp8,moe \
  --out "$res/dispatch-table.txt" --json "$res/tune.json"
budget=0 # the report always runs (the budget kept 15 s for it)
step report 60 "$T" report $(ls "$res"/*.json | grep -v -e tune.json) --out "$res/report"
ls -la "$res" "$res/report" 2>/dev/null
