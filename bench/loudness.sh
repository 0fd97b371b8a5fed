#!/usr/bin/env bash
# What `--loudness -14` adds to a render with `--mp4` (a figure, not a pass/fail test; issue 32's
# target is at most 10 %): the demo rendered to an MP4 only (`--no-png`, so the MP4 is the whole
# of the output work and the share is the largest it can be), with and without `--loudness -14`,
# RUNS times each (default 5), alternated so a change in the machine's load hits both alike;
# wall seconds as medians, and their ratio. Also the loudness figures of the last run.
#   bench/loudness.sh [runs] [WxH]      (RENDER_STORIES=path: a binary already built)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/quiet-build.sh
runs=${1:-5}
size=${2:-360x640}
if [[ -n ${RENDER_STORIES:-} ]]; then
  bin=$RENDER_STORIES
else
  quiet_release_build
  bin=$PWD/.build/release/render-stories
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp samples/*.mp4 samples/*.jpg samples/demo.json "$work/"

plain=() loud=()
timed() { # out-array-name, extra arguments...
  local -n into=$1
  shift
  local start end
  start=$(date +%s.%N)
  "$bin" render "$work/demo.json" --size "$size" --quiet --no-png --mp4 "$work/clip.mp4" --output "$work/out" "$@"
  end=$(date +%s.%N)
  into+=("$(python3 -c "print($end - $start)")")
}
for _ in $(seq "$runs"); do
  timed plain
  timed loud --loudness -14
done

echo "render --mp4 of the demo at $size, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $runs runs each"
python3 - "$work/out/summary.json" "${plain[*]}" "${loud[*]}" <<'PY'
import json, statistics, sys
plain = [float(v) for v in sys.argv[2].split()]
loud = [float(v) for v in sys.argv[3].split()]
p, l = statistics.median(plain), statistics.median(loud)
print(f"--mp4                    median {p:6.2f} s  ({', '.join(f'{v:.2f}' for v in plain)})")
print(f"--mp4 --loudness -14     median {l:6.2f} s  ({', '.join(f'{v:.2f}' for v in loud)})")
print(f"ratio {l / p:.3f} ({(l / p - 1) * 100:+.1f} %; the target is at most +10 %)")
print("loudness:", json.dumps(json.load(open(sys.argv[1]))["loudness"]))
PY
