#ifndef LIVE_STORIES_STORY_PNG_CODE_H
#define LIVE_STORIES_STORY_PNG_CODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the bit sender stores its 64-bit buffer as little-endian bytes"
#endif

// The frame's deflate code, shaped so that a vector unit can look literals up 32 at a time.
//
// A filtered video frame is mostly small residuals: bytes 0-15 and 240-255 (-16..15). Those 32
// "near" literals get codes of their own, at most `far_depth` (6-8) bits, so two 16-entry
// tables indexed by a byte's low nibble give any near literal's code and length. The 224 "far"
// literals 16-239 all get `far_depth + 4` bits, laid out so that a far literal's code is a
// prefix chosen by its high nibble followed by its low nibble: a third 16-entry table (by high
// nibble) and the nibble itself give it. The run-length symbols and end-of-block share one
// more prefix of `far_depth` bits and sit below it in a code of 4-7 bits. Why this layout stays
// a canonical deflate code is in story_png_code.c.

enum {
    STORY_LITLEN_SYMBOLS = 286,
    STORY_END_OF_BLOCK = 256,
    STORY_LENGTH_SYMBOLS = 29,
    STORY_MAX_RUN = 258,
    /// The shortest run sent as a copy: a run symbol costs its far-depth prefix and 4-7 bits
    /// more, so shorter runs of small residuals are cheaper as literals.
    STORY_MIN_RUN = 8,
};

/// What a frame's sample rows held, by symbol.
typedef struct {
    uint32_t literals[4][256]; // four tables break the store-to-load chain on equal bytes
    uint32_t lengths[STORY_LENGTH_SYMBOLS];
} story_symbol_counts;

typedef struct {
    /// Near literals 0-15 and 240-255 by low nibble: code (bit-reversed, at most 8 bits) and length.
    uint8_t near_low_bits[16], near_low_lengths[16];
    uint8_t near_high_bits[16], near_high_lengths[16];
    /// The prefix of far literals by high nibble (entries 1-14 used), `far_depth` bits.
    uint8_t far_prefix_bits[16];
    unsigned far_depth;
    /// Every literal: code, length in the top byte (the scalar path, and the check).
    uint32_t literal[256];
    /// A run of each length 3-258 at distance 1: length code, its extra bits, distance code;
    /// total length in the top byte.
    uint32_t run[STORY_MAX_RUN + 1];
    uint32_t end_of_block;
} story_frame_code;

/// Deflate's LSB-first bit stream, stored 8 bytes at a time. The caller has reserved room for
/// the whole stream plus 8 bytes, so sending checks nothing.
typedef struct {
    uint64_t bits;
    unsigned count; // bits waiting in `bits`, always below 8 between sends
    uint8_t *out;
} story_bit_sender;

/// Appends the `n` low bits of `value`; n ≤ 56, and `value` has no bits above them.
static inline void story_send(story_bit_sender *s, uint64_t value, unsigned n) {
    s->bits |= value << s->count;
    memcpy(s->out, &s->bits, 8);
    s->count += n;
    s->out += s->count >> 3;
    s->bits >>= s->count & ~7u;
    s->count &= 7u;
}

/// Sends a table entry: code in the low 24 bits, length in the top byte.
static inline void story_send_entry(story_bit_sender *s, uint32_t entry) {
    story_send(s, entry & 0xffffff, entry >> 24);
}

/// Builds the frame's code from the sample's counts and sends the header of its one dynamic
/// block (RFC 1951 3.2.7), final when `final` is set.
void story_frame_code_build(const story_symbol_counts *counts, int final, story_bit_sender *s,
                            story_frame_code *code);

/// The length symbol (0-28, offset from 257) of a run of 3-258 bytes.
int story_length_symbol(int length);

/// Adds a filtered row's symbols (`n` bytes: filter type, then pixels) to the sample's counts,
/// finding runs when `find_runs` is set (the run-length strategy).
void story_rows_count(const uint8_t *row, size_t n, int find_runs, story_symbol_counts *counts);

/// Sends a filtered row with the frame's code: the same runs and literals `story_rows_count`
/// counts. Both read from `row[-1]` to `row[n + 31]`, so the row buffer needs that room.
void story_rows_send(const uint8_t *row, size_t n, int find_runs, const story_frame_code *code,
                     story_bit_sender *s);

#endif
