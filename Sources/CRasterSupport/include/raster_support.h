#ifndef LIVE_STORIES_RASTER_SUPPORT_H
#define LIVE_STORIES_RASTER_SUPPORT_H

/// Asks the CPU to start fetching the cache line at `address` for reading, and to keep it close
/// (`__builtin_prefetch(address, 0, 3)`). Swift has no prefetch of its own; the call is inlined.
static inline void raster_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
