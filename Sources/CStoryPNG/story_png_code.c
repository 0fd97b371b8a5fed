#include "story_png_code.h"

#include <stdio.h>
#include <stdlib.h>

// Why the shaped code is still a canonical deflate code: deflate gives codes in order of
// length, then symbol. With no code between d (`far_depth`) and d + 4 bits, the codes shorter
// than d + 4 bits (near literals, and the run symbols in one shape) fill the code space but for
// whole blocks of 2^-d: the 14 far groups' (and in the other shape the run symbols', which come
// after the far literals in symbol order). So the first (d+4)-bit code is a multiple of 16, and
// each far group of 16 literals (consecutive symbols, consecutive codes) fills one block: its
// d-bit prefix, then the low nibble. `build_tables` checks it for every code.

enum { CODELEN_SYMBOLS = 19, RUN_SUBCODE_SYMBOLS = 1 + STORY_LENGTH_SYMBOLS, NEAR_LITERALS = 32 };

// MARK: - Code lengths

/// Code lengths in [shortest, longest] for `n` (at most 32) symbols that fill exactly `budget`
/// units of 2^-precision of the code space, at the least total weight × length. Returns that
/// cost.
///
/// Why a dynamic program and not Huffman's merge: the shape fixes some lengths and bounds
/// others, which Huffman's algorithm cannot honour; this one takes any bounds. The forward
/// pass keeps only costs (the least cost of the first k symbols filling each number of units),
/// a running minimum the compiler vectorizes; the lengths are read back from them, the
/// longest that reaches each cost, so a frame's code depends only on its counts.
static uint64_t fit_lengths(const uint64_t *weight, int n, int shortest, int longest, int precision,
                            int budget, uint8_t *lengths) {
    enum { MAX_SYMBOLS = 32, MAX_BUDGET = 256 };
    if (n > MAX_SYMBOLS || budget > MAX_BUDGET || precision > 8) abort(); // programmer error
    // Costs in 32 bits, signed: a frame's sample (a 32nd of at most 8192² RGBA pixels) times
    // 15 bits stays far below 2^31.
    const int32_t unreachable = INT32_MAX / 2;
    int32_t cost[MAX_SYMBOLS + 1][MAX_BUDGET + 1];
    int32_t w[MAX_SYMBOLS];
    for (int k = 0; k < n; k++) w[k] = (int32_t)(weight[k] < (uint64_t)(INT32_MAX / 32) ? weight[k] : INT32_MAX / 32);
    for (int used = 0; used <= budget; used++) cost[0][used] = unreachable;
    cost[0][0] = 0;
    for (int k = 0; k < n; k++) {
        const int32_t *before = cost[k];
        int32_t *after = cost[k + 1];
        for (int used = 0; used <= budget; used++) after[used] = unreachable;
        // Every symbol after this one needs room for its longest code.
        int room = budget - (n - 1 - k) * (1 << (precision - longest));
        for (int length = longest; length >= shortest; length--) {
            int units = 1 << (precision - length);
            int32_t add = w[k] * length;
            for (int next = units; next <= room; next++) {
                int32_t total = before[next - units] + add;
                after[next] = total < after[next] ? total : after[next];
            }
        }
    }
    int32_t best = cost[n][budget];
    if (best >= unreachable) abort(); // the callers' bounds always admit a complete code
    for (int k = n - 1, used = budget; k >= 0; k--) {
        int length = longest;
        while (length > shortest && (used < (1 << (precision - length)) ||
               cost[k][used - (1 << (precision - length))] + w[k] * length != cost[k + 1][used])) {
            length--;
        }
        lengths[k] = (uint8_t)length;
        used -= 1 << (precision - length);
    }
    return (uint64_t)best;
}

/// The `n` low bits of `value` in reverse order.
static unsigned reverse_bits(unsigned value, int n) {
    unsigned reversed = 0;
    for (int i = 0; i < n; i++, value >>= 1) reversed = (reversed << 1) | (value & 1);
    return reversed;
}

/// Canonical codes (RFC 1951 3.2.2), bit-reversed because deflate sends codes MSB first into
/// an LSB-first stream.
static void canonical_codes(const uint8_t *lengths, int n, uint16_t *codes) {
    int per_length[16] = {0};
    for (int s = 0; s < n; s++) per_length[lengths[s]]++;
    per_length[0] = 0;
    int next[16];
    int code = 0;
    for (int bits = 1; bits <= 15; bits++) {
        code = (code + per_length[bits - 1]) << 1;
        next[bits] = code;
    }
    for (int s = 0; s < n; s++) {
        int length = lengths[s];
        codes[s] = 0;
        if (!length) continue;
        codes[s] = (uint16_t)reverse_bits((unsigned)next[length]++, length);
    }
}

// MARK: - The shaped code

/// The literal of near index 0-31: 0-15, then 240-255.
static int near_literal(int index) { return index < 16 ? index : 224 + index; }

/// Lengths of all 286 literal/length symbols for the sample's counts, the cheapest of these
/// shapes: far depth 6, 7 or 8 with the run symbols below a prefix of the same depth (4-7 bits
/// more, so after the far literals); or, for pictures with many runs, far depth 8 with the run
/// symbols below a 1-bit prefix (1-7 bits more, so no longer than the near literals). Near
/// lengths are fitted to what each shape leaves of the code space.
static void shaped_lengths(const story_symbol_counts *counts, uint8_t *lengths, unsigned *far_depth) {
    uint64_t literal[256], near[NEAR_LITERALS], run[RUN_SUBCODE_SYMBOLS], far = 0, runs = 0;
    for (int b = 0; b < 256; b++) {
        literal[b] = (uint64_t)counts->literals[0][b] + counts->literals[1][b] + counts->literals[2][b] +
                     counts->literals[3][b];
    }
    for (int i = 0; i < NEAR_LITERALS; i++) near[i] = literal[near_literal(i)];
    for (int b = 16; b < 240; b++) far += literal[b];
    run[0] = 1; // end of block, once
    for (int s = 0; s < STORY_LENGTH_SYMBOLS; s++) runs += run[1 + s] = counts->lengths[s];

    uint8_t near_lengths[NEAR_LITERALS], trial[NEAR_LITERALS];
    uint8_t after_far[RUN_SUBCODE_SYMBOLS], below_bit[RUN_SUBCODE_SYMBOLS];
    uint64_t runs_after_far = fit_lengths(run, RUN_SUBCODE_SYMBOLS, 4, 7, 7, 128, after_far);
    uint64_t best = UINT64_MAX;
    unsigned run_prefix = 8;
    for (unsigned depth = 8; depth >= 6; depth--) {
        // 15 blocks of 2^-depth stay for the far groups and the runs' prefix.
        uint64_t cost = fit_lengths(near, NEAR_LITERALS, 1, (int)depth, (int)depth, (1 << depth) - 15, trial) +
                        far * (depth + 4) + runs * depth + runs_after_far;
        if (cost < best) {
            best = cost, *far_depth = depth, run_prefix = depth;
            memcpy(near_lengths, trial, sizeof near_lengths);
        }
    }
    if (runs) { // half the code space for the runs, 14 blocks of 2^-8 for the far groups
        uint64_t cost = fit_lengths(near, NEAR_LITERALS, 1, 8, 8, 256 - 128 - 14, trial) + far * 12 + runs +
                        fit_lengths(run, RUN_SUBCODE_SYMBOLS, 1, 7, 7, 128, below_bit);
        if (cost < best) {
            best = cost, *far_depth = 8, run_prefix = 1;
            memcpy(near_lengths, trial, sizeof near_lengths);
        }
    }
    const uint8_t *run_lengths = run_prefix == 1 ? below_bit : after_far;

    for (int i = 0; i < NEAR_LITERALS; i++) lengths[near_literal(i)] = near_lengths[i];
    for (int b = 16; b < 240; b++) lengths[b] = (uint8_t)(*far_depth + 4);
    lengths[STORY_END_OF_BLOCK] = (uint8_t)(run_prefix + run_lengths[0]);
    for (int s = 0; s < STORY_LENGTH_SYMBOLS; s++) lengths[257 + s] = (uint8_t)(run_prefix + run_lengths[1 + s]);
}

// MARK: - Run lengths

/// Extra bits after each length symbol (257-285), RFC 1951 3.2.5.
static const uint8_t length_extra_bits[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                              3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t length_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                         35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};

int story_length_symbol(int length) {
    int symbol = 28;
    while (length_base[symbol] > length) symbol--;
    return symbol; // 258 is symbol 28 (base 258), 227-257 symbol 27
}

/// The lookup tables of every sender. A far literal's code must be its group's prefix then its
/// reversed low nibble; a mismatch is a bug in the shape, so it stops the program.
static void build_tables(const uint8_t *lengths, const uint16_t *codes, unsigned depth, story_frame_code *code) {
    code->far_depth = depth;
    for (int b = 0; b < 256; b++) code->literal[b] = codes[b] | (uint32_t)lengths[b] << 24;
    memset(code->far_prefix_bits, 0, sizeof code->far_prefix_bits);
    for (int n = 0; n < 16; n++) {
        code->near_low_bits[n] = (uint8_t)codes[n];
        code->near_low_lengths[n] = lengths[n];
        code->near_high_bits[n] = (uint8_t)codes[240 + n];
        code->near_high_lengths[n] = lengths[240 + n];
    }
    for (int h = 1; h < 15; h++) {
        code->far_prefix_bits[h] = (uint8_t)codes[16 * h]; // its low nibble 0 adds nothing
        for (int n = 0; n < 16; n++) {
            uint32_t shaped = code->far_prefix_bits[h] | reverse_bits((unsigned)n, 4) << depth;
            if (codes[16 * h + n] != shaped || lengths[16 * h + n] != depth + 4) {
                fprintf(stderr, "story_png: far literal %d is not in its shaped place\n", 16 * h + n);
                abort();
            }
        }
    }
    // Distance code 0 (distance 1) is the canonical code "0", one bit: nothing to OR in.
    for (int length = 3; length <= STORY_MAX_RUN; length++) {
        int symbol = story_length_symbol(length), n = lengths[257 + symbol];
        uint32_t extra = (uint32_t)(length - length_base[symbol]);
        code->run[length] = (codes[257 + symbol] | extra << n) | (uint32_t)(n + length_extra_bits[symbol] + 1) << 24;
    }
    code->end_of_block = codes[STORY_END_OF_BLOCK] | (uint32_t)lengths[STORY_END_OF_BLOCK] << 24;
}

// MARK: - Block header

/// The code-length sequence of a block header, run-length coded with symbols 16, 17 and 18.
typedef struct {
    uint8_t symbol[STORY_LITLEN_SYMBOLS + 2];
    uint8_t extra[STORY_LITLEN_SYMBOLS + 2];
    int count;
} header_codes;

static void push_header(header_codes *out, uint64_t *freq, int symbol, int extra) {
    out->symbol[out->count] = (uint8_t)symbol;
    out->extra[out->count++] = (uint8_t)extra;
    freq[symbol]++;
}

static void code_header_lengths(const uint8_t *lengths, int n, header_codes *out, uint64_t *freq) {
    out->count = 0;
    for (int i = 0; i < n;) {
        uint8_t value = lengths[i];
        int run = 1;
        while (i + run < n && lengths[i + run] == value) run++;
        i += run;
        if (value == 0) {
            for (; run >= 11; run -= run < 138 ? run : 138) push_header(out, freq, 18, (run < 138 ? run : 138) - 11);
            if (run >= 3) push_header(out, freq, 17, run - 3), run = 0;
        } else {
            push_header(out, freq, value, 0), run--;
            for (; run >= 3; run -= run < 6 ? run : 6) push_header(out, freq, 16, (run < 6 ? run : 6) - 3);
        }
        while (run-- > 0) push_header(out, freq, value, 0);
    }
}

void story_frame_code_build(const story_symbol_counts *counts, int final, story_bit_sender *s,
                            story_frame_code *code) {
    static const uint8_t header_order[CODELEN_SYMBOLS] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                                          11, 4, 12, 3, 13, 2, 14, 1, 15};
    static const uint8_t header_extra_bits[CODELEN_SYMBOLS] = {[16] = 2, [17] = 3, [18] = 7};
    uint8_t lengths[STORY_LITLEN_SYMBOLS + 2];
    unsigned depth = 8;
    shaped_lengths(counts, lengths, &depth);
    lengths[STORY_LITLEN_SYMBOLS] = lengths[STORY_LITLEN_SYMBOLS + 1] = 1; // distance codes 0 (1) and 1 (2)
    uint16_t codes[STORY_LITLEN_SYMBOLS];
    canonical_codes(lengths, STORY_LITLEN_SYMBOLS, codes);
    build_tables(lengths, codes, depth, code);

    // The code-length code: the used symbols (at least two, since zlib's inflate refuses an
    // incomplete code-length code and one symbol is incomplete) get 1-7 bits.
    header_codes header;
    uint64_t freq[CODELEN_SYMBOLS] = {0}, used_freq[CODELEN_SYMBOLS];
    code_header_lengths(lengths, STORY_LITLEN_SYMBOLS + 2, &header, freq);
    int used[CODELEN_SYMBOLS], used_count = 0;
    for (int c = 0; c < CODELEN_SYMBOLS; c++) {
        if (freq[c]) used[used_count++] = c;
    }
    for (int c = 0; c < CODELEN_SYMBOLS && used_count < 2; c++) {
        if (!freq[c]) used[used_count++] = c;
    }
    for (int i = 0; i < used_count; i++) used_freq[i] = freq[used[i]];
    uint8_t used_lengths[CODELEN_SYMBOLS], cl_len[CODELEN_SYMBOLS] = {0};
    fit_lengths(used_freq, used_count, 1, 7, 7, 128, used_lengths);
    for (int i = 0; i < used_count; i++) cl_len[used[i]] = used_lengths[i];
    int cl_count = CODELEN_SYMBOLS;
    while (cl_count > 4 && !cl_len[header_order[cl_count - 1]]) cl_count--;
    uint16_t cl_code[CODELEN_SYMBOLS];
    canonical_codes(cl_len, CODELEN_SYMBOLS, cl_code);

    story_send(s, (uint64_t)final | (2u << 1), 3);
    story_send(s, STORY_LITLEN_SYMBOLS - 257, 5);
    story_send(s, 2 - 1, 5);
    story_send(s, (uint64_t)(cl_count - 4), 4);
    for (int i = 0; i < cl_count; i++) story_send(s, cl_len[header_order[i]], 3);
    for (int i = 0; i < header.count; i++) {
        int c = header.symbol[i];
        story_send(s, cl_code[c], cl_len[c]);
        if (c >= 16) story_send(s, header.extra[i], header_extra_bits[c]);
    }
}
