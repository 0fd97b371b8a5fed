#!/usr/bin/env bash
# Throughput of a live room beside a two-story cube turn, at 720x1280 (figures, not a test).
# The room is samples/room.json (4 participants: one video decoded large, four audio players,
# the dominant speaker measured from the sound); the cube is two sample clips with a swipe.
# Release build, RUNS renders each (default 5), alternated; medians of ms per frame.
#   bench/room-throughput.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
runs=${1:-5}
quiet_build -c release --product render-stories
bin=$PWD/.build/release/render-stories
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/cube.json" <<JSON
{"canvas": {"width": 720, "height": 1280, "fps": 30}, "duration": 3,
 "stories": [{"id": "beach", "items": [{"uri": "$PWD/samples/beach.mp4"}]},
             {"id": "city", "items": [{"uri": "$PWD/samples/city.mp4"}]}],
 "script": [{"at": 1, "action": "swipe", "direction": "next"}]}
JSON
cube=() room=()
per_frame() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(1000*s["wall_seconds"]/s["frames"])' "$1/summary.json"; }
for _ in $(seq "$runs"); do
  "$bin" render "$work/cube.json" --output "$work/cube" --quiet; cube+=("$(per_frame "$work/cube")")
  "$bin" render samples/room.json --duration 3 --output "$work/room" --quiet; room+=("$(per_frame "$work/room")")
done
python3 - "$runs" "${cube[@]}" "${room[@]}" <<'PY'
import statistics, sys
runs = int(sys.argv[1]); values = [float(v) for v in sys.argv[2:]]
for label, part in (("two-story cube", values[:runs]), ("4-participant room", values[runs:])):
    m = statistics.median(part)
    print(f"{label:<20} median {m:6.2f} ms/frame ({1000 / m:5.1f} fps)  min {min(part):.2f} max {max(part):.2f}  ({runs} runs, 720x1280)")
PY
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("room stages (CPU ms per frame, last run):", s["stages_ms"])' "$work/room/summary.json"
