#!/usr/bin/env bash
# Regenerates the bundled sample media with the ffmpeg CLI. The outputs are committed, so
# `make demo` does not need ffmpeg; run this only to change them. Keep samples/ under 4 MB.
#
# Every clip is portrait 720x1280, H.264 (yuv420p, +faststart so a truncated copy still opens),
# 30 fps, with a quiet tone on an AAC track (a different pitch per story).
set -euo pipefail
cd "$(dirname "$0")"
# ffmpeg converts RGB to limited-range BT.601 YUV; the clips say so (`tag`), since players
# guess BT.709 for an untagged HD picture.
tag=(-colorspace smpte170m -color_primaries smpte170m -color_trc smpte170m -color_range tv)

encode() { # name seconds tone-hz filtergraph [extra args...]
  local name=$1 seconds=$2 tone=$3 graph=$4; shift 4
  ffmpeg -v error -y -f lavfi -i "$graph" -f lavfi -i "sine=frequency=$tone:sample_rate=48000:duration=$seconds" \
    -t "$seconds" -map 0:v -map 1:a -c:v libx264 -preset slow -crf 36 -g 30 -pix_fmt yuv420p "${tag[@]}" \
    -c:a aac -b:a 48k -ac 1 -af "volume=0.25" -movflags +faststart "$@" "$name"
}

# Warm gradients drifting: "beach".
encode beach.mp4 3 440 "gradients=s=720x1280:r=30:c0=0xff9a3c:c1=0xffd36e:c2=0x2fb5d2:c3=0x1f6f9f:n=4:speed=0.03:duration=3"
# A busy test pattern: "city".
encode city.mp4 3 523 "testsrc2=s=720x1280:r=30:d=3,hue=s=0.6"
# A fractal zoom: "forest".
encode forest.mp4 3 659 "mandelbrot=s=720x1280:r=30:end_scale=0.05,hue=h=90:s=0.8,trim=duration=3"
# Stored landscape (1280x720) with a 90° display matrix, as phones record portrait video.
# The rotate tag is only written on a remux, so encode first, then copy with the tag.
encode night-landscape.mp4 3 784 "cellauto=s=1280x720:r=30:rule=110:scroll=1,negate,colorchannelmixer=rr=0.3:gg=0.4:bb=1,trim=duration=3"
ffmpeg -v error -y -i night-landscape.mp4 -c copy -metadata:s:v:0 rotate=90 -movflags +faststart night.mp4
rm night-landscape.mp4

# A photo item and a poster.
ffmpeg -v error -y -f lavfi -i "gradients=s=720x1280:c0=0xff5e62:c1=0xff9966:c2=0x5b247a:n=3:x0=0:y0=0:x1=720:y1=1280:duration=1" \
  -frames:v 1 -q:v 4 sunset.jpg
ffmpeg -v error -y -i beach.mp4 -frames:v 1 -q:v 6 beach-poster.jpg
# The app's home screen behind the viewer (the storyboard's backdrop): a grid of icons.
ffmpeg -v error -y -f lavfi -i "gradients=s=720x1280:c0=0x3aa0ff:c1=0xff6a88:c2=0x5ee7a0:c3=0xffc24b:n=4:x0=0:y0=0:x1=720:y1=1280:duration=1,drawgrid=x=-15:y=60:w=180:h=180:t=50:c=0x16202c" \
  -frames:v 1 -q:v 5 home.jpg

# A live room (room.json): three speakers, each speaking (a tone) in their own seconds, and one
# participant with video but no sound; an avatar each. Small: 360x640, gradients at CRF 36.
speaker() { # name seconds-from seconds-to tone-hz colours
  ffmpeg -v error -y -f lavfi -i "gradients=s=360x640:r=30:c0=$5:n=2:speed=0.02:duration=10" \
    -f lavfi -i "sine=frequency=$4:sample_rate=48000:duration=10" \
    -af "volume=enable='not(between(t,$2,$3))':volume=0,volume=0.5" -t 10 -map 0:v -map 1:a \
    -c:v libx264 -preset slow -crf 36 -g 30 -pix_fmt yuv420p "${tag[@]}" -c:a aac -b:a 32k -ac 1 -movflags +faststart "$1"
}
speaker room-ana.mp4 0.5 3 392 "0xd2452f:c1=0xf2a03d"
speaker room-ben.mp4 3.5 6 523 "0x2f8f4e:c1=0x9ad66b"
speaker room-cy.mp4 6.5 9 659 "0x2f52d2:c1=0x7fb0f2"
ffmpeg -v error -y -f lavfi -i "gradients=s=360x640:r=30:c0=0x6b2fd2:c1=0xd26bb0:n=2:speed=0.02:duration=10" \
  -c:v libx264 -preset slow -crf 36 -g 30 -pix_fmt yuv420p "${tag[@]}" -an -movflags +faststart room-dee.mp4
for who in ana:0xf2a03d ben:0x9ad66b cy:0x7fb0f2 dee:0xd26bb0; do
  ffmpeg -v error -y -f lavfi -i "gradients=s=128x128:c0=${who#*:}:c1=0x202028:n=2:x0=0:y0=0:x1=128:y1=128:duration=1" \
    -frames:v 1 -q:v 5 "avatar-${who%%:*}.jpg"
done

du -ch ./*.mp4 ./*.jpg | tail -1
