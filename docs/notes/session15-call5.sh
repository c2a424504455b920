#!/usr/bin/env bash
# Session 15 call 5 (run 75): v10.9 (dynamic unit order in the persistent BT-256 kernel),
# correctness and timing against main. Trees: . = main 612e5f2 (v10.8 static order, K <= 4096);
# .scratch-d = 612e5f2 + docs/notes/patches/v10.9-dynamic-units.patch (untracked, deleted after).
# Run: C_M=612e5f2 BUDGET=255 bash docs/notes/session15-call5.sh
# v10.9b = v10.9 with the unit fetch and read done by whole warps (run 74's build put a wait
# inside a lane-0 branch: its K loops left the uniform datapath, 26-33% more time at every shape).
# Timing first, then the tests (this call has ~285 s of device time).
# PREDICTIONS (before the run): correctness as run 74 (138 of 138 hash lines, sanitizers clean
# with SS_CLUSTERS=2). Timing, legs m, d, m (d - m): 4096x4096x1024 within +-0.02 of the static
# persistent kernel (m); 8192x4096x14336 (m = v10.3 there) +0.02..+0.04 if
# the static order was what lost in runs 72-73; refuted if d lies below both m legs there.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-255}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/c5; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/c5.tgz.tmp -C $OUT c5 2>/dev/null && mv $OUT/c5.tgz.tmp $OUT/c5.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { ( cmake -S $2 -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "${@:3}" > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j8 --target tetra_cli gpu_gemm >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log ) & }
bld m .; bld d .scratch-d -DTETRA_GEMM_SS_DYNAMIC=1
wait; echo "builds at $(el) s: $(for b in m d; do echo -n "$b $(tail -1 $R/logs/build-$b.log) "; done)"
bench() { # tag build commit shapes
  local l=$(( $(left) - 5 )); [ $l -lt 30 ] && { echo "$1 SKIPPED"; return; }; [ $l -gt 120 ] && l=120
  TETRA_COMMIT=$3 timeout $l /tmp/$2/tetra bench --shape $4 --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
    --out $R/results/$1.json > $R/logs/$1.log 2>&1
  echo "== $1 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$1.log | cut -c1-130; snap; }
S=8192x4096x14336,4096x4096x1024
bench e-ma m $C_M $S; bench e-da d $C_M+v10.9b $S; bench e-mb m $C_M $S
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
TL=$(( $(left) - 8 )); [ $TL -gt 150 ] && TL=150; echo "test timeout $TL s"
tg() { ( env TETRA_GEMM_TEST_HASH=1 $T $2 timeout $TL /tmp/d/tests/gpu_gemm > $R/logs/t-$3.log 2>&1; echo "rc=$?" >> $R/logs/t-$3.log ) & }
san() { ( env TETRA_TEST_QUICK=1 $T TETRA_GEMM_SS_CLUSTERS=2 timeout $TL compute-sanitizer --tool $1 --error-exitcode 99 /tmp/d/tests/gpu_gemm > $R/logs/san-$1.log 2>&1; echo "rc=$?" >> $R/logs/san-$1.log ) & }
tg d "" d; tg d TETRA_GEMM_SS_CLUSTERS=3 d-c3
for tool in memcheck racecheck synccheck; do san $tool; done
wait; echo "tests at $(el) s"
for f in $R/logs/t-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed; $(tail -3 $f | tr '\n' ' ' | cut -c1-170)"; done
H0=docs/results/h200-2026-12-01/run71-s15-v108-v74-check/logs/h0
for x in d d-c3; do nd=$(diff $H0 <(grep ' hash ' $R/logs/t-$x.log) | grep -c '^<'); echo "run 71's b0 hash lines missing or changed in $x: $nd of $(wc -l < $H0)"; done
snap
echo "total $(el) s"; snap; rm -rf $OUT/c5
