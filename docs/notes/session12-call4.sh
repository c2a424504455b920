#!/usr/bin/env bash
# session 12, call 4 (device run 55), tree = branch v103 $C_CAND. Builds: c4 (plain v10.3),
# pf (TETRA_GEMM_SS_PREFETCH_TMAP=1), d3 (TETRA_GEMM_DIAG), t4 (TETRA_GEMM_TRACE).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-330}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r4; mkdir -p $R/logs $R/results $R/trace
snap() { tar czf $OUT/r4.tgz.tmp -C $OUT r4 2>/dev/null && mv $OUT/r4.tgz.tmp $OUT/r4.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local name=$1 flags=$2; shift 2
  ( cmake -S . -B build-$name -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=$flags" > $R/logs/build-$name.log 2>&1 &&
    cmake --build build-$name -j4 --target "$@" >> $R/logs/build-$name.log 2>&1; echo "rc=$?" >> $R/logs/build-$name.log ) & }
bld c4 "" tetra_cli
bld pf "-DTETRA_GEMM_SS_PREFETCH_TMAP=1" tetra_cli
bld d3 "-DTETRA_GEMM_DIAG" tetra_static
bld t4 "-DTETRA_GEMM_TRACE" tetra_static
wait
for n in c4 pf d3 t4; do echo "build $n: $(tail -1 $R/logs/build-$n.log)"; done
for n in d3 t4; do
  gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/session12-trace.c -L build-$n -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-$n/trace-drv > $R/logs/drv-$n.log 2>&1; echo "drv $n rc=$?"
done
MODES="0 1 0 1" timeout 40 build-d3/trace-drv $R/trace/d3 4096x4096x4096 1024x4096x4096 2048x14336x4096 > $R/logs/d3-drv.log 2>&1; echo "== d3 rc=$?"; cat $R/logs/d3-drv.log
TRACE=1 timeout 30 build-t4/trace-drv $R/trace/t4 4096x4096x4096 > $R/logs/t4-drv.log 2>&1; echo "== t4 rc=$?"
for f in $R/trace/*.bin; do python3 docs/notes/session12-trace.py $f > ${f%.bin}.txt 2>&1; head -16 ${f%.bin}.txt; done; snap
NCU="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --print-details all"
echo "ncu-v103-4096: ncu --clock-control none $NCU --kernel-name regex:gemm_wgmma_t_ss (plain v10.3)" >> $R/logs/commands.txt
timeout 70 ncu --clock-control none --kernel-name regex:gemm_wgmma_t_ss --launch-skip 2 --launch-count 1 $NCU build-c4/tetra bench --shape 4096x4096x4096 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate > $R/logs/ncu-v103-4096.txt 2>&1
echo "== ncu rc=$? at $(el) s"; grep -E "Tensor Cycles Active|Lsu Wavefronts|Duration|SM Frequency|Bank|Issue Active|Shared" $R/logs/ncu-v103-4096.txt | head -20; snap
timeout 70 ncu --clock-control none --kernel-name regex:gemm_wgmma_t_ss --launch-skip 2 --launch-count 1 --section WarpStateStats --section SourceCounters --page source --print-source sass --csv build-c4/tetra bench --shape 4096x4096x4096 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate > $R/logs/ncu-src-v103-4096.csv 2> $R/logs/ncu-src.err
echo "== ncu-src rc=$? at $(el) s"; snap
export TETRA_COMMIT=$C_CAND
SHB=1024x4096x4096,4096x4096x4096
for tag in a1:c4 p:pf a2:c4; do
  n=${tag%%:*}; d=${tag#*:}; l=$(( $(left) - 5 )); [ $l -lt 30 ] && { echo "$n SKIPPED"; continue; }; [ $l -gt 60 ] && l=60
  echo "$n: build-$d/tetra bench --shape $SHB --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate" >> $R/logs/commands.txt
  timeout $l build-$d/tetra bench --shape $SHB --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate --out $R/results/pf-$n.json > $R/logs/pf-$n.log 2>&1
  echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/pf-$n.log | cut -c1-150; snap
done
echo "total $(el) s"; snap; rm -rf $OUT/r4
