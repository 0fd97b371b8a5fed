internal import CFFmpeg
import Synchronization

/// Owns a `SwrContext` (`swr_alloc_set_opts2` + `swr_init` / `swr_free`). Decoded frames go
/// through `interleavedStereo(_:)`; its pointer does not leave it.
///
/// It follows the sound it is given: a frame of another layout, format or rate than the one it
/// was set up for (a live publisher that changes its sound mid-stream, or the first frame of a
/// stream the demuxer could not describe yet) gets a `SwrContext` set up for it here, so no
/// owner (`ItemAudio`, `SoundTrack`) has to remember to.
final class ResampleContext {
    private var pointer: OpaquePointer?

    /// Resamplers allocated and not yet freed, process-wide (see `FormatContext.alive`).
    static let alive = Atomic<Int>(0)

    /// The input it is set up for: channels, sample format and rate. A frame that differs must
    /// not reach `swr_convert`, which would read its planes as this layout's.
    private(set) var input: (channels: Int32, format: Int32, rate: Int32) = (0, AV_SAMPLE_FMT_NONE.rawValue, 0)
    /// The output rate, for every `SwrContext` it sets up.
    private let rate: Int32

    /// Converts from the decoder's layout, format and rate to interleaved float stereo at `rate`.
    /// The decoder may not know its sound yet (a live MPEG-TS stream analysed for 0.1 s): an
    /// unknown rate and format are then taken as float at `rate`, which the first frame
    /// corrects.
    init(beforeFirstFrameOf codec: CodecContext, rate: Int32) throws(MediaError) {
        var sound = codec.soundLayout
        if sound.rate <= 0 { sound.rate = rate }
        if sound.format == AV_SAMPLE_FMT_NONE { sound.format = AV_SAMPLE_FMT_FLTP }
        self.rate = rate
        try setUp(for: sound)
    }

    /// A `SwrContext` for `sound`, in place of the one it had; the old one stays when the new
    /// one cannot be set up.
    private func setUp(for sound: SoundLayout) throws(MediaError) {
        let format = sound.format, sampleRate = sound.rate
        var output = AVChannelLayout()
        av_channel_layout_default(&output, 2)
        var input = sound.layout
        if input.nb_channels == 0 { av_channel_layout_default(&input, 1) }
        if let injected = FFmpegFaults.injected(.openResampler) {
            throw MediaError(.decoderSetup, "cannot set up the resampler", averror: injected)
        }
        var context: OpaquePointer?
        var status = swr_alloc_set_opts2(&context, &output, AV_SAMPLE_FMT_FLT, rate, &input, format, sampleRate, 0, nil)
        guard status >= 0, context != nil else { throw MediaError(.decoderSetup, "cannot set up the resampler", averror: status) }
        // Freed here unless it replaces the one in use.
        var replaces = false
        defer { if !replaces { swr_free(&context) } }
        // A mono story plays at its own level on both channels; swresample's own upmix of mono
        // puts it at -3 dB on each side.
        if input.nb_channels == 1 {
            let unity: [Double] = [1, 1]
            status = swr_set_matrix(context, unity, 1)
            guard status >= 0 else { throw MediaError(.decoderSetup, "cannot set the mono upmix", averror: status) }
        }
        status = swr_init(context)
        guard status >= 0 else { throw MediaError(.decoderSetup, "cannot start the resampler", averror: status) }
        close()
        replaces = true
        ResampleContext.alive.add(1, ordering: .relaxed)
        pointer = context
        self.input = (input.nb_channels, format.rawValue, sampleRate)
    }

    func close() {
        if pointer != nil {
            swr_free(&pointer)
            ResampleContext.alive.subtract(1, ordering: .relaxed)
        }
    }

    deinit { close() }
}

// MARK: - Converting

extension ResampleContext {
    /// Whether a frame has the layout, format and rate this resampler is set up for.
    private func accepts(_ frame: Frame) -> Bool {
        let sound = frame.soundLayout
        let channels = sound.layout.nb_channels
        return (channels == 0 || channels == input.channels) && sound.format.rawValue == input.format
            && (sound.rate == 0 || sound.rate == input.rate)
    }

    /// A decoded audio frame as interleaved float stereo at the output rate (`swr_get_out_samples`,
    /// `swr_convert`), set up again first when the frame's layout, format or rate is not the one
    /// in use; empty when the resampler holds it back, or when no resampler can be set up for the
    /// frame (it is skipped, not converted). Throws when `swr_convert` fails.
    func interleavedStereo(_ frame: Frame) throws(MediaError) -> [Float] {
        if !accepts(frame) {
            do throws(MediaError) { try setUp(for: frame.soundLayout) } catch { return [] }
        }
        guard let swr = pointer else { return [] }
        return try frame.withUnsafeAVFrame { (frame) throws(MediaError) in try interleavedStereo(frame, with: swr) }
    }

    private func interleavedStereo(_ frame: UnsafeMutablePointer<AVFrame>, with swr: OpaquePointer) throws(MediaError) -> [Float] {
        let capacity = Int(swr_get_out_samples(swr, frame.pointee.nb_samples))
        guard capacity > 0, let planes = frame.pointee.extended_data else { return [] }
        var converted = [Float](repeating: 0, count: capacity * 2)
        let written = converted.withUnsafeMutableBytes { raw -> Int32 in
            var output: UnsafeMutablePointer<UInt8>? = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return withUnsafeMutablePointer(to: &output) { outputs in
                FFmpegFaults.injected(.resample) ?? swr_convert(swr, outputs, Int32(capacity),
                            UnsafeMutableRawPointer(planes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                            frame.pointee.nb_samples)
            }
        }
        guard written >= 0 else { throw MediaError(.decode, "cannot resample the sound", averror: written) }
        guard written > 0 else { return [] }
        converted.removeLast(converted.count - Int(written) * 2)
        return converted
    }
}
