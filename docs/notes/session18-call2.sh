#!/usr/bin/env bash
# Session 18, device call 2 (run 90): three changes in one call (device time is short).
#   v7.6 (TETRA_GEMM_V7_EARLY: build-e1 = 1, build-e2 = 2; build-main = 0): v7's consumers load the
#     next K-tile's raw stage and scale pairs (e2: also wait for its A stage) before wgmma_wait<1>.
#   helper v10frag (merged default-off, TETRA_GEMM_FRAG_BT256=0): the BT-256 kernels read fragment weights.
#   helper gx (merged default-off, TETRA_GEMV_FRAG_X16=0): the fragment GEMV's X as 16-byte loads;
#     build-x16 (=1), build-x16ctl (=1, threshold 99: the old loop, same kernels), build-x16a2 (=1,
#     AHEAD=2: X two segments ahead at M <= 8).
# Run: C_MAIN=<hash> BUDGET=590 bash docs/notes/session18-call2.sh   (steps in priority order; a step
# that would overrun the budget is skipped)
# PREDICTIONS (written before the run; B/A = B's time over A's, < 1: B faster):
# (a) gpu_gemm wgmma_t hash lines of e1 and e2 equal main's (149); gpu_gemm_fragment passes on e1, e2;
#     memcheck / racecheck / synccheck clean on e2's gpu_gemm (wgmma_t, quick).
# (b) v7.6, A = main, B = e1 (--lib-b), fragment weights at M = 64 (14336x4096, 4096x14336,
#     28672x8192): 0.85-0.90 (the LDS latencies, scale chain and SHFLs leave the critical path
#     between wgmma_wait<1> and the next group; run 89: ~542 cycles per K-tile vs 256 of tensor work);
#     17x14336x4096, 128x28672x8192: 0.88-0.95; glm5 64x768x6144 / 64x2048x6144: 0.95-1.0.
#     Standard weights at M = 64: 0.90-0.95. Refuted: fragment M = 64 B/A > 0.97 at any of the three.
# (c) e2 (also the A-stage wait moved): a further 1-3% over e1: B/A vs main 0.83-0.89.
# (d) calibrated vs tuned cuBLASLt (run 76's t_noise and ceilings) with the better of e1 / e2:
#     fragment M = 64 1.335 / 1.420 / 1.330 (run 83) -> ~1.50 / 1.58 / 1.48.
# (e) v10frag: ctest gpu_gemm_fragment, gpu_gemm_fragment_ss2, test_fragment_wtile pass; sanitizers
#     clean with TETRA_GEMM_FRAG_BT256=1 TETRA_GEMM_SS_CLUSTERS=2; with TETRA_GEMM_FRAG_BT256=1,
#     A = tetra-gemm-frag, B = tetra-gemm (standard): 256x14336x4096 1.00 (0.95-1.06), 512x4096x14336
#     1.00, 2048x14336x4096 1.01 (helper's); run 82: 0.787 at the first with BT 128. Refuted < 0.95.
# (f) gx (helper's predictions, its script docs/notes/session18-gx.sh): ctest gpu_gemm_fragment_x16
#     passes (16-byte X == 4-byte X bits); sanitizers clean (MIN_M=1, MAX_M=16); one process,
#     A = build-x16, B = build-x16ctl (old loop), B/A: 2x 1.00, 8x 1.14 (1.06-1.22), 12x 1.18,
#     16x 1.20 (1.10-1.30), 16x28672x8192 1.25 (all x4096x14336 unless named; MAX_M=16). Refuted
#     if 8x < 1.03. AHEAD=2 (A = x16a2, B = x16): 8x 1.04 (0.98-1.10), 2x 1.00.
#     x16 GEMV vs the standard GEMV (MAX_M=16): 8x 1.05, 16x 0.90 (run 88: v7 there 0.918-0.960).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-590}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r90; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r90.tgz.tmp -C $OUT r90 2>/dev/null && mv $OUT/r90.tgz.tmp $OUT/r90.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local dir=$1 tg=$2; shift 2; ( cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" > $R/logs/build-$dir.log 2>&1 &&
  cmake --build $dir -j4 --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) & }
bld build-main "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment test_fragment_wtile"
bld build-e1 "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment" -DTETRA_GEMM_V7_EARLY=1
bld build-e2 "tetra_cli tetra_shared gpu_gemm gpu_gemm_fragment" -DTETRA_GEMM_V7_EARLY=2
bld build-x16 "tetra_cli tetra_shared gpu_gemm_fragment" -DTETRA_GEMV_FRAG_X16=1
bld build-x16ctl tetra_shared -DTETRA_GEMV_FRAG_X16=1 -DTETRA_GEMV_FRAG_X16_MIN_M=99
bld build-x16a2 "tetra_shared gpu_gemm_fragment" -DTETRA_GEMV_FRAG_X16=1 -DTETRA_GEMV_FRAG_X16_AHEAD=2
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"
T=build-main/tetra; export TETRA_COMMIT=$C_MAIN
sanr() { local tag=$1 tool=$2 bin=$3; shift 3; ( env TETRA_TEST_QUICK=1 "$@" timeout 220 compute-sanitizer --tool $tool --error-exitcode 99 $bin > $R/logs/san-$tag-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$tag-$tool.log ) & }
for tool in memcheck racecheck synccheck; do
  sanr e2gemm $tool build-e2/tests/gpu_gemm TETRA_GEMM_TEST_ONLY=wgmma_t
  sanr bt256 $tool build-main/tests/gpu_gemm_fragment TETRA_GEMM_SS_CLUSTERS=2 TETRA_GEMM_FRAG_BT256=1
  sanr x16 $tool build-x16/tests/gpu_gemm_fragment TETRA_GEMV_FRAG_X16_MIN_M=1 TETRA_GEMV_FRAG_MAX_M=16; done
( for b in main e1 e2; do env TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 220 build-$b/tests/gpu_gemm > $R/logs/$b-hash.log 2>&1; done ) &
( for b in e1 e2 x16a2; do env TETRA_GEMV_FRAG_X16_MIN_M=1 TETRA_GEMV_FRAG_MAX_M=16 timeout 200 build-$b/tests/gpu_gemm_fragment > $R/logs/frag-$b.log 2>&1; echo "rc=$?" >> $R/logs/frag-$b.log; done ) &
( timeout 220 ctest --test-dir build-main -R 'gpu_gemm_fragment|test_fragment_wtile' --output-on-failure > $R/logs/ctest-main.log 2>&1; echo "rc=$?" >> $R/logs/ctest-main.log
  timeout 200 ctest --test-dir build-x16 -R 'gpu_gemm_fragment' --output-on-failure > $R/logs/ctest-x16.log 2>&1; echo "rc=$?" >> $R/logs/ctest-x16.log ) &
wait; echo "tests done at $(el) s"; snap
for f in $R/logs/ctest-*.log; do echo "$(basename $f .log): $(grep -E 'tests passed|rc=' $f | tr '\n' ' ')"; grep -E "Failed|\*\*\*|CHECK failed" $f | head -6; done
for f in $R/logs/san-*.log $R/logs/frag-*.log; do echo "$(basename $f .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|checks passed|FAIL' $f | head -3 | tr '\n' ' ')"; done
grep hash $R/logs/main-hash.log | sort > $R/logs/h-main.txt
for b in e1 e2; do grep "all checks passed\|CHECK failed" $R/logs/$b-hash.log | head -3; grep hash $R/logs/$b-hash.log | sort > $R/logs/h-$b.txt
  echo "hash: main $(wc -l < $R/logs/h-main.txt) $b $(wc -l < $R/logs/h-$b.txt) differing: $(comm -3 $R/logs/h-main.txt $R/logs/h-$b.txt | wc -l)"; done
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 20 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150 | head -40; }
ab="--blocks 5 --no-replicate --graph-below-us 400"
M64=64x14336x4096,64x4096x14336,64x28672x8192
step early-frag 60 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-e1/libtetra.so --shape $M64,17x14336x4096,128x28672x8192,64x2048x6144 $ab --out $R/results/v76-fragment.json
step early2-frag 45 $T bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-e2/libtetra.so --shape $M64,17x14336x4096 $ab --out $R/results/v76b-fragment.json
step x16-vs-ctl 45 env TETRA_GEMV_FRAG_MAX_M=16 build-x16/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-b build-x16ctl/libtetra.so --shape 2x4096x14336,8x4096x14336,12x4096x14336,16x4096x14336,16x28672x8192 $ab --out $R/results/x16-vs-ctl.json
step bt256-frag 60 env TETRA_GEMM_FRAG_BT256=1 $T bench --a tetra-gemm-frag --b tetra-gemm --shape 256x14336x4096,512x4096x14336,2048x14336x4096 $ab --out $R/results/frag-bt256-vs-standard.json
W=$(python3 -c "
import json
def m(f):
    try: r=json.load(open(f))['results'][:3]; return sum(x['ratio'] for x in r)/len(r)
    except Exception: return 9
a,b=m('$R/results/v76-fragment.json'),m('$R/results/v76b-fragment.json'); print('e1' if a<=b else 'e2')")
echo "calibrating build-$W"; C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
step early-cal 75 build-$W/tetra bench --a tetra-gemm-frag --b cublaslt-bf16-tuned --shape $M64,64x768x6144,64x2048x6144 --ceilings $C76/ceilings.json --calibration $C76/calibration.json --blocks 10 --no-replicate --graph-below-us 400 --out $R/results/v76-$W-fragment-calibrated.json
step early-std 40 $T bench --a tetra-gemm --b tetra-gemm --lib-b build-$W/libtetra.so --shape $M64 $ab --out $R/results/v76-$W-standard.json
step x16-vs-std 40 env TETRA_GEMV_FRAG_MAX_M=16 build-x16/tetra bench --a tetra-gemm-frag --b tetra-gemm --shape 8x4096x14336,12x4096x14336,16x4096x14336,16x28672x8192 $ab --out $R/results/x16-vs-std.json
step a2-vs-x16 35 env TETRA_GEMV_FRAG_MAX_M=16 build-x16/tetra bench --a tetra-gemm-frag --b tetra-gemm-frag --lib-a build-x16a2/libtetra.so --lib-b build-x16/libtetra.so --shape 2x4096x14336,8x4096x14336 $ab --out $R/results/x16a2-vs-x16.json
echo "total $(el) s"; snap; rm -rf $OUT/r90
