#!/usr/bin/env bash
# DRAFT for session 16 (written in session 15, not run): where v10.8 loses at long K.
# The unit trace of the persistent kernel (docs/notes/patches/ptrace-unit-trace.patch, a
# TETRA_GEMM_TRACE build only) against v10.3's per-CTA trace, at 8192x4096x14336 (v10.8 loses
# ~0.014) and 4096x4096x1024 (v10.8 gains ~0.05). Before the call:
#   d=.scratch-t; rm -rf $d; mkdir $d && git archive HEAD | tar x -C $d && rm -rf $d/docs/results &&
#     (cd $d && patch -p1 -s < ../docs/notes/patches/ptrace-unit-trace.patch)
# Run: BUDGET=200 bash docs/notes/session16-call2-draft.sh   (then delete .scratch-t)
# Questions the trace answers (write the prediction before the run): is v10.8's per-unit K
# loop longer than v10.3's per-CTA span minus its fixed part (then the loss is inside the K
# loop: the next unit's prefetch or the TMA store contending), or are the K loops equal and the
# SMs' finish times more spread (the tail)?
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); B=${BUDGET:-200}
el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/t; mkdir -p $R/logs $R/trace
snap() { tar czf $OUT/t.tgz.tmp -C $OUT t 2>/dev/null && mv $OUT/t.tgz.tmp $OUT/t.tgz; }
( cmake -S .scratch-t -B /tmp/bt -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_TRACE > $R/logs/build.log 2>&1 &&
  cmake --build /tmp/bt -j16 --target tetra_static >> $R/logs/build.log 2>&1; echo "rc=$?" >> $R/logs/build.log )
gcc -std=c11 -O2 -I include -I /usr/local/cuda/include docs/notes/session12-trace.c -L /tmp/bt -l:libtetra.a -L /usr/local/cuda/lib64 -lcudart -lstdc++ -lm -ldl -lpthread -o /tmp/bt/trace-drv > $R/logs/drv.log 2>&1
echo "build $(tail -1 $R/logs/build.log), driver rc=$? at $(el) s"
S="8192x4096x14336 4096x4096x1024"
# the persistent kernel (the cluster cap = the resident count lifts the K rule)
TRACE=1 TETRA_GEMM_TRACE_PERSISTENT=1 TETRA_GEMM_SS_CLUSTERS=66 timeout 60 /tmp/bt/trace-drv $R/trace/p $S > $R/logs/p.log 2>&1; echo "p rc=$?"
# v10.3 (a traced call without TETRA_GEMM_TRACE_PERSISTENT runs v10.3)
TRACE=1 timeout 60 /tmp/bt/trace-drv $R/trace/v $S > $R/logs/v.log 2>&1; echo "v rc=$?"
for f in $R/trace/*.bin; do python3 docs/notes/session15-ptrace.py $f > ${f%.bin}.txt 2>&1; cat ${f%.bin}.txt; done
echo "total $(el) s"; snap; rm -rf $OUT/t
