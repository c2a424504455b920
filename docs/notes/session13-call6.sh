#!/usr/bin/env bash
# Session 13 call 6 (run 64): what bounds v11's K loop (run 63: ~0.92 us per K-tile at
# 64x28672x8192, predicted ~0.43). TETRA_GEMM_DIAG builds of v11 (branch ss64 e3beaec,
# -DTETRA_GEMM_SS64=1) and of main (v7 at BT 64), timed by docs/notes/session12-trace.c (AUTO
# path, median of 7 x 20 calls) with TETRA_GEMM_DIAG_MODE 0 (normal), 1 (no dequantization:
# the transform warps wait, load, fence and arrive but do not convert or store), 4 (also no
# scale loads).
# Prediction: if the dequantization's instructions bind v11, mode 1 takes 64x28672x8192 from
# ~117 us to <= 70 us; if mode 1 stays above ~100 us, the per-K-tile synchronisation and loads
# bind, not the conversion.
# Before the call: .scratch-s64 = git -C /work/wt-ss64 archive HEAD (as call 5).
# Run: BUDGET=200 bash docs/notes/session13-call6.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-200}
el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/r6; mkdir -p $R/logs
snap() { tar czf $OUT/r6.tgz.tmp -C $OUT r6 2>/dev/null && mv $OUT/r6.tgz.tmp $OUT/r6.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { # name src extra-flags
  ( cmake -S $2 -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_DIAG" $3 > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j8 --target tetra_static >> $R/logs/build-$1.log 2>&1 &&
    gcc -std=c11 -O2 -I $2/include -I /usr/local/cuda/include docs/notes/session12-trace.c -L /tmp/$1 -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o /tmp/$1/drv >> $R/logs/build-$1.log 2>&1
    echo "rc=$?" >> $R/logs/build-$1.log ) & }
bld v11d .scratch-s64 "-DTETRA_GEMM_SS64=1"; bld v7d . ""; wait
echo "builds at $(el) s: v11d $(tail -1 $R/logs/build-v11d.log) v7d $(tail -1 $R/logs/build-v7d.log)"
for b in v11d v7d; do
  MODES="0 1 4" timeout 80 /tmp/$b/drv /tmp/x 64x28672x8192 64x4096x14336 64x14336x4096 > $R/logs/drv-$b.log 2>&1
  echo "== $b rc=$? at $(el) s"; cat $R/logs/drv-$b.log | head -20; snap
done
echo "total $(el) s"; snap; rm -rf $OUT/r6
