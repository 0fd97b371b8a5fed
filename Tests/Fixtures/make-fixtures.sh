#!/usr/bin/env bash
# Regenerates the small committed test fixtures with the ffmpeg CLI (not needed to run tests).
set -euo pipefail
cd "$(dirname "$0")"
q() { ffmpeg -v error -y "$@"; }

# Stored 160x90: left half red, right half blue, tagged to be shown turned (display matrix).
q -f lavfi -i "color=red:s=80x90:r=10:d=0.5[a];color=blue:s=80x90:r=10:d=0.5[b];[a][b]hstack" \
  -c:v libx264 -qp 0 -pix_fmt yuv444p plain-landscape.mp4
q -i plain-landscape.mp4 -c copy -metadata:s:v:0 rotate=90 rotated.mp4
rm plain-landscape.mp4

# Stored 64x128 with a 2:1 sample aspect ratio (shown 128x128): stripes red 16, green 32, blue 16.
q -f lavfi -i "color=red:s=16x128:r=10:d=0.5[a];color=lime:s=32x128:r=10:d=0.5[b];color=blue:s=16x128:r=10:d=0.5[c];[a][b][c]hstack=3,setsar=2" \
  -c:v libx264 -qp 0 -pix_fmt yuv444p sar.mp4

# 10-bit video (FFV1, yuv420p10le) in Matroska, and an odd-sized 16-bit PNG.
q -f lavfi -i "color=0x3080c0:s=66x118:r=10:d=0.3" -c:v ffv1 -pix_fmt yuv420p10le tenbit.mkv
q -f lavfi -i "color=0xc08030:s=101x179" -frames:v 1 -pix_fmt rgb48be odd.png

# One second at 30 fps whose frame n has luma 16 + 7n, to tell frames apart by brightness.
q -f lavfi -i "color=black:s=96x160:r=30:d=1,format=gray,geq=lum='16+7*N'" \
  -c:v libx264 -qp 0 -pix_fmt yuv444p -g 10 -movflags +faststart counter.mp4

# Audio only.
q -f lavfi -i "sine=frequency=440:duration=0.3" -c:a aac -b:a 32k tone.m4a
ls -la
