#!/usr/bin/env bash
# session 12, call 3 (device run 54), tree = branch v103 $C_CAND (v10.3 + per-warp trace +
# TETRA_GEMM_SS_A_WARP). Builds: c4 / c6 (plain, A issuer consumer warp 4 / 6), t4 / t6
# (TETRA_GEMM_TRACE, same). Trace at 4096^3 and 1024x4096x4096; ABA c4 / c6 / c4.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-420}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r3; mkdir -p $R/logs $R/results $R/trace
snap() { tar czf $OUT/r3.tgz.tmp -C $OUT r3 2>/dev/null && mv $OUT/r3.tgz.tmp $OUT/r3.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local name=$1 flags=$2; shift 2
  ( cmake -S . -B build-$name -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=$flags" > $R/logs/build-$name.log 2>&1 &&
    cmake --build build-$name -j4 --target "$@" >> $R/logs/build-$name.log 2>&1; echo "rc=$?" >> $R/logs/build-$name.log ) & }
bld c4 "-DTETRA_GEMM_SS_A_WARP=4" tetra_cli
bld c6 "-DTETRA_GEMM_SS_A_WARP=6" tetra_cli
bld t4 "-DTETRA_GEMM_TRACE -DTETRA_GEMM_SS_A_WARP=4" tetra_static
bld t6 "-DTETRA_GEMM_TRACE -DTETRA_GEMM_SS_A_WARP=6" tetra_static
wait
for n in c4 c6 t4 t6; do echo "build $n: $(tail -1 $R/logs/build-$n.log)"; done
for n in t4 t6; do
  gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/session12-trace.c -L build-$n -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-$n/trace-drv > $R/logs/drv-$n.log 2>&1; echo "drv $n rc=$?"
  TRACE=1 timeout 40 build-$n/trace-drv $R/trace/$n 4096x4096x4096 1024x4096x4096 > $R/logs/$n-drv.log 2>&1; echo "== $n rc=$?"; cat $R/logs/$n-drv.log
done
for f in $R/trace/*.bin; do python3 docs/notes/session12-trace.py $f > ${f%.bin}.txt 2>&1; cat ${f%.bin}.txt; done; snap
SHB=1024x4096x4096,2048x14336x4096,4096x4096x4096
export TETRA_COMMIT=$C_CAND
for tag in a1:c4 b:c6 a2:c4; do
  n=${tag%%:*}; d=${tag#*:}; l=$(( $(left) - 5 )); [ $l -lt 40 ] && { echo "$n SKIPPED"; continue; }; [ $l -gt 80 ] && l=80
  echo "$n: build-$d/tetra bench --shape $SHB --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate" >> $R/logs/commands.txt
  timeout $l build-$d/tetra bench --shape $SHB --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate --out $R/results/awarp-$n.json > $R/logs/awarp-$n.log 2>&1
  echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/awarp-$n.log | cut -c1-150; snap
done
echo "total $(el) s"; snap; rm -rf $OUT/r3
