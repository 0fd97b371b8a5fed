#include "story_png.h"
#include "story_png_fast.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

const char *story_png_libpng_version(void) {
    return png_get_libpng_ver(NULL);
}

// MARK: - Error capture

typedef struct {
    char *message;
    size_t size;
} error_sink;

static void on_png_error(png_structp png, png_const_charp message) {
    error_sink *sink = (error_sink *)png_get_error_ptr(png);
    if (sink && sink->message && sink->size > 0) {
        snprintf(sink->message, sink->size, "%s", message);
    }
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message; // Warnings do not fail an encode; they are not worth a user's attention.
}

static void set_error(char *error, size_t size, const char *message) {
    if (error && size > 0) snprintf(error, size, "%s", message);
}

// MARK: - Writing into memory

static void append_bytes(png_structp png, png_bytep data, png_size_t length) {
    story_png_buffer *buffer = (story_png_buffer *)png_get_io_ptr(png);
    if (buffer->count + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 65536;
        while (capacity < buffer->count + length) capacity *= 2;
        uint8_t *grown = realloc(buffer->bytes, capacity);
        if (!grown) png_error(png, "out of memory while encoding PNG");
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->count, data, length);
    buffer->count += length;
}

static void flush_nothing(png_structp png) { (void)png; }

static int filter_flags(story_png_filter filter) {
    switch (filter) {
    case STORY_PNG_FILTER_NONE: return PNG_FILTER_NONE;
    case STORY_PNG_FILTER_SUB: return PNG_FILTER_SUB;
    case STORY_PNG_FILTER_UP: return PNG_FILTER_UP;
    case STORY_PNG_FILTER_PAETH: return PNG_FILTER_PAETH;
    case STORY_PNG_FILTER_ADAPTIVE: return PNG_ALL_FILTERS;
    }
    return PNG_FILTER_UP;
}

static int zlib_strategy(story_png_strategy strategy) {
    switch (strategy) {
    case STORY_PNG_STRATEGY_DEFAULT: return Z_DEFAULT_STRATEGY;
    case STORY_PNG_STRATEGY_RLE: return Z_RLE;
    case STORY_PNG_STRATEGY_HUFFMAN: return Z_HUFFMAN_ONLY;
    }
    return Z_RLE;
}

int story_png_encode(const uint8_t *rgba, int width, int height, size_t stride,
                     int keep_alpha, int level, story_png_filter filter,
                     story_png_strategy strategy, story_png_buffer *out,
                     char *error, size_t error_size) {
    if (!rgba || width <= 0 || height <= 0 || !out) {
        set_error(error, error_size, "invalid image for PNG encoding");
        return 1;
    }
    if (story_png_fast_supports(level, filter, strategy)) {
        return story_png_encode_fast(rgba, width, height, stride, keep_alpha, filter, strategy,
                                     out, error, error_size);
    }
    error_sink sink = {error, error_size};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_png_error, on_png_warning);
    if (!png) {
        set_error(error, error_size, "png_create_write_struct failed");
        return 1;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        set_error(error, error_size, "png_create_info_struct failed");
        return 1;
    }
    // Only `volatile` locals keep their value across the longjmp back here.
    png_bytepp volatile rows = malloc(sizeof(png_bytep) * (size_t)height);
    if (!rows) {
        png_destroy_write_struct(&png, &info);
        set_error(error, error_size, "out of memory while encoding PNG");
        return 1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(rows);
        story_png_buffer_free(out);
        return 1;
    }
    png_set_write_fn(png, out, append_bytes, flush_nothing);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
                 keep_alpha ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, level);
    png_set_compression_strategy(png, zlib_strategy(strategy));
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filter_flags(filter));
    // Fewer, larger IDAT chunks: less per-chunk overhead and fewer zlib flushes.
    png_set_compression_buffer_size(png, 1 << 20);
    png_write_info(png, info);
    if (!keep_alpha) {
        // The rows stay RGBA in memory; libpng strips the 4th byte as it writes.
        png_set_filler(png, 0, PNG_FILLER_AFTER);
    }
    for (int y = 0; y < height; y++) rows[y] = (png_bytep)(rgba + (size_t)y * stride);
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    return 0;
}

void story_png_buffer_free(story_png_buffer *buffer) {
    if (!buffer) return;
    free(buffer->bytes);
    buffer->bytes = NULL;
    buffer->count = 0;
    buffer->capacity = 0;
}

// MARK: - Vector paths

// Read and written with relaxed atomics: frame writers on other threads read it while a test may set it.
static int simd_enabled = 1;

int story_png_simd_enabled(void) { return __atomic_load_n(&simd_enabled, __ATOMIC_RELAXED); }

void story_png_set_simd_enabled(int enabled) { __atomic_store_n(&simd_enabled, enabled != 0, __ATOMIC_RELAXED); }

// MARK: - Reading

int story_png_decode(const uint8_t *png, size_t size, uint8_t *rgba, int width, int height,
                     char *error, size_t error_size) {
    if (rgba && story_png_direct_read_enabled() && story_png_decode_direct(png, size, rgba, width, height)) return 0;
    return story_png_decode_with_libpng(png, size, rgba, width, height, error, error_size);
}

// Read and written with relaxed atomics, as `simd_enabled`: a test may turn it off while frames are read.
static int direct_read_enabled = 1;

int story_png_direct_read_enabled(void) { return __atomic_load_n(&direct_read_enabled, __ATOMIC_RELAXED); }

void story_png_set_direct_read_enabled(int enabled) {
    __atomic_store_n(&direct_read_enabled, enabled != 0, __ATOMIC_RELAXED);
}

int story_png_decode_with_libpng(const uint8_t *png, size_t size, uint8_t *rgba, int width, int height,
                                 char *error, size_t error_size) {
    // The simplified API catches libpng's longjmp internally and reports through `image.message`.
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, png, size)) {
        set_error(error, error_size, image.message);
        return 1;
    }
    if (!rgba || image.width != (png_uint_32)width || image.height != (png_uint_32)height) {
        png_image_free(&image);
        set_error(error, error_size, "the picture's size is not the one its header gave");
        return 1;
    }
    image.format = PNG_FORMAT_RGBA;
    if (!png_image_finish_read(&image, NULL, rgba, 0, NULL)) {
        set_error(error, error_size, image.message);
        png_image_free(&image);
        return 1;
    }
    return 0;
}
