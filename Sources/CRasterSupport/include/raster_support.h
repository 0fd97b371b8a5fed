#ifndef LIVE_STORIES_RASTER_SUPPORT_H
#define LIVE_STORIES_RASTER_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// Asks the CPU to start fetching the cache line at `address` for reading, and to keep it close
/// (`__builtin_prefetch(address, 0, 3)`). Swift has no prefetch of its own; the call is inlined.
static inline void raster_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// One row's span of a face, in the form the span kernel wants. Pixel x of the row samples the
/// texture at texel position (sx, sy) = ((su·px + row_su) / w − ½, (sv·px + row_sv) / w − ½)
/// with w = sw·px + row_w and px = x + ½: texel centres at half-integers, clamped to the edges.
typedef struct {
    float su, row_su, sv, row_sv, sw, row_w;
    /// Brightness, 0-1: the blended colour is multiplied by it (cube faces darken as they turn).
    float shade;
} raster_span;

/// Whether `raster_draw_span` runs on this CPU (x86-64 with AVX2 and FMA; checked once).
int raster_span_kernel_available(void);

/// Writes pixels [first, end) of a row (`row` points at pixel 0) as opaque RGBA words: each the
/// bilinear blend of its four texels, within a level of the float reference, alpha 255. Eight
/// pixels at a time with AVX2 gathers; callers check `raster_span_kernel_available()`.
/// `texture` is `width` x `height` RGBA (both at least 2), rows `width * 4` bytes apart.
void raster_draw_span(uint32_t *row, int first, int end, const uint8_t *texture, int width,
                      int height, raster_span span);

// MARK: - A room's blurred fill (room_fill.c)

/// `out` (`columns` x `rows` RGBA) gets the mean of each `factor` x `factor` block of `pixels`
/// (`width` x `height` RGBA) from block (`first_column`, `first_row`) on, rounded half up; the
/// last blocks of a row or column may be cut short by the picture's edge. Alpha comes out 255.
void raster_box_reduce(const uint8_t *pixels, int width, int height, int factor, int first_column,
                       int columns, int first_row, int rows, uint8_t *out);

/// Where one output column (row) of a bilinear upscale reads: the texel column (row) of the
/// left (upper) texel of its pair, and the weight of the other one.
typedef struct {
    int32_t offset;
    float weight;
} raster_footprint;

typedef struct {
    int32_t x, y, width, height;
} raster_rectangle;

/// Writes the `width` x `height` bilinear upscale of `texture` (RGBA, both sides at least 2) into
/// `target` (rows `target_stride` pixels apart, pointing at the area's top left) as opaque RGBA
/// words, except inside `hole`, which is left as it was. `columns` and `rows` are each output
/// column's and row's texel pair; `across` is scratch for `texture_height * 3 * width` floats.
void raster_upscale(const uint8_t *texture, int texture_width, int texture_height,
                    const raster_footprint *columns, int width, const raster_footprint *rows, int height,
                    raster_rectangle hole, float *across, uint32_t *target, int target_stride);

// MARK: - The canvas into an encoder's picture (yuv420.c)

/// Limited-range YUV from RGB, in fixed point: `luma` in 1/32768ths of a level per level of R, G
/// and B (219/255 of the matrix's row), `blue_difference` and `red_difference` likewise (224/255).
typedef struct {
    int32_t luma[3];
    int32_t blue_difference[3];
    int32_t red_difference[3];
} raster_yuv_matrix;

/// Writes `rgba` (`width` x `height`, both even, rows `width * 4` bytes apart; alpha ignored) as
/// YUV 4:2:0 planes: `luma` (rows `luma_stride` bytes apart), `cb` and `cr` (`chroma_stride`), each
/// chroma sample from the mean of its 2x2 block, all rounded half up.
void raster_rgba_to_yuv420(const uint8_t *rgba, int width, int height, uint8_t *luma, int luma_stride,
                           uint8_t *cb, uint8_t *cr, int chroma_stride, raster_yuv_matrix matrix);

// MARK: - Two renders' frames compared (frame_compare.c)

/// The SSIM of two 8-bit planes, `width` x `height`: the mean over 8x8 windows 4 samples apart,
/// as x264 and libavfilter's ssim filter compute it (1 for identical planes). A plane under 8
/// samples a side is 1 when identical, else 0; -1 when memory runs out.
double raster_plane_ssim(const uint8_t *a, int a_stride, const uint8_t *b, int b_stride, int width, int height);

/// The sum of the squared differences of two 8-bit planes (for PSNR); rows of at most 66,000.
uint64_t raster_plane_squared_error(const uint8_t *a, int a_stride, const uint8_t *b, int b_stride, int width,
                                    int height);

/// A 64-bit hash of `count` bytes, to find the frames two renders share without comparing them
/// pixel by pixel; not for anything an adversary chooses.
uint64_t raster_hash_bytes(const uint8_t *bytes, size_t count);

/// `out` (RGBA, `pixels` long) shows where RGBA pictures `a` and `b` differ: b's luma at a
/// quarter, plus four times the largest channel difference in red; alpha 255.
void raster_difference_picture(const uint8_t *a, const uint8_t *b, size_t pixels, uint8_t *out);

#endif
