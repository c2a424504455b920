#!/usr/bin/env bash
# Session 13 call 4 (run 62): where tetra's K-independent time goes (run 61's K-scan: at
# 4096x4096xK tetra's intercept ~34 us against cuBLAS's ~15 us, equal slopes).
# 1. Host cost: bench samples are one eager launch between two events on an idle stream, so a
#    call's host path (tensor-map encodes, launch with cluster attributes) counts as GPU idle
#    time. Same rows eager (--graph-below-us 0) and in CUDA graphs (--graph-below-us 1e6).
#    Prediction: if tetra's host path costs more than cuBLASLt's, its ratio rises under graphs
#    by that difference over the call time (e.g. +5 us at 1024x4096x4096 = +0.08).
# 2. v10.4 (persistent, branch p4m 2c8af5f) against v10.3 at K = 1024, where the per-CTA fixed
#    cost is the largest share (4096x4096x1024 ratio 0.794 in run 61), graph-timed, ABA.
#    Prediction if the per-CTA fixed cost is what persistence removes: v10.4 +8% or more there.
# Before the call: rm -rf .scratch-p4 && mkdir .scratch-p4 && git -C /work/wt-p4m archive HEAD | tar x -C .scratch-p4 && rm -rf .scratch-p4/docs/results
# Run: C_MAIN=<hash> C_P4=2c8af5f BUDGET=300 bash docs/notes/session13-call4.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-300}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r4; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r4.tgz.tmp -C $OUT r4 2>/dev/null && mv $OUT/r4.tgz.tmp $OUT/r4.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B /tmp/b0 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-b0.log 2>&1 &&
  cmake --build /tmp/b0 -j8 --target tetra_cli >> $R/logs/build-b0.log 2>&1; echo "rc=$?" >> $R/logs/build-b0.log ) &
( cmake -S .scratch-p4 -B /tmp/b1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_GEMM_SS_PERSISTENT=1 > $R/logs/build-b1.log 2>&1 &&
  cmake --build /tmp/b1 -j8 --target tetra_cli >> $R/logs/build-b1.log 2>&1; echo "rc=$?" >> $R/logs/build-b1.log ) &
wait; echo "builds at $(el) s: $(tail -1 $R/logs/build-b0.log) $(tail -1 $R/logs/build-b1.log)"
SH=4096x4096x1024,1024x4096x4096,4096x4096x4096
for g in eager:0 graph:1000000; do
  n=${g%%:*}; v=${g#*:}
  TETRA_COMMIT=$C_MAIN timeout 80 /tmp/b0/tetra bench --shape $SH --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
    --graph-below-us $v --out $R/results/host-$n.json > $R/logs/host-$n.log 2>&1
  echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/host-$n.log | cut -c1-150; snap
done
SK=4096x4096x1024,8192x8192x1024
for tag in k0a:b0:$C_MAIN k1:b1:$C_P4 k0b:b0:$C_MAIN; do
  IFS=: read n d c <<< "$tag"; l=$(( $(left) - 5 )); [ $l -lt 30 ] && { echo "$n SKIPPED"; continue; }; [ $l -gt 60 ] && l=60
  TETRA_COMMIT=$c timeout $l /tmp/$d/tetra bench --shape $SK --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
    --graph-below-us 1000000 --out $R/results/p4k-$n.json > $R/logs/p4k-$n.log 2>&1
  echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/p4k-$n.log | cut -c1-150; snap
done
echo "total $(el) s"; snap; rm -rf $OUT/r4
