#!/usr/bin/env bash
# Throughput of live rooms of 2, 4 and 9 participants beside a two-story cube turn, at
# 720x1280 (figures, not a test), the grid of 9 (pages of 9), the grid of 16 over two pages
# (pages of 9, the second shown half the time) and the stage of 4 (of 9 participants), and the
# peak RSS of the 9-participant room and of a 16-participant grid.
# The 4-room is samples/room.json (one video decoded large, an audio player per participant,
# the dominant speaker measured from the sound); the 2- and 9-rooms are made here from the same
# samples (the 9-room repeats the four sources under other ids; its strip shows a "+N" chip,
# as RoomPicture does for more participants than slots). The cube is two sample clips with a swipe.
# Release build, RUNS renders each (default 5), alternated; medians of ms per frame.
#   bench/room-throughput.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
runs=${1:-5}
# RENDER_STORIES=PATH measures another build (an older commit's, for a before-and-after) as it is.
if [[ -n ${RENDER_STORIES:-} ]]; then
  bin=$(realpath "$RENDER_STORIES")
else
  quiet_release_build
  bin=$PWD/.build/release/render-stories
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/cube.json" <<JSON
{"canvas": {"width": 720, "height": 1280, "fps": 30}, "duration": 3,
 "stories": [{"id": "beach", "items": [{"uri": "$PWD/samples/beach.mp4"}]},
             {"id": "city", "items": [{"uri": "$PWD/samples/city.mp4"}]}],
 "script": [{"at": 1, "action": "swipe", "direction": "next"}]}
JSON
# A room of N participants from the four sample sources, repeated (ids ana, ben, cy, dee, ana2, …).
make_room() {
  local keys=${3:-} script=${4:-}
  python3 - "$PWD/samples" "$1" "${keys:-"{}"}" "${script:-"[]"}" > "$2" <<'PY'
import json, sys
samples, count = sys.argv[1], int(sys.argv[2])
room_keys = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
script = json.loads(sys.argv[4]) if len(sys.argv) > 4 else []
names = ["ana", "ben", "cy", "dee"]
people = []
for i in range(count):
    name = names[i % 4]
    suffix = "" if i < 4 else str(i // 4 + 1)
    people.append({"id": name + suffix, "uri": f"{samples}/room-{name}.mp4", "avatar": f"{samples}/avatar-{name}.jpg"})
print(json.dumps({"canvas": {"width": 720, "height": 1280, "fps": 30, "background": "#101014"},
                  "stories": [{"id": "panel", "room": dict({"participants": people}, **room_keys), "duration": 10}],
                  "script": script}))
PY
}
make_room 2 "$work/room2.json"
make_room 9 "$work/room9.json"
make_room 9 "$work/grid9.json" '{"layout": "grid", "tiles_per_page": 9}'
make_room 16 "$work/grid16.json" '{"layout": "grid", "tiles_per_page": 9}' '[{"action": "page", "at": 1.5, "page": 2}]'
make_room 9 "$work/stage4.json" '{"layout": "stage", "stage_size": 4}'
cube=() room2=() room4=() room9=() grid9=() grid16=() stage4=()
per_frame() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(1000*s["wall_seconds"]/s["frames"])' "$1/summary.json"; }
for _ in $(seq "$runs"); do
  "$bin" render "$work/cube.json" --output "$work/cube" --quiet; cube+=("$(per_frame "$work/cube")")
  "$bin" render "$work/room2.json" --duration 3 --output "$work/room2" --quiet; room2+=("$(per_frame "$work/room2")")
  "$bin" render samples/room.json --duration 3 --output "$work/room4" --quiet; room4+=("$(per_frame "$work/room4")")
  "$bin" render "$work/room9.json" --duration 3 --output "$work/room9" --quiet; room9+=("$(per_frame "$work/room9")")
  "$bin" render "$work/grid9.json" --duration 3 --output "$work/grid9" --quiet; grid9+=("$(per_frame "$work/grid9")")
  "$bin" render "$work/grid16.json" --duration 3 --output "$work/grid16" --quiet; grid16+=("$(per_frame "$work/grid16")")
  "$bin" render "$work/stage4.json" --duration 3 --output "$work/stage4" --quiet; stage4+=("$(per_frame "$work/stage4")")
done
python3 - "$runs" "${cube[@]}" "${room2[@]}" "${room4[@]}" "${room9[@]}" "${grid9[@]}" "${grid16[@]}" "${stage4[@]}" <<'PY'
import statistics, sys
runs = int(sys.argv[1]); values = [float(v) for v in sys.argv[2:]]
labels = ("two-story cube", "2-participant room", "4-participant room", "9-participant room",
          "grid of 9", "grid of 16, 2 pages", "stage of 4 (of 9)")
for n, label in enumerate(labels):
    part = values[n * runs:(n + 1) * runs]
    m = statistics.median(part)
    print(f"{label:<20} median {m:6.2f} ms/frame ({1000 / m:5.1f} fps)  min {min(part):.2f} max {max(part):.2f}  ({runs} runs, 720x1280)")
PY
for n in room2 room4 room9 grid9 grid16 stage4; do
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(f"{sys.argv[2]} stages (CPU ms per frame, last run):", s["stages_ms"])' "$work/$n/summary.json" "$n"
done
# Peak resident memory of one more 9-participant render (GNU time's %M, kilobytes).
/usr/bin/time -f %M -o "$work/rss" "$bin" render "$work/room9.json" --duration 3 --output "$work/room9-rss" --quiet
echo "9-participant room peak RSS: $(( $(cat "$work/rss") / 1024 )) MB"
/usr/bin/time -f %M -o "$work/rss16" "$bin" render "$work/grid16.json" --duration 3 --output "$work/grid16-rss" --quiet
echo "16-participant grid peak RSS: $(( $(cat "$work/rss16") / 1024 )) MB"
