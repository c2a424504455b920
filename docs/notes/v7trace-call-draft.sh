#!/usr/bin/env bash
# DRAFT for the next session (helper v7trace, session 18; NOT run yet): v7's per-K-tile clock trace.
# Tree: main with branch v7trace merged (the trace is compiled only with -DTETRA_GEMM_TRACE).
# Run: C_MAIN=<hash> BUDGET=400 bash docs/notes/v7trace-call-draft.sh
# Predictions: docs/notes/gemm-sm90.md, "v7 clock trace (session 18 helper v7trace, NOT run on a GPU)".
# Steps (priority order):
#  1. builds: build-main (default) and build-tr (-DTETRA_GEMM_TRACE), sm_90a only; the driver
#     docs/notes/v7-trace.c linked against each.
#  2. driver timings on both (plain kernel vs the instrumented one with its readings off), then one
#     traced call per shape (TRACE=1, fragment weights): 64x14336x4096, 64x28672x8192, and for
#     contrast standard weights (FRAG=0) at 64x14336x4096 and BT 128 (128x28672x8192).
#  3. the analyzer on every .bin (docs/notes/v7-trace.py).
#  4. correctness of traced calls: memcheck on a traced call (the trace writes stay in bounds);
#     gpu_gemm wgmma_t hash lines of build-tr with every call traced against build-main's.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-400}
el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/v7tr; mkdir -p $R/logs $R/trace
snap() { tar czf $OUT/v7tr.tgz.tmp -C $OUT v7tr 2>/dev/null && mv $OUT/v7tr.tgz.tmp $OUT/v7tr.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 tg=$2 flags=$3; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=$flags" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j8 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_static gpu_gemm" ""
bld build-tr "tetra_static gpu_gemm" "-DTETRA_GEMM_TRACE"
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
for b in main tr; do
  gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/v7-trace.c -L build-$b -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-$b/v7-trace-drv > $R/logs/drv-$b.log 2>&1; echo "drv $b rc=$?"
done
SH="64x14336x4096 64x28672x8192"
# 2. timings (plain, then the trace build: untraced timings + one traced call per shape)
timeout 60 build-main/v7-trace-drv $R/trace/none $SH 128x28672x8192 > $R/logs/drv-main.log 2>&1; echo "== main drv rc=$? at $(el) s"; cat $R/logs/drv-main.log
TRACE=1 timeout 90 build-tr/v7-trace-drv $R/trace/frag $SH > $R/logs/drv-tr.log 2>&1; echo "== trace drv rc=$? at $(el) s"; cat $R/logs/drv-tr.log
TRACE=1 FRAG=0 timeout 60 build-tr/v7-trace-drv $R/trace/std 64x14336x4096 > $R/logs/drv-tr-std.log 2>&1; echo "== trace std rc=$?"; cat $R/logs/drv-tr-std.log
TRACE=1 TILE_M=128 timeout 60 build-tr/v7-trace-drv $R/trace/bt128 128x28672x8192 > $R/logs/drv-tr-bt128.log 2>&1; echo "== trace bt128 rc=$?"; cat $R/logs/drv-tr-bt128.log
snap
# 3. the analyzer
python3 docs/notes/v7-trace.py --selftest
for f in $R/trace/*.bin; do python3 docs/notes/v7-trace.py $f --json ${f%.bin}.json > ${f%.bin}.txt 2>&1; head -48 ${f%.bin}.txt; done; snap
# 4. correctness of traced calls
TRACE=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 build-tr/v7-trace-drv $R/trace/san 64x14336x4096 > $R/logs/san-memcheck.log 2>&1; echo "== memcheck rc=$? $(grep -E 'ERROR SUMMARY' $R/logs/san-memcheck.log)"
env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 build-main/tests/gpu_gemm > $R/logs/main-hash.log 2>&1
env TETRA_GEMM_TRACE_OUT=$R/trace/hash-last.bin TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 build-tr/tests/gpu_gemm > $R/logs/tr-hash.log 2>&1
grep " hash " $R/logs/main-hash.log | sort > $R/logs/h-main.txt; grep " hash " $R/logs/tr-hash.log | sort > $R/logs/h-tr.txt
grep "all checks passed\|CHECK failed" $R/logs/tr-hash.log | head -3
echo "hash lines: main $(wc -l < $R/logs/h-main.txt), traced $(wc -l < $R/logs/h-tr.txt), differing $(diff $R/logs/h-main.txt $R/logs/h-tr.txt | grep -c '^>')"
echo "done at $(el) s"; snap
