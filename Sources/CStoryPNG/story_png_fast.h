#ifndef LIVE_STORIES_STORY_PNG_FAST_H
#define LIVE_STORIES_STORY_PNG_FAST_H

#include "story_png.h"

/// Whether `story_png_encode_fast` handles these settings. It covers the strategies whose
/// matching is trivial (run-length and Huffman-only) with one fixed filter; level 0, zlib's
/// default strategy and adaptive filters go through libpng.
int story_png_fast_supports(int level, story_png_filter filter, story_png_strategy strategy);

/// Writes a whole PNG (signature, IHDR, one IDAT, IEND) without libpng or zlib's deflate.
///
/// zlib runs `deflate_rle` or `deflate_huff` for these strategies at every level from 1 to 9;
/// this encoder matches the same way (a run of the previous byte, at distance 1, or none; its
/// runs are at least 8 bytes) with its own Huffman coder, which codes literals 32 at a time in
/// vector lanes (story_png_rows.c) from a code shaped for it (story_png_code.c).
/// Returns 0 on success; otherwise a non-zero code and a message in `error`.
int story_png_encode_fast(const uint8_t *rgba, int width, int height, size_t stride,
                          int keep_alpha, story_png_filter filter, story_png_strategy strategy,
                          story_png_buffer *out, char *error, size_t error_size);

#endif
