internal import CFFmpeg
import Synchronization

/// Owns a `SwrContext` (`swr_alloc_set_opts2` + `swr_init` / `swr_free`).
final class ResampleContext {
    private(set) var pointer: OpaquePointer?

    /// Resamplers allocated and not yet freed, process-wide (see `FormatContext.alive`).
    static let alive = Atomic<Int>(0)

    /// The input it was set up for: channels, sample format and rate. A frame that differs (a
    /// live publisher that changes its sound mid-stream) must not reach `swr_convert`, which
    /// would read its planes as this layout's: its owner sets up a resampler for it
    /// (`accepts`, `init(for:rate:)`).
    let input: (channels: Int32, format: Int32, rate: Int32)

    /// Converts from the decoder's layout, format and rate to interleaved float stereo at `rate`.
    convenience init(from codec: UnsafeMutablePointer<AVCodecContext>, rate: Int32) throws(MediaError) {
        try self.init(layout: codec.pointee.ch_layout, format: codec.pointee.sample_fmt, sampleRate: codec.pointee.sample_rate, rate: rate)
    }

    /// Converts from a decoded frame's layout, format and rate (a stream whose sound changed).
    convenience init(for frame: UnsafeMutablePointer<AVFrame>, rate: Int32) throws(MediaError) {
        try self.init(layout: frame.pointee.ch_layout, format: AVSampleFormat(frame.pointee.format),
                      sampleRate: frame.pointee.sample_rate, rate: rate)
    }

    private init(layout: AVChannelLayout, format: AVSampleFormat, sampleRate: Int32, rate: Int32) throws(MediaError) {
        var output = AVChannelLayout()
        av_channel_layout_default(&output, 2)
        var input = layout
        if input.nb_channels == 0 { av_channel_layout_default(&input, 1) }
        self.input = (input.nb_channels, format.rawValue, sampleRate)
        var context: OpaquePointer?
        var status = swr_alloc_set_opts2(&context, &output, AV_SAMPLE_FMT_FLT, rate, &input, format, sampleRate, 0, nil)
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
