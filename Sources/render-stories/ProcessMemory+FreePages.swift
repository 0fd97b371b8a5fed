import CMemoryPolicy
import Foundation

extension ProcessMemory {
    /// Gives the heaps' free pages back to the system every `interval` seconds until stopped
    /// (`live_stories_give_back_free_pages`: glibc's `malloc_trim(0)`), for a recording of hours.
    ///
    /// Why: a recording's memory in use stays flat (heaptrack over a 2-minute soak with
    /// restarts: 44.3 MB in use before an ingest restart, 44.5-45.3 MB after), but each reconnect
    /// makes and frees decoders on new threads, and glibc keeps the pages freed between blocks
    /// still in use, so RSS stepped up at restarts (+9 MB in 2 minutes with four of them; one
    /// `malloc_trim(0)` given by hand at the end returned 3.8 MB). Big buffers are already mapped
    /// and unmapped on their own (`returnLargeBuffersToTheSystem`); these are the small ones'.
    ///
    /// A thread of its own, started before the recording's first frame: a timer on a dispatch
    /// queue woke a pool thread that stayed, and the soak's thread count rose by one (23 to 24).
    /// A trim holds each heap's lock while it walks it, so a thread allocating meanwhile (the
    /// render's too) waits up to its 0.2-2 ms.
    final class FreePageReturn: Sendable {
        private let stopRequested = DispatchSemaphore(value: 0)
        private let stopped = DispatchSemaphore(value: 0)

        init(every interval: Double = 10) {
            let thread = Thread { [stopRequested, stopped] in
                while stopRequested.wait(timeout: .now() + interval) == .timedOut {
                    _ = live_stories_give_back_free_pages()
                }
                stopped.signal()
            }
            thread.name = "free pages"
            thread.start()
        }

        /// Ends the thread; returns once it has.
        func stop() {
            stopRequested.signal()
            stopped.wait()
        }
    }
}
