#include "story_png_code.h"
#include "story_png.h"

// One pass over a filtered row: find the runs (a byte repeated at least STORY_MIN_RUN times
// after itself, sent as a copy at distance 1), and count or send the literals between them.
// `scan_row` is the only loop that does this; it is inlined four times, counting or sending,
// with the scalar or the AVX2 primitives, so the sample counts exactly what is later sent and
// the scalar fallback writes exactly the vector path's bits.
//
// Rows are read from 1 byte before their start to 32 bytes past their end (the vector loads):
// the caller's row buffer has that room.

typedef enum { COUNT_SCALAR, SEND_SCALAR, COUNT_AVX2, SEND_AVX2 } scan_mode;

_Static_assert(STORY_MIN_RUN == 8, "the run finders test runs of eight bytes");

/// The last offset in a 32-byte window where a run may start: its eight bytes end the window.
enum { RUN_STARTS_LAST = 32 - STORY_MIN_RUN };

static inline uint64_t load_u64(const uint8_t *p) {
    uint64_t value;
    memcpy(&value, p, 8);
    return value;
}

// MARK: - Runs

/// The offset of the first run start in the window at `i`, or `window` if none: a start `at`
/// (at least 1, with 8 bytes left in the row) where data[at .. at+7] all equal data[at - 1].
/// Starts are looked for only at offsets 0-24 of a window, the ones whose eight bytes lie in
/// it, so the vector finder needs one compare; a run that begins later is found at the next
/// window's start, less at most seven bytes sent as literals.
static inline size_t next_run_scalar(const uint8_t *data, size_t i, size_t n, size_t window) {
    for (size_t k = 0; k <= RUN_STARTS_LAST && k < window; k++) {
        size_t at = i + k;
        if (at + STORY_MIN_RUN > n) break;
        if (at >= 1 && load_u64(data + at) == 0x0101010101010101ull * data[at - 1]) return k;
    }
    return window;
}

/// The length of the run of `data[-1]` at `data`, known to be at least STORY_MIN_RUN, at most
/// `limit`: eight bytes per compare while they fit.
static inline size_t run_length(const uint8_t *data, size_t limit) {
    const uint8_t byte = data[-1];
    const uint64_t pattern = 0x0101010101010101ull * byte;
    size_t length = STORY_MIN_RUN;
    while (length + 8 <= limit) {
        uint64_t differs = load_u64(data + length) ^ pattern;
        if (differs) return length + ((size_t)__builtin_ctzll(differs) >> 3);
        length += 8;
    }
    while (length < limit && data[length] == byte) length++;
    return length;
}

// MARK: - Literals

static inline void count_literals(const uint8_t *data, size_t count, story_symbol_counts *counts) {
    for (size_t k = 0; k < count; k++) counts->literals[k & 3][data[k]]++;
}

/// Four literals per send (at most 4 × 12 bits).
static inline void send_literals_scalar(const uint8_t *data, size_t count, const story_frame_code *code,
                                        story_bit_sender *s) {
    size_t k = 0;
    for (; k + 4 <= count; k += 4) {
        uint64_t value = 0;
        unsigned length = 0;
        for (int j = 0; j < 4; j++) {
            uint32_t entry = code->literal[data[k + j]];
            value |= (uint64_t)(entry & 0xffffff) << length;
            length += entry >> 24;
        }
        story_send(s, value, length);
    }
    for (; k < count; k++) story_send_entry(s, code->literal[data[k]]);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STORY_HAVE_AVX2_ROWS 1

/// `next_run_scalar` 25 starts at once: bit k of `equal` says data[i+k] == data[i+k-1], and a
/// start needs bits k..k+7 set, which three shift-ANDs find. (Looking at every start of the
/// window took a second compare, and a branch on it cost more in mispredictions.)
__attribute__((target("avx2,bmi,bmi2")))
static inline size_t next_run_avx2(const uint8_t *data, size_t i, size_t n, size_t window) {
    const uint8_t *p = data + i;
    uint32_t starts = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
        _mm256_loadu_si256((const __m256i *)(p - 1)), _mm256_loadu_si256((const __m256i *)p)));
    starts &= starts >> 1;
    starts &= starts >> 2;
    starts &= starts >> 4;
    starts &= (1u << (RUN_STARTS_LAST + 1)) - 1;
    if (__builtin_expect(n - i < 32, 0)) { // the row's last window: starts with 8 bytes left
        size_t room = n - i >= STORY_MIN_RUN ? n - i - STORY_MIN_RUN + 1 : 0;
        starts &= (uint32_t)((1ull << room) - 1);
    }
    if (__builtin_expect(i == 0, 0)) starts &= ~1u; // the row's first byte has nothing before it
    return starts ? (size_t)__builtin_ctz(starts) : window;
}

/// The first `count` (1-32) literals' codes as bytes, one lane each (the rest zero): `first`,
/// a near literal's whole code or a far one's prefix by its high nibble; `second`, a far
/// literal's low nibble reversed; `lengths`, each code's length in bits. Looked up 32 at a time
/// from the shaped code's nibble tables.
typedef struct {
    __m256i first, second, lengths;
} literal_codes;

__attribute__((target("avx2,bmi2"), always_inline))
static inline literal_codes look_up_literals_avx2(const uint8_t *data, size_t count, const story_frame_code *code) {
#define TABLE(name) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)code->name))
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    const __m256i reversed_nibble = _mm256_setr_epi8(0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15,
                                                     0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15);
    const __m256i index = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
                                           19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    __m256i bytes = _mm256_loadu_si256((const __m256i *)data);
    __m256i low = _mm256_and_si256(bytes, nibble);
    __m256i high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), nibble);
    // Near literals: the top bit picks 240-255's table over 0-15's.
    __m256i near_bits = _mm256_blendv_epi8(_mm256_shuffle_epi8(TABLE(near_low_bits), low),
                                           _mm256_shuffle_epi8(TABLE(near_high_bits), low), bytes);
    __m256i near_lengths = _mm256_blendv_epi8(_mm256_shuffle_epi8(TABLE(near_low_lengths), low),
                                              _mm256_shuffle_epi8(TABLE(near_high_lengths), low), bytes);
    __m256i shifted = _mm256_add_epi8(bytes, _mm256_set1_epi8(16)); // near ⇔ below 32
    __m256i is_near = _mm256_cmpeq_epi8(_mm256_min_epu8(shifted, _mm256_set1_epi8(31)), shifted);
    __m256i keep = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)count), index);
    literal_codes codes;
    // A far literal's code: the prefix by its high nibble, then its low nibble reversed.
    codes.first = _mm256_and_si256(
        _mm256_blendv_epi8(_mm256_shuffle_epi8(TABLE(far_prefix_bits), high), near_bits, is_near), keep);
    codes.second = _mm256_and_si256(_mm256_andnot_si256(is_near, _mm256_shuffle_epi8(reversed_nibble, low)), keep);
    codes.lengths = _mm256_and_si256(
        _mm256_blendv_epi8(_mm256_set1_epi8((char)(code->far_depth + 4)), near_lengths, is_near), keep);
#undef TABLE
    return codes;
}

/// Sends the looked-up codes: merged in vector lanes, pairs into 32 bits, fours and then eights
/// into 64, so that four sends carry them.
__attribute__((target("avx2,bmi2"), always_inline))
static inline void send_literal_codes_avx2(literal_codes codes, unsigned far_depth, story_bit_sender *s) {
    const __m256i zero = _mm256_setzero_si256();
    // 16-bit codes: unpacking interleaves within each 128-bit lane, so `a` holds literals 0-7
    // and 16-23, `b` 8-15 and 24-31.
    const __m128i depth = _mm_cvtsi32_si128((int)far_depth);
    __m256i code_a = _mm256_or_si256(_mm256_unpacklo_epi8(codes.first, zero),
                                     _mm256_sll_epi16(_mm256_unpacklo_epi8(codes.second, zero), depth));
    __m256i code_b = _mm256_or_si256(_mm256_unpackhi_epi8(codes.first, zero),
                                     _mm256_sll_epi16(_mm256_unpackhi_epi8(codes.second, zero), depth));
    __m256i length_a = _mm256_unpacklo_epi8(codes.lengths, zero), length_b = _mm256_unpackhi_epi8(codes.lengths, zero);
    // Pairs into 32 bits: the second code shifted past the first.
    const __m256i low16 = _mm256_set1_epi32(0xffff), ones16 = _mm256_set1_epi16(1);
    code_a = _mm256_or_si256(_mm256_and_si256(code_a, low16),
                             _mm256_sllv_epi32(_mm256_srli_epi32(code_a, 16), _mm256_and_si256(length_a, low16)));
    code_b = _mm256_or_si256(_mm256_and_si256(code_b, low16),
                             _mm256_sllv_epi32(_mm256_srli_epi32(code_b, 16), _mm256_and_si256(length_b, low16)));
    length_a = _mm256_madd_epi16(length_a, ones16);
    length_b = _mm256_madd_epi16(length_b, ones16);
    // Fours into 64 bits (at most 48).
    const __m256i low32 = _mm256_set1_epi64x(0xffffffff);
    __m256i first_a = _mm256_and_si256(length_a, low32), first_b = _mm256_and_si256(length_b, low32);
    code_a = _mm256_or_si256(_mm256_and_si256(code_a, low32), _mm256_sllv_epi64(_mm256_srli_epi64(code_a, 32), first_a));
    code_b = _mm256_or_si256(_mm256_and_si256(code_b, low32), _mm256_sllv_epi64(_mm256_srli_epi64(code_b, 32), first_b));
    length_a = _mm256_add_epi64(first_a, _mm256_srli_epi64(length_a, 32));
    length_b = _mm256_add_epi64(first_b, _mm256_srli_epi64(length_b, 32));
    // Eights into 64 bits: each 128-bit lane's second word shifted past its first. The words
    // end up in the order literals 0-7, 8-15, 16-23, 24-31.
    __m256i eight_a = _mm256_or_si256(code_a, _mm256_sllv_epi64(_mm256_srli_si256(code_a, 8), length_a));
    __m256i eight_b = _mm256_or_si256(code_b, _mm256_sllv_epi64(_mm256_srli_si256(code_b, 8), length_b));
    __m256i eight_length = _mm256_unpacklo_epi64(_mm256_add_epi64(length_a, _mm256_srli_si256(length_a, 8)),
                                                 _mm256_add_epi64(length_b, _mm256_srli_si256(length_b, 8)));
    // Eight small residuals take 40-50 bits; only where several far literals meet (an edge in
    // the picture) do eight codes pass what one send takes, and the fours are sent instead.
    if (__builtin_expect(!_mm256_movemask_epi8(_mm256_cmpgt_epi64(eight_length, _mm256_set1_epi64x(56))), 1)) {
        uint64_t words[4], counts[4];
        _mm256_storeu_si256((__m256i *)words, _mm256_unpacklo_epi64(eight_a, eight_b));
        _mm256_storeu_si256((__m256i *)counts, eight_length);
        for (int w = 0; w < 4; w++) story_send(s, words[w], (unsigned)counts[w]);
        return;
    }
    uint64_t words[8], counts[8];
    _mm256_storeu_si256((__m256i *)words, _mm256_permute2x128_si256(code_a, code_b, 0x20));
    _mm256_storeu_si256((__m256i *)(words + 4), _mm256_permute2x128_si256(code_a, code_b, 0x31));
    _mm256_storeu_si256((__m256i *)counts, _mm256_permute2x128_si256(length_a, length_b, 0x20));
    _mm256_storeu_si256((__m256i *)(counts + 4), _mm256_permute2x128_si256(length_a, length_b, 0x31));
    for (int w = 0; w < 8; w++) story_send(s, words[w], (unsigned)counts[w]); // empty words send nothing
}

/// Sends `count` (1-32) literals: their codes looked up, then merged and sent. There is one
/// path for near and far literals alike: a branch between a near-only path and this one was
/// mispredicted in a third of the windows, and cost more than the far path's extra work (the
/// coder went 1.2× faster without it).
__attribute__((target("avx2,bmi2")))
static inline void send_literals_avx2(const uint8_t *data, size_t count, const story_frame_code *code,
                                      story_bit_sender *s) {
    send_literal_codes_avx2(look_up_literals_avx2(data, count, code), (unsigned)code->far_depth, s);
}
#endif

// MARK: - The one scan

static inline __attribute__((always_inline)) void
scan_row(const uint8_t *data, size_t n, int find_runs, scan_mode mode, const story_frame_code *code,
         story_bit_sender *s, story_symbol_counts *counts) {
    size_t i = 0;
    while (i < n) {
        size_t window = n - i < 32 ? n - i : 32, start = window;
        if (find_runs) {
#ifdef STORY_HAVE_AVX2_ROWS
            if (mode == COUNT_AVX2 || mode == SEND_AVX2) start = next_run_avx2(data, i, n, window);
            else
#endif
                start = next_run_scalar(data, i, n, window);
        }
        if (start > 0) {
            switch (mode) {
            case COUNT_SCALAR: case COUNT_AVX2: count_literals(data + i, start, counts); break;
            case SEND_SCALAR: send_literals_scalar(data + i, start, code, s); break;
            case SEND_AVX2:
#ifdef STORY_HAVE_AVX2_ROWS
                send_literals_avx2(data + i, start, code, s);
#endif
                break;
            }
            i += start;
        }
        if (start < window) {
            size_t limit = n - i < STORY_MAX_RUN ? n - i : STORY_MAX_RUN;
            size_t length = run_length(data + i, limit);
            if (mode == COUNT_SCALAR || mode == COUNT_AVX2) counts->lengths[story_length_symbol((int)length)]++;
            else story_send_entry(s, code->run[length]);
            i += length;
        }
    }
}

// MARK: - Entry points

static void count_row_scalar(const uint8_t *row, size_t n, int find_runs, story_symbol_counts *counts) {
    scan_row(row, n, find_runs, COUNT_SCALAR, NULL, NULL, counts);
}

// The senders work on a local copy of the bit sender, which the compiler keeps in registers;
// through the caller's pointer every send was a store and a reload.
static void send_row_scalar(const uint8_t *row, size_t n, int find_runs, const story_frame_code *code,
                            story_bit_sender *s) {
    story_bit_sender local = *s;
    scan_row(row, n, find_runs, SEND_SCALAR, code, &local, NULL);
    *s = local;
}

#ifdef STORY_HAVE_AVX2_ROWS
__attribute__((target("avx2,bmi,bmi2"), flatten))
static void count_row_avx2(const uint8_t *row, size_t n, int find_runs, story_symbol_counts *counts) {
    scan_row(row, n, find_runs, COUNT_AVX2, NULL, NULL, counts);
}

__attribute__((target("avx2,bmi,bmi2"), flatten))
static void send_row_avx2(const uint8_t *row, size_t n, int find_runs, const story_frame_code *code,
                          story_bit_sender *s) {
    story_bit_sender local = *s;
    scan_row(row, n, find_runs, SEND_AVX2, code, &local, NULL);
    *s = local;
}

static int use_avx2(void) {
    return story_png_simd_enabled() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
}
#endif

void story_rows_count(const uint8_t *row, size_t n, int find_runs, story_symbol_counts *counts) {
#ifdef STORY_HAVE_AVX2_ROWS
    if (use_avx2()) {
        count_row_avx2(row, n, find_runs, counts);
        return;
    }
#endif
    count_row_scalar(row, n, find_runs, counts);
}

void story_rows_send(const uint8_t *row, size_t n, int find_runs, const story_frame_code *code,
                     story_bit_sender *s) {
#ifdef STORY_HAVE_AVX2_ROWS
    if (use_avx2()) {
        send_row_avx2(row, n, find_runs, code, s);
        return;
    }
#endif
    send_row_scalar(row, n, find_runs, code, s);
}
