// libFuzzer target: the deflate coder's parts that no PNG decoder looks at one by one, each
// checked by reading it back.
//   - the bit sender (story_send): any sequence of sends reads back LSB first;
//   - the frame code (story_frame_code_build) for any symbol counts, and a row sent with it
//     (story_rows_send, with and without runs, on the SIMD and scalar paths): zlib's raw inflate
//     reads the block back to exactly the row. The counts need not come from the row, as in
//     the encoder, whose sample is every 32nd row: every literal and run has a code;
//   - the whole stream (story_png_encode_fast): zlib inflates the IDAT to the filtered rows'
//     length, with a matching Adler-32.
#include "story_png.h"
#include "story_png_code.h"
#include "story_png_fast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "deflate fuzz: %s\n", what);
        abort();
    }
}

// MARK: - The bit sender

/// Eight input bytes a send: its width (1-56 bits), then its value.
static void fuzz_bit_sender(const uint8_t *data, size_t size) {
    size_t sends = size / 8;
    uint8_t *bytes = calloc(sends * 7 + 16, 1);
    check(bytes != NULL, "out of memory");
    story_bit_sender s = {0, 0, bytes};
    for (size_t i = 0; i < sends; i++) {
        unsigned n = 1 + data[8 * i] % 56;
        uint64_t value = 0;
        memcpy(&value, data + 8 * i + 1, 7);
        story_send(&s, value & ((1ull << n) - 1), n);
    }
    if (s.count) story_send(&s, 0, 8 - s.count);
    uint64_t at = 0, total = 0;
    for (size_t i = 0; i < sends; i++) {
        unsigned n = 1 + data[8 * i] % 56;
        uint64_t value = 0, read = 0;
        memcpy(&value, data + 8 * i + 1, 7);
        for (unsigned b = 0; b < n; b++, at++) read |= (uint64_t)((bytes[at >> 3] >> (at & 7)) & 1) << b;
        check(read == (value & ((1ull << n) - 1)), "bits read back differ");
        total += n;
    }
    check((size_t)(s.out - bytes) == (total + 7) / 8, "byte count after the last send");
    free(bytes);
}

// MARK: - The frame code and a row sent with it

/// Input: a flags byte (runs, SIMD), 64 bytes that shape the counts, then the row.
static void fuzz_code_and_row(const uint8_t *data, size_t size) {
    if (size < 65) return;
    int find_runs = data[0] & 1, simd = (data[0] >> 1) & 1;
    const uint8_t *shape = data + 1, *input = data + 65;
    size_t n = size - 65;
    if (n == 0) return;

    // Counts from 0 to 2^24 (a frame's worth), skewed so that deep and lopsided codes are common.
    story_symbol_counts *counts = calloc(1, sizeof *counts);
    story_frame_code *code = malloc(sizeof *code);
    check(counts && code, "out of memory");
    for (int v = 0; v < 256; v++) {
        uint8_t s = shape[v % 64] ^ (uint8_t)(v * 37);
        counts->literals[v & 3][v] = s & 0x80 ? 0 : (uint32_t)shape[(v + 1) % 64] << (s % 17);
    }
    for (int l = 0; l < STORY_LENGTH_SYMBOLS; l++) {
        uint8_t s = shape[(l * 7) % 64];
        counts->lengths[l] = s & 0x40 ? 0 : (uint32_t)s << (l % 13);
    }

    // The row with room before and after: the senders read row[-1] to row[n + 31].
    enum { BEFORE = 32, AFTER = 96 };
    uint8_t *buffer = calloc(BEFORE + n + AFTER, 1), *row = buffer + BEFORE;
    size_t room = 2048 + n * 2; // the block header, 12 bits a byte at most, the 8-byte stores
    uint8_t *stream = calloc(room, 1), *inflated = malloc(n + 1);
    check(buffer && stream && inflated, "out of memory");
    memcpy(row, input, n);

    story_png_set_simd_enabled(simd);
    story_bit_sender s = {0, 0, stream};
    story_frame_code_build(counts, 1, &s, code);
    story_rows_send(row, n, find_runs, code, &s);
    story_send_entry(&s, code->end_of_block);
    if (s.count) story_send(&s, 0, 8 - s.count);
    size_t written = (size_t)(s.out - stream);
    check(written + 8 <= room, "the stream outgrew its room");

    z_stream z = {0};
    check(inflateInit2(&z, -15) == Z_OK, "inflateInit2");
    z.next_in = stream;
    z.avail_in = (uInt)written;
    z.next_out = inflated;
    z.avail_out = (uInt)(n + 1);
    int status = inflate(&z, Z_FINISH);
    if (status != Z_STREAM_END) fprintf(stderr, "inflate: %d %s\n", status, z.msg ? z.msg : "");
    check(status == Z_STREAM_END, "zlib cannot inflate the block");
    check(z.total_out == n && memcmp(inflated, row, n) == 0, "the block inflates to other bytes than the row");
    inflateEnd(&z);
    story_png_set_simd_enabled(1);
    free(counts), free(code), free(buffer), free(stream), free(inflated);
}

// MARK: - A whole stream

static void fuzz_stream(const uint8_t *data, size_t size) {
    if (size < 3) return;
    int width = 1 + data[0] % 64, height = 1 + data[1] % 64, keep_alpha = data[2] & 1;
    story_png_filter filter = (story_png_filter)((data[2] >> 1) % 4);
    story_png_strategy strategy = data[2] & 0x10 ? STORY_PNG_STRATEGY_RLE : STORY_PNG_STRATEGY_HUFFMAN;
    size_t stride = (size_t)width * 4, count = size - 3;
    uint8_t *rgba = malloc(stride * (size_t)height);
    check(rgba != NULL, "out of memory");
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
    check(rows != NULL, "out of memory");
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
    case 0: fuzz_bit_sender(data + 1, size - 1); break;
    case 1: fuzz_code_and_row(data + 1, size - 1); break;
    case 2: fuzz_stream(data + 1, size - 1); break;
    }
    return 0;
}
