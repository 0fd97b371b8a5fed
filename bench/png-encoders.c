// PNG encoders side by side on the same raw frames, one core (bench/png-encoders.sh builds it).
//   png-encoders WIDTH HEIGHT FRAMES.rgba [RUNS]
// FRAMES.rgba is WIDTH*HEIGHT*4 bytes per frame, opaque RGBA. Every encoder writes RGB PNGs.
// Each run encodes every frame once with each encoder in turn (alternated, so a busy neighbour
// slows all of them alike); the figures are the medians over runs, of the encoding thread's CPU
// time (CLOCK_THREAD_CPUTIME_ID: on a shared machine, the time other processes hold the core is
// not charged to the encoder) and of the wall time. Built with -DHAVE_FPNGE it
// also runs fpnge's levels 1-5, from a source folder the user supplies (never vendored here).
#include "story_png.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_FPNGE
#include "fpnge.h"
#endif

static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { MAX_ENCODERS = 8, MAX_RUNS = 64 };

typedef struct {
    char name[48];
    int fpnge_level; // 0: ours
    double seconds[MAX_RUNS]; // CPU
    double wall[MAX_RUNS];
    size_t bytes;
} encoder;

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s WIDTH HEIGHT FRAMES.rgba [RUNS]\n", argv[0]);
        return 2;
    }
    int width = atoi(argv[1]), height = atoi(argv[2]);
    int runs = argc > 4 ? atoi(argv[4]) : 5;
    if (width <= 0 || height <= 0 || runs <= 0 || runs > MAX_RUNS) return 2;
    FILE *file = fopen(argv[3], "rb");
    if (!file) {
        perror(argv[3]);
        return 1;
    }
    size_t frame_bytes = (size_t)width * height * 4;
    fseek(file, 0, SEEK_END);
    int frames = (int)(ftell(file) / (long)frame_bytes);
    fseek(file, 0, SEEK_SET);
    uint8_t *rgba = malloc(frame_bytes * (size_t)frames);
    if (!rgba || frames == 0 || fread(rgba, frame_bytes, (size_t)frames, file) != (size_t)frames) return 1;
    fclose(file);
    // fpnge takes packed RGB for RGB output; the conversion is not timed.
    uint8_t *rgb = malloc((size_t)width * height * 3 * (size_t)frames);
    for (size_t p = 0; p < (size_t)width * height * (size_t)frames; p++) memcpy(rgb + 3 * p, rgba + 4 * p, 3);

    encoder encoders[MAX_ENCODERS];
    int count = 0;
    encoders[count++] = (encoder){.name = "live-stories level 1 (default)"};
#ifdef HAVE_FPNGE
    for (int level = 1; level <= 5; level++) {
        encoder e = {.fpnge_level = level};
        snprintf(e.name, sizeof e.name, "fpnge level %d", level);
        encoders[count++] = e;
    }
    size_t capacity = FPNGEOutputAllocSize(1, 3, (size_t)width, (size_t)height);
    uint8_t *output = malloc(capacity);
#endif
    story_png_buffer buffer = {0};
    for (int run = 0; run < runs; run++) {
        for (int e = 0; e < count; e++) {
            size_t bytes = 0;
            double start = now(CLOCK_THREAD_CPUTIME_ID), wall_start = now(CLOCK_MONOTONIC);
            for (int f = 0; f < frames; f++) {
                if (encoders[e].fpnge_level == 0) {
                    char error[256];
                    buffer.count = 0;
                    if (story_png_encode(rgba + frame_bytes * (size_t)f, width, height, (size_t)width * 4, 0, 1,
                                         STORY_PNG_FILTER_UP, STORY_PNG_STRATEGY_RLE, &buffer, error, sizeof error)) {
                        fprintf(stderr, "encode failed: %s\n", error);
                        return 1;
                    }
                    bytes += buffer.count;
                }
#ifdef HAVE_FPNGE
                else {
                    struct FPNGEOptions options;
                    FPNGEFillOptions(&options, encoders[e].fpnge_level, FPNGE_CICP_NONE);
                    bytes += FPNGEEncode(1, 3, rgb + (size_t)width * height * 3 * (size_t)f, (size_t)width,
                                         (size_t)width * 3, (size_t)height, output, &options);
                }
#endif
            }
            encoders[e].seconds[run] = now(CLOCK_THREAD_CPUTIME_ID) - start;
            encoders[e].wall[run] = now(CLOCK_MONOTONIC) - wall_start;
            encoders[e].bytes = bytes;
        }
    }
    double megapixels = (double)width * height * frames / 1e6, raw = (double)width * height * 3 * frames;
    printf("%dx%d, %d frames, RGB output, medians of %d alternated runs\n", width, height, frames, runs);
    for (int e = 0; e < count; e++) {
        qsort(encoders[e].seconds, (size_t)runs, sizeof(double), compare);
        qsort(encoders[e].wall, (size_t)runs, sizeof(double), compare);
        double median = encoders[e].seconds[runs / 2], wall = encoders[e].wall[runs / 2];
        printf("  %-32s %7.1f MP/s CPU (%6.2f ms/frame)  %7.1f MP/s wall  %10zu bytes  %.4f of raw RGB\n",
               encoders[e].name, megapixels / median, median * 1e3 / frames, megapixels / wall, encoders[e].bytes,
               (double)encoders[e].bytes / raw);
    }
    story_png_buffer_free(&buffer);
    free(rgba);
    free(rgb);
    return 0;
}
