#include "raster_support.h"

// The inside of a face (every pixel fully covered) is most of what the rasterizer draws. In Swift
// it cost ~43 cycles a pixel: eight u/w, v/w as SIMD8 lanes, then per pixel two 8-byte loads
// and an integer blend. Here eight pixels go through together, texels gathered with AVX2 and
// blended in floats with FMA, which also makes the result the float reference's, rounded.

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

#ifdef RASTER_HAVE_KERNEL

int raster_span_kernel_available(void) {
    static int known = -1; // computed once; a race only writes the same value twice
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return known;
}

__attribute__((target("avx2,fma")))
static inline __m256 channel(__m256i texels, int shift) {
    return _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(texels, shift), _mm256_set1_epi32(0xFF)));
}

__attribute__((target("avx2,fma")))
static inline __m256i level(__m256 value) {
    __m256i rounded = _mm256_cvttps_epi32(_mm256_add_ps(value, _mm256_set1_ps(0.5f)));
    return _mm256_min_epi32(_mm256_max_epi32(rounded, _mm256_setzero_si256()), _mm256_set1_epi32(255));
}

__attribute__((target("avx2,fma")))
void raster_draw_span(uint32_t *row, int first, int end, const uint8_t *texture, int width,
                      int height, raster_span span) {
    const int *texels = (const int *)texture;
    const __m256 lanes = _mm256_setr_ps(0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f);
    const __m256 half = _mm256_set1_ps(0.5f), zero = _mm256_setzero_ps();
    const __m256 max_x = _mm256_set1_ps((float)(width - 1)), max_y = _mm256_set1_ps((float)(height - 1));
    const __m256i last_x = _mm256_set1_epi32(width - 2), last_y = _mm256_set1_epi32(height - 2);
    const __m256i stride = _mm256_set1_epi32(width), one = _mm256_set1_epi32(1);
    const __m256 shade = _mm256_set1_ps(span.shade);
    const __m256 su = _mm256_set1_ps(span.su), sv = _mm256_set1_ps(span.sv), sw = _mm256_set1_ps(span.sw);
    const __m256 row_su = _mm256_set1_ps(span.row_su), row_sv = _mm256_set1_ps(span.row_sv);
    const __m256 row_w = _mm256_set1_ps(span.row_w);
    const __m256i opaque = _mm256_set1_epi32((int)0xFF000000u);
    const size_t row_bytes = (size_t)width * 4;
    // Prefetches stay inside the texture: the second line is one row below the first.
    const size_t last_prefetch = (size_t)(height - 2) * row_bytes;
    int x = first;
    for (; x + 8 <= end; x += 8) {
        __m256 px = _mm256_add_ps(lanes, _mm256_set1_ps((float)x));
        __m256 w = _mm256_fmadd_ps(sw, px, row_w);
        __m256 sx = _mm256_sub_ps(_mm256_div_ps(_mm256_fmadd_ps(su, px, row_su), w), half);
        __m256 sy = _mm256_sub_ps(_mm256_div_ps(_mm256_fmadd_ps(sv, px, row_sv), w), half);
        // min first: minps returns its second operand for a NaN, sending it to the far edge.
        __m256 cx = _mm256_max_ps(_mm256_min_ps(sx, max_x), zero);
        __m256 cy = _mm256_max_ps(_mm256_min_ps(sy, max_y), zero);
        __m256i x0 = _mm256_min_epi32(_mm256_cvttps_epi32(cx), last_x);
        __m256i y0 = _mm256_min_epi32(_mm256_cvttps_epi32(cy), last_y);
        __m256 fx = _mm256_sub_ps(cx, _mm256_cvtepi32_ps(x0));
        __m256 fy = _mm256_sub_ps(cy, _mm256_cvtepi32_ps(y0));
        __m256i index = _mm256_add_epi32(_mm256_mullo_epi32(y0, stride), x0);

        // The next screen row reads the texture a row or two further down, along a slant the
        // hardware prefetcher does not follow: start fetching those lines now.
        size_t ahead = ((size_t)_mm256_extract_epi32(y0, 0) + 2) * row_bytes +
                       (size_t)_mm256_extract_epi32(x0, 0) * 4 + 64;
        if (ahead > last_prefetch) ahead = last_prefetch;
        __builtin_prefetch(texture + ahead, 0, 3);
        __builtin_prefetch(texture + ahead + row_bytes, 0, 3);

        __m256i top_left = _mm256_i32gather_epi32(texels, index, 4);
        __m256i top_right = _mm256_i32gather_epi32(texels, _mm256_add_epi32(index, one), 4);
        __m256i below = _mm256_add_epi32(index, stride);
        __m256i bottom_left = _mm256_i32gather_epi32(texels, below, 4);
        __m256i bottom_right = _mm256_i32gather_epi32(texels, _mm256_add_epi32(below, one), 4);

        __m256 w11 = _mm256_mul_ps(_mm256_mul_ps(fx, fy), shade);
        __m256 w10 = _mm256_fmsub_ps(fy, shade, w11);
        __m256 w01 = _mm256_fmsub_ps(fx, shade, w11);
        __m256 w00 = _mm256_sub_ps(_mm256_sub_ps(_mm256_sub_ps(shade, w01), w10), w11);
        __m256i out = opaque;
        for (int c = 0; c < 3; c++) {
            __m256 value = _mm256_mul_ps(channel(top_left, 8 * c), w00);
            value = _mm256_fmadd_ps(channel(top_right, 8 * c), w01, value);
            value = _mm256_fmadd_ps(channel(bottom_left, 8 * c), w10, value);
            value = _mm256_fmadd_ps(channel(bottom_right, 8 * c), w11, value);
            out = _mm256_or_si256(out, _mm256_slli_epi32(level(value), 8 * c));
        }
        _mm256_storeu_si256((__m256i *)(row + x), out);
    }
    for (; x < end; x++) {
        float px = (float)x + 0.5f;
        float w = span.sw * px + span.row_w;
        row[x] = blend_one(texture, width, height, (span.su * px + span.row_su) / w - 0.5f,
                           (span.sv * px + span.row_sv) / w - 0.5f, span.shade);
    }
}

#else

int raster_span_kernel_available(void) { return 0; }

void raster_draw_span(uint32_t *row, int first, int end, const uint8_t *texture, int width,
                      int height, raster_span span) {
    for (int x = first; x < end; x++) {
        float px = (float)x + 0.5f;
        float w = span.sw * px + span.row_w;
        row[x] = blend_one(texture, width, height, (span.su * px + span.row_su) / w - 0.5f,
                           (span.sv * px + span.row_sv) / w - 0.5f, span.shade);
    }
}

#endif
