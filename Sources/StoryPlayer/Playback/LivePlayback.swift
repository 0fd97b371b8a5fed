/// What one live play has done so far: its playback clock, and the figures its `stop` reports.
struct LivePlayback {
    var playhead: LivePlayhead
    /// The time line of the pictures being taken (`LiveEdge`); a `discontinuity` starts the next.
    var epoch = 0
    /// How far behind the live edge each drawn frame's picture was, in seconds, at timeline `t`.
    var offsets: [(t: Double, seconds: Double)] = []
    var offsetFrom: LiveEdge.Evidence?
    var rebuffers = 0
    /// Whether the stream has run dry and not yet caught up with the clock.
    var isRebuffering = false
    /// After a jump to the edge, until a picture near the new position arrives: the pictures in
    /// between are decoded and passed over, which is catching up, not the stream running dry.
    var isCatchingUp = false
    /// Pictures taken from the queue but replaced before a frame showed them.
    var passedOver = 0
    /// The newest picture taken on this time line.
    var newest: Double?
    /// Whether the target is the protocol's default, to be replaced by the source's own
    /// suggestion (`LiveEdge.suggestedTarget`) when it makes one.
    var takesSuggestedTarget = false

    init(playhead: LivePlayhead) {
        self.playhead = playhead
    }

    /// The figures of the play's `stop`, with the pictures its convert thread passed over.
    func figures(skipped: Int) -> LivePlaybackFigures {
        var figures = LivePlaybackFigures(offsetMs: offsets.isEmpty ? nil : OffsetStatistics(offsets.map { $0.seconds * 1000 }),
                                          offsetFrom: offsetFrom?.rawValue, rebuffers: rebuffers, dropped: passedOver + skipped)
        figures.series = LivePlayback.series(offsets)
        return figures
    }

    /// The offsets over time for a graph: the mean of each second of timeline (stamped with
    /// the second's start), in whole milliseconds.
    static func series(_ offsets: [(t: Double, seconds: Double)]) -> [OffsetSample] {
        var seconds: [Int: (sum: Double, count: Int)] = [:]
        for offset in offsets {
            let second = Int(offset.t.rounded(.down))
            seconds[second, default: (0, 0)].sum += offset.seconds
            seconds[second, default: (0, 0)].count += 1
        }
        return seconds.keys.sorted().map { second in
            let bucket = seconds[second]!
            return OffsetSample(t: Double(second), ms: (bucket.sum / Double(bucket.count) * 1000).rounded())
        }
    }
}

/// p50, p95 and max of a set of values (milliseconds of offset), rounded to 0.1.
public struct OffsetStatistics: Sendable, Equatable {
    public var p50: Double
    public var p95: Double
    public var max: Double

    public init(p50: Double, p95: Double, max: Double) {
        self.p50 = p50
        self.p95 = p95
        self.max = max
    }

    /// The nearest-rank percentiles of `values`, which must not be empty.
    init(_ values: [Double]) {
        precondition(!values.isEmpty, "statistics of no values")
        let sorted = values.sorted()
        func percentile(_ p: Double) -> Double {
            (sorted[Swift.min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))] * 10).rounded() / 10
        }
        self.init(p50: percentile(0.5), p95: percentile(0.95), max: (sorted.last! * 10).rounded() / 10)
    }
}

/// One point of a live play's offset over time (`live_offset_series`): the mean offset over the
/// second of timeline that starts at `t`.
public struct OffsetSample: Sendable, Equatable {
    public var t: Double
    public var ms: Double

    /// `[[t, ms], …]`.
    static func json(_ series: [OffsetSample]) -> String {
        "[" + series.map { "[\(JSONText.number($0.t)), \(JSONText.number($0.ms))]" }.joined(separator: ", ") + "]"
    }

    public init(t: Double, ms: Double) {
        self.t = t
        self.ms = ms
    }
}

/// A live player's figures on its `stop` event: `live_offset_ms`, `live_offset_from`,
/// `rebuffers`, `dropped`, and `live_offset_series` (for the report's graph).
public struct LivePlaybackFigures: Sendable, Equatable {
    /// How far behind the live edge its pictures were shown; nil when none was shown with an
    /// edge to measure against.
    public var offsetMs: OffsetStatistics?
    /// "program-date-time" or "arrival".
    public var offsetFrom: String?
    /// Times the stream ran dry while it played.
    public var rebuffers: Int
    /// Pictures that arrived and were never shown (late, or passed over to catch up).
    public var dropped: Int
    /// The offset over time, a point a second.
    public var series: [OffsetSample] = []

    public init(offsetMs: OffsetStatistics?, offsetFrom: String?, rebuffers: Int, dropped: Int) {
        self.offsetMs = offsetMs
        self.offsetFrom = offsetFrom
        self.rebuffers = rebuffers
        self.dropped = dropped
    }
}
