/// `latency`: how far behind its live edge a live item is played (at the top level, or on an
/// item, whose values win field by field). Unset values take the defaults of the item's protocol
/// when it plays (`LiveLatency.Resolved`).
public struct LiveLatency: Sendable, Equatable {
    /// The offset from the live edge the controller steers towards, in seconds.
    public var target: Double?
    /// Past this offset the player jumps to the edge (less the target) instead of speeding up.
    public var max: Double?
    /// The player keeps its target through rebuffers (a recording): a phone's player plays
    /// further behind after each (ExoPlayer's rule, `LivePlayhead.rebufferStep`), which over a
    /// recording of an hour left its pictures up to 2 s old and the sound apart from them. It
    /// also starts at its target: a start a little behind it jumps (`LivePlayhead`) rather than
    /// catching up at 2-3 % for ten seconds, while its sound plays at the target from the start.
    public var holdsTarget = false

    /// What a target or a maximum may be: up to ten minutes behind the edge.
    public static let allowed = 0...600.0
    /// How far past the target the default maximum lies.
    public static let defaultMaxAboveTarget = 3.0

    public init(target: Double? = nil, max: Double? = nil) {
        self.target = target
        self.max = max
    }

    /// This item's values over the storyboard's (`fallback`), field by field.
    public func over(_ fallback: LiveLatency) -> LiveLatency {
        var latency = LiveLatency(target: target ?? fallback.target, max: max ?? fallback.max)
        latency.holdsTarget = holdsTarget || fallback.holdsTarget
        return latency
    }

    /// A target and a maximum in force for one play.
    public struct Resolved: Sendable, Equatable {
        public var target: Double
        /// nil: the target plus `defaultMaxAboveTarget`, following the target as rebuffers raise it.
        public var max: Double?

        /// Rebuffers leave the target where it is (`LiveLatency.holdsTarget`).
        public var holdsTarget = false

        public var maxOffset: Double { max ?? target + LiveLatency.defaultMaxAboveTarget }
    }

    /// The default target of a protocol, as the players these renders imitate choose it: three
    /// target durations for HLS (hls.js and ExoPlayer), the manifest's
    /// `suggestedPresentationDelay` or 3 s for DASH, and 0.1 s for the push protocols (RTMP,
    /// SRT) and MPEG-TS over HTTP, whose pictures arrive as they are made.
    public static func defaultTarget(kind: LiveSourceKind, targetDuration: Double?, presentationDelay: Double?) -> Double {
        switch kind {
        case .hls: 3 * (targetDuration ?? 1)
        case .dash: presentationDelay ?? 3
        case .push: 0.1
        }
    }

    /// The values for one play: the ones given, else the protocol's default target.
    public func resolved(kind: LiveSourceKind, targetDuration: Double? = nil, presentationDelay: Double? = nil) -> Resolved {
        Resolved(target: target ?? LiveLatency.defaultTarget(kind: kind, targetDuration: targetDuration,
                                                             presentationDelay: presentationDelay),
                 max: max, holdsTarget: holdsTarget)
    }
}

/// How a live source delivers its pictures, which decides its default latency.
public enum LiveSourceKind: String, Sendable {
    /// A playlist of segments (`.m3u8`): pictures come a segment at a time.
    case hls
    /// A DASH manifest (`.mpd`): likewise.
    case dash
    /// RTMP, SRT, MPEG-TS over HTTP or UDP: pictures come as they are made.
    case push

    public init(_ source: MediaSource) {
        switch source.pathExtension {
        case "m3u8": self = .hls
        case "mpd": self = .dash
        default: self = .push
        }
    }
}

// MARK: - Parsing

extension Storyboard {
    /// A `latency` block (top level or item). A maximum below the target is an error at `latency.max`.
    static func latency(_ reader: inout ObjectReader) -> LiveLatency? {
        guard var block = reader.object("latency") else { return nil }
        var latency = LiveLatency()
        latency.target = block.number("target", in: LiveLatency.allowed)
        latency.max = block.number("max", in: LiveLatency.allowed)
        if let target = latency.target, let max = latency.max, max <= target {
            block.problems.record(StoryboardError(path: block.path("max"),
                                                  message: "must be more than latency.target (\(ObjectReader.format(target)))"))
            latency.max = nil
        }
        block.rejectUnknownKeys()
        return latency
    }
}
