#!/usr/bin/env bash
# Splits a render into N frame-range shards, runs them with GNU parallel, and gathers the frames
# into one folder. The frames are byte-identical to a single render's.
#
#   scripts/render-sharded.sh BOARD N OUT [--mp4 FILE.mp4] [render options, e.g. --size 1080x1920]
#
# OUT gets the frames and one lifecycle.jsonl and summary.json (`render-stories merge`); each
# shard's own trace is kept as OUT/shards/NN-lifecycle.jsonl (check it with `check --shard`).
# With --mp4, each shard also encodes its frames as a segment, and the segments are joined
# without re-encoding (ffmpeg's concat demuxer); shard sizes are then whole GOPs (one second of
# frames), so every segment starts on a keyframe. Set RENDER_STORIES to use another build.
set -euo pipefail
if (($# < 3)); then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
board=$1 shards=$2 out=$(realpath -m "$3")
shift 3
mp4=""
if [[ ${1:-} == --mp4 ]]; then
  mp4=$(realpath -m "$2")
  shift 2
  command -v ffmpeg >/dev/null || { echo "render-sharded: --mp4 needs the ffmpeg CLI to join segments" >&2; exit 1; }
fi
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${RENDER_STORIES:-$here/.build/release/render-stories}
[[ -x $bin ]] || { echo "render-sharded: $bin is not built (make build)" >&2; exit 1; }
parallel --version 2>/dev/null | grep -q "GNU parallel" || { echo "render-sharded: needs GNU parallel (apt-get install parallel)" >&2; exit 1; }
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "render-sharded: N must be a positive number" >&2; exit 2; }

# The tool works out the frame count (and rate) from the same options the shards get.
read -r total fps < <("$bin" frames "$board" --json "$@" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["frames"], d["fps"])')
[[ -n ${total:-} ]] || { echo "render-sharded: cannot count the frames of $board" >&2; exit 1; }
size=$(( (total + shards - 1) / shards ))
gop=1
if [[ -n $mp4 ]]; then
  # The clip's GOP is one second of frames (render-stories encodes keyint = fps).
  gop=$(python3 -c "print(max(1, round(float('$fps'))))")
fi
size=$(( (size + gop - 1) / gop * gop ))

mkdir -p "$out/shards"
work=$(mktemp -d "$out/.shards.XXXXXX")
trap 'rm -rf "$work"' EXIT
ranges=()
for ((start = 0; start < total; start += size)); do
  end=$(( start + size < total ? start + size : total ))
  ranges+=("$start $end")
done
segment=()
[[ -n $mp4 ]] && segment=(--mp4 "$work/{#}.mp4")
printf '%s\n' "${ranges[@]}" | parallel --will-cite --halt now,fail=1 --colsep ' ' -j "$shards" \
  "$bin" render "$board" --frames {1}..{2} --output "$work/{#}" --quiet "${segment[@]}" "$@"
# One trace and summary for the whole render, equal to a single render's (wall times aside),
# and every frame in OUT. Each shard's own trace stays in OUT/shards/ (check it with --shard).
folders=()
for ((i = 1; i <= ${#ranges[@]}; i++)); do
  folders+=("$work/$i")
  cp "$work/$i/lifecycle.jsonl" "$out/shards/$(printf '%02d' "$i")-lifecycle.jsonl"
  [[ -n $mp4 ]] && echo "file '$work/$i.mp4'" >> "$work/segments.txt"
done
"$bin" merge "${folders[@]}" --output "$out" >/dev/null
if [[ -n $mp4 ]]; then
  ffmpeg -v error -y -f concat -safe 0 -i "$work/segments.txt" -c copy -movflags +faststart "$work/joined.mp4"
  mv "$work/joined.mp4" "$mp4"
fi
echo "rendered $total frames in ${#ranges[@]} shards into $out"
