#!/usr/bin/env bash
# session 6, call 4: n9gemv (X from shared memory, .scratch-n9) beside main (.scratch-main):
# gpu_gemv with output hashes in both (must be equal except the branch's own "xs" cases),
# then a cross-build A/B against cuBLASLt BF16 (main, branch, main) and W4A4 vs W4A16.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-235}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r4; mkdir -p $R/logs
snap() { tar czf $OUT/r4.tgz.tmp -C $OUT r4 2>/dev/null && mv $OUT/r4.tgz.tmp $OUT/r4.tgz; }
for t in main n9; do ( cmake -S .scratch-$t -B .scratch-$t/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-$t.log 2>&1 && cmake --build .scratch-$t/b -j8 --target tetra_cli gpu_gemv >> $R/logs/build-$t.log 2>&1; echo "rc=$?" >> $R/logs/build-$t.log ) & done; wait
echo "builds at $(el) s: $(tail -1 $R/logs/build-main.log) $(tail -1 $R/logs/build-n9.log)"
pids=()
for t in main n9; do ( TETRA_GEMV_TEST_HASH=1 stdbuf -oL timeout 110 .scratch-$t/b/tests/gpu_gemv > $R/logs/gemv-$t.log 2>&1; echo "rc=$?" >> $R/logs/gemv-$t.log ) & pids+=($!); done
wait "${pids[@]}"; echo "tests at $(el) s"
for t in main n9; do echo "gemv-$t: $(grep -c ' hash ' $R/logs/gemv-$t.log) hash, $(grep -c FAIL $R/logs/gemv-$t.log) FAIL, $(tail -2 $R/logs/gemv-$t.log | tr '\n' ' ')"; done
echo "hash lines of main missing in n9: $(LC_ALL=C comm -23 <(grep ' hash ' $R/logs/gemv-main.log | LC_ALL=C sort) <(grep ' hash ' $R/logs/gemv-n9.log | LC_ALL=C sort) | wc -l)"
grep -E 'xs .*(bit-identical|DIFFER)' $R/logs/gemv-n9.log | head -20; snap
ok() { grep -q 'all checks passed' $R/logs/gemv-n9.log; }
ab() { local tag=$1 t=$2 lim=$3; shift 3; [ $(left) -lt $(( lim + 5 )) ] && { echo "$tag SKIPPED"; return; }
  TETRA_COMMIT=$tag stdbuf -oL timeout $lim .scratch-$t/b/tetra bench "$@" --no-replicate --out $R/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-112; snap; }
S="1x28672x8192,8x28672x8192,16x28672x8192,1x14336x4096,1x4096x14336,1x7168x16384,1x4096x2048,1x4096x4096,8x4096x4096,16x4096x4096,1x768x6144,1x2048x6144"
ok && { ab gv-main-1 main 35 --shape $S --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
        ab gv-n9-1 n9 35 --shape $S --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
        ab gv-main-2 main 35 --shape $S --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
        ab w4-n9 n9 20 --shape 1x28672x8192,1x14336x4096,1x4096x14336,1x7168x16384 --a tetra-gemm-w4a4 --b tetra-gemm --graph-below-us 400 --blocks 6; }
echo "total $(el) s"; snap; rm -rf $OUT/r4
