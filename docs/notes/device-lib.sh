# device-lib.sh - helpers shared by the device call scripts from session 22 on (earlier scripts
# carry their own copies; they are records of runs and stay as run). Source it after setting
#   RUN (the results folder's name under $OUT, e.g. r107) and BUDGET (seconds this call may use):
#     RUN=r107 BUDGET=560 . docs/notes/device-lib.sh
# It makes $R/{logs,results}, starts the clock and records the GPU's state.
#   el              seconds since the start
#   left            seconds of BUDGET left
#   snap            tar $R to $OUT/$RUN.tgz (atomically): a call cut short keeps what it had
#   bld DIR J TARGETS [cmake args]   configure (once) and build DIR in the background
#   H NAME [env] CMD                 run CMD in the background, output and rc to logs/NAME.log
#   step NAME LIMIT CMD              run CMD in the foreground with a time limit clipped to what is
#                                    left; prints the result rows (lines starting MxNxK)
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
B=${BUDGET:-560}
RUNNAME=${RUN:?set RUN} # kept: a VAR=x prefix on "." lasts only while the file is read
R=$OUT/$RUNNAME
mkdir -p $R/logs $R/results
el() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( B - ($(date +%s) - t0) )); }
snap() { tar czf $OUT/$RUNNAME.tgz.tmp -C $OUT $RUNNAME 2>/dev/null && mv $OUT/$RUNNAME.tgz.tmp $OUT/$RUNNAME.tgz; }
bld() {
    local dir=$1 j=$2 tg=$3
    shift 3
    ( [ -f $dir/CMakeCache.txt ] || cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a "$@" \
        > $R/logs/build-$dir.log 2>&1
      cmake --build $dir -j$j --target $tg >> $R/logs/build-$dir.log 2>&1; echo "rc=$?" >> $R/logs/build-$dir.log ) &
}
H() {
    local name=$1
    shift
    ( env "$@" > $R/logs/$name.log 2>&1; echo "rc=$?" >> $R/logs/$name.log ) &
}
step() {
    local name=$1 limit=$2
    shift 2
    local l=$(( $(left) - 3 ))
    [ $l -lt 20 ] && { echo "$name SKIPPED ($(el) s)"; return; }
    [ $limit -gt $l ] && limit=$l
    echo "$name: $*" >> $R/logs/commands.txt
    stdbuf -oL timeout $limit "$@" > $R/logs/$name.log 2>&1
    echo "== $name rc=$? at $(el) s"
    snap
    grep -E "^ *[0-9]+x" $R/logs/$name.log | cut -c1-160 | head -40
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv \
    > $R/logs/gpu.txt 2>&1
