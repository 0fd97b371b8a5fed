import Synchronization

/// The calls a test can make fail (`FFmpegFaults`), one case per C function (or per pair that
/// fails together), named after what it does. Each owner method that makes the call asks
/// `FFmpegFaults.injected(_:)` first.
enum FFmpegCall: Sendable, Hashable, CaseIterable {
    /// Demuxing: `avformat_open_input`, `avformat_find_stream_info`, `av_find_best_stream`,
    /// `av_read_frame`, `avformat_seek_file`.
    case openInput, findStreamInfo, findBestStream, readFrame, seek
    /// Decoding: `avcodec_alloc_context3` + `avcodec_parameters_to_context` (`configureCodec`),
    /// `avcodec_open2` (decoders and encoders), `avcodec_send_packet`, `avcodec_receive_frame`.
    case configureCodec, openCodec, sendPacket, receiveFrame
    /// Encoding: `avcodec_send_frame`, `avcodec_receive_packet`.
    case sendFrame, receivePacket
    /// Pictures: `av_frame_get_buffer`, `av_frame_make_writable`, `av_frame_apply_cropping`,
    /// `sws_getCachedContext` (`scaleContext`), `sws_scale`.
    case frameBuffer, makeWritable, crop, scaleContext, scale
    /// Filters (tone mapping, animations, loudness): `dlopen` + `dlsym` of libavfilter
    /// (`loadFilters`, `FilterLibrary`), `avfilter_graph_create_filter` + `avfilter_graph_parse_ptr` +
    /// `avfilter_graph_config` (`configureFilters`), `av_buffersrc_add_frame_flags` +
    /// `av_buffersink_get_frame` (`filter`).
    case loadFilters, configureFilters, filter
    /// Sound: `swr_alloc_set_opts2` + `swr_set_matrix` + `swr_init` (`openResampler`), `swr_convert`.
    case openResampler, resample
    /// The MP4 muxer: `avformat_alloc_output_context2` + `avformat_new_stream` (`createMuxer`),
    /// `avio_open`, `avformat_write_header`, `av_interleaved_write_frame`, `av_write_trailer`,
    /// `avio_closep` (`closeOutput`: the file is closed all the same, as FFmpeg does on error).
    case createMuxer, openOutput, writeHeader, writeFrame, writeTrailer, closeOutput
    /// A feed page or manifest over HTTP(S): `avio_open2`, `avio_read`.
    case openPage, readPage
    /// HEIF photos (libheif): `heif_context_read_from_file`/`_memory`, `heif_decode_image`.
    case readHEIF, decodeHEIF
}

/// Fault injection for tests, in the spirit of swift-system's `Mocking.swift`: the FFmpeg owners
/// ask `injected(_:)` before each call that can fail, and a test makes the Nth call of one kind
/// return an AVERROR code instead (libheif's calls: an error of theirs carrying the code), to see that the failure reaches the trace or the caller and
/// that every owner is freed. Internal: only `@testable` code can arm it.
///
/// Built only with `ENABLE_FFMPEG_FAULTS` (debug builds, which the tests are: see
/// Package.swift); elsewhere `injected(_:)` is a constant nil the optimiser removes. Armed off,
/// it costs one relaxed atomic load per call.
enum FFmpegFaults {
    #if ENABLE_FFMPEG_FAULTS
    private struct Rule {
        var failing: ClosedRange<Int>
        var code: Int32
        var calls = 0
    }

    private static let armed = Atomic<Bool>(false)
    private static let rules = Mutex<[FFmpegCall: Rule]>([:])

    /// Makes the `nth` call (1-based, counted from now) of `call` return `code`, and the
    /// `times - 1` calls after it (`.max`: every call from the `nth` on, which a test needs when
    /// several threads, a player and a preload, make the same call in no fixed order).
    static func fail(_ call: FFmpegCall, nth: Int = 1, times: Int = 1, with code: Int32) {
        precondition(nth >= 1 && times >= 1, "calls are counted from 1")
        let last = times == .max ? Int.max : nth + times - 1
        rules.withLock { $0[call] = Rule(failing: nth...last, code: code) }
        armed.store(true, ordering: .relaxed)
    }

    /// Forgets every fault.
    static func reset() {
        armed.store(false, ordering: .relaxed)
        rules.withLock { $0.removeAll() }
    }

    /// The code to return instead of making `call`, or nil to make it.
    @inline(__always)
    static func injected(_ call: FFmpegCall) -> Int32? {
        guard armed.load(ordering: .relaxed) else { return nil }
        return rules.withLock { rules in
            guard var rule = rules[call] else { return nil }
            rule.calls += 1
            rules[call] = rule
            return rule.failing.contains(rule.calls) ? rule.code : nil
        }
    }
    #else
    /// Release builds have no seam: every call is made.
    @inline(__always)
    static func injected(_ call: FFmpegCall) -> Int32? { nil }
    #endif
}
