#ifndef LIVE_STORIES_STORY_PNG_H
#define LIVE_STORIES_STORY_PNG_H

#include <stddef.h>
#include <stdint.h>

/// Row filters, as the user picks them (`--png-filter`).
typedef enum {
    STORY_PNG_FILTER_NONE = 0,
    STORY_PNG_FILTER_SUB = 1,
    STORY_PNG_FILTER_UP = 2,
    STORY_PNG_FILTER_PAETH = 3,
    STORY_PNG_FILTER_ADAPTIVE = 4,
} story_png_filter;

/// zlib strategies, as the user picks them (`--png-strategy`).
typedef enum {
    STORY_PNG_STRATEGY_DEFAULT = 0,
    STORY_PNG_STRATEGY_RLE = 1,
    STORY_PNG_STRATEGY_HUFFMAN = 2,
} story_png_strategy;

/// A growable byte buffer that owns its memory; free it with `story_png_buffer_free`.
typedef struct {
    uint8_t *bytes;
    size_t count;
    size_t capacity;
} story_png_buffer;

/// Encodes 8-bit RGBA rows as a PNG in memory.
///
/// With `keep_alpha` 0 the alpha byte of every pixel is dropped and an RGB PNG is written.
/// Levels 1-9 with the RLE or Huffman-only strategy and a fixed filter are written by this
/// target's own deflate coder (`story_png_fast.c`); everything else by libpng.
/// Returns 0 on success; otherwise a non-zero code and a message in `error`.
/// All libpng errors are caught here (libpng longjmps to this function's frame).
int story_png_encode(const uint8_t *rgba, int width, int height, size_t stride,
                     int keep_alpha, int level, story_png_filter filter,
                     story_png_strategy strategy, story_png_buffer *out,
                     char *error, size_t error_size);

/// The version of the libpng this process runs with (`png_get_libpng_ver`), e.g. "1.6.39".
const char *story_png_libpng_version(void);

/// The picture's size, from the PNG's header (its IHDR chunk, CRC checked) alone: 1, or 0 when
/// `png` does not start as a PNG or gives a size past libpng's limits (1,000,000 pixels a side,
/// 4 GiB of RGBA), which is then libpng's to refuse with its own message.
int story_png_size(const uint8_t *png, size_t size, int *width, int *height);

/// Decodes a PNG held in memory into `rgba`, 8-bit RGBA of `width * height * 4` bytes (the
/// size `story_png_size` gave; any PNG colour type is converted), so that a caller reads into
/// memory it owns, with no copy. Plain 8-bit RGB and RGBA files (the frames this tool writes)
/// are read directly, with libdeflate (`story_png_decode_direct`); every other file, and any
/// the direct reader refuses, by libpng's simplified reader, whose pixels the direct reader's equal.
/// Returns 0 on success; otherwise a non-zero code and libpng's message in `error`.
int story_png_decode(const uint8_t *png, size_t size, uint8_t *rgba, int width, int height,
                     char *error, size_t error_size);

/// `story_png_decode` through libpng alone (`png_image_begin_read_from_memory`,
/// `png_image_finish_read`): what the direct reader is held to in tests and the fuzzer.
int story_png_decode_with_libpng(const uint8_t *png, size_t size, uint8_t *rgba, int width, int height,
                                 char *error, size_t error_size);

/// Decodes a plain PNG (8-bit RGB or RGBA, not interlaced, no chunk that changes the pixels'
/// meaning) into `rgba` as `story_png_decode` does, without libpng: every chunk's CRC checked,
/// the IDAT data inflated by `libdeflate_zlib_decompress`, the row filters undone here
/// (`story_png_read.c`). Returns 1 when it did; 0 when the file is not one this reader takes
/// or is damaged (`rgba` then holds anything): libpng then reads it or says why.
int story_png_decode_direct(const uint8_t *png, size_t size, uint8_t *rgba, int width, int height);

/// Whether `story_png_decode` tries the direct reader first (on unless a test turns it off).
int story_png_direct_read_enabled(void);
void story_png_set_direct_read_enabled(int enabled);

void story_png_buffer_free(story_png_buffer *buffer);

/// zlib's Adler-32 of `length` bytes, continuing from `adler` (1 to start): with AVX2 where
/// the CPU has it, otherwise zlib's `adler32`. The checksum of every zlib stream written here.
uint32_t story_png_adler32(uint32_t adler, const uint8_t *data, size_t length);

/// zlib's CRC-32 of `length` bytes, continuing from `crc` (0 to start): folded with PCLMUL
/// where the CPU has it, otherwise zlib's `crc32`. The checksum of every PNG chunk written here.
uint32_t story_png_crc32(uint32_t crc, const uint8_t *data, size_t length);

/// Whether the vector paths (SSSE3/AVX2 filters, AVX2 Adler-32, PCLMUL CRC-32) may run, where
/// the CPU has them; 1 unless turned off. Tests turn them off to cover the scalar fallbacks,
/// which must write the same bytes.
int story_png_simd_enabled(void);
void story_png_set_simd_enabled(int enabled);

#endif
