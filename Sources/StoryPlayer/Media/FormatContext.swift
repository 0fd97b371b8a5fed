import CFFmpeg
import Synchronization

// One owner per C resource, as in swift-system: each class frees its object in `deinit` and
// in `close()`, so a stopped player can free everything at once without waiting for ARC.
// None of these types leaves the module.

/// Owns an `AVFormatContext` opened by `avformat_open_input`; frees it with `avformat_close_input`.
final class FormatContext {
    private(set) var pointer: UnsafeMutablePointer<AVFormatContext>?

    /// Demuxers allocated and not yet freed, process-wide: how tests and benchmarks see that a
    /// stopped player's FFmpeg objects really went away.
    static let alive = Atomic<Int>(0)

    /// `avformat_open_input` with the given options (protocol whitelist, timeouts).
    /// `name` is how messages refer to the source (a path rather than the `file:` URL opened).
    init(url: String, name: String, options: [String: String], interrupt: AVIOInterruptCB?) throws(MediaError) {
        var context: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        guard context != nil else { throw MediaError(.open, "cannot open \(name)", cause: "out of memory") }
        FormatContext.alive.add(1, ordering: .relaxed)
        if let interrupt { context!.pointee.interrupt_callback = interrupt }
        var dictionary = FFmpegDictionary(options)
        // On failure avformat_open_input frees the context and sets it to NULL.
        let status = avformat_open_input(&context, url, nil, &dictionary.pointer)
        guard status >= 0, let context else {
            FormatContext.alive.subtract(1, ordering: .relaxed)
            throw MediaError(.open, "cannot open \(name)", averror: status)
        }
        pointer = context
    }

    /// `avformat_close_input`: closes the demuxer and its I/O now.
    func close() {
        if pointer != nil {
            avformat_close_input(&pointer)
            FormatContext.alive.subtract(1, ordering: .relaxed)
        }
    }

    deinit { close() }
}
