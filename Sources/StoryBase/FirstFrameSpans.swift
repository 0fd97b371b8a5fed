/// Wall-clock spans from `play()` (LinkedIn's t1/t2/t3), in milliseconds.
public struct FirstFrameSpans: Sendable, Equatable {
    /// Until the demuxer and decoder were ready.
    public var openMs: Double
    /// Until the first packet of the video stream arrived.
    public var firstPacketMs: Double
    /// Until the first picture was decoded.
    public var firstFrameMs: Double

    package init(openMs: Double, firstPacketMs: Double, firstFrameMs: Double) {
        self.openMs = openMs
        self.firstPacketMs = firstPacketMs
        self.firstFrameMs = firstFrameMs
    }
}
