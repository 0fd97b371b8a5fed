// The direct PNG reader: the PNGs this tool writes (and most encoders do), read without libpng.
//
// `compare` reads every frame of two renders; through libpng most of its time went to zlib's
// inflate of the Huffman-only and run-length streams the frame writer makes (one literal a
// symbol, which zlib decodes a bit at a time where libdeflate decodes by whole table lookups).
// This reader takes the plain case (8-bit RGB or RGBA, not interlaced, no chunk that changes
// what the pixels mean), checks every chunk's CRC, inflates the joined IDAT data in one
// `libdeflate_zlib_decompress` call into a buffer of exactly the rows' size, and undoes the row
// filters. Anything else, and any fault it meets, is left to libpng, which reads it or says why
// not: the pixels are libpng's either way (tested on every filter, and fuzzed side by side).

#include "story_png.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static uint32_t read_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static int chunk_is(const uint8_t *type, const char *name) { return memcmp(type, name, 4) == 0; }

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

/// libpng's limits: 1,000,000 pixels a side, and at most 4 GiB of RGBA rows
/// (png_image_finish_read's "image too large"). A header past them is libpng's to refuse.
static int within_libpng_limits(uint32_t width, uint32_t height) {
    return width > 0 && height > 0 && width <= 1000000u && height <= 1000000u && (uint64_t)width * 4 * height <= 0xffffffffu;
}

int story_png_size(const uint8_t *png, size_t size, int *width, int *height) {
    static const uint8_t header[8] = {0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    if (size < 33 || memcmp(png, png_signature, 8) != 0 || memcmp(png + 8, header, 8) != 0) return 0;
    if (libdeflate_crc32(0, png + 12, 17) != read_be32(png + 29)) return 0;
    uint32_t w = read_be32(png + 16), h = read_be32(png + 20);
    if (!within_libpng_limits(w, h)) return 0;
    *width = (int)w;
    *height = (int)h;
    return 1;
}

/// Ancillary chunks that leave libpng's 8-bit RGBA output as the stored samples: text, time,
/// pixel size, and sRGB (libpng converts to sRGB, so an sRGB file is unchanged). gAMA, cHRM,
/// iCCP, sBIT, tRNS, bKGD and any chunk not known here send the file to libpng.
static int chunk_keeps_pixels(const uint8_t *type) {
    static const char *const kept[] = {"tEXt", "zTXt", "iTXt", "tIME", "pHYs", "sRGB"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        if (chunk_is(type, kept[i])) return 1;
    }
    return 0;
}

/// The IHDR fields the direct reader needs.
typedef struct {
    uint32_t width, height;
    int channels; // 3 (RGB) or 4 (RGBA)
} plain_header;

/// Whether IHDR's 13 bytes describe a plain image: 8 bits, RGB or RGBA, deflate, filter
/// method 0, not interlaced, within libpng's limits.
static int read_header(const uint8_t *data, uint32_t length, plain_header *header) {
    if (length != 13) return 0;
    uint32_t width = read_be32(data), height = read_be32(data + 4);
    int depth = data[8], colour = data[9], compression = data[10], filter = data[11], interlace = data[12];
    if (!within_libpng_limits(width, height)) return 0;
    if (depth != 8 || (colour != 2 && colour != 6) || compression != 0 || filter != 0 || interlace != 0) return 0;
    header->width = width;
    header->height = height;
    header->channels = colour == 6 ? 4 : 3;
    return 1;
}

/// Paeth's predictor, as the PNG specification writes it.
static inline uint8_t paeth(int a, int b, int c) {
    int p = a + b - c;
    int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) return (uint8_t)a;
    return (uint8_t)(pb <= pc ? b : c);
}

/// `dst[i] = src[i] + prior[i]`, the Up filter undone (the frame writer's default), 16 bytes
/// at a time where SSE2 is (every x86-64). `dst` may lie before `src` in the same buffer: each
/// 16 bytes are loaded before any store can reach them, which a compiler's vectorizer cannot
/// prove and so leaves this loop a byte at a time.
static void add_rows(uint8_t *dst, const uint8_t *src, const uint8_t *prior, size_t count) {
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= count; i += 16) {
        __m128i sum = _mm_add_epi8(_mm_loadu_si128((const __m128i *)(src + i)),
                                   _mm_loadu_si128((const __m128i *)(prior + i)));
        _mm_storeu_si128((__m128i *)(dst + i), sum);
    }
#endif
    for (; i < count; i++) dst[i] = (uint8_t)(src[i] + prior[i]);
}

/// Undoes one row's filter: `src` (`count` filtered bytes) into `dst`, against `prior`, the row
/// above already undone (NULL for the first, which the specification reads as zeros). `dst`
/// may be `src` or lie before it in the same buffer (each byte is read before any write
/// reaches it). 0 for an unknown filter.
static int unfilter_row(int filter, uint8_t *dst, const uint8_t *src, const uint8_t *prior, size_t count,
                        size_t bpp) {
    switch (filter) {
    case 0:
        memmove(dst, src, count);
        return 1;
    case 1:
        for (size_t i = 0; i < count; i++) dst[i] = (uint8_t)(src[i] + (i >= bpp ? dst[i - bpp] : 0));
        return 1;
    case 2:
        if (!prior) {
            memmove(dst, src, count);
            return 1;
        }
        add_rows(dst, src, prior, count);
        return 1;
    case 3:
        for (size_t i = 0; i < count; i++) {
            int left = i >= bpp ? dst[i - bpp] : 0, up = prior ? prior[i] : 0;
            dst[i] = (uint8_t)(src[i] + ((left + up) >> 1));
        }
        return 1;
    case 4:
        for (size_t i = 0; i < count; i++) {
            int left = i >= bpp ? dst[i - bpp] : 0, up = prior ? prior[i] : 0;
            int upper_left = (prior && i >= bpp) ? prior[i - bpp] : 0;
            dst[i] = (uint8_t)(src[i] + paeth(left, up, upper_left));
        }
        return 1;
    default:
        return 0;
    }
}

/// The IDAT data of a file whose chunks all check out, and its header; 0 when any chunk is
/// damaged, out of order, or one this reader leaves to libpng. `joined` is set when the data
/// spans several IDAT chunks and had to be copied together (the caller frees it).
static int find_image_data(const uint8_t *png, size_t size, plain_header *header, const uint8_t **data,
                           size_t *data_size, uint8_t **joined) {
    if (size < 8 || memcmp(png, png_signature, 8) != 0) return 0;
    size_t at = 8;
    int have_header = 0, idat_state = 0; // 0 before the IDATs, 1 inside them, 2 after
    const uint8_t *first = NULL;
    size_t total = 0, count = 0;
    while (1) {
        if (size - at < 12) return 0;
        uint32_t length = read_be32(png + at);
        const uint8_t *type = png + at + 4;
        if (length > 0x7fffffffu || size - at - 12 < length) return 0;
        const uint8_t *body = type + 4;
        uint32_t crc = read_be32(body + length);
        if (libdeflate_crc32(0, type, (size_t)length + 4) != crc) return 0;
        if (!have_header) {
            if (!chunk_is(type, "IHDR") || !read_header(body, length, header)) return 0;
            have_header = 1;
        } else if (chunk_is(type, "IDAT")) {
            if (idat_state == 2) return 0;
            idat_state = 1;
            if (!first) first = body;
            total += length;
            count++;
        } else {
            if (idat_state == 1) idat_state = 2;
            if (chunk_is(type, "IEND")) break;
            // Critical chunks besides these three are libpng's, a suggested palette (PLTE) too:
            // libpng refuses one out of place or twice, which this reader would not check.
            int critical = (type[0] & 0x20) == 0;
            if (critical || !chunk_keeps_pixels(type)) return 0;
        }
        at += (size_t)length + 12;
    }
    if (count == 0) return 0;
    if (count == 1) {
        *data = first;
        *data_size = total;
        return 1;
    }
    // Join the IDAT bodies (libpng writes one every compression buffer).
    uint8_t *copy = malloc(total);
    if (!copy) return 0;
    size_t filled = 0;
    for (at = 8; filled < total;) {
        uint32_t length = read_be32(png + at);
        if (chunk_is(png + at + 4, "IDAT")) {
            memcpy(copy + filled, png + at + 8, length);
            filled += length;
        }
        at += (size_t)length + 12;
    }
    *joined = copy;
    *data = copy;
    *data_size = total;
    return 1;
}

#if defined(__x86_64__)
/// Four pixels at a time with SSSE3's byte shuffle: 16 bytes read at pixel `i`'s 3 (its 12 and
/// 4 of pixels already spread), 16 written at its 4. From pixel 12 down to 0 the writes would
/// reach bytes not yet read, so those are left to the scalar loop; returns where it stopped.
__attribute__((target("ssse3")))
static size_t spread_rgb_to_rgba_ssse3(uint8_t *pixels, size_t count) {
    const __m128i order = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    const __m128i alpha = _mm_set1_epi32((int)0xff000000u);
    size_t i = count;
    while (i >= 16) {
        i -= 4;
        __m128i rgb = _mm_loadu_si128((const __m128i *)(pixels + i * 3));
        _mm_storeu_si128((__m128i *)(pixels + i * 4), _mm_or_si128(_mm_shuffle_epi8(rgb, order), alpha));
    }
    return i;
}
#endif

/// RGB rows packed at the front of `pixels` spread into RGBA in the same buffer, from the last
/// pixel back (each pixel's 4 bytes land at or past its 3, on bytes already read).
static void spread_rgb_to_rgba(uint8_t *pixels, size_t count) {
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "spread_rgb_to_rgba reads a pixel as a little-endian 32-bit word"
#endif
#if defined(__x86_64__)
    if (story_png_simd_enabled() && __builtin_cpu_supports("ssse3")) count = spread_rgb_to_rgba_ssse3(pixels, count);
#endif
    for (size_t i = count; i-- > 0;) {
        // Its 3 bytes and the next pixel's first (already spread, so any value), alpha set over it.
        uint32_t word;
        memcpy(&word, pixels + i * 3, 4);
        word |= 0xff000000u;
        memcpy(pixels + i * 4, &word, 4);
    }
}

int story_png_decode_direct(const uint8_t *png, size_t size, uint8_t *rgba, int width, int height) {
    plain_header header;
    const uint8_t *data = NULL;
    size_t data_size = 0;
    uint8_t *joined = NULL;
    if (!find_image_data(png, size, &header, &data, &data_size, &joined)) return 0;
    if (header.width != (uint32_t)width || header.height != (uint32_t)height) {
        free(joined);
        return 0;
    }
    size_t row_bytes = (size_t)header.width * (size_t)header.channels;
    size_t raw_size = (size_t)header.height * (row_bytes + 1);
    // RGB's inflated rows (3 bytes a pixel and a filter byte a row) fit in the picture itself and
    // are undone there; RGBA's are a row's filter bytes larger, so they go through a buffer.
    uint8_t *raw = header.channels == 3 ? rgba : malloc(raw_size);
    struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
    int decoded = raw && inflater &&
                  libdeflate_zlib_decompress(inflater, data, data_size, raw, raw_size, NULL) == LIBDEFLATE_SUCCESS;
    libdeflate_free_decompressor(inflater);
    free(joined);

    // Each row undone against the one above: RGBA's straight into the picture, RGB's packed to
    // the front of the same buffer (a row lands before its own filtered bytes).
    uint8_t *rows = header.channels == 4 ? rgba : raw;
    for (uint32_t y = 0; decoded && y < header.height; y++) {
        const uint8_t *line = raw + (size_t)y * (row_bytes + 1);
        uint8_t *dst = rows + (size_t)y * row_bytes;
        decoded = unfilter_row(line[0], dst, line + 1, y > 0 ? dst - row_bytes : NULL, row_bytes, header.channels);
    }
    if (raw != rgba) free(raw);
    if (decoded && header.channels == 3) spread_rgb_to_rgba(rgba, (size_t)header.width * (size_t)header.height);
    return decoded;
}
