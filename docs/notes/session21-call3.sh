#!/usr/bin/env bash
# Session 21 call 3 (run 105): v7.12 (helper v7cw4, TETRA_GEMM_V7_CW4: four consumer warpgroups at
# BT 64) and W4A4 PDL (helper w4pdl, TETRA_GEMM_W4A4_PDL: the BT-256 GEMM as a programmatic
# dependent of the W4A4 staging pass) on one tree, branch s21b (main fb8fd9e + w4pdl defc4aa +
# v7cw4 987b5ce, both switches default off).
# Run from the repo root with the branch extracted (no docs/) to .s21b:
#   git archive s21b $(git ls-tree --name-only s21b | grep -v '^docs$') | tar -x -C .s21b
#   C_MAIN=<s21b hash> BUDGET=590 bash docs/notes/session21-call3.sh
# PREDICTIONS (written before the run; the helpers' own; B/A = switch build's time / build-main's,
# one process, --lib-b):
#  cw4 (=1, two fragment sets), fragment weights: 64x14336x4096 0.84 [0.66, 1.00]; 64x4096x14336
#    0.86 [0.68, 1.00]; 64x28672x8192 0.84 [0.65, 1.00]; 32x14336x4096 0.84 [0.66, 1.00];
#    64x2048x6144 0.95 [0.86, 1.02]; 64x768x6144 (cluster-K, unchanged) 1.00 [0.98, 1.02];
#    128x28672x8192 (BT 128 control) 1.00 [0.99, 1.01]. Standard weights M <= 64: 0.90 [0.72,
#    1.02]. cw4s (=2, one fragment set): cw4's + 0.03. Refuted if the four long-K fragment rows
#    all read >= 0.95. (The lead's own expectation, from run 41's two-CTAs-per-SM datum: nearer
#    0.90 than 0.84.) Correctness: gpu_gemm hash lines of cw4 and cw4s equal; against main they
#    differ only in BT-64 products (the even + odd sums); ctest -R gpu_gemm passes in build-cw4;
#    memcheck / synccheck 0 errors, racecheck 0 hazards on gpu_gemm (wgmma_t, quick).
#  w4 (W4A4 fragment weights): 1024x4096x4096 0.950 [0.92, 0.985]; 2048x14336x4096 0.991 [0.98,
#    1.00]; 4096^3 0.984 [0.965, 0.995]; 4096x4096x14336 0.995 [0.985, 1.003]; 8192^3 0.998 [0.99,
#    1.005]; 8192x4096x14336 0.998 [0.99, 1.005]; W4A16 control 4096^3 1.00 +- 0.01. Refuted if
#    1024x4096x4096 >= 0.985 or any row > 1.01. Correctness: gpu_gemm_w4pdl passes (byte-equal to
#    its W4A16 twins, every W4A4 call a PDL launch), gpu_gemm hash lines (wgmma_t, with and
#    without TETRA_GEMM_SS_CLUSTERS=3) equal to build-main's, gpu_gemm_pdl passes, sanitizers
#    clean on gpu_gemm_w4pdl (quick).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-590}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r105; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r105.tgz.tmp -C $OUT r105 2>/dev/null && mv $OUT/r105.tgz.tmp $OUT/r105.tgz; }
cd .s21b || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 j=$2 tg=$3; shift 3; ( [ -f $dir/CMakeCache.txt ] || cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1;
  cmake --build $dir -j$j --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main 4 "tetra_cli tetra_shared gpu_gemm"
bld build-cw4 5 "tetra_shared gpu_gemm gpu_gemm_fragment gpu_gemm_pdl gpu_gemm_reference" -DTETRA_GEMM_V7_CW4=1
bld build-cw4s 3 "tetra_shared gpu_gemm" -DTETRA_GEMM_V7_CW4=2
bld build-w4 4 "tetra_shared gpu_gemm gpu_gemm_w4pdl gpu_gemm_pdl" -DTETRA_GEMM_W4A4_PDL=1
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
for b in build-*; do echo "$b: $(grep -E '^TETRA_GEMM_(V7_CW4|W4A4_PDL)' $b/CMakeCache.txt | tr '\n' ' ')"; done
H() { local name=$1; shift; ( env "$@" > $R/logs/$name.log 2>&1; echo "rc=$?" >> $R/logs/$name.log ) & }
l=$(( $(left) - 330 )); [ $l -gt 200 ] && l=200; echo "correctness limit $l s"
( cd build-cw4 && timeout $l ctest -R gpu_gemm -E 'w4pdl' -j3 --output-on-failure > $R/logs/ctest-cw4.log 2>&1; echo "rc=$?" >> $R/logs/ctest-cw4.log ) &
( cd build-w4 && timeout $l ctest -R 'gpu_gemm_w4pdl|gpu_gemm_pdl' --output-on-failure > $R/logs/ctest-w4.log 2>&1; echo "rc=$?" >> $R/logs/ctest-w4.log ) &
for t in memcheck synccheck racecheck; do
  H san-cw4-gemm-$t TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $l compute-sanitizer --tool $t --error-exitcode 99 build-cw4/tests/gpu_gemm
  H san-w4pdl-$t TETRA_TEST_QUICK=1 TETRA_GEMM_W4A4_PDL_EXPECT=1 timeout $l compute-sanitizer --tool $t --error-exitcode 99 build-w4/tests/gpu_gemm_w4pdl
done
for b in build-main build-cw4 build-cw4s build-w4; do H $b-gemm-hash TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $l $b/tests/gpu_gemm; done
for b in build-main build-w4; do H $b-gemm-hash-p TETRA_GEMM_SS_CLUSTERS=3 TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $l $b/tests/gpu_gemm; done
wait; echo "correctness runs done at $(el) s"; snap
for c in cw4 w4; do echo "ctest $c: $(grep -E 'tests passed|tests failed|rc=' $R/logs/ctest-$c.log | tr '\n' ' ')"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/logs/ctest-$c.log | head; done
for f in $R/logs/san-*.log $R/logs/*-hash*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|tests passed|FAIL|rc=' $f | head -4 | tr '\n' ' ')"; done
for b in main cw4 cw4s w4; do grep " hash " $R/logs/build-$b-gemm-hash.log | sort > $R/logs/h-$b.txt; done
for b in main w4; do grep " hash " $R/logs/build-$b-gemm-hash-p.log | sort > $R/logs/h-$b-p.txt; done
echo "cw4 vs cw4s: $(wc -l < $R/logs/h-cw4.txt) / $(wc -l < $R/logs/h-cw4s.txt) lines, differing $(comm -3 $R/logs/h-cw4.txt $R/logs/h-cw4s.txt | wc -l) (expect 0)"
echo "cw4 vs main: $(wc -l < $R/logs/h-main.txt) main lines, differing $(comm -3 $R/logs/h-main.txt $R/logs/h-cw4.txt | wc -l) (expect > 0, BT-64 products only)"
echo "w4 vs main: differing $(comm -3 $R/logs/h-main.txt $R/logs/h-w4.txt | wc -l), with SS_CLUSTERS=3 $(comm -3 $R/logs/h-main-p.txt $R/logs/h-w4-p.txt | wc -l) (expect 0, 0)"
grep -E "v7.12 (cases|launches)|twin: v7.12" $R/logs/build-cw4-gemm-hash.log | sort | uniq -c | head -6
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 15 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
T=build-main/tetra
C76=../docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
cal="--ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --graph-below-us 400"
SK=64x14336x4096,64x4096x14336,64x28672x8192,32x14336x4096,64x2048x6144,64x768x6144,128x28672x8192
S6=1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336,8192x8192x8192,8192x4096x14336
step ab-cw4-frag 60 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-cw4/libtetra.so --shape $SK --blocks 4 --no-replicate --graph-below-us 400 --out $R/results/v7cw4-ab-frag.json
step ab-w4a4-frag 90 $T bench --a tetra-gemm-w4a4-frag --b tetra-gemm-w4a4-frag --lib-b build-w4/libtetra.so --shape $S6 --blocks 3 --no-replicate --out $R/results/w4pdl-ab-frag.json
step ab-cw4-std 40 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-cw4/libtetra.so --shape 64x14336x4096,64x28672x8192,32x14336x4096,128x28672x8192 --blocks 4 --no-replicate --graph-below-us 400 --out $R/results/v7cw4-ab-std.json
step cw4-cublas 60 $T bench --a tetra-gemm-frag --lib-a build-cw4/libtetra.so --b cublaslt-bf16-tuned --shape 64x14336x4096,64x4096x14336,64x28672x8192,32x14336x4096,64x2048x6144 $cal --blocks 4 --out $R/results/v7cw4-vs-cublas.json
step ctl-w4a16 20 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-w4/libtetra.so --shape 4096x4096x4096 --blocks 3 --no-replicate --out $R/results/w4pdl-control.json
step ab-cw4s-frag 30 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-cw4s/libtetra.so --shape 64x14336x4096,64x28672x8192,32x14336x4096 --blocks 4 --no-replicate --graph-below-us 400 --out $R/results/v7cw4s-ab-frag.json
step ab-w4a4-std 30 $T bench --a tetra-gemm-w4a4 --b tetra-gemm-w4a4 --lib-b build-w4/libtetra.so --shape 1024x4096x4096,4096x4096x4096 --blocks 3 --no-replicate --out $R/results/w4pdl-ab-std.json
echo "total $(el) s"; snap; rm -rf $OUT/r105
