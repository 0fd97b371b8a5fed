#!/usr/bin/env bash
# Splits a render into N frame-range shards, runs them with GNU parallel, and gathers the frames
# into one folder. The frames are byte-identical to a single render's.
#
#   scripts/render-sharded.sh BOARD N OUT [--mp4 FILE.mp4] [render options, e.g. --size 1080x1920]
#
# OUT gets the frames and one lifecycle.jsonl and summary.json (`render-stories merge`); each
# shard's own trace is kept as OUT/shards/NN-lifecycle.jsonl (NN from 00) (check it with `check --shard`).
# With --mp4, each shard also encodes its frames as a segment, and the segments are joined
# (scripts/join-segments.sh): the pictures without re-encoding (ffmpeg's concat demuxer), the
# sound decoded and encoded once; shard sizes are then whole GOPs (one second of frames), so
# every segment starts on a keyframe. Set RENDER_STORIES to use another build.
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

# The tool splits the frames (from the same options the shards get), by the one rule the Slurm
# and Kubernetes paths share: `frames --shards N`, with whole GOPs when the segments are joined.
# The ranges are made once, here, so the cuts may move onto the clips' keyframes (--keyframes):
# then no shard decodes pictures it does not show, and the frames are the same.
whole=()
[[ -n $mp4 ]] && whole=(--whole-seconds)
mapfile -t ranges < <("$bin" frames "$board" --shards "$shards" --keyframes "${whole[@]}" "$@")
((${#ranges[@]} > 0)) || { echo "render-sharded: cannot split the frames of $board" >&2; exit 1; }
total=${ranges[-1]#*..}

mkdir -p "$out/shards"
work=$(mktemp -d "$out/.shards.XXXXXX")
trap 'rm -rf "$work"' EXIT
segment=()
[[ -n $mp4 ]] && segment=(--mp4 "$work/{1}.mp4")
# Shards count from 0, as Slurm's array tasks and Kubernetes' completion indexes do.
for i in "${!ranges[@]}"; do echo "$i ${ranges[i]}"; done |
  parallel --will-cite --halt now,fail=1 --colsep ' ' -j "$shards" \
    "$bin" render "$board" --frames '{2}' --output "$work/{1}" --quiet "${segment[@]}" "$@"
# One trace and summary for the whole render, equal to a single render's (wall times aside),
# and every frame in OUT. Each shard's own trace stays in OUT/shards/ (check it with --shard).
folders=() segments=()
for i in "${!ranges[@]}"; do
  folders+=("$work/$i")
  cp "$work/$i/lifecycle.jsonl" "$out/shards/$(printf '%02d' "$i")-lifecycle.jsonl"
  [[ -n $mp4 ]] && segments+=("$work/$i.mp4")
done
"$bin" merge "${folders[@]}" --output "$out" >/dev/null
if [[ -n $mp4 ]]; then
  # Pictures copied, sound re-encoded once, so the joins stay in sync (join-segments.sh says why).
  "$(dirname "$0")/join-segments.sh" "$work/joined.mp4" "${segments[@]}"
  mv "$work/joined.mp4" "$mp4"
fi
echo "rendered $total frames in ${#ranges[@]} shards into $out"
