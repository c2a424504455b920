#!/usr/bin/env bash
# session 12, call 1 (device run 52), tree = main $C_MAIN (20ffe85: v10.1 unchanged; the
# TETRA_GEMM_TRACE instrument). Three builds: build-main (default), build-trace
# (-DTETRA_GEMM_TRACE -DTETRA_GEMM_DIAG), build-533 (ring split A 5 / W 3 / raw 3).
# 1. v10.1 clock trace + DIAG modes 0/1/3/4 at 4096^3, 2048x14336x4096, 8192^3, 1024x4096x4096
#    (driver docs/notes/session12-trace.c); the same driver on build-main (mode 0 only).
# 2. Nsight Compute per-instruction stall samples of skinny (EPI 1) at 64x14336x4096.
# 3. ABA main / 533 / main against tuned cuBLASLt BF16.
# Predictions: docs/notes/gemm-sm90.md "Session 12".
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-540}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r1; mkdir -p $R/logs $R/results $R/trace
snap() { tar czf $OUT/r1.tgz.tmp -C $OUT r1 2>/dev/null && mv $OUT/r1.tgz.tmp $OUT/r1.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local name=$1 flags=$2; shift 2
  ( cmake -S . -B build-$name -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=$flags" > $R/logs/build-$name.log 2>&1 &&
    cmake --build build-$name -j6 --target "$@" >> $R/logs/build-$name.log 2>&1; echo "rc=$?" >> $R/logs/build-$name.log ) & }
bld main "" tetra_cli tetra_static
bld trace "-DTETRA_GEMM_TRACE -DTETRA_GEMM_DIAG" tetra_static
bld 533 "-DTETRA_GEMM_SS_SA=5 -DTETRA_GEMM_SS_SW=3 -DTETRA_GEMM_SS_SR=3" tetra_cli
wait
for n in main trace 533; do echo "build $n: $(tail -1 $R/logs/build-$n.log)"; done
for n in main trace; do
  gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/session12-trace.c -L build-$n -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-$n/trace-drv > $R/logs/drv-$n.log 2>&1; echo "drv $n rc=$?"
done
echo "builds at $(el) s"; snap
SH="4096x4096x4096 2048x14336x4096 8192x8192x8192 1024x4096x4096"
echo "trace: MODES='0 1 3 4' TRACE=1 build-trace/trace-drv" >> $R/logs/commands.txt
MODES="0 1 3 4" TRACE=1 timeout 90 build-trace/trace-drv $R/trace/v101 $SH > $R/logs/trace-drv.log 2>&1; echo "== trace rc=$? at $(el) s"; cat $R/logs/trace-drv.log
MODES="0" timeout 60 build-main/trace-drv $R/trace/none $SH > $R/logs/main-drv.log 2>&1; echo "== main drv rc=$? at $(el) s"; cat $R/logs/main-drv.log
for f in $R/trace/*.bin; do python3 docs/notes/session12-trace.py $f > ${f%.bin}.txt 2>&1; cat ${f%.bin}.txt | head -12; done; snap
echo "ncu-skinny-src: per-instruction stall samples, skinny at 64x14336x4096" >> $R/logs/commands.txt
timeout 80 ncu --clock-control none --kernel-name regex:skinny_wgmma --launch-skip 2 --launch-count 1 --section WarpStateStats --section SourceCounters --page source --print-source sass --csv build-main/tetra bench --shape 64x14336x4096 --a tetra-gemm-skinny --b tetra-gemm-skinny --blocks 1 --no-replicate > $R/logs/ncu-src-skinny-64.csv 2> $R/logs/ncu-src-skinny.err
echo "== ncu rc=$? at $(el) s, $(wc -l < $R/logs/ncu-src-skinny-64.csv) lines"; snap
export TETRA_COMMIT=$C_MAIN
SHB=1024x4096x4096,2048x14336x4096,4096x4096x4096
for tag in m1:main s533:533 m2:main; do
  n=${tag%%:*}; d=${tag#*:}; l=$(( $(left) - 5 )); [ $l -lt 30 ] && { echo "$n SKIPPED"; continue; }; [ $l -gt 75 ] && l=75
  echo "$n: build-$d/tetra bench --shape $SHB --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate" >> $R/logs/commands.txt
  timeout $l build-$d/tetra bench --shape $SHB --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate --out $R/results/ring-$n.json > $R/logs/ring-$n.log 2>&1
  echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/ring-$n.log | cut -c1-150; snap
done
echo "total $(el) s"; snap; rm -rf $OUT/r1
