#!/usr/bin/env bash
# Side by side with ffmpeg on the same inputs (figures, not pass/fail):
#   bench/compare-ffmpeg.sh [720x1280|1080x1920] [frames] [png-level]
# Two noisy clips (testsrc2 + noise, so they do not compress trivially), two stories, a 1 s swipe
# starting at 1 s. Alternates (A) render-stories render and (B) ffmpeg xfade → PNG, five runs
# each, and prints median wall times, PNG bytes and peak RSS, with the ratios A/B.
#
# The clips are encoded at the bit rates phones and upload sites use for stories (YouTube's
# recommended upload rate: 5 Mbit/s at 720p30, 8 Mbit/s at 1080p30), so decoding costs what it
# costs for real stories. CLIP_BITRATE overrides it: a rate such as 12M, "crf" for x264's
# CRF 23, which spends ~47 Mbit/s on this noise and makes decoding the largest stage, or "heavy"
# for CRF 18, as phones record (they spend what the picture needs, and sensor noise needs a lot).
# CLIP_CODEC picks the encoder: h264 (libx264, the default) or hevc (libx265, tagged hvc1 as
# phones tag it). The heavy case of issue 33 is
#   CLIP_BITRATE=heavy bench/compare-ffmpeg.sh 1080x1920
#   CLIP_BITRATE=heavy CLIP_CODEC=hevc bench/compare-ffmpeg.sh 1080x1920
# Every run prints the clips it made: codec, size and bit rate (ffprobe).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
size=${1:-720x1280}
frames=${2:-90}
level=${3:-1}
runs=${RUNS:-5}
width=${size%x*} height=${size#*x}
command -v ffmpeg >/dev/null || { echo "needs the ffmpeg CLI (apt-get install ffmpeg)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
# RENDER_STORIES=PATH measures another build as it is; ANCHOR=PATH renders a second build in the
# same rounds (a before-and-after from one run; see run_anchor).
if [[ -n ${RENDER_STORIES:-} ]]; then
  bin=$(realpath "$RENDER_STORIES")
else
  quiet_release_build
  bin=$PWD/.build/release/render-stories
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seconds=$(python3 -c "print($frames / 30 + 1)")
if [[ -z ${CLIP_BITRATE:-} ]]; then
  CLIP_BITRATE=$([[ $width -ge 1080 ]] && echo 8M || echo 5M)
fi
codec=${CLIP_CODEC:-h264}
case $codec in
  h264) encoder=(-c:v libx264 -preset veryfast) ;;
  hevc)
    # Not `| grep -q`: grep would exit at the first match, and ffmpeg's SIGPIPE would fail the
    # pipeline under pipefail.
    [[ $(ffmpeg -hide_banner -encoders 2>/dev/null) == *libx265* ]] ||
      { echo "CLIP_CODEC=hevc needs an ffmpeg CLI built with libx265" >&2; exit 1; }
    encoder=(-c:v libx265 -preset veryfast -tag:v hvc1 -x265-params log-level=error) ;;
  *) echo "CLIP_CODEC is h264 or hevc, not $codec" >&2; exit 1 ;;
esac
if [[ $CLIP_BITRATE == crf ]]; then
  rate=(-crf 23)
elif [[ $CLIP_BITRATE == heavy ]]; then
  rate=(-crf 18)
else
  rate=(-b:v "$CLIP_BITRATE" -maxrate "$CLIP_BITRATE" -bufsize "$CLIP_BITRATE")
fi

for clip in a b; do
  hue=$([[ $clip == a ]] && echo 0 || echo 120)
  ffmpeg -v error -y -f lavfi -i "testsrc2=s=${size}:r=30:d=$seconds,hue=h=$hue,noise=alls=20:allf=t" \
    "${encoder[@]}" "${rate[@]}" -pix_fmt yuv420p "$work/$clip.mp4"
  ffprobe -v error -select_streams v:0 -show_entries stream=codec_name,codec_tag_string,width,height,pix_fmt,bit_rate \
    -of csv=p=0 "$work/$clip.mp4" |
    awk -F, -v clip="$clip" '{printf "clip %s: %s (%s) %sx%s %s, %.1f Mbit/s\n", clip, $1, $2, $3, $4, $5, $6 / 1e6}'
done
cat > "$work/board.json" <<JSON
{"canvas": {"width": $width, "height": $height, "fps": 30},
 "transition": {"style": "cube", "duration": 1.0},
 "duration": $(python3 -c "print($frames / 30)"),
 "stories": [{"id": "a", "items": [{"uri": "a.mp4"}]}, {"id": "b", "items": [{"uri": "b.mp4"}]}],
 "script": [{"at": 1.0, "action": "swipe", "direction": "next"}]}
JSON

run_a() { "$bin" render "$work/board.json" --output "$work/A" --png-level "$level" >/dev/null; }
# ANCHOR=PATH: another build (the commit before a change) rendered in the same rounds, right
# after A: on a shared machine two runs of this script a minute apart differ by more than most
# changes, so a before-and-after is read from one run.
anchor=${ANCHOR:+$(realpath "$ANCHOR")}
run_anchor() { "$anchor" render "$work/board.json" --output "$work/N" --png-level "$level" >/dev/null; }
run_b() {
  mkdir -p "$work/B"
  ffmpeg -v error -y -i "$work/a.mp4" -i "$work/b.mp4" \
    -filter_complex "[0][1]xfade=transition=slideleft:duration=1:offset=1,format=rgb24" \
    -frames:v "$frames" -compression_level "$level" -pred up "$work/B/%06d.png"
}
export -f run_a run_b run_anchor
export bin work level frames anchor
# Each run starts from an empty folder, with earlier runs' files on disk (sync), so that no
# run's time includes deleting old output or the kernel writing back the other side's files.
# What decoding alone costs, measured with FFmpeg's own decoder on one thread: story a shows its
# first 2 s (until the turn ends), story b from 1 s to the end. A floor for A's decode stage.
# Measured in every round, between the renders, because on a shared machine one measurement
# moves by 20-30 %: the figures below are medians over the rounds, of both sides alike.
# User and system time both, as the render's stage clock (CLOCK_THREAD_CPUTIME_ID) counts both.
# From four cores up, and from two for a heavy stream such as CLIP_BITRATE=heavy's (0.5 bits a
# pixel or more: DecodeLimits.heavyPlaybackThreads), the render decodes a playing video on two
# frame threads (DecodeLimits.playbackThreads), which costs CPU for wall time: the floor is also measured so, as
# a second line.
decode_cpu() {
  ffmpeg -benchmark -threads "${3:-1}" -i "$1" -frames:v "$2" -f null - 2>&1 |
    sed -n 's/.*utime=\([0-9.]*\)s stime=\([0-9.]*\)s.*/\1 \2/p' | awk '{print $1 + $2}'
}
shown_a=$((frames < 60 ? frames : 60)) shown_b=$((frames > 30 ? frames - 30 : 0))
for _ in $(seq "$runs"); do
  rm -rf "$work/A" && sync
  /usr/bin/time -f "%e %M" -a -o "$work/a.times" bash -c run_a
  python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$work/A/summary.json" >> "$work/a.summaries"
  if [[ -n $anchor ]]; then
    rm -rf "$work/N" && sync
    /usr/bin/time -f "%e %M" -a -o "$work/anchor.times" bash -c run_anchor
  fi
  rm -rf "$work/B" && sync
  /usr/bin/time -f "%e %M" -a -o "$work/b.times" bash -c run_b
  floor_a=$(decode_cpu "$work/a.mp4" "$shown_a")
  floor_b=$( ((shown_b > 0)) && decode_cpu "$work/b.mp4" "$shown_b" || echo 0)
  echo "$floor_a $floor_b" >> "$work/floors"
  threaded_a=$(decode_cpu "$work/a.mp4" "$shown_a" 2)
  threaded_b=$( ((shown_b > 0)) && decode_cpu "$work/b.mp4" "$shown_b" 2 || echo 0)
  echo "$threaded_a $threaded_b" >> "$work/threaded-floors"
done
bytes_a=$(cat "$work"/A/frame-*.png | wc -c)
bytes_b=$(cat "$work"/B/*.png | wc -c)
count_a=$(ls "$work"/A/frame-*.png | wc -l)
count_b=$(ls "$work"/B/*.png | wc -l)
python3 - "$work/a.times" "$work/b.times" "$bytes_a" "$bytes_b" "$count_a" "$count_b" "$size" "$level" "$CLIP_BITRATE $codec" <<'PY'
import statistics, sys
def load(path):
    rows = [line.split() for line in open(path) if line.strip() and line[0].isdigit()]
    return [float(r[0]) for r in rows], [int(r[1]) for r in rows]
ta, ra = load(sys.argv[1]); tb, rb = load(sys.argv[2])
ba, bb, ca, cb, size, level = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[8]
ma, mb = statistics.median(ta), statistics.median(tb)
print(f"{size}, {ca} vs {cb} frames, PNG level {level}, clips at {sys.argv[9]}, {len(ta)} runs each")
print(f"  wall   A render-stories {ma:7.2f} s   B ffmpeg {mb:7.2f} s   A/B {ma/mb:.2f}")
print(f"  bytes  A {ba/1e6:10.1f} MB   B {bb/1e6:10.1f} MB   A/B {ba/bb:.2f}")
print(f"  RSS    A {max(ra)/1024:10.0f} MB   B {max(rb)/1024:10.0f} MB")
PY
if [[ -n $anchor ]]; then
  python3 - "$work/a.times" "$work/anchor.times" "$work/b.times" "$anchor" <<'PY'
import statistics, sys
def walls(path):
    return [float(line.split()[0]) for line in open(path) if line.strip() and line[0].isdigit()]
ta, tn, tb = walls(sys.argv[1]), walls(sys.argv[2]), walls(sys.argv[3])
ma, mn, mb = statistics.median(ta), statistics.median(tn), statistics.median(tb)
print(f"  anchor {sys.argv[4]}: wall {mn:.2f} s (runs: {', '.join(f'{t:.2f}' for t in tn)}), anchor/B {mn/mb:.2f}; "
      f"A {ma:.2f} s (runs: {', '.join(f'{t:.2f}' for t in ta)}), A/anchor {ma/mn:.3f}")
PY
fi
python3 - "$work/a.summaries" "$work/floors" "$frames" "$work/threaded-floors" <<'PY'
import json, statistics, sys
summaries = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
def per_frame(path):
    return [sum(map(float, line.split())) * 1000 / int(sys.argv[3]) for line in open(path) if line.strip()]
floors, threaded = per_frame(sys.argv[2]), per_frame(sys.argv[4])
median = statistics.median
stages = {k: median(s["stages_ms"][k] for s in summaries) for k in summaries[0]["stages_ms"]}
print("  A stages (CPU ms per frame, medians of the runs): " + ", ".join(f"{k} {v:.1f}" for k, v in stages.items()))
print(f"  A pipeline efficiency {median(s['pipeline_efficiency'] for s in summaries):.2f} "
      f"(wall / (stage CPU / {summaries[0]['cores']} cores); target <= 1.1)")
floor = median(floors)
print(f"  decode floor: ffmpeg -threads 1 decodes the shown frames in {floor:.1f} ms per output frame "
      f"(runs: {', '.join(f'{f:.1f}' for f in floors)}), {floor / stages['encode']:.2f} of A's encode")
decodes = ", ".join(f"{s['stages_ms']['decode']:.1f}" for s in summaries)
print(f"  A decode (runs: {decodes}) / decode floor {stages['decode'] / floor:.2f} (target <= 1.15); "
      f"with the preload window's posters and probes, which the floor does not do: "
      f"{(stages['decode'] + stages.get('preload', 0)) / floor:.2f}")
floor2 = median(threaded)
print(f"  decode floor on two frame threads, as the render decodes from 4 cores: ffmpeg -threads 2 in {floor2:.1f} ms per output frame "
      f"(runs: {', '.join(f'{f:.1f}' for f in threaded)}); A decode / that floor {stages['decode'] / floor2:.2f}")
PY
