# session 24, call 5 (run 118): which of v7's K-loop segments vanish without the dequantization?
# A TETRA_GEMM_TRACE + TETRA_GEMM_DIAG build of main, traced at 64x14336x4096 on fragment weights
# with TETRA_GEMM_DIAG_MODE 0 (normal) and 1 (no dequantization nor its shared-memory reads; wrong
# outputs by design), the same binary for both.
# Predictions (written before the run): mode 0 repeats run 117's FOLD-1 trace (period ~530, dequant
# ~257, rfull ~117, afull ~94). Mode 1: period 340-400 (run 107: DIAG 1 0.629-0.703x the time),
# dequant segment < 40, tensor_wait grows to 100-200 (the tensor pipe becomes the bound). The
# question: if rfull and afull stay near 100 / 90 they are fixed costs of the chain's sync and the
# next lever is fewer sync steps; if they fall to ~40-60 their length came from running beside the
# dequant and the tensor work (the issue rate), and the lever is more warps per sub-partition.
RUN=r118 . docs/notes/device-lib.sh
bld build-trd 16 "tetra_static" "-DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_TRACE -DTETRA_GEMM_DIAG"
wait; echo "build: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/v7-trace.c -L build-trd -l:libtetra.a \
  -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-trd/v7-trace-drv > $R/logs/drv.log 2>&1; echo "drv rc=$?"
mkdir -p $R/trace
for m in 0 1; do
  step trace-d$m 30 env TRACE=1 TETRA_GEMM_DIAG_MODE=$m build-trd/v7-trace-drv $R/trace/d$m 64x14336x4096
  for f in $R/trace/d$m*.bin; do [ -f "$f" ] || continue; python3 docs/notes/v7-trace.py $f --kt 2 --json ${f%.bin}.json > ${f%.bin}.txt 2>&1; head -32 ${f%.bin}.txt; rm -f $f; done
done
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
