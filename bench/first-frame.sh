#!/usr/bin/env bash
# Time to first picture on loopback (figures, not a test), beside the ffmpeg CLI on the same
# source in the same run. Publishers send as encoders do: samples/beach.mp4 (H.264 with a 1 s
# GOP, AAC sound) looped in real time with `-c copy`; HLS segments are 1 s, window 5.
#   bench/first-frame.sh [opens]          (default 5 opens per source and tool; p50 and max)
# Ours is `render-stories probe`'s first_frame_ms: the player's own open and decode path, from
# the call that opens the source to the first decoded picture. ffmpeg's is the wall time of
# `ffmpeg -v error -i URL -frames:v 1 -f null -`, process start included.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
tries=${1:-5}
scripts/install-deps.sh --test
quiet_release_build
bin=$PWD/.build/release/render-stories
source bench/live-servers.sh
ours_ms() { "$bin" probe "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["first_frame_ms"])'; }
ffmpeg_ms() {
  local start end
  start=$(date +%s%N)
  ffmpeg -v error -i "$1" -frames:v 1 -f null - </dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}
report() { # label target values...
  python3 - "$@" <<'PY'
import statistics, sys
label, target, values = sys.argv[1], sys.argv[2], sorted(float(v) for v in sys.argv[3:])
print(f"  {label:<8} p50 {statistics.median(values):7.1f} ms  max {values[-1]:7.1f} ms  ({len(values)} opens){target}")
PY
}
# One source measured by both tools, alternating: ours, ffmpeg, ours, ffmpeg, ... `source` is
# a function that sets URL (run in this shell, so the servers it starts are cleaned up).
measure() { # name target source
  local name=$1 target=$2 source=$3 ours=() theirs=()
  for _ in $(seq "$tries"); do
    $source; ours+=("$(ours_ms "$URL")")
    $source; theirs+=("$(ffmpeg_ms "$URL")")
  done
  echo "$name"
  report "ours" "   target p50 <= $target ms" "${ours[@]}"
  report "ffmpeg" "" "${theirs[@]}"
}

start_hls
hls_url() { URL=$HLS_URL; }
measure "HLS live (1 s segments, AAC)" 500 hls_url

# RTMP: nginx's RTMP module, fed by a publisher with sound.
start_rtmp
rtmp_url() { URL=$RTMP_URL; }
measure "RTMP (nginx-rtmp, AAC)" 1000 rtmp_url

# SRT: an ffmpeg listener serves one caller, so every open gets a fresh one.
measure "SRT (ffmpeg listener, MPEG-TS, AAC)" 1000 srt_listener_url
