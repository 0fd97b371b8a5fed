#!/usr/bin/env bash
# A batch of variants beside the same variants rendered one by one (figures, not a test): ROWS
# rows (default 40) of a 6 s 720x1280 storyboard whose clip, photo and colour are parameters,
# each with --mp4. Prints the sum of the separate renders' wall times, that sum divided by the
# cores, the batch's wall time, and their ratio (the target: at most 1.05), and checks that one
# row's frames from the batch equal `render --set`'s.
#   bench/batch.sh [ROWS]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
rows=${1:-40}
quiet_release_build
bin=$PWD/.build/release/render-stories
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp samples/beach.mp4 samples/city.mp4 samples/forest.mp4 samples/sunset.jpg samples/home.jpg "$work/"
cat > "$work/board.json" <<'JSON'
{"parameters": {"clip": {"type": "file", "default": "beach.mp4"}, "photo": {"type": "file", "default": "sunset.jpg"},
                "accent": {"type": "colour", "default": "#ff8800"}, "name": {"type": "string", "default": "row"}},
 "canvas": {"width": 720, "height": 1280, "fps": 30, "background": "{{accent}}"}, "duration": 6,
 "stories": [{"id": "{{name}}", "items": [{"uri": "{{clip}}", "duration": 3}, {"uri": "{{photo}}", "duration": 3}]}]}
JSON
clips=(beach.mp4 city.mp4 forest.mp4) photos=(sunset.jpg home.jpg) colours=("#ff8800" "#0088ff" "#22aa44" "#aa2266")
{
  echo "name,clip,photo,accent"
  for ((i = 1; i <= rows; i++)); do
    echo "v$i,${clips[i % 3]},${photos[i % 2]},${colours[i % 4]}"
  done
} > "$work/rows.csv"
cores=$(nproc)
echo "batch of $rows variants (6 s, 720x1280, 30 fps, --mp4) on $cores cores"
separate=0
while IFS=, read -r name clip photo accent; do
  [[ $name == name ]] && continue
  started=$(date +%s.%N)
  "$bin" render "$work/board.json" --set "name=$name" --set "clip=$clip" --set "photo=$photo" --set "accent=$accent" \
    --output "$work/separate/$name" --mp4 "$work/separate/$name/clip.mp4" --quiet
  separate=$(python3 -c "print($separate + $(date +%s.%N) - $started)")
done < "$work/rows.csv"
# How busy one render keeps the cores: its CPU seconds over its wall seconds.
/usr/bin/time -f "%e %U %S" -o "$work/one.time" "$bin" render "$work/board.json" --set name=one \
  --output "$work/one" --mp4 "$work/one/clip.mp4" --quiet
read -r one_wall one_user one_system < "$work/one.time"
started=$(date +%s.%N)
"$bin" batch "$work/board.json" --data "$work/rows.csv" --name-from name --output "$work/batch" --mp4 clip.mp4 --quiet >/dev/null
batch=$(python3 -c "print($(date +%s.%N) - $started)")
same=yes
for frame in "$work/separate/v7"/frame-*.png; do cmp -s "$frame" "$work/batch/v7/$(basename "$frame")" || same=no; done
python3 - "$separate" "$batch" "$cores" "$rows" "$same" "$one_wall" "$one_user" "$one_system" <<'PY'
import sys
separate, batch, cores, rows, same = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
one_wall, one_cpu = float(sys.argv[6]), float(sys.argv[7]) + float(sys.argv[8])
print(f"  one render alone: {one_wall:.2f} s wall, {one_cpu:.2f} s CPU: {one_cpu / one_wall:.2f} of {cores} cores busy")
print(f"  separate renders: {separate:.1f} s in all ({separate / rows:.2f} s each), / {cores} cores = {separate / cores:.1f} s")
print(f"  batch:            {batch:.1f} s ({batch / rows:.2f} s a row), {batch / (separate / cores):.2f}x the separate sum / cores (target <= 1.05)")
print(f"  row v7's frames from the batch equal render --set's: {same}")
PY
