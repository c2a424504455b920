#!/usr/bin/env bash
# session 7, call 1: attention tile order (n11attn: non-causal query blocks fastest) beside
# main, cross-build A/B against cuDNN (ABA), ncu L2/DRAM of the portable kernel at N=16384 in
# both trees, their attention tests with hashes, then tetra tune on main with seed000 held out.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-580}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r1; mkdir -p $R/logs
snap() { tar czf $OUT/r1.tgz.tmp -C $OUT r1 2>/dev/null && mv $OUT/r1.tgz.tmp $OUT/r1.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local t=$1; shift
  ( cmake -S .scratch-$t -B .scratch-$t/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-$t.log 2>&1 &&
    cmake --build .scratch-$t/b -j8 --target "$@" >> $R/logs/build-$t.log 2>&1; echo "rc=$?" >> $R/logs/build-$t.log ) & }
bld main tetra_cli gpu_attention
bld attn tetra_cli gpu_attention
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
declare -A C=([main]=$C_MAIN [attn]=$C_ATTN)
ab() { local tag=$1 t=$2 lim=$3; shift 3
  [ $(left) -lt $(( lim + 10 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  TETRA_COMMIT=${C[$t]} stdbuf -oL timeout $lim .scratch-$t/b/tetra bench "$@" --no-replicate --out $R/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
AT="2048x16x128x2,8192x16x128x2,16384x16x128x2"
for t in main attn main; do
  i=$(( ${i:-0} + 1 ))
  ab at-$t-$i $t 75 --shape $AT --a tetra-attention --b cudnn-sdpa,tetra-attention-portable --blocks 6
done
NCU="--section SpeedOfLight --section MemoryWorkloadAnalysis --print-details all"
for t in main attn; do
  [ $(left) -gt 200 ] || break
  timeout 45 ncu --kernel-name regex:attention_fwd_mma --launch-skip 1 --launch-count 1 $NCU .scratch-$t/b/tetra bench --shape 16384x16x128x2 --a tetra-attention-portable --b tetra-attention-portable --blocks 1 --no-replicate > $R/ncu-portable-16384-$t.txt 2>&1
  echo "ncu $t rc=$? at $(el) s"; grep -E "L2 Hit Rate|DRAM Throughput|Memory Throughput|Duration|dram__bytes" $R/ncu-portable-16384-$t.txt | head -8
done
snap
lim=$(( $(left) - 240 )); [ $lim -gt 100 ] && lim=100
if [ $lim -gt 30 ]; then
  ( TETRA_ATTN_TEST_HASH=1 timeout $lim .scratch-main/b/tests/gpu_attention > $R/logs/t-attn-main.log 2>&1; echo "rc=$?" >> $R/logs/t-attn-main.log ) &
  ( TETRA_ATTN_TEST_HASH=1 timeout $lim .scratch-attn/b/tests/gpu_attention > $R/logs/t-attn-attn.log 2>&1; echo "rc=$?" >> $R/logs/t-attn-attn.log ) &
  wait; echo "tests done at $(el) s"
  for t in main attn; do f=$R/logs/t-attn-$t.log; echo "$t: $(grep -c hash $f) hash lines, $(grep -c FAIL $f) FAIL, $(tail -1 $f)"; done
  grep hash $R/logs/t-attn-main.log | LC_ALL=C sort > $R/logs/h-main.txt; grep hash $R/logs/t-attn-attn.log | LC_ALL=C sort > $R/logs/h-attn.txt
  echo "hash lines of main missing in attn: $(LC_ALL=C comm -23 $R/logs/h-main.txt $R/logs/h-attn.txt | wc -l)"
fi
snap
lim=$(( $(left) - 5 ))
if [ $lim -gt 60 ]; then
  TETRA_COMMIT=$C_MAIN stdbuf -oL timeout $lim .scratch-main/b/tetra tune --set tune --holdout-set decode,glm5-tp8,moe,seed000 --out $R/dispatch-table.txt --json $R/tune.json > $R/logs/tune.log 2>&1
  echo "tune rc=$? at $(el) s"; tail -4 $R/logs/tune.log | cut -c1-200
fi
echo "total $(el) s"; snap; rm -rf $OUT/r1
