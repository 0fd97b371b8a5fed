#!/usr/bin/env bash
# Time per frame of the bundled demo at 720x1280 (a figure, not a pass/fail test).
# Renders it RUNS times (default 5) with the release build and prints the median, also at
# --png-level 0 to show how much of a frame is PNG compression.
#   bench/demo-frame-time.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
runs=${1:-5}
quiet_release_build
bin=.build/release/render-stories
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

measure() { # label, extra args...
  local label=$1; shift
  local times=()
  for _ in $(seq "$runs"); do
    "$bin" render samples/demo.json --output "$out/frames" "$@" >/dev/null
    times+=("$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(1000*s["wall_seconds"]/s["frames"])' "$out/frames/summary.json")")
  done
  python3 - "$label" "${times[@]}" <<'PY'
import statistics, sys
label, values = sys.argv[1], [float(v) for v in sys.argv[2:]]
print(f"{label:<28} median {statistics.median(values):6.2f} ms/frame  (min {min(values):.2f}, max {max(values):.2f}, {len(values)} runs, {1000/statistics.median(values):.1f} fps)")
PY
}

frames=$("$bin" render samples/demo.json --output "$out/frames" >/dev/null; python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames"])' "$out/frames/summary.json")
echo "demo: $frames frames at 720x1280, $(nproc) cores"
measure "png level 1 (default)"
measure "png level 0 (stored)" --png-level 0
measure "png level 6" --png-level 6
