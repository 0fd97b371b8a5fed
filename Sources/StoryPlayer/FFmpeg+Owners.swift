import CFFmpeg
import Synchronization

// One owner per C resource, as in swift-system: each class frees its object in `deinit` and
// in `close()`, so a stopped player can free everything at once without waiting for ARC.
// None of these types leaves the module.

// MARK: - Demuxer

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

// MARK: - Decoder

/// Owns an `AVCodecContext`; frees it with `avcodec_free_context`.
final class CodecContext {
    private(set) var pointer: UnsafeMutablePointer<AVCodecContext>?

    /// `avcodec_alloc_context3` + `avcodec_parameters_to_context` + `avcodec_open2`.
    init(parameters: UnsafePointer<AVCodecParameters>, maxPixels: Int, threads: Int) throws(MediaError) {
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            throw MediaError(.unsupportedCodec, "no decoder for codec \(name)")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(.decoderSetup, "cannot allocate a decoder", cause: "out of memory")
        }
        pointer = context
        var status = avcodec_parameters_to_context(context, parameters)
        guard status >= 0 else { throw MediaError(.decoderSetup, "cannot configure the decoder", averror: status) }
        // Refuse absurd frame sizes in the decoder itself, before it allocates pictures.
        context.pointee.max_pixels = Int64(maxPixels)
        context.pointee.thread_count = Int32(threads)
        status = avcodec_open2(context, codec, nil)
        guard status >= 0 else { throw MediaError(.decoderSetup, "cannot open the decoder", averror: status) }
    }

    /// An encoder's context (`avcodec_alloc_context3`), configured and opened by the caller.
    init(encoder: UnsafePointer<AVCodec>) throws(MediaError) {
        guard let context = avcodec_alloc_context3(encoder) else {
            throw MediaError(.decoderSetup, "cannot allocate an encoder", cause: "out of memory")
        }
        pointer = context
    }

    func close() {
        if pointer != nil { avcodec_free_context(&pointer) }
    }

    deinit { close() }
}

// MARK: - Frames and packets

/// Owns an `AVFrame` (`av_frame_alloc` / `av_frame_free`).
final class Frame {
    private(set) var pointer: UnsafeMutablePointer<AVFrame>?

    init() {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = frame
    }

    func close() {
        if pointer != nil { av_frame_free(&pointer) }
    }

    deinit { close() }
}

/// Owns an `AVPacket` (`av_packet_alloc` / `av_packet_free`).
final class Packet {
    private(set) var pointer: UnsafeMutablePointer<AVPacket>?

    init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = packet
    }

    func close() {
        if pointer != nil { av_packet_free(&pointer) }
    }

    deinit { close() }
}

// MARK: - Scaler

/// Owns a `SwsContext` (`sws_getCachedContext` / `sws_freeContext`).
final class ScaleContext {
    private(set) var pointer: OpaquePointer?

    init() {}

    /// Returns a context for this conversion, reusing the current one when the parameters match.
    func context(sourceWidth: Int32, sourceHeight: Int32, sourceFormat: AVPixelFormat,
                 width: Int32, height: Int32, targetFormat: AVPixelFormat = AV_PIX_FMT_RGBA) -> OpaquePointer? {
        // Plain bilinear: SWS_ACCURATE_RND and full-chroma interpolation cost 30× more for
        // differences below one level.
        pointer = sws_getCachedContext(pointer, sourceWidth, sourceHeight, sourceFormat,
                                       width, height, targetFormat, SWS_BILINEAR, nil, nil, nil)
        return pointer
    }

    func close() {
        if let pointer { sws_freeContext(pointer) }
        pointer = nil
    }

    deinit { close() }
}

// MARK: - Options

/// An `AVDictionary` built from Swift strings, freed with `av_dict_free`.
struct FFmpegDictionary: ~Copyable {
    var pointer: OpaquePointer?

    init(_ entries: [String: String]) {
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            av_dict_set(&pointer, key, value, 0)
        }
    }

    deinit {
        var owned = pointer
        av_dict_free(&owned)
    }
}

// MARK: - Resampler

/// Owns a `SwrContext` (`swr_alloc_set_opts2` + `swr_init` / `swr_free`).
final class ResampleContext {
    private(set) var pointer: OpaquePointer?

    /// Converts from the decoder's layout, format and rate to interleaved float stereo at `rate`.
    init(from codec: UnsafeMutablePointer<AVCodecContext>, rate: Int32) throws(MediaError) {
        var output = AVChannelLayout()
        av_channel_layout_default(&output, 2)
        var input = codec.pointee.ch_layout
        if input.nb_channels == 0 { av_channel_layout_default(&input, 1) }
        var context: OpaquePointer?
        var status = swr_alloc_set_opts2(&context, &output, AV_SAMPLE_FMT_FLT, rate, &input, codec.pointee.sample_fmt,
                                         codec.pointee.sample_rate, 0, nil)
        guard status >= 0, let context else { throw MediaError(.decoderSetup, "cannot set up the resampler", averror: status) }
        pointer = context
        // A mono story plays at its own level on both channels; swresample's own upmix of mono
        // puts it at -3 dB on each side.
        if input.nb_channels == 1 {
            let unity: [Double] = [1, 1]
            status = swr_set_matrix(context, unity, 1)
            guard status >= 0 else { throw MediaError(.decoderSetup, "cannot set the mono upmix", averror: status) }
        }
        status = swr_init(context)
        guard status >= 0 else { throw MediaError(.decoderSetup, "cannot start the resampler", averror: status) }
    }

    func close() {
        if pointer != nil { swr_free(&pointer) }
    }

    deinit { close() }
}
