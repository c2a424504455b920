#!/usr/bin/env bash
# Session 15 call 1 = run 71 (written at the end of session 14, run as drafted):
# correctness of v10.8 and v7.4 (gemm-sm90.md "v10.7 measured (run 70) and v10.8", "v7.4").
# Before the call (patch -p1; git apply inside a subdirectory of the repository skips paths):
#   for x in 8:v10.8-mbarrier-handover s:v7.4-streamk; do d=.scratch-${x%%:*}; rm -rf $d; mkdir $d &&
#     git archive HEAD | tar x -C $d && rm -rf $d/docs/results && (cd $d && patch -p1 -s < ../docs/notes/patches/${x#*:}.patch); done
# Run: BUDGET=400 bash docs/notes/session15-call1-draft.sh   (then delete .scratch-8 .scratch-s)
# Predictions: v10.8: 138 of main's hash lines equal at the default, 1 and 3 clusters; with
# TETRA_GEMM_SS_CLUSTERS=2 memcheck 0 errors, racecheck 0 hazards, synccheck 0 errors.
# v7.4: passes with and without TETRA_GEMM_V7_SK_CLUSTERS=3; racecheck (300 s) 0 hazards.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/c1; mkdir -p $R/logs
snap() { tar czf $OUT/c1.tgz.tmp -C $OUT c1 2>/dev/null && mv $OUT/c1.tgz.tmp $OUT/c1.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { ( cmake -S $2 -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $3 > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j5 --target gpu_gemm tetra_cli >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log ) & }
bld b0 . ""; bld p8 .scratch-8 "-DTETRA_GEMM_SS_PERSISTENT=1"; bld s .scratch-s "-DTETRA_GEMM_V7_STREAMK=1"
wait; echo "builds at $(el) s: $(for b in b0 p8 s; do echo -n "$b $(tail -1 $R/logs/build-$b.log) "; done)"
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
tg() { ( env TETRA_GEMM_TEST_HASH=1 $T $2 timeout 200 /tmp/$1/tests/gpu_gemm > $R/logs/t-$3.log 2>&1; echo "rc=$?" >> $R/logs/t-$3.log ) & }
san() { ( env TETRA_TEST_QUICK=1 $T $3 timeout $5 compute-sanitizer --tool $2 --error-exitcode 99 /tmp/$1/tests/gpu_gemm > $R/logs/san-$4.log 2>&1; echo "rc=$?" >> $R/logs/san-$4.log ) & }
tg b0 "" b0; tg p8 "" p8; tg p8 TETRA_GEMM_SS_CLUSTERS=1 p8-c1; tg p8 TETRA_GEMM_SS_CLUSTERS=3 p8-c3
tg s "" s; tg s TETRA_GEMM_V7_SK_CLUSTERS=3 s-c3
for tool in memcheck racecheck synccheck; do san p8 $tool TETRA_GEMM_SS_CLUSTERS=2 p8-$tool-c2 240; done
san p8 synccheck "" p8-synccheck 240
san s racecheck TETRA_GEMM_V7_SK_CLUSTERS=3 s-racecheck-c3 320
wait; echo "tests at $(el) s"
for f in $R/logs/t-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed; $(tail -3 $f | tr '\n' ' ' | cut -c1-170)"; done
grep ' hash ' $R/logs/t-b0.log > $R/logs/h0
for x in p8 p8-c1 p8-c3 s s-c3; do
  nd=$(diff $R/logs/h0 <(grep ' hash ' $R/logs/t-$x.log) | grep -c '^<'); echo "main's hash lines missing or changed in $x: $nd of $(wc -l < $R/logs/h0)"; done
echo "total $(el) s"; snap; rm -rf $OUT/c1
