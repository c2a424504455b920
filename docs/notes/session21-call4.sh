#!/usr/bin/env bash
# Session 21 call 4 (run 106): main with W4A4 PDL on by default (e3ec93b): the whole ctest; the
# wgmma issue-rate probe (docs/notes/wgmma-rate.cu); W4A4 seed000 against cuBLAS.
# Run from the repo root of main: C_MAIN=<hash> BUDGET=380 bash docs/notes/session21-call4.sh
# PREDICTIONS (written before the run):
# (0) ctest: every test passes (36: run 104's 35 + gpu_gemm_w4pdl, + its variant).
# (1) wgmma-rate: SS m64n256k16 with 2 warpgroups near the dense rate (>= 90%: ~128-142 cycles per
#     wgmma per SM). The question is RS m64n64k16 (v7's instruction at BT 64). Run 105 (v7.12, two
#     independent chains per row block: 0.986-0.998x) and run 41 (two CTAs per SM: ~5%) say the
#     SM's rate does not move with more warps, so: RS n64 with 2 warpgroups at <= 60% of the dense
#     rate (>= ~53 cycles per wgmma per SM), and the same with 4 warpgroups (no gain from more
#     issuers). Then v7's 8 wgmmas per K-tile take >= ~430 of the 548-cycle period: the K loop at
#     M = 64 is bound by the tensor pipe's rate for this form, and 1.8x cuBLAS is out of reach of
#     any RS-n64 kernel. If RS n64 reaches >= 85% (~38 cycles), the bound is elsewhere (the chain).
#     RS n128 / n256 between.
# (2) W4A4 seed000 (fragment weights) against tuned cuBLAS BF16: run 95's ratios / run 105's
#     factors: 1024x4096x4096 ~0.88, 2048x14336x4096 ~0.884, 4096^3 ~0.89 (each +-2%).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-380}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r106; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r106.tgz.tmp -C $OUT r106 2>/dev/null && mv $OUT/r106.tgz.tmp $OUT/r106.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 docs/notes/wgmma-rate.cu -o /tmp/wgmma-rate > $R/logs/probe-build.log 2>&1; echo "rc=$?" >> $R/logs/probe-build.log ) &
( cmake -S . -B build-main -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-main.log 2>&1
  cmake --build build-main -j15 >> $R/logs/build-main.log 2>&1; echo "rc=$?" >> $R/logs/build-main.log ) &
wait; echo "builds: probe $(tail -n1 $R/logs/probe-build.log), main $(tail -n1 $R/logs/build-main.log) at $(el) s; $(grep -E '^TETRA_GEMM_W4A4_PDL|^TETRA_GEMV_PDL_ALL|^TETRA_GEMM_V7_CW4' build-main/CMakeCache.txt | tr '\n' ' ')"; snap
timeout 60 /tmp/wgmma-rate > $R/logs/wgmma-rate.log 2>&1; echo "probe rc=$? at $(el) s"; cat $R/logs/wgmma-rate.log; snap
l=$(( $(left) - 70 )); [ $l -gt 230 ] && l=230
( cd build-main && timeout $l ctest -j4 --output-on-failure > $R/logs/ctest-main.log 2>&1; echo "rc=$?" >> $R/logs/ctest-main.log )
echo "ctest at $(el) s: $(grep -E 'tests passed|tests failed|rc=' $R/logs/ctest-main.log | tr '\n' ' ')"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/logs/ctest-main.log | head; snap
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
C76=docs/results/h200-2026-12-01/run76-s16-libaa-v75-glm5-midm/results
l=$(( $(left) - 3 ))
[ $l -gt 20 ] && stdbuf -oL timeout $l build-main/tetra bench --a tetra-gemm-w4a4-frag --b cublaslt-bf16-tuned --shape 1024x4096x4096,2048x14336x4096,4096x4096x4096 \
  --ceilings $C76/ceilings.json --calibration $C76/calibration.json --no-replicate --blocks 3 --out $R/results/w4a4-frag-seed000.json > $R/logs/w4a4.log 2>&1
echo "w4a4 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/w4a4.log | cut -c1-150
echo "total $(el) s"; snap; rm -rf $OUT/r106
