#!/usr/bin/env bash
# session 9, call 4: main at $C_MAIN (tetra_cli, sm_90a). tetra tune's held-out score of AUTO
# (the launchers' rules) on decode, then on four seed000 shapes (call 3's single run over
# decode + seed000 did not finish in 220 s and printed nothing: the scores print at the end).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-420}
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
R=$OUT/r4; mkdir -p $R/logs $R/results
snap() { tar czf $OUT/r4.tgz.tmp -C $OUT r4 2>/dev/null && mv $OUT/r4.tgz.tmp $OUT/r4.tgz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/logs/gpu.txt 2>&1
( cmake -S .scratch-main -B .scratch-main/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/logs/build.log 2>&1 &&
  cmake --build .scratch-main/b -j16 --target tetra_cli >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
echo "build done at $(el) s: $(tail -1 $R/logs/build.log)"
export TETRA_COMMIT=$C_MAIN
step() { local name=$1 limit=$2; shift 2; local l=$(( $(left) - 3 )); [ $l -lt 8 ] && { echo "$name SKIPPED"; return; }; [ $limit -gt $l ] && limit=$l
  echo "$name: $*" >> $R/logs/commands.txt
  stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; snap; grep -E "within|verdict|x[0-9]" $R/logs/$name.log | tail -40 | cut -c1-190; }
step tune-decode 210 .scratch-main/b/tetra tune --shape 1x3072x3072 --holdout-set decode --out $R/results/dispatch-table-1shape-decode.txt --json $R/results/tune-holdout-decode.json
step tune-seed000 400 .scratch-main/b/tetra tune --shape 1x3072x3072 --holdout-shape 1024x4096x4096,2048x14336x4096,4096x4096x4096,4096x4096x14336 --out $R/results/dispatch-table-1shape-seed000.txt --json $R/results/tune-holdout-seed000.json
echo "total $(el) s"; snap; rm -rf $OUT/r4
