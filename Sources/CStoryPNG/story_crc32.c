#include "story_png.h"

#include <string.h>
#include <zlib.h>

// Why this exists: zlib 1.2.13's crc32 (its "braided" tables) spends about 3 instructions per
// byte, a tenth of the fast PNG path's work on a video frame, because every PNG chunk is
// checksummed after it is written. Carry-less multiplication folds 64 bytes per step instead.
// The method is Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ" (2009),
// in its bit-reflected form for CRC-32's polynomial 0x04C11DB7; the constants below are
// x^(n) mod P for the fold distances it names, as published there and in Linux's
// crc32-pclmul_asm.S. The last 16 bytes and the tail are left to zlib (see fold_finish).

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STORY_HAVE_PCLMUL_CRC 1

/// One 128-bit fold: the two halves of `x` times their constants, moved 128 (or 512) bits on.
__attribute__((target("pclmul,sse4.1")))
static inline __m128i fold(__m128i x, __m128i constants) {
    return _mm_xor_si128(_mm_clmulepi64_si128(x, constants, 0x00), _mm_clmulepi64_si128(x, constants, 0x11));
}

__attribute__((target("pclmul,sse4.1")))
static uint32_t crc32_pclmul(uint32_t crc, const uint8_t *data, size_t length) {
    // Low quadword: x^(4*128+32) mod P; high: x^(4*128-32) mod P (bit-reflected, shifted by one).
    const __m128i by4 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
    const __m128i by1 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
    // zlib's crc32 starts from ~crc; XORing that into the first four bytes is the same thing.
    __m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)data), _mm_cvtsi32_si128((int)~crc));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(data + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(data + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(data + 48));
    data += 64, length -= 64;
    // Four independent chains, so the multiplier's latency is hidden.
    for (; length >= 64; data += 64, length -= 64) {
        x0 = _mm_xor_si128(fold(x0, by4), _mm_loadu_si128((const __m128i *)data));
        x1 = _mm_xor_si128(fold(x1, by4), _mm_loadu_si128((const __m128i *)(data + 16)));
        x2 = _mm_xor_si128(fold(x2, by4), _mm_loadu_si128((const __m128i *)(data + 32)));
        x3 = _mm_xor_si128(fold(x3, by4), _mm_loadu_si128((const __m128i *)(data + 48)));
    }
    __m128i x = _mm_xor_si128(fold(x0, by1), x1);
    x = _mm_xor_si128(fold(x, by1), x2);
    x = _mm_xor_si128(fold(x, by1), x3);
    for (; length >= 16; data += 16, length -= 16) {
        x = _mm_xor_si128(fold(x, by1), _mm_loadu_si128((const __m128i *)data));
    }
    // `x` now has the same CRC remainder as everything before it, as 16 message bytes with no
    // starting value. zlib's crc32 of them from 0 would XOR ~0 into their first four bytes;
    // XORing it in here first cancels that, so zlib finishes the sum, tail included.
    uint8_t last[16];
    _mm_storeu_si128((__m128i *)last, _mm_xor_si128(x, _mm_cvtsi32_si128(-1)));
    crc = (uint32_t)crc32(0, last, 16);
    return (uint32_t)crc32(crc, data, (uInt)length);
}
#endif

uint32_t story_png_crc32(uint32_t crc, const uint8_t *data, size_t length) {
#ifdef STORY_HAVE_PCLMUL_CRC
    // Below 64 bytes (chunk headers, IHDR, IEND) there is nothing to fold.
    if (length >= 64 && story_png_simd_enabled() && __builtin_cpu_supports("pclmul") &&
        __builtin_cpu_supports("sse4.1")) {
        return crc32_pclmul(crc, data, length);
    }
#endif
    while (length > 0) { // zlib's crc32 takes a uInt length
        uInt part = length > 0x40000000u ? 0x40000000u : (uInt)length;
        crc = (uint32_t)crc32(crc, data, part);
        data += part;
        length -= part;
    }
    return crc;
}
