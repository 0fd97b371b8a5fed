#!/usr/bin/env bash
# Installs the Debian packages live-stories needs, and only those that are missing.
# Called by `make build`, `make demo` and `make test`; safe to run again (it does nothing then).
#
#   scripts/install-deps.sh          build dependencies (-dev packages via pkg-config)
#   scripts/install-deps.sh --test   also the tools the tests use
set -euo pipefail

want_tests=0
[[ ${1:-} == --test ]] && want_tests=1

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)

# pkg-config module → Debian package that provides it.
modules=(libavformat:libavformat-dev libavcodec:libavcodec-dev libswscale:libswscale-dev
         libavutil:libavutil-dev libswresample:libswresample-dev libpng:libpng-dev zlib:zlib1g-dev libdeflate:libdeflate-dev
         freetype2:libfreetype-dev libavfilter:libavfilter-dev
         libheif:libheif-dev lcms2:liblcms2-dev libass:libass-dev harfbuzz:libharfbuzz-dev
         libwebpdemux:libwebp-dev
         gstreamer-1.0:libgstreamer1.0-dev gstreamer-sdp-1.0:libgstreamer-plugins-base1.0-dev
         gstreamer-app-1.0:libgstreamer-plugins-base1.0-dev gstreamer-webrtc-1.0:libgstreamer-plugins-bad1.0-dev)
for entry in "${modules[@]}"; do
  module=${entry%%:*} package=${entry#*:}
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$module"; then
    missing+=("$package")
  fi
done
# The pictures' text (error cards, labels, contact sheet, timeline) and the captions (libass,
# given the files themselves) are DejaVu Sans, read from Debian's path
# (Sources/Compositor/Typeface+Standard.swift).
for font in DejaVuSans.ttf DejaVuSans-Bold.ttf; do
  [[ -f /usr/share/fonts/truetype/dejavu/$font ]] || missing+=(fonts-dejavu-core)
done
# Colour emoji in text layers and captions are drawn from Noto Color Emoji's bitmaps
# (Sources/StoryPlayer/StoryMedia/EmojiFont.swift); without it they stay libass's outlines.
[[ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]] || missing+=(fonts-noto-color-emoji)

# CStoryWHEP is compiled against GStreamer's headers (the gstreamer -dev packages above) and
# linked to none of its libraries. libgstreamer-plugins-bad1.0-dev depends on OpenCV's -dev
# packages: measured on a Debian 12 machine that had the rest, the three took 177 packages,
# 129 MB downloaded and 570 MB installed.
# WebRTC playback (WHEP sources) opens GStreamer 1.22 when a WHEP source first plays
# (Sources/CStoryWHEP): webrtcbin, DTLS, SRTP, h264parse, opusparse, mpegtsmux (-bad), the RTP
# depayloaders and rtpbin (-good), appsink (-base), and libnice's ICE agent (gstreamer1.0-nice).
gst_dir=/usr/lib/$(uname -m)-linux-gnu/gstreamer-1.0
whep_plugins=(gstreamer1.0-plugins-base:libgstapp.so gstreamer1.0-plugins-good:libgstrtpmanager.so
              gstreamer1.0-plugins-good:libgstrtp.so gstreamer1.0-plugins-bad:libgstwebrtc.so
              gstreamer1.0-plugins-bad:libgstdtls.so gstreamer1.0-plugins-bad:libgstsrtp.so
              gstreamer1.0-plugins-bad:libgstmpegtsmux.so gstreamer1.0-nice:libgstnice.so)
for entry in "${whep_plugins[@]}"; do
  [[ -f $gst_dir/${entry#*:} ]] || missing+=("${entry%%:*}")
done

# HTTPS sources and feed pages are checked against the system's certificate authorities
# (GnuTLS reads Debian's bundle); without it no HTTPS server is trusted.
[[ -f /etc/ssl/certs/ca-certificates.crt ]] || missing+=(ca-certificates)

if ((want_tests)); then
  # command → Debian package. The live-source tests start real servers on 127.0.0.1: ffmpeg
  # feeds them (RTMP, HLS, SRT), nginx with the RTMP module serves RTMP, python3 serves HTTP.
  # GNU parallel runs the shards of scripts/render-sharded.sh. Headless chromium opens the
  # report page the way a user would (keys, clicks, console errors, a screenshot). The Slurm
  # test starts its own single-node cluster (slurmctld, slurmd, and munged for authentication),
  # so slurm-wlm and munge are installed without their services running (policy-rc.d below).
  tools=(ffmpeg:ffmpeg ffprobe:ffmpeg nginx:nginx python3:python3 parallel:parallel chromium:chromium
         slurmctld:slurm-wlm slurmd:slurm-wlm sbatch:slurm-wlm munged:munge openssl:openssl)
  for entry in "${tools[@]}"; do
    command -v "${entry%%:*}" >/dev/null 2>&1 || [[ -x /usr/sbin/${entry%%:*} ]] || missing+=("${entry#*:}")
  done
  [[ -f /usr/lib/nginx/modules/ngx_rtmp_module.so ]] || missing+=(libnginx-mod-rtmp)
  # The photo orientation tests tag JPEGs as phones do with exiftool, and check every picture
  # against ImageMagick's -auto-orient. Another `convert` (GraphicsMagick, a stand-in) may be
  # first on PATH, so ImageMagick is known by its version line.
  command -v exiftool >/dev/null 2>&1 || missing+=(libimage-exiftool-perl)
  [[ $(convert -version 2>/dev/null) == *"Version: ImageMagick"* ]] || missing+=(imagemagick)
  # The phone-photo tests make HEIC and AVIF with libheif's heif-enc and check them against its
  # heif-convert; ICC colours are checked against Little CMS's transicc.
  for entry in heif-enc:libheif-examples heif-convert:libheif-examples transicc:liblcms2-utils; do
    command -v "${entry%%:*}" >/dev/null 2>&1 || missing+=("${entry#*:}")
  done
  # The live-clock tests publish with GStreamer too (a family other than ffmpeg): rtmp2sink,
  # hlssink2, srtsink and dashsink (-bad), x264enc (-ugly), flvmux (-good), avenc_aac (-libav).
  command -v gst-launch-1.0 >/dev/null 2>&1 || missing+=(gstreamer1.0-tools)
  gst_plugins=(gstreamer1.0-plugins-good:libgstflv.so gstreamer1.0-plugins-bad:libgsthls.so
               gstreamer1.0-plugins-ugly:libgstx264.so gstreamer1.0-libav:libgstlibav.so)
  for entry in "${gst_plugins[@]}"; do
    [[ -f /usr/lib/x86_64-linux-gnu/gstreamer-1.0/${entry#*:} || -f /usr/lib/$(uname -m)-linux-gnu/gstreamer-1.0/${entry#*:} ]] \
      || missing+=("${entry%%:*}")
  done
  # The WHEP interoperability test's sender is GStreamer's own webrtcbin, driven from Python
  # (Tests/Support/Python/whep_webrtcbin.py, on Debian's /usr/bin/python3): PyGObject and the
  # typelibs of GStreamer, its SDP and WebRTC libraries.
  /usr/bin/python3 -c 'import gi; gi.require_version("GstWebRTC", "1.0"); gi.require_version("GstSdp", "1.0")' \
    >/dev/null 2>&1 || missing+=(python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 gir1.2-gst-plugins-bad-1.0)
  # moreutils has a different `parallel`; the shard script needs GNU's.
  parallel --version 2>/dev/null | grep -q "GNU parallel" || missing+=(parallel)
fi

# The WHEP tests' sender is a WebRTC peer from PyPI (aiortc, whose PyAV wheel brings libx264
# and libopus): Tests/Support/Python/whep_peer.py and whep_aiortc.py. Installed after the Debian packages (python3 and its
# pip among them), at the end of this script.
install_python_packages() {
  ((want_tests)) || return 0
  python3 -c 'import aiortc' >/dev/null 2>&1 && return 0
  echo "install-deps: installing aiortc==1.16.0 (pip)" >&2
  # Debian's own python3 refuses pip outside a virtual environment (PEP 668); the tests' peer
  # runs on the python3 on PATH, so the package goes there (pip before 23 ignores the variable).
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q aiortc==1.16.0 >&2
}
if ((want_tests)) && ! python3 -m pip --version >/dev/null 2>&1; then
  missing+=(python3-pip)
fi

if ((${#missing[@]} == 0)); then
  install_python_packages
  exit 0
fi

# Each package once.
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
echo "install-deps: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
# Installing nginx would start Debian's own nginx service on port 80, and slurm-wlm and munge
# their daemons with the system's config; the tests run their own instances, so keep package
# scripts from starting services while we install.
policy=/usr/sbin/policy-rc.d
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
  "${sudo[@]}" chmod +x "$policy"
  trap '"${sudo[@]}" rm -f "$policy"' EXIT
fi
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
install_python_packages
