#!/usr/bin/env bash
# Rebuilds docs/demo-strip.png, the README's contact strip of the demo, with the ffmpeg CLI.
# Frames: a video item, the photo item, the auto-advance cube, the cancelled drag, the slide,
# and the swiped cube.
set -euo pipefail
cd "$(dirname "$0")/.."
make --no-print-directory build >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
.build/release/render-stories render samples/demo.json --output "$out" >/dev/null
inputs=() graph="" labels=""
i=0
for frame in 30 105 144 180 219 345; do
  inputs+=(-i "$out/$(printf 'frame-%06d.png' "$frame")")
  graph+="[$i]scale=180:320[s$i];"
  labels+="[s$i]"
  i=$((i + 1))
done
ffmpeg -v error -y "${inputs[@]}" -filter_complex "${graph}${labels}hstack=inputs=$i,pad=iw+10:ih+10:5:5:color=0x101014" \
  -frames:v 1 docs/demo-strip.png
echo "wrote docs/demo-strip.png"
