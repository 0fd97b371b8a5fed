#!/usr/bin/env bash
# Joins the clip segments of a render's shards (`render --frames A..B --mp4 S.mp4`, or --webm)
# into one clip, in sync and without a click at the joins:
#   scripts/join-segments.sh OUT.mp4 SEGMENT.mp4 …
#
# The pictures are joined without re-encoding (ffmpeg's concat demuxer: each segment starts on
# a keyframe of a closed GOP). The sound is decoded, each segment's cut to its pictures'
# length, and encoded once (AAC 128 kbit/s for MP4, Opus for WebM). Copied as it is, every
# segment's sound brings its encoder's priming (1024 samples of AAC, 312 of Opus) and its
# last frame's padding: measured on three shards, the sound drifted 21-32 ms later at every
# join, with 20 ms of silence or a click there. Re-encoding the sound costs well under a
# second a minute. A segment without sound joins as silence of its pictures' length.
#
# OUT is written whole or not at all (a temporary file beside it, then a rename).
set -euo pipefail
(($# >= 2)) || { sed -n '2,4p' "$0" >&2; exit 2; }
out=$1
shift
case $out in
  *.mp4) audio=(-c:a aac -b:a 128k) muxer=(-movflags +faststart) ;;
  *.webm) audio=(-c:a libopus -b:a 128k) muxer=() ;;
  *) echo "join-segments: $out is neither .mp4 nor .webm" >&2; exit 2 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/join-segments.XXXXXX")
partial="$(dirname "$out")/.$(basename "$out").$$.partial"
trap 'rm -rf "$work" "$partial"' EXIT
inputs=() filter="" labels="" n=0 sounding=0
for segment in "$@"; do
  [[ -f $segment ]] || { echo "join-segments: no segment $segment" >&2; exit 1; }
  # The pictures' length: their count over their rate (a WebM's streams have no duration).
  seconds=$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=r_frame_rate,nb_read_packets \
    -of default=noprint_wrappers=1 "$segment" |
    awk -F= '$1 == "r_frame_rate" { split($2, r, "/"); if (r[2] > 0) rate = r[1] / r[2] } $1 == "nb_read_packets" { n = $2 }
             END { if (rate > 0 && n > 0) printf "%.6f", n / rate }')
  [[ -n $seconds ]] || { echo "join-segments: $segment has no pictures at a known rate" >&2; exit 1; }
  # The next segment starts where this one's pictures end, not where its longest stream does.
  # A quote in a path is written as the concat list's syntax wants it: '\''.
  path=$(realpath "$segment")
  printf "file '%s'\nduration %s\n" "${path//\'/\'\\\'\'}" "$seconds" >> "$work/list.txt"
  samples=$(awk -v s="$seconds" 'BEGIN { printf "%d", s * 48000 + 0.5 }')
  n=$((n + 1))
  if [[ -n $(ffprobe -v error -select_streams a:0 -show_entries stream=index -of csv=p=0 "$segment") ]]; then
    inputs+=(-i "$segment")
    sounding=$((sounding + 1))
  else
    # A segment without sound is silence of its pictures' length, so the joins after it stay
    # where they belong.
    inputs+=(-f lavfi -i anullsrc=r=48000:cl=stereo)
  fi
  # Cut by samples from the sound's start (its priming already skipped by the decoder), not by
  # timestamps, which a WebM's Opus starts 6.5 ms early; padded first, so a segment whose
  # sound is short still fills its pictures' length.
  filter+="[$n:a]aresample=48000,apad,atrim=end_sample=$samples,asetpts=N/SR/TB[a$n];"
  labels+="[a$n]"
done
if ((sounding > 0)); then
  ffmpeg -v error -y -copyts -f concat -safe 0 -i "$work/list.txt" "${inputs[@]}" \
    -filter_complex "${filter}${labels}concat=n=$n:v=0:a=1[sound]" \
    -map 0:v -map "[sound]" -c:v copy "${audio[@]}" "${muxer[@]}" -f "${out##*.}" "$partial"
else
  ffmpeg -v error -y -f concat -safe 0 -i "$work/list.txt" -map 0:v -c:v copy "${muxer[@]}" -f "${out##*.}" "$partial"
fi
mv "$partial" "$out"
