#!/usr/bin/env bash
# sass-same.sh REV [FILE] - is FILE's (default src/cuda/gemm_sm90.cu) sm_90a SASS at the work tree
# the same as at git revision REV, function by function? Compiles both versions under one name
# inside src/cuda (its relative includes), disassembles with cuobjdump, drops addresses, encodings
# and the anonymous-namespace hash, and compares per function (instantiation order may change
# with host code, so the cubins' function order is not compared). Needs cuobjdump: CUDA's own, or
# the one in PyPI's nvidia-cuda-cuobjdump wheel (session 26: /work/tools-local/bin). Fails loudly
# where a tool is missing (session 26's first checks ran without one and compared empty files).
set -euo pipefail
rev=${1:?usage: sass-same.sh REV [FILE]}; file=${2:-src/cuda/gemm_sm90.cu}
cd "$(git rev-parse --show-toplevel)"
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo /work/tools-local/bin/cuobjdump)}
[ -x "$CUOBJDUMP" ] || { echo "sass-same: no cuobjdump (set CUOBJDUMP)"; exit 2; }
tmp=$(mktemp -d); cmp_src=$(dirname "$file")/sass_same_tmp.cu
trap 'rm -rf "$tmp" "$cmp_src"' EXIT
for v in a b; do
  if [ $v = a ]; then git show "$rev:$file" > "$cmp_src"; else cp "$file" "$cmp_src"; fi
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -I src -cubin -o "$tmp/$v.cubin" "$cmp_src"
  "$CUOBJDUMP" -sass "$tmp/$v.cubin" | sed -E 's@/\*[0-9a-f]{4}\*/@@g; s@/\* 0x[0-9a-f]+ \*/@@g;
      s@_GLOBAL__N__[0-9a-f]+_[0-9]+_sass_same_tmp_cu_[0-9a-f]+@ANON@g' | grep -v '^\s*$' > "$tmp/$v.sass"
  [ -s "$tmp/$v.sass" ] || { echo "sass-same: empty disassembly of $v"; exit 2; }
done
python3 - "$tmp/a.sass" "$tmp/b.sass" <<'PY'
import sys
def funcs(p):
    d, cur, buf = {}, None, []
    for ln in open(p):
        if 'Function :' in ln:
            if cur: d[cur] = ''.join(buf)
            cur, buf = ln.split('Function :')[1].strip(), []
        elif cur: buf.append(ln)
    if cur: d[cur] = ''.join(buf)
    return d
a, b = funcs(sys.argv[1]), funcs(sys.argv[2])
diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
print("functions: %d and %d; differing: %d" % (len(a), len(b), len(diff)))
for k in diff[:10]: print("  " + k)
sys.exit(1 if diff or not a else 0)
PY
