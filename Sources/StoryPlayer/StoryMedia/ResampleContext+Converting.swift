internal import CFFmpeg

extension ResampleContext {
    /// Whether a frame has the layout, format and rate this resampler was set up for.
    func accepts(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        let channels = frame.pointee.ch_layout.nb_channels
        return (channels == 0 || channels == input.channels) && frame.pointee.format == input.format
            && (frame.pointee.sample_rate == 0 || frame.pointee.sample_rate == input.rate)
    }

    /// A decoded audio frame as interleaved float stereo at the output rate (`swr_get_out_samples`,
    /// `swr_convert`); empty when the resampler holds it back or fails, or when the frame's
    /// layout, format or rate is not the one it was set up for.
    func interleavedStereo(_ frame: UnsafeMutablePointer<AVFrame>) -> [Float] {
        guard let swr = pointer else { return [] }
        // Skipped, not converted, when it is not the sound the resampler was set up for.
        guard accepts(frame) else { return [] }
        let capacity = Int(swr_get_out_samples(swr, frame.pointee.nb_samples))
        guard capacity > 0, let planes = frame.pointee.extended_data else { return [] }
        var converted = [Float](repeating: 0, count: capacity * 2)
        let written = converted.withUnsafeMutableBytes { raw -> Int32 in
            var output: UnsafeMutablePointer<UInt8>? = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return withUnsafeMutablePointer(to: &output) { outputs in
                swr_convert(swr, outputs, Int32(capacity),
                            UnsafeMutableRawPointer(planes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                            frame.pointee.nb_samples)
            }
        }
        guard written > 0 else { return [] }
        converted.removeLast(converted.count - Int(written) * 2)
        return converted
    }
}
