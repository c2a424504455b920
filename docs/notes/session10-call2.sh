#!/usr/bin/env bash
# session 10, call 2. Trees (git archive, docs/results removed, carried): .scratch-main (main
# $C_MAIN: the reference: v7 BT 64 at one CTA per SM, the GEMV reduce launched plainly),
# .scratch-b64 (branch b64x2 $C_B64, built with -DTETRA_GEMM_T64_TWO_PER_SM=1: v7 BT 64 with
# two CTAs per SM), .scratch-pdl (branch gemvpdl $C_PDL, default build: the GEMV's split-K
# reduce kernel as a programmatic dependent launch).
# Predictions (written before this run):
# - b64x2 (docs/notes/gemm-sm90.md "v7 BT 64, two CTAs per SM"): vs the 1-per-SM kernel
#   64x14336x4096 0.73 of the time, 64x4096x14336 0.76, 64x28672x8192 0.63, 64x768x6144 1.00,
#   64x2048x6144 0.91, 32x14336x4096 ~0.70; refuted if 64x14336x4096 and 64x28672x8192 both
#   >= 0.90. Pinned hash lines identical to main's.
# - gemvpdl (docs/notes/gemv.md "Session 10"): see the branch's prediction; shapes with <= 2
#   splits unchanged within noise; hash lines equal to main's.
# Order: builds; tests with hashes; benches (cross-build, each vs cuBLAS; GEMV ABA
# main/pdl/main); ncu per-instruction stall samples of v10.1 at 4096^3; sanitizers if time.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r2; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 2>/dev/null && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
bld() { local t=$1 d=$2 fl=$3 j=$4; shift 4
  ( cmake -S .scratch-$t -B .scratch-$t/$d -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $fl > $R/logs/build-$t-$d.log 2>&1 &&
    cmake --build .scratch-$t/$d -j$j --target "$@" >> $R/logs/build-$t-$d.log 2>&1; echo "rc=$?" >> $R/logs/build-$t-$d.log ) & }
bld main b "" 6 tetra_cli gpu_gemm gpu_gemv
bld b64 b2 "-DTETRA_GEMM_T64_TWO_PER_SM=1" 5 tetra_cli gpu_gemm
bld pdl b "" 5 tetra_cli gpu_gemv
wait; echo "builds done at $(el) s"; for f in $R/logs/build-*.log; do echo "$(basename $f) $(tail -1 $f)"; done; snap
for p in "gemm-m:.scratch-main/b/tests/gpu_gemm:TETRA_GEMM_TEST_ONLY=wgmma_t" "gemm-b64:.scratch-b64/b2/tests/gpu_gemm:TETRA_GEMM_TEST_ONLY=wgmma_t" \
         "gemv-m:.scratch-main/b/tests/gpu_gemv:" "gemv-pdl:.scratch-pdl/b/tests/gpu_gemv:"; do
  IFS=: read n b v <<< "$p"
  ( env TETRA_GEMM_TEST_HASH=1 TETRA_GEMV_TEST_HASH=1 ${v:+$v} timeout 200 $b > $R/logs/t-$n.log 2>&1; echo "rc=$?" >> $R/logs/t-$n.log ) &
done
wait; echo "tests done at $(el) s"
for f in $R/logs/t-*.log; do echo "$(basename $f .log): $(grep -ci 'fail' $f) fail lines; $(tail -2 $f | tr '\n' ' ')"; done
echo "main's pinned wgmma_t hash lines missing from b64's output: $(grep ' pinned ' $R/logs/t-gemm-m.log | sort > $R/logs/p-m; grep ' pinned ' $R/logs/t-gemm-b64.log | sort > $R/logs/p-b; comm -23 $R/logs/p-m $R/logs/p-b | wc -l) of $(wc -l < $R/logs/p-m)"
n=$(grep -cE '^  i?hash ' $R/logs/t-gemv-m.log)
echo "gemv: main's $n hash lines differing in pdl's first $n: $(diff <(grep -E '^  i?hash ' $R/logs/t-gemv-m.log) <(grep -E '^  i?hash ' $R/logs/t-gemv-pdl.log | head -n $n) | grep -c '^[<>]')"
snap
declare -A C=([main]=$C_MAIN [b64]=$C_B64 [pdl]=$C_PDL)
ab() { local tag=$1 t=$2 d=$3 lim=$4; shift 4
  [ $(left) -lt $(( lim + 30 )) ] && { echo "$tag SKIPPED at $(el) s"; return; }
  echo "$tag: $d/tetra bench $*" >> $R/logs/commands.txt
  TETRA_COMMIT=${C[$t]} stdbuf -oL timeout $lim $d/tetra bench "$@" --no-replicate --out $R/results/$tag.json > $R/logs/$tag.log 2>&1
  echo "== $tag rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$tag.log | cut -c1-150; snap; }
MS=64x14336x4096,64x4096x14336,64x28672x8192,64x768x6144,64x2048x6144,32x14336x4096,48x14336x4096
ab t64-main main .scratch-main/b 60 --shape $MS --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
ab t64-b64 b64 .scratch-b64/b2 60 --shape $MS --a tetra-gemm --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6
GS=1x768x6144,8x768x6144,16x768x6144,1x2048x6144,1x4096x2048,16x4096x2048,1x4096x4096,16x4096x4096,1x14336x4096,1x28672x8192
GB="--a tetra-gemm-gemv-interleaved --b cublaslt-bf16-tuned --graph-below-us 400 --blocks 6"
ab pdl-main1 main .scratch-main/b 45 --shape $GS $GB
ab pdl-pdl pdl .scratch-pdl/b 45 --shape $GS $GB
ab pdl-main2 main .scratch-main/b 45 --shape $GS $GB
if [ $(left) -gt 90 ]; then
  echo "ncu-src: per-instruction stall samples, v10.1 at 4096^3" >> $R/logs/commands.txt
  timeout 70 ncu --clock-control none --kernel-name regex:gemm_wgmma_t_ss --launch-skip 2 --launch-count 1 --section WarpStateStats --section SourceCounters --page source --print-source sass --csv .scratch-main/b/tetra bench --shape 4096x4096x4096 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate > $R/logs/ncu-src-v101-4096.csv 2> $R/logs/ncu-src.err
  echo "== ncu-src rc=$? at $(el) s, $(wc -l < $R/logs/ncu-src-v101-4096.csv) lines"; snap
fi
lim=$(( $(left) - 5 ))
if [ $lim -gt 60 ]; then
  echo "sanitizers with limit $lim s at $(el) s"
  for tool in memcheck racecheck synccheck; do
    ( TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 .scratch-b64/b2/tests/gpu_gemm > $R/logs/san-$tool-b64.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-b64.log ) &
    ( TETRA_TEST_QUICK=1 timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 .scratch-pdl/b/tests/gpu_gemv > $R/logs/san-$tool-pdl.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool-pdl.log ) &
  done
  wait; echo "sanitizers done at $(el) s"
  for f in $R/logs/san-*.log; do printf "%s: %s %s\n" "$(basename $f .log)" "$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors|RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors' $f | tail -1)" "$(tail -1 $f)"; done
fi
echo "total $(el) s"; snap; rm -rf $OUT/r2
