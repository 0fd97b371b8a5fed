import CMemoryPolicy
import Dispatch

extension ProcessMemory {
    /// Gives the heaps' free pages back to the system every `interval` until cancelled
    /// (`live_stories_give_back_free_pages`: glibc's `malloc_trim(0)`), for a recording of hours.
    ///
    /// Why: a recording's memory in use stays flat (heaptrack over a 2-minute soak with
    /// restarts: 44.3 MB in use before an ingest restart, 44.5-45.3 MB after), but each reconnect makes
    /// and frees decoders on new threads, and glibc keeps the pages freed between blocks still in
    /// use, so RSS stepped up at restarts (+9 MB in 2 minutes with four of them; one
    /// `malloc_trim(0)` given by hand at the end returned 3.8 MB). Big buffers are already mapped
    /// and unmapped on their own (`returnLargeBuffersToTheSystem`); these are the small ones'.
    /// It runs off the render thread, on a utility queue; a trim holds each heap's lock while it
    /// walks it, so a thread allocating meanwhile (the render's too) waits up to its 0.2-2 ms.
    static func giveBackFreePages(every interval: DispatchTimeInterval = .seconds(10)) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(1))
        timer.setEventHandler { _ = live_stories_give_back_free_pages() }
        timer.resume()
        return timer
    }
}
