#!/usr/bin/env bash
# PNG encoders side by side on the frames of bench/compare-ffmpeg.sh (figures, not pass/fail):
#   [FPNGE_SRC=/path/to/fpnge] bench/png-encoders.sh [720x1280|1080x1920 ...]
# Renders the benchmark's two noisy clips and cube turn, keeps eight of its frames (before,
# during and after the turn) as raw RGBA, and times live-stories' default PNG path (level 1)
# on them, one core, RGB output. With FPNGE_SRC, a folder holding fpnge's sources
# (github.com/veluca93/fpnge: fpnge.cc and fpnge.h; not part of this repository), fpnge is built
# from there with its own flags (-O3 -march=native) and its levels 1-5 are timed alternately
# with ours on the same frames. Prints medians of RUNS (5) runs: MP/s of the encoding thread's
# CPU time (what a busy neighbour does not change) and of the wall time, ms per frame and bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
sizes=("${@:-720x1280}")
runs=${RUNS:-5}
command -v ffmpeg >/dev/null || { echo "needs the ffmpeg CLI (apt-get install ffmpeg)" >&2; exit 1; }
quiet_release_build
bin=$PWD/.build/release/render-stories
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The encoder under test is compiled from the package's C sources with clang -O2, as SwiftPM's
# release build compiles them; the harness is bench/png-encoders.c.
sources=(Sources/CStoryPNG/*.c)
flags=(-O2 -ISources/CStoryPNG/include -ISources/CStoryPNG)
if [[ -n ${FPNGE_SRC:-} ]]; then
  [[ -f $FPNGE_SRC/fpnge.cc && -f $FPNGE_SRC/fpnge.h ]] || { echo "FPNGE_SRC has no fpnge.cc/fpnge.h" >&2; exit 1; }
  clang++ -O3 -march=native -c "$FPNGE_SRC/fpnge.cc" -o "$work/fpnge.o"
  clang "${flags[@]}" -DHAVE_FPNGE -I"$FPNGE_SRC" bench/png-encoders.c "${sources[@]}" "$work/fpnge.o" \
    -lpng16 -lz -lstdc++ -o "$work/png-encoders"
else
  clang "${flags[@]}" bench/png-encoders.c "${sources[@]}" -lpng16 -lz -o "$work/png-encoders"
fi

for size in "${sizes[@]}"; do
  width=${size%x*} height=${size#*x}
  rate=$([[ $width -ge 1080 ]] && echo 8M || echo 5M)
  for clip in a b; do
    hue=$([[ $clip == a ]] && echo 0 || echo 120)
    ffmpeg -v error -y -f lavfi -i "testsrc2=s=${size}:r=30:d=4,hue=h=$hue,noise=alls=20:allf=t" \
      -c:v libx264 -preset veryfast -b:v $rate -maxrate $rate -bufsize $rate -pix_fmt yuv420p "$work/$clip.mp4"
  done
  cat > "$work/board.json" <<JSON
{"canvas": {"width": $width, "height": $height, "fps": 30},
 "transition": {"style": "cube", "duration": 1.0},
 "duration": 3,
 "stories": [{"id": "a", "items": [{"uri": "a.mp4"}]}, {"id": "b", "items": [{"uri": "b.mp4"}]}],
 "script": [{"at": 1.0, "action": "swipe", "direction": "next"}]}
JSON
  rm -rf "$work/out"
  "$bin" render "$work/board.json" --output "$work/out" >/dev/null
  rm -f "$work/frames.rgba"
  for frame in 10 25 35 42 50 58 70 85; do
    ffmpeg -v error -i "$work/out/frame-$(printf %06d $frame).png" -f rawvideo -pix_fmt rgba - >> "$work/frames.rgba"
  done
  "$work/png-encoders" "$width" "$height" "$work/frames.rgba" "$runs"
done
