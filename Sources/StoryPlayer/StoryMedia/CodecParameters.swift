package import CFFmpeg

/// Owns an `AVCodecParameters` (`avcodec_parameters_alloc`, freed with `avcodec_parameters_free`):
/// what an encoder makes, copied once it is open, so that muxers opened later, on other threads
/// (a push output reconnecting), take its streams without touching the encoder.
///
/// Immutable after `init`: the only C call on it afterwards is `avcodec_parameters_copy`, which
/// reads it. That is why it may be shared between threads, which the compiler cannot see
/// through the pointer.
package final class CodecParameters: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<AVCodecParameters>
    /// The time base of the encoder's packets.
    package let timeBase: AVRational

    /// `avcodec_parameters_from_context` of an open encoder.
    package init(of codec: CodecContext) throws(MediaError) {
        guard let pointer = avcodec_parameters_alloc() else { throw MediaError(.convert, "cannot copy the encoder's parameters", cause: "out of memory") }
        self.pointer = pointer
        timeBase = codec.timeBase
        let status = codec.copyParameters(to: pointer)
        guard status >= 0 else { throw MediaError(.convert, "cannot copy the encoder's parameters", averror: status) }
    }

    /// Whether these are a video stream's.
    package var isVideo: Bool { pointer.pointee.codec_type == AVMEDIA_TYPE_VIDEO }

    /// `avcodec_parameters_copy` into a muxer's stream.
    func copy(to parameters: UnsafeMutablePointer<AVCodecParameters>) -> Int32 {
        avcodec_parameters_copy(parameters, pointer)
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&owned)
    }
}
