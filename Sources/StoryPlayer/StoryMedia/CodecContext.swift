internal import CFFmpeg
import Synchronization

/// Owns an `AVCodecContext`; frees it with `avcodec_free_context`.
final class CodecContext {
    private(set) var pointer: UnsafeMutablePointer<AVCodecContext>?

    /// Codec contexts allocated and not yet freed, process-wide (see `FormatContext.alive`).
    static let alive = Atomic<Int>(0)

    /// The threads a decoder opened with more than one thread started (none otherwise).
    private(set) var workers = DecoderWorkers.none

    /// The CPU seconds the decoder's threads used since the last call (`DecoderWorkers`).
    func takeWorkerCPUSeconds() -> Double { workers.takeCPUSeconds() }

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

    /// An encoder's context (`avcodec_alloc_context3`), set up by `configure`, then opened
    /// (`avcodec_open2`); `failure` says what could not be opened.
    init(encoder: UnsafePointer<AVCodec>, failure: String,
         configure: (UnsafeMutablePointer<AVCodecContext>) -> Void) throws(MediaError) {
        guard let context = avcodec_alloc_context3(encoder) else {
            throw MediaError(.decoderSetup, "cannot allocate an encoder", cause: "out of memory")
        }
        pointer = context
        CodecContext.alive.add(1, ordering: .relaxed)
        configure(context)
        try open(encoder, failure: failure)
    }

    private func open(_ codec: UnsafePointer<AVCodec>, failure: String) throws(MediaError) {
        let status = FFmpegFaults.injected(.openCodec) ?? avcodec_open2(pointer, codec, nil)
        guard status >= 0 else { throw MediaError(.decoderSetup, failure, averror: status) }
    }

    /// The codec's time base (an encoder's packets are stamped in it).
    var timeBase: AVRational { pointer?.pointee.time_base ?? AVRational(num: 0, den: 1) }

    /// `avcodec_send_packet` (nil: drain): 0, or a negative AVERROR code.
    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> Int32 {
        guard let pointer else { preconditionFailure("decoding after close()") }
        if let injected = FFmpegFaults.injected(.sendPacket) { return injected }
        return avcodec_send_packet(pointer, packet)
    }

    /// `avcodec_send_frame` (nil: flush the encoder): 0, or a negative AVERROR code.
    func send(frame: UnsafeMutablePointer<AVFrame>?) -> Int32 {
        guard let pointer else { preconditionFailure("encoding after close()") }
        return avcodec_send_frame(pointer, frame)
    }

    /// `avcodec_receive_packet`: 0, or a negative AVERROR code (EAGAIN: send more first).
    func receive(packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        guard let pointer else { preconditionFailure("encoding after close()") }
        return avcodec_receive_packet(pointer, packet)
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
