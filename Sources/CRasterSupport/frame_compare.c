#include <stdlib.h>
#include <string.h>

#include "raster_support.h"

// SSIM as x264 and libavfilter's ssim filter compute it, so that figures read beside theirs: sums
// over 4x4 blocks, each window of 2x2 blocks (8x8 pixels, windows 4 apart) scored on its own, the
// plane's figure the mean of its windows. Written here from the published formula (Wang et al.
// 2004, the constants for 8-bit samples); a debug build's Swift would take seconds a frame.

typedef struct {
    int64_t sum_a, sum_b, sum_squares, sum_products;
} block_sums;

static void block_row(const uint8_t *a, int a_stride, const uint8_t *b, int b_stride, int blocks, block_sums *out) {
    for (int k = 0; k < blocks; k++) {
        block_sums s = {0, 0, 0, 0};
        for (int y = 0; y < 4; y++) {
            const uint8_t *pa = a + (size_t)y * (size_t)a_stride + 4 * k, *pb = b + (size_t)y * (size_t)b_stride + 4 * k;
            for (int x = 0; x < 4; x++) {
                int va = pa[x], vb = pb[x];
                s.sum_a += va;
                s.sum_b += vb;
                s.sum_squares += va * va + vb * vb;
                s.sum_products += va * vb;
            }
        }
        out[k] = s;
    }
}

static double window_ssim(block_sums s) {
    // 64 samples a window; the constants are (0.01 * 255)^2 and (0.03 * 255)^2 scaled to sums,
    // rounded to whole numbers as x264 and libavfilter round them.
    const double c1 = 416, c2 = 235963;
    double fa = (double)s.sum_a, fb = (double)s.sum_b;
    double variances = (double)s.sum_squares * 64 - fa * fa - fb * fb;
    double covariance = (double)s.sum_products * 64 - fa * fb;
    return (2 * fa * fb + c1) * (2 * covariance + c2) / ((fa * fa + fb * fb + c1) * (variances + c2));
}

double raster_plane_ssim(const uint8_t *a, int a_stride, const uint8_t *b, int b_stride, int width, int height) {
    int blocks = width / 4, block_rows = height / 4;
    if (blocks < 2 || block_rows < 2) return raster_plane_squared_error(a, a_stride, b, b_stride, width, height) == 0 ? 1 : 0;
    block_sums *rows = malloc(sizeof(block_sums) * (size_t)blocks * 2);
    if (!rows) return -1;
    block_sums *upper = rows, *lower = rows + blocks;
    double total = 0;
    block_row(a, a_stride, b, b_stride, blocks, upper);
    for (int row = 1; row < block_rows; row++) {
        block_row(a + (size_t)row * 4 * (size_t)a_stride, a_stride, b + (size_t)row * 4 * (size_t)b_stride, b_stride,
                  blocks, lower);
        for (int k = 0; k + 1 < blocks; k++) {
            block_sums w = {
                upper[k].sum_a + upper[k + 1].sum_a + lower[k].sum_a + lower[k + 1].sum_a,
                upper[k].sum_b + upper[k + 1].sum_b + lower[k].sum_b + lower[k + 1].sum_b,
                upper[k].sum_squares + upper[k + 1].sum_squares + lower[k].sum_squares + lower[k + 1].sum_squares,
                upper[k].sum_products + upper[k + 1].sum_products + lower[k].sum_products + lower[k + 1].sum_products,
            };
            total += window_ssim(w);
        }
        block_sums *swap = upper;
        upper = lower;
        lower = swap;
    }
    free(rows);
    return total / ((double)(blocks - 1) * (double)(block_rows - 1));
}

uint64_t raster_plane_squared_error(const uint8_t *a, int a_stride, const uint8_t *b, int b_stride, int width,
                                    int height) {
    uint64_t total = 0;
    for (int y = 0; y < height; y++) {
        const uint8_t *pa = a + (size_t)y * (size_t)a_stride, *pb = b + (size_t)y * (size_t)b_stride;
        uint32_t row = 0; // at most 65025 a sample: a row of 66,000 samples fits
        for (int x = 0; x < width; x++) {
            int d = pa[x] - pb[x];
            row += (uint32_t)(d * d);
        }
        total += row;
    }
    return total;
}

uint64_t raster_hash_bytes(const uint8_t *bytes, size_t count) {
    // 64-bit words folded with a multiply and a rotation (the mixing of FNV-1a, a word at a
    // time): enough to tell two frames apart; not for anything an adversary chooses.
    uint64_t hash = 0xcbf29ce484222325ULL ^ (uint64_t)count;
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        uint64_t word;
        memcpy(&word, bytes + i, 8);
        hash = (hash ^ word) * 0x100000001b3ULL;
        hash ^= hash >> 29;
    }
    for (; i < count; i++) hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
    return hash ^ (hash >> 32);
}

void raster_difference_picture(const uint8_t *a, const uint8_t *b, size_t pixels, uint8_t *out) {
    for (size_t i = 0; i < pixels; i++) {
        const uint8_t *pa = a + 4 * i, *pb = b + 4 * i;
        int difference = 0;
        for (int c = 0; c < 3; c++) {
            int d = pa[c] > pb[c] ? pa[c] - pb[c] : pb[c] - pa[c];
            difference = d > difference ? d : difference;
        }
        // B's luma at a quarter, for where things are; the difference four times over, in red.
        int grey = (54 * pb[0] + 183 * pb[1] + 19 * pb[2]) >> 10;
        int red = grey + 4 * difference;
        out[4 * i] = (uint8_t)(red > 255 ? 255 : red);
        out[4 * i + 1] = (uint8_t)grey;
        out[4 * i + 2] = (uint8_t)grey;
        out[4 * i + 3] = 255;
    }
}
