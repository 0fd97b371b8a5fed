#!/usr/bin/env bash
# Issue 64's speed target for `compare`: comparing two 720x1280 renders of 300 frames (SSIM and
# PSNR; no VMAF: Debian's libavfilter has no libvmaf) takes less time than rendering one.
#   bench/compare.sh [SIZE] [FRAMES]        (default 720x1280 300)
# Renders samples/demo.json at SIZE for FRAMES frames (A), then again (B: the same frames) and
# with --no-overlay (C: every frame differs), timing each render; then times `compare A B`
# (paired by their frames.jsonl, every pair's files of equal bytes: nothing decoded) and
# `compare A C` (every pair decoded and measured), RUNS times each (default 3), alternated, and
# prints medians, peak RSS and one TARGET line; and `compare A C` again as two folders without
# frames.jsonl (an older render's) are compared, by their pictures' fingerprints. RENDER_STORIES=PATH measures another build as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
size=${1:-720x1280}
frames=${2:-300}
runs=${RUNS:-3}
[[ -x /usr/bin/time ]] || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
if [[ -n ${RENDER_STORIES:-} ]]; then bin=$(realpath "$RENDER_STORIES"); else quiet_release_build; bin=$PWD/.build/release/render-stories; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seconds=$(python3 -c "print($frames / 30)")

timed() { # label command... -> appends "seconds rss_kb" to $work/label
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || {
    local status=$?
    # compare exits 1 when the renders differ: that is the point of A against C.
    [[ $status == 1 && $label == compare-c* ]] || { cat "$work/stderr" >&2; echo "$label failed ($status)" >&2; exit 1; }
  }
  tail -1 "$work/time" >> "$work/$label"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

render=("$bin" render samples/demo.json --size "$size" --duration "$seconds" --quiet)
for r in $(seq "$runs"); do
  timed render "${render[@]}" --output "$work/a"
  timed render-again "${render[@]}" --output "$work/b"
  timed render-plain "${render[@]}" --output "$work/c" --no-overlay
  timed compare-same "$bin" compare "$work/a" "$work/b"
  timed compare-changed "$bin" compare "$work/a" "$work/c"
  # The same two renders as an older render's folders are (no frames.jsonl): paired by content.
  rm -rf "$work/a-content" "$work/c-content"
  cp -al "$work/a" "$work/a-content" && cp -al "$work/c" "$work/c-content"
  rm "$work/a-content/frames.jsonl" "$work/c-content/frames.jsonl"
  timed compare-content "$bin" compare "$work/a-content" "$work/c-content"
done
count=$(ls "$work/a" | grep -c '^frame-.*\.png$')
"$bin" compare "$work/a" "$work/c" --json > "$work/report.json" || true
changed=$(python3 -c "import json; r = json.load(open('$work/report.json')); print(sum(f['verdict'] == 'changed' for f in r['frames']), round(r['mean_ssim'], 4), 'pairing', r['pairing'])")
fig() { # label -> "median s (runs), peak RSS MB"
  printf "%s s (%s), peak RSS %s MB" "$(cut -d' ' -f1 "$work/$1" | median)" "$(cut -d' ' -f1 "$work/$1" | tr '\n' ' ' | sed 's/ $//')" \
    "$(cut -d' ' -f2 "$work/$1" | sort -n | tail -1 | awk '{printf "%.0f", $1 / 1024}')"
}
echo "compare bench: $size, $count frames of samples/demo.json, $runs runs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "FIGURE render: $(fig render)"
echo "FIGURE compare-same (A against the same render again: paired by the trace, equal bytes): $(fig compare-same)"
echo "FIGURE compare-changed (A against --no-overlay: changed pairs, mean SSIM: $changed): $(fig compare-changed)"
echo "FIGURE compare-content (the same, without frames.jsonl: paired by fingerprints, each side read twice): $(fig compare-content)"
render_s=$(cut -d' ' -f1 "$work/render" | median)
compare_s=$(cut -d' ' -f1 "$work/compare-changed" | median)
verdict=$(python3 -c "print('PASS' if $compare_s < $render_s else 'FAIL')")
echo "TARGET compare-speed: $verdict compare of every pair $compare_s s against rendering one $render_s s (ratio $(python3 -c "print(round($compare_s / $render_s, 2))"))"
