#!/usr/bin/env bash
# session 11, call 3. Tree .scratch-p (branch persist $C_P = main 365338b + v10.2, the
# persistent v10.1 behind TETRA_GEMM_SS_PERSISTENT, default 0), built twice: b0 (switch 0:
# main's kernels, gemm_sm90.cu SASS identical to main's) and b1 (switch 1).
# 1. Issue 4's calibrated decode figures with b0 (main's GEMV with the session-11 split rule).
# 2. v10.2 correctness: gpu_gemm wgmma_t hashes b0 vs b1 (and b1 forced to 1 / 3 clusters:
#    long walks); the three sanitizers on b1 (quick set), racecheck also at 2 clusters.
# 3. v10.2 time: ABA b0 / b1 / b0 at 1024x4096x4096, 2048x14336x4096, 4096^3, 8192^3.
# Prediction (helper's, docs/notes/gemm-sm90.md "v10.2"): vs cuBLAS 4096^3 0.870 -> 0.935-0.970,
# 2048x14336x4096 0.834 -> 0.90-0.94, 8192^3 0.899 -> 0.94-0.96, 1024x4096x4096 unchanged.
# Refuted if 4096^3 and 2048x14336x4096 both gain < 3% (b1 ratio <= b0 ratio + 0.025).
# Decode figures: the split rule's rows as in run 48 (1x14336x4096 ~15.6 us, 1x4096x14336
# ~15.7, 1x7168x2048x4 ~15.2), the rest as run 43 within noise.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-570}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r3; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r3.tgz.tmp -C $OUT r3 2>/dev/null && mv $OUT/r3.tgz.tmp $OUT/r3.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
for v in 0 1; do
  ( cmake -S .scratch-p -B .scratch-p/b$v -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_GEMM_SS_PERSISTENT=$v > $R/logs/build-b$v.log 2>&1 &&
    cmake --build .scratch-p/b$v -j8 --target tetra_cli gpu_gemm >> $R/logs/build-b$v.log 2>&1; echo "rc=$?" >> $R/logs/build-b$v.log ) &
done; wait
echo "builds done at $(el) s: $(tail -1 $R/logs/build-b0.log) $(tail -1 $R/logs/build-b1.log)"; snap
T=.scratch-p/b0/tetra; res=$R/results; export TETRA_COMMIT=$C_P
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "^[0-9]+x" $R/logs/$name.log | cut -c1-150; }
step ceilings 25 $T bench ceilings --out $res/ceilings.json
step calibrate 45 $T bench calibrate --out $res/calibration.json
cal="--ceilings $res/ceilings.json --calibration $res/calibration.json --blocks 10 --no-replicate"
step gemv-decode 130 $T bench --shape 1x4096x4096,4x4096x4096,8x4096x4096,16x4096x4096,1x14336x4096,4x14336x4096,8x14336x4096,16x14336x4096,1x4096x14336,4x4096x14336,8x4096x14336,16x4096x14336,1x28672x8192,4x28672x8192,8x28672x8192,16x28672x8192,1x7168x16384,4x7168x16384,8x7168x16384,16x7168x16384,1x7168x16384x1,1x4096x7168x8,1x7168x2048x4 --a tetra-gemm-gemv-interleaved --b cublaslt-bf16-tuned,tetra-gemm --graph-below-us 400 $cal --out $res/gemv-prepared-decode.json
step gemv-small 70 $T bench --shape 1x2048x6144,4x2048x6144,8x2048x6144,16x2048x6144,1x768x6144,4x768x6144,8x768x6144,16x768x6144,1x4096x2048,4x4096x2048,8x4096x2048,16x4096x2048 --a tetra-gemm-gemv-interleaved --b cublaslt-bf16-tuned --graph-below-us 400 $cal --out $res/gemv-prepared-small.json
step w4a4-il 60 $T bench --shape 1x14336x4096,1x4096x14336,1x28672x8192,1x7168x16384 --a tetra-gemm-w4a4-interleaved --b tetra-gemm-gemv-interleaved,tetra-gemm-w4a4-full-interleaved --graph-below-us 400 $cal --out $res/w4a4-interleaved.json
# v10.2 correctness (parallel: 4 test runs)
G=.scratch-p
( TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 $G/b0/tests/gpu_gemm > $R/logs/t-gemm-b0.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-b0.log ) &
( TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 $G/b1/tests/gpu_gemm > $R/logs/t-gemm-b1.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-b1.log ) &
for c in 1 3; do
  ( TETRA_GEMM_SS_CLUSTERS=$c TETRA_GEMM_TEST_HASH=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 150 $G/b1/tests/gpu_gemm > $R/logs/t-gemm-b1-c$c.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-b1-c$c.log ) &
done; wait
echo "tests done at $(el) s"
for f in $R/logs/t-gemm-*.log; do echo "$(basename $f .log): $(grep -ci 'fail' $f) fail lines; $(tail -2 $f | tr '\n' ' ')"; done
grep ' hash ' $R/logs/t-gemm-b0.log > $R/logs/h0
for x in b1 b1-c1 b1-c3; do echo "hash lines differing b0 vs $x: $(diff $R/logs/h0 <(grep ' hash ' $R/logs/t-gemm-$x.log) | grep -c '^[<>]') of $(wc -l < $R/logs/h0)"; done; snap
if grep -q "rc=0" $R/logs/t-gemm-b1.log; then
  for tool in memcheck racecheck synccheck; do
    ( TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 $G/b1/tests/gpu_gemm > $R/logs/san-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$tool.log ) &
  done
  ( TETRA_GEMM_SS_CLUSTERS=2 TETRA_TEST_QUICK=1 TETRA_GEMM_TEST_ONLY=wgmma_t timeout 200 compute-sanitizer --tool racecheck --error-exitcode 99 $G/b1/tests/gpu_gemm > $R/logs/san-racecheck-c2.log 2>&1; echo "rc=$?" >> $R/logs/san-racecheck-c2.log ) &
  wait; echo "sanitizers done at $(el) s"
  for f in $R/logs/san-*.log; do echo "$(basename $f .log): $(tail -3 $f | tr '\n' ' ')"; done; snap
  SH=1024x4096x4096,2048x14336x4096,4096x4096x4096,8192x8192x8192
  for tag in p0a:b0 p1:b1 p0b:b0; do
    n=${tag%%:*}; d=${tag#*:}
    step $n 60 $G/$d/tetra bench --shape $SH --a tetra-gemm --b cublaslt-bf16-tuned --blocks 6 --no-replicate --out $res/persist-$n.json
  done
fi
echo "total $(el) s"; snap; rm -rf $OUT/r3
