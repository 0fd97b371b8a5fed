#!/usr/bin/env bash
# Splits a render into N frame-range shards, runs them with GNU parallel, and gathers the frames
# into one folder. The frames are byte-identical to a single render's.
#
#   scripts/render-sharded.sh BOARD N OUT [render options, e.g. --size 1080x1920 --fps 30]
#
# Each shard's trace is kept as OUT/shards/NN-lifecycle.jsonl (check it with `check --shard`).
# Set RENDER_STORIES to use another build of the tool; GOP=G makes shard sizes a multiple of G
# frames (so that encoded segments start on a keyframe).
set -euo pipefail
if (($# < 3)); then
  sed -n '2,10p' "$0" >&2
  exit 2
fi
board=$1 shards=$2 out=$3
shift 3
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${RENDER_STORIES:-$here/.build/release/render-stories}
[[ -x $bin ]] || { echo "render-sharded: $bin is not built (make build)" >&2; exit 1; }
parallel --version 2>/dev/null | grep -q "GNU parallel" || { echo "render-sharded: needs GNU parallel (apt-get install parallel)" >&2; exit 1; }
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "render-sharded: N must be a positive number" >&2; exit 2; }

# The frame count depends on --fps and --duration only.
count_args=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --fps|--duration) count_args+=("${args[i]}" "${args[i + 1]}"); i=$((i + 1)) ;;
  esac
done
total=$("$bin" frames "$board" "${count_args[@]}")
size=$(( (total + shards - 1) / shards ))
gop=${GOP:-1}
size=$(( (size + gop - 1) / gop * gop ))

mkdir -p "$out/shards"
work=$(mktemp -d "$out/.shards.XXXXXX")
trap 'rm -rf "$work"' EXIT
ranges=()
for ((start = 0; start < total; start += size)); do
  end=$(( start + size < total ? start + size : total ))
  ranges+=("$start $end")
done
printf '%s\n' "${ranges[@]}" | parallel --will-cite --halt now,fail=1 --colsep ' ' -j "$shards" \
  "$bin" render "$board" --frames {1}..{2} --output "$work/{#}" --quiet "$@"
for ((i = 1; i <= ${#ranges[@]}; i++)); do
  mv "$work/$i"/frame-*.png "$out/"
  mv "$work/$i/lifecycle.jsonl" "$out/shards/$(printf '%02d' "$i")-lifecycle.jsonl"
done
echo "rendered $total frames in ${#ranges[@]} shards into $out"
