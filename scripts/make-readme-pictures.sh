#!/usr/bin/env bash
# Rebuilds the README's pictures: docs/contact-sheet.png and docs/timeline.png (the demo's,
# drawn by render-stories itself) and docs/demo-strip.png, a strip made with the ffmpeg CLI:
# the present-from-bubble intro over the blurred home screen, a video item with its progress
# segments, a hold (overlay faded), the auto-advance cube, the cancelled drag, the flick, the
# slide, the cancelled pull, the dismiss, and the loading ring (not the demo's: a realtime render
# of a stream whose server accepts and never answers).
set -euo pipefail
cd "$(dirname "$0")/.."
make --no-print-directory build >/dev/null
out=$(mktemp -d)
server=""
trap '[[ -n $server ]] && kill $server 2>/dev/null; rm -rf "$out"' EXIT
bin=.build/release/render-stories
$bin render samples/demo.json --output "$out/demo" --contact-sheet docs/contact-sheet.png --sheet-frames 12 \
  --timeline docs/timeline.png >/dev/null

# The loading ring: a live story whose server never answers, in realtime.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -c "
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $port)); s.listen(8); held = []
while True:
    c, _ = s.accept(); held.append(c)
" & server=$!
for _ in $(seq 100); do (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.05; done
cat > "$out/ring.json" <<JSON
{"canvas": {"width": 720, "height": 1280, "fps": 10}, "duration": 0.6, "clock": "realtime",
 "stories": [{"id": "live", "poster": "$PWD/samples/beach-poster.jpg",
              "items": [{"uri": "http://127.0.0.1:$port/live.m3u8", "live": true}]}]}
JSON
$bin render "$out/ring.json" --output "$out/ring" >/dev/null
ring=$(ls "$out"/ring/frame-*.png | tail -1)

inputs=() graph="" labels="" i=0
for frame in 7 30 78 132 171 218 243 396 427; do
  inputs+=(-i "$out/demo/$(printf 'frame-%06d.png' "$frame")")
  graph+="[$i]scale=180:320[s$i];"; labels+="[s$i]"; i=$((i + 1))
done
inputs+=(-i "$ring"); graph+="[$i]scale=180:320[s$i];"; labels+="[s$i]"; i=$((i + 1))
ffmpeg -v error -y "${inputs[@]}" -filter_complex "${graph}${labels}hstack=inputs=$i,pad=iw+10:ih+10:5:5:color=0x101014" \
  -frames:v 1 docs/demo-strip.png
echo "wrote docs/demo-strip.png, docs/contact-sheet.png and docs/timeline.png"
