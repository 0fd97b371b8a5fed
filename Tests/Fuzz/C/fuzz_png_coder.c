// libFuzzer target: the PNG coder, every path (libpng and our own deflate coder), round-tripped
// through libpng's decoder and the direct reader. Random sizes, pixels and settings; the
// decoded pixels must be the ones encoded (alpha 255 where it was dropped), and the direct
// reader's the same as libpng's. The input itself is also handed to the direct reader as a
// file, which must refuse it or read it as libpng does, never crash.
#include "story_png.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The direct reader on `png`: declines, or gives libpng's very pixels.
static void check_direct_reader(const uint8_t *png, size_t size) {
    int w = 0, h = 0;
    char error[256] = "";
    // Inputs are small; a header claiming more is refused before a buffer is made for it.
    if (!story_png_size(png, size, &w, &h) || (size_t)w * (size_t)h > (1u << 22)) return;
    size_t bytes = (size_t)w * (size_t)h * 4;
    uint8_t *direct = malloc(bytes), *reference = malloc(bytes);
    if (!direct || !reference) abort();
    if (story_png_decode_direct(png, size, direct, w, h)) {
        if (story_png_decode_with_libpng(png, size, reference, w, h, error, sizeof error) != 0) {
            fprintf(stderr, "the direct reader read a file libpng refuses: %s\n", error);
            abort();
        }
        if (memcmp(direct, reference, bytes) != 0) {
            fprintf(stderr, "the direct reader and libpng disagree\n");
            abort();
        }
    }
    free(direct);
    free(reference);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_direct_reader(data, size);
    if (size < 6) return 0;
    // The first bytes choose the settings; the rest are the pixels, repeated to fill the image.
    int width = 1 + data[0] % 96, height = 1 + data[1] % 96;
    int keep_alpha = data[2] & 1, simd = (data[2] >> 1) & 1, padding = (data[2] >> 2) & 7;
    int level = data[3] % 10;
    story_png_filter filter = (story_png_filter)(data[4] % 5);
    story_png_strategy strategy = (story_png_strategy)(data[5] % 3);
    const uint8_t *pixels = data + 6;
    size_t count = size - 6;

    size_t stride = (size_t)width * 4 + (size_t)padding * 4; // rows may sit in a wider canvas
    uint8_t *rgba = malloc(stride * (size_t)height);
    if (!rgba) return 0;
    for (size_t i = 0; i < stride * (size_t)height; i++) rgba[i] = count ? pixels[i % count] : (uint8_t)i;

    story_png_set_simd_enabled(simd);
    story_png_buffer png = {0};
    char error[256] = "";
    if (story_png_encode(rgba, width, height, stride, keep_alpha, level, filter, strategy, &png, error,
                         sizeof error) != 0) {
        fprintf(stderr, "encode failed: %s\n", error);
        abort();
    }
    int w = 0, h = 0;
    if (!story_png_size(png.bytes, png.count, &w, &h)) abort();
    uint8_t *decoded = malloc((size_t)w * (size_t)h * 4);
    if (!decoded) abort();
    if (story_png_decode(png.bytes, png.count, decoded, w, h, error, sizeof error) != 0) {
        fprintf(stderr, "libpng cannot read what we wrote: %s\n", error);
        abort();
    }
    if (w != width || h != height) abort();
    check_direct_reader(png.bytes, png.count);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            const uint8_t *in = rgba + (size_t)y * stride + (size_t)x * 4;
            const uint8_t *out = decoded + ((size_t)y * (size_t)width + (size_t)x) * 4;
            uint8_t alpha = keep_alpha ? in[3] : 255;
            if (in[0] != out[0] || in[1] != out[1] || in[2] != out[2] || alpha != out[3]) {
                fprintf(stderr, "pixel %d,%d differs (level %d filter %d strategy %d alpha %d simd %d)\n", x, y,
                        level, filter, strategy, keep_alpha, simd);
                abort();
            }
        }
    }
    free(decoded);
    story_png_buffer_free(&png);
    free(rgba);
    return 0;
}
