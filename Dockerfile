# live-stories on Debian 12 with the Swift toolchain, the FFmpeg, libpng, FreeType, libheif, Little CMS, libass, HarfBuzz and
# libwebp -dev packages, DejaVu fonts and Noto Color Emoji;
# GStreamer's WebRTC plugins at run time, for WHEP sources.
# Not built or run in this project's CI (no Docker engine there); kept minimal and standard.
#   docker build -t live-stories .
#   docker run --rm -v "$PWD/work:/work" live-stories render /work/board.json --output /work/out
FROM swift:6.0-bookworm AS build
WORKDIR /src
COPY . .
RUN scripts/install-deps.sh && scripts/build-release.sh

FROM swift:6.0-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libavformat59 libavcodec59 libavfilter8 libswscale6 libswresample4 libavutil57 libpng16-16 \
    libfreetype6 libheif1 liblcms2-2 libass9 libharfbuzz0b libwebp7 libwebpdemux2 libdeflate0 \
    fonts-dejavu-core fonts-noto-color-emoji \
    gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-nice \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/.build/release/render-stories /usr/local/bin/render-stories
ENTRYPOINT ["render-stories"]
