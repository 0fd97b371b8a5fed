#!/usr/bin/env bash
# Peak resident memory of a 1080x1920 render as the number of stories grows (figures, not a
# test): the viewer holds at most two players, so memory should be flat in the story count.
# Also runs the lifecycle-cost benchmark (1000 play/stop cycles).
#   bench/memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
quiet_release_build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clips=(beach.mp4 city.mp4 night.mp4 forest.mp4)
for count in 5 20; do
  python3 - "$count" "$PWD/samples" > "$work/board-$count.json" <<'PY'
import json, sys
count, folder = int(sys.argv[1]), sys.argv[2]
clips = ["beach.mp4", "city.mp4", "night.mp4", "forest.mp4"]
stories = [{"id": f"s{i}", "items": [{"uri": f"{folder}/{clips[i % 4]}"}]} for i in range(count)]
script = [{"at": 0.5 + 0.5 * i, "action": "swipe", "direction": "next"} for i in range(count - 1)]
print(json.dumps({"canvas": {"width": 1080, "height": 1920, "fps": 30}, "duration": 0.5 * count + 0.5,
                  "stories": stories, "script": script}))
PY
  /usr/bin/time -f "%M" -o "$work/rss" .build/release/render-stories render "$work/board-$count.json" --output "$work/out-$count" >/dev/null
  echo "1080x1920, $count stories (a swipe every 0.5 s): peak RSS $(( $(cat "$work/rss") / 1024 )) MB, $(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["frames"], "frames, peak", s["peak_alive_players"], "players alive")' "$work/out-$count/summary.json")"
done
# SwiftPM keeps the Benchmarks package's build plan when only the main package (its path
# dependency) gains a source file or a target, and the build then fails to link or to find the
# module. A fresh plan costs a second.
rm -f Benchmarks/.build/release.yaml
quiet_build -c release --package-path Benchmarks --product lifecycle-cost
# render-stories' memory policy (ProcessMemory: mallopt of both thresholds to 128 KiB), set
# through glibc's tunables since the policy belongs to the command line, not to a library.
GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072 \
  Benchmarks/.build/release/lifecycle-cost samples/beach.mp4 1000 720x1280
