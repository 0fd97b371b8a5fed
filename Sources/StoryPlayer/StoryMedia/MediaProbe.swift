import Foundation
import StoryBase
import StoryModel

/// What `render-stories probe` reports about a source: it opens it, lists its streams and
/// decodes its first picture.
public struct MediaProbe: Sendable {
    /// What a source shows.
    public enum Kind: String, Sendable {
        /// Moving pictures (a video file or a live stream with video).
        case video
        /// A still picture (JPEG, PNG, …): shown for an item's duration, no frame rate.
        case picture
        /// Sound and no picture (an audio file, or a live publisher without video).
        case sound
    }

    public var source: String
    public var kind: Kind
    /// The shown video stream's codec; "none" without one.
    public var codec: String
    /// The size as shown: after the orientation's turn and the sample aspect ratio.
    public var width: Int
    public var height: Int
    /// How the stored picture is put upright, as EXIF numbers it (1-8): a photo's Orientation
    /// tag, or the same for a video's display matrix (6 for a quarter turn clockwise).
    public var orientation: Int
    public var frameRate: Double
    /// No duration to play to: a live stream.
    public var isLive: Bool
    public var duration: Double?
    /// Every audio and video stream, as the container describes it once the first picture came.
    public var streams: [StreamFacts]
    /// The spans to the first packet and picture are those of the open alone without video.
    public var spans: FirstFrameSpans
    /// The video's transfer and primaries, and whether it is HDR (shown tone-mapped).
    public var colour = VideoColour()
    /// The name (`desc` tag) of the ICC profile a photo embeds, e.g. "Display P3"; nil without
    /// one. A photo with a profile other than sRGB is shown converted to sRGB.
    public var iccProfile: String? = nil

    /// `decodeFirstFrame` false reads stream information only (the preload window's metadata);
    /// the spans then stop at the open.
    /// `gate` lets another thread call the probe off (the end of a render).
    /// `live`: how the source's protocol opens it, for a live source (StoryLive's `LiveSource`).
    package static func run(source: MediaSource, limits: DecodeLimits, isLive: Bool, decodeFirstFrame: Bool = true,
                    gate: InterruptGate = InterruptGate(), live: (any LiveOpener)? = nil) throws(MediaError) -> MediaProbe {
        let started = InterruptGate.now()
        let decoder = try MediaDecoder(source: source, limits: limits, gate: gate, isLive: isLive, waitsForVideo: decodeFirstFrame,
                                       live: live)
        defer { decoder.close() }
        let opened = InterruptGate.now()
        var decoded = opened
        if decodeFirstFrame {
            do throws(MediaError) {
                let deadline = started &+ InterruptGate.nanoseconds(limits.timeouts.open)
                guard try decoder.nextPicture(videoDeadline: deadline) != nil else { throw MediaError(.decode, "no picture in \(source)") }
                decoded = InterruptGate.now()
            } catch {
                // Sound and no picture is a sound source, reported with its streams; anything
                // else is the source's fault.
                guard error.code == .noVideoStream, decoder.streams.contains(where: \.isAudio) else { throw error }
            }
        }
        let ms = { (end: UInt64) in Double(end &- started) / 1e6 }
        let shownWidth = Int((Double(decoder.codedWidth) * decoder.sampleAspectRatio).rounded())
        // Read after the first picture: a photo's EXIF orientation comes with it. Without a
        // decoded picture, a photo's file is read for it.
        var orientation = decoder.orientation
        if !decodeFirstFrame, decoder.isStill, let stored = decoder.peekStillOrientation() { orientation = stored }
        let turned = orientation.swapsSides
        let kind: Kind = decoder.isStill ? .picture : decoder.hasVideo ? .video : .sound
        var probe = MediaProbe(source: source.description, kind: kind, codec: decoder.codecName,
                          width: turned ? decoder.codedHeight : shownWidth,
                          height: turned ? shownWidth : decoder.codedHeight, orientation: orientation.exif,
                          frameRate: decoder.isStill ? 0 : decoder.frameRate,
                          isLive: isLive || (decoder.duration == nil && !decoder.isStill),
                          // A live stream has no length to play to: what its container says
                          // (an FLV header's `duration`, the seconds the publisher had sent) is
                          // not one.
                          duration: decoder.isStill || isLive ? nil : decoder.duration,
                          streams: decoder.isStill ? decoder.streams.map(\.asPicture) : decoder.streams,
                          spans: FirstFrameSpans(openMs: ms(opened), firstPacketMs: ms(decoder.firstPacketAt ?? decoded),
                                                 firstFrameMs: ms(decoded)),
                          colour: decoder.colour)
        probe.iccProfile = decoder.colourProfile?.name
        return probe
    }
}

// MARK: - Output

extension MediaProbe {
    public var json: String {
        let video = kind != .sound
        let fields = [
            "\"source\": \(JSONText.string(source))",
            "\"kind\": \(JSONText.string(kind.rawValue))",
            "\"codec\": \(video ? JSONText.string(codec) : "null")",
            "\"width\": \(video ? String(width) : "null")",
            "\"height\": \(video ? String(height) : "null")",
            "\"orientation\": \(video ? String(orientation) : "null")",
            "\"icc_profile\": \(iccProfile.map(JSONText.string) ?? "null")",
            "\"fps\": \(kind == .video && frameRate > 0 ? JSONText.number(frameRate) : "null")",
            "\"transfer\": \(video ? colour.transfer.map(JSONText.string) ?? "null" : "null")",
            "\"primaries\": \(video ? colour.primaries.map(JSONText.string) ?? "null" : "null")",
            "\"hdr\": \(video && colour.isHDR)",
            "\"live\": \(isLive)",
            "\"duration\": \(duration.map(JSONText.number) ?? "null")",
            "\"open_ms\": \(JSONText.number(spans.openMs))",
            "\"first_packet_ms\": \(video ? JSONText.number(spans.firstPacketMs) : "null")",
            "\"first_frame_ms\": \(video ? JSONText.number(spans.firstFrameMs) : "null")",
            "\"streams\": [\(streams.map(\.json).joined(separator: ", "))]",
        ]
        return "{" + fields.joined(separator: ", ") + "}"
    }

    public var text: String {
        var lines = ["source       \(source)", "kind         \(kind.rawValue)"]
        if kind != .sound {
            lines.append("codec        \(codec)")
            lines.append("size         \(width)x\(height)")
            lines.append("orientation  \(orientation)")
            if let iccProfile { lines.append("icc profile  \(iccProfile)") }
        }
        if kind == .video { lines.append("frame rate   " + (frameRate > 0 ? String(format: "%.3f fps", frameRate) : "unknown")) }
        if kind != .sound {
            lines.append("colour       \(colour.transfer ?? "unspecified") transfer, \(colour.primaries ?? "unspecified") primaries"
                         + (colour.isHDR ? ", HDR (tone-mapped to SDR)" : ""))
        }
        lines.append("live         \(isLive ? "yes" : "no")")
        lines.append("duration     \(duration.map { String(format: "%.3f s", $0) } ?? "none")")
        lines.append("open         \(String(format: "%.1f ms", spans.openMs))")
        if kind != .sound {
            lines.append("first packet \(String(format: "%.1f ms", spans.firstPacketMs))")
            lines.append("first frame  \(String(format: "%.1f ms", spans.firstFrameMs))")
        }
        lines += streams.map { "stream       \($0.text)" }
        return lines.joined(separator: "\n")
    }

    /// A source that could not be probed, as one JSON object (`probe --json`).
    public static func errorJSON(source: String, _ error: MediaError) -> String {
        "{\"source\": \(JSONText.string(source)), \"error\": \(JSONText.string(error.description)), "
            + "\"code\": \(JSONText.string(error.code.rawValue))}"
    }
}

extension StreamFacts {
    /// A picture's stream: image demuxers declare a nominal 25 fps, which means nothing for it.
    var asPicture: StreamFacts {
        guard case .video(let index, let codec, let width, let height, _) = self else { return self }
        return .video(index: index, codec: codec, width: width, height: height, fps: 0)
    }

    var isAudio: Bool {
        if case .audio = self { return true }
        return false
    }

    var json: String {
        switch self {
        case .video(let index, let codec, let width, let height, let fps):
            "{\"index\": \(index), \"type\": \"video\", \"codec\": \(JSONText.string(codec)), \"width\": \(width), "
                + "\"height\": \(height), \"fps\": \(fps > 0 ? JSONText.number(fps) : "null")}"
        case .audio(let index, let codec, let channels, let sampleRate):
            "{\"index\": \(index), \"type\": \"audio\", \"codec\": \(JSONText.string(codec)), \"channels\": \(channels), "
                + "\"sample_rate\": \(sampleRate)}"
        }
    }

    var text: String {
        switch self {
        case .video(let index, let codec, let width, let height, let fps):
            "#\(index) video \(codec) \(width)x\(height)" + (fps > 0 ? String(format: " %.3f fps", fps) : "")
        case .audio(let index, let codec, let channels, let sampleRate):
            "#\(index) audio \(codec) \(channels) channel\(channels == 1 ? "" : "s") \(sampleRate) Hz"
        }
    }
}
