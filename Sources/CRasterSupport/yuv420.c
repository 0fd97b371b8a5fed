#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "raster_support.h"

// Every frame of a video output goes from the canvas (RGBA) to the encoder's YUV 4:2:0. swscale's
// bilinear conversion, which makes each chroma sample the mean of its 2x2 block as this does, took
// 2.5 ms a 720x1280 frame here (3.7 ms inside a recording: a fifth of its CPU after x264); its
// point conversion, 1.5 ms, takes every other row's chroma and loses a one-pixel coloured line.
// Eight pixels at a time in vector types: 0.6 ms optimised, 0.4 ms with AVX2, and 1.5 ms even at
// -O0, the build the tests run. Integer arithmetic, so every path writes the same bytes.

typedef int32_t yuv_i8 __attribute__((ext_vector_type(8)));
typedef int32_t yuv_i4 __attribute__((ext_vector_type(4)));
typedef uint8_t yuv_b32 __attribute__((ext_vector_type(32)));
typedef uint8_t yuv_b8 __attribute__((ext_vector_type(8)));
typedef uint8_t yuv_b4 __attribute__((ext_vector_type(4)));

// Y has 15 fractional bits and 16 added; Cb and Cr are sums of four pixels, so 17, and 128 added;
// both rounded half up.
enum { luma_shift = 15, chroma_shift = 17 };
#define LUMA_BIAS ((16 << luma_shift) + (1 << (luma_shift - 1)))
#define CHROMA_BIAS ((128 << chroma_shift) + (1 << (chroma_shift - 1)))

__attribute__((always_inline))
static inline void eight_pixels(const uint8_t *rgba, yuv_i8 *r, yuv_i8 *g, yuv_i8 *b) {
    yuv_b32 v;
    memcpy(&v, rgba, 32);
    *r = __builtin_convertvector(__builtin_shufflevector(v, v, 0, 4, 8, 12, 16, 20, 24, 28), yuv_i8);
    *g = __builtin_convertvector(__builtin_shufflevector(v, v, 1, 5, 9, 13, 17, 21, 25, 29), yuv_i8);
    *b = __builtin_convertvector(__builtin_shufflevector(v, v, 2, 6, 10, 14, 18, 22, 26, 30), yuv_i8);
}

// Neighbours added: eight lanes into four (a macro: a vector argument of a function built without
// AVX changes its calling convention, which the compiler warns of).
#define PAIR_SUMS(v) (__builtin_shufflevector((v), (v), 0, 2, 4, 6) + __builtin_shufflevector((v), (v), 1, 3, 5, 7))

__attribute__((always_inline))
static inline uint8_t luma_of(const uint8_t *p, const raster_yuv_matrix *m) {
    return (uint8_t)((m->luma[0] * p[0] + m->luma[1] * p[1] + m->luma[2] * p[2] + LUMA_BIAS) >> luma_shift);
}

// Two rows of the picture into a row of each plane of chroma and two of luma.
__attribute__((always_inline))
static inline void row_pair(const uint8_t *top, const uint8_t *bottom, int width, uint8_t *luma_top,
                            uint8_t *luma_bottom, uint8_t *cb, uint8_t *cr, const raster_yuv_matrix *m) {
    int x = 0;
    for (; x + 8 <= width; x += 8) {
        yuv_i8 rt, gt, bt, rb, gb, bb;
        eight_pixels(top + 4 * x, &rt, &gt, &bt);
        eight_pixels(bottom + 4 * x, &rb, &gb, &bb);
        yuv_b8 y = __builtin_convertvector((m->luma[0] * rt + m->luma[1] * gt + m->luma[2] * bt + LUMA_BIAS) >> luma_shift, yuv_b8);
        memcpy(luma_top + x, &y, 8);
        y = __builtin_convertvector((m->luma[0] * rb + m->luma[1] * gb + m->luma[2] * bb + LUMA_BIAS) >> luma_shift, yuv_b8);
        memcpy(luma_bottom + x, &y, 8);
        yuv_i8 rs = rt + rb, gs = gt + gb, bs = bt + bb;
        yuv_i4 r = PAIR_SUMS(rs), g = PAIR_SUMS(gs), b = PAIR_SUMS(bs);
        yuv_b4 c = __builtin_convertvector((m->blue_difference[0] * r + m->blue_difference[1] * g + m->blue_difference[2] * b + CHROMA_BIAS) >> chroma_shift, yuv_b4);
        memcpy(cb + x / 2, &c, 4);
        c = __builtin_convertvector((m->red_difference[0] * r + m->red_difference[1] * g + m->red_difference[2] * b + CHROMA_BIAS) >> chroma_shift, yuv_b4);
        memcpy(cr + x / 2, &c, 4);
    }
    for (; x < width; x += 2) {
        const uint8_t *p = top + 4 * x, *q = bottom + 4 * x;
        luma_top[x] = luma_of(p, m);
        luma_top[x + 1] = luma_of(p + 4, m);
        luma_bottom[x] = luma_of(q, m);
        luma_bottom[x + 1] = luma_of(q + 4, m);
        int r = p[0] + p[4] + q[0] + q[4], g = p[1] + p[5] + q[1] + q[5], b = p[2] + p[6] + q[2] + q[6];
        cb[x / 2] = (uint8_t)((m->blue_difference[0] * r + m->blue_difference[1] * g + m->blue_difference[2] * b + CHROMA_BIAS) >> chroma_shift);
        cr[x / 2] = (uint8_t)((m->red_difference[0] * r + m->red_difference[1] * g + m->red_difference[2] * b + CHROMA_BIAS) >> chroma_shift);
    }
}

__attribute__((always_inline))
static inline void convert(const uint8_t *rgba, int width, int height, uint8_t *luma, int luma_stride,
                           uint8_t *cb, uint8_t *cr, int chroma_stride, const raster_yuv_matrix *m) {
    for (int row = 0; row < height; row += 2) {
        const uint8_t *top = rgba + (size_t)row * (size_t)width * 4;
        uint8_t *luma_top = luma + (size_t)row * (size_t)luma_stride;
        size_t chroma_row = (size_t)(row / 2) * (size_t)chroma_stride;
        row_pair(top, top + (size_t)width * 4, width, luma_top, luma_top + luma_stride, cb + chroma_row,
                 cr + chroma_row, m);
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// The same loops compiled for AVX2 (eight 32-bit lanes in one register), chosen at run time.
__attribute__((target("avx2")))
static void convert_avx2(const uint8_t *rgba, int width, int height, uint8_t *luma, int luma_stride,
                         uint8_t *cb, uint8_t *cr, int chroma_stride, const raster_yuv_matrix *m) {
    convert(rgba, width, height, luma, luma_stride, cb, cr, chroma_stride, m);
}

static int has_avx2(void) {
    // Computed once; threads that race here write the same value (atomic, so that
    // ThreadSanitizer sees no race in the compare's side-by-side measuring).
    static _Atomic int known = -1;
    int value = atomic_load_explicit(&known, memory_order_relaxed);
    if (value < 0) {
        __builtin_cpu_init();
        value = __builtin_cpu_supports("avx2");
        atomic_store_explicit(&known, value, memory_order_relaxed);
    }
    return value;
}
#endif

void raster_rgba_to_yuv420(const uint8_t *rgba, int width, int height, uint8_t *luma, int luma_stride,
                           uint8_t *cb, uint8_t *cr, int chroma_stride, raster_yuv_matrix matrix) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (has_avx2()) {
        convert_avx2(rgba, width, height, luma, luma_stride, cb, cr, chroma_stride, &matrix);
        return;
    }
#endif
    convert(rgba, width, height, luma, luma_stride, cb, cr, chroma_stride, &matrix);
}
