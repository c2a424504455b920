#!/usr/bin/env bash
# The benchmark run behind docs/results/: ceilings, A/A calibration, then the paired
# sweeps (tetra kernels vs tuned cuBLASLt BF16; cuBLASLt default vs tuned vs FP8; W4A4
# vs W4A16; quantize/dequantize bandwidth), then the markdown/SVG report.
#   scripts/device-bench.sh [build-dir]     results to $OUT/results (or build-dir/results)
# Env: TETRA_COMMIT (the commit, when the tree has no .git), TETRA_BENCH_ONLY (a
# space-separated subset of: ceilings calibrate tetra quant w4a4 cublas).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
res=${OUT:-$build}/results
mkdir -p "$res"
export PATH="/usr/local/cuda/bin:$PATH"
[ -x "$build/tetra" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
                           cmake --build "$build" -j "$(nproc)" >/dev/null; } || exit 1
T="$build/tetra"
only=${TETRA_BENCH_ONLY:-ceilings calibrate tetra quant w4a4 cublas}
want() { case " $only " in *" $1 "*) return 0;; esac; return 1; }
step() { # name timeout command...
  local name=$1 limit=$2; shift 2
  echo "== $name: $*"
  local t0=$(date +%s)
  timeout "$limit" "$@" > "$res/$name.log" 2>&1
  local rc=$?
  echo "   rc=$rc in $(( $(date +%s) - t0 )) s"; tail -n 60 "$res/$name.log" | cut -c1-220
}
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json"
want ceilings && step ceilings 120 "$T" bench ceilings --out "$res/ceilings.json"
want calibrate && step calibrate 180 "$T" bench calibrate --out "$res/calibration.json"
want tetra && step tetra 300 "$T" bench --set decode,gpumode,seed000 --a tetra-gemm \
  --b cublaslt-bf16-tuned $cal --out "$res/tetra-gemm.json"
want quant && step quant 120 "$T" bench --set quant --a tetra-quantize --b tetra-dequantize \
  $cal --out "$res/quantize.json"
want w4a4 && step w4a4 120 "$T" bench --shape 1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384 \
  --a tetra-gemm-w4a4 --b tetra-gemm,tetra-gemm-w4a4-full $cal --out "$res/w4a4.json"
want cublas && step cublas 300 "$T" bench --set seed000,decode --a cublaslt-bf16-tuned \
  --b cublaslt-bf16,cublaslt-fp8 $cal --out "$res/cublaslt.json"
step report 60 "$T" report "$res"/*.json --out "$res/report"
ls -la "$res" "$res/report" 2>/dev/null
