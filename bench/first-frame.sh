#!/usr/bin/env bash
# Time to first frame on loopback (figures, not a test): p50 and p95 of first_frame_ms, as
# `render-stories probe` measures it, for HLS live, RTMP and SRT. Sources loop samples/beach.mp4
# (H.264, GOP 30 frames = 1 s at 30 fps); HLS segments are 1 s, playlist window 5.
#   bench/first-frame.sh [tries]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
tries=${1:-20}
scripts/install-deps.sh --test
quiet_build -c release --product render-stories
bin=$PWD/.build/release/render-stories
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 200); do if eval "$1"; then return 0; fi; sleep 0.05; done; echo "timed out: $1" >&2; return 1; }
feed() { ffmpeg -v error -re -stream_loop -1 -i samples/beach.mp4 -c copy -an "$@" & pids+=($!); }
probe_ms() { "$bin" probe "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["first_frame_ms"])'; }
report() { # label values...
  python3 - "$@" <<'PY'
import statistics, sys
label, values = sys.argv[1], sorted(float(v) for v in sys.argv[2:])
p = lambda q: values[min(len(values) - 1, round(q * (len(values) - 1)))]
print(f"{label:<9} first_frame_ms  p50 {p(0.5):7.1f}  p95 {p(0.95):7.1f}  max {values[-1]:7.1f}  ({len(values)} tries)")
PY
}

# HLS live: ffmpeg writes a sliding-window playlist that python serves.
mkdir -p "$work/hls"
feed -f hls -hls_time 1 -hls_list_size 5 -hls_flags delete_segments "$work/hls/live.m3u8"
http=$(free_port)
python3 -m http.server "$http" --bind 127.0.0.1 --directory "$work/hls" >/dev/null 2>&1 & pids+=($!)
wait_for "[[ \$(grep -c '\.ts' '$work/hls/live.m3u8' 2>/dev/null) -ge 3 ]]"
values=(); for _ in $(seq "$tries"); do values+=("$(probe_ms "http://127.0.0.1:$http/live.m3u8")"); done
report "HLS live" "${values[@]}"

# RTMP: nginx's RTMP module, fed by ffmpeg.
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
feed -f flv "rtmp://127.0.0.1:$rtmp/live/story"
wait_for "$bin probe rtmp://127.0.0.1:$rtmp/live/story >/dev/null 2>&1"
values=(); for _ in $(seq "$tries"); do values+=("$(probe_ms "rtmp://127.0.0.1:$rtmp/live/story")"); done
report "RTMP" "${values[@]}"

# SRT: an ffmpeg listener serves one caller, so each try gets a fresh one.
values=()
for _ in $(seq "$tries"); do
  srt=$(free_port)
  ffmpeg -v error -re -stream_loop -1 -i samples/beach.mp4 -c copy -an -f mpegts "srt://127.0.0.1:$srt?mode=listener" & listener=$!
  wait_for "grep -qi ':$(printf '%04X' "$srt") ' /proc/net/udp"
  values+=("$(probe_ms "srt://127.0.0.1:$srt?mode=caller")")
  kill "$listener" 2>/dev/null || true; wait "$listener" 2>/dev/null || true
done
report "SRT" "${values[@]}"
