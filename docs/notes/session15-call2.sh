#!/usr/bin/env bash
# Session 15 call 2 = run 72 (written at the end of session 14, run as drafted; C_N=f283de9):
# Same .scratch-8 / .scratch-s as call 1. Run: C_N=<hash> BUDGET=540 bash docs/notes/session15-call2-draft.sh
# Predictions: v10.8 - main (eager ABAB): 4096x4096x1024 +0.03-0.05, 2048x14336x4096 +0.01-0.03,
# 4096^3 0-+0.01, 4096x4096x14336 -0.02-0; merge only if no seed000 shape loses beyond both main
# legs. v7.4 (ABA): 64x28672x8192 ~101 us from ~114 (ratio ~1.17); refuted unless >= 8% faster
# than both main legs there; 128x28672x8192 10-12% faster; other shapes unchanged.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-540}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/c2; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/c2.tgz.tmp -C $OUT c2 2>/dev/null && mv $OUT/c2.tgz.tmp $OUT/c2.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { ( cmake -S $2 -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $3 > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j5 --target tetra_cli >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log ) & }
bld b0 . ""; bld p8 .scratch-8 "-DTETRA_GEMM_SS_PERSISTENT=1"; bld s .scratch-s "-DTETRA_GEMM_V7_STREAMK=1"
wait; echo "builds at $(el) s: $(for b in b0 p8 s; do echo -n "$b $(tail -1 $R/logs/build-$b.log) "; done)"
bench() { # tag build commit shapes
  local l=$(( $(left) - 5 )); [ $l -lt 30 ] && { echo "$1 SKIPPED"; return; }; [ $l -gt 110 ] && l=110
  TETRA_COMMIT=$3 timeout $l /tmp/$2/tetra bench --shape $4 --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
    --out $R/results/$1.json > $R/logs/$1.log 2>&1
  echo "== $1 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$1.log | cut -c1-150; snap; }
SK=64x28672x8192,64x4096x14336,64x14336x4096,128x28672x8192
bench k-b0a b0 $C_N $SK; bench k-s s $C_N+v7.4 $SK; bench k-b0b b0 $C_N $SK
S8=4096x4096x1024,2048x14336x4096,4096x4096x4096,4096x4096x14336,8192x4096x14336
bench e-b0a b0 $C_N $S8; bench e-pa p8 $C_N+v10.8 $S8; bench e-b0b b0 $C_N $S8; bench e-pb p8 $C_N+v10.8 $S8
echo "total $(el) s"; snap; rm -rf $OUT/c2
