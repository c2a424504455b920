#!/usr/bin/env bash
# Session 22 call 1 (run 107): where v7's M = 64 time goes (stale-stage DIAG modes, ncu's memory
# sections, the L2 -> SM feed probe), the GEMV / v7 switch on fragment weights at M = 8..16, and
# the wgmma + dequant overlap probe.
# Run from the repo root of main: C_MAIN=<hash> BUDGET=570 bash docs/notes/session22-call1.sh
# PREDICTIONS (written before the run):
# (1) DIAG build (-DTETRA_GEMM_DIAG), v7 at 64x14336x4096 / 64x4096x14336 / 64x28672x8192, fragment
#     weights, eager median of 7 x 20 calls (docs/notes/v7-trace.c); modes (timing only, wrong bits):
#     0 = main's kernel (within 1% of build-main's plain driver: the DIAG switch is a runtime
#     branch in the producers only); 9 = each A stage loaded once, then stale (no A traffic from
#     L2 after the first SA stages); 10 = each raw weight stage loaded once (no weight traffic
#     from HBM); 11 = both; 1 = no dequantization (nor its LDS).
#     If A's L2 feed bounds v7 (session 21's candidate), mode 9 takes >= 15% off; our prior
#     (v7.10 removed the A multicast pair, doubling A's L2 reads, and got 1.5-1.9% FASTER) is that
#     mode 9 and mode 10 each move the time by < 5%, and mode 11 by < 8%: the bound is inside
#     the SM. Mode 1 (no dequant) was 16% (run 73, older kernel); now predicted 20-35% off.
# (2) ncu (SpeedOfLight + MemoryWorkloadAnalysis) at 64x14336x4096: L2 throughput < 60% of peak,
#     DRAM ~35-45% of peak (29 MB of weights in ~20 us).
# (3) l2-feed probe (docs/notes/gemm-sm90.md, last section): shared-mode best row >= 6 TB/s at
#     112 CTAs if the L2 -> SM fabric is not v7's bound; hbm mode's best row 3.9-4.4 TB/s.
# (4) GEMV (A: tetra-gemm-frag, AUTO) against v7 (B: tetra-gemm-frag-wgmma-t) at M = 8 / 12 / 16,
#     one process, paired: B/A at 16x14336x4096 ~0.82 (run 104: 20.28 against 24.66 us, unpaired);
#     at the other (N, K) the GEMV wins at M = 16 (B/A > 1); at M = 8 the GEMV wins everywhere.
# (The sanitizer runs moved to call 2 when device starts failed and cost 360 s of the budget.)
RUN=r107 . docs/notes/device-lib.sh
N=docs/notes
bld build-main 10 "tetra_cli tetra_static gpu_gemm_fragment gpu_gemm_pdl gpu_gemm gpu_gemv"
bld build-diag 6 "tetra_static" "-DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_DIAG"
( nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o /tmp/l2feed $N/l2-feed.cu > $R/logs/build-l2feed.log 2>&1;
  echo "rc=$?" >> $R/logs/build-l2feed.log ) &
( nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o /tmp/wgmix $N/wgmma-mix.cu > $R/logs/build-wgmix.log 2>&1;
  echo "rc=$?" >> $R/logs/build-wgmix.log ) &
wait; echo "builds: $(tail -qn1 $R/logs/build-*.log | tr '\n' ' ') at $(el) s"; snap
for b in main diag; do
  gcc -std=c11 -O2 -I include -I /usr/local/cuda/include $N/v7-trace.c -L build-$b -l:libtetra.a -L /usr/local/cuda/lib64 \
    -lcudart -lstdc++ -lm -ldl -lpthread -o build-$b/v7drv > $R/logs/drv-$b.log 2>&1; echo "drv $b rc=$?"; done
# (3) the L2 -> SM feed probe
step l2feed 40 /tmp/l2feed
cp $R/logs/l2feed.log $R/results/l2feed.csv
# (3b) the wgmma + dequant overlap probe (docs/notes/wgmma-mix.cu; predictions in gemm-sm90.md's
#      last section: T ~256, D 170-250, RS-TD either ~T + D (serialized) or ~max(T, D))
step wgmix 30 /tmp/wgmix
cp $R/logs/wgmix.log $R/results/wgmma-mix.csv
# (1) DIAG modes, order-balanced around the middle; build-main's plain driver at both ends
S3="64x14336x4096 64x4096x14336 64x28672x8192"
i=0
for md in plain 0 9 10 11 1 1 11 10 9 0 plain; do
  i=$((i + 1))
  if [ $md = plain ]; then step diag-$i-plain 30 build-main/v7drv x $S3
  else step diag-$i-m$md 30 env TETRA_GEMM_DIAG_MODE=$md build-diag/v7drv x $S3; fi
  grep median $R/logs/diag-$i-*.log | sed "s/^/  mode $md: /"
done
# (2) ncu at 64x14336x4096: main's kernel
NC="--clock-control none --kernel-name regex:gemm_wgmma_t --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis"
step ncu-main 60 ncu $NC build-main/v7drv x 64x14336x4096
for f in ncu-main; do echo "-- $f"; grep -E "Duration|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Mem Busy|Max Bandwidth|Mem Pipes Busy|L2 Hit Rate" $R/logs/$f.log | head -12; done
# (4) the GEMV / v7 switch on fragment weights
export TETRA_COMMIT=${C_MAIN:?pass C_MAIN}
T=build-main/tetra
SX=""
for m in 8 12 16; do for nk in 4096x4096 14336x4096 4096x14336 28672x8192 7168x16384 768x6144 2048x6144; do SX="$SX,${m}x$nk"; done; done
step switch 120 $T bench --a tetra-gemm-frag --b tetra-gemm-frag-wgmma-t --shape ${SX#,} --blocks 3 --no-replicate \
  --graph-below-us 400 --out $R/results/gemv-v7-switch-frag.json
echo "total $(el) s"; snap; rm -rf $OUT/$RUNNAME
