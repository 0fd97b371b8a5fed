#ifndef LIVE_STORIES_RASTER_SUPPORT_H
#define LIVE_STORIES_RASTER_SUPPORT_H

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

#endif
