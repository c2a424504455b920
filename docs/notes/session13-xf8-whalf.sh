#!/usr/bin/env bash
# Session 13, helper xf8's branch (docs/notes/gemm-sm90.md, "v10.5 levers: XF8 and WHALF"):
# TETRA_GEMM_SS_WHALF=0 (b00, v10.3) against =1 (b01) from ONE tree (this branch). XF8 is not
# built: it cannot compile (ptxas C7602, see the notes).
# PART=check (~5-7 min): both builds, wgmma_t hash lines b01 == b00, sanitizers on b01.
# PART=bench (~5 min): ABAB b00 / b01 / b00 / b01 against tuned cuBLASLt BF16 (needs the builds:
#   they persist between calls as ignored build outputs /build-wh0, /build-wh1; rebuilt if absent).
# Run from the repository root: PART=check bash docs/notes/session13-xf8-whalf.sh, then PART=bench.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/wh-${PART:-check}; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/wh.tgz.tmp -C $OUT $(basename $R) 2>/dev/null && mv $OUT/wh.tgz.tmp $OUT/wh-${PART:-check}.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv > $R/logs/gpu.txt 2>&1
C=$(git rev-parse --short HEAD 2>/dev/null || echo xf8)
for X in 0 1; do
  ( cmake -S . -B build-wh$X -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_GEMM_SS_WHALF=$X > $R/logs/build-b0$X.log 2>&1 &&
    cmake --build build-wh$X -j8 --target tetra_cli gpu_gemm >> $R/logs/build-b0$X.log 2>&1; echo "rc=$?" >> $R/logs/build-b0$X.log ) &
done
wait; echo "builds at $(el) s: $(tail -1 $R/logs/build-b00.log) $(tail -1 $R/logs/build-b01.log)"
if [ "${PART:-check}" = check ]; then
  # bits: every wgmma_t hash line of b01 equals b00's
  for X in 0 1; do
    TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 build-wh$X/tests/gpu_gemm > $R/logs/t-gemm-b0$X.log 2>&1
    echo "b0$X rc=$? at $(el) s: $(tail -1 $R/logs/t-gemm-b0$X.log)"
  done
  diff <(grep ' hash ' $R/logs/t-gemm-b00.log) <(grep ' hash ' $R/logs/t-gemm-b01.log) > $R/logs/hash-diff.txt &&
    echo "HASHES-EQUAL $(grep -c ' hash ' $R/logs/t-gemm-b00.log)" || echo "HASHES-DIFFER: $(wc -l < $R/logs/hash-diff.txt) diff lines"
  snap
  # sanitizers on the switch-1 build (quick wgmma_t set)
  for T in memcheck racecheck synccheck; do
    l=$(( $(left) - 5 )); [ $l -lt 30 ] && { echo "$T SKIPPED"; continue; }; [ $l -gt 200 ] && l=200
    TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $l compute-sanitizer --tool $T --error-exitcode 99 build-wh1/tests/gpu_gemm > $R/logs/san-$T.log 2>&1
    echo "$T rc=$? at $(el) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/logs/san-$T.log | tail -1)"; snap
  done
else
  SH=1024x4096x4096,2048x14336x4096,4096x4096x4096,8192x8192x8192
  for tag in b00a:0 b01a:1 b00b:0 b01b:1; do
    IFS=: read n X <<< "$tag"; l=$(( $(left) - 5 )); [ $l -lt 40 ] && { echo "$n SKIPPED"; continue; }; [ $l -gt 130 ] && l=130
    TETRA_COMMIT=$C-whalf$X timeout $l build-wh$X/tetra bench --shape $SH --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate \
      --out $R/results/wh-$n.json > $R/logs/wh-$n.log 2>&1
    echo "== $n rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/wh-$n.log | cut -c1-150; snap
  done
fi
echo "total $(el) s"; snap; rm -rf $R
