// libFuzzer target: the deflate coder's parts that no PNG decoder looks at one by one. The file
// includes story_png_fast.c to reach its static functions:
//   - the bit writer (put_bits, align_to_byte): any sequence of writes reads back LSB first;
//   - the Huffman code builder (code_lengths, canonical_codes): any counts give lengths within
//     the limit for every used symbol, a complete prefix code (Kraft sum exactly 1), and
//     distinct codes;
//   - the whole stream (story_png_encode_fast): zlib's inflate reads it back to the filtered
//     rows' length, with a matching Adler-32.
#include "../../../Sources/CStoryPNG/story_png_fast.c"

#include <zlib.h>

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "deflate fuzz: %s\n", what);
        abort();
    }
}

static void fuzz_bit_writer(const uint8_t *data, size_t size) {
    size_t writes = size / 4;
    story_png_buffer buffer = {0};
    check(reserve(&buffer, writes * 4 + 16), "reserve"); // 1 on success
    bit_writer w = {&buffer, 0, 0};
    uint64_t total = 0;
    for (size_t i = 0; i < writes; i++) {
        int n = 1 + data[4 * i] % 24; // codes and extra bits are at most 24 bits at once
        uint32_t value = (data[4 * i + 1] | (uint32_t)data[4 * i + 2] << 8 | (uint32_t)data[4 * i + 3] << 16) &
                         ((1u << n) - 1);
        put_bits(&w, value, n);
        total += (uint64_t)n;
    }
    align_to_byte(&w);
    check(buffer.count == (total + 7) / 8, "byte count after align");
    uint64_t at = 0;
    for (size_t i = 0; i < writes; i++) {
        int n = 1 + data[4 * i] % 24;
        uint32_t value = (data[4 * i + 1] | (uint32_t)data[4 * i + 2] << 8 | (uint32_t)data[4 * i + 3] << 16) &
                         ((1u << n) - 1);
        uint32_t read = 0;
        for (int b = 0; b < n; b++, at++) read |= (uint32_t)((buffer.bytes[at >> 3] >> (at & 7)) & 1) << b;
        check(read == value, "bits read back differ");
    }
    story_png_buffer_free(&buffer);
}

static void fuzz_code(const uint8_t *data, size_t size) {
    if (size < 2) return;
    static const int limits[] = {MAX_CODELEN_BITS, FRAME_MAX_BITS, MAX_BITS};
    int limit = limits[data[0] % 3];
    int n = 2 + data[1] % (LITLEN_SYMBOLS - 1);
    if (limit == MAX_CODELEN_BITS && n > CODELEN_SYMBOLS) n = CODELEN_SYMBOLS;
    uint32_t counts[LITLEN_SYMBOLS] = {0};
    // Counts from 0 to 2^24 (a frame's worth), skewed so deep trees are common.
    for (int s = 0; s < n && 2 + (size_t)s * 2 + 1 < size; s++) {
        uint8_t shape = data[2 + s * 2], value = data[3 + s * 2];
        counts[s] = shape & 0x80 ? 0 : (uint32_t)value << (shape % 17);
    }
    ensure_two_symbols(counts, n);
    uint8_t lengths[LITLEN_SYMBOLS] = {0};
    code_lengths(counts, n, limit, lengths);
    uint64_t kraft = 0; // in units of 2^-MAX_BITS
    for (int s = 0; s < n; s++) {
        check((counts[s] != 0) == (lengths[s] != 0), "a used symbol without a code, or a code for an unused one");
        check(lengths[s] <= limit, "a code longer than its limit");
        if (lengths[s]) kraft += 1ull << (MAX_BITS - lengths[s]);
    }
    check(kraft == 1ull << MAX_BITS, "the code is not complete (Kraft sum not 1)");
    uint16_t codes[LITLEN_SYMBOLS] = {0};
    canonical_codes(lengths, n, codes);
    for (int a = 0; a < n; a++) {
        for (int b = a + 1; b < n; b++) {
            if (!lengths[a] || !lengths[b]) continue;
            int shorter = lengths[a] < lengths[b] ? lengths[a] : lengths[b];
            unsigned mask = (1u << shorter) - 1; // codes are bit-reversed: a prefix is the low bits
            check((codes[a] & mask) != (codes[b] & mask), "one code is a prefix of another");
        }
    }
}

static void fuzz_stream(const uint8_t *data, size_t size) {
    if (size < 3) return;
    int width = 1 + data[0] % 64, height = 1 + data[1] % 64, keep_alpha = data[2] & 1;
    story_png_filter filter = (story_png_filter)((data[2] >> 1) % 4);
    story_png_strategy strategy = data[2] & 0x10 ? STORY_PNG_STRATEGY_RLE : STORY_PNG_STRATEGY_HUFFMAN;
    size_t stride = (size_t)width * 4, count = size - 3;
    uint8_t *rgba = malloc(stride * (size_t)height);
    for (size_t i = 0; i < stride * (size_t)height; i++) rgba[i] = count ? data[3 + i % count] : 0;
    story_png_buffer png = {0};
    char error[128];
    check(story_png_encode_fast(rgba, width, height, stride, keep_alpha, filter, strategy, &png, error,
                                sizeof error) == 0, "encode");
    // Signature (8) and IHDR (25), then IDAT: length, type, the zlib stream, CRC.
    uint32_t length = (uint32_t)png.bytes[33] << 24 | (uint32_t)png.bytes[34] << 16 | (uint32_t)png.bytes[35] << 8 |
                      png.bytes[36];
    check(memcmp(png.bytes + 37, "IDAT", 4) == 0, "IDAT after IHDR");
    size_t row_bytes = (size_t)width * (keep_alpha ? 4 : 3) + 1, expected = row_bytes * (size_t)height;
    uint8_t *rows = malloc(expected + 1);
    uLongf got = expected + 1;
    check(uncompress(rows, &got, png.bytes + 41, length) == Z_OK, "zlib cannot inflate the stream");
    check(got == expected, "inflated length differs from the filtered rows");
    free(rows);
    story_png_buffer_free(&png);
    free(rgba);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    switch (data[0] % 3) {
    case 0: fuzz_bit_writer(data + 1, size - 1); break;
    case 1: fuzz_code(data + 1, size - 1); break;
    case 2: fuzz_stream(data + 1, size - 1); break;
    }
    return 0;
}
