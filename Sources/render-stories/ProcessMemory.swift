import CMemoryPolicy

/// Process-wide memory policy for a render. A library should not set it on its own, so the
/// command line calls it once at start.
enum ProcessMemory {
    /// Serves every allocation of 128 KiB or more (canvases, pictures, PNG buffers, packets)
    /// with its own mapping, returned to the system when freed (`live_stories_map_allocations_from`:
    /// glibc's `mallopt(M_MMAP_THRESHOLD)` and `mallopt(M_TRIM_THRESHOLD)`).
    ///
    /// 128 KiB is glibc's own starting threshold, but glibc raises it the first time such a block
    /// is freed, and later 8 MB pictures then come from per-thread heaps that keep freed space:
    /// at 1080x1920 with 20 stories that was ~12 MB of peak RSS beyond live data. The renderer
    /// reuses its own big buffers (pictures, canvases, PNG buffers) from frame to frame, so the
    /// mappings left are mostly decoders' frame pools, made and freed with each play (about
    /// 1000 in a 315-frame render of 20 stories, with their posters).
    static func returnLargeBuffersToTheSystem() {
        _ = live_stories_map_allocations_from(1 << 17)
    }

    /// Keeps freed blocks below 32 MiB (glibc's largest threshold) in the heap for the next
    /// allocation (`live_stories_map_allocations_from(32 << 20)`). `compare` reads thousands of
    /// frames a batch at a time, each a fresh picture the size of the last: with every picture a
    /// mapping of its own, a fifth of its time went to the kernel mapping, zeroing and unmapping
    /// them (6.4 s against 5.0 s for two 300-frame 720x1280 renders). Its heap holds a batch.
    static func reuseFreedBuffers() {
        _ = live_stories_map_allocations_from(32 << 20)
    }
}
