#!/usr/bin/env bash
# Session 17, device call 2 (run 81). Run: C_MAIN=<hash> C_BASE=92861cd BUDGET=560 bash docs/notes/session17-call2.sh
# Trees: . = main with (1) the cluster-K split rule capped by resident clusters (gemv.cu) and
# (2) the GEMM's split-K reduce as a programmatic dependent (gemm_sm90.cu); .scratch-base =
# git archive 92861cd (before both); .scratch-sk = 92861cd + docs/notes/patches/v10.10-streamk.patch.
# PREDICTIONS (written before the run):
# (a) main: ctest gpu_gemm, gpu_gemm_persistent, gpu_gemv, gpu_gemv_ck pass; gpu_gemm's wgmma-T
#     hash lines equal base's (the PDL launch changes no bits); compute-sanitizer memcheck /
#     racecheck / synccheck on gpu_gemm (wgmma-T cases, quick; the pinned split counts 3, 4, 16
#     run the reduce kernel as a dependent): 0 errors.
# (b) A/B, A = main, B = base, B/A time (> 1: main faster):
#     - the reduce launch gap (GEMV's PDL reduce gained 0.25-0.41 us, run 41): 64x768x6144
#       (16 splits) and 64x2048x6144 (8 splits) 1.02-1.05; 64x4096x14336 (4 splits) 1.005-1.015;
#       64x14336x4096 (no split) within 0.005 of 1.
#     - cluster-K at S = 3 where the cap moves S = 4 (124 resident clusters of 4 < 128 tiles):
#       1x4096x4096 and 1x4096x14336 1.05-1.25 (run 78's S = 4 loss, 1.18-1.20x, was the
#       second wave; one wave at S = 3 with a third more segments per warp, against the
#       ordinary kernels, which AUTO ran there until now). Refuted if < 1.0: then AUTO
#       should leave them to the ordinary kernels (the cap stays: it only lowers S).
#       8x / 16x of the same: unknown; reported.
#     - 1x768x6144 (S = 6, unchanged by the cap; no GEMM reduce): within 0.01 of 1.
# (c) v10.10 (stream-K BT-256) at 256x14336x4096, ncu (SK on: its kernel and the fixup; SK off:
#     main's kernel): no prediction beyond run 79's 1.47x time; looking for where its split
#     units lose (duration per kernel, warp stalls, L2 / DRAM traffic).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r81; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r81.tgz.tmp -C $OUT r81 2>/dev/null && mv $OUT/r81.tgz.tmp $OUT/r81.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local src=$1 dir=$2 tg=$3; shift 3; ( cmake -S $src -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$(basename $dir).log 2>&1 &&
  cmake --build $dir -j6 --target $tg >> $R/logs/build-$(basename $dir).log 2>&1; echo "rc=$?" >> $R/logs/build-$(basename $dir).log ) & }
bld . build-main "tetra_cli tetra_shared gpu_gemm gpu_gemv"; bld .scratch-base build-base "tetra_shared gpu_gemm"
bld .scratch-sk build-sk tetra_cli -DTETRA_GEMM_SS_STREAMK=1
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
T=build-main/tetra; export TETRA_COMMIT=$C_MAIN
san() { ( env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $2 compute-sanitizer --tool $1 --error-exitcode 99 build-main/tests/gpu_gemm > $R/logs/san-$1.log 2>&1; echo "rc=$?" >> $R/logs/san-$1.log ) & }
for tool in memcheck racecheck synccheck; do san $tool 200; done
( timeout 200 ctest --test-dir build-main -R 'gpu_gemm$|gpu_gemm_persistent|gpu_gemv$|gpu_gemv_ck' -j3 --output-on-failure > $R/logs/ctest.log 2>&1; echo "rc=$?" >> $R/logs/ctest.log ) &
( env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 build-main/tests/gpu_gemm > $R/logs/main-hash.log 2>&1;
  env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 build-base/tests/gpu_gemm > $R/logs/base-hash.log 2>&1 ) &
wait; echo "tests done at $(el) s"; snap
echo "ctest: $(grep -E 'tests passed|rc=' $R/logs/ctest.log | tr '\n' ' ')"; grep -E "Failed|\*\*\*" $R/logs/ctest.log | head -5
for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|checks passed' $f | tr '\n' ' ')"; done
grep hash $R/logs/main-hash.log | sort > $R/logs/h-main.txt; grep hash $R/logs/base-hash.log | sort > $R/logs/h-base.txt
echo "hash: main $(wc -l < $R/logs/h-main.txt) base $(wc -l < $R/logs/h-base.txt) differing: $(comm -3 $R/logs/h-main.txt $R/logs/h-base.txt | wc -l)"
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
ab="--no-replicate --graph-below-us 400"
step ab-gemv 120 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-base/libtetra.so --shape 1x4096x4096,1x4096x14336,8x4096x14336,16x4096x14336,16x4096x4096,1x768x6144 --blocks 6 $ab --out $R/results/ab-gemv-cap.json
step ab-reduce 100 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-base/libtetra.so --shape 64x768x6144,64x2048x6144,64x4096x14336,64x14336x4096 --blocks 6 $ab --out $R/results/ab-gemm-pdl-reduce.json
# (c) v10.10 ncu at 256x14336x4096
V="--shape 256x14336x4096 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate"
SEC="--section SpeedOfLight --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis"
for sk in 1 0; do
  l=$(( $(left) - 5 )); [ $l -lt 20 ] && break; [ $l -gt 70 ] && l=70
  TETRA_GEMM_SS_SK=$sk timeout $l ncu --clock-control none --kernel-name regex:"gemm_wgmma|fixup" --launch-skip 4 --launch-count 4 $SEC \
    build-sk/tetra bench $V > $R/logs/ncu-sk$sk.txt 2>&1
  echo "== ncu sk=$sk rc=$? at $(el) s"; grep -E "^  [a-z<].*gemm|^  [a-z<].*fixup|Duration|Grid Size|DRAM Through|L2 Cache Through|Issue Slots|Warp Cycles Per Issued" $R/logs/ncu-sk$sk.txt | head -30; snap
done
echo "total $(el) s"; snap; rm -rf $OUT/r81
