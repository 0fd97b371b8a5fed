package import CFFmpeg
import Synchronization

/// Owns an `AVCodecContext`; frees it with `avcodec_free_context`. The decoder's and encoder's
/// calls are its methods (`send`, `receive`, `flush`); what the codec says is read through its
/// accessors, never through its pointer, which does not leave it.
package final class CodecContext {
    private var pointer: UnsafeMutablePointer<AVCodecContext>?

    /// Codec contexts allocated and not yet freed, process-wide (see `FormatContext.alive`).
    package static let alive = Atomic<Int>(0)

    /// The threads a decoder opened with more than one thread started (none otherwise).
    private(set) var workers = DecoderWorkers.none

    /// The CPU seconds the decoder's threads used since the last call (`DecoderWorkers`).
    func takeWorkerCPUSeconds() -> Double { workers.takeCPUSeconds() }

    /// A decoder for a stream described by `parameters` (which `FormatContext.openDecoder` lends):
    /// `avcodec_alloc_context3` + `avcodec_parameters_to_context` + `avcodec_open2`.
    init(parameters: UnsafePointer<AVCodecParameters>, maxPixels: Int, threads: Int) throws(MediaError) {
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            throw MediaError(.unsupportedCodec, "no decoder for codec \(name)")
        }
        if let injected = FFmpegFaults.injected(.configureCodec) {
            throw MediaError(.decoderSetup, "cannot configure the decoder", averror: injected)
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(.decoderSetup, "cannot allocate a decoder", cause: "out of memory")
        }
        pointer = context
        CodecContext.alive.add(1, ordering: .relaxed)
        let status = avcodec_parameters_to_context(context, parameters)
        guard status >= 0 else { throw MediaError(.decoderSetup, "cannot configure the decoder", averror: status) }
        // Refuse absurd frame sizes in the decoder itself, before it allocates pictures.
        context.pointee.max_pixels = Int64(maxPixels)
        context.pointee.thread_count = Int32(threads)
        guard threads > 1 else {
            try open(codec, failure: "cannot open the decoder")
            return
        }
        workers = try DecoderWorkers.started { () throws(MediaError) in try open(codec, failure: "cannot open the decoder") }
    }

    /// An encoder's context (`avcodec_alloc_context3`), set up as `settings` say, then opened
    /// (`avcodec_open2`); `failure` says what could not be opened.
    package init(encoder: UnsafePointer<AVCodec>, settings: EncoderSettings, failure: String) throws(MediaError) {
        if let injected = FFmpegFaults.injected(.configureCodec) {
            throw MediaError(.decoderSetup, "cannot allocate an encoder", averror: injected)
        }
        guard let context = avcodec_alloc_context3(encoder) else {
            throw MediaError(.decoderSetup, "cannot allocate an encoder", cause: "out of memory")
        }
        pointer = context
        CodecContext.alive.add(1, ordering: .relaxed)
        settings.apply(to: context)
        try open(encoder, failure: failure)
    }

    private func open(_ codec: UnsafePointer<AVCodec>, failure: String) throws(MediaError) {
        let status = FFmpegFaults.injected(.openCodec) ?? avcodec_open2(pointer, codec, nil)
        guard status >= 0 else { throw MediaError(.decoderSetup, failure, averror: status) }
    }

    private var context: UnsafeMutablePointer<AVCodecContext> {
        guard let pointer else { preconditionFailure("using a codec after close()") }
        return pointer
    }

    // MARK: - What the codec says

    /// The codec's time base (an encoder's packets are stamped in it).
    package var timeBase: AVRational { pointer?.pointee.time_base ?? AVRational(num: 0, den: 1) }
    /// The decoder's threads (`thread_count`); 0 once closed.
    var threadCount: Int { pointer.map { Int($0.pointee.thread_count) } ?? 0 }

    /// Whether the decoder was opened with extradata (`AVCodecContext.extradata`): for H.264 and
    /// HEVC from FLV or MP4, the parameter sets.
    var hasExtradata: Bool { (pointer?.pointee.extradata_size ?? 0) > 0 }
    /// The coded picture size the decoder knows (0 until it knows, or once closed).
    package var width: Int { pointer.map { Int($0.pointee.width) } ?? 0 }
    var height: Int { pointer.map { Int($0.pointee.height) } ?? 0 }
    /// The transfer and primaries the decoder read from the stream (an HEVC stream's VUI);
    /// unspecified until it has decoded, or once closed.
    package var colourTransfer: AVColorTransferCharacteristic { pointer?.pointee.color_trc ?? AVCOL_TRC_UNSPECIFIED }
    package var colourPrimaries: AVColorPrimaries { pointer?.pointee.color_primaries ?? AVCOL_PRI_UNSPECIFIED }
    /// Samples per frame an audio encoder takes (`frame_size`); 0 when any number will do.
    package var frameSize: Int32 { pointer?.pointee.frame_size ?? 0 }
    /// Whether an audio encoder takes a last frame shorter than `frameSize`
    /// (`AV_CODEC_CAP_SMALL_LAST_FRAME`, as FFmpeg's AAC and libopus do).
    package var takesShortLastFrame: Bool {
        guard let codec = pointer?.pointee.codec else { return false }
        return codec.pointee.capabilities & AV_CODEC_CAP_SMALL_LAST_FRAME != 0
    }
    /// An audio decoder's channels, sample format and rate.
    var soundLayout: SoundLayout {
        SoundLayout(layout: context.pointee.ch_layout, format: context.pointee.sample_fmt, rate: context.pointee.sample_rate)
    }

    /// `avcodec_parameters_from_context`: the encoder's parameters into a muxer's stream.
    func copyParameters(to parameters: UnsafeMutablePointer<AVCodecParameters>) -> Int32 {
        avcodec_parameters_from_context(parameters, context)
    }

    // MARK: - Decoding

    /// `avcodec_send_packet` (nil: drain): 0, or a negative AVERROR code.
    func send(_ packet: Packet?) -> Int32 {
        guard let pointer else { preconditionFailure("decoding after close()") }
        if let injected = FFmpegFaults.injected(.sendPacket) { return injected }
        guard let packet else { return avcodec_send_packet(pointer, nil) }
        return packet.withUnsafeAVPacket { avcodec_send_packet(pointer, $0) }
    }

    /// `avcodec_receive_frame` into `frame`: 0, or a negative AVERROR code (EAGAIN: send more
    /// first; end of file: drained).
    func receive(into frame: Frame) -> Int32 {
        guard let pointer else { preconditionFailure("decoding after close()") }
        if let injected = FFmpegFaults.injected(.receiveFrame) { return injected }
        return frame.withUnsafeAVFrame { avcodec_receive_frame(pointer, $0) }
    }

    /// Whether the decoder drops the pictures of the packets sent from now on that no other
    /// picture refers to (`skip_frame` = `AVDISCARD_NONREF`, else `AVDISCARD_DEFAULT`). Frame
    /// threads take the setting with each packet, so it can change from one packet to the next.
    var dropsNonReferences: Bool {
        get { pointer?.pointee.skip_frame == AVDISCARD_NONREF }
        set { context.pointee.skip_frame = newValue ? AVDISCARD_NONREF : AVDISCARD_DEFAULT }
    }

    /// `avcodec_flush_buffers`: forgets the pictures in flight (after a seek, or an early drain),
    /// so the decoder takes packets again.
    func flush() {
        avcodec_flush_buffers(context)
    }

    // MARK: - Encoding

    /// `avcodec_send_frame` (nil: flush the encoder): 0, or a negative AVERROR code.
    package func send(frame: Frame?) -> Int32 {
        guard let pointer else { preconditionFailure("encoding after close()") }
        if let injected = FFmpegFaults.injected(.sendFrame) { return injected }
        guard let frame else { return avcodec_send_frame(pointer, nil) }
        return frame.withUnsafeAVFrame { avcodec_send_frame(pointer, $0) }
    }

    /// `avcodec_receive_packet`: 0, or a negative AVERROR code (EAGAIN: send more first).
    package func receive(packet: Packet) -> Int32 {
        guard let pointer else { preconditionFailure("encoding after close()") }
        if let injected = FFmpegFaults.injected(.receivePacket) { return injected }
        return packet.withUnsafeAVPacket { avcodec_receive_packet(pointer, $0) }
    }

    func close() {
        // The threads end with the context, and their ids may be reused.
        workers = .none
        if pointer != nil {
            avcodec_free_context(&pointer)
            CodecContext.alive.subtract(1, ordering: .relaxed)
        }
    }

    deinit { close() }
}

/// How an encoder is set up before `avcodec_open2`: the fields of its `AVCodecContext` that
/// `ClipWriter` sets, as Swift values, and the encoder's private options (`av_opt_set`, in order).
package struct EncoderSettings {
    package var timeBase: AVRational
    package var globalHeader = false
    // Video.
    package var width: Int32 = 0, height: Int32 = 0
    package var pixelFormat: AVPixelFormat?
    package var colourSpace: AVColorSpace?
    package var colourPrimaries: AVColorPrimaries?
    package var colourTransfer: AVColorTransferCharacteristic?
    package var colourRange: AVColorRange?
    package var frameRate: AVRational?
    package var gopSize: Int32?
    /// The shortest GOP (`keyint_min`): with `gopSize`, every GOP is that long.
    package var minGOPSize: Int32?
    package var maxBFrames: Int32?
    /// A VBR cap (`rc_max_rate`) and its buffer (`rc_buffer_size`), bits.
    package var maxBitRate: Int64?
    package var bufferSize: Int32?
    /// The encoder's threads (`thread_count`; 0: as many as it finds useful).
    package var threads: Int32?
    // Sound.
    package var sampleRate: Int32?
    package var sampleFormat: AVSampleFormat?
    package var bitRate: Int64?
    package var stereo = false
    /// Set with `av_opt_set` on the encoder's `priv_data`, in this order.
    package var privateOptions: [(name: String, value: String)] = []

    package init(timeBase: AVRational) {
        self.timeBase = timeBase
    }

    fileprivate func apply(to context: UnsafeMutablePointer<AVCodecContext>) {
        if width > 0 { context.pointee.width = width }
        if height > 0 { context.pointee.height = height }
        if let pixelFormat { context.pointee.pix_fmt = pixelFormat }
        if let colourSpace { context.pointee.colorspace = colourSpace }
        if let colourPrimaries { context.pointee.color_primaries = colourPrimaries }
        if let colourTransfer { context.pointee.color_trc = colourTransfer }
        if let colourRange { context.pointee.color_range = colourRange }
        if let sampleRate { context.pointee.sample_rate = sampleRate }
        if let sampleFormat { context.pointee.sample_fmt = sampleFormat }
        if let bitRate { context.pointee.bit_rate = bitRate }
        if stereo { av_channel_layout_default(&context.pointee.ch_layout, 2) }
        context.pointee.time_base = timeBase
        if let frameRate { context.pointee.framerate = frameRate }
        if let gopSize { context.pointee.gop_size = gopSize }
        if let maxBFrames { context.pointee.max_b_frames = maxBFrames }
        if let minGOPSize { context.pointee.keyint_min = minGOPSize }
        if let maxBitRate { context.pointee.rc_max_rate = maxBitRate }
        if let bufferSize { context.pointee.rc_buffer_size = bufferSize }
        if let threads { context.pointee.thread_count = threads }
        if globalHeader { context.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        for option in privateOptions { av_opt_set(context.pointee.priv_data, option.name, option.value, 0) }
    }
}
