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
         libavutil:libavutil-dev libpng:libpng-dev zlib:zlib1g-dev)
for entry in "${modules[@]}"; do
  module=${entry%%:*} package=${entry#*:}
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$module"; then
    missing+=("$package")
  fi
done

if ((want_tests)); then
  # command → Debian package. ffmpeg regenerates fixtures and feeds the live servers.
  tools=(ffmpeg:ffmpeg ffprobe:ffmpeg)
  for entry in "${tools[@]}"; do
    command -v "${entry%%:*}" >/dev/null 2>&1 || missing+=("${entry#*:}")
  done
fi

if ((${#missing[@]} == 0)); then
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
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
