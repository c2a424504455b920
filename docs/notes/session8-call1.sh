#!/usr/bin/env bash
# session 8, call 1 (attention): main at $C_MAIN (tile order merged, 9697419) and n12attn rebased
# on main ($C_ATTN) at TETRA_ATTN_PV_SPLIT=1/2. Cross-build ABA of the portable kernel against
# cuDNN (m b2 m b1 m) at N = 8192/16384 non-causal; gpu_attention hashes of the three builds;
# then ceilings + calibration and the calibrated non-causal attention set at main (issue 6's
# last target) and the causal N = 16384 pair.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-570}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r1; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r1.tgz.tmp -C $OUT r1 2>/dev/null && mv $OUT/r1.tgz.tmp $OUT/r1.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local t=$1 d=$2 fl=$3; shift 3
  ( cmake -S .scratch-$t -B .scratch-$t/$d -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a ${fl:+"-DCMAKE_CUDA_FLAGS=$fl"} > $R/logs/build-$t-$d.log 2>&1 &&
    cmake --build .scratch-$t/$d -j6 --target "$@" >> $R/logs/build-$t-$d.log 2>&1; echo "rc=$?" >> $R/logs/build-$t-$d.log ) & }
bld main b "" tetra_cli gpu_attention
bld attn b1 "-DTETRA_ATTN_PV_SPLIT=1" tetra_cli gpu_attention
bld attn b2 "-DTETRA_ATTN_PV_SPLIT=2" tetra_cli gpu_attention
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
declare -A D=([m]=.scratch-main/b [b1]=.scratch-attn/b1 [b2]=.scratch-attn/b2)
declare -A C=([m]=$C_MAIN [b1]=$C_ATTN [b2]=$C_ATTN)
ab() { local tag=$1 t=$2 lim=$3; shift 3
  [ $(left) -lt $(( lim + 10 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  echo "$tag: ${D[$t]}/tetra bench $*" >> $R/logs/commands.txt
  TETRA_COMMIT=${C[$t]} stdbuf -oL timeout $lim ${D[$t]}/tetra bench "$@" --no-replicate --out $R/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
S=8192x16x128x2,16384x16x128x2
i=0; for t in m b2 m b1; do i=$((i+1)); ab nc$i-$t $t 50 --shape $S --a tetra-attention-portable --b cudnn-sdpa --blocks 6; done
# hashes of the three builds, in parallel (the GPU is shared only among these)
for t in m b1 b2; do ( TETRA_ATTN_TEST_HASH=1 timeout 120 ${D[$t]}/tests/gpu_attention > $R/logs/hash-$t.log 2>&1; echo "rc=$?" >> $R/logs/hash-$t.log ) & done
wait; echo "hash runs done at $(el) s"
for t in m b1 b2; do f=$R/logs/hash-$t.log; echo "$t: $(grep -c hash $f) hash lines, $(grep -c FAIL $f) FAIL, $(tail -2 $f | tr '\n' ' ')"; done
for t in b1 b2; do echo "$t hash lines differing from m: $(LC_ALL=C comm -3 <(grep hash $R/logs/hash-m.log | LC_ALL=C sort) <(grep hash $R/logs/hash-$t.log | LC_ALL=C sort) | wc -l)"; done
snap
T=.scratch-main/b/tetra; res=$R/results; export TETRA_COMMIT=$C_MAIN
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150; }
step ceilings 25 $T bench ceilings --out $res/ceilings.json
step calibrate 45 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
step attention 120 $T bench --set attention --a tetra-attention --b cudnn-sdpa,tetra-attention-portable $cal --out $res/attention.json
step attention-causal 80 $T bench --shape 16384x16x128x2,8192x16x128x2 --a tetra-attention-causal --b cudnn-sdpa-causal,tetra-attention-portable-causal $cal --out $res/attention-causal.json
echo "total $(el) s"; snap; rm -rf $OUT/r1
