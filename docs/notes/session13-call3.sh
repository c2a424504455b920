#!/usr/bin/env bash
# Session 13 call 3 (run 61), main d046d58 (v10.3): two measurements, no code change.
# 1. The fixed cost per CTA without the trace: v10.3 and cuBLAS at 4096x4096xK, K = 1024 ..
#    16384 (time = a + b K; 4096x4096 is 512 CTAs = 3.88 waves at 1 CTA/SM, so a / 4 ~ the fixed
#    cost per CTA that v10.4 was meant to remove). Prediction (from run 55's trace: ~9,900
#    cycles per CTA ~ 6 us at 1.635 GHz): a ~ 20-25 us; tetra's ratio to cuBLAS rises with K
#    if the fixed part is larger than cuBLAS's.
# 2. The dispatcher's held-out score with v10.3 times (the rules were scored with v10.1 in runs
#    36-45): glm5-tp8 and eight M = 256..1024 shapes where BT 128 vs 256 and split-K are chosen.
#    Prediction: within 5% of the sweep's best on >= 90% of them; a miss would be a BT-128 or
#    split choice that v10.3 now beats.
# Run: C_MAIN=d046d58 BUDGET=420 bash docs/notes/session13-call3.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-420}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r3; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r3.tgz.tmp -C $OUT r3 2>/dev/null && mv $OUT/r3.tgz.tmp $OUT/r3.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
cmake -S . -B /tmp/bm -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build /tmp/bm -j16 --target tetra_cli >> $R/logs/build.log 2>&1; echo "build rc=$? at $(el) s"
export TETRA_COMMIT=$C_MAIN
timeout 110 /tmp/bm/tetra bench --shape 4096x4096x1024,4096x4096x2048,4096x4096x4096,4096x4096x8192,4096x4096x16384 \
  --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate --out $R/results/kscan.json > $R/logs/kscan.log 2>&1
echo "kscan rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/kscan.log | cut -c1-150; snap
l=$(( $(left) - 10 )); echo "tune budget $l s"
timeout $l /tmp/bm/tetra tune --shape 1x3072x3072 --holdout-set glm5-tp8 \
  --holdout-shape 256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192,1024x14336x4096,768x4096x4096 \
  --out $R/results/dispatch-table.txt --json $R/results/tune-holdout.json > $R/logs/tune.log 2>&1
echo "tune rc=$? at $(el) s"; tail -40 $R/logs/tune.log | cut -c1-160
echo "total $(el) s"; snap; rm -rf $OUT/r3
