#!/usr/bin/env bash
# How long `render-stories frames` takes to count an open-ended storyboard's frames (a figure,
# not a pass/fail test): the demo, and a ten-minute storyboard of the sample media with a hold
# and a swipe every story, each counted RUNS times (default 5), the median printed. Since the
# planner (FramePlanner) counts without rendering, the cost is opening each source once.
#   bench/frame-count.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
runs=${1:-5}
quiet_release_build
bin=$PWD/.build/release/render-stories
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp samples/*.mp4 samples/*.jpg "$work/"
cp samples/demo.json "$work/demo.json"

# Ten minutes: 230 stories of about 5 s (a video, or a photo then a video), each held once and
# most left by a swipe, the rest by their items' ends.
python3 - "$work/ten-minutes.json" <<'PY'
import json, sys
videos = ["beach.mp4", "city.mp4", "night.mp4", "forest.mp4"]
stories, script, t = [], [], 0.0
for i in range(230):
    items = [{"uri": videos[i % 4], "duration": 3.0}] if i % 3 else [{"uri": "sunset.jpg", "duration": 1.5}, {"uri": videos[i % 4], "duration": 2.0}]
    stories.append({"id": f"s{i}", "items": items})
    script.append({"at": round(t + 0.8, 3), "action": "hold", "for": 0.5})
    if i % 2:
        script.append({"at": round(t + 2.5, 3), "action": "swipe", "direction": "next"})
        t += 2.5 + 0.6
    else:
        t += 3.5 + 0.6 + (0.5 if True else 0)
board = {"canvas": {"width": 720, "height": 1280, "fps": 30}, "transition": {"style": "cube", "duration": 0.6},
         "stories": stories, "script": script}
json.dump(board, open(sys.argv[1], "w"))
PY

count() { # label, board ("" for the process alone: --version)
  local label=$1 board=$2 times=() frames=0
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s.%N)
    if [[ -n $board ]]; then frames=$("$bin" frames "$board"); else "$bin" --version >/dev/null; fi
    end=$(date +%s.%N)
    times+=("$(python3 -c "print(($end - $start) * 1000)")")
  done
  python3 - "$label" "$frames" "${times[@]}" <<'PY'
import statistics, sys
label, frames, values = sys.argv[1], int(sys.argv[2]), [float(v) for v in sys.argv[3:]]
print(f"{label:<22} {frames:6d} frames ({frames / 30 / 60:4.1f} min at 30 fps)  median {statistics.median(values):7.1f} ms wall"
      f"  (min {min(values):.1f}, max {max(values):.1f}, {len(values)} runs)")
PY
}

echo "render-stories frames, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
count "process start alone" ""
count "demo" "$work/demo.json"
count "ten-minute storyboard" "$work/ten-minutes.json"
