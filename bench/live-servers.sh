# Live sources on 127.0.0.1 for the benches that need them (sourced by first-frame.sh and
# soak.sh, not run). Publishers send as encoders do: samples/beach.mp4 (H.264 with a 1 s GOP,
# AAC sound) looped in real time with `-c copy`. Every process started here is in `pids` and
# stopped by pid, with `work` removed, when the sourcing script exits.
#   source bench/live-servers.sh      (from the package root; then `bin` must name render-stories)
#   start_hls   -> HLS_URL   ffmpeg writing a sliding-window playlist (1 s segments, window 5)
#                            that python's http.server serves
#   start_rtmp  -> RTMP_URL  nginx's RTMP module, fed by a publisher; returns once it plays
#   srt_listener_url -> URL  a fresh ffmpeg SRT listener (it serves one caller), the last one stopped

work=$(mktemp -d)
pids=()
# Newest first: a publisher stops before the server it sends to (else it reports a broken pipe).
live_servers_cleanup() {
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[i]}" 2>/dev/null || true
    wait "${pids[i]}" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap live_servers_cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# Up to 20 s: the soak's publishers share the machine with a realtime render.
wait_for() { for _ in $(seq 400); do if eval "$1"; then return 0; fi; sleep 0.05; done; echo "timed out: $1" >&2; return 1; }
publish() { ffmpeg -v error -re -stream_loop -1 -i samples/beach.mp4 -c copy "$@" </dev/null & pids+=($!); }

start_hls() {
  mkdir -p "$work/hls"
  publish -f hls -hls_time 1 -hls_list_size 5 -hls_flags delete_segments "$work/hls/live.m3u8"
  local port
  port=$(free_port)
  python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/hls" >/dev/null 2>&1 & pids+=($!)
  wait_for "[[ \$(grep -c '\.ts' '$work/hls/live.m3u8' 2>/dev/null) -ge 3 ]]"
  HLS_URL="http://127.0.0.1:$port/live.m3u8"
}

start_rtmp() {
  local port
  port=$(free_port)
  mkdir -p "$work/nginx/logs"
  cat > "$work/nginx/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
daemon off; master_process off; pid $work/nginx/nginx.pid; error_log $work/nginx/logs/error.log;
events { worker_connections 64; }
rtmp { server { listen 127.0.0.1:$port; application live { live on; } } }
CONF
  nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" & pids+=($!)
  wait_for "(echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null"
  RTMP_URL="rtmp://127.0.0.1:$port/live/story"
  publish -f flv "$RTMP_URL"
  wait_for "$bin probe $RTMP_URL >/dev/null 2>&1"
}

srt_listener=""
srt_listener_url() {
  [[ -n $srt_listener ]] && { kill "$srt_listener" 2>/dev/null || true; wait "$srt_listener" 2>/dev/null || true; }
  local port
  port=$(free_port)
  ffmpeg -v error -re -stream_loop -1 -i samples/beach.mp4 -c copy -f mpegts "srt://127.0.0.1:$port?mode=listener" \
    </dev/null 2>/dev/null &
  srt_listener=$!
  pids+=($srt_listener)
  wait_for "grep -qi ':$(printf '%04X' "$port") ' /proc/net/udp"
  URL="srt://127.0.0.1:$port?mode=caller"
}
