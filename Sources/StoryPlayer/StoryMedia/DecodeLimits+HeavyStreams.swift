/// Which streams are heavy enough to decode on frame threads while they play.
extension DecodeLimits {
    /// The decoder threads for a stream that spends `bitRate` bits per second on `width`×`height`
    /// pictures at `frameRate`: `heavyDecoderThreads` when it is set and the stream spends
    /// `heavyBitsPerPixel` or more, else `decoderThreads`. A stream whose bit rate or frame rate
    /// the container does not give is not heavy: nothing says so. A decoder's cost grows with the
    /// bits it reads (CABAC works bit by bit), so bits per pixel tell a picture that decodes in
    /// less time than the render draws it from one that holds the render back.
    func decoderThreads(bitRate: Int64, width: Int, height: Int, frameRate: Double) -> Int {
        guard let heavy = heavyDecoderThreads, bitRate > 0, width > 0, height > 0, frameRate > 0 else {
            return decoderThreads
        }
        let bitsPerPixel = Double(bitRate) / (Double(width * height) * frameRate)
        return bitsPerPixel >= heavyBitsPerPixel ? max(heavy, decoderThreads) : decoderThreads
    }
}
