#include "story_png_fast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h> // crc32 only; the deflate stream is written here.

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the bit writer stores its 64-bit buffer as little-endian bytes"
#endif

// Why this exists: at level 1 with the RLE strategy, zlib's deflate was ~90% of a frame's PNG
// time (about 19 of 21 ms at 720x1280), and most of that is per-symbol bookkeeping built for
// LZ77 matching that the RLE and Huffman-only strategies never do. This file does the same
// matching, and writes RFC 1951 blocks with dynamic Huffman codes, in three tight passes per
// block: find the runs, count the symbols, send them.

enum {
    // Input bytes per deflate block: large enough that the ~80-byte tree header is noise, small
    // enough that the codes follow the picture (a flat card and a noisy video differ).
    BLOCK_INPUT = 1 << 16,
    LITLEN_SYMBOLS = 286,
    DIST_SYMBOLS = 30,
    CODELEN_SYMBOLS = 19,
    END_OF_BLOCK = 256,
    MIN_RUN = 3,
    MAX_RUN = 258,
    MAX_BITS = 15,
    MAX_CODELEN_BITS = 7,
    STORED_MAX = 65535,
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

typedef struct {
    uint8_t symbol[MAX_RUN + 1]; // 0-28: offset from symbol 257
    uint8_t extra_bits[MAX_RUN + 1];
    uint16_t extra_value[MAX_RUN + 1];
} length_table;

/// Extra bits after each length symbol (257-285), RFC 1951 3.2.5.
static const uint8_t length_extra_bits[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                              3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};

static void make_length_table(length_table *table) {
    static const uint16_t base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                      35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    const uint8_t *extra = length_extra_bits;
    for (int symbol = 0; symbol < 29; symbol++) {
        int last = symbol == 28 ? MAX_RUN : (symbol == 27 ? 257 : base[symbol] + (1 << extra[symbol]) - 1);
        for (int length = base[symbol]; length <= last; length++) {
            table->symbol[length] = (uint8_t)symbol;
            table->extra_bits[length] = extra[symbol];
            table->extra_value[length] = (uint16_t)(length - base[symbol]);
        }
    }
}

// MARK: - One block

/// A run of the byte before it, to be sent as a match at distance 1.
typedef struct {
    uint32_t start;
    uint32_t length;
} byte_run;

typedef struct {
    const length_table *lengths;
    /// Grown as a block needs: video blocks have few runs, and room for the most a 64 KiB block
    /// can hold (~175 KB) would be a fresh mapping, and its page faults, every frame.
    byte_run *runs;
    size_t run_capacity;
    int finds_runs; // 0 for Huffman-only
} block_coder;

/// Appends a run at `count`, growing the list. Returns 0 when memory ran out.
static int add_run(block_coder *coder, size_t count, byte_run run) {
    if (count == coder->run_capacity) {
        size_t capacity = coder->run_capacity * 2;
        byte_run *grown = realloc(coder->runs, capacity * sizeof(byte_run));
        if (!grown) return 0;
        coder->runs = grown;
        coder->run_capacity = capacity;
    }
    coder->runs[count] = run;
    return 1;
}

static inline uint64_t load_u64(const uint8_t *p) {
    uint64_t value;
    memcpy(&value, p, 8);
    return value;
}

/// Finds the runs zlib's deflate_rle would send: at least three bytes equal to the byte before
/// them (which may end the previous block), at most 258 long. Puts them in `coder->runs` and
/// their number in `*found`; returns 0 when memory ran out.
static int find_runs(block_coder *coder, const uint8_t *data, size_t n, int previous, size_t *found) {
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    size_t count = 0, i = 0;
    while (i + 2 < n) {
        if (i >= 1 && i + 10 <= n) {
            // Eight candidate starts at once: a start at i+k needs bytes k of these four words
            // (data[i+k-1 ... i+k+2]) equal, i.e. byte k of `differs` zero. In video noise
            // almost no word has one, so this branch is predictable where a byte test is not.
            uint64_t a = load_u64(data + i - 1), b = load_u64(data + i);
            uint64_t c = load_u64(data + i + 1), d = load_u64(data + i + 2);
            uint64_t differs = (a ^ b) | (b ^ c) | (c ^ d);
            uint64_t zero_bytes = (differs - ones) & ~differs & highs;
            if (!zero_bytes) {
                i += 8;
                continue;
            }
            i += (size_t)__builtin_ctzll(zero_bytes) >> 3; // the lowest flag is exact
        } else {
            int before = i ? data[i - 1] : previous;
            if (data[i] != before || data[i + 1] != before || data[i + 2] != before) {
                i++;
                continue;
            }
        }
        uint8_t byte = data[i];
        size_t limit = n - i < MAX_RUN ? n - i : MAX_RUN, length = MIN_RUN;
        while (length < limit && data[i + length] == byte) length++;
        if (!add_run(coder, count++, (byte_run){(uint32_t)i, (uint32_t)length})) return 0;
        i += length;
    }
    *found = count;
    return 1;
}

/// Symbol counts for a block: every byte is counted as a literal, then the bytes runs cover are
/// taken back. Four tables break the store-to-load chain when neighbouring bytes are equal.
static void count_symbols(const uint8_t *data, size_t n, const byte_run *runs, size_t run_count,
                          const length_table *table, uint32_t *lit_freq, uint32_t *dist_freq) {
    uint32_t partial[4][256];
    memset(partial, 0, sizeof partial);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        partial[0][data[i]]++;
        partial[1][data[i + 1]]++;
        partial[2][data[i + 2]]++;
        partial[3][data[i + 3]]++;
    }
    for (; i < n; i++) partial[0][data[i]]++;
    for (int b = 0; b < 256; b++) lit_freq[b] = partial[0][b] + partial[1][b] + partial[2][b] + partial[3][b];
    for (size_t r = 0; r < run_count; r++) {
        lit_freq[data[runs[r].start]] -= runs[r].length;
        lit_freq[257 + table->symbol[runs[r].length]]++;
    }
    dist_freq[0] += (uint32_t)run_count;
}

/// The code-length sequence of a block header, run-length coded with symbols 16, 17 and 18.
typedef struct {
    uint8_t symbol[LITLEN_SYMBOLS + DIST_SYMBOLS];
    uint8_t extra[LITLEN_SYMBOLS + DIST_SYMBOLS];
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

/// Sends a block's literals and runs. The bit buffer lives in registers: every three literals
/// (at most 45 bits, plus up to 7 left over) it is flushed with one unaligned 8-byte store.
static void emit_symbols(bit_writer *w, const uint8_t *data, size_t n, const byte_run *runs,
                         size_t run_count, const length_table *table, const uint32_t *literal,
                         const uint16_t *lit_code, const uint8_t *lit_len, uint32_t distance_one) {
    uint64_t bits = w->bits;
    unsigned count = (unsigned)w->count;
    uint8_t *out = w->out->bytes + w->out->count;
#define FLUSH()                           \
    do {                                  \
        memcpy(out, &bits, 8);            \
        out += count >> 3;                \
        bits >>= count & ~7u;             \
        count &= 7u;                      \
    } while (0)
#define PUT(entry)                                      \
    do {                                                \
        uint32_t e_ = (entry);                          \
        bits |= (uint64_t)(e_ & 0xffff) << count;       \
        count += e_ >> 16;                              \
    } while (0)
    FLUSH(); // put_bits may leave up to 31 bits
    size_t i = 0;
    for (size_t r = 0; r <= run_count; r++) {
        size_t end = r < run_count ? runs[r].start : n;
        for (; i + 3 <= end; i += 3) {
            PUT(literal[data[i]]);
            PUT(literal[data[i + 1]]);
            PUT(literal[data[i + 2]]);
            FLUSH();
        }
        for (; i < end; i++) {
            PUT(literal[data[i]]);
            FLUSH();
        }
        if (r == run_count) break;
        unsigned length = runs[r].length, symbol = 257 + table->symbol[length];
        PUT(lit_code[symbol] | (uint32_t)lit_len[symbol] << 16);
        PUT(table->extra_value[length] | (uint32_t)table->extra_bits[length] << 16);
        FLUSH();
        PUT(distance_one);
        FLUSH();
        i += length;
    }
#undef PUT
#undef FLUSH
    w->out->count = (size_t)(out - w->out->bytes);
    w->bits = bits;
    w->count = (int)count;
}

static void write_stored(bit_writer *w, const uint8_t *data, size_t n, int final) {
    do {
        size_t part = n < STORED_MAX ? n : STORED_MAX;
        int last = final && part == n;
        put_bits(w, (uint32_t)last, 3); // BTYPE 00
        align_to_byte(w);
        uint8_t *p = w->out->bytes + w->out->count;
        p[0] = (uint8_t)part, p[1] = (uint8_t)(part >> 8);
        p[2] = (uint8_t)~part, p[3] = (uint8_t)(~part >> 8);
        memcpy(p + 4, data, part);
        w->out->count += 4 + part;
        data += part;
        n -= part;
    } while (n > 0);
}

/// Codes one block with dynamic Huffman codes, or stores it when that is smaller (noise can be
/// incompressible). The caller has reserved `n + 1024` bytes. Returns 0 when memory ran out.
static int write_block(block_coder *coder, bit_writer *w, const uint8_t *data, size_t n,
                       int previous, int final) {
    static const uint8_t header_order[CODELEN_SYMBOLS] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                                          11, 4, 12, 3, 13, 2, 14, 1, 15};
    uint32_t lit_freq[LITLEN_SYMBOLS] = {0}, dist_freq[DIST_SYMBOLS] = {0}, cl_freq[CODELEN_SYMBOLS] = {0};
    size_t run_count = 0;
    if (coder->finds_runs && !find_runs(coder, data, n, previous, &run_count)) return 0;
    count_symbols(data, n, coder->runs, run_count, coder->lengths, lit_freq, dist_freq);
    lit_freq[END_OF_BLOCK] = 1;
    ensure_two_symbols(lit_freq, LITLEN_SYMBOLS);
    ensure_two_symbols(dist_freq, DIST_SYMBOLS);

    uint8_t lit_len[LITLEN_SYMBOLS], dist_len[DIST_SYMBOLS];
    code_lengths(lit_freq, LITLEN_SYMBOLS, MAX_BITS, lit_len);
    code_lengths(dist_freq, DIST_SYMBOLS, MAX_BITS, dist_len);
    int lit_count = LITLEN_SYMBOLS, dist_count = DIST_SYMBOLS;
    while (lit_count > 257 && !lit_len[lit_count - 1]) lit_count--;
    while (dist_count > 1 && !dist_len[dist_count - 1]) dist_count--;
    // The header sends both codes' lengths as one sequence.
    uint8_t lengths[LITLEN_SYMBOLS + DIST_SYMBOLS];
    memcpy(lengths, lit_len, (size_t)lit_count);
    memcpy(lengths + lit_count, dist_len, (size_t)dist_count);

    header_codes header;
    code_header_lengths(lengths, lit_count + dist_count, &header, cl_freq);
    ensure_two_symbols(cl_freq, CODELEN_SYMBOLS);
    uint8_t cl_len[CODELEN_SYMBOLS];
    code_lengths(cl_freq, CODELEN_SYMBOLS, MAX_CODELEN_BITS, cl_len);
    int cl_count = CODELEN_SYMBOLS;
    while (cl_count > 4 && !cl_len[header_order[cl_count - 1]]) cl_count--;

    // Compare sizes before writing: dynamic header + symbols against a stored copy.
    uint64_t bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)cl_count;
    for (int s = 0; s < CODELEN_SYMBOLS; s++) bits += (uint64_t)cl_freq[s] * cl_len[s];
    bits += 2 * (uint64_t)cl_freq[16] + 3 * (uint64_t)cl_freq[17] + 7 * (uint64_t)cl_freq[18];
    for (int s = 0; s < LITLEN_SYMBOLS; s++) bits += (uint64_t)lit_freq[s] * lit_len[s];
    for (int s = 0; s < 29; s++) bits += (uint64_t)lit_freq[257 + s] * length_extra_bits[s];
    for (int s = 0; s < DIST_SYMBOLS; s++) bits += (uint64_t)dist_freq[s] * dist_len[s];
    uint64_t stored_bits = 3 + 7 + 32 + 8 * (uint64_t)n + 40 * (uint64_t)(n / STORED_MAX);
    if (stored_bits <= bits) {
        write_stored(w, data, n, final);
        return 1;
    }

    uint16_t lit_code[LITLEN_SYMBOLS], dist_code[DIST_SYMBOLS], cl_code[CODELEN_SYMBOLS];
    canonical_codes(lit_len, LITLEN_SYMBOLS, lit_code);
    canonical_codes(dist_len, DIST_SYMBOLS, dist_code);
    canonical_codes(cl_len, CODELEN_SYMBOLS, cl_code);

    put_bits(w, (uint32_t)final | (2u << 1), 3);
    put_bits(w, (uint32_t)(lit_count - 257), 5);
    put_bits(w, (uint32_t)(dist_count - 1), 5);
    put_bits(w, (uint32_t)(cl_count - 4), 4);
    for (int i = 0; i < cl_count; i++) put_bits(w, cl_len[header_order[i]], 3);
    static const uint8_t header_extra_bits[CODELEN_SYMBOLS] = {[16] = 2, [17] = 3, [18] = 7};
    for (int i = 0; i < header.count; i++) {
        int s = header.symbol[i];
        put_bits(w, cl_code[s], cl_len[s]);
        if (s >= 16) put_bits(w, header.extra[i], header_extra_bits[s]);
    }

    // Code and length in one word, so a literal costs one table load.
    uint32_t literal[256];
    for (int b = 0; b < 256; b++) literal[b] = lit_code[b] | (uint32_t)lit_len[b] << 16;
    emit_symbols(w, data, n, coder->runs, run_count, coder->lengths, literal, lit_code, lit_len,
                 dist_code[0] | (uint32_t)dist_len[0] << 16);
    put_bits(w, lit_code[END_OF_BLOCK], lit_len[END_OF_BLOCK]);
    return 1;
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
    if (!keep_alpha && filter != STORY_PNG_FILTER_PAETH && __builtin_cpu_supports("ssse3")) {
        filter_rgb_rows_ssse3(out, rgba, zeros, stride, first, count, width, filter);
        return;
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
    uLong crc = crc32(0L, Z_NULL, 0);
    const uint8_t *typed = out->bytes + start + 4;
    size_t remaining = out->count - start - 4;
    while (remaining > 0) { // crc32 takes a uInt length
        uInt part = remaining > 0x40000000u ? 0x40000000u : (uInt)remaining;
        crc = crc32(crc, typed, part);
        typed += part;
        remaining -= part;
    }
    put_u32_be(out->bytes + out->count, (uint32_t)crc);
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
    int rows_per_block = row_bytes >= BLOCK_INPUT ? 1 : (int)(BLOCK_INPUT / row_bytes);
    size_t block_capacity = (size_t)rows_per_block * row_bytes;
    uint8_t *block = malloc(block_capacity);
    const size_t first_run_capacity = 1024;
    byte_run *runs = malloc(first_run_capacity * sizeof(byte_run));
    uint8_t *zeros = calloc((size_t)width, 4);
    length_table *table = malloc(sizeof(length_table));
    if (!block || !runs || !zeros || !table || !reserve(out, 8 + 25 + 8 + 2)) {
        free(block), free(runs), free(zeros), free(table);
        story_png_buffer_free(out);
        set_error(error, error_size, "out of memory while encoding PNG");
        return 1;
    }
    make_length_table(table);
    block_coder coder = {table, runs, first_run_capacity, strategy == STORY_PNG_STRATEGY_RLE};

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

    // One IDAT: its length is patched in once the stream is written.
    size_t idat = out->count;
    append_chunk_header(out, 0, "IDAT");
    out->bytes[out->count++] = 0x78; // deflate, 32 KiB window
    out->bytes[out->count++] = 0x01; // fastest; (0x78 << 8 | 0x01) % 31 == 0
    bit_writer writer = {out, 0, 0};
    uint32_t adler = 1;
    int previous = -1;
    int failed = 0;
    for (int y = 0; y < height; y += rows_per_block) {
        int count = height - y < rows_per_block ? height - y : rows_per_block;
        size_t n = (size_t)count * row_bytes;
        filter_rows(block, rgba, zeros, stride, y, count, width, keep_alpha, filter);
        adler = story_png_adler32(adler, block, n);
        if (!reserve(out, n + n / STORED_MAX * 5 + 1024)) {
            failed = 1;
            break;
        }
        if (!write_block(&coder, &writer, block, n, previous, y + count >= height)) {
            failed = 1;
            break;
        }
        previous = block[n - 1];
    }
    if (!failed && reserve(out, 64)) {
        align_to_byte(&writer);
        put_u32_be(out->bytes + out->count, adler);
        out->count += 4;
        put_u32_be(out->bytes + idat, (uint32_t)(out->count - idat - 8));
        append_chunk_crc(out, idat);
        size_t end = out->count;
        append_chunk_header(out, 0, "IEND");
        append_chunk_crc(out, end);
    } else {
        failed = 1;
    }
    free(block), free(coder.runs), free(zeros), free(table);
    if (failed) {
        story_png_buffer_free(out);
        set_error(error, error_size, "out of memory while encoding PNG");
        return 1;
    }
    return 0;
}
