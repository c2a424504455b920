#!/usr/bin/env bash
# Session 13, helper v7prep (v7.2 prep warps; docs/notes/gemm-sm90.md, "v7.2: prep warps"): one
# tree, two builds:
#   b0 = -DTETRA_GEMM_V7_PREP=0 (main's kernel, SASS identical), b1 = -DTETRA_GEMM_V7_PREP=1.
# Optional (DIAG=1): the same two with -DTETRA_GEMM_DIAG, timed at TETRA_GEMM_DIAG_MODE 0 and 1 by
# docs/notes/session12-trace.c as in run 64 (d1 mode 1 - d0 mode 1 = what the prep warps cost the
# loop when the consumers convert nothing).
# Prediction (helper, before any device run): b1 5-17% faster than b0 at the three M = 64 shapes
# (central ~10%: 64x14336x4096 ~32.5 us / 1.22x, 64x4096x14336 ~33.6 / 1.24x, 64x28672x8192
# ~108 / 1.16x), 64x2048x6144 ~20.5 / 1.05x, 32x14336x4096 ~35 / 1.22x.
# Refuted if b1 is not >= 3% faster than both b0 legs at the three M = 64 shapes.
# Run (from the branch checkout): BUDGET=560 bash docs/notes/session13-v7prep.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/v7p; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/v7p.tgz.tmp -C $OUT v7p 2>/dev/null && mv $OUT/v7p.tgz.tmp $OUT/v7p.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
C=$(git rev-parse --short HEAD 2>/dev/null || echo v7prep)
bld() { # name flags
  ( cmake -S . -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $2 > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j8 --target tetra_cli gpu_gemm >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log ) & }
bld b0 "-DTETRA_GEMM_V7_PREP=0"; bld b1 "-DTETRA_GEMM_V7_PREP=1"; wait
echo "builds at $(el) s: b0 $(tail -1 $R/logs/build-b0.log) b1 $(tail -1 $R/logs/build-b1.log)"
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
for b in b0 b1; do
  ( env TETRA_GEMM_TEST_HASH=1 $T timeout 250 /tmp/$b/tests/gpu_gemm > $R/logs/t-gemm-$b.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-$b.log ) &
done
for tool in memcheck racecheck synccheck; do
  ( env TETRA_TEST_QUICK=1 $T timeout 280 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/b1/tests/gpu_gemm > $R/logs/san-b1-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-b1-$tool.log ) &
done
wait; echo "correctness at $(el) s"
for f in $R/logs/t-gemm-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed; $(tail -3 $f | tr '\n' ' ' | cut -c1-170)"; done
grep ' hash ' $R/logs/t-gemm-b0.log > $R/logs/h0; grep ' hash ' $R/logs/t-gemm-b1.log > $R/logs/h1
echo "hash lines b0 $(wc -l < $R/logs/h0), b1 $(wc -l < $R/logs/h1), differing: $(diff $R/logs/h0 $R/logs/h1 | grep -c '^[<>]')"; snap
OK=0; grep -q "rc=0" $R/logs/t-gemm-b1.log && [ -s $R/logs/h0 ] && [ -z "$(diff $R/logs/h0 $R/logs/h1)" ] && OK=1
echo "OK=$OK"
bench() { # tag build shapes blocks
  local l=$(( $(left) - 5 )); [ $l -lt 25 ] && { echo "$1 SKIPPED"; return; }; [ $l -gt 75 ] && l=75
  TETRA_COMMIT=$C timeout $l /tmp/$2/tetra bench --shape $3 --a tetra-gemm --b cublaslt-bf16-tuned --blocks $4 --no-replicate \
    --out $R/results/$1.json > $R/logs/$1.log 2>&1
  echo "== $1 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$1.log | cut -c1-150; snap; }
SM=64x14336x4096,64x4096x14336,64x28672x8192,64x2048x6144,32x14336x4096
if [ $OK = 1 ]; then bench v7p-b0a b0 $SM 4; bench v7p-b1 b1 $SM 4; bench v7p-b0b b0 $SM 4; fi
if [ "${DIAG:-0}" = 1 ] && [ $(left) -gt 150 ]; then
  dbld() { # name flags (as session13-call6.sh: static library + the session-12 timing driver)
    ( cmake -S . -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_DIAG" $2 > $R/logs/build-$1.log 2>&1 &&
      cmake --build /tmp/$1 -j8 --target tetra_static >> $R/logs/build-$1.log 2>&1 &&
      gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/session12-trace.c -L /tmp/$1 -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o /tmp/$1/drv >> $R/logs/build-$1.log 2>&1
      echo "rc=$?" >> $R/logs/build-$1.log ) & }
  dbld d0 "-DTETRA_GEMM_V7_PREP=0"; dbld d1 "-DTETRA_GEMM_V7_PREP=1"; wait
  echo "diag builds at $(el) s: d0 $(tail -1 $R/logs/build-d0.log) d1 $(tail -1 $R/logs/build-d1.log)"
  for b in d0 d1; do
    MODES="0 1" timeout 80 /tmp/$b/drv /tmp/x 64x28672x8192 64x4096x14336 64x14336x4096 > $R/logs/drv-$b.log 2>&1
    echo "== $b rc=$? at $(el) s"; head -20 $R/logs/drv-$b.log; snap
  done
fi
echo "total $(el) s"; snap; rm -rf $OUT/v7p
