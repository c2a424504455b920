#!/usr/bin/env bash
# session 7, call 2: n11gemv (interleaved prepared weights) and n11disp (wgmma-T tile choice)
# beside main. GEMV: same-binary pairing interleaved vs standard W (+ cuBLAS in the run);
# dispatcher: cross-build ABA against cuBLAS. Then tests (hashes) of both branches.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-400}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r2; mkdir -p $R/logs
snap() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 2>/dev/null && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local t=$1; shift
  ( cmake -S .scratch-$t -B .scratch-$t/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build-$t.log 2>&1 &&
    cmake --build .scratch-$t/b -j6 --target "$@" >> $R/logs/build-$t.log 2>&1; echo "rc=$?" >> $R/logs/build-$t.log ) & }
bld main tetra_cli gpu_gemv gpu_gemm
bld gv tetra_cli gpu_gemv gpu_interleaved test_interleaved_layout
bld disp tetra_cli gpu_gemm
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
declare -A C=([main]=$C_MAIN [gv]=$C_GV [disp]=$C_DISP)
ab() { local tag=$1 t=$2 lim=$3; shift 3
  [ $(left) -lt $(( lim + 10 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  TETRA_COMMIT=${C[$t]} stdbuf -oL timeout $lim .scratch-$t/b/tetra bench "$@" --no-replicate --out $R/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
GV="1x28672x8192,1x14336x4096,1x4096x14336,1x7168x16384,1x4096x4096,8x28672x8192,8x14336x4096,8x4096x14336,8x7168x16384,8x4096x4096,16x28672x8192,16x14336x4096,16x4096x14336,16x7168x16384,16x4096x4096,1x768x6144,1x2048x6144,1x4096x2048"
ab gv-il gv 90 --shape $GV --a tetra-gemm-gemv-interleaved --b tetra-gemm,cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
ab gv-main main 60 --shape $GV --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
DS="512x3072x3072,128x6144x2048,256x6144x2048,256x768x6144,512x768x6144,256x2048x6144,1024x2048x6144,256x3072x3072,1024x3072x3072,4096x4096x4096"
ab ds-main-1 main 40 --shape $DS --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
ab ds-disp-2 disp 40 --shape $DS --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
ab ds-main-3 main 40 --shape $DS --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
lim=$(( $(left) - 10 ))
if [ $lim -gt 40 ]; then
  run_t() { local name=$1; shift; ( stdbuf -oL timeout $lim "$@" > $R/logs/$name.log 2>&1; echo "rc=$?" >> $R/logs/$name.log ) & }
  run_t t-gemv-main env TETRA_GEMV_TEST_HASH=1 .scratch-main/b/tests/gpu_gemv
  run_t t-gemv-gv env TETRA_GEMV_TEST_HASH=1 .scratch-gv/b/tests/gpu_gemv
  run_t t-il-gv .scratch-gv/b/tests/gpu_interleaved
  run_t t-ilcpu-gv .scratch-gv/b/tests/test_interleaved_layout
  run_t t-gemm-disp .scratch-disp/b/tests/gpu_gemm
  wait; echo "tests done at $(el) s"
  for f in $R/logs/t-*.log; do echo "$(basename $f .log): $(grep -c 'hash' $f) hash lines, $(grep -c FAIL $f) FAIL, '$(grep -Eo 'all checks passed' $f | head -1)' $(tail -1 $f)"; done
  grep '^  hash ' $R/logs/t-gemv-main.log | LC_ALL=C sort > $R/logs/h-main.txt; grep '^  hash ' $R/logs/t-gemv-gv.log | LC_ALL=C sort > $R/logs/h-gv.txt
  echo "gemv hash lines main $(wc -l < $R/logs/h-main.txt), gv $(wc -l < $R/logs/h-gv.txt); main's missing in gv: $(LC_ALL=C comm -23 $R/logs/h-main.txt $R/logs/h-gv.txt | wc -l)"
  grep 'interleaved W' $R/logs/t-gemv-gv.log | grep -v 'bit-identical\|yes\|pass' | head -5
  grep -h FAIL $R/logs/t-*.log | head -10
fi
echo "total $(el) s"; snap; rm -rf $OUT/r2
