import StoryModel

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
    package init(_ values: [Double]) {
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
    package static func json(_ series: [OffsetSample]) -> String {
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
