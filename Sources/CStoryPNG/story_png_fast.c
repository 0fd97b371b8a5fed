#include "story_png_fast.h"
#include "story_png_code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Why this exists: at level 1 with the RLE strategy, zlib's deflate was ~90% of a frame's PNG
// time (about 19 of 21 ms at 720x1280), and most of that is per-symbol bookkeeping built for
// LZ77 matching that the RLE and Huffman-only strategies never do. This file filters the rows
// and assembles the file: one RFC 1951 block with a code built from a sample of the frame's
// rows (story_png_code.c), then one pass over the rows: filter, checksum, send
// (story_png_rows.c).

/// Every SAMPLE_EVERY-th row is counted for the frame's code. A video frame's residuals have
/// about the same statistics everywhere, so the sample costs a fraction of a pass and, on the
/// benchmark's frames, well under 1% in size against counting every row.
enum { SAMPLE_EVERY = 32 };

int story_png_fast_supports(int level, story_png_filter filter, story_png_strategy strategy) {
    // zlib picks deflate_rle / deflate_huff for every level above 0, so the level does not
    // change the matching for these strategies here either.
    return level >= 1 && filter != STORY_PNG_FILTER_ADAPTIVE &&
           (strategy == STORY_PNG_STRATEGY_RLE || strategy == STORY_PNG_STRATEGY_HUFFMAN);
}

static void set_error(char *error, size_t size, const char *message) {
    if (error && size > 0) snprintf(error, size, "%s", message);
}

// MARK: - Output buffer

static int reserve(story_png_buffer *buffer, size_t extra) {
    if (buffer->count + extra <= buffer->capacity) return 1;
    size_t capacity = buffer->capacity ? buffer->capacity : 65536;
    while (capacity < buffer->count + extra) capacity *= 2;
    uint8_t *grown = realloc(buffer->bytes, capacity);
    if (!grown) return 0;
    buffer->bytes = grown;
    buffer->capacity = capacity;
    return 1;
}

static void put_u32_be(uint8_t *p, uint32_t value) {
    p[0] = (uint8_t)(value >> 24);
    p[1] = (uint8_t)(value >> 16);
    p[2] = (uint8_t)(value >> 8);
    p[3] = (uint8_t)value;
}

// MARK: - Row filters

static inline int paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

/// One filtered scanline (type byte, then `width * channels` bytes) from RGBA pixels; `above` is
/// the previous row, or zeros for the first.
static inline void filter_row(uint8_t *out, const uint8_t *row, const uint8_t *above, int width,
                              int channels, story_png_filter filter) {
    static const uint8_t type_byte[] = {0, 1, 2, 4};
    *out++ = type_byte[filter];
    switch (filter) {
    case STORY_PNG_FILTER_NONE:
        for (int x = 0; x < width; x++, row += 4, out += channels) {
            for (int c = 0; c < channels; c++) out[c] = row[c];
        }
        break;
    case STORY_PNG_FILTER_SUB:
        for (int c = 0; c < channels; c++) out[c] = row[c];
        for (int x = 1; x < width; x++) {
            out += channels, row += 4;
            for (int c = 0; c < channels; c++) out[c] = (uint8_t)(row[c] - row[c - 4]);
        }
        break;
    case STORY_PNG_FILTER_UP:
        for (int x = 0; x < width; x++, row += 4, above += 4, out += channels) {
            for (int c = 0; c < channels; c++) out[c] = (uint8_t)(row[c] - above[c]);
        }
        break;
    default: // Paeth
        for (int c = 0; c < channels; c++) out[c] = (uint8_t)(row[c] - above[c]);
        for (int x = 1; x < width; x++) {
            out += channels, row += 4, above += 4;
            for (int c = 0; c < channels; c++) {
                out[c] = (uint8_t)(row[c] - paeth(row[c - 4], above[c], above[c - 4]));
            }
        }
        break;
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STORY_HAVE_SSSE3_FILTERS 1

/// `filter_row` for RGB output with the None, Sub or Up filter, four pixels per step: subtract
/// in RGBA, then drop the alpha bytes with one shuffle. The compiler cannot vectorize the
/// scalar loop (4 bytes in, 3 out), and it was a fifth of the coder's time.
__attribute__((target("ssse3")))
static inline void filter_rgb_row_ssse3(uint8_t *out, const uint8_t *row, const uint8_t *above,
                                        int width, story_png_filter filter) {
    static const uint8_t type_byte[] = {0, 1, 2, 4};
    *out++ = type_byte[filter];
    const __m128i drop_alpha = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    int x = 0;
    if (filter == STORY_PNG_FILTER_SUB) { // the first pixel has no left neighbour
        out[0] = row[0], out[1] = row[1], out[2] = row[2];
        x = 1;
    }
    // Each store writes 16 bytes for 12: the 4 extra land on the next pixel and the first byte
    // of the one after, both written later, so the loop stops while two pixels are left for the
    // tail (AddressSanitizer caught a first version that left one).
    for (; x + 6 <= width; x += 4) {
        __m128i pixels = _mm_loadu_si128((const __m128i *)(row + 4 * x));
        __m128i reference = filter == STORY_PNG_FILTER_SUB ? _mm_loadu_si128((const __m128i *)(row + 4 * x - 4))
                          : filter == STORY_PNG_FILTER_UP  ? _mm_loadu_si128((const __m128i *)(above + 4 * x))
                                                           : _mm_setzero_si128();
        _mm_storeu_si128((__m128i *)(out + 3 * x), _mm_shuffle_epi8(_mm_sub_epi8(pixels, reference), drop_alpha));
    }
    for (; x < width; x++) {
        for (int c = 0; c < 3; c++) {
            uint8_t reference = filter == STORY_PNG_FILTER_SUB ? row[4 * x - 4 + c]
                              : filter == STORY_PNG_FILTER_UP  ? above[4 * x + c]
                                                               : 0;
            out[3 * x + c] = (uint8_t)(row[4 * x + c] - reference);
        }
    }
}

/// `filter_rgb_row_ssse3` eight pixels per step: the 32-byte difference is packed to 12 bytes
/// in each half by one shuffle, and the halves are joined by a cross-lane permute. Half as many
/// steps as SSSE3's; the filter was a seventh of the coder's instructions.
__attribute__((target("avx2")))
static inline void filter_rgb_row_avx2(uint8_t *out, const uint8_t *row, const uint8_t *above,
                                       int width, story_png_filter filter) {
    static const uint8_t type_byte[] = {0, 1, 2, 4};
    *out++ = type_byte[filter];
    const __m128i drop_alpha = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    const __m256i drop_alpha2 = _mm256_broadcastsi128_si256(drop_alpha);
    const __m256i join = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    int x = 0;
    if (filter == STORY_PNG_FILTER_SUB) { // the first pixel has no left neighbour
        out[0] = row[0], out[1] = row[1], out[2] = row[2];
        x = 1;
    }
    // A store writes 32 bytes for 24: the 8 extra land on the next three pixels, written
    // later, so the loop stops while three pixels are left (then two, as in the SSSE3 loop).
    for (; x + 11 <= width; x += 8) {
        __m256i pixels = _mm256_loadu_si256((const __m256i *)(row + 4 * x));
        __m256i reference = filter == STORY_PNG_FILTER_SUB ? _mm256_loadu_si256((const __m256i *)(row + 4 * x - 4))
                          : filter == STORY_PNG_FILTER_UP  ? _mm256_loadu_si256((const __m256i *)(above + 4 * x))
                                                           : _mm256_setzero_si256();
        __m256i packed = _mm256_shuffle_epi8(_mm256_sub_epi8(pixels, reference), drop_alpha2);
        _mm256_storeu_si256((__m256i *)(out + 3 * x), _mm256_permutevar8x32_epi32(packed, join));
    }
    for (; x + 6 <= width; x += 4) {
        __m128i pixels = _mm_loadu_si128((const __m128i *)(row + 4 * x));
        __m128i reference = filter == STORY_PNG_FILTER_SUB ? _mm_loadu_si128((const __m128i *)(row + 4 * x - 4))
                          : filter == STORY_PNG_FILTER_UP  ? _mm_loadu_si128((const __m128i *)(above + 4 * x))
                                                           : _mm_setzero_si128();
        _mm_storeu_si128((__m128i *)(out + 3 * x), _mm_shuffle_epi8(_mm_sub_epi8(pixels, reference), drop_alpha));
    }
    for (; x < width; x++) {
        for (int c = 0; c < 3; c++) {
            uint8_t reference = filter == STORY_PNG_FILTER_SUB ? row[4 * x - 4 + c]
                              : filter == STORY_PNG_FILTER_UP  ? above[4 * x + c]
                                                               : 0;
            out[3 * x + c] = (uint8_t)(row[4 * x + c] - reference);
        }
    }
}

__attribute__((target("avx2")))
static void filter_rgb_rows_avx2(uint8_t *out, const uint8_t *rgba, const uint8_t *zeros, size_t stride,
                                 int first, int count, int width, story_png_filter filter) {
    size_t row_bytes = (size_t)width * 3 + 1;
    for (int y = first; y < first + count; y++, out += row_bytes) {
        const uint8_t *row = rgba + (size_t)y * stride;
        const uint8_t *above = y ? row - stride : zeros;
        switch (filter) {
        case STORY_PNG_FILTER_NONE: filter_rgb_row_avx2(out, row, above, width, STORY_PNG_FILTER_NONE); break;
        case STORY_PNG_FILTER_SUB: filter_rgb_row_avx2(out, row, above, width, STORY_PNG_FILTER_SUB); break;
        default: filter_rgb_row_avx2(out, row, above, width, STORY_PNG_FILTER_UP); break;
        }
    }
}

/// `filter_rows` for RGB output with the None, Sub or Up filter. The row function is inlined
/// here (same target) with a constant filter, so no choice is left in the pixel loop.
__attribute__((target("ssse3")))
static void filter_rgb_rows_ssse3(uint8_t *out, const uint8_t *rgba, const uint8_t *zeros, size_t stride,
                                  int first, int count, int width, story_png_filter filter) {
    size_t row_bytes = (size_t)width * 3 + 1;
    for (int y = first; y < first + count; y++, out += row_bytes) {
        const uint8_t *row = rgba + (size_t)y * stride;
        const uint8_t *above = y ? row - stride : zeros;
        switch (filter) {
        case STORY_PNG_FILTER_NONE: filter_rgb_row_ssse3(out, row, above, width, STORY_PNG_FILTER_NONE); break;
        case STORY_PNG_FILTER_SUB: filter_rgb_row_ssse3(out, row, above, width, STORY_PNG_FILTER_SUB); break;
        default: filter_rgb_row_ssse3(out, row, above, width, STORY_PNG_FILTER_UP); break;
        }
    }
}
#endif

static void filter_rows(uint8_t *out, const uint8_t *rgba, const uint8_t *zeros, size_t stride,
                        int first, int count, int width, int keep_alpha, story_png_filter filter) {
#ifdef STORY_HAVE_SSSE3_FILTERS
    // The CPU model is read by a startup constructor, so the test is a load and a bit test.
    if (!keep_alpha && filter != STORY_PNG_FILTER_PAETH && story_png_simd_enabled()) {
        if (__builtin_cpu_supports("avx2")) {
            filter_rgb_rows_avx2(out, rgba, zeros, stride, first, count, width, filter);
            return;
        }
        if (__builtin_cpu_supports("ssse3")) {
            filter_rgb_rows_ssse3(out, rgba, zeros, stride, first, count, width, filter);
            return;
        }
    }
#endif
    size_t row_bytes = (size_t)width * (keep_alpha ? 4 : 3) + 1;
    for (int y = first; y < first + count; y++, out += row_bytes) {
        const uint8_t *row = rgba + (size_t)y * stride;
        const uint8_t *above = y ? row - stride : zeros;
        // Constant channel counts let the compiler unroll the inner loops.
        if (keep_alpha) {
            filter_row(out, row, above, width, 4, filter);
        } else {
            filter_row(out, row, above, width, 3, filter);
        }
    }
}

// MARK: - The file

static void append_chunk_header(story_png_buffer *out, uint32_t length, const char *type) {
    put_u32_be(out->bytes + out->count, length);
    memcpy(out->bytes + out->count + 4, type, 4);
    out->count += 8;
}

/// Appends the CRC of the chunk that starts at `start` (its length field).
static void append_chunk_crc(story_png_buffer *out, size_t start) {
    const uint8_t *typed = out->bytes + start + 4;
    put_u32_be(out->bytes + out->count, story_png_crc32(0, typed, out->count - start - 4));
    out->count += 4;
}

/// Asks for the next row's pixels while this one is sent. The canvas is several megabytes, read
/// once: without this the filter waited on memory for each row in turn, and was a sixth of the
/// coder's time.
static inline void prefetch_row(const uint8_t *row, size_t bytes) {
    for (size_t offset = 0; offset < bytes; offset += 64) __builtin_prefetch(row + offset);
}

/// Room the row scanners read around a row: one byte before it, 32 after.
enum { ROW_BEFORE = 32, ROW_AFTER = 96 };

/// The working memory of one encode: the filtered row (with room around it for the row
/// scanners), a row of zeros (the row above the first), the sample's counts and the code.
typedef struct {
    uint8_t *row_buffer, *row, *zeros;
    story_symbol_counts *counts;
    story_frame_code *code;
} fast_work;

static void fast_work_free(fast_work *work) {
    free(work->row_buffer), free(work->zeros), free(work->counts), free(work->code);
}

/// Allocates the working memory and room in `out` for the whole file; 0 when out of memory.
static int fast_work_make(fast_work *work, int width, int height, size_t row_bytes, story_png_buffer *out) {
    work->row_buffer = calloc(ROW_BEFORE + row_bytes + ROW_AFTER, 1);
    work->row = work->row_buffer + ROW_BEFORE;
    work->zeros = calloc((size_t)width, 4);
    work->counts = calloc(1, sizeof(story_symbol_counts));
    work->code = malloc(sizeof(story_frame_code));
    // The stream's worst case: 12 bits per byte, plus headers and the 8-byte stores' overrun.
    size_t total = row_bytes * (size_t)height, worst = total + total / 2 + 1024;
    return work->row_buffer && work->zeros && work->counts && work->code && reserve(out, 8 + 25 + 8 + 2 + worst + 64);
}

/// The signature and the IHDR chunk.
static void append_signature_and_header(story_png_buffer *out, int width, int height, int keep_alpha) {
    static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    memcpy(out->bytes + out->count, signature, 8);
    out->count += 8;
    size_t start = out->count;
    append_chunk_header(out, 13, "IHDR");
    uint8_t *ihdr = out->bytes + out->count;
    put_u32_be(ihdr, (uint32_t)width);
    put_u32_be(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8;                   // bits per channel
    ihdr[9] = keep_alpha ? 6 : 2;  // RGBA or RGB
    ihdr[10] = ihdr[11] = ihdr[12] = 0; // deflate, adaptive-filter method 0, no interlace
    out->count += 13;
    append_chunk_crc(out, start);
}

/// One IDAT holding one dynamic block, coded with the code the sample's counts shape: its
/// length is patched in once the stream is written.
static void append_image_data(story_png_buffer *out, const fast_work *work, const uint8_t *rgba, int width,
                              int height, size_t stride, int keep_alpha, story_png_filter filter, int find_runs,
                              size_t row_bytes) {
    size_t idat = out->count;
    append_chunk_header(out, 0, "IDAT");
    out->bytes[out->count++] = 0x78; // deflate, 32 KiB window
    out->bytes[out->count++] = 0x01; // fastest; (0x78 << 8 | 0x01) % 31 == 0
    story_bit_sender s = {0, 0, out->bytes + out->count};
    story_frame_code_build(work->counts, 1, &s, work->code);
    uint32_t adler = 1;
    for (int y = 0; y < height; y++) {
        filter_rows(work->row, rgba, work->zeros, stride, y, 1, width, keep_alpha, filter);
        if (y + 1 < height) prefetch_row(rgba + (size_t)(y + 1) * stride, (size_t)width * 4);
        adler = story_png_adler32(adler, work->row, row_bytes);
        story_rows_send(work->row, row_bytes, find_runs, work->code, &s);
    }
    story_send_entry(&s, work->code->end_of_block);
    if (s.count) story_send(&s, 0, 8 - s.count); // to a whole byte
    out->count = (size_t)(s.out - out->bytes);
    put_u32_be(out->bytes + out->count, adler);
    out->count += 4;
    put_u32_be(out->bytes + idat, (uint32_t)(out->count - idat - 8));
    append_chunk_crc(out, idat);
}

int story_png_encode_fast(const uint8_t *rgba, int width, int height, size_t stride,
                          int keep_alpha, story_png_filter filter, story_png_strategy strategy,
                          story_png_buffer *out, char *error, size_t error_size) {
    if (!rgba || width <= 0 || height <= 0 || !out || stride < (size_t)width * 4 ||
        filter == STORY_PNG_FILTER_ADAPTIVE) {
        set_error(error, error_size, "invalid image for PNG encoding");
        return 1;
    }
    size_t row_bytes = (size_t)width * (keep_alpha ? 4 : 3) + 1;
    int find_runs = strategy == STORY_PNG_STRATEGY_RLE;
    fast_work work;
    if (!fast_work_make(&work, width, height, row_bytes, out)) {
        fast_work_free(&work);
        story_png_buffer_free(out);
        set_error(error, error_size, "out of memory while encoding PNG");
        return 1;
    }
    // The sample: every SAMPLE_EVERY-th row, from the middle of the first stretch, so a picture
    // of a few rows is still sampled.
    for (int y = (height < SAMPLE_EVERY ? height : SAMPLE_EVERY) / 2; y < height; y += SAMPLE_EVERY) {
        filter_rows(work.row, rgba, work.zeros, stride, y, 1, width, keep_alpha, filter);
        story_rows_count(work.row, row_bytes, find_runs, work.counts);
    }
    append_signature_and_header(out, width, height, keep_alpha);
    append_image_data(out, &work, rgba, width, height, stride, keep_alpha, filter, find_runs, row_bytes);
    size_t end = out->count;
    append_chunk_header(out, 0, "IEND");
    append_chunk_crc(out, end);
    fast_work_free(&work);
    return 0;
}
