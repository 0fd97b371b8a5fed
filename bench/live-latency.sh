#!/usr/bin/env bash
# Live playback as a viewer sees it (figures, not a test): for each protocol and publisher
# family, a clock-coded 30 fps source with sound (Tests/Support/Python/clock-code.py: each picture
# carries its number and the wall clock it was made at) is rendered on the realtime clock at
# 360x640 and 30 fps, and the frames are read back: distinct pictures a second, and each
# frame's latency (how old its picture was when the frame was due). Beside them, the player's
# own live_offset_ms and rebuffers from the trace, and ffmpeg's low-delay decode of the same
# stream (`-fflags nobuffer -flags low_delay`), the floor any player on that input can reach.
#   bench/live-latency.sh [seconds] [protocol…]    (default 20 s; hls dash rtmp srt http-ts)
#   LATENCY_TARGET=2 bench/live-latency.sh 60 hls  (with "latency": {"target": 2})
#   bench/live-latency.sh 60 stall                 (an RTMP publisher that stops for 2 s at 10 s)
#   bench/live-latency.sh 12 restart uneven undecodable
#                                                  (what publishers really do, each family: an RTMP
#                                                   publisher killed 3 s in and started again at the
#                                                   same name 2 s later; timestamps 23 and 43 ms apart
#                                                   in turn; SRT whose H.264 never gets its SPS/PPS)
#   bench/live-latency.sh 20 hls ll-hls dash ll-dash rtmp whep whep-loss
#                                                  (low latency beside the nearest plain rows: LL-HLS and
#                                                   low-latency DASH through Tests/Support/Python/ll_origin.py,
#                                                   WebRTC through an aiortc WHEP peer, clean and with 2 %
#                                                   of its video packets dropped)
#   CLOCK=virtual bench/live-latency.sh            (the virtual clock: distinct pictures a second;
#                                                   its latencies are not wall-clock ones)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
seconds=${1:-20}
clock=${CLOCK:-realtime}
# On the virtual clock ffmpeg's own decode says nothing to compare with.
[[ $clock == virtual ]] && export THEIRS_APART=1
shift || true
protocols=("$@")
((${#protocols[@]})) || protocols=(hls dash rtmp srt http-ts)
scripts/install-deps.sh --test
quiet_release_build
bin=$PWD/.build/release/render-stories
code=$PWD/Tests/Support/Python/clock-code.py
source bench/live-servers.sh

ffmpeg_encode="ffmpeg -v error -f rawvideo -pix_fmt rgb24 -s 360x640 -r 30 -i - -f lavfi -i sine=frequency=440:sample_rate=48000 -c:v libx264 -preset veryfast -tune zerolatency -g 30 -pix_fmt yuv420p -c:a aac"
# Every odd picture stamped 10 ms early (the quotes keep the expression's commas from the filter graph's parser).
ffmpeg_uneven="ffmpeg -v error -f rawvideo -pix_fmt rgb24 -s 360x640 -r 30 -i - -f lavfi -i sine=frequency=440:sample_rate=48000 -vf \"settb=1/1000,setpts='(N/30-if(mod(N,2),0.01,0))/TB'\" -enc_time_base:v 1:1000 -c:v libx264 -preset veryfast -tune zerolatency -g 30 -pix_fmt yuv420p -c:a aac"
gst_video="fdsrc fd=0 blocksize=691200 ! rawvideoparse width=360 height=640 format=rgb framerate=30/1 ! videoconvert ! video/x-raw,format=I420 ! x264enc tune=zerolatency speed-preset=veryfast key-int-max=30 ! h264parse ! queue"
gst_audio="audiotestsrc wave=sine ! audioconvert ! avenc_aac ! aacparse ! queue"
# A publisher in a process group of its own (bash started with job control off leads none, so
# setsid makes one), stopped by group after its case or when the bench exits: an encoder whose
# generator is gone goes on encoding its sine, so it must never be left behind.
publisher=""
publish_coded() { # "encoder command after the generator's pipe"
  setsid bash -c "trap 'trap - TERM INT; kill -- -\$\$' TERM INT; python3 '$code' | $1 & wait" </dev/null & publisher=$!
  pids+=($publisher)
}
# SRT whose H.264 never brings its SPS and PPS to a viewer, with sound, as a listener on port $2:
# ffmpeg strips them, GStreamer's h264parse sends them only at its start.
publish_undecodable() { # family port
  if [[ $1 == ffmpeg ]]; then
    publish_coded "$ffmpeg_encode -bsf:v 'filter_units=remove_types=7|8' -f mpegts 'srt://127.0.0.1:$2?mode=listener'"
  else
    publish_coded "gst-launch-1.0 -q $gst_video ! mpegtsmux name=m ! srtsink uri='srt://127.0.0.1:$2?mode=listener' wait-for-connection=false audiotestsrc is-live=true wave=sine ! audioconvert ! avenc_aac ! aacparse ! queue ! m."
  fi
  wait_for "grep -qi ':$(printf '%04X' "$2") ' /proc/net/udp"
}
stop_publisher() { [[ -n $publisher ]] && { kill -TERM -- "-$publisher" 2>/dev/null || true; wait "$publisher" 2>/dev/null || true; }; publisher=""; }

render_and_read() { # label url [item keys]
  local label=$1 url=$2 item=${3:-} board="$work/board-$1.json" out="$work/out-$1" extra=""
  [[ -n ${LATENCY_TARGET:-} ]] && extra=", \"latency\": {\"target\": $LATENCY_TARGET}"
  cat > "$board" <<JSON
{"canvas": {"width": 360, "height": 640, "fps": 30}, "duration": $seconds, "clock": "$clock"$extra,
 "stories": [{"id": "live", "items": [{"uri": "$url", "duration": $seconds$item}]}]}
JSON
  "$bin" render "$board" --output "$out" --quiet || true
  python3 - "$label" "$out" "$code" "$url" <<'PY'
import json, subprocess, sys
label, out, code, url = sys.argv[1:5]
frames = json.loads(subprocess.run(["python3", code, "stats", out], capture_output=True, text=True).stdout)
stop = [json.loads(l) for l in open(out + "/lifecycle.jsonl") if '"stop"' in l][-1]
offset = stop.get("live_offset_ms", {})
lat = frames.get("latency_ms", {})
import os
def ffmpeg_latency():
    # FFmpeg's own DASH demuxer may never finish 8 s of a live manifest (it replays segments).
    try:
        return json.loads(subprocess.run(["python3", code, "ffmpeg-latency", url, "8"], capture_output=True, text=True, timeout=60).stdout or "{}")
    except subprocess.TimeoutExpired:
        return {}
theirs = {} if os.environ.get("THEIRS_APART") else ffmpeg_latency()
print(f"  {label:<16} distinct/s {frames['distinct_per_second']:5.1f}   latency from frames p50 {lat.get('p50', '-'):>5} p95 {lat.get('p95', '-'):>5} ms"
      f"   live_offset_ms p50 {offset.get('p50', '-'):>7} p95 {offset.get('p95', '-'):>7} ({stop.get('live_offset_from', '-')})"
      f"   rebuffers {stop.get('rebuffers', '-')} dropped {stop.get('dropped', '-')}"
      f"   | ffmpeg low-delay p50 {theirs.get('latency_ms', {}).get('p50', '-'):>5} ms, {theirs.get('distinct_per_second', '-')}/s")
series = [ms for t, ms in stop.get("live_offset_series", []) if t >= 20]
if label.startswith("stall") and series:
    print(f"  {'':<16} offset each second from 20 s on (settled): min {min(series)} max {max(series)} ms over {len(series)} s")
PY
}

# ffmpeg's clock-coded stream as fragmented MP4 on stdout, for the Low-Latency HLS origin.
ffmpeg_fmp4="$ffmpeg_encode -sc_threshold 0 -f mp4 -movflags empty_moov+default_base_moof+frag_keyframe+delay_moov -frag_duration 333333 pipe:1"

# What a low-latency origin's request log says the player asked for.
origin_requests() { # log
  python3 - "$1" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
reloads = [r for r in rows if "_HLS_msn" in r.get("query", "")]
skips = [r for r in rows if "_HLS_skip" in r.get("query", "")]
media = [r for r in rows if r["method"] == "GET" and r["path"].endswith(".m4s") and "init" not in r["path"]]
held = [r for r in media if r.get("held_ms", 0) > 30]
print(f"  {'':<16} origin: {len(reloads)} blocking reloads ({sum(1 for r in reloads if r.get('held_ms', 0) > 30)} held), {len(skips)} delta-update requests, "
      f"{len(media)} media requests, {len(held)} held or streamed (median {sorted(r['held_ms'] for r in held)[len(held) // 2] if held else 0:.0f} ms)")
PY
}

serve_folder() { # folder -> URL base
  local port
  port=$(free_port)
  python3 -m http.server "$port" --bind 127.0.0.1 --directory "$1" >/dev/null 2>&1 & pids+=($!)
  wait_for "(echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null"
  BASE="http://127.0.0.1:$port"
}

echo "live latency, ${seconds} s $clock renders at 360x640 30 fps, clock-coded 30 fps sources with sound, loopback"
for protocol in "${protocols[@]}"; do
  case $protocol in
    hls)
      for family in ffmpeg gstreamer; do
        mkdir -p "$work/hls-$family"
        if [[ $family == ffmpeg ]]; then
          publish_coded "$ffmpeg_encode -f hls -hls_time 1 -hls_list_size 5 -hls_flags delete_segments '$work/hls-$family/live.m3u8'"
        else
          publish_coded "gst-launch-1.0 -q $gst_video ! hlssink2 name=s send-keyframe-requests=false location='$work/hls-$family/seg%05d.ts' playlist-location='$work/hls-$family/live.m3u8' target-duration=1 max-files=8 playlist-length=5 $gst_audio ! s.audio"
        fi
        wait_for "[[ \$(grep -c '\.ts' '$work/hls-$family/live.m3u8' 2>/dev/null) -ge 4 ]]"
        serve_folder "$work/hls-$family"
        render_and_read "hls-$family" "$BASE/live.m3u8"
        stop_publisher
      done ;;
    dash)
      for family in ffmpeg gstreamer; do
        mkdir -p "$work/dash-$family"
        if [[ $family == ffmpeg ]]; then
          publish_coded "$ffmpeg_encode -f dash -seg_duration 1 -window_size 5 -extra_window_size 5 -use_template 1 -use_timeline 1 '$work/dash-$family/live.mpd'"
        else
          # dashsink segments each stream on its own, so the sound must be live to keep pace. Its
          # keyframe requests make the 1 s GOP: beside x264's own they cut one-picture segments
          # (see Tests/Support/Live/ClockCode.swift).
          publish_coded "gst-launch-1.0 -q ${gst_video/key-int-max=30/key-int-max=60} ! dashsink name=d dynamic=true mpd-root-path='$work/dash-$family' mpd-filename=live.mpd target-duration=1 muxer=ts audiotestsrc is-live=true wave=sine ! audioconvert ! avenc_aac ! aacparse ! queue ! d.audio_0"
        fi
        wait_for "[[ -f '$work/dash-$family/live.mpd' && \$(ls '$work/dash-$family' | grep -cE '^(chunk-stream0|video_0_)') -ge 4 ]]"
        serve_folder "$work/dash-$family"
        render_and_read "dash-$family" "$BASE/live.mpd"
        stop_publisher
      done ;;
    restart)
      # The publisher is killed 3 s into the render and a new one publishes to the same name 2 s
      # later; nginx-rtmp holds the viewer's connection, as with the storyboard's default timeouts.
      start_rtmp
      for family in ffmpeg gstreamer; do
        url="${RTMP_URL%/*}/restart-$family"
        if [[ $family == ffmpeg ]]; then enc="$ffmpeg_encode -f flv '$url'"; else enc="gst-launch-1.0 -q $gst_video ! flvmux name=m streamable=true ! rtmp2sink location='$url' $gst_audio ! m."; fi
        publish_coded "$enc"
        wait_for "$bin probe $url >/dev/null 2>&1"
        first=$publisher
        (sleep 3; kill -TERM -- "-$first" 2>/dev/null; date +%s.%N > "$work/gone-$family") & pids+=($!)
        (sleep 5; date +%s.%N > "$work/back-$family"; setsid bash -c "trap 'trap - TERM INT; kill -- -\$\$' TERM INT; python3 '$code' | $enc & wait" </dev/null & echo $! > "$work/second-$family"; wait) & pids+=($!)
        render_and_read "restart-$family" "$url"
        kill -TERM -- "-$(cat "$work/second-$family")" 2>/dev/null || true
        python3 - "$work" "$family" "$code" <<'PY'
import json, subprocess, sys
work, family, code = sys.argv[1:4]
out = f"{work}/out-restart-{family}"
codes = json.loads(subprocess.run(["python3", code, "read", out], capture_output=True, text=True).stdout)
summary = json.load(open(out + "/summary.json")); start = summary["clock_started_at"]
back = float(open(f"{work}/back-{family}").read()) - start
events = [json.loads(l) for l in open(out + "/lifecycle.jsonl")]
stop = [e for e in events if e["event"] == "stop"][-1]
ret = [e for e in events if e["event"] == "reconnect" and "gap_ms" in e]
first_after = int((back + 3) * 30)
after = codes[first_after:]
distinct = len({c[0] for c in after if c}) / (len(after) / 30) if after else 0
ages = []
for n, c in enumerate(after):
    if not c:
        continue
    due = int((start + (first_after + n) / 30) * 1000)
    made = (due & ~0xFFFFFFFF) | c[1]
    if made > due + (1 << 31):
        made -= 1 << 32
    ages.append(due - made)
ages.sort()
series = stop.get("live_offset_series", [])
target = 100
settled = [t - back for t, ms in stop.get("live_offset_series", []) if t >= back and abs(ms - target) <= 250]
print(f"  {'':<16} back at {back:.2f} s; from 3 s after it: {distinct:.1f} distinct/s, latency from frames p50 "
      f"{ages[len(ages) // 2] if ages else '-'} ms; offset of the last second {series[-1][1] if series else '-'} ms; offset within 0.25 s of the target "
      f"{'%.0f s after the return' % max(0, settled[0]) if settled else 'never'}; rebuffers {stop.get('rebuffers')}; "
      f"return traced: {('gap %d ms, offset %d ms' % (ret[0]['gap_ms'], ret[0]['offset_ms'])) if ret else 'no'}")
PY
      done ;;
    uneven)
      # Timestamps 23 and 43 ms apart in turn at 30 fps: ffmpeg stamps every odd picture 10 ms
      # early (setpts); GStreamer stamps pictures as they arrive from a generator that writes
      # every odd one 10 ms early, into a live flvmux with a live sound source.
      start_rtmp
      for family in ffmpeg gstreamer; do
        url="${RTMP_URL%/*}/uneven-$family"
        if [[ $family == ffmpeg ]]; then
          publish_coded "$ffmpeg_uneven -f flv '$url'"
        else
          setsid bash -c "trap 'trap - TERM INT; kill -- -\$\$' TERM INT; python3 '$code' --uneven 10 | gst-launch-1.0 -q ${gst_video/fd=0/fd=0 do-timestamp=true} ! flvmux name=m streamable=true ! rtmp2sink location='$url' ${gst_audio/audiotestsrc/audiotestsrc is-live=true} ! m. & wait" </dev/null & publisher=$!
          pids+=($publisher)
        fi
        wait_for "$bin probe $url >/dev/null 2>&1"
        THEIRS_APART=1 render_and_read "uneven-$family" "$url"
        python3 - "$work/out-uneven-$family" "$code" <<'PY'
import json, subprocess, sys
out, code = sys.argv[1:3]
pace = json.loads(subprocess.run(["python3", code, "cadence", out, "2"], capture_output=True, text=True).stdout)
lock = [json.loads(l) for l in open(out + "/lifecycle.jsonl") if '"cadence"' in l]
print(f"  {'':<16} from 2 s: never shown {pace.get('never_shown')}, shown more than a frame late {pace.get('late_by_more_than_1_frame')}"
      f" (most {pace.get('most_late_frames')}); cadence {'%s fps, jitter %s ms, locked at %s s' % (lock[0].get('fps'), lock[0].get('jitter_ms'), lock[0]['t']) if lock else 'never locked'}")
PY
        stop_publisher
      done ;;
    undecodable)
      # SRT whose H.264 never gets its parameter sets: ffmpeg strips them, GStreamer's h264parse
      # sends them only at its start. The default open timeout (8 s) and a 12 s item.
      for family in ffmpeg gstreamer; do
        port=$(free_port)
        publish_undecodable "$family" "$port"
        board="$work/board-undecodable-$family.json"
        echo "{\"canvas\": {\"width\": 360, \"height\": 640, \"fps\": 30}, \"duration\": 12, \"clock\": \"realtime\", \"stories\": [{\"id\": \"live\", \"items\": [{\"uri\": \"srt://127.0.0.1:$port?mode=caller\", \"duration\": 12}]}]}" > "$board"
        "$bin" render "$board" --output "$work/out-undecodable-$family" --quiet || true
        python3 - "$work/out-undecodable-$family" "$family" <<'PY'
import json, sys
out, family = sys.argv[1:3]
events = [json.loads(l) for l in open(out + "/lifecycle.jsonl")]
play = [e for e in events if e["event"] == "play"][0]
failed = [e for e in events if e["event"] == "failed"]
print(f"  {'undecodable-' + family:<16} " + (f"failed {failed[0]['t'] - play['t']:.2f} s after play (open timeout 8 s): {failed[0]['error'][:90]}…"
      if failed else "never failed: " + ", ".join(e["event"] for e in events)))
PY
        stop_publisher
        # probe on its own listener (an SRT listener serves one caller).
        port=$(free_port)
        publish_undecodable "$family" "$port"
        started=$(date +%s.%N)
        "$bin" probe "srt://127.0.0.1:$port?mode=caller" >/dev/null 2>&1 || true
        echo "  $(printf '%-16s' '') probe answered in $(python3 -c "print(round($(date +%s.%N) - $started, 2))") s"
        stop_publisher
      done ;;
    stall)
      # A publisher that stops for 2 s, 10 s into the render, then sends what it held back.
      start_rtmp
      url="${RTMP_URL%/*}/coded-stall"
      publish_coded "$ffmpeg_encode -f flv '$url'"
      wait_for "$bin probe $url >/dev/null 2>&1"
      (sleep 10; kill -STOP -- "-$publisher"; sleep 2; kill -CONT -- "-$publisher") & pids+=($!)
      render_and_read "stall-rtmp" "$url"
      stop_publisher ;;
    rtmp)
      start_rtmp
      for family in ffmpeg gstreamer; do
        url="${RTMP_URL%/*}/coded-$family"
        if [[ $family == ffmpeg ]]; then
          publish_coded "$ffmpeg_encode -f flv '$url'"
        else
          publish_coded "gst-launch-1.0 -q $gst_video ! flvmux name=m streamable=true ! rtmp2sink location='$url' $gst_audio ! m."
        fi
        wait_for "$bin probe $url >/dev/null 2>&1"
        render_and_read "rtmp-$family" "$url"
        stop_publisher
      done ;;
    srt)
      # An SRT listener serves one caller: a publisher for the render, another for ffmpeg's own
      # decode. Twice: with SRT's default 120 ms receive buffer (TSBPD), and with 20 ms on both
      # ends (`latency` in microseconds), which loopback allows.
      for variant in default latency-20ms; do
        query=""; [[ $variant == latency-20ms ]] && query="&latency=20000"
        for step in render ffmpeg; do
          port=$(free_port)
          publish_coded "$ffmpeg_encode -f mpegts 'srt://127.0.0.1:$port?mode=listener$query'"
          wait_for "grep -qi ':$(printf '%04X' "$port") ' /proc/net/udp"
          url="srt://127.0.0.1:$port?mode=caller$query"
          if [[ $step == render ]]; then
            THEIRS_APART=1 render_and_read "srt-$variant" "$url"
          else
            python3 - "$variant" "$(python3 "$code" ffmpeg-latency "$url" 8)" <<'PY'
import json, sys
theirs = json.loads(sys.argv[2] or "{}")
print(f"  {'srt-' + sys.argv[1]:<16} ffmpeg low-delay p50 {theirs.get('latency_ms', {}).get('p50', '-')} ms, {theirs.get('distinct_per_second', '-')}/s")
PY
          fi
          stop_publisher
        done
      done ;;
    http-ts)
      port=$(free_port)
      publish_coded "$ffmpeg_encode -f mpegts -listen 1 'http://127.0.0.1:$port/live.ts'"
      wait_for "grep -qi ':$(printf '%04X' "$port") ' /proc/net/tcp"
      # MPEG-TS over HTTP is not live by its form: the storyboard says so.
      render_and_read "http-ts-ffmpeg" "http://127.0.0.1:$port/live.ts" ', "live": true'
      stop_publisher ;;
    ll-hls)
      # Low-Latency HLS: ffmpeg's fragmented MP4 (0.333 s fragments, a keyframe a second) cut
      # into parts by the test origin (Tests/Support/Python/ll_origin.py), which serves parts, preload
      # hints, blocking reloads and delta updates. The play's target is PART-HOLD-BACK (1 s).
      ready="$work/ll-hls.ready"
      publish_coded "$ffmpeg_fmp4 | python3 Tests/Support/Python/ll_origin.py hls --port 0 --ready '$ready' --log '$work/ll-hls.log'"
      wait_for "[[ -s '$ready' ]]"
      url="$(python3 -c "import json; print(json.load(open('$ready'))['url'])")live.m3u8"
      render_and_read "ll-hls-ffmpeg" "$url"
      origin_requests "$work/ll-hls.log"
      stop_publisher ;;
    ll-dash)
      # Low-latency DASH: ffmpeg's dash muxer with chunked CMAF (1 s segments of 0.2 s chunks,
      # a 1 s target in its ServiceDescription), uploaded to the test origin, which serves each
      # segment while it is written.
      port=$(free_port)
      python3 Tests/Support/Python/ll_origin.py dash --port "$port" --ready "$work/ll-dash.ready" --log "$work/ll-dash.log" >/dev/null 2>&1 & pids+=($!)
      wait_for "(echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null"
      publish_coded "$ffmpeg_encode -sc_threshold 0 -f dash -strict experimental -ldash 1 -streaming 1 -lhls 1 -hls_playlist 1 -use_template 1 -use_timeline 0 -seg_duration 1 -frag_type duration -frag_duration 0.2 -write_prft 1 -target_latency 1 -min_playback_rate 0.96 -max_playback_rate 1.04 -window_size 10 -extra_window_size 5 -utc_timing_url http://127.0.0.1:$port/time -method PUT -http_persistent 1 http://127.0.0.1:$port/live/live.mpd"
      wait_for "[[ -s '$work/ll-dash.ready' ]]"
      render_and_read "ll-dash-ffmpeg" "http://127.0.0.1:$port/live/live.mpd"
      origin_requests "$work/ll-dash.log"
      stop_publisher ;;
    whep|whep-loss)
      # WebRTC through WHEP: an aiortc peer (Tests/Support/Python/whep_peer.py) sends the clock-coded
      # picture as H.264 with Opus sound; whep-loss drops 2 % of its video packets at random, as a
      # lossy network would (NACK repairs them, or a keyframe asked for with a PLI).
      port=$(free_port)
      drop=(); [[ $protocol == whep-loss ]] && drop=(--drop 0.02)
      python3 Tests/Support/Python/whep_peer.py --port "$port" "${drop[@]}" --log "$work/$protocol.log" >/dev/null 2>&1 & pids+=($!)
      wait_for "(echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null"
      THEIRS_APART=1 render_and_read "$protocol" "whep://127.0.0.1:$port/whep"
      python3 - "$work/out-$protocol" "$code" "$work/$protocol.log" <<'PY'
import json, subprocess, sys
out, code, log = sys.argv[1:4]
codes = json.loads(subprocess.run(["python3", code, "read", out], capture_output=True, text=True).stdout)[30:]
longest = run = 0; previous = None
for c in codes:
    number = c[0] if c else None
    run = run + 1 if number is not None and number == previous else 1
    previous = number; longest = max(longest, run)
events = [json.loads(l) for l in open(log) if l.strip()]
count = lambda name: sum(1 for e in events if e.get("event") == name)
stop = [json.loads(l) for l in open(out + "/lifecycle.jsonl") if '"stop"' in l][-1]
print(f"  {'':<16} longest freeze {round(longest * 1000 / 30)} ms; jitter buffer {stop.get('jitter_buffer_ms', '-')} ms; "
      f"peer: {count('drop')} packets dropped, {count('nack')} NACKs and {count('pli')} PLIs received")
PY
      ;;
    *) echo "unknown protocol $protocol" >&2; exit 2 ;;
  esac
done
