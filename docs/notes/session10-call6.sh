#!/usr/bin/env bash
# session 10, call 6: main at $C_MAIN (tetra_cli, sm_90a). tetra tune's exhaustive sweep at the
# last two seed000 shapes (8192x28672x8192, 16384^3), held out: which configuration is best
# there, and does the rules' choice (wgmma_t/256/0 by the code) equal it. Timing spread of one
# kernel at these sizes is ~6% (run 42), so the choice is what this run can settle.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/r6; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r6.tgz.tmp -C $OUT r6 2>/dev/null && mv $OUT/r6.tgz.tmp $OUT/r6.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S .scratch-main -B .scratch-main/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build .scratch-main/b -j16 --target tetra_cli >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build done at $(el) s: $(tail -1 $R/logs/build.log)"
export TETRA_COMMIT=$C_MAIN
echo "tune: .scratch-main/b/tetra tune --shape 1x3072x3072 --holdout-shape 8192x28672x8192,16384x16384x16384" >> $R/logs/commands.txt
( sleep 5; while sleep 20; do snap; done ) & SNAP=$!
timeout 430 stdbuf -oL .scratch-main/b/tetra tune --shape 1x3072x3072 --holdout-shape 8192x28672x8192,16384x16384x16384 --out $R/results/dispatch-table-1shape-large.txt --json $R/results/tune-holdout-large.json > $R/logs/tune-large.log 2>&1
echo "== tune rc=$? at $(el) s"; kill $SNAP 2>/dev/null; cut -c1-200 $R/logs/tune-large.log | grep -v "^\s*$" | tail -10
echo "total $(el) s"; snap; rm -rf $OUT/r6
