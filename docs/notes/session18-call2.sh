#!/usr/bin/env bash
# Session 18, device call 2 (run 90): v7.6, the next K-tile's raw stage and scale pairs loaded before
# wgmma_wait<1> (TETRA_GEMM_V7_EARLY; build-e1 = this tree with -DTETRA_GEMM_V7_EARLY=1, build-main = 0).
# Run: C_MAIN=<hash> BUDGET=585 bash docs/notes/session18-call2.sh
# PREDICTIONS (written before the run; run 89's ncu: per K-tile ~542 cycles against 256 of tensor
# work, the consumer chain after wait<1> = rfull wait + LDS + scale chain + 4 SHFL + convert):
# (a) gpu_gemm wgmma_t hash lines of build-e1 equal build-main's (149); gpu_gemm_fragment passes on
#     build-e1; memcheck / racecheck / synccheck clean on build-e1's gpu_gemm (wgmma_t, quick) and
#     gpu_gemm_fragment (quick).
# (b) A = build-main, B = build-e1 (--lib-b; same weight formats), B/A time:
#     fragment weights (tetra-gemm-frag) at M = 64 (14336x4096, 4096x14336, 28672x8192): 0.85-0.90
#     (the scale chain and the LDS latency leave the critical path; only slot extraction + HMUL2
#     stay after the wait); 17x14336x4096 and 128x28672x8192 (BT 128): 0.88-0.95.
#     standard weights (tetra-gemm) at the same M = 64 shapes: 0.90-0.95 (the gather moves, the
#     nibble split and pair building stay after the wait).
#     glm5 64x768x6144 / 64x2048x6144 (6-12 K-tiles per split, fixed cost ~7 us): 0.95-1.0.
#     Refuted: fragment M = 64 less than 3% faster (B/A > 0.97) at any of the three.
# (c) if it wins: calibrated against tuned cuBLASLt (run 76's t_noise and ceilings), build-e1 as
#     --lib-a: fragment M = 64 ratios 1.335 / 1.420 / 1.330 (run 83) -> ~1.50 / 1.58 / 1.48.
# (d) build-e2 = -DTETRA_GEMM_V7_EARLY=2 (v7.6b: also the next A-stage wait before wgmma_wait<1>):
#     hash lines equal main's; sanitizers clean (run on e2, a superset of e1's reordering); a
#     further 1-3% over e1 (one try-wait's latency off the chain), B/A vs main 0.83-0.89.
# (e) helper v10frag (merged default-off: TETRA_GEMM_FRAG_BT256=0): ctest gpu_gemm_fragment and
#     gpu_gemm_fragment_ss2 pass (BT-256 fragment cases bit-identical to standard weights);
#     memcheck / racecheck / synccheck clean with TETRA_GEMM_FRAG_BT256=1 TETRA_GEMM_SS_CLUSTERS=2;
#     with TETRA_GEMM_FRAG_BT256=1, A = tetra-gemm-frag, B = tetra-gemm (standard), B/A (the
#     helper's): 256x14336x4096 1.00 (0.95-1.06), 512x4096x14336 1.00, 2048x14336x4096 1.01;
#     today (BT 128 for fragment weights) 0.787 at the first (run 82). Refuted below 0.95.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-585}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r90; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r90.tgz.tmp -C $OUT r90 2>/dev/null && mv $OUT/r90.tgz.tmp $OUT/r90.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 tg=$2; shift 2; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j8 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment test_fragment_wtile" -DTETRA_GEMM_V7_EARLY=0; bld build-e1 "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment" -DTETRA_GEMM_V7_EARLY=1
bld build-e2 "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment" -DTETRA_GEMM_V7_EARLY=2
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
T=build-main/tetra; export TETRA_COMMIT=$C_MAIN
san() { ( env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 compute-sanitizer --tool $1 --error-exitcode 99 build-e2/tests/$2 > $R/logs/san-$1-$2.log 2>&1; echo "rc=$?" >> $R/logs/san-$1-$2.log ) & }
for tool in memcheck racecheck synccheck; do san $tool gpu_gemm; done
( for b in main e1 e2; do env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 build-$b/tests/gpu_gemm > $R/logs/$b-hash.log 2>&1; done ) &
( for b in e1 e2; do timeout 150 build-$b/tests/gpu_gemm_fragment > $R/logs/gpu_gemm_fragment-$b.log 2>&1; echo "rc=$?" >> $R/logs/gpu_gemm_fragment-$b.log; done ) &
( timeout 200 ctest --test-dir build-main -R 'gpu_gemm_fragment|test_fragment_wtile' --output-on-failure > $R/logs/ctest-frag.log 2>&1; echo "rc=$?" >> $R/logs/ctest-frag.log ) &
wait; for tool in memcheck racecheck; do san $tool gpu_gemm_fragment; done
for tool in memcheck racecheck synccheck; do ( env TETRA_TEST_QUICK=1 TETRA_GEMM_SS_CLUSTERS=2 TETRA_GEMM_FRAG_BT256=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 build-main/tests/gpu_gemm_fragment > $R/logs/san-bt256-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-bt256-$tool.log ) & done; wait
echo "ctest-frag: $(grep -E 'tests passed|rc=' $R/logs/ctest-frag.log | tr '\n' ' ')"; grep -E "Failed|\*\*\*|CHECK failed|FAIL" $R/logs/ctest-frag.log | head -10
echo "tests done at $(el) s"; snap
for f in $R/logs/san-*.log $R/logs/gpu_gemm_fragment-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|checks passed|FAIL' $f | head -3 | tr '\n' ' ')"; done
grep hash $R/logs/main-hash.log | sort > $R/logs/h-main.txt
for b in e1 e2; do grep "all checks passed\|CHECK failed" $R/logs/$b-hash.log | head -3; grep hash $R/logs/$b-hash.log | sort > $R/logs/h-$b.txt
  echo "hash: main $(wc -l < $R/logs/h-main.txt) $b $(wc -l < $R/logs/h-$b.txt) differing: $(comm -3 $R/logs/h-main.txt $R/logs/h-$b.txt | wc -l)"; done
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
ab="--blocks 6 --no-replicate --graph-below-us 400"
step early-frag 80 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-e1/libtetra.so --shape 64x14336x4096,64x4096x14336,64x28672x8192,17x14336x4096,128x28672x8192,64x768x6144,64x2048x6144 $ab --out $R/results/v76-fragment.json
step early2-frag 70 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-e2/libtetra.so --shape 64x14336x4096,64x4096x14336,64x28672x8192,17x14336x4096,128x28672x8192 $ab --out $R/results/v76b-fragment.json
step early-std 70 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-e1/libtetra.so --shape 64x14336x4096,64x4096x14336,64x28672x8192 $ab --out $R/results/v76-standard.json
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
step bt256-frag 70 env TETRA_GEMM_FRAG_BT256=1 $T bench --a tetra-gemm-frag --b tetra-gemm --shape 256x14336x4096,512x4096x14336,2048x14336x4096 $ab --out $R/results/frag-bt256-vs-standard.json
# calibrated run with whichever of e1 / e2 had the lower mean B/A on the three fragment M = 64 shapes
W=$(python3 -c "
import json
def m(f):
    try: r=json.load(open(f))['results'][:3]; return sum(x['ratio'] for x in r)/len(r)
    except Exception: return 9
a,b=m('$R/results/v76-fragment.json'),m('$R/results/v76b-fragment.json'); print('e1' if a<=b else 'e2')")
echo "calibrating build-$W"
step early-cal 80 build-$W/tetra bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape 64x14336x4096,64x4096x14336,64x28672x8192,64x768x6144,64x2048x6144 --ceilings $C76/ceilings.json --calibration $C76/calibration.json --blocks 10 --no-replicate --graph-below-us 400 --out $R/results/v76-$W-fragment-calibrated.json
echo "total $(el) s"; snap; rm -rf $OUT/r90
