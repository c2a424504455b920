#!/usr/bin/env bash
# Session 14, device call 1 (run 66; drafted at the end of session 13 as session14-call1-draft.sh and run unchanged):
# v10.6 (docs/notes/patches/v10.6-persistent-v10.3-loop.patch) and v7.3
# (docs/notes/patches/v7.3-ahead.patch) in one tree, one call. Before the call:
#   rm -rf .scratch-n && mkdir .scratch-n && git archive HEAD | tar x -C .scratch-n && rm -rf .scratch-n/docs/results &&
#   (cd .scratch-n && patch -p1 < ../docs/notes/patches/v10.6-persistent-v10.3-loop.patch && patch -p1 < ../docs/notes/patches/v7.3-ahead.patch)
#   (patch -p1, not git apply: git apply inside a subdirectory of the repository skips the paths)
# Run: C_N=<main hash>+v10.6+v7.3 BUDGET=560 bash docs/notes/session14-call1-draft.sh
# Builds (sm_90a): b0 = both switches off (main's SASS), p1 = TETRA_GEMM_SS_PERSISTENT=1 (v10.6),
# a2 / a3 / a4 = TETRA_GEMM_V7_AHEAD=2 / 3 / 4 (v7.3).
# Predictions and refutation lines (the helpers', written before any run): gemm-sm90.md "v10.6"
# (graph-timed: 8192x8192x1024 +0.055-0.08, 4096x4096x1024 +0.035-0.055, 4096^3 +0.01-0.025,
# 8192^3 +0.005-0.015, 1024x4096x4096 0 +-0.01) and "v7.3" (AHEAD 2: 64x14336x4096 1.07,
# 64x4096x14336 1.14, 64x28672x8192 1.055; refuted unless >= 3% faster than both b0 legs at the
# three M = 64 shapes; AHEAD 3 / 4 central -3% / -4%).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-560}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/n1; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/n1.tgz.tmp -C $OUT n1 2>/dev/null && mv $OUT/n1.tgz.tmp $OUT/n1.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
G=.scratch-n
bld() { ( cmake -S $G -B /tmp/$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a $2 > $R/logs/build-$1.log 2>&1 &&
    cmake --build /tmp/$1 -j3 --target tetra_cli gpu_gemm >> $R/logs/build-$1.log 2>&1; echo "rc=$?" >> $R/logs/build-$1.log ) & }
bld b0 ""; bld p1 "-DTETRA_GEMM_SS_PERSISTENT=1"; bld a2 "-DTETRA_GEMM_V7_AHEAD=2"; bld a3 "-DTETRA_GEMM_V7_AHEAD=3"; bld a4 "-DTETRA_GEMM_V7_AHEAD=4"; wait
echo "builds at $(el) s: $(for b in b0 p1 a2 a3 a4; do echo -n "$b $(tail -1 $R/logs/build-$b.log) "; done)"
T="TETRA_GEMM_TEST_ONLY=wgmma_t"
tg() { ( env TETRA_GEMM_TEST_HASH=1 $T $2 timeout 280 /tmp/$1/tests/gpu_gemm > $R/logs/t-gemm-$3.log 2>&1; echo "rc=$?" >> $R/logs/t-gemm-$3.log ) & }
tg b0 "" b0; tg p1 "" p1; tg p1 TETRA_GEMM_SS_CLUSTERS=1 p1-c1; tg p1 TETRA_GEMM_SS_CLUSTERS=3 p1-c3; tg a2 "" a2; tg a3 "" a3; tg a4 "" a4
san() { ( env TETRA_TEST_QUICK=1 $T $3 timeout 300 compute-sanitizer --tool $2 --error-exitcode 99 /tmp/$1/tests/gpu_gemm > $R/logs/san-$4.log 2>&1; echo "rc=$?" >> $R/logs/san-$4.log ) & }
for tool in memcheck racecheck synccheck; do san p1 $tool "" p1-$tool; san a2 $tool "" a2-$tool; done
san p1 racecheck TETRA_GEMM_SS_CLUSTERS=2 p1-racecheck-c2
wait; echo "correctness at $(el) s"
for f in $R/logs/t-gemm-*.log $R/logs/san-*.log; do echo "$(basename $f .log): $(grep -c 'CHECK failed' $f) failed; $(tail -3 $f | tr '\n' ' ' | cut -c1-160)"; done
grep ' hash ' $R/logs/t-gemm-b0.log > $R/logs/h0
OK=""
for x in p1 p1-c1 p1-c3 a2 a3 a4; do
  nd=$(diff $R/logs/h0 <(grep ' hash ' $R/logs/t-gemm-$x.log) | grep -c '^[<>]'); echo "hash lines differing b0 vs $x: $nd of $(wc -l < $R/logs/h0)"
  grep -q "rc=0" $R/logs/t-gemm-$x.log && [ "$nd" = 0 ] && OK="$OK $x"
done; echo "OK:$OK"; snap
ok() { case " $OK " in *" $1 "*) return 0;; esac; return 1; }
bench() { # tag build shapes extra-args
  local l=$(( $(left) - 5 )); [ $l -lt 25 ] && { echo "$1 SKIPPED"; return; }; [ $l -gt 100 ] && l=100
  TETRA_COMMIT=$C_N timeout $l /tmp/$2/tetra bench --shape $3 --a tetra-gemm --b cublaslt-bf16-tuned --blocks 4 --no-replicate $4 \
    --out $R/results/$1.json > $R/logs/$1.log 2>&1
  echo "== $1 rc=$? at $(el) s"; grep -E "^[0-9]+x" $R/logs/$1.log | cut -c1-150; snap; }
SM=64x14336x4096,64x4096x14336,64x28672x8192,64x2048x6144,32x14336x4096
if ok a2; then bench m-b0a b0 $SM ""; bench m-a2 a2 $SM ""; bench m-b0b b0 $SM ""; ok a3 && bench m-a3 a3 $SM ""; ok a4 && bench m-a4 a4 $SM ""; fi
SP=4096x4096x1024,8192x8192x1024,1024x4096x4096,4096x4096x4096,8192x8192x8192
if ok p1 && ok p1-c1 && ok p1-c3; then
  bench p-b0a b0 $SP "--graph-below-us 1000000"; bench p-p1 p1 $SP "--graph-below-us 1000000"; bench p-b0b b0 $SP "--graph-below-us 1000000"
fi
echo "total $(el) s"; snap; rm -rf $OUT/n1
