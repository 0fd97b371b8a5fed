import Foundation

/// What `render-stories probe` reports about a source: it opens it and decodes its first frame.
public struct MediaProbe: Sendable {
    public var source: String
    public var codec: String
    /// The size as shown: after the display matrix's rotation and the sample aspect ratio.
    public var width: Int
    public var height: Int
    public var frameRate: Double
    /// No duration to play to: a live stream.
    public var isLive: Bool
    public var duration: Double?
    public var spans: FirstFrameSpans

    /// Opens `uri` (a path or URL) under the same protocol rules and timeouts as a render.
    public static func run(_ uri: String, timeouts: Timeouts = Timeouts()) throws(MediaError) -> MediaProbe {
        let source = MediaSource(uri: uri, relativeTo: FileManager.default.currentDirectoryPath)
        var limits = DecodeLimits()
        limits.timeouts = timeouts
        // Push protocols carry live streams by nature; a playlist or file says so only once open.
        let liveByProtocol = MediaSource.scheme(of: uri).map(MediaSource.liveProtocols.contains) ?? false
        return try run(source: source, limits: limits, isLive: liveByProtocol)
    }

    /// `decodeFirstFrame` false reads stream information only (the preload window's metadata);
    /// the spans then stop at the open.
    static func run(source: MediaSource, limits: DecodeLimits, isLive: Bool, decodeFirstFrame: Bool = true) throws(MediaError) -> MediaProbe {
        let started = InterruptGate.now()
        let decoder = try MediaDecoder(source: source, limits: limits, isLive: isLive)
        defer { decoder.close() }
        let opened = InterruptGate.now()
        if decodeFirstFrame {
            guard try decoder.nextPicture() != nil else { throw MediaError(.decode, "no picture in \(source)") }
        }
        let decoded = InterruptGate.now()
        let ms = { (end: UInt64) in Double(end &- started) / 1e6 }
        let shownWidth = Int((Double(decoder.codedWidth) * decoder.sampleAspectRatio).rounded())
        let turned = decoder.quarterTurns % 2 == 1
        return MediaProbe(source: source.description, codec: decoder.codecName,
                          width: turned ? decoder.codedHeight : shownWidth,
                          height: turned ? shownWidth : decoder.codedHeight,
                          frameRate: decoder.frameRate, isLive: isLive || (decoder.duration == nil && !decoder.isStill),
                          duration: decoder.duration,
                          spans: FirstFrameSpans(openMs: ms(opened), firstPacketMs: ms(decoder.firstPacketAt ?? decoded),
                                                 firstFrameMs: ms(decoded)))
    }

    public var json: String {
        "{\"source\": \(JSONText.string(source)), \"codec\": \(JSONText.string(codec)), \"width\": \(width), "
            + "\"height\": \(height), \"fps\": \(JSONText.number(frameRate)), \"live\": \(isLive), "
            + "\"duration\": \(duration.map(JSONText.number) ?? "null"), \"open_ms\": \(JSONText.number(spans.openMs)), "
            + "\"first_packet_ms\": \(JSONText.number(spans.firstPacketMs)), \"first_frame_ms\": \(JSONText.number(spans.firstFrameMs))}"
    }

    public var text: String {
        """
        source       \(source)
        codec        \(codec)
        size         \(width)x\(height)
        frame rate   \(String(format: "%.3f", frameRate)) fps
        live         \(isLive ? "yes" : "no")
        duration     \(duration.map { String(format: "%.3f s", $0) } ?? "none")
        open         \(String(format: "%.1f ms", spans.openMs))
        first packet \(String(format: "%.1f ms", spans.firstPacketMs))
        first frame  \(String(format: "%.1f ms", spans.firstFrameMs))
        """
    }
}
