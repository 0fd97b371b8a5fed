#!/usr/bin/env bash
# Decode + tone mapping of an HDR phone video (a figure, not a pass/fail test): a 10-bit HEVC
# HLG clip at 1080x1920, SECONDS long (default 3) at 30 fps, played by render-stories at its
# own size (stored PNGs, level 0), beside the ffmpeg CLI decoding it through the same filters
# into RGBA. The comparison is CPU time per frame: render-stories' decode and convert stages
# (the decoder's frame threads included; convert is tone mapping plus scaling to the canvas)
# against ffmpeg's user + system time (-benchmark). Wall figures are printed too, raw; the
# render's also hold drawing and PNG writing. Medians of RUNS (default 3).
#   bench/phone-video.sh [runs] [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
runs=${1:-3}
seconds=${2:-3}
quiet_release_build
bin=.build/release/render-stories
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A phone-like clip: moving detail (testsrc2) tagged as an iPhone tags HLG.
ffmpeg -v error -y -f lavfi -i "testsrc2=s=1080x1920:r=30:d=$seconds" -c:v libx265 -preset fast \
  -x265-params log-level=error -pix_fmt yuv420p10le -profile:v main10 -tag:v hvc1 \
  -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc "$work/hlg.mp4"
frames=$((seconds * 30))
cat >"$work/hdr.json" <<JSON
{"canvas": {"width": 1080, "height": 1920, "fps": 30}, "duration": $seconds,
 "stories": [{"id": "hdr", "items": [{"uri": "hlg.mp4"}]}]}
JSON
chain="zscale=tin=arib-std-b67:pin=bt2020:min=bt2020nc:rin=tv:t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709,format=gbrp,format=rgba"

ours=() decode=() convert=() cpu=() wall=()
for _ in $(seq "$runs"); do
  "$bin" render "$work/hdr.json" --png-level 0 --no-overlay --quiet --output "$work/out"
  read -r ms dec conv < <(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); m=s["stages_ms"]; print(1000*s["wall_seconds"]/s["frames"], m["decode"], m["convert"])' "$work/out/summary.json")
  ours+=("$ms") decode+=("$dec") convert+=("$conv")
  # -benchmark prints "bench: utime=1.234s stime=0.123s rtime=1.000s".
  read -r u s r < <(ffmpeg -hide_banner -nostats -benchmark -i "$work/hlg.mp4" -vf "$chain" -f null - 2>&1 \
    | sed -n 's/.*utime=\([0-9.]*\)s stime=\([0-9.]*\)s rtime=\([0-9.]*\)s.*/\1 \2 \3/p')
  cpu+=("$(python3 -c "print(1000*($u+$s)/$frames)")") wall+=("$(python3 -c "print(1000*$r/$frames)")")
done
python3 - "$frames" "$(nproc)" "${ours[*]}" "${decode[*]}" "${convert[*]}" "${cpu[*]}" "${wall[*]}" <<'PY'
import statistics, sys
frames, cores = sys.argv[1], sys.argv[2]
ours, decode, convert, cpu, wall = ([float(v) for v in a.split()] for a in sys.argv[3:])
m = statistics.median
both = [d + c for d, c in zip(decode, convert)]
print(f"HLG 10-bit HEVC 1080x1920, {frames} frames, {cores} cores, median of {len(ours)} runs")
print(f"render-stories  decode+convert CPU {m(both):7.2f} ms/frame  (decode {m(decode):.2f}, convert {m(convert):.2f}; runs {both})")
print(f"render-stories  render wall        {m(ours):7.2f} ms/frame  ({1000/m(ours):.1f} fps, with drawing and PNG level 0; runs {ours})")
print(f"ffmpeg -vf zscale,tonemap,zscale,format=rgba -f null -  CPU {m(cpu):7.2f} ms/frame  (runs {cpu})")
print(f"ffmpeg                            wall {m(wall):7.2f} ms/frame  ({1000/m(wall):.1f} fps; runs {wall})")
print(f"ratio (CPU per frame) render-stories / ffmpeg: {m(both)/m(cpu):.2f}x")
PY
