#!/usr/bin/env bash
# session 12, call 2 (device run 53): v10.3 (tree = branch v103 $C_CAND) against v10.1
# (.scratch-base = main $C_BASE, git archive). Builds: cand (tetra_cli gpu_gemm gpu_nonfinite),
# base (tetra_cli gpu_gemm), cand-trace (-DTETRA_GEMM_TRACE, lib + driver), base-diag
# (-DTETRA_GEMM_DIAG, lib + driver). Predictions: docs/notes/gemm-sm90.md "v10.3".
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r2; mkdir -p $R/logs $R/results $R/trace
snap() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 2>/dev/null && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local src=$1 name=$2 flags=$3; shift 3
  ( cmake -S $src -B build-$name -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=$flags" > $R/logs/build-$name.log 2>&1 &&
    cmake --build build-$name -j4 --target "$@" >> $R/logs/build-$name.log 2>&1; echo "rc=$?" >> $R/logs/build-$name.log ) & }
bld . cand "" tetra_cli gpu_gemm gpu_nonfinite
bld .scratch-base base "" tetra_cli gpu_gemm
bld . ctrace "-DTETRA_GEMM_TRACE" tetra_static
bld .scratch-base bdiag "-DTETRA_GEMM_DIAG" tetra_static
wait
for n in cand base ctrace bdiag; do echo "build $n: $(tail -1 $R/logs/build-$n.log)"; done
for n in ctrace bdiag; do
  gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/session12-trace.c -L build-$n -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-$n/trace-drv > $R/logs/drv-$n.log 2>&1; echo "drv $n rc=$?"
done
echo "builds at $(el) s"; snap
# correctness: hashes base vs cand, nonfinite, sanitizers (parallel)
( TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 build-base/tests/gpu_gemm > $R/logs/t-gemm-base.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-base.log ) &
( TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 build-cand/tests/gpu_gemm > $R/logs/t-gemm-cand.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-cand.log ) &
( timeout 60 build-cand/tests/gpu_nonfinite > $R/logs/t-nonfinite.log 2>&1; echo "rc=$?" >> $R/logs/t-nonfinite.log ) &
for tool in memcheck racecheck synccheck; do
  ( TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 build-cand/tests/gpu_gemm > $R/logs/san-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool.log ) &
done; wait
echo "tests done at $(el) s"
for f in $R/logs/t-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -ci 'fail' $f) fail lines; $(tail -2 $f | tr '\n' ' ')"; done
echo "hash lines differing base vs cand: $(diff <(grep ' hash ' $R/logs/t-gemm-base.log) <(grep ' hash ' $R/logs/t-gemm-cand.log) | grep -c '^[<>]') of $(grep -c ' hash ' $R/logs/t-gemm-base.log)"; snap
SH="4096x4096x4096 2048x14336x4096 1024x4096x4096"
MODES="0 1" timeout 40 build-bdiag/trace-drv $R/trace/bdiag $SH > $R/logs/bdiag-drv.log 2>&1; echo "== bdiag rc=$?"; cat $R/logs/bdiag-drv.log
TRACE=1 timeout 40 build-ctrace/trace-drv $R/trace/v103 $SH > $R/logs/ctrace-drv.log 2>&1; echo "== ctrace rc=$?"; cat $R/logs/ctrace-drv.log
for f in $R/trace/*.bin; do python3 docs/notes/session12-trace.py $f > ${f%.bin}.txt 2>&1; head -30 ${f%.bin}.txt; done; snap
SHB=1024x4096x4096,2048x14336x4096,4096x4096x4096,8192x8192x8192,256x14336x4096,512x28672x8192
for tag in b1:base c:cand b2:base; do
  n=${tag%%:*}; d=${tag#*:}; l=$(( $(left) - 5 )); [ $l -lt 40 ] && { echo "$n SKIPPED"; continue; }; [ $l -gt 110 ] && l=110
  [ $d = cand ] && export TETRA_COMMIT=$C_CAND || export TETRA_COMMIT=$C_BASE
  echo "$n: build-$d/tetra bench --shape $SHB --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate" >> $R/logs/commands.txt
  timeout $l build-$d/tetra bench --shape $SHB --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate --out $R/results/v103-$n.json > $R/logs/v103-$n.log 2>&1
  echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/v103-$n.log | cut -c1-150; snap
done
echo "total $(el) s"; snap; rm -rf $OUT/r2
