#include "raster_support.h"

// The inside of a face (every pixel fully covered) is most of what the rasterizer draws. In Swift
// it cost ~43 cycles a pixel: eight u/w, v/w as SIMD8 lanes, then per pixel two 8-byte loads
// and an integer blend. Here eight pixels go through together: positions in floats as the
// reference computes them, each texel pair gathered as one 8-byte word, and the four texels
// blended in 16-bit fixed point (pmaddwd: a pixel's four channels in one instruction), within a
// level of the float reference. Blending in floats instead (a conversion and an FMA per channel
// and texel) made the loop 1.2 times as slow, measured on a mid-turn 720x1280 face.

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RASTER_HAVE_KERNEL 1
#endif

// MARK: - One pixel, for the tail of a span (and the same arithmetic as the eight-lane loop)

static inline uint32_t blend_one(const uint8_t *texture, int width, int height, float sx, float sy,
                                 float shade) {
    float max_x = (float)(width - 1), max_y = (float)(height - 1);
    // min before max: a NaN position goes to the far edge, as the Swift sampler sends it.
    float cx = sx < max_x ? sx : max_x;
    float cy = sy < max_y ? sy : max_y;
    cx = cx > 0 ? cx : 0;
    cy = cy > 0 ? cy : 0;
    int ix = (int)cx, iy = (int)cy;
    // On the last column (row) read the pair before it, with weight 1 on the second texel.
    int x0 = ix < width - 2 ? ix : width - 2;
    int y0 = iy < height - 2 ? iy : height - 2;
    float fx = cx - (float)x0, fy = cy - (float)y0;
    const uint8_t *top = texture + ((size_t)y0 * (size_t)width + (size_t)x0) * 4;
    const uint8_t *bottom = top + (size_t)width * 4;
    float w11 = fx * fy * shade, w10 = fy * shade - w11;
    float w01 = fx * shade - w11, w00 = shade - w01 - w10 - w11;
    uint32_t out = 0xFF000000u;
    for (int c = 0; c < 3; c++) {
        float value = top[c] * w00 + top[4 + c] * w01 + bottom[c] * w10 + bottom[4 + c] * w11 + 0.5f;
        int level = (int)value;
        level = level < 0 ? 0 : (level > 255 ? 255 : level);
        out |= (uint32_t)level << (8 * c);
    }
    return out;
}

// Pixels [first, end) one at a time: the tail of a span, and every span without the kernel.
// Always inlined, so the kernel's tail is compiled for its CPU as before.
__attribute__((always_inline))
static inline void draw_span_one_by_one(uint32_t *row, int first, int end, const uint8_t *texture, int width,
                                        int height, raster_span span) {
    for (int x = first; x < end; x++) {
        float px = (float)x + 0.5f;
        float w = span.sw * px + span.row_w;
        row[x] = blend_one(texture, width, height, (span.su * px + span.row_su) / w - 0.5f,
                           (span.sv * px + span.row_sv) / w - 0.5f, span.shade);
    }
}

#ifdef RASTER_HAVE_KERNEL

int raster_span_kernel_available(void) {
    static int known = -1; // computed once; a race only writes the same value twice
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return known;
}

// Two pixels' blends, one per 128-bit lane: `top` and `bottom` hold each pixel's texel pairs as
// 16-bit values, left and right side by side per channel, so one pmaddwd weighs a row's pair in
// all four channels; `pick` broadcasts the two pixels' packed (left, right) weights to their lanes.
// Sums are in 1/16384ths, rounded.
__attribute__((target("avx2,fma")))
static inline __m256i blend_pair(__m256i top, __m256i bottom, __m256i top_weights, __m256i bottom_weights,
                                 __m256i pick) {
    __m256i sum = _mm256_add_epi32(_mm256_madd_epi16(top, _mm256_permutevar8x32_epi32(top_weights, pick)),
                                   _mm256_madd_epi16(bottom, _mm256_permutevar8x32_epi32(bottom_weights, pick)));
    return _mm256_srai_epi32(_mm256_add_epi32(sum, _mm256_set1_epi32(8192)), 14);
}

// The span's constants, splatted once for its eight-pixel steps.
typedef struct {
    __m256 lanes, half, zero, max_x, max_y;
    __m256i last_x, last_y, stride;
    __m256 su, sv, sw, row_su, row_sv, row_w;
    __m256 shade_fixed;
    __m256i total;
    size_t row_bytes, last_prefetch;
} span_constants;

// Eight pixels' 2x2 footprints: the top-left texel's index and the weights of its right and
// lower neighbours.
typedef struct {
    __m256i x0, y0, index;
    __m256 fx, fy;
} span_footprint;

__attribute__((target("avx2,fma"), always_inline))
static inline span_constants span_setup(int width, int height, raster_span span) {
    span_constants k;
    k.lanes = _mm256_setr_ps(0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f);
    k.half = _mm256_set1_ps(0.5f), k.zero = _mm256_setzero_ps();
    k.max_x = _mm256_set1_ps((float)(width - 1)), k.max_y = _mm256_set1_ps((float)(height - 1));
    k.last_x = _mm256_set1_epi32(width - 2), k.last_y = _mm256_set1_epi32(height - 2);
    k.stride = _mm256_set1_epi32(width);
    k.su = _mm256_set1_ps(span.su), k.sv = _mm256_set1_ps(span.sv), k.sw = _mm256_set1_ps(span.sw);
    k.row_su = _mm256_set1_ps(span.row_su), k.row_sv = _mm256_set1_ps(span.row_sv);
    k.row_w = _mm256_set1_ps(span.row_w);
    k.shade_fixed = _mm256_set1_ps(span.shade * 16384.0f);
    k.total = _mm256_set1_epi32((int)(span.shade * 16384.0f + 0.5f));
    k.row_bytes = (size_t)width * 4;
    // Prefetches stay inside the texture: the second line is one row below the first.
    k.last_prefetch = (size_t)(height - 2) * k.row_bytes;
    return k;
}

// Where pixels x to x + 7 sample the texture: positions in floats as the reference computes
// them, clamped to the texture.
__attribute__((target("avx2,fma"), always_inline))
static inline span_footprint span_positions(const span_constants *k, int x) {
    __m256 px = _mm256_add_ps(k->lanes, _mm256_set1_ps((float)x));
    __m256 w = _mm256_fmadd_ps(k->sw, px, k->row_w);
    __m256 sx = _mm256_sub_ps(_mm256_div_ps(_mm256_fmadd_ps(k->su, px, k->row_su), w), k->half);
    __m256 sy = _mm256_sub_ps(_mm256_div_ps(_mm256_fmadd_ps(k->sv, px, k->row_sv), w), k->half);
    // min first: minps returns its second operand for a NaN, sending it to the far edge.
    __m256 cx = _mm256_max_ps(_mm256_min_ps(sx, k->max_x), k->zero);
    __m256 cy = _mm256_max_ps(_mm256_min_ps(sy, k->max_y), k->zero);
    span_footprint f;
    f.x0 = _mm256_min_epi32(_mm256_cvttps_epi32(cx), k->last_x);
    f.y0 = _mm256_min_epi32(_mm256_cvttps_epi32(cy), k->last_y);
    f.fx = _mm256_sub_ps(cx, _mm256_cvtepi32_ps(f.x0));
    f.fy = _mm256_sub_ps(cy, _mm256_cvtepi32_ps(f.y0));
    f.index = _mm256_add_epi32(_mm256_mullo_epi32(f.y0, k->stride), f.x0);
    return f;
}

// The next screen row reads the texture a row or two further down, along a slant the
// hardware prefetcher does not follow: start fetching those lines now.
__attribute__((target("avx2,fma"), always_inline))
static inline void span_prefetch(const span_constants *k, const uint8_t *texture, const span_footprint *f) {
    size_t ahead = ((size_t)_mm256_extract_epi32(f->y0, 0) + 2) * k->row_bytes +
                   (size_t)_mm256_extract_epi32(f->x0, 0) * 4 + 64;
    if (ahead > k->last_prefetch) ahead = k->last_prefetch;
    __builtin_prefetch(texture + ahead, 0, 3);
    __builtin_prefetch(texture + ahead + k->row_bytes, 0, 3);
}

// Eight pixels blended from their footprints, opaque, in pixel order.
__attribute__((target("avx2,fma"), always_inline))
static inline __m256i span_blend(const span_constants *k, const uint8_t *texture, int width,
                                 const span_footprint *f) {
    // Each texel and its right neighbour are one 8-byte pair: four gathers of four pairs
    // read the 2x2 footprints of eight pixels.
    const long long *pairs = (const long long *)texture;
    __m128i lo = _mm256_castsi256_si128(f->index), hi = _mm256_extracti128_si256(f->index, 1);
    __m128i stride4 = _mm_set1_epi32(width);
    __m256i top03 = _mm256_i32gather_epi64(pairs, lo, 4);
    __m256i top47 = _mm256_i32gather_epi64(pairs, hi, 4);
    __m256i bot03 = _mm256_i32gather_epi64(pairs, _mm_add_epi32(lo, stride4), 4);
    __m256i bot47 = _mm256_i32gather_epi64(pairs, _mm_add_epi32(hi, stride4), 4);
    // Within each pair, left and right bytes side by side (L.r R.r L.g R.g ...), for pmaddwd.
    const __m256i interleave = _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15,
                                                0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
    top03 = _mm256_shuffle_epi8(top03, interleave); top47 = _mm256_shuffle_epi8(top47, interleave);
    bot03 = _mm256_shuffle_epi8(bot03, interleave); bot47 = _mm256_shuffle_epi8(bot47, interleave);

    // Weights in 1/16384ths: the rounded products, the top-left one the rest, so that the four
    // sum exactly to the shade's and a flat texture stays flat.
    __m256 scaled_x = _mm256_mul_ps(f->fx, k->shade_fixed), scaled_y = _mm256_mul_ps(f->fy, k->shade_fixed);
    __m256i r11 = _mm256_cvtps_epi32(_mm256_mul_ps(scaled_x, f->fy));
    __m256i rx = _mm256_cvtps_epi32(scaled_x), ry = _mm256_cvtps_epi32(scaled_y);
    __m256i w10 = _mm256_sub_epi32(ry, r11), w01 = _mm256_sub_epi32(rx, r11);
    __m256i w00 = _mm256_sub_epi32(_mm256_sub_epi32(_mm256_sub_epi32(k->total, w01), w10), r11);
    __m256i top_weights = _mm256_blend_epi16(w00, _mm256_slli_epi32(w01, 16), 0xAA);
    __m256i bottom_weights = _mm256_blend_epi16(w10, _mm256_slli_epi32(r11, 16), 0xAA);
    __m256i zero = _mm256_setzero_si256();
    __m256i p02 = blend_pair(_mm256_unpacklo_epi8(top03, zero), _mm256_unpacklo_epi8(bot03, zero), top_weights,
                             bottom_weights, _mm256_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2));
    __m256i p13 = blend_pair(_mm256_unpackhi_epi8(top03, zero), _mm256_unpackhi_epi8(bot03, zero), top_weights,
                             bottom_weights, _mm256_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3));
    __m256i p46 = blend_pair(_mm256_unpacklo_epi8(top47, zero), _mm256_unpacklo_epi8(bot47, zero), top_weights,
                             bottom_weights, _mm256_setr_epi32(4, 4, 4, 4, 6, 6, 6, 6));
    __m256i p57 = blend_pair(_mm256_unpackhi_epi8(top47, zero), _mm256_unpackhi_epi8(bot47, zero), top_weights,
                             bottom_weights, _mm256_setr_epi32(5, 5, 5, 5, 7, 7, 7, 7));
    // Saturating packs clamp to 0-255 (a weight rounded to -1 can take a sum just below 0);
    // they interleave the halves, which the permute puts back in pixel order. Alpha is opaque.
    __m256i packed = _mm256_packus_epi16(_mm256_packs_epi32(p02, p13), _mm256_packs_epi32(p46, p57));
    return _mm256_or_si256(_mm256_permute4x64_epi64(packed, 0xD8), _mm256_set1_epi32((int)0xFF000000u));
}

__attribute__((target("avx2,fma")))
void raster_draw_span(uint32_t *row, int first, int end, const uint8_t *texture, int width,
                      int height, raster_span span) {
    const span_constants k = span_setup(width, height, span);
    int x = first;
    for (; x + 8 <= end; x += 8) {
        span_footprint f = span_positions(&k, x);
        span_prefetch(&k, texture, &f);
        _mm256_storeu_si256((__m256i *)(row + x), span_blend(&k, texture, width, &f));
    }
    draw_span_one_by_one(row, x, end, texture, width, height, span);
}

#else

int raster_span_kernel_available(void) { return 0; }

void raster_draw_span(uint32_t *row, int first, int end, const uint8_t *texture, int width,
                      int height, raster_span span) {
    draw_span_one_by_one(row, first, end, texture, width, height, span);
}

#endif
