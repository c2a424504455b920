#!/usr/bin/env bash
# session 10, call 5: main at $C_MAIN (aeb312b), two builds: default (the GEMV's reduce kernel
# as a programmatic dependent) and -DTETRA_GEMV_PDL_REDUCE=0 (a plain second launch, as before
# session 10). Question: run 43 put W4A4/W4A16 at M = 1 at 0.920 / 0.940 / 0.981 / 0.908
# (run 36: 0.945 / 0.945 / 0.979 / 0.957): does the W4A4 chain (staging -> GEMV -> reduce) gain
# from the dependent reduce as W4A16 does, or lose? ABA: off / on / off, W4A4 interleaved vs
# W4A16 interleaved in each binary, plus both arms vs cuBLAS-free absolute times.
# Prediction: both arms ~0.3-0.5 us faster in the default build at the reduce-kernel shapes
# (1x14336x4096, 1x4096x14336, 1x7168x16384), 1x28672x8192 (2 splits, in-kernel) unchanged.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/r5; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r5.tgz.tmp -C $OUT r5 2>/dev/null && mv $OUT/r5.tgz.tmp $OUT/r5.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
for v in 1 0; do
  ( cmake -S .scratch-main -B .scratch-main/p$v -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_GEMV_PDL_REDUCE=$v > $R/logs/build-p$v.log 2>&1 &&
    cmake --build .scratch-main/p$v -j8 --target tetra_cli >> $R/logs/build-p$v.log 2>&1; echo "rc=$?" >> $R/logs/build-p$v.log ) &
done; wait
echo "builds done at $(el) s: $(tail -1 $R/logs/build-p1.log) $(tail -1 $R/logs/build-p0.log)"
export TETRA_COMMIT=$C_MAIN
S=1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384
for tag in off1:p0 on:p1 off2:p0; do
  n=${tag%%:*}; d=${tag#*:}
  echo "$n: .scratch-main/$d/tetra bench --shape $S --a tetra-gemm-w4a4-interleaved --b tetra-gemm-gemv-interleaved --graph-below-us 400 --blocks 6 --no-replicate" >> $R/logs/commands.txt
  stdbuf -oL timeout 60 .scratch-main/$d/tetra bench --shape $S --a tetra-gemm-w4a4-interleaved --b tetra-gemm-gemv-interleaved --graph-below-us 400 --blocks 6 --no-replicate --out $R/results/w4a4-$n.json > $R/logs/w4a4-$n.log 2>&1
  echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/w4a4-$n.log | cut -c1-130; snap
done
echo "total $(el) s"; snap; rm -rf $OUT/r5
