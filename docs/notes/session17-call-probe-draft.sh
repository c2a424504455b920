#!/usr/bin/env bash
# DRAFT (session 16, not run): time what v7 would gain from a fragment-ordered prepared weight
# layout before building it. Apply docs/notes/patches/v7-probe-fragment-layout.patch to a
# scratch copy (.scratch-p8 = git archive HEAD + the patch), build it with -DTETRA_GEMM_DIAG
# (CMake: add -DCMAKE_CUDA_FLAGS=-DTETRA_GEMM_DIAG or edit the scratch CMakeLists), then ncu
# the wgmma-T kernel at 64x28672x8192 with TETRA_GEMM_DIAG_MODE=0 and =8 in the same binary
# (the bench's gate refuses mode 8: wrong outputs by design). Compare duration, instructions
# executed, ALU / FMA pipe counts.
# Prediction (gemm-sm90.md, "M = 64 after v7.5"): mode 8 about 40 fewer instructions per
# K-tile of about 168 per consumer warp (-24%), about -19% duration against mode 0 of the
# same build. If the duration moves by less than -10%, the prepared layout is not worth a
# format of its own.
# ncu line, as run 73's (docs/notes/session15-call3.sh lines 49-57; the bench's gate refuses to
# time mode 8, but its correctness runs launch the kernel, which ncu captures):
#   V="--shape 64x28672x8192 --a tetra-gemm --b tetra-gemm --blocks 1 --no-replicate"
#   MET=sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed.sum,sm__cycles_active.avg,gpu__time_duration.sum
#   for md in 0 8 0; do TETRA_GEMM_DIAG_MODE=$md ncu --clock-control none --kernel-name regex:gemm_wgmma_t_kernel \
#     --launch-skip 2 --launch-count 1 --metrics $MET build-p8/tetra bench $V; done
