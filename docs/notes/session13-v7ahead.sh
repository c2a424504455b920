#!/usr/bin/env bash
# Session 13, helper v7ahead (v7.3; docs/notes/gemm-sm90.md, "v7.3: two K-tiles ahead"): one tree,
# up to four builds (sm_90a), same code, CMake cache variable TETRA_GEMM_V7_AHEAD:
#   b1 = 1 (default: main's v7, SASS identical), b2 = 2 (dequantize two K-tiles ahead: 3 fragment
#   sets, wait_group 1), b3 = 3 (3 sets, wait_group 2), b4 = 4 (4 sets, wait_group 2, two ahead).
# Order (most important first, each step skipped when the budget runs short):
#   builds b1 b2 (and b3 b4 unless ONLY12=1); gpu_gemm wgmma_t set with hashes on every build,
#   hash lines compared with b1; memcheck / racecheck / synccheck on b2 (SAN_ALL=1: also b4);
#   ABA bench b1 / b2 / b1 of the five shapes; then legs b3, b4 (EXTRA=0 skips them); then
#   (DIAG=1, default on) -DTETRA_GEMM_DIAG builds d1 d2 (d4 too unless ONLY12=1) timed by
#   docs/notes/session12-trace.c at TETRA_GEMM_DIAG_MODE 0 and 1 (as run 64).
# Prediction and refutation line (helper, before any device run): see the notes section.
# Run (from the branch checkout): BUDGET=570 bash docs/notes/session13-v7ahead.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-570}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/v7a; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/v7a.tgz.tmp -C $OUT v7a 2>/dev/null && mv $OUT/v7a.tgz.tmp $OUT/v7a.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
C=$(git rev-parse --short HEAD 2>/dev/null || echo v7ahead)
BS="1 2 3 4"; [ "${ONLY12:-0}" = 1 ] && BS="1 2"
NB=$(echo $BS | wc -w); J=$(( $(nproc) / NB )); [ $J -lt 2 ] && J=2
bld() { # name ahead
  ( cmake -S . -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DTETRA_GEMM_V7_AHEAD=$2 > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j$J --target tetra_cli gpu_gemm >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log ) & }
for a in $BS; do bld b$a $a; done; wait
echo "builds at $(el) s: $(for a in $BS; do echo -n "b$a $(tail -1 $R/logs/build-b$a.log) "; done)"
for a in $BS; do echo "b$a: $(strings /tmp/b$a/tetra | grep -m1 tetra-v7-ahead)"; done
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
for a in $BS; do
  ( env TETRA_GEMM_TEST_HASH=1 $T timeout 250 /tmp/b$a/tests/gpu_gemm > $R/logs/t-gemm-b$a.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-b$a.log ) &
done
SAN="b2"; [ "${SAN_ALL:-0}" = 1 ] && [ -x /tmp/b4/tests/gpu_gemm ] && SAN="b2 b4"
for b in $SAN; do for tool in memcheck racecheck synccheck; do
  ( env TETRA_TEST_QUICK=1 $T timeout 280 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/$b/tests/gpu_gemm > $R/logs/san-$b-$tool.log 2>&1; echo "rc=$?" >> $R/logs/san-$b-$tool.log ) &
done; done
wait; echo "correctness at $(el) s"
for f in $R/logs/t-gemm-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed; $(tail -3 $f | tr '\n' ' ' | cut -c1-170)"; done
grep ' hash ' $R/logs/t-gemm-b1.log > $R/logs/h1
OK=""
for a in $BS; do
  grep ' hash ' $R/logs/t-gemm-b$a.log > $R/logs/h$a
  nd=$(diff $R/logs/h1 $R/logs/h$a | grep -c '^[<>]')
  echo "hash lines b1 $(wc -l < $R/logs/h1), b$a $(wc -l < $R/logs/h$a), differing: $nd"
  grep -q "rc=0" $R/logs/t-gemm-b$a.log && [ -s $R/logs/h1 ] && [ "$nd" = 0 ] && OK="$OK $a"
done
echo "OK (tests pass, hashes equal to b1):$OK"; snap
ok() { case " $OK " in *" $1 "*) return 0;; esac; return 1; }
bench() { # tag build shapes
  local l=$(( $(left) - 5 )); [ $l -lt 25 ] && { echo "$1 SKIPPED"; return; }; [ $l -gt 75 ] && l=75
  TETRA_COMMIT=$C timeout $l /tmp/$2/tetra bench --shape $3 --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate \
    --out $R/results/$1.json > $R/logs/$1.log 2>&1
  echo "== $1 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$1.log | cut -c1-150; snap; }
SM=64x14336x4096,64x4096x14336,64x28672x8192,64x2048x6144,32x14336x4096
if ok 1 && ok 2; then bench v7a-b1a b1 $SM; bench v7a-b2 b2 $SM; bench v7a-b1b b1 $SM; fi
if [ "${EXTRA:-1}" = 1 ]; then
  ok 3 && bench v7a-b3 b3 $SM
  ok 4 && bench v7a-b4 b4 $SM
  { ok 3 || ok 4; } && bench v7a-b1c b1 $SM
fi
if [ "${DIAG:-1}" = 1 ] && [ $(left) -gt 150 ]; then
  DS="1 2 4"; [ "${ONLY12:-0}" = 1 ] && DS="1 2"
  J=$(( $(nproc) / $(echo $DS | wc -w) ))
  dbld() { # name ahead (as session13-call6.sh: static library + the session-12 timing driver)
    ( cmake -S . -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "-DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_DIAG" -DTETRA_GEMM_V7_AHEAD=$2 > $R/logs/build-$1.log 2>&1 &&
      cmake --build /tmp/$1 -j$J --target tetra_static >> $R/logs/build-$1.log 2>&1 &&
      gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/session12-trace.c -L /tmp/$1 -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o /tmp/$1/drv >> $R/logs/build-$1.log 2>&1
      echo "rc=$?" >> $R/logs/build-$1.log ) & }
  for a in $DS; do dbld d$a $a; done; wait
  echo "diag builds at $(el) s: $(for a in $DS; do echo -n "d$a $(tail -1 $R/logs/build-d$a.log) "; done)"
  for a in $DS; do
    l=$(( $(left) - 5 )); [ $l -lt 20 ] && { echo "d$a SKIPPED"; continue; }; [ $l -gt 80 ] && l=80
    MODES="0 1" timeout $l /tmp/d$a/drv /tmp/x 64x28672x8192 64x4096x14336 64x14336x4096 > $R/logs/drv-d$a.log 2>&1
    echo "== d$a rc=$? at $(el) s"; head -20 $R/logs/drv-d$a.log; snap
  done
fi
echo "total $(el) s"; snap; rm -rf $OUT/v7a
