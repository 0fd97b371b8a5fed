import StoryMedia
import StoryTrace

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
    /// Whether pictures come a segment at a time (HLS, DASH) rather than as they are made.
    var comesInSegments = false
    /// Whether the target is the protocol's default, to be replaced by the source's own
    /// suggestion (`LiveEdge.suggestedTarget`) when it makes one.
    var takesSuggestedTarget = false
    /// The clock of the sound heard while the source has sent no video (`SoundOnlyClock`).
    var soundOnly: SoundOnlyClock?
    /// The media time the render last waited for that sound at (once a frame).
    var soundWaitedAt: Double?

    init(playhead: LivePlayhead) {
        self.playhead = playhead
    }

    /// How far the clock may run past the newest picture, with none waiting, before the stream
    /// counts as dry: the clock then waits for it, and the target rises (a rebuffer).
    ///
    /// Segments come in bursts with the queue full between them, so a picture overdue at all
    /// means the next segment came late, and will again at every boundary: it is waited for at
    /// once. Measured on ffmpeg's DASH (1 s segments, `suggestedPresentationDelay` 1 s) with a
    /// tenth of a second's grace instead: each segment 60-90 ms late, never long enough to count,
    /// so once a second the last picture held three frames and the one or two after it were
    /// passed over (27.95 distinct pictures a second, 12 dropped in 6 s).
    /// Pushed pictures come one by one with the network's jitter: a tenth of a second of it is
    /// coasted over, at the cost of a late picture, rather than raising a 0.1 s target to 0.6 s.
    func dryAfter(frame: Double) -> Double {
        comesInSegments ? 1.25 * frame : max(2 * frame, 0.1)
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
