#!/usr/bin/env bash
# session 12, call 7 (device run 58): seed000's two largest shapes at main $C_MAIN (v10.3), which
# run 57's seed000 step did not reach, with run 57's ceilings and calibration (committed).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-200}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r7; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r7.tgz.tmp -C $OUT r7 2>/dev/null && mv $OUT/r7.tgz.tmp $OUT/r7.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B build-main -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build build-main -j16 --target tetra_cli >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build: $(tail -1 $R/logs/build.log) at $(el) s"
C57=docs/results/h200-2026-12-01/run57-s12-b9d9594-sweeps/results; export TETRA_COMMIT=$C_MAIN
echo "seed000-large: build-main/tetra bench --shape 8192x28672x8192,16384x16384x16384 --a tetra-gemm --b cublaslt-bf16-tuned --ceilings $C57/ceilings.json --calibration $C57/calibration.json --blocks 10 --no-replicate" >> $R/logs/commands.txt
timeout $(( $(left) - 5 )) build-main/tetra bench --shape 8192x28672x8192,16384x16384x16384 --a tetra-gemm --b cublaslt-bf16-tuned --ceilings $C57/ceilings.json --calibration $C57/calibration.json --blocks 10 --no-replicate --out $R/results/tetra-gemm-seed000-large.json > $R/logs/seed000-large.log 2>&1
echo "== rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/seed000-large.log | cut -c1-150
echo "total $(el) s"; snap; rm -rf $OUT/r7
