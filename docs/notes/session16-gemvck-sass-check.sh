#!/usr/bin/env bash
# Session 16 (helper gemvck): main's gemv.cu (base) against this branch's (head), CK compiled in but
# off: every kernel of base must have the same sm_90a / sm_80 / sm_120a SASS in head. Kernel names
# normalised (anonymous-namespace hash; head's gemv_nvfp4_mma<XK, IL, false> carries one more template
# argument, dropped), then compared function by function; head's cluster-K kernels
# (gemv_nvfp4_mma<XK, IL, true>) have no base twin and are listed apart.
# Usage: session16-gemvck-sass-check.sh BASE_COMMIT  (run in the worktree root; writes /tmp/ck/)
set -e
BASE=${1:-main}
CU=${CUOBJDUMP:-$(command -v cuobjdump || echo /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin/cuobjdump)}
mkdir -p /tmp/ck
git show "$BASE":src/cuda/gemv.cu > /tmp/ck/base.cu
cp src/cuda/gemv.cu /tmp/ck/head.cu
for A in 90a 80 120a; do for v in base head; do
  cp /tmp/ck/$v.cu src/cuda/.ck_$v.cu
  nvcc -DTETRA_GEMV_LONG_SPLIT_SEGS=10 -DTETRA_GEMV_PDL_REDUCE=1 -D_GNU_SOURCE -Iinclude -Isrc -O3 -DNDEBUG -lineinfo \
       -std=c++17 --generate-code=arch=compute_$A,code=sm_$A -x cu -c src/cuda/.ck_$v.cu -o /tmp/ck/$v-$A.o
  rm -f src/cuda/.ck_$v.cu
  $CU -sass /tmp/ck/$v-$A.o | sed -E 's/_GLOBAL__N__[0-9a-f]+_[0-9]+_[A-Za-z0-9_]*_cu_[0-9a-f]+/ANON/g; s/^identifier = .*/identifier = X/; s/(gemv_nvfp4_mmaILi[0-9]ELb[01])ELb0EE/\1EE/g' \
    | awk -v out=/tmp/ck/$v-$A 'BEGIN{f=""} /Function : /{f=$3; gsub(/[^A-Za-z0-9_]/,"_",f)} f!=""{print > (out "." f ".fn")}'
done
n=0; d=0
for f in /tmp/ck/base-$A.*.fn; do
  h=${f/base-/head-}; n=$((n+1))
  if [ ! -f "$h" ] || ! diff -q "$f" "$h" >/dev/null; then d=$((d+1)); echo "sm_$A DIFFERS: $(basename $f)"; fi
done
echo "sm_$A: $n base kernels, $d differ; head-only: $(ls /tmp/ck/head-$A.*.fn | sed "s#/tmp/ck/head-$A.##" | while read x; do [ -f /tmp/ck/base-$A.$x ] || echo -n "$x "; done)"
done
