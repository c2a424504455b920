#!/usr/bin/env bash
# session 9, call 2: main at $C_MAIN (1df1de0: v10.1 + split above one wave + W4A4 staged GEMV),
# built for sm_90a. Ceilings + A/A calibration, then issue 5's calibrated sweeps at the current
# code: seed000 W4A16 (vs tuned cuBLASLt BF16 and FP8, 16384^3 included), M = 64/256/512 on the
# midm shapes, seed000 W4A4, glm5-tp8, the gpumode GEMM shapes.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-570}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r2; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 2>/dev/null && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S .scratch-main -B .scratch-main/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build .scratch-main/b -j16 --target tetra_cli >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build done at $(el) s: $(tail -1 $R/logs/build.log)"
T=.scratch-main/b/tetra; res=$R/results; export TETRA_COMMIT=$C_MAIN
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150; }
step ceilings 25 $T bench ceilings --out $res/ceilings.json
step calibrate 45 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
step seed000 150 $T bench --set seed000 --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 $cal --out $res/tetra-gemm-seed000.json
step midm 70 $T bench --shape 64x14336x4096,64x4096x14336,64x28672x8192,256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-midm.json
step w4a4-seed000 120 $T bench --set seed000 --a tetra-gemm-w4a4 --b cublaslt-bf16-tuned $cal --out $res/tetra-gemm-w4a4-seed000.json
step glm5 50 $T bench --set glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-glm5.json
step gpumode 30 $T bench --shape 128x7168x16384,128x4096x7168,128x7168x2048 --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 --graph-below-us 400 $cal --out $res/tetra-gemm-gpumode.json
echo "total $(el) s"; snap; rm -rf $OUT/r2
