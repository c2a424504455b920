#!/usr/bin/env bash
# Session 17, device call 7 (run 87): the decode GEMV reading TETRA_SCALE_FRAGMENT_128X64 (helper
# gemvfrag, merged 502a074; switch TETRA_GEMV_FRAG, default 1). build-frag0 = main with
# -DTETRA_GEMV_FRAG=0 (fragment weights at M <= 16 go to v7, as before the merge).
# Run: C_MAIN=<hash> BUDGET=480 bash docs/notes/session17-call7.sh
# PREDICTIONS (the helper's, written before any device run; docs/notes/fragment-layout.md):
# (a) ctest gpu_gemm_fragment, gpu_gemv, gpu_gemv_ck, gpu_gemm pass; memcheck / racecheck /
#     synccheck on gpu_gemm_fragment clean (the scale exchange through shared memory is the risk).
# (b) A = tetra-gemm-frag, B = tetra-gemm (standard weights, the standard GEMV), B/A time:
#     1x4096x14336 1.04 (1.00-1.10), 8x4096x14336 1.05 (1.00-1.10), 16x4096x14336 1.05
#     (0.97-1.12), 1x28672x8192 1.12 (1.03-1.25). Refuted below 0.95 at any shape.
# (c) A = main's tetra-gemm-frag, B = build-frag0's (v7 at M <= 16): about 1.65 at 1x4096x14336.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-480}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r87; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r87.tgz.tmp -C $OUT r87 2>/dev/null && mv $OUT/r87.tgz.tmp $OUT/r87.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 tg=$2; shift 2; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j8 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_cli tetra_shared gpu_gemm_fragment gpu_gemv gpu_gemm"; bld build-frag0 tetra_shared -DTETRA_GEMV_FRAG=0
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
T=build-main/tetra; export TETRA_COMMIT=$C_MAIN
san() { ( env TETRA_TEST_QUICK=1 timeout 200 compute-sanitizer --tool $1 --error-exitcode 99 build-main/tests/gpu_gemm_fragment > $R/logs/san-$1.log 2>&1; echo "rc=$?" >> $R/logs/san-$1.log ) & }
for tool in memcheck racecheck synccheck; do san $tool; done
( timeout 230 ctest --test-dir build-main -R 'gpu_gemm_fragment|gpu_gemv$|gpu_gemv_ck|gpu_gemm$' -j4 --output-on-failure > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) &
wait; echo "tests done at $(el) s"; snap
echo "ctest: $(grep -E 'tests passed|rc=' $R/logs/ctest.log | tr '\n' ' ')"; grep -E "Failed|\*\*\*|CHECK failed" $R/logs/ctest.log | head -10
for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|checks passed' $f | tr '\n' ' ')"; done
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
ab="--blocks 6 --no-replicate --graph-below-us 400"
step gemvfrag-vs-std 90 $T bench --a tetra-gemm-frag --b tetra-gemm --shape 1x4096x14336,8x4096x14336,16x4096x14336,1x28672x8192,1x14336x4096,16x28672x8192,1x768x6144,1x2048x6144 $ab --out $R/results/gemv-frag-vs-standard.json
step gemvfrag-vs-v7 60 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-frag0/libtetra.so --shape 1x4096x14336,8x4096x14336,16x4096x14336,1x28672x8192 $ab --out $R/results/gemv-frag-vs-v7.json
echo "total $(el) s"; snap; rm -rf $OUT/r87
