#!/usr/bin/env bash
# A soak (figures, not a test): a 10-minute storyboard of 40 stories at 360x640, a swipe every
# 2 s (forward through all 40, then back, and again), rendered on the realtime clock with PNG
# frames, while a looping live HLS source and a looping RTMP source publish on 127.0.0.1.
# Prints the renderer's RSS every 30 s, and its open descriptors and threads at the start and at
# the end, then checks the trace.
#   bench/soak.sh [seconds]        (default 600; a shorter run for trying the script)
# Targets: RSS flat within 10 MB after the first minute; descriptors and threads at the end
# back to their start count; the trace passes `check`.
#
# Why realtime: live sources publish in real time, so only a realtime render keeps them as a
# phone would see them (the live edge, reconnects, segments rolling off); and the question is
# what ten minutes of wall-clock use does to memory, descriptors and threads.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
duration=${1:-600}
scripts/install-deps.sh --test
quiet_release_build
bin=$PWD/.build/release/render-stories
source bench/live-servers.sh

# MARK: - Live sources

start_hls
start_rtmp

# MARK: - The storyboard

python3 - "$duration" "$PWD/samples" "$HLS_URL" "$RTMP_URL" \
  > "$work/soak.json" <<'PY'
import json, sys
duration, folder, hls, rtmp = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
clips = ["beach.mp4", "city.mp4", "night.mp4", "forest.mp4"]
pictures = ["sunset.jpg", "home.jpg", "beach-poster.jpg"]
stories = []
for i in range(40):
    if i % 10 == 3:
        items = [{"uri": hls, "live": True, "duration": 4}]
    elif i % 10 == 7:
        items = [{"uri": rtmp, "live": True, "duration": 4}]
    elif i % 3 == 2:
        items = [{"uri": f"{folder}/{pictures[i % 3]}", "duration": 4}]
    else:  # a 3 s clip, then a picture: a swipe every 2 s leaves most stories mid-clip
        items = [{"uri": f"{folder}/{clips[i % 4]}"}, {"uri": f"{folder}/{pictures[i % 3]}", "duration": 2}]
    stories.append({"id": f"s{i:02d}", "poster": f"{folder}/beach-poster.jpg", "items": items})
# Forward through all 40, back to the first, and again; the viewer closes 6 s before the end, so
# every player has stopped when the last descriptors and threads are counted (3 s before the end).
script, at, index, step = [], 2.0, 0, 1
while at <= duration - 8:
    if not 0 <= index + step < 40:
        step = -step
    script.append({"at": at, "action": "swipe", "direction": "next" if step > 0 else "previous"})
    index += step
    at += 2.0
script.append({"at": duration - 6, "action": "dismiss"})
print(json.dumps({"canvas": {"width": 360, "height": 640, "fps": 30}, "duration": duration,
                  "clock": "realtime", "stories": stories, "script": script}, indent=1))
PY

# MARK: - The render, sampled

"$bin" render "$work/soak.json" --output "$work/out" --png-strategy rle --quiet &
render=$!
pids+=("$render")
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$render/status" 2>/dev/null || echo 0; }
fds() { ls "/proc/$render/fd" 2>/dev/null | wc -l; }
threads() { ls "/proc/$render/task" 2>/dev/null | wc -l; }
thread_names() { cat "/proc/$render"/task/*/comm 2>/dev/null | sort | uniq -c | awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }'; }
mb() { awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1024 }'; }
started=$(date +%s%N)
elapsed_ms() { echo $((($(date +%s%N) - started) / 1000000)); }
sleep 1
start_fds=$(fds) start_threads=$(threads)
echo "start (1 s, the first clip playing): rss $(mb "$(rss_kb)") MB, fds $start_fds, threads $start_threads ($(thread_names))"
# RSS is read every 0.2 s; each line gives the window's peak and its last reading, so a sample
# that happens to fall on a picture story (no decoder) does not pass for a drop.
next=30000 peak=0 end_at=$(((duration - 3) * 1000))
while kill -0 "$render" 2>/dev/null; do
  now=$(elapsed_ms) rss=$(rss_kb)
  ((rss > peak)) && peak=$rss
  if ((now >= next)); then
    printf 't %3d s: rss peak %s MB, now %s MB, fds %s, threads %s\n' "$((now / 1000))" "$(mb "$peak")" \
      "$(mb "$rss")" "$(fds)" "$(threads)"
    next=$((next + 30000)) peak=0
  fi
  # The viewer closed 6 s before the end: count once, 3 s before the end.
  if [[ -z ${end_fds:-} ]] && ((now >= end_at)); then
    end_fds=$(fds) end_threads=$(threads)
    echo "end (t $((now / 1000)) s, viewer closed): rss $(mb "$rss") MB, fds $end_fds, threads $end_threads ($(thread_names))"
  fi
  sleep 0.2
done
wait "$render" && status=0 || status=$?
echo "render exit $status after $(($(elapsed_ms) / 1000)) s; fds $start_fds -> ${end_fds:-?}, threads $start_threads -> ${end_threads:-?}"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("summary: frames", s.get("frames"), "of", int(float(sys.argv[2]) * 30), "(the rest skipped as late), peak players", s.get("peak_alive_players"))' "$work/out/summary.json" "$duration" || true
"$bin" check "$work/out/lifecycle.jsonl" && echo "check: passed"
