#!/usr/bin/env bash
# session 12, call 6 (device run 57): issue 5's calibrated sweeps at main $C_MAIN (v10.3 at
# M > 128; the rest as run 38's 1df1de0 apart from session 10-11 changes outside the prefill
# kernels). Predictions (docs/notes/gemm-sm90.md, v10.3): seed000 W4A16 run 38's 0.834-0.936
# -> +3-5%; W4A4 0.822-0.888 -> +3-5%; M = 256 / 512 and glm5 M >= 256 +2-5%; M = 64 unchanged (v7).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r6; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r6.tgz.tmp -C $OUT r6 2>/dev/null && mv $OUT/r6.tgz.tmp $OUT/r6.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B build-main -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build build-main -j16 --target tetra_cli >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build: $(tail -1 $R/logs/build.log) at $(el) s"
T=build-main/tetra; res=$R/results; export TETRA_COMMIT=$C_MAIN
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150; }
step ceilings 30 $T bench ceilings --out $res/ceilings.json
step calibrate 50 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
step seed000 200 $T bench --set seed000 --a tetra-gemm --b cublaslt-bf16-tuned,cublaslt-fp8 $cal --out $res/tetra-gemm-seed000.json
step midm 50 $T bench --shape 64x14336x4096,64x4096x14336,64x28672x8192,256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-midm.json
step w4a4-seed000 110 $T bench --set seed000 --a tetra-gemm-w4a4 --b cublaslt-bf16-tuned $cal --out $res/tetra-gemm-w4a4-seed000.json
step glm5 70 $T bench --set glm5-tp8 --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/tetra-gemm-glm5.json
echo "total $(el) s"; snap; rm -rf $OUT/r6
