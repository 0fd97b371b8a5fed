// libwebp's animation decoder for Swift: animated WebP stickers, which FFmpeg 5.1 cannot decode.
// libwebp reports failure by return values; `WebPAnimationDecoder` (StoryMedia) owns what it
// allocates. WebPAnimDecoderOptionsInit and WebPAnimDecoderNew are static inline functions over
// versioned entry points, which Swift imports as they are.
#ifndef LIVE_STORIES_CWEBP_SHIM_H
#define LIVE_STORIES_CWEBP_SHIM_H

#include <webp/decode.h>
#include <webp/demux.h>

#endif
