#include "story_png_fast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the bit writer stores its 64-bit buffer as little-endian bytes"
#endif

// Why this exists: at level 1 with the RLE strategy, zlib's deflate was ~90% of a frame's PNG
// time (about 19 of 21 ms at 720x1280), and most of that is per-symbol bookkeeping built for
// LZ77 matching that the RLE and Huffman-only strategies never do. This file does the same
// matching, and writes one RFC 1951 block with a dynamic Huffman code built from a sample of
// the frame's rows, then one pass over the rows: filter, checksum, send.

enum {
    LITLEN_SYMBOLS = 286,
    CODELEN_SYMBOLS = 19,
    END_OF_BLOCK = 256,
    MIN_RUN = 3,
    MAX_RUN = 258,
    MAX_BITS = 15,
    MAX_CODELEN_BITS = 7,
};

int story_png_fast_supports(int level, story_png_filter filter, story_png_strategy strategy) {
    // zlib picks deflate_rle / deflate_huff for every level above 0, so the level does not
    // change the matching for these strategies here either.
    return level >= 1 && filter != STORY_PNG_FILTER_ADAPTIVE &&
           (strategy == STORY_PNG_STRATEGY_RLE || strategy == STORY_PNG_STRATEGY_HUFFMAN);
}

static void set_error(char *error, size_t size, const char *message) {
    if (error && size > 0) snprintf(error, size, "%s", message);
}

// MARK: - Output buffer and bit writer

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

/// Deflate's LSB-first bit stream. The caller reserves room before each block, so the hot path
/// does not check capacity.
typedef struct {
    story_png_buffer *out;
    uint64_t bits;
    int count;
} bit_writer;

static inline void put_bits(bit_writer *w, uint32_t value, int n) {
    w->bits |= (uint64_t)value << w->count;
    w->count += n;
    if (w->count >= 32) {
        uint8_t *p = w->out->bytes + w->out->count;
        uint32_t low = (uint32_t)w->bits;
        p[0] = (uint8_t)low;
        p[1] = (uint8_t)(low >> 8);
        p[2] = (uint8_t)(low >> 16);
        p[3] = (uint8_t)(low >> 24);
        w->out->count += 4;
        w->bits >>= 32;
        w->count -= 32;
    }
}

static void align_to_byte(bit_writer *w) {
    while (w->count > 0) {
        w->out->bytes[w->out->count++] = (uint8_t)w->bits;
        w->bits >>= 8;
        w->count -= 8;
    }
    w->bits = 0;
    w->count = 0;
}

// MARK: - Huffman codes

typedef struct {
    uint32_t freq;
    uint16_t symbol;
} leaf;

/// Sorts leaves by count, ties by symbol: an LSD radix sort, one byte of the count per pass, on
/// leaves that arrive in symbol order (so each stable pass keeps ties in symbol order). It does
/// in ~2 µs what qsort took ~6 for, and there are two or three codes per 64 KiB block.
static void sort_leaves(leaf *leaves, leaf *scratch, int count) {
    uint32_t largest = 0;
    for (int i = 0; i < count; i++) largest |= leaves[i].freq;
    for (int shift = 0; shift < 32 && (largest >> shift) != 0; shift += 8) {
        int starts[257] = {0};
        for (int i = 0; i < count; i++) starts[((leaves[i].freq >> shift) & 0xff) + 1]++;
        for (int digit = 0; digit < 256; digit++) starts[digit + 1] += starts[digit];
        for (int i = 0; i < count; i++) scratch[starts[(leaves[i].freq >> shift) & 0xff]++] = leaves[i];
        memcpy(leaves, scratch, sizeof(leaf) * (size_t)count);
    }
}

/// Huffman code lengths of at most `limit` bits. When the tree is too deep the counts are
/// halved (keeping every used symbol) and the tree rebuilt; blocks are small, so this is rare.
static void code_lengths(const uint32_t *counts, int n, int limit, uint8_t *lengths) {
    uint32_t freq[LITLEN_SYMBOLS];
    leaf leaves[LITLEN_SYMBOLS], scratch[LITLEN_SYMBOLS];
    uint32_t weight[2 * LITLEN_SYMBOLS];
    int parent[2 * LITLEN_SYMBOLS];
    int depth[2 * LITLEN_SYMBOLS];
    memcpy(freq, counts, sizeof(uint32_t) * (size_t)n);
    for (;;) {
        memset(lengths, 0, (size_t)n);
        int used = 0;
        for (int s = 0; s < n; s++) {
            if (freq[s]) leaves[used++] = (leaf){freq[s], (uint16_t)s};
        }
        if (used == 0) return;
        if (used == 1) {
            lengths[leaves[0].symbol] = 1;
            return;
        }
        sort_leaves(leaves, scratch, used);
        // Two queues: sorted leaves, and internal nodes, which are made in non-decreasing weight.
        for (int i = 0; i < used; i++) weight[i] = leaves[i].freq;
        int next_leaf = 0, next_node = used, total = used;
        for (int merge = 0; merge < used - 1; merge++) {
            int pick[2];
            for (int k = 0; k < 2; k++) {
                if (next_leaf < used && (next_node >= total || weight[next_leaf] <= weight[next_node])) {
                    pick[k] = next_leaf++;
                } else {
                    pick[k] = next_node++;
                }
            }
            weight[total] = weight[pick[0]] + weight[pick[1]];
            parent[pick[0]] = total;
            parent[pick[1]] = total;
            total++;
        }
        // A parent is always made after its children, so one backward pass gives every depth.
        depth[total - 1] = 0;
        int deepest = 0;
        for (int i = total - 2; i >= 0; i--) {
            depth[i] = depth[parent[i]] + 1;
            if (i < used && depth[i] > deepest) deepest = depth[i];
        }
        if (deepest <= limit) {
            for (int i = 0; i < used; i++) lengths[leaves[i].symbol] = (uint8_t)depth[i];
            return;
        }
        for (int s = 0; s < n; s++) {
            if (freq[s]) freq[s] = (freq[s] >> 1) | 1;
        }
    }
}

/// Canonical codes (RFC 1951 3.2.2), bit-reversed because deflate sends codes MSB first into
/// an LSB-first stream.
static void canonical_codes(const uint8_t *lengths, int n, uint16_t *codes) {
    int per_length[MAX_BITS + 1] = {0};
    for (int s = 0; s < n; s++) per_length[lengths[s]]++;
    per_length[0] = 0;
    int next[MAX_BITS + 1];
    int code = 0;
    for (int bits = 1; bits <= MAX_BITS; bits++) {
        code = (code + per_length[bits - 1]) << 1;
        next[bits] = code;
    }
    for (int s = 0; s < n; s++) {
        int length = lengths[s];
        if (!length) continue;
        unsigned value = (unsigned)next[length]++, reversed = 0;
        for (int i = 0; i < length; i++) {
            reversed = (reversed << 1) | (value & 1);
            value >>= 1;
        }
        codes[s] = (uint16_t)reversed;
    }
}

/// Keeps at least two symbols in a code: zlib's inflate refuses an incomplete code-length code,
/// and a one-symbol code is incomplete.
static void ensure_two_symbols(uint32_t *freq, int n) {
    int used = 0;
    for (int s = 0; s < n; s++) used += freq[s] != 0;
    for (int s = 0; s < n && used < 2; s++) {
        if (!freq[s]) {
            freq[s] = 1;
            used++;
        }
    }
}

// MARK: - Run lengths

/// Extra bits after each length symbol (257-285), RFC 1951 3.2.5.
static const uint8_t length_extra_bits[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                              3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t length_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                         35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};

/// The length symbol (0-28, offset from 257) of a run of 3-258 bytes.
static int length_symbol(int length) {
    int symbol = 28;
    while (length_base[symbol] > length) symbol--;
    return symbol; // 258 is symbol 28 (base 258), 227-257 symbol 27
}

// MARK: - One code per frame

/// Why one code for the whole frame: the coder used to count, build and send a Huffman code
/// per 64 KiB block, three passes over every byte. A video frame's residuals have about the
/// same statistics everywhere, so a code built from a sample of its rows (every SAMPLE_EVERY-th)
/// costs a fraction of a pass and, on the benchmark's frames, under 1% in size. Every symbol
/// gets a code, so bytes the sample missed can still be sent.
enum {
    SAMPLE_EVERY = 8,
    // Literal codes of at most 12 bits let two literals be looked up, and sent, as one entry of
    // at most 24 bits; two such entries fit the 64-bit buffer beside the 7 bits left over.
    FRAME_MAX_BITS = 12,
};

typedef struct {
    /// Two literals at once, indexed by their bytes as a little-endian 16-bit load: the first's
    /// code, then the second's, with the total length in the top byte.
    uint32_t pair[1 << 16];
    /// One literal: code, length in the top byte.
    uint32_t literal[256];
    /// A run of each length 3-258 at distance 1: length code, its extra bits, distance code.
    uint32_t run[MAX_RUN + 1];
    uint32_t end_of_block;
} frame_code;

typedef struct {
    uint32_t literals[4][256]; // four tables break the store-to-load chain on equal bytes
    uint32_t lengths[29];
    uint32_t runs;
} sample_counts;

/// Output state while sending: the bit buffer and where its next byte goes. The caller has
/// reserved room for the whole stream plus 8 bytes, so the hot path checks nothing.
typedef struct {
    uint64_t bits;
    unsigned count;
    uint8_t *out;
} sender;

#define STORY_FLUSH(s)                       \
    do {                                     \
        memcpy((s).out, &(s).bits, 8);       \
        (s).out += (s).count >> 3;           \
        (s).bits >>= (s).count & ~7u;        \
        (s).count &= 7u;                     \
    } while (0)
#define STORY_PUT(s, entry)                                   \
    do {                                                      \
        uint32_t e_ = (entry);                                \
        (s).bits |= (uint64_t)(e_ & 0xffffff) << (s).count;   \
        (s).count += e_ >> 24;                                \
    } while (0)

static inline uint64_t load_u64(const uint8_t *p) {
    uint64_t value;
    memcpy(&value, p, 8);
    return value;
}

static inline unsigned load_u16(const uint8_t *p) {
    uint16_t value;
    memcpy(&value, p, 2);
    return value;
}

/// The length of the run of `byte` at `data`, at least MIN_RUN (already checked), at most
/// `limit`: eight bytes per compare while they fit before `limit`.
static inline size_t run_length(const uint8_t *data, size_t limit, uint8_t byte) {
    const uint64_t pattern = 0x0101010101010101ull * byte;
    size_t length = MIN_RUN;
    while (length + 8 <= limit) {
        uint64_t differs = load_u64(data + length) ^ pattern;
        if (differs) return length + ((size_t)__builtin_ctzll(differs) >> 3);
        length += 8;
    }
    while (length < limit && data[length] == byte) length++;
    return length;
}

/// One filtered row, scanned the way zlib's deflate_rle matches: a run is at least three bytes
/// equal to the byte before them (the previous row's last byte for the first, `previous` -1
/// when there is none), at most 258 long, at distance 1. With `counting` set it adds the
/// row's symbols to `counts`; otherwise it sends them with `code`. The two uses share this
/// body (inlined with a constant flag) so that the sample counts what is later sent.
static inline __attribute__((always_inline)) void
scan_row(const uint8_t *data, size_t n, int previous, int find_runs, int counting,
         sample_counts *counts, const frame_code *code, sender *s) {
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    size_t i = 0;
#define LITERAL(at)                                                      \
    do {                                                                 \
        if (counting) counts->literals[(at) & 3][data[at]]++;            \
        else {                                                           \
            STORY_PUT(*s, code->literal[data[at]]);                      \
            STORY_FLUSH(*s);                                             \
        }                                                                \
    } while (0)
    while (i < n) {
        if (i >= 1 && i + 10 <= n) {
            // Eight candidate starts at once: a start at i+k needs bytes k of these four words
            // (data[i+k-1 ... i+k+2]) equal, i.e. byte k of `differs` zero. In video noise
            // almost no word has one, so this branch is predictable where a byte test is not.
            uint64_t differs = ~(uint64_t)0;
            if (find_runs) {
                uint64_t a = load_u64(data + i - 1), b = load_u64(data + i);
                uint64_t c = load_u64(data + i + 1), d = load_u64(data + i + 2);
                differs = (a ^ b) | (b ^ c) | (c ^ d);
            }
            uint64_t zero_bytes = (differs - ones) & ~differs & highs;
            if (!zero_bytes) {
                if (counting) {
                    for (int k = 0; k < 8; k++) counts->literals[k & 3][data[i + k]]++;
                } else {
                    // Four pair entries of at most 24 bits: flush after every two.
                    STORY_PUT(*s, code->pair[load_u16(data + i)]);
                    STORY_PUT(*s, code->pair[load_u16(data + i + 2)]);
                    STORY_FLUSH(*s);
                    STORY_PUT(*s, code->pair[load_u16(data + i + 4)]);
                    STORY_PUT(*s, code->pair[load_u16(data + i + 6)]);
                    STORY_FLUSH(*s);
                }
                i += 8;
                continue;
            }
            size_t start = i + ((size_t)__builtin_ctzll(zero_bytes) >> 3); // the lowest flag is exact
            if (!counting) { // the literals before the run, two at a time
                for (; i + 4 <= start; i += 4) {
                    STORY_PUT(*s, code->pair[load_u16(data + i)]);
                    STORY_PUT(*s, code->pair[load_u16(data + i + 2)]);
                    STORY_FLUSH(*s);
                }
                if (i + 2 <= start) {
                    STORY_PUT(*s, code->pair[load_u16(data + i)]);
                    STORY_FLUSH(*s);
                    i += 2;
                }
            }
            for (; i < start; i++) LITERAL(i);
        } else {
            int before = i ? data[i - 1] : previous;
            if (!find_runs || i + 2 >= n || data[i] != before || data[i + 1] != before ||
                data[i + 2] != before) {
                LITERAL(i);
                i++;
                continue;
            }
        }
        size_t limit = n - i < MAX_RUN ? n - i : MAX_RUN;
        size_t length = run_length(data + i, limit, data[i]);
        if (counting) {
            counts->lengths[length_symbol((int)length)]++;
            counts->runs++;
        } else {
            STORY_PUT(*s, code->run[length]);
            STORY_FLUSH(*s);
        }
        i += length;
    }
#undef LITERAL
}

/// The code-length sequence of a block header, run-length coded with symbols 16, 17 and 18.
typedef struct {
    uint8_t symbol[LITLEN_SYMBOLS + 2];
    uint8_t extra[LITLEN_SYMBOLS + 2];
    int count;
} header_codes;

static void code_header_lengths(const uint8_t *lengths, int n, header_codes *out, uint32_t *freq) {
    out->count = 0;
    int i = 0;
    while (i < n) {
        uint8_t value = lengths[i];
        int run = 1;
        while (i + run < n && lengths[i + run] == value) run++;
        i += run;
        if (value == 0) {
            while (run >= 11) {
                int take = run < 138 ? run : 138;
                out->symbol[out->count] = 18, out->extra[out->count++] = (uint8_t)(take - 11);
                freq[18]++;
                run -= take;
            }
            if (run >= 3) {
                out->symbol[out->count] = 17, out->extra[out->count++] = (uint8_t)(run - 3);
                freq[17]++;
                run = 0;
            }
        } else {
            out->symbol[out->count] = value, out->extra[out->count++] = 0;
            freq[value]++;
            run--;
            while (run >= 3) {
                int take = run < 6 ? run : 6;
                out->symbol[out->count] = 16, out->extra[out->count++] = (uint8_t)(take - 3);
                freq[16]++;
                run -= take;
            }
        }
        while (run-- > 0) {
            out->symbol[out->count] = value, out->extra[out->count++] = 0;
            freq[value]++;
        }
    }
}

/// Builds the frame's code from the sample's counts and sends the header of its one dynamic
/// block (RFC 1951 3.2.7). Every literal and length symbol gets a code (count + 1), and the
/// distance code has two 1-bit symbols, of which only distance 1 is used.
static void make_frame_code(const sample_counts *counts, int final, bit_writer *w, frame_code *code) {
    static const uint8_t header_order[CODELEN_SYMBOLS] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                                          11, 4, 12, 3, 13, 2, 14, 1, 15};
    uint32_t lit_freq[LITLEN_SYMBOLS], cl_freq[CODELEN_SYMBOLS] = {0};
    for (int b = 0; b < 256; b++) {
        lit_freq[b] = 1 + counts->literals[0][b] + counts->literals[1][b] + counts->literals[2][b] +
                      counts->literals[3][b];
    }
    lit_freq[END_OF_BLOCK] = 1;
    for (int s = 0; s < 29; s++) lit_freq[257 + s] = 1 + counts->lengths[s];
    uint8_t lengths[LITLEN_SYMBOLS + 2];
    code_lengths(lit_freq, LITLEN_SYMBOLS, FRAME_MAX_BITS, lengths);
    lengths[LITLEN_SYMBOLS] = lengths[LITLEN_SYMBOLS + 1] = 1; // distance codes 0 (1) and 1 (2)

    header_codes header;
    code_header_lengths(lengths, LITLEN_SYMBOLS + 2, &header, cl_freq);
    ensure_two_symbols(cl_freq, CODELEN_SYMBOLS);
    uint8_t cl_len[CODELEN_SYMBOLS];
    code_lengths(cl_freq, CODELEN_SYMBOLS, MAX_CODELEN_BITS, cl_len);
    int cl_count = CODELEN_SYMBOLS;
    while (cl_count > 4 && !cl_len[header_order[cl_count - 1]]) cl_count--;
    uint16_t lit_code[LITLEN_SYMBOLS], cl_code[CODELEN_SYMBOLS];
    canonical_codes(lengths, LITLEN_SYMBOLS, lit_code);
    canonical_codes(cl_len, CODELEN_SYMBOLS, cl_code);

    put_bits(w, (uint32_t)final | (2u << 1), 3);
    put_bits(w, LITLEN_SYMBOLS - 257, 5);
    put_bits(w, 2 - 1, 5);
    put_bits(w, (uint32_t)(cl_count - 4), 4);
    for (int i = 0; i < cl_count; i++) put_bits(w, cl_len[header_order[i]], 3);
    static const uint8_t header_extra_bits[CODELEN_SYMBOLS] = {[16] = 2, [17] = 3, [18] = 7};
    for (int i = 0; i < header.count; i++) {
        int s = header.symbol[i];
        put_bits(w, cl_code[s], cl_len[s]);
        if (s >= 16) put_bits(w, header.extra[i], header_extra_bits[s]);
    }

    for (int b = 0; b < 256; b++) code->literal[b] = lit_code[b] | (uint32_t)lengths[b] << 24;
    for (int a = 0; a < 256; a++) {
        for (int b = 0; b < 256; b++) {
            code->pair[a | b << 8] = (lit_code[a] | (uint32_t)lit_code[b] << lengths[a]) |
                                     (uint32_t)(lengths[a] + lengths[b]) << 24;
        }
    }
    // Distance code 0 (distance 1) is the canonical code "0", one bit: nothing to OR in.
    for (int length = MIN_RUN; length <= MAX_RUN; length++) {
        int symbol = length_symbol(length), n = lengths[257 + symbol];
        uint32_t extra = (uint32_t)(length - length_base[symbol]);
        code->run[length] = (lit_code[257 + symbol] | extra << n) |
                            (uint32_t)(n + length_extra_bits[symbol] + 1) << 24;
    }
    code->end_of_block = lit_code[END_OF_BLOCK] | (uint32_t)lengths[END_OF_BLOCK] << 24;
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
    uint8_t *row = malloc(row_bytes);
    uint8_t *zeros = calloc((size_t)width, 4);
    sample_counts *counts = calloc(1, sizeof(sample_counts));
    frame_code *code = malloc(sizeof(frame_code));
    // The stream's worst case: 12 bits per byte, plus headers and the 8-byte stores' overrun.
    size_t total = row_bytes * (size_t)height, worst = total + total / 2 + 1024;
    if (!row || !zeros || !counts || !code || !reserve(out, 8 + 25 + 8 + 2 + worst + 64)) {
        free(row), free(zeros), free(counts), free(code);
        story_png_buffer_free(out);
        set_error(error, error_size, "out of memory while encoding PNG");
        return 1;
    }

    // The sample: every SAMPLE_EVERY-th row, from the middle of the first stretch, so a picture
    // of a few rows is still sampled.
    for (int y = (height < SAMPLE_EVERY ? height : SAMPLE_EVERY) / 2; y < height; y += SAMPLE_EVERY) {
        filter_rows(row, rgba, zeros, stride, y, 1, width, keep_alpha, filter);
        scan_row(row, row_bytes, -1, find_runs, 1, counts, NULL, NULL);
    }

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

    // One IDAT holding one dynamic block: its length is patched in once the stream is written.
    size_t idat = out->count;
    append_chunk_header(out, 0, "IDAT");
    out->bytes[out->count++] = 0x78; // deflate, 32 KiB window
    out->bytes[out->count++] = 0x01; // fastest; (0x78 << 8 | 0x01) % 31 == 0
    bit_writer writer = {out, 0, 0};
    make_frame_code(counts, 1, &writer, code);
    sender s = {writer.bits, (unsigned)writer.count, out->bytes + out->count};
    uint32_t adler = 1;
    int previous = -1;
    for (int y = 0; y < height; y++) {
        filter_rows(row, rgba, zeros, stride, y, 1, width, keep_alpha, filter);
        adler = story_png_adler32(adler, row, row_bytes);
        scan_row(row, row_bytes, previous, find_runs, 0, NULL, code, &s);
        previous = row[row_bytes - 1];
    }
    STORY_PUT(s, code->end_of_block);
    STORY_FLUSH(s);
    out->count = (size_t)(s.out - out->bytes);
    writer.bits = s.bits;
    writer.count = (int)s.count;
    align_to_byte(&writer);
    put_u32_be(out->bytes + out->count, adler);
    out->count += 4;
    put_u32_be(out->bytes + idat, (uint32_t)(out->count - idat - 8));
    append_chunk_crc(out, idat);
    size_t end = out->count;
    append_chunk_header(out, 0, "IEND");
    append_chunk_crc(out, end);
    free(row), free(zeros), free(counts), free(code);
    return 0;
}
