#!/usr/bin/env bash
# Session 19, device call 1: (1) the fragment GEMV's cluster-K sanitizers + A/B (was
# docs/notes/fragck-call-draft.sh), (2) v7's per-K-tile clock trace at M = 64 (was
# docs/notes/v7trace-call-draft.sh). Run: C_MAIN=<hash> BUDGET=540 bash docs/notes/session19-call1.sh
# build-main = main (default); build-fck = -DTETRA_GEMV_FRAG_CK=1; build-tr = -DTETRA_GEMM_TRACE.
# PREDICTIONS (written before the run):
# (1) racecheck and synccheck clean with CK forced (the cluster reduce reuses each warp's ring after
#     cp_async_wait<0> and __syncwarp, as the standard CK path, clean in run 78). A = build-fck,
#     B = build-main (--lib-b), fragment weights, B/A: where AUTO takes CK 1.05-1.30 (run 93:
#     1.127 / 1.130x the standard CK path at 1x768x6144 / 1x2048x6144), elsewhere within 0.01 of 1;
#     calibrated vs cuBLAS: 1x768x6144 ~1.45, 1x2048x6144 ~1.5 (run 92 without CK: 1.196 / 1.377).
#     Refuted (stays off) if a sanitizer reports anything or a shape AUTO gives CK reads B/A < 0.98.
# (2) the helper's predictions, docs/notes/gemm-sm90.md "v7 clock trace": untraced calls of the
#     trace build 2-6% slower than main's; traced steady period 560-620 cycles; at 64x14336x4096
#     wgmma_wait<1> blocks (> 100 cycles) on < 30% of steady K-tiles, the gap after it >= 55% of
#     the period with dequant its largest part (120-200 cycles); rfull blocks < 15%, afull < 20%;
#     raw issuer >= 15 K-tiles ahead; entry -> first issue 3,000-6,000 cycles, loop end -> exit
#     1,500-3,000. Refuted if the steady period is > 700 cycles or readings are out of order.
#     Traced calls change no output bit (hash lines of gpu_gemm wgmma_t equal); memcheck clean.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-540}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r94; mkdir -p $R/logs $R/results $R/trace
snap() { tar czf $OUT/r94.tgz.tmp -C $OUT r94 2>/dev/null && mv $OUT/r94.tgz.tmp $OUT/r94.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 tg=$2 flags=$3; shift 3; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=$flags" "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j6 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_cli tetra_shared tetra_static gpu_gemm" ""
bld build-fck "tetra_cli tetra_shared gpu_gemm_fragment" "" -DTETRA_GEMV_FRAG_CK=1
bld build-tr "tetra_static gpu_gemm" "-DTETRA_GEMM_TRACE"
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
for b in main tr; do
  gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/v7-trace.c -L build-$b -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-$b/v7-trace-drv > $R/logs/drv-build-$b.log 2>&1; echo "drv $b rc=$?"
done
snap
# correctness, in parallel (no timing runs meanwhile)
for tool in racecheck synccheck memcheck; do ( env TETRA_TEST_QUICK=1 TETRA_GEMV_FRAG_CK=2 TETRA_GEMM_FRAGMENT_TEST_ONLY=gemv timeout 170 compute-sanitizer --tool $tool --error-exitcode 99 build-fck/tests/gpu_gemm_fragment > $R/logs/san-fck-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-fck-$tool.log ) & done
( timeout 170 ctest --test-dir build-fck -R gpu_gemm_fragment --output-on-failure > $R/logs/ctest-fck.log 2>&1; echo "rc=$?" >> $R/logs/ctest-fck.log ) &
( TRACE=1 timeout 170 compute-sanitizer --tool memcheck --error-exitcode 99 build-tr/v7-trace-drv $R/trace/san 64x14336x4096 > $R/logs/san-tr-memcheck.log 2>&1; echo "rc=$?" >> $R/logs/san-tr-memcheck.log ) &
( env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 170 build-main/tests/gpu_gemm > $R/logs/main-hash.log 2>&1; echo "rc=$?" >> $R/logs/main-hash.log ) &
( env TETRA_GEMM_TRACE_OUT=$R/trace/hash-last.bin TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 170 build-tr/tests/gpu_gemm > $R/logs/tr-hash.log 2>&1; echo "rc=$?" >> $R/logs/tr-hash.log ) &
wait; echo "correctness done at $(el) s"; rm -f $R/trace/hash-last.bin $R/trace/san-*.bin
for f in $R/logs/san-*.log $R/logs/ctest-fck.log $R/logs/*-hash.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|tests passed|all checks passed|CHECK failed|rc=' $f | head -4 | tr '\n' ' ')"; done
grep " hash " $R/logs/main-hash.log | sort > $R/logs/h-main.txt; grep " hash " $R/logs/tr-hash.log | sort > $R/logs/h-tr.txt
echo "hash lines: main $(wc -l < $R/logs/h-main.txt), traced $(wc -l < $R/logs/h-tr.txt), differing $(diff $R/logs/h-main.txt $R/logs/h-tr.txt | grep -c '^>')"
snap
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=$C_MAIN
# (2) v7 trace: timings, traced calls, the analyzer
SH="64x14336x4096 64x28672x8192"
step drv-main 40 build-main/v7-trace-drv $R/trace/none $SH 128x28672x8192
step drv-tr 60 env TRACE=1 build-tr/v7-trace-drv $R/trace/frag $SH
step drv-tr-std 30 env TRACE=1 FRAG=0 build-tr/v7-trace-drv $R/trace/std 64x14336x4096
step drv-tr-bt128 30 env TRACE=1 TILE_M=128 build-tr/v7-trace-drv $R/trace/bt128 128x28672x8192
python3 docs/notes/v7-trace.py --selftest | tail -1
for f in $R/trace/*.bin; do python3 docs/notes/v7-trace.py $f --json ${f%.bin}.json > ${f%.bin}.txt 2>&1; echo "### $f"; head -60 ${f%.bin}.txt; done; snap
# (1) fragment cluster-K timings
step fck-ab 60 build-main/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-fck/libtetra.so --shape 1x768x6144,1x2048x6144,4x768x6144,16x2048x6144,1x4096x4096,1x4096x14336,1x14336x4096,8x4096x14336,16x4096x14336,1x7168x2048 --blocks 5 --no-replicate --graph-below-us 400 --out $R/results/fragck-ab.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
step fck-cal 45 build-fck/tetra bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 1x768x6144,1x2048x6144,64x768x6144,64x2048x6144 --ceilings $C76/ceilings.json --calibration $C76/calibration.json --blocks 10 --no-replicate --graph-below-us 400 --out $R/results/fragck-glm5-calibrated.json
echo "total $(el) s"; snap; rm -rf $OUT/r94
