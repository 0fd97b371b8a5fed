package import CFFmpeg
import Synchronization

/// Owns an output `AVFormatContext` (`avformat_alloc_output_context2`) and its file
/// (`avio_open`); frees both in `deinit`, so a writer whose set-up fails half-way (no libx264)
/// leaks nothing. The encoders' parameters and packets reach it through its methods
/// (`addStream(from:)`, `write`); its pointer does not leave it.
package final class MuxerContext {
    private var pointer: UnsafeMutablePointer<AVFormatContext>?
    /// Lets a blocked network write give up (a push's ingest stalled, or the recording
    /// stopping): FFmpeg holds it unretained as the interrupt callback, so the muxer keeps it.
    private let gate: InterruptGate?

    /// Muxers allocated and not yet freed, process-wide (see `FormatContext.alive`).
    package static let alive = Atomic<Int>(0)

    /// A muxer for `format` ("mp4", "webm", "gif", "webp", "apng") that will write `path`.
    package init(format: String, path: String, gate: InterruptGate? = nil) throws(MediaError) {
        self.gate = gate
        var context: UnsafeMutablePointer<AVFormatContext>?
        let status = FFmpegFaults.injected(.createMuxer) ?? avformat_alloc_output_context2(&context, nil, format, path)
        guard status >= 0, let context else { throw MediaError(.open, "cannot create \(["mp4", "apng"].contains(format) ? "an" : "a") \(format.uppercased()) muxer",
                                                            averror: status) }
        if let gate { context.pointee.interrupt_callback = gate.callback }
        pointer = context
        MuxerContext.alive.add(1, ordering: .relaxed)
    }

    private var context: UnsafeMutablePointer<AVFormatContext> {
        guard let pointer else { preconditionFailure("muxing after the muxer was freed") }
        return pointer
    }

    /// Whether the format wants codec headers once, in the container (MP4 does).
    package var wantsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// A stream carrying `codec`'s output (`avformat_new_stream`, then the encoder's parameters
    /// with `avcodec_parameters_from_context`), under the four-character `tag` when given
    /// (`hvc1`); returns its index, or a negative AVERROR code.
    package func addStream(from codec: CodecContext, tag: String? = nil) -> Int32 {
        if let injected = FFmpegFaults.injected(.createMuxer) { return injected }
        guard let stream = avformat_new_stream(context, nil) else { return cffmpeg_averror(ENOMEM) }
        stream.pointee.time_base = codec.timeBase
        let status = codec.copyParameters(to: stream.pointee.codecpar)
        if let tag {
            precondition(tag.utf8.count == 4, "a codec tag is four characters")
            stream.pointee.codecpar.pointee.codec_tag = tag.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        return status < 0 ? status : stream.pointee.index
    }

    /// Whether the muxer opens its files itself (`AVFMT_NOFILE`: HLS writes a playlist and
    /// segments), so `openFile` must not be called.
    package var opensOwnFiles: Bool { context.pointee.oformat.pointee.flags & AVFMT_NOFILE != 0 }

    /// A stream carrying packets made with `parameters` (`avformat_new_stream`, then
    /// `avcodec_parameters_copy`); returns its index, or a negative AVERROR code.
    package func addStream(parameters: CodecParameters) -> Int32 {
        if let injected = FFmpegFaults.injected(.createMuxer) { return injected }
        guard let stream = avformat_new_stream(context, nil) else { return cffmpeg_averror(ENOMEM) }
        stream.pointee.time_base = parameters.timeBase
        let status = parameters.copy(to: stream.pointee.codecpar)
        // The copy's tag is the encoder's (0 for libx264); the muxer picks its own for 0.
        stream.pointee.codecpar.pointee.codec_tag = 0
        return status < 0 ? status : stream.pointee.index
    }

    /// `avio_open2` with the protocol's `options` (`rw_timeout`) under the gate's interrupt
    /// callback: opens a file or connects to a server.
    package func open(_ url: String, options: [String: String]) -> Int32 {
        if let injected = FFmpegFaults.injected(.openOutput) { return injected }
        var dictionary = FFmpegDictionary(options)
        let context = context
        return dictionary.withUnsafeDictionary { avio_open2(&context.pointee.pb, url, AVIO_FLAG_WRITE, &context.pointee.interrupt_callback, $0) }
    }

    /// `avio_flush`: what the muxer has written reaches the file or the socket now.
    package func flush() {
        if let pb = context.pointee.pb { avio_flush(pb) }
    }

    /// Bytes written to the muxer's own file or connection so far (`avio_tell`); 0 when it
    /// opens its files itself.
    package var bytesWritten: Int64 {
        guard let pb = pointer?.pointee.pb else { return 0 }
        return avio_tell(pb)
    }

    /// `avio_open`: creates the file.
    package func openFile(_ path: String) -> Int32 {
        FFmpegFaults.injected(.openOutput) ?? avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE)
    }

    /// `avformat_write_header` with the muxer's options.
    package func writeHeader(options: [String: String]) -> Int32 {
        if let injected = FFmpegFaults.injected(.writeHeader) { return injected }
        var dictionary = FFmpegDictionary(options)
        let context = context
        return dictionary.withUnsafeDictionary { avformat_write_header(context, $0) }
    }

    /// `av_interleaved_write_frame` of a packet stamped in `timeBase`, for stream `index`; or,
    /// not `interleaved`, `av_write_frame`: sent at once, not held until the other stream's
    /// packets of the same time come (a push whose sound lags its pictures).
    package func write(_ packet: Packet, from timeBase: AVRational, stream index: Int32, interleaved: Bool = true) -> Int32 {
        let context = context
        return packet.withUnsafeAVPacket { packet in
            av_packet_rescale_ts(packet, timeBase, context.pointee.streams[Int(index)]!.pointee.time_base)
            packet.pointee.stream_index = index
            if let injected = FFmpegFaults.injected(.writeFrame) {
                av_packet_unref(packet)
                return injected
            }
            guard !interleaved else { return av_interleaved_write_frame(context, packet) }
            // av_write_frame leaves the packet's reference with the caller.
            defer { av_packet_unref(packet) }
            return av_write_frame(context, packet)
        }
    }

    /// `av_write_trailer`.
    package func writeTrailer() -> Int32 { FFmpegFaults.injected(.writeTrailer) ?? av_write_trailer(context) }

    /// `avio_closep`: closes the file, if it is open.
    package func closeFile() -> Int32 {
        guard let pointer, pointer.pointee.pb != nil else { return 0 }
        let status = avio_closep(&pointer.pointee.pb)
        return FFmpegFaults.injected(.closeOutput) ?? status
    }

    deinit {
        // A muxer whose allocation failed has nothing to free (and was never counted): its
        // `deinit` runs all the same, since its one stored property had its default.
        guard pointer != nil else { return }
        _ = closeFile()
        avformat_free_context(pointer)
        MuxerContext.alive.subtract(1, ordering: .relaxed)
    }
}
