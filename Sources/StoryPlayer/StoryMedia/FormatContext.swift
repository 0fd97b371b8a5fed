internal import CFFmpeg
import Synchronization

// One owner per C resource, as in swift-system: each class frees its object in `deinit` and
// in `close()`, so a stopped player can free everything at once without waiting for ARC.
// None of these types leaves the module.

/// Owns an `AVFormatContext` opened by `avformat_open_input`; frees it with `avformat_close_input`.
final class FormatContext {
    private(set) var pointer: UnsafeMutablePointer<AVFormatContext>?
    /// FFmpeg's interrupt callback holds this gate unretained; the context holds it strongly, so
    /// the gate lives as long as FFmpeg can call it.
    private let gate: InterruptGate?
    /// The input a DASH feed gives the demuxer (`init(input:)`), closed with it.
    private let input: DASHInput?

    /// Demuxers allocated and not yet freed, process-wide: how tests and benchmarks see that a
    /// stopped player's FFmpeg objects really went away.
    static let alive = Atomic<Int>(0)

    /// `avformat_open_input` with the given options (protocol whitelist, timeouts).
    /// `name` is how messages refer to the source (a path rather than the `file:` URL opened).
    /// Blocking calls run under `gate`'s interrupt callback.
    convenience init(url: String, name: String, options: [String: String], gate: InterruptGate?) throws(MediaError) {
        try self.init(opening: url, input: nil, name: name, options: options, gate: gate)
    }

    /// `avformat_open_input` on `input` (`AVFMT_FLAG_CUSTOM_IO`), probing its format: a DASH
    /// representation's segments, read in order by this program rather than by FFmpeg's DASH
    /// demuxer (`DASHSegmentFeed`). Takes `input` over: closing this closes it.
    convenience init(input: DASHInput, name: String, options: [String: String], gate: InterruptGate) throws(MediaError) {
        try self.init(opening: "", input: input, name: name, options: options, gate: gate)
    }

    private init(opening url: String, input: DASHInput?, name: String, options: [String: String],
                 gate: InterruptGate?) throws(MediaError) {
        self.gate = gate
        self.input = input
        guard let allocated = avformat_alloc_context() else {
            input?.close()
            throw MediaError(.open, "cannot open \(name)", cause: "out of memory")
        }
        FormatContext.alive.add(1, ordering: .relaxed)
        if let gate { allocated.pointee.interrupt_callback = gate.callback }
        if let input {
            allocated.pointee.pb = input.pointer
            allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        var context: UnsafeMutablePointer<AVFormatContext>? = allocated
        var dictionary = FFmpegDictionary(options)
        let status: Int32
        if let injected = FFmpegFaults.injected(.openInput) {
            avformat_free_context(allocated)
            context = nil
            status = injected
        } else {
            // On failure avformat_open_input frees the context and sets it to NULL; a custom
            // input it leaves to its owner.
            status = avformat_open_input(&context, url, nil, &dictionary.pointer)
        }
        guard status >= 0, let context else {
            FormatContext.alive.subtract(1, ordering: .relaxed)
            // A DASH feed knows why its segments did not come, which the status cannot say.
            let failure = input?.failure
            input?.close()
            throw failure ?? MediaError(.open, "cannot open \(name)", averror: status)
        }
        pointer = context
    }

    /// Why a DASH feed stopped, when its segments could not be fetched.
    var inputFailure: MediaError? { input?.failure }
    /// Whether a DASH feed ended because its manifest says the presentation did.
    var inputEnded: Bool { input?.ended ?? false }

    /// `av_read_frame` into `packet`: 0, or a negative AVERROR code (end of file, a read error).
    func readFrame(into packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        guard let pointer else { preconditionFailure("reading after close()") }
        if let injected = FFmpegFaults.injected(.readFrame) { return injected }
        return av_read_frame(pointer, packet)
    }

    /// `avformat_close_input`: closes the demuxer and its I/O now.
    func close() {
        if pointer != nil {
            avformat_close_input(&pointer)
            FormatContext.alive.subtract(1, ordering: .relaxed)
        }
        input?.close()
    }

    deinit { close() }
}
