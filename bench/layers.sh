#!/usr/bin/env bash
# Issue 65's speed target for story layers: a 15 s story with 3 text layers, 2 animated
# stickers, music ducked under its sound and a trimmed clip renders at ≥ 0.8× the speed of the
# same story without them (the clip played from its start, no layers, no music).
#   bench/layers.sh [SIZE]        (default 720x1280; RUNS=3)
# Makes its media with ffmpeg (a 20 s clip with a voice-like tone, a song, two 12-frame GIFs),
# renders both storyboards RUNS times each, alternated, to an MP4 with no PNG frames (the
# marketing clip: the output where the layers' share is largest), and prints medians and one
# TARGET line. RENDER_STORIES=PATH measures another build as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
size=${1:-720x1280}
runs=${RUNS:-3}
if [[ -n ${RENDER_STORIES:-} ]]; then bin=$(realpath "$RENDER_STORIES"); else quiet_release_build; bin=$PWD/.build/release/render-stories; fi
work=$(mktemp -d)
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$work"' EXIT
ff() { ffmpeg -v error -y "$@"; }
ff -f lavfi -i "testsrc2=s=720x1280:r=30:d=20" -f lavfi -i "sine=frequency=300:sample_rate=48000:d=20,volume=0.5" \
   -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p -c:a aac "$work/clip.mp4"
ff -f lavfi -i "sine=frequency=1000:sample_rate=48000:d=30" -c:a libmp3lame "$work/song.mp3"
for name in spin blink; do
  ff -f lavfi -i "testsrc=s=160x160:r=12:d=1" -vf "split[a][b];[a]palettegen=reserve_transparent=1[p];[b][p]paletteuse" "$work/$name.gif"
done
cat > "$work/plain.json" <<JSON
{"canvas": {"width": 720, "height": 1280, "fps": 30},
 "stories": [{"id": "sale", "items": [{"uri": "clip.mp4", "duration": 15}]}]}
JSON
cat > "$work/layered.json" <<JSON
{"canvas": {"width": 720, "height": 1280, "fps": 30},
 "music": {"uri": "song.mp3", "volume": 0.5, "fade_in": 1, "duck": -15},
 "stories": [{"id": "sale", "layers": [{"text": "@shop", "size": 36, "y": 0.08, "background": "#00000088"}],
   "items": [{"uri": "clip.mp4", "in": 3, "out": 18, "layers": [
     {"text": "Summer sale", "size": 96, "bold": true, "stroke": {"width": 4},
      "keyframes": [{"t": 0, "x": -0.5, "easing": "ease-out"}, {"t": 0.6, "x": 0.5}, {"t": 14, "rotation": 0}, {"t": 15, "rotation": 20}]},
     {"text": "Everything must go — up to 50 % off, today only", "size": 48, "y": 0.8, "width": 0.7,
      "background": "#ffffffdd", "color": "#202020", "keyframes": [{"t": 1, "opacity": 0}, {"t": 2, "opacity": 1}]},
     {"image": "spin.gif", "width": 0.3, "x": 0.25, "y": 0.6, "keyframes": [{"t": 0, "rotation": 0}, {"t": 15, "rotation": 720}]},
     {"image": "blink.gif", "width": 0.25, "x": 0.75, "y": 0.62, "rotation": -12,
      "keyframes": [{"t": 0.4, "scale": 0, "easing": "spring"}, {"t": 1.2, "scale": 1}]}]}]}]}
JSON
timed() { # label storyboard -> appends seconds to $work/label
  /usr/bin/time -f "%e" -o "$work/time" "$bin" render "$work/$2" --size "$size" --no-png --mp4 "$work/$1.mp4" --quiet \
    --output "$work/out-$1" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; echo "$1 failed" >&2; exit 1; }
  tail -1 "$work/time" >> "$work/$1"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for r in $(seq "$runs"); do
  timed plain plain.json
  timed layered layered.json
done
frames() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$work/$1.mp4"; }
echo "layers bench: $size, 15 s at 30 fps, $runs runs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for label in plain layered; do
  echo "FIGURE $label: $(median < "$work/$label") s ($(tr '\n' ' ' < "$work/$label" | sed 's/ $//')), $(frames "$label") frames"
done
python3 - "$(median < "$work/plain")" "$(median < "$work/layered")" <<'PY'
import sys
plain, layered = map(float, sys.argv[1:])
ratio = plain / layered
print(f"TARGET layered story at >= 0.8x the plain one's speed: {ratio:.2f}x ({'met' if ratio >= 0.8 else 'NOT met'})")
PY
