#!/usr/bin/env bash
# session 6, call 5: Nsight Compute of n9gemv (.scratch-n9) and main at 1x28672x8192 M=1: where
# the stall went when X comes from shared memory (the branch was 8% slower in call 4).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); R=$OUT/r5; mkdir -p $R
for t in main n9; do ( cmake -S .scratch-$t -B .scratch-$t/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/build-$t.log 2>&1 && cmake --build .scratch-$t/b -j8 --target tetra_cli >> $R/build-$t.log 2>&1; echo "rc=$?" >> $R/build-$t.log ) & done; wait
echo "builds at $(( $(date +%s) - t0 )) s"
NCU="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section SourceCounters --section Occupancy --section MemoryWorkloadAnalysis --print-details all"
for t in n9 main; do
  timeout 50 ncu --kernel-name regex:gemv_nvfp4_mma --launch-skip 3 --launch-count 1 $NCU -o $R/ncu-$t .scratch-$t/b/tetra bench --shape 1x28672x8192 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate > $R/ncu-$t-run.txt 2>&1
  ncu -i $R/ncu-$t.ncu-rep $NCU > $R/ncu-$t-details.txt 2>&1
  ncu -i $R/ncu-$t.ncu-rep --page source --csv --print-source sass > $R/ncu-$t-sass.csv 2>&1; rm -f $R/ncu-$t.ncu-rep
  echo "$t at $(( $(date +%s) - t0 )) s: $(grep -E 'Duration|DRAM Throughput' $R/ncu-$t-details.txt | head -2 | tr -s ' ' | tr '\n' ' ')"
done
tar czf $OUT/r5.tgz -C $OUT r5; rm -rf $OUT/r5
