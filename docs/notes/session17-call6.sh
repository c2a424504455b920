#!/usr/bin/env bash
# Session 17, device call 6 (run 86): v7 skipping the activation box wholly past M (M - m0 <= BT / 2).
# Run: C_MAIN=<hash> BUDGET=330 bash docs/notes/session17-call6.sh ; .scratch-b0 = git archive of the commit before.
# PREDICTIONS (written before the run):
# (a) gpu_gemm (wgmma_t cases) hash lines equal b0's (149); gpu_gemm_fragment passes;
#     compute-sanitizer memcheck / racecheck / synccheck on gpu_gemm (wgmma_t, quick): clean.
# (b) A = main, B = b0 (--lib-b), B/A time: standard weights (tetra-gemm) at 17 / 24 / 32 x 14336x4096
#     1.06-1.12 (run 83: 32.30 / 31.09 / 30.75 us against 28.66-28.86 at M = 48 / 64); 33, 48, 64
#     within 0.005 of 1 (the second half holds tokens there: unchanged path). Refuted if M = 17..32
#     gain < 2%. Fragment weights at 17 / 32: 1.03-1.07.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-330}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r86; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r86.tgz.tmp -C $OUT r86 2>/dev/null && mv $OUT/r86.tgz.tmp $OUT/r86.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local src=$1 dir=$2 tg=$3; ( cmake -S $src -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-$(basename $dir).log 2>&1 &&
  cmake --build $dir -j8 --target $tg >> $R/logs/build-$(basename $dir).log 2>&1; echo "rc=$?" >> $R/logs/build-$(basename $dir).log ) & }
bld . build-main "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment"; bld .scratch-b0 build-b0 "tetra_shared gpu_gemm"
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
T=build-main/tetra; export TETRA_COMMIT=$C_MAIN
san() { ( env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 compute-sanitizer --tool $1 --error-exitcode 99 build-main/tests/gpu_gemm > $R/logs/san-$1.log 2>&1; echo "rc=$?" >> $R/logs/san-$1.log ) & }
for tool in memcheck racecheck synccheck; do san $tool; done
( env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 build-main/tests/gpu_gemm > $R/logs/main-hash.log 2>&1;
  env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 build-b0/tests/gpu_gemm > $R/logs/b0-hash.log 2>&1 ) &
( timeout 100 build-main/tests/gpu_gemm_fragment > $R/logs/gpu_gemm_fragment.log 2>&1; echo "rc=$?" >> $R/logs/gpu_gemm_fragment.log ) &
wait; echo "tests done at $(el) s"; snap
for f in $R/logs/san-*.log $R/logs/gpu_gemm_fragment.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|checks passed' $f | tr '\n' ' ')"; done
grep "all checks passed\|CHECK failed" $R/logs/main-hash.log | head -3
grep hash $R/logs/main-hash.log | sort > $R/logs/h-main.txt; grep hash $R/logs/b0-hash.log | sort > $R/logs/h-b0.txt
echo "hash: main $(wc -l < $R/logs/h-main.txt) b0 $(wc -l < $R/logs/h-b0.txt) differing: $(comm -3 $R/logs/h-main.txt $R/logs/h-b0.txt | wc -l)"
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
ab="--blocks 6 --no-replicate --graph-below-us 400"
step halfa-std 80 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-b0/libtetra.so --shape 17x14336x4096,24x14336x4096,32x14336x4096,33x14336x4096,48x14336x4096,64x14336x4096,32x4096x14336,32x28672x8192 $ab --out $R/results/halfa-standard.json
step halfa-frag 50 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-b0/libtetra.so --shape 17x14336x4096,32x14336x4096,64x14336x4096 $ab --out $R/results/halfa-fragment.json
echo "total $(el) s"; snap; rm -rf $OUT/r86
