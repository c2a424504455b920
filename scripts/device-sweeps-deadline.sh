#!/usr/bin/env bash
# The results sweeps of one device call under a wall-clock budget, most important first:
# each step's limit is cut to what is left of the budget, and every sweep rewrites its
# JSON after each row, so a cut step keeps the rows it finished (marked complete: false).
#   scripts/device-sweeps-deadline.sh BUDGET_S [build-dir]   results to $OUT/results
# Env: TETRA_BENCH_FLAGS (default "--blocks 10 --no-replicate").
set -uo pipefail
cd "$(dirname "$0")/.."
budget=${1:-570}; build=${2:-build-device}
t0=$(date +%s)
res=${OUT:-$build}/results
mkdir -p "$res"
export PATH="/usr/local/cuda/bin:$PATH"
[ -x "$build/tetra" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
                           cmake --build "$build" -j "$(nproc)" --target tetra_cli >/dev/null; } || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
T="$build/tetra"
F=${TETRA_BENCH_FLAGS:---blocks 10 --no-replicate}
step() { # name limit command...
  local name=$1 limit=$2; shift 2
  local left=$(( budget - ($(date +%s) - t0) - 15 ))   # 15 s for the report
  [ $left -lt 10 ] && { echo "== $name: SKIPPED (budget spent)"; return; }
  [ $limit -gt $left ] && limit=$left
  echo "== $name (limit $limit s): $*"
  local s0=$(date +%s)
  stdbuf -oL timeout "$limit" "$@" > "$res/$name.log" 2>&1
  echo "   rc=$? in $(( $(date +%s) - s0 )) s"
}
G="--graph-below-us 400"
step ceilings 60 "$T" bench ceilings --out "$res/ceilings.json"
step calibrate 90 "$T" bench calibrate --out "$res/calibration.json"
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json $F"
step tetra-prefill 200 "$T" bench --set seed000,glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 $G $cal \
  --out "$res/tetra-gemm-prefill.json"
step tetra-prefill-m 60 "$T" bench --a tetra-gemm --b cublaslt-bf16-tuned $G $cal \
  --shape 64x14336x4096,64x4096x14336,64x28672x8192,256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192 \
  --out "$res/tetra-gemm-midm.json"
step tetra-prefill-w4a4 80 "$T" bench --a tetra-gemm-w4a4 --b cublaslt-bf16-tuned,tetra-gemm $cal \
  --shape 1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336 --out "$res/tetra-gemm-w4a4-prefill.json"
step tetra-decode 60 "$T" bench --set decode,gpumode --a tetra-gemm --b cublaslt-bf16-tuned $G $cal \
  --out "$res/tetra-gemm-decode.json"
step attention 60 "$T" bench --set attention --a tetra-attention --b cudnn-sdpa,tetra-attention-portable $cal \
  --out "$res/attention.json"
step attention-causal 60 "$T" bench --set attention --a tetra-attention-causal --b cudnn-sdpa-causal,tetra-attention-portable-causal $cal \
  --out "$res/attention-causal.json"
step w4a4 30 "$T" bench --shape 1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384 \
  --a tetra-gemm-w4a4 --b tetra-gemm,tetra-gemm-w4a4-full $G $cal --out "$res/w4a4.json"
step gpumode-fp8 30 "$T" bench --set gpumode --a tetra-gemm --b cublaslt-fp8 $G $cal --out "$res/tetra-gemm-gpumode-fp8.json"
step tetra-small 40 "$T" bench --a tetra-gemm --b cublaslt-bf16-tuned $G $cal \
  --shape 1x2048x6144,4x2048x6144,8x2048x6144,16x2048x6144,1x768x6144,4x768x6144,8x768x6144,16x768x6144,1x4096x2048,4x4096x2048,8x4096x2048,16x4096x2048 \
  --out "$res/tetra-gemm-small.json"
step batchinv 40 "$T" bench --a tetra-gemm-batchinv --b tetra-gemm $G $cal \
  --shape 1x4096x4096,16x4096x4096,64x14336x4096,128x7168x16384,1024x4096x4096,4096x4096x4096 \
  --out "$res/tetra-gemm-batchinv.json"
timeout 15 "$T" report $(ls "$res"/*.json) --out "$res/report" > "$res/report.log" 2>&1
echo "total $(( $(date +%s) - t0 )) s"
