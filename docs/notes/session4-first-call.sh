#!/usr/bin/env bash
# device call H (next session, first): the three offline branches (n3wgmma, n3gemv, n3attn)
# built from git-archive copies in .scratch-{wg6,gv4,at6} plus main in .scratch-main.
# Prepare: for b in "wg6 n3wgmma" "gv4 n3gemv" "at6 n3attn" "main main"; do set -- $b;
#   rm -rf .scratch-$1; mkdir .scratch-$1; git archive $2 | tar x -C .scratch-$1; done
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
R=$OUT/h; mkdir -p $R
declare -A TG=([wg6]="tetra_cli gpu_gemm" [gv4]="tetra_cli gpu_gemv gpu_gemm" [at6]="tetra_cli gpu_attention" [main]="tetra_cli")
for b in wg6 gv4 at6 main; do
  ( cmake -S .scratch-$b -B .scratch-$b/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a > $R/build-$b.log 2>&1 &&
    cmake --build .scratch-$b/b -j4 --target ${TG[$b]} >> $R/build-$b.log 2>&1; echo "build $b rc=$?" >> $R/build-$b.log ) &
done; wait; echo "builds at $(el) s"; tail -qn1 $R/build-*.log
Q="--blocks 10 --no-replicate"; G="--graph-below-us 400"
run() { local name=$1 lim=$2; shift 2; stdbuf -oL timeout $lim "$@" > $R/$name.log 2>&1; echo "== $name rc=$? at $(el) s"; grep -E "^[0-9]+x|FAIL|all checks" $R/$name.log | cut -c1-180 | head -40; }
run wg6-test 300 .scratch-wg6/b/tests/gpu_gemm
run wg6-bench 200 .scratch-wg6/b/tetra bench --shape 1024x4096x4096,2048x14336x4096,4096x4096x4096 --a tetra-gemm --b cublaslt-bf16-tuned $Q --out $R/wg6.json
run main-gemm-bench 200 .scratch-main/b/tetra bench --shape 1024x4096x4096,2048x14336x4096,4096x4096x4096 --a tetra-gemm --b cublaslt-bf16-tuned $Q --out $R/main-gemm.json
run gv4-test 300 .scratch-gv4/b/tests/gpu_gemv
run gv4-bench 120 .scratch-gv4/b/tetra bench --set decode,gpumode --a tetra-gemm --b cublaslt-bf16-tuned $G $Q --out $R/gv4.json
run main-gemv-bench 120 .scratch-main/b/tetra bench --shape 1x28672x8192,8x28672x8192,16x28672x8192,1x14336x4096 --a tetra-gemm --b cublaslt-bf16-tuned $G $Q --out $R/main-gemv.json
run at6-test 300 .scratch-at6/b/tests/gpu_attention
run at6-bench 120 .scratch-at6/b/tetra bench --shape 2048x16x64x2,512x16x64x2,8192x16x64x2,2048x16x128x2 --a tetra-attention --b cudnn-sdpa $Q --out $R/at6.json
TETRA_ATTN_SM90_ROWS=128 run at6-bench-128 90 .scratch-at6/b/tetra bench --shape 2048x16x64x2,8192x16x64x2 --a tetra-attention --b cudnn-sdpa $Q --out $R/at6-128.json
tar czf /tmp/h.tgz -C $OUT h && mv /tmp/h.tgz $OUT/
echo "total $(el) s"
