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
quiet_build -c release --product render-stories
bin=$PWD/.build/release/render-stories
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 200); do if eval "$1"; then return 0; fi; sleep 0.05; done; echo "timed out: $1" >&2; return 1; }
publish() { ffmpeg -v error -re -stream_loop -1 -i samples/beach.mp4 -c copy "$@" & pids+=($!); }
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

# HLS live: ffmpeg writes a sliding-window playlist that python serves.
mkdir -p "$work/hls"
publish -f hls -hls_time 1 -hls_list_size 5 -hls_flags delete_segments "$work/hls/live.m3u8"
http=$(free_port)
python3 -m http.server "$http" --bind 127.0.0.1 --directory "$work/hls" >/dev/null 2>&1 & pids+=($!)
wait_for "[[ \$(grep -c '\.ts' '$work/hls/live.m3u8' 2>/dev/null) -ge 3 ]]"
hls_url() { URL="http://127.0.0.1:$http/live.m3u8"; }
measure "HLS live (1 s segments, AAC)" 500 hls_url

# RTMP: nginx's RTMP module, fed by a publisher with sound.
rtmp=$(free_port)
mkdir -p "$work/nginx/logs"
cat > "$work/nginx/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
daemon off; master_process off; pid $work/nginx/nginx.pid; error_log $work/nginx/logs/error.log;
events { worker_connections 64; }
rtmp { server { listen 127.0.0.1:$rtmp; application live { live on; } } }
CONF
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" & pids+=($!)
wait_for "(echo > /dev/tcp/127.0.0.1/$rtmp) 2>/dev/null"
publish -f flv "rtmp://127.0.0.1:$rtmp/live/story"
wait_for "$bin probe rtmp://127.0.0.1:$rtmp/live/story >/dev/null 2>&1"
rtmp_url() { URL="rtmp://127.0.0.1:$rtmp/live/story"; }
measure "RTMP (nginx-rtmp, AAC)" 1000 rtmp_url

# SRT: an ffmpeg listener serves one caller, so every open gets a fresh one.
srt_listener=""
srt_url() {
  [[ -n $srt_listener ]] && { kill "$srt_listener" 2>/dev/null || true; wait "$srt_listener" 2>/dev/null || true; }
  local port
  port=$(free_port)
  ffmpeg -v error -re -stream_loop -1 -i samples/beach.mp4 -c copy -f mpegts "srt://127.0.0.1:$port?mode=listener" 2>/dev/null &
  srt_listener=$!
  pids+=($srt_listener)
  wait_for "grep -qi ':$(printf '%04X' "$port") ' /proc/net/udp"
  URL="srt://127.0.0.1:$port?mode=caller"
}
measure "SRT (ffmpeg listener, MPEG-TS, AAC)" 1000 srt_url
