#!/usr/bin/env bash
# Session 18, device call 4 (run 92): calibrated seed000 W4A16 and glm5-tp8 with fragment-ordered
# prepared weights on main (BT-256 kernels read them since run 90; the fragment GEMV at M <= 16).
# Run: C_MAIN=<hash> BUDGET=270 bash docs/notes/session18-call4.sh
# PREDICTIONS (written before the run): tetra-gemm-frag against tuned cuBLASLt BF16 (run 76's t_noise
# and ceilings) = run 77's standard-weight ratios x 1.03-1.05 (run 90: fragment / standard 1.043 at
# 2048x14336x4096, 1.048 / 1.030 at M = 256 / 512): 1024x4096x4096 ~1.00 (0.970 x), 2048x14336x4096
# ~0.91 (0.878 x), 4096^3 ~0.95 (0.914 x), 4096x4096x14336 ~0.98 (0.949 x), 8192^3 ~0.94 (0.904 x),
# 8192x4096x14336 ~0.99 (0.953 x). glm5 M = 64 (v7 fragment): ~1.1 (run 83: 1.107 / 1.125); M = 1
# (fragment GEMV, no cluster-K): 768x6144 ~1.17 (run 87: 0.897x the standard CK path's speed,
# run 79: standard 1.304), 2048x6144 ~1.5.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-270}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r92; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r92.tgz.tmp -C $OUT r92 2>/dev/null && mv $OUT/r92.tgz.tmp $OUT/r92.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B build-main -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build build-main -j16 --target tetra_cli >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build: $(tail -n1 $R/logs/build.log) at $(el) s"
T=build-main/tetra; export TETRA_COMMIT=$C_MAIN
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
cal="--ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400"
step glm5-frag 40 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 1x768x6144,1x2048x6144,64x768x6144,64x2048x6144 $cal --blocks 10 --out $R/results/tetra-gemm-frag-glm5.json
step seed000-frag 190 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336,8192x8192x8192,8192x4096x14336 $cal --blocks 8 --out $R/results/tetra-gemm-frag-seed000.json
echo "total $(el) s"; snap; rm -rf $OUT/r92
