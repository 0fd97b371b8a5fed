import CFFmpeg
import Synchronization

/// Owns a `SwrContext` (`swr_alloc_set_opts2` + `swr_init` / `swr_free`).
final class ResampleContext {
    private(set) var pointer: OpaquePointer?

    /// Resamplers allocated and not yet freed, process-wide (see `FormatContext.alive`).
    static let alive = Atomic<Int>(0)

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
        ResampleContext.alive.add(1, ordering: .relaxed)
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
        if pointer != nil {
            swr_free(&pointer)
            ResampleContext.alive.subtract(1, ordering: .relaxed)
        }
    }

    deinit { close() }
}
