#include <stddef.h>

#include "raster_support.h"

// A room's blurred fill is made on every frame a camera of another shape than the large area is
// large. Its two loops over pixels are here, rather than in Swift, because a debug build (the one
// the tests run) compiles Swift's pointer loops to calls per pixel: 50 ms a frame at 360x640,
// which kept a realtime room from showing 30 pictures a second. The arithmetic is Swift's, in the
// same order, so the bytes are the same in either build (RoomFillTests).

// Floats as Swift computes them: each operation rounded on its own, never fused.
#pragma clang fp contract(off)

typedef uint32_t raster_sum4 __attribute__((ext_vector_type(4)));
typedef uint8_t raster_pixel4 __attribute__((ext_vector_type(4)));

void raster_box_reduce(const uint8_t *pixels, int width, int height, int factor, int first_column,
                       int columns, int first_row, int rows, uint8_t *out) {
    // A block row is read a picture row at a time (memory in order), into one sum per block of
    // a run of at most `run` blocks; a pixel's four channels are added as one vector.
    enum { run = 256 };
    raster_sum4 sums[run];
    for (int row = 0; row < rows; row++) {
        int y0 = (first_row + row) * factor;
        int y1 = y0 + factor < height ? y0 + factor : height;
        for (int start = 0; start < columns; start += run) {
            int count = columns - start < run ? columns - start : run;
            for (int k = 0; k < count; k++) sums[k] = 0;
            for (int y = y0; y < y1; y++) {
                const uint8_t *line = pixels + (size_t)y * (size_t)width * 4;
                for (int k = 0; k < count; k++) {
                    int x0 = (first_column + start + k) * factor;
                    int x1 = x0 + factor < width ? x0 + factor : width;
                    raster_sum4 sum = 0;
                    for (int x = x0; x < x1; x++) {
                        raster_pixel4 pixel;
                        __builtin_memcpy(&pixel, line + (size_t)x * 4, 4);
                        sum += __builtin_convertvector(pixel, raster_sum4);
                    }
                    sums[k] += sum;
                }
            }
            for (int k = 0; k < count; k++) {
                int x0 = (first_column + start + k) * factor;
                int x1 = x0 + factor < width ? x0 + factor : width;
                uint32_t total = (uint32_t)((y1 - y0) * (x1 - x0));
                raster_sum4 mean = (sums[k] + total / 2) / total;
                uint8_t *o = out + ((size_t)row * (size_t)columns + (size_t)(start + k)) * 4;
                o[0] = (uint8_t)mean.x;
                o[1] = (uint8_t)mean.y;
                o[2] = (uint8_t)mean.z;
                o[3] = 255;
            }
        }
    }
}

static inline uint32_t pack_level(float value) {
    value = value + 0.5f;
    value = value > 0 ? value : 0;
    value = value < 255 ? value : 255;
    return (uint32_t)value;
}

void raster_upscale(const uint8_t *texture, int texture_width, int texture_height,
                    const raster_footprint *columns, int width, const raster_footprint *rows, int height,
                    raster_rectangle hole, float *across, uint32_t *target, int target_stride) {
    // Each texel row blended across, per column: R, G and B apart.
    for (int x = 0; x < width; x++) {
        const uint8_t *pair = texture + (size_t)columns[x].offset * 4;
        float fx = columns[x].weight;
        for (int row = 0; row < texture_height; row++, pair += (size_t)texture_width * 4) {
            for (int c = 0; c < 3; c++) {
                float a = (float)pair[c], b = (float)pair[4 + c];
                across[((size_t)row * 3 + (size_t)c) * (size_t)width + (size_t)x] = a + (b - a) * fx;
            }
        }
    }
    int left_end = hole.x < 0 ? 0 : (hole.x < width ? hole.x : width);
    int right_start = hole.x + hole.width < 0 ? 0 : (hole.x + hole.width < width ? hole.x + hole.width : width);
    for (int y = 0; y < height; y++) {
        const float *upper = across + (size_t)rows[y].offset * 3 * (size_t)width;
        const float *lower = upper + 3 * (size_t)width;
        float fy = rows[y].weight;
        uint32_t *line = target + (size_t)y * (size_t)target_stride;
        int in_hole = y >= hole.y && y < hole.y + hole.height;
        for (int part = 0; part < (in_hole ? 2 : 1); part++) {
            int first = in_hole && part == 1 ? right_start : 0;
            int end = in_hole && part == 0 ? left_end : width;
            for (int x = first; x < end; x++) {
                float r = upper[x] + (lower[x] - upper[x]) * fy;
                float g = upper[width + x] + (lower[width + x] - upper[width + x]) * fy;
                float b = upper[2 * width + x] + (lower[2 * width + x] - upper[2 * width + x]) * fy;
                line[x] = pack_level(r) | pack_level(g) << 8 | pack_level(b) << 16 | 0xFF000000u;
            }
        }
    }
}
