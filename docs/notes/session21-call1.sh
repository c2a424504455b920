#!/usr/bin/env bash
# Session 21 call 1 (run 103): gpdl (TETRA_GEMV_PDL_ALL=1) and v7k4 (TETRA_GEMM_V7_STAGE_KT=4) on
# one tree, branch s21-combo (= main 05a1ed7 + gpdl 06c8ade + v7k4 e435509, both default off),
# plus the v7 traces of main (build-tr) and of the SERIAL_DQ diagnostic (build-sdq).
# Run from the repo root with the branch extracted (no docs/) to .s21:
#   git archive s21-combo $(git ls-tree --name-only s21-combo | grep -v '^docs$') | tar -x -C .s21
#   C_MAIN=<s21-combo hash> BUDGET=585 bash docs/notes/session21-call1.sh
# gpdl's mode 2 (an experiment, never a default) is left out for time.
# PREDICTIONS (written before the run; the helpers' own from their drafts; B/A = switch build's
# time / build-main's, one process, --lib-b):
#  g1 (fragment weights): 1x768x6144 0.93 [0.86, 0.97]; 4x768x6144 0.93 [0.86, 0.97];
#    1x2048x6144 0.95 [0.90, 0.98]; 4x2048x6144 0.95 [0.90, 0.98]; 16x4096x14336 0.985 [0.97,
#    1.00]; 1x4096x14336 0.98 [0.96, 1.00]. Refuted if 1x768x6144 >= 0.98 or any row > 1.02.
#    Control (TETRA_GEMV_PDL_ALL_OFF=1: g1's kernels, main's launches): 1.00 +- 0.01.
#  k4 (fragment weights): 64x14336x4096 0.95 [0.92, 0.99]; 64x4096x14336 0.955 [0.93, 0.99];
#    64x28672x8192 0.945 [0.92, 0.99]; 32x14336x4096 0.95 [0.92, 0.99]; 64x768x6144 1.02 [0.99,
#    1.04]; 64x2048x6144 0.99 [0.96, 1.02]; 128x28672x8192 (BT 128: control) 1.00 [0.99, 1.01].
#    Standard weights: M <= 64 rows 0.96 [0.93, 0.99]. Refuted if the four M <= 64 fragment rows
#    (14336x4096, 4096x14336, 28672x8192, 32x14336x4096) all read >= 0.985.
#  Correctness: hash lines equal (gpu_gemv and gpu_gemm_fragment: g1 vs main; gpu_gemm wgmma_t with
#    and without TETRA_GEMM_T_CK=2: k4 vs main); ctest gpu_gemv|gpu_gemm_pdl|gpu_gemm_fragment
#    passes in g1; gpu_gemm, gpu_gemm_fragment, gpu_gemm_pdl pass in k4; gpu_gemm_pdl passes in
#    build-main; memcheck / synccheck 0 errors and racecheck 0 hazards (g1: gpu_gemm_pdl quick; k4:
#    gpu_gemm wgmma_t quick).
#  Traces at 64x14336x4096 (fragment weights): tr (main) period ~530 cycles per K-tile (run 98:
#    542 before v7.10), its u' = 1 rfull segment below run 98's 107. sdq (wgmma_wait<0> before each
#    dequant): if the running RS wgmma slows the dequant, sdq's dequant segment <= 200 cycles (tr
#    ~270) and its tensor wait grows to ~100-130; if not, dequant stays ~270. sdq's period longer
#    either way. k4tr (KT 4): period ~490-520, the u' = 2 / 3 K-tiles' rfull segments < 40 cycles.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-585}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r103; mkdir -p $R/logs $R/results $R/trace
snap() { tar czf $OUT/r103.tgz.tmp -C $OUT r103 2>/dev/null && mv $OUT/r103.tgz.tmp $OUT/r103.tgz; }
cd .s21 || exit 1
N=../docs/notes
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 j=$2 tg=$3; shift 3; ( [ -f $dir/CMakeCache.txt ] || cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1;
  cmake --build $dir -j$j --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main 4 "tetra_cli tetra_shared gpu_gemm gpu_gemv gpu_gemm_fragment gpu_gemm_pdl"
bld build-g1 3 "tetra_shared gpu_gemv gpu_gemm_fragment gpu_gemm_pdl" -DTETRA_GEMV_PDL_ALL=1
bld build-k4 3 "tetra_shared gpu_gemm gpu_gemm_fragment gpu_gemm_pdl" -DTETRA_GEMM_V7_STAGE_KT=4
bld build-k4tr 2 "tetra_static" -DTETRA_GEMM_V7_STAGE_KT=4 "-DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_TRACE"
bld build-tr 2 "tetra_static" "-DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_TRACE"
bld build-sdq 2 "tetra_static" "-DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_TRACE -DTETRA_GEMM_V7_SERIAL_DQ"
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
for b in build-*; do echo "$b: $(grep -E '^TETRA_GEMV_PDL_ALL|^TETRA_GEMM_V7_STAGE_KT|^CMAKE_CUDA_FLAGS:' $b/CMakeCache.txt | tr '\n' ' ')"; done
for b in tr sdq k4tr; do gcc -std=c11 -O2 -I include -I /usr/local/cuda/include $N/v7-trace.c -L build-$b -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o build-$b/v7-trace-drv > $R/logs/drv-$b.log 2>&1; echo "drv $b rc=$?"; done
# 1. correctness, all in parallel: hash lines, the PDL stream-order checks
H() { local name=$1; shift; ( env "$@" > $R/logs/$name.log 2>&1; echo "rc=$?" >> $R/logs/$name.log ) & }
for b in build-main build-g1; do
  H $b-gemv-hash TETRA_GEMV_TEST_HASH=1 timeout 200 $b/tests/gpu_gemv
  H $b-frag-hash TETRA_GEMM_FRAGMENT_TEST_HASH=1 timeout 200 $b/tests/gpu_gemm_fragment
done
for b in build-main build-k4; do
  H $b-gemm-hash TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 $b/tests/gpu_gemm
  H $b-gemm-hash-ck2 TETRA_GEMM_T_CK=2 TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 $b/tests/gpu_gemm
done
H main-pdl TETRA_GEMM_V7_PDL_EXPECT=1 TETRA_GEMV_PDL_ALL_EXPECT=0 timeout 150 build-main/tests/gpu_gemm_pdl
H g1-pdl TETRA_GEMM_V7_PDL_EXPECT=1 TETRA_GEMV_PDL_ALL_EXPECT=1 timeout 150 build-g1/tests/gpu_gemm_pdl
H g1off-pdl TETRA_GEMV_PDL_ALL_OFF=1 TETRA_GEMM_V7_PDL_EXPECT=1 TETRA_GEMV_PDL_ALL_EXPECT=1 timeout 150 build-g1/tests/gpu_gemm_pdl
H k4-pdl TETRA_GEMM_V7_PDL_EXPECT=1 TETRA_GEMV_PDL_ALL_EXPECT=0 timeout 150 build-k4/tests/gpu_gemm_pdl
H k4-frag TETRA_GEMM_FRAGMENT_TEST_HASH=1 timeout 200 build-k4/tests/gpu_gemm_fragment
wait; echo "correctness runs done at $(el) s"; snap
for k in gemv frag; do
  grep -E ' i?hash ' $R/logs/build-main-$k-hash.log | sort > $R/logs/h-$k-main.txt; grep -E ' i?hash ' $R/logs/build-g1-$k-hash.log | sort > $R/logs/h-$k-g1.txt
  echo "$k hash lines g1: $(wc -l < $R/logs/h-$k-g1.txt) vs main $(wc -l < $R/logs/h-$k-main.txt), differing $(comm -3 $R/logs/h-$k-main.txt $R/logs/h-$k-g1.txt | wc -l) (expect 0)"; done
grep -E ' i?hash ' $R/logs/k4-frag.log | sort > $R/logs/h-frag-k4.txt
echo "frag hash lines k4: $(wc -l < $R/logs/h-frag-k4.txt), differing from main $(comm -3 $R/logs/h-frag-main.txt $R/logs/h-frag-k4.txt | wc -l) (expect 0)"
for s in "" -ck2; do
  grep " hash " $R/logs/build-main-gemm-hash$s.log | sort > $R/logs/h-gemm-main$s.txt; grep " hash " $R/logs/build-k4-gemm-hash$s.log | sort > $R/logs/h-gemm-k4$s.txt
  echo "gemm hash lines$s k4: $(wc -l < $R/logs/h-gemm-k4$s.txt) vs main $(wc -l < $R/logs/h-gemm-main$s.txt), differing $(comm -3 $R/logs/h-gemm-main$s.txt $R/logs/h-gemm-k4$s.txt | wc -l) (expect 0)"; done
# 2. sanitizers (quick), six in parallel
for t in memcheck synccheck racecheck; do
  H san-g1-pdl-$t TETRA_TEST_QUICK=1 timeout 220 compute-sanitizer --tool $t --error-exitcode 99 build-g1/tests/gpu_gemm_pdl
  H san-k4-gemm-$t TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 220 compute-sanitizer --tool $t --error-exitcode 99 build-k4/tests/gpu_gemm
done
wait; echo "sanitizers done at $(el) s"; snap
for f in $R/logs/san-*.log $R/logs/*-hash*.log $R/logs/*-pdl.log $R/logs/k4-frag.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|CHECK failed|tests passed|FAIL|rc=' $f | head -4 | tr '\n' ' ')"; done
# 3. traces (64x14336x4096, fragment weights)
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
for b in tr sdq k4tr; do kt=2; [ $b = k4tr ] && kt=4
  step trace-$b 40 env TRACE=1 build-$b/v7-trace-drv $R/trace/$b 64x14336x4096
  for f in $R/trace/$b*.bin; do [ -f "$f" ] || continue; python3 $N/v7-trace.py $f --kt $kt --json ${f%.bin}.json > ${f%.bin}.txt 2>&1; head -30 ${f%.bin}.txt; done; done
# 4. A/B timing (A = build-main's library, B = --lib-b)
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
T=build-main/tetra
SK=64x14336x4096,64x4096x14336,64x28672x8192,32x14336x4096,64x768x6144,64x2048x6144,128x28672x8192
SG=1x768x6144,1x2048x6144,4x768x6144,4x2048x6144,16x4096x14336,1x4096x14336
step ab-k4-frag 90 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-k4/libtetra.so --shape $SK --blocks 4 --no-replicate --graph-below-us 400 --out $R/results/v7k4-ab-frag.json
step ab-g1 90 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-g1/libtetra.so --shape $SG --blocks 4 --no-replicate --graph-below-us 400 --out $R/results/gpdl-g1-ab.json
step ctl-g1 50 env TETRA_GEMV_PDL_ALL_OFF=1 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-g1/libtetra.so --shape 1x768x6144,4x2048x6144,16x4096x14336 --blocks 4 --no-replicate --graph-below-us 400 --out $R/results/gpdl-g1-control.json
step ab-k4-std 70 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-k4/libtetra.so --shape 64x14336x4096,64x28672x8192,32x14336x4096,128x28672x8192 --blocks 4 --no-replicate --graph-below-us 400 --out $R/results/v7k4-ab-std.json
echo "total $(el) s"; snap; rm -rf $OUT/r103
