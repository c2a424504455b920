#!/usr/bin/env bash
# Session 14, device call 5 (run 70): correctness only, with the session's last ~300 s of
# device time. Prepare .scratch-7 = main + docs/notes/patches/v10.7-tma-store-epilogue.patch and,
# if present, .scratch-s = main + docs/notes/patches/v7.4-streamk.patch (as call 1's header).
# v10.7 (TETRA_GEMM_SS_PERSISTENT=1): predictions in gemm-sm90.md "v10.7": 149/149 hash lines
# equal to main's at the default cluster count and with TETRA_GEMM_SS_CLUSTERS=1 / 3; with 2,
# memcheck 0 errors, racecheck 0 hazards, synccheck 0 errors.
# v7.4 (TETRA_GEMM_V7_STREAMK=1), if built: gpu_gemm passes with TETRA_GEMM_V7_SK_CLUSTERS=3
# (oracle gate; bits may differ from main's where a unit is split), memcheck / racecheck clean.
# Run: BUDGET=240 bash docs/notes/session14-call5.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-240}
el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/n5; mkdir -p $R/logs
snap() { tar czf $OUT/n5.tgz.tmp -C $OUT n5 2>/dev/null && mv $OUT/n5.tgz.tmp $OUT/n5.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { ( cmake -S $2 -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $3 > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j5 --target gpu_gemm >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log ) & }
bld b0 . ""; bld p7 .scratch-7 "-DTETRA_GEMM_SS_PERSISTENT=1"
[ -d .scratch-s ] && bld s .scratch-s "-DTETRA_GEMM_V7_STREAMK=1"
wait; echo "builds at $(el) s: $(for b in b0 p7 s; do [ -f $R/logs/build-$b.log ] && echo -n "$b $(tail -1 $R/logs/build-$b.log) "; done)"
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
tg() { ( env TETRA_GEMM_TEST_HASH=1 $T $2 timeout 150 /tmp/$1/tests/gpu_gemm > $R/logs/t-$3.log 2>&1; echo "rc=$?" >> $R/logs/t-$3.log ) & }
san() { ( env TETRA_TEST_QUICK=1 $T $3 timeout 150 compute-sanitizer --tool $2 --error-exitcode 99 /tmp/$1/tests/gpu_gemm > $R/logs/san-$4.log 2>&1; echo "rc=$?" >> $R/logs/san-$4.log ) & }
tg b0 "" b0; tg p7 "" p7; tg p7 TETRA_GEMM_SS_CLUSTERS=1 p7-c1; tg p7 TETRA_GEMM_SS_CLUSTERS=3 p7-c3
for tool in memcheck racecheck synccheck; do san p7 $tool TETRA_GEMM_SS_CLUSTERS=2 p7-$tool-c2; done
if [ -x /tmp/s/tests/gpu_gemm ]; then
  tg s TETRA_GEMM_V7_SK_CLUSTERS=3 s-c3; tg s "" s
  for tool in memcheck racecheck synccheck; do san s $tool TETRA_GEMM_V7_SK_CLUSTERS=3 s-$tool-c3; done
fi
wait; echo "tests at $(el) s"
for f in $R/logs/t-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed; $(tail -3 $f | tr '\n' ' ' | cut -c1-170)"; done
grep ' hash ' $R/logs/t-b0.log > $R/logs/h0
for x in p7 p7-c1 p7-c3 s s-c3; do [ -f $R/logs/t-$x.log ] || continue
  nd=$(diff $R/logs/h0 <(grep ' hash ' $R/logs/t-$x.log) | grep -c '^[<>]'); echo "hash lines differing b0 vs $x: $nd of $(wc -l < $R/logs/h0)"; done
echo "total $(el) s"; snap; rm -rf $OUT/n5
