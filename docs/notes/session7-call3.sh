#!/usr/bin/env bash
# session 7, call 3: GEMM v10 (n11xform, transform stage + SS wgmma at BT 256) merged onto
# main (cand11) beside main: cross-build ABA against cuBLAS, then wgmma_t tests with hashes,
# gpu_nonfinite, racecheck + synccheck of the candidate, and ncu of v10 at 4096^3 if time is left.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-330}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r3; mkdir -p $R/logs
snap() { tar czf $OUT/r3.tgz.tmp -C $OUT r3 2>/dev/null && mv $OUT/r3.tgz.tmp $OUT/r3.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local t=$1; shift
  ( cmake -S .scratch-$t -B .scratch-$t/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-$t.log 2>&1 &&
    cmake --build .scratch-$t/b -j8 --target "$@" >> $R/logs/build-$t.log 2>&1; echo "rc=$?" >> $R/logs/build-$t.log ) & }
bld main tetra_cli gpu_gemm
bld cand tetra_cli gpu_gemm gpu_nonfinite
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
declare -A C=([main]=$C_MAIN [cand]=$C_CAND)
ab() { local tag=$1 t=$2 lim=$3; shift 3
  [ $(left) -lt $(( lim + 10 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  TETRA_COMMIT=${C[$t]} stdbuf -oL timeout $lim .scratch-$t/b/tetra bench "$@" --no-replicate --out $R/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
GM="4096x4096x4096,8192x8192x8192,2048x14336x4096,1024x4096x4096,4096x4096x14336,512x4096x14336"
ab gm-main-1 main 50 --shape $GM --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6
ab gm-cand-2 cand 50 --shape $GM --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6
ab gm-main-3 main 50 --shape $GM --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6
lim=$(( $(left) - 50 )); [ $lim -gt 130 ] && lim=130
if [ $lim -gt 40 ]; then
  run_t() { local name=$1; shift; ( stdbuf -oL timeout $lim "$@" > $R/logs/$name.log 2>&1; echo "rc=$?" >> $R/logs/$name.log ) & }
  run_t t-gemm-main env TETRA_GEMM_TEST_ONLY=wgmma_t TETRA_GEMM_TEST_HASH=1 .scratch-main/b/tests/gpu_gemm
  run_t t-gemm-cand env TETRA_GEMM_TEST_ONLY=wgmma_t TETRA_GEMM_TEST_HASH=1 .scratch-cand/b/tests/gpu_gemm
  run_t t-nonfinite-cand .scratch-cand/b/tests/gpu_nonfinite
  run_t san-race-cand env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t compute-sanitizer --tool racecheck --error-exitcode 99 .scratch-cand/b/tests/gpu_gemm
  run_t san-sync-cand env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t compute-sanitizer --tool synccheck --error-exitcode 99 .scratch-cand/b/tests/gpu_gemm
  run_t san-mem-cand env TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t compute-sanitizer --tool memcheck --error-exitcode 99 .scratch-cand/b/tests/gpu_gemm
  wait; echo "tests done at $(el) s"
  for f in $R/logs/t-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'hash' $f) hash lines, $(grep -c FAIL $f) FAIL, '$(grep -Eo 'all checks passed' $f | head -1)' $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1) $(tail -1 $f)"; done
  grep hash $R/logs/t-gemm-main.log | LC_ALL=C sort > $R/logs/h-main.txt; grep hash $R/logs/t-gemm-cand.log | LC_ALL=C sort > $R/logs/h-cand.txt
  echo "hash lines main $(wc -l < $R/logs/h-main.txt), cand $(wc -l < $R/logs/h-cand.txt); main's missing in cand: $(LC_ALL=C comm -23 $R/logs/h-main.txt $R/logs/h-cand.txt | wc -l)"
  LC_ALL=C comm -23 $R/logs/h-main.txt $R/logs/h-cand.txt | head -5
  grep -i "nan column" $R/logs/t-nonfinite-cand.log | head -3; grep -h FAIL $R/logs/t-*.log | head -5
fi
snap
if [ $(left) -gt 45 ]; then
  timeout 35 ncu --kernel-name regex:gemm_wgmma_t --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats --print-details all .scratch-cand/b/tetra bench --shape 4096x4096x4096 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate > $R/ncu-cand-4096.txt 2>&1
  echo "ncu rc=$? at $(el) s"; grep -E "Duration|Compute \(SM\) Throughput|Stall" $R/ncu-cand-4096.txt | head -12
fi
echo "total $(el) s"; snap; rm -rf $OUT/r3
