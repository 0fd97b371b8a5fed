import CFFmpeg

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
