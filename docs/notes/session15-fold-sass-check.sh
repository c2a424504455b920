#!/usr/bin/env bash
# Session 15: the lead's SASS check of the fold108 merge (gemm_sm90.cu at e2c6e0c = base, at the merge = head;
# /tmp/fc/base.cu and head.cu from `git show`); result: 0 diff lines for PERSISTENT 1 / 0 x sm_90a, sm_80, sm_120a.
cd /work/main
CU=/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin/cuobjdump
for P in 1 0; do for A in 90a 80 120a; do for v in base head; do
  cp /tmp/fc/$v.cu src/cuda/.fc_$v.cu
  nvcc -DTETRA_GEMM_SS_PERSISTENT=$P -DTETRA_GEMV_LONG_SPLIT_SEGS=10 -DTETRA_GEMV_PDL_REDUCE=1 -D_GNU_SOURCE -Iinclude -Isrc -O3 -DNDEBUG -lineinfo -std=c++17 --generate-code=arch=compute_$A,code=sm_$A -x cu -c src/cuda/.fc_$v.cu -o /tmp/fc/$v-$P-$A.o 2>/tmp/fc/$v-$P-$A.err
  $CU -sass /tmp/fc/$v-$P-$A.o | sed -E 's/_GLOBAL__N__[0-9a-f]+_[0-9]+_[A-Za-z0-9_]*_cu_[0-9a-f]+/ANON/g; s/^identifier = .*/identifier = X/' > /tmp/fc/$v-$P-$A.sass
  rm -f src/cuda/.fc_$v.cu
done; echo "P=$P sm_$A: $(diff /tmp/fc/base-$P-$A.sass /tmp/fc/head-$P-$A.sass | wc -l) diff lines ($(wc -l < /tmp/fc/head-$P-$A.sass) lines)"; done; done > /tmp/fc/result.txt 2>&1
echo done >> /tmp/fc/result.txt
