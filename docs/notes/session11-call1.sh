#!/usr/bin/env bash
# session 11, call 1: main at $C_MAIN (24235a7), sm_90a. Issue 4's grid question.
# Q1 what a pure read of the prepared weights' bytes reaches at each decode shape, over CTAs
#    per SM (mem-read-nvfp4, TETRA_BENCH_READ_CTAS 1..16), paired with the GEMV (AUTO);
# Q2 the GEMV kernel and its copy probe over pinned split counts (TETRA_BENCH_GEMV_SPLITS);
# Q3 an nsys trace of the W4A4 chain (quantized X staged, GEMV, reduce) beside W4A16: why the
#    dependent reduce gains nothing there (run 44).
# Predictions (written before the run, docs/notes/gemv.md "Session 11"):
#  Q1 best pure read: 33 MB shapes 75-82% of the 4597 GB/s read ceiling, 66 MB 85-90%,
#     132 MB 90-95%; 4 CTAs/SM within 3% of the best.
#  Q2 the copy probe's best split within 5% of the best pure read; AUTO's split within 3% of
#     the kernel's best split at every shape.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/r1; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r1.tgz.tmp -C $OUT r1 2>/dev/null && mv $OUT/r1.tgz.tmp $OUT/r1.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
cmake -S .scratch-main -B .scratch-main/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build .scratch-main/b -j16 --target tetra_cli >> $R/logs/build.log 2>&1; echo "build rc=$? at $(el) s"
B=.scratch-main/b/tetra
export TETRA_COMMIT=$C_MAIN
S=1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384
COMMON="--graph-below-us 400 --blocks 6 --no-replicate"
for c in 1 2 4 8 16; do
  echo "TETRA_BENCH_READ_CTAS=$c $B bench --shape $S --a mem-read-nvfp4 --b tetra-gemm-gemv-interleaved $COMMON" >> $R/logs/commands.txt
  TETRA_BENCH_READ_CTAS=$c timeout 90 $B bench --shape $S --a mem-read-nvfp4 --b tetra-gemm-gemv-interleaved $COMMON --out $R/results/read-c$c.json > $R/logs/read-c$c.log 2>&1
  echo "== read ctas=$c rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/read-c$c.log | cut -c1-140; snap
done
for sp in 1 2 3 4 6 8 12 16; do
  echo "TETRA_BENCH_GEMV_SPLITS=$sp $B bench --shape $S --a tetra-gemm-gemv-interleaved --b probe-gemv-interleaved-copy $COMMON" >> $R/logs/commands.txt
  TETRA_BENCH_GEMV_SPLITS=$sp timeout 90 $B bench --shape $S --a tetra-gemm-gemv-interleaved --b probe-gemv-interleaved-copy $COMMON --out $R/results/split-s$sp.json > $R/logs/split-s$sp.log 2>&1
  echo "== splits=$sp rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/split-s$sp.log | cut -c1-140; snap
done
# AUTO kernel against its own copy probe (the reference row for Q2)
timeout 90 $B bench --shape $S --a tetra-gemm-gemv-interleaved --b probe-gemv-interleaved-copy $COMMON --out $R/results/split-auto.json > $R/logs/split-auto.log 2>&1
echo "== splits=auto rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/split-auto.log | cut -c1-140; snap
# Q3: nsys trace of the W4A4 chain and W4A16 at 1x14336x4096 (graph nodes traced)
if command -v nsys > /dev/null; then
  timeout 150 nsys profile --cuda-graph-trace=node -o $R/logs/w4a4-trace -f true \
    $B bench --shape 1x14336x4096,1x7168x16384 --a tetra-gemm-w4a4-interleaved --b tetra-gemm-gemv-interleaved --graph-below-us 400 --blocks 2 --no-replicate > $R/logs/nsys-run.log 2>&1
  echo "== nsys rc=$? at $(el) s"
  timeout 120 nsys stats --report cuda_gpu_trace --format csv -o $R/logs/w4a4-trace $R/logs/w4a4-trace.nsys-rep > $R/logs/nsys-stats.log 2>&1
  echo "== nsys stats rc=$? at $(el) s"; ls -la $R/logs | grep trace
  rm -f $R/logs/w4a4-trace.nsys-rep $R/logs/w4a4-trace.sqlite
  gzip -f $R/logs/*gpu_trace*.csv 2>/dev/null
else
  echo "no nsys"
fi
echo "total $(el) s"; snap; rm -rf $OUT/r1
