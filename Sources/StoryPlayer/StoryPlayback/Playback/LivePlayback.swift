import StoryLive
import StoryMedia
import StoryTrace

/// What one live play has done so far: its playback clock, and the figures its `stop` reports.
struct LivePlayback {
    var playhead: LivePlayhead
    /// The time line of the pictures being taken (`LiveEdge`); a `discontinuity` starts the next.
    var epoch = 0
    /// How far behind the live edge each drawn frame's picture was, in seconds, at timeline `t`
    /// (`noteOffset`: all of them up to `offsetsKept`, then an even sample of them).
    private(set) var offsets: [(t: Double, seconds: Double)] = []
    /// Offsets noted so far, and the one in how many kept.
    private var offsetsNoted = 0
    private var offsetStride = 1
    var offsetFrom: LiveEdge.Evidence?

    /// The most offsets a play keeps: 20 minutes of frames at 30 fps, exactly. A play of hours (a
    /// recording) kept one per frame, 16 bytes a frame for each live player, for its `stop`'s
    /// figures; past this it keeps every other one and notes half as often, so its statistics
    /// and its per-second series come from an even sample of the whole play, in bounded memory.
    static let offsetsKept = 36_000

    /// Notes the offset of the frame at timeline `t`.
    mutating func noteOffset(at t: Double, seconds: Double) {
        offsetsNoted += 1
        guard offsetsNoted % offsetStride == 0 else { return }
        offsets.append((t, seconds))
        guard offsets.count >= LivePlayback.offsetsKept else { return }
        offsets = offsets.indices.filter { $0 % 2 == 1 }.map { offsets[$0] }
        offsetStride *= 2
    }
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
    /// A source that came back after a gap, until the first picture of its new session is drawn:
    /// then its `reconnect` event says how long it was away and how far behind the edge it
    /// came back (`ItemPlayer.recordLiveOffset`).
    var returning: Return?
    /// The last reconnect try traced in this play, until a return is put down to it.
    var lastAttempt: Int?
    /// The clock of the sound heard while the source has sent no video (`SoundOnlyClock`).
    var soundOnly: SoundOnlyClock?
    /// The media time the render last waited for that sound at (once a frame).
    var soundWaitedAt: Double?

    /// A source back after a gap.
    struct Return {
        /// Seconds between the last picture before and the first after (as they were decoded).
        let gap: Double
        /// The reconnect try that brought it back; nil when the connection held through the gap
        /// (nginx-rtmp keeps its viewers while a publisher restarts).
        let attempt: Int?
        /// The source's timestamps across the gap, as the `discontinuity` says them.
        let detail: String
    }

    init(playhead: LivePlayhead) {
        self.playhead = playhead
    }

    /// A new session of the source begins on time line `epoch` after `gap` seconds without a
    /// picture: the controller starts again (`LivePlayhead.startSession`), and the return is
    /// traced once its first picture is drawn.
    mutating func startSession(gap: Double, detail: String, attempt: Int?) {
        playhead.startSession()
        isRebuffering = false
        isCatchingUp = false
        returning = Return(gap: gap, attempt: attempt, detail: detail)
        lastAttempt = nil
    }

    /// Whether the stream has run dry: the clock is at `position`, none of the pictures it
    /// waits for is queued (`queueIsEmpty`), and `decodedPast(newest)` says whether the decode
    /// thread has one after the newest picture taken (its time) on its way.
    ///
    /// Any source is dry once the clock has run 0.1 s (at least two frames) past its newest
    /// picture: a pushed one's pictures come one by one with the network's jitter, and a tenth
    /// of a second of it is coasted over, at the cost of a late picture, rather than raising a
    /// 0.1 s target to 0.6 s. A segment source (HLS, DASH) is dry as soon as a picture is
    /// overdue and the decoder has nothing newer: segments come in bursts, so that means the
    /// next segment is late, and will be at every boundary. Measured on ffmpeg's DASH (1 s
    /// segments, `suggestedPresentationDelay` 1 s) with only the tenth of a second: each segment
    /// 60-90 ms late, never long enough to count, so once a second the last picture held three
    /// frames and the one or two after it were passed over (27.95 distinct pictures a second,
    /// 12 dropped in 6 s). A decoder that has a newer picture is ahead of the clock, and a
    /// convert or draw running late is the machine's delay, not the stream's: that keeps the
    /// tenth of a second.
    func isDry(at position: Double, frame: Double, queueIsEmpty: Bool, decodedPast: (Double) -> Bool) -> Bool {
        guard let newest, queueIsEmpty, !isRebuffering, !isCatchingUp else { return false }
        if position > newest + Swift.max(2 * frame, 0.1) { return true }
        return comesInSegments && position > newest + 1.25 * frame && !decodedPast(newest)
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
