#!/usr/bin/env bash
# Build tetra and run the whole test suite (CPU tests everywhere; GPU tests run where a
# CUDA device is visible and are reported as skipped elsewhere).
#   scripts/test.sh [build-dir]        env: TETRA_CMAKE_ARGS, TETRA_JOBS
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
jobs=${TETRA_JOBS:-$(nproc)}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${TETRA_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"
