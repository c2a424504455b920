#!/usr/bin/env bash
# DRAFT for the next session's first device call (written at the end of session 20, NOT run).
# Re-measures the small-shape ratios with the fixed cuBLAS tuning (42fab05: candidates below 50 us
# timed in a CUDA graph) and re-scores the dispatcher on main's defaults.
# Run: C_MAIN=<hash> BUDGET=560 bash docs/notes/session21-call1-draft.sh (pass C_MAIN explicitly).
# PREDICTIONS (written in session 20, before any run):
# (1) decode set (fragment weights, calibrated): where cuBLAS took < ~15 us in run 91 / 96 the
#     ratio falls 0-25% (run 102: 1x768x6144 1.699 -> 1.446); above ~20 us within +-5% of run 91
#     (1x4096x14336 ~2.0-2.1, 16x4096x14336 ~1.5-1.6, 64x14336x4096 ~1.54).
# (2) glm5-tp8 set, M = 256..1024 rows: within +-3% of run 96 / 92 (cuBLAS > 20 us there).
# (3) gpumode 128x7168x2048 (cuBLAS 10.85 us in run 98): 0.80-0.86x BF16.
# (4) tetra tune's held-out score (run 61's command): >= 16 of 18 within 5% of the best
#     configuration; the 2% criterion against the best fixed configuration: 12-15 of 18.
# (5) v7 traces at 64x14336x4096 (fragment weights): build-tr (main: v7.8 + v7.10) period ~530
#     (run 98: 542 before v7.10), its u' = 1 rfull segment below run 98's 107 (no remote arrive);
#     build-sdq (TETRA_GEMM_V7_SERIAL_DQ: wgmma_wait<0> before each dequantization). If the
#     running RS wgmma slows the dequantization (register-file reads), sdq's dequant segment is
#     <= 200 cycles (tr: ~270) and its tensor_wait grows to ~100-130; if not, the dequant stays
#     ~270 and only tensor_wait grows. Either way sdq's period is longer (a diagnostic).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r103; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r103.tgz.tmp -C $OUT r103 2>/dev/null && mv $OUT/r103.tgz.tmp $OUT/r103.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S . -B build-main -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-main.log 2>&1 &&
  cmake --build build-main -j8 --target tetra_cli >> $R/logs/build-main.log 2>&1; echo "rc=$?" >> $R/logs/build-main.log ) &
( cmake -S . -B build-tr -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_TRACE" > $R/logs/build-tr.log 2>&1 &&
  cmake --build build-tr -j4 --target tetra_static >> $R/logs/build-tr.log 2>&1; echo "rc=$?" >> $R/logs/build-tr.log ) &
( cmake -S . -B build-sdq -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_TRACE -DTETRA_GEMM_V7_SERIAL_DQ" > $R/logs/build-sdq.log 2>&1 &&
  cmake --build build-sdq -j4 --target tetra_static >> $R/logs/build-sdq.log 2>&1; echo "rc=$?" >> $R/logs/build-sdq.log ) &
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
T=build-main/tetra
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
cal="--ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400"
gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/v7-trace.c -L build-tr -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-tr/v7-trace-drv > $R/logs/drv-tr.log 2>&1
gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/v7-trace.c -L build-sdq -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-sdq/v7-trace-drv > $R/logs/drv-sdq.log 2>&1
mkdir -p $R/trace
for b in tr sdq; do step trace-$b 40 env TRACE=1 build-$b/v7-trace-drv $R/trace/$b 64x14336x4096
  for f in $R/trace/$b*.bin; do python3 docs/notes/v7-trace.py $f --kt 2 --json ${f%.bin}.json > ${f%.bin}.txt 2>&1; head -24 ${f%.bin}.txt; done; done
step decode 120 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --set decode $cal --blocks 4 --out $R/results/decode-frag.json
step glm5 90 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --set glm5-tp8 --shape 4x768x6144,4x2048x6144 $cal --blocks 4 --out $R/results/glm5-frag.json
step small 60 $T bench --a tetra-gemm-frag --b cublaslt-bf16-tuned,cublaslt-fp8 --shape 8x4096x14336,128x7168x2048,128x4096x7168,1024x4096x4096 $cal --blocks 4 --out $R/results/small-frag.json
l=$(( $(left) - 10 )); echo "tune budget $l s"
[ $l -gt 60 ] && timeout $l $T tune --shape 1x3072x3072 --holdout-set glm5-tp8 \
  --holdout-shape 256x14336x4096,256x4096x14336,256x28672x8192,512x14336x4096,512x4096x14336,512x28672x8192,1024x14336x4096,768x4096x4096 \
  --out $R/results/dispatch-table.txt --json $R/results/tune-holdout.json > $R/logs/tune.log 2>&1
echo "tune rc=$? at $(el) s"; tail -30 $R/logs/tune.log | cut -c1-160
echo "total $(el) s"; snap; rm -rf $OUT/r103
