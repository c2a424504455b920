#!/usr/bin/env bash
# Session 13 call 5 (run 63): the two helper branches of session 13 on the H200.
#   b0  = main (code as 3c211d8: v10.3, v7), the control for both;
#   wh1 = branch xf8 cca0c91 with -DTETRA_GEMM_SS_WHALF=1 (W stages released per k32 half);
#   s1  = branch ss64 e3beaec with -DTETRA_GEMM_SS64=1 (v11: BT-64 transform stage for M <= 64).
# Predictions (the helpers', written before this run; docs/notes/gemm-sm90.md "v10.5 levers", "v11"):
#   WHALF: 4096^3 0.93-0.95, 8192^3 0.94-0.955, 1024x4096x4096 0.96-0.98, 2048x14336x4096 0.88-0.895;
#     refuted unless both wh1 legs beat both b0 legs by >= 0.01 at 4096^3 and 2048x14336x4096.
#     After run 61's K-scan (the K-proportional time already within ~1% of cuBLAS's) the lead's
#     expectation is lower: within noise.
#   v11: 64x14336x4096 1.54x (17-25 us), 64x4096x14336 1.62x (18-25 us), 64x28672x8192 1.88x
#     (52-72 us); refuted if 64x28672x8192 < 1.6x or any of the three is slower than v7 (b0).
# Before the call: for b in xf8:wh ss64:s64; do rm -rf .scratch-${b#*:}; mkdir .scratch-${b#*:};
#   git -C /work/wt-${b%%:*} archive HEAD | tar x -C .scratch-${b#*:}; rm -rf .scratch-${b#*:}/docs/results; done
# Run: C_MAIN=<hash> C_WH=cca0c91 C_S64=e3beaec BUDGET=560 bash docs/notes/session13-call5.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r5; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r5.tgz.tmp -C $OUT r5 2>/dev/null && mv $OUT/r5.tgz.tmp $OUT/r5.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { # name src flags
  ( cmake -S $2 -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $3 > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j5 --target tetra_cli gpu_gemm >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log ) & }
bld b0 . ""; bld wh1 .scratch-wh "-DTETRA_GEMM_SS_WHALF=1"; bld s1 .scratch-s64 "-DTETRA_GEMM_SS64=1"; wait
echo "builds at $(el) s: b0 $(tail -1 $R/logs/build-b0.log) wh1 $(tail -1 $R/logs/build-wh1.log) s1 $(tail -1 $R/logs/build-s1.log)"
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
for b in b0 wh1 s1; do
  ( env TETRA_GEMM_TEST_HASH=1 $T timeout 250 /tmp/$b/tests/gpu_gemm > $R/logs/t-gemm-$b.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-$b.log ) &
done
for b in wh1 s1; do for tool in memcheck racecheck synccheck; do
  ( env TETRA_TEST_QUICK=1 $T timeout 280 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/$b/tests/gpu_gemm > $R/logs/san-$b-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$b-$tool.log ) &
done; done
wait; echo "correctness at $(el) s"
for f in $R/logs/t-gemm-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed; $(tail -3 $f | tr '\n' ' ' | cut -c1-170)"; done
grep ' hash ' $R/logs/t-gemm-b0.log > $R/logs/h0
echo "hash lines differing b0 vs wh1: $(diff $R/logs/h0 <(grep ' hash ' $R/logs/t-gemm-wh1.log) | grep -c '^[<>]') of $(wc -l < $R/logs/h0)"; snap
WH_OK=0; grep -q "rc=0" $R/logs/t-gemm-wh1.log && [ -z "$(diff $R/logs/h0 <(grep ' hash ' $R/logs/t-gemm-wh1.log))" ] && WH_OK=1
S_OK=0; grep -q "rc=0" $R/logs/t-gemm-s1.log && S_OK=1
echo "WH_OK=$WH_OK S_OK=$S_OK"
bench() { # tag build commit shapes blocks
  local l=$(( $(left) - 5 )); [ $l -lt 25 ] && { echo "$1 SKIPPED"; return; }; [ $l -gt 75 ] && l=75
  TETRA_COMMIT=$3 timeout $l /tmp/$2/tetra bench --shape $4 --a tetra-gemm --b cublaslt-bf16-tuned --blocks $5 --no-replicate \
    --out $R/results/$1.json > $R/logs/$1.log 2>&1
  echo "== $1 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$1.log | cut -c1-150; snap; }
SM=64x14336x4096,64x4096x14336,64x28672x8192,64x2048x6144,32x14336x4096
if [ $S_OK = 1 ]; then bench s64-b0a b0 $C_MAIN $SM 4; bench s64-s1 s1 $C_S64 $SM 4; bench s64-b0b b0 $C_MAIN $SM 4; fi
SW=1024x4096x4096,2048x14336x4096,4096x4096x4096,8192x8192x8192
if [ $WH_OK = 1 ]; then bench wh-b0a b0 $C_MAIN $SW 4; bench wh-wh1a wh1 $C_WH $SW 4; bench wh-b0b b0 $C_MAIN $SW 4; bench wh-wh1b wh1 $C_WH $SW 4; fi
echo "total $(el) s"; snap; rm -rf $OUT/r5
