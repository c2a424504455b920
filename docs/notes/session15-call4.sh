#!/usr/bin/env bash
# Session 15 call 4 (run 74): v10.9 (dynamic unit order in the persistent BT-256 kernel),
# correctness and timing against main. Trees: . = main 612e5f2 (v10.8 static order, K <= 4096);
# .scratch-d = 612e5f2 + docs/notes/patches/v10.9-dynamic-units.patch (untracked, deleted after).
# Run: C_M=612e5f2 BUDGET=520 bash docs/notes/session15-call4.sh
# PREDICTIONS (before the run):
# correctness: d's gpu_gemm (wgmma_t) hash lines equal run 71's b0 lines (138 of 138) at the
#   default cluster count and with TETRA_GEMM_SS_CLUSTERS=1 and 3 (each unit is still computed
#   whole by one cluster: same bits); with SS_CLUSTERS=2 memcheck 0 errors, racecheck 0 hazards,
#   synccheck 0 errors.
# timing, d - m paired ratio (legs m, d, m, d): where m runs v10.3 (K > 4096):
#   8192x4096x14336 +0.02..+0.04, 4096x4096x14336 +0.01..+0.03, 8192^3 +0.01..+0.03 if the static
#   order was what lost (runs 72-73); where m runs the static persistent kernel (K <= 4096):
#   4096x4096x1024 and 2048x14336x4096 within +-0.02 (one atomic per unit, taken a unit ahead).
#   Refuted: d below both m legs at 8192x4096x14336, or a K <= 4096 shape losing > 0.02 in both.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-520}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/c4; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/c4.tgz.tmp -C $OUT c4 2>/dev/null && mv $OUT/c4.tgz.tmp $OUT/c4.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { ( cmake -S $2 -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "${@:3}" > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j8 --target tetra_cli gpu_gemm >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log ) & }
bld m .; bld d .scratch-d -DTETRA_GEMM_SS_DYNAMIC=1
wait; echo "builds at $(el) s: $(for b in m d; do echo -n "$b $(tail -1 $R/logs/build-$b.log) "; done)"
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
tg() { ( env TETRA_GEMM_TEST_HASH=1 $T $2 timeout 200 /tmp/d/tests/gpu_gemm > $R/logs/t-$3.log 2>&1; echo "rc=$?" >> $R/logs/t-$3.log ) & }
san() { ( env TETRA_TEST_QUICK=1 $T TETRA_GEMM_SS_CLUSTERS=2 timeout 240 compute-sanitizer --tool $1 --error-exitcode 99 /tmp/d/tests/gpu_gemm > $R/logs/san-$1.log 2>&1; echo "rc=$?" >> $R/logs/san-$1.log ) & }
tg d "" d; tg d TETRA_GEMM_SS_CLUSTERS=1 d-c1; tg d TETRA_GEMM_SS_CLUSTERS=3 d-c3
for tool in memcheck racecheck synccheck; do san $tool; done
wait; echo "tests at $(el) s"
for f in $R/logs/t-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed; $(tail -3 $f | tr '\n' ' ' | cut -c1-170)"; done
H0=docs/results/h200-2026-12-01/run71-s15-v108-v74-check/logs/h0
for x in d d-c1 d-c3; do nd=$(diff $H0 <(grep ' hash ' $R/logs/t-$x.log) | grep -c '^<'); echo "run 71's b0 hash lines missing or changed in $x: $nd of $(wc -l < $H0)"; done
snap
bench() { # tag build commit shapes
  local l=$(( $(left) - 5 )); [ $l -lt 30 ] && { echo "$1 SKIPPED"; return; }; [ $l -gt 120 ] && l=120
  TETRA_COMMIT=$3 timeout $l /tmp/$2/tetra bench --shape $4 --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
    --out $R/results/$1.json > $R/logs/$1.log 2>&1
  echo "== $1 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$1.log | cut -c1-130; snap; }
S=8192x4096x14336,4096x4096x14336,8192x8192x8192,4096x4096x1024,2048x14336x4096
bench e-ma m $C_M $S; bench e-da d $C_M+v10.9 $S; bench e-mb m $C_M $S; bench e-db d $C_M+v10.9 $S
echo "total $(el) s"; snap; rm -rf $OUT/c4
