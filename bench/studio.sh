#!/usr/bin/env bash
# The studio's speed (issue 31), figures not pass/fail: at 720x1280 on samples/demo.json, from a
# warm server, measured in the page (headless chromium: request, draw, transfer, decode):
#   - a frame on demand at random frames (every one a seek): p50, p95 (targets 60 ms, 150 ms)
#   - a half-size frame while dragging (the scrubber moving a few frames at a time): p95 (60 ms)
#   - beside them, the same frames as separate processes: `render --frames N` (the very frame)
#     and `still --page P --time T` at the time of the frame
#   - from saving the storyboard to the new frame in the page: p95 (500 ms)
#   bench/studio.sh [frames]     (default 40 frames per figure; CONFIGURATION=debug for a debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
count=${1:-40}
configuration=${CONFIGURATION:-release}
if [[ $configuration == release ]]; then
  quiet_release_build
else
  quiet_build -c "$configuration" --product render-stories
fi
bin=$PWD/.build/$configuration/render-stories
work=$(mktemp -d)
studio_pid=
cleanup() {
  [[ -n $studio_pid ]] && kill -INT "$studio_pid" 2>/dev/null && wait "$studio_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The demo in a folder of its own (the edits below change its storyboard), media linked.
for f in samples/*; do [[ $f == *.json ]] || ln -s "$PWD/$f" "$work/"; done
cp samples/demo.json "$work/demo.json"
"$bin" studio "$work/demo.json" --port 0 --output "$work/out" >"$work/studio.log" 2>&1 &
studio_pid=$!
for _ in $(seq 100); do grep -q ' at http' "$work/studio.log" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$work/studio.log")
echo "studio: $url (demo at 720x1280, $configuration build, $(nproc) cores)"
python3 bench/studio_bench.py "$url" "$bin" "$work" "$count"
