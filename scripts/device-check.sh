#!/usr/bin/env bash
# One command for a GPU machine: build for the local architecture, run the whole ctest
# suite (GPU tests included), run every GPU test under compute-sanitizer (memcheck,
# racecheck, synccheck), and write a machine-readable summary.
#   scripts/device-check.sh            summary to $OUT/device-check.json if OUT is set,
#                                      else build-device/device-check.json
# Env: TETRA_JOBS (build jobs), TETRA_SANITIZE_TIMEOUT (seconds per sanitizer run, 240).
# Under the sanitizers tests run with TETRA_TEST_QUICK=1, which skips their largest cases.
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-device
out=${OUT:-$build}
mkdir -p "$out"
mkdir -p "$out/logs"
log="$out/logs/device-check.log"
: > "$log"
jobs=${TETRA_JOBS:-$(nproc)}
san_timeout=${TETRA_SANITIZE_TIMEOUT:-240}
# gpu_bench_aa times cuBLASLt and our instrument, no tetra kernel of its own: it runs in
# ctest above but not under the sanitizers (where it would only time the sanitizer)
san_skip=${TETRA_SANITIZE_SKIP:-gpu_bench_aa}
export PATH="/usr/local/cuda/bin:$PATH"

echo "== configure + build" | tee -a "$log"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >>"$log" 2>&1 &&
  cmake --build "$build" -j "$jobs" >>"$log" 2>&1
build_rc=$?
[ $build_rc -eq 0 ] || { echo "build FAILED (see $log)"; tail -40 "$log"; }

echo "== ctest" | tee -a "$log"
ctest --test-dir "$build" -j 4 --output-on-failure --output-junit ctest.xml >>"$log" 2>&1
ctest_rc=$?
passed=0 failed=0 skipped=0
if [ -f "$build/ctest.xml" ]; then
  passed=$(grep -c 'status="run"' "$build/ctest.xml")
  failed=$(grep -c 'status="fail"' "$build/ctest.xml")
  skipped=$(grep -c 'status="disabled"\|status="notrun"' "$build/ctest.xml")
  cp "$build/ctest.xml" "$out/logs/" 2>/dev/null
fi
grep -E "Test +#|tests passed|FAILED|Failed|Skipped" "$log" | tail -40

san_json=""
san_total=0
if command -v compute-sanitizer >/dev/null; then
  # every (tool, test) pair runs concurrently: the GPU and 16 cores have room, and the
  # slowest pair, not the sum, then bounds the wall time
  pids=()
  for tool in memcheck racecheck synccheck; do
    for t in "$build"/tests/gpu_*; do
      [ -x "$t" ] || continue
      name=$(basename "$t")
      case " $san_skip " in *" $name "*) continue;; esac
      ( TETRA_TEST_QUICK=1 timeout "$san_timeout" compute-sanitizer --tool "$tool" \
          --error-exitcode 99 "$t" > "$out/logs/san-$tool-$name.log" 2>&1
        echo $? > "$out/logs/san-$tool-$name.rc" ) &
      pids+=($!)
    done
  done
  wait "${pids[@]}"
  for tool in memcheck racecheck synccheck; do
    for t in "$build"/tests/gpu_*; do
      [ -x "$t" ] || continue
      name=$(basename "$t")
      case " $san_skip " in *" $name "*) continue;; esac
      slog="$out/logs/san-$tool-$name.log"
      rc=$(cat "$out/logs/san-$tool-$name.rc"); rm -f "$out/logs/san-$tool-$name.rc"
      # memcheck/synccheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY:
      # H hazards displayed (E errors, W warnings)"
      errs=$(grep -Eo "ERROR SUMMARY: [0-9]+|\([0-9]+ errors" "$slog" | grep -Eo "[0-9]+" | tail -1)
      [ -n "$errs" ] || errs=-1
      [ "$rc" -eq 124 ] && errs=-1
      [ "$rc" -ne 0 ] && [ "$errs" = "0" ] && errs=-1   # the test itself failed
      echo "sanitizer $tool $name: rc=$rc errors=$errs" | tee -a "$log"
      [ "$errs" != "0" ] && san_total=$((san_total + 1))
      san_json="$san_json{\"tool\":\"$tool\",\"test\":\"$name\",\"rc\":$rc,\"errors\":$errs},"
    done
  done
else
  echo "compute-sanitizer not found" | tee -a "$log"
  san_total=-1
fi

dev=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
# the device machine gets a copy of the tree without .git: the caller passes TETRA_COMMIT
commit=${TETRA_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
dirty=${TETRA_DIRTY:-$([ -n "$(git status --porcelain 2>/dev/null)" ] && echo true || echo false)}
cat > "$out/device-check.json" <<JSON
{ "tool": "scripts/device-check.sh", "commit": "$commit", "dirty_tree": $dirty,
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "device": "${dev%%,*}", "driver": "$(echo "${dev#*,}" | tr -d ' ')",
  "build_rc": $build_rc, "ctest_rc": $ctest_rc,
  "tests": {"passed": $passed, "failed": $failed, "skipped": $skipped},
  "sanitizer_runs_with_errors": $san_total,
  "sanitizer": [${san_json%,}] }
JSON
cat "$out/device-check.json"
[ $build_rc -eq 0 ] && [ $ctest_rc -eq 0 ] && [ "$san_total" = "0" ]
