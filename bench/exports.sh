#!/usr/bin/env bash
# Each export of `render` beside the ffmpeg CLI doing the same encode from the same PNG frames
# (figures, not pass/fail):
#   bench/exports.sh [WxH] [seconds]          (default 720x1280, 4 s of samples/demo.json at 30 fps)
# RUNS (default 3): the median of that many runs of each. RENDER_STORIES: a render-stories binary
# to time instead of building the release one.
#
# Columns: ours, the whole `render --no-png --<format>` (drawing and encoding); draw, the same
# render with a 16-pixel, 1 fps GIF (drawing alone, near enough); ours-draw, the encode's share;
# ffmpeg, `ffmpeg -i frame-%06d.png` with the same encoder, options and filters (and, for the
# formats with sound, silent 48 kHz sound encoded as ours is), PNG decoding included. The target
# is ours-draw / ffmpeg <= 1.1.
# Run it with the release binary on an otherwise idle machine: with a debug binary the drawing
# dominates, and the draw column's own noise swamps the encode's share.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
size=${1:-720x1280}
seconds=${2:-4}
runs=${RUNS:-3}
fps=30
width=${size%x*} height=${size#*x}
command -v ffmpeg >/dev/null || { echo "needs the ffmpeg CLI (apt-get install ffmpeg)" >&2; exit 1; }
if [[ -n ${RENDER_STORIES:-} ]]; then
  bin=$RENDER_STORIES
else
  quiet_release_build
  bin=$PWD/.build/release/render-stories
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
render=("$bin" render samples/demo.json --size "$size" --fps "$fps" --duration "$seconds" --quiet)
"${render[@]}" --output "$work/frames" >/dev/null
# As the render does: 480 px wide, never wider than the canvas, both sides even.
anim_width=$(( (width < 480 ? width : 480) / 2 * 2 ))
anim_height=$(python3 -c "print(round($anim_width * $height / $width / 2) * 2)")
anim="fps=15,scale=$anim_width:$anim_height:flags=lanczos"
silence=(-f lavfi -i "anullsrc=r=48000:cl=stereo" -shortest)
gop=(-g $fps -keyint_min $fps)

# Median wall seconds of RUNS runs of a command.
median() {
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    end=$(date +%s%N)
    times+=("$(( (end - start) / 1000000 ))")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)] / 1000}'
}

draw=$(median "${render[@]}" --output "$work/out" --no-png --gif "$work/tiny.gif" --anim-width 16 --anim-fps 1)
frames=(-framerate "$fps" -i "$work/frames/frame-%06d.png")
ff=(ffmpeg -v error -y -threads 0)

declare -A ours ffmpeg_args
ours[mp4-h264]="--mp4 $work/a.mp4"
ffmpeg_args[mp4-h264]="-c:v libx264 -crf 20 -preset veryfast -bf 2 -x264-params keyint=$fps:min-keyint=$fps:scenecut=0:open-gop=0 -pix_fmt yuv420p -c:a aac -b:a 128k -movflags +faststart $work/b.mp4"
ours[mp4-hevc]="--mp4 $work/a.mp4 --codec hevc"
ffmpeg_args[mp4-hevc]="-c:v libx265 -crf 24 -preset veryfast -x265-params keyint=$fps:min-keyint=$fps:scenecut=0:open-gop=0:bframes=2:log-level=error -tag:v hvc1 -pix_fmt yuv420p -c:a aac -b:a 128k -movflags +faststart $work/b.mp4"
ours[webm-vp9]="--webm $work/a.webm"
ffmpeg_args[webm-vp9]="-c:v libvpx-vp9 -crf 32 -b:v 0 -deadline good -cpu-used 5 -row-mt 1 ${gop[*]} -pix_fmt yuv420p -c:a libopus -b:a 128k $work/b.webm"
ours[gif]="--gif $work/a.gif"
ffmpeg_args[gif]="-an -filter_complex $anim,split[f][c];[c]palettegen=stats_mode=diff[p];[f][p]paletteuse=dither=sierra2_4a:diff_mode=rectangle $work/b.gif"
ours[webp]="--webp $work/a.webp"
ffmpeg_args[webp]="-an -vf $anim,format=yuv420p -c:v libwebp_anim -loop 0 $work/b.webp"
ours[apng]="--apng $work/a.apng"
ffmpeg_args[apng]="-an -vf $anim,format=rgb24 -c:v apng -plays 0 -f apng $work/b.apng"
order=(mp4-h264 mp4-hevc webm-vp9 gif webp apng)
if ffmpeg -hide_banner -encoders 2>/dev/null | grep -q libsvtav1; then
  ours[webm-av1]="--webm $work/a.webm --webm-codec av1"
  ffmpeg_args[webm-av1]="-c:v libsvtav1 -crf 35 -preset 10 -svtav1-params scd=0 ${gop[*]} -pix_fmt yuv420p -c:a libopus -b:a 128k $work/b.webm"
  order=(mp4-h264 mp4-hevc webm-vp9 webm-av1 gif webp apng)
fi

echo "exports of samples/demo.json, $size, $seconds s at $fps fps ($(( seconds * fps )) frames); animations ${anim_width}x$anim_height at 15 fps; median of $runs"
printf '%-9s %8s %8s %10s %8s %10s %10s\n' format ours draw ours-draw ffmpeg ours/ff "(ours-draw)/ff"
set -f # the filter graphs' [labels] are not file patterns
for format in "${order[@]}"; do
  # shellcheck disable=SC2206
  extra=(${ours[$format]})
  # shellcheck disable=SC2206
  args=(${ffmpeg_args[$format]})
  if [[ $format == mp4-* || $format == webm-* ]]; then input=("${frames[@]}" "${silence[@]}"); else input=("${frames[@]}"); fi
  mine=$(median "${render[@]}" --output "$work/out" --no-png "${extra[@]}")
  theirs=$(median "${ff[@]}" "${input[@]}" "${args[@]}")
  python3 -c "
m, d, f = $mine, $draw, $theirs
print(f'{\"$format\":<9} {m:8.2f} {d:8.2f} {m - d:10.2f} {f:8.2f} {m / f:10.2f} {(m - d) / f:10.2f}')"
done
