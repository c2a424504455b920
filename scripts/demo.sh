#!/usr/bin/env bash
# Build tetra and run the main job: `tetra demo` (NVFP4 product on the GPU checked
# against the FP64 oracle; the CPU path with a clear message where there is no GPU).
#   scripts/demo.sh [demo options]     env: TETRA_JOBS
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "${TETRA_JOBS:-$(nproc)}" >/dev/null
exec ./build/tetra demo "$@"
