#!/usr/bin/env bash
# session 6, call 3: calibrated sweeps of main at $C_MAIN (.scratch-main), GPU otherwise idle:
# ceilings, calibration, then the sweeps whose code changed since run 24 (attention D=128
# non-causal: TMA store of O; GEMV split rule) and those not yet measured at the current code
# (causal and FP16 attention, W4A4 and batch-invariant prefill, seed000's 8192-class rows).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r3; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r3.tgz.tmp -C $OUT r3 2>/dev/null && mv $OUT/r3.tgz.tmp $OUT/r3.tgz; }
export TETRA_COMMIT=$C_MAIN
M=.scratch-main; BD=$M/build-device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
cmake -S $M -B $BD -DCMAKE_BUILD_TYPE=Release > $R/logs/build.log 2>&1 && cmake --build $BD -j16 --target tetra_cli >> $R/logs/build.log 2>&1
echo "build rc=$? at $(el) s"
T=$BD/tetra; res=$R/results
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150; }
step ceilings 25 $T bench ceilings --out $res/ceilings.json
step calibrate 45 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
G="--graph-below-us 400"
step attention 50 $T bench --set attention --a tetra-attention --b cudnn-sdpa,tetra-attention-portable $cal --out $res/attention.json
step attention-causal 45 $T bench --set attention --a tetra-attention-causal --b cudnn-sdpa-causal,tetra-attention-portable-causal $cal --out $res/attention-causal.json
step decode 35 $T bench --set decode,gpumode --a tetra-gemm --b cublaslt-bf16-tuned $G $cal --out $res/tetra-gemm-decode.json
step small 20 $T bench --shape 1x2048x6144,4x2048x6144,8x2048x6144,16x2048x6144,1x768x6144,4x768x6144,8x768x6144,16x768x6144,1x4096x2048,4x4096x2048,8x4096x2048,16x4096x2048 --a tetra-gemm --b cublaslt-bf16-tuned $G $cal --out $res/tetra-gemm-small.json
step w4a4 15 $T bench --shape 1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384 --a tetra-gemm-w4a4 --b tetra-gemm,tetra-gemm-w4a4-full $G $cal --out $res/w4a4.json
step glm5 30 $T bench --set glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned $G $cal --out $res/tetra-gemm-glm5.json
step batchinv 30 $T bench --shape 1x4096x4096,16x4096x4096,64x14336x4096,128x7168x16384,1024x4096x4096,4096x4096x4096 --a tetra-gemm-batchinv --b tetra-gemm $G $cal --out $res/tetra-gemm-batchinv.json
step attention-fp16 35 $T bench --shape 2048x16x128x2,8192x16x128x2,16384x16x128x2 --a tetra-attention-fp16 --b cudnn-sdpa-fp16 $cal --out $res/attention-fp16.json
step attention-fp16-causal 35 $T bench --shape 2048x16x128x2,8192x16x128x2,16384x16x128x2 --a tetra-attention-fp16-causal --b cudnn-sdpa-fp16-causal $cal --out $res/attention-fp16-causal.json
step w4a4-prefill 90 $T bench --shape 1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336 --a tetra-gemm-w4a4 --b cublaslt-bf16-tuned,tetra-gemm $cal --out $res/tetra-gemm-w4a4-prefill.json
step seed000-large 300 $T bench --shape 8192x8192x8192,8192x4096x14336,8192x28672x8192,16384x16384x16384 --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 $cal --out $res/tetra-gemm-prefill-large.json
echo "total $(el) s"; snap; rm -rf $OUT/r3
