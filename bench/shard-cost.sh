#!/usr/bin/env bash
# What shards cost together against one render (figures, not a test):
#   bench/shard-cost.sh [runs]
# Renders the demo and a 60 s storyboard whole, then as 2, 4 and 8 shards one after another on
# this machine (`frames --shards N --shard I` gives each range, as scripts/render-sharded.sh
# does), and prints the CPU seconds (user + system, GNU time) of each, the medians of RUNS
# (default 3), and the overhead against the whole render. Each shard opens its sources again,
# seeks to the keyframe before its first frame and decodes forward from it: that is the overhead.
# With WHOLE_SECONDS=1 the shards are cut at whole seconds (the render clip's GOPs), and with
# KEYFRAMES=1 as the scripts cut them (`frames --keyframes`: on the playing clips' keyframes).
# The overhead is split as each shard's summary.json says (`shard_cost`, summed over shards):
# opening (sources opened again for items begun before the shard), seeking, and decoding
# forward (pictures decoded after the seek but never shown); "rest" is what none of them
# explains (the shards' preloads, start-up, the fast-forward's navigation). BOARDS="sixty"
# runs one board only.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
runs=${1:-3}
[[ -x /usr/bin/time ]] || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
# RENDER_STORIES=PATH measures another build (an older commit's, for a before-and-after) as it is.
if [[ -n ${RENDER_STORIES:-} ]]; then
  bin=$(realpath "$RENDER_STORIES")
else
  quiet_release_build
  bin=$PWD/.build/release/render-stories
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# How `frames` splits: KEYFRAMES=1 cuts as the scripts do (`--keyframes`: on the playing clips'
# keyframes).
split_options=()
[[ ${WHOLE_SECONDS:-0} == 1 ]] && split_options=(--whole-seconds)
[[ ${KEYFRAMES:-0} == 1 ]] && split_options+=(--keyframes)

# Sixty seconds: five stories of the sample clips (3 s each) and a photo, a swipe every 4 s.
python3 - "$PWD/samples" > "$work/sixty.json" <<'PY'
import json, sys
samples = sys.argv[1]
clips = ["beach", "city", "night", "forest"]
stories = [{"id": "s%d" % s, "items": [{"uri": "%s/%s.mp4" % (samples, clips[(s + i) % 4])} for i in range(4)]
            + [{"uri": samples + "/sunset.jpg", "duration": 2}]} for s in range(5)]
script = [{"at": 4.0 * k + 2, "action": "swipe", "direction": "next" if k % 3 else "previous"} for k in range(14)]
print(json.dumps({"canvas": {"width": 720, "height": 1280, "fps": 30}, "duration": 60,
                  "transition": {"style": "cube", "duration": 0.5}, "stories": stories, "script": script}))
PY
cp samples/demo.json "$work/demo.json"
sed -i "s|\"uri\": \"|\"uri\": \"$PWD/samples/|g; s|\"poster\": \"|\"poster\": \"$PWD/samples/|; s|\"picture\": \"|\"picture\": \"$PWD/samples/|" "$work/demo.json"

# CPU seconds (user + system) of one command.
cpu() { /usr/bin/time -f "%U %S" -o "$work/time" "$@" >/dev/null 2>&1; awk '{print $1 + $2}' "$work/time"; }

# CPU seconds of BOARD rendered as N shards, one after another, then the shards' opening,
# seeking and decoding-forward CPU seconds and the pictures decoded forward (summed from their
# summaries), joined by commas.
sharded() {
  local board=$1 shards=$2 total=0 range seconds split="0 0 0 0"
  for ((i = 0; i < shards; i++)); do
    range=$("$bin" frames "$board" --shards "$shards" --shard "$i" "${split_options[@]}")
    [[ -z $range ]] && continue
    rm -rf "$work/out"
    seconds=$(cpu "$bin" render "$board" --output "$work/out" --frames "$range" --quiet)
    total=$(python3 -c "print($total + $seconds)")
    split=$(python3 - "$work/out/summary.json" $split <<'PY'
import json, sys
cost = json.load(open(sys.argv[1])).get("shard_cost", {})
parts = [cost.get(k, {}).get("cpu_seconds", 0) for k in ("opening", "seeking", "decoding_forward")]
parts.append(cost.get("decoding_forward", {}).get("pictures", 0))
print(" ".join(str(float(a) + b) for a, b in zip(sys.argv[2:], parts)))
PY
)
  done
  echo "$total,${split// /,}"
}

for board in ${BOARDS:-demo sixty}; do
  results=()
  for _ in $(seq "$runs"); do
    rm -rf "$work/out"
    line=$(cpu "$bin" render "$work/$board.json" --output "$work/out" --quiet)
    for n in 2 4 8; do line+=" $(sharded "$work/$board.json" $n)"; done
    results+=("$line")
  done
  python3 - "$board" "${results[@]}" <<'PY'
import statistics, sys
board = sys.argv[1]
# Each row: whole, then per shard count "total,opening,seeking,forward,pictures".
rows = [[list(map(float, cell.split(","))) for cell in r.split()] for r in sys.argv[2:]]
whole = statistics.median(row[0][0] for row in rows)
print("%s (%d runs, CPU seconds, median):" % (board, len(rows)))
print("  whole     %7.2f" % whole)
for column, n in enumerate((2, 4, 8), start=1):
    total, opening, seeking, forward, pictures = (statistics.median(row[column][k] for row in rows) for k in range(5))
    overhead = total - whole
    rest = overhead - opening - seeking - forward
    print("  %d shards  %7.2f  %.3fx whole  overhead %6.2f = opening %5.2f + seeking %5.2f + decoding forward %5.2f + rest %6.2f  (%d pictures decoded forward)"
          % (n, total, total / whole, overhead, opening, seeking, forward, rest, pictures))
PY
done
