import StoryModel

/// A live item's playback clock and its live-edge controller.
///
/// A picture is due when its timestamp comes up on this clock: `position` is the stream time
/// due now. It is anchored at the first picture, moves with the player's media time at `speed`,
/// and starts again at the next picture after a jump in the timestamps. Pictures that arrive in
/// bursts (a segment of HLS) wait in the queue for their time instead of replacing each other.
///
/// With the realtime clock the controller keeps the offset from the live edge near `target`,
/// as ExoPlayer's `DefaultLivePlaybackSpeedControl` does: speed = 1 + 0.1 × (offset − target),
/// within 0.97…1.03, changed at most once a second; past the maximum it jumps to the edge less
/// the target; each rebuffer raises the target by 0.5 s. With the virtual clock the timeline is
/// not the wall clock, so it only measures: the render waits for each picture, as for files.
struct LivePlayhead {
    /// The offset from the live edge steered towards, raised by rebuffers (at most
    /// `maxRebufferRaise` above where it started).
    private(set) var target: Double
    private var initialTarget: Double
    /// A maximum the storyboard gave; nil follows the target (`LiveLatency.defaultMaxAboveTarget`).
    let fixedMax: Double?
    let controlsSpeed: Bool
    /// The stream time due now; nil until the first picture (or after a jump in the timestamps).
    private(set) var position: Double?
    private(set) var speed = 1.0
    /// Media time of the last tick.
    private var clock: Double?
    private var lastSpeedChange = -Double.infinity
    /// Media time of the first control step with the edge known for sure, or of the end of the
    /// last rebuffer: until `startWindow` has passed from it, a start far behind the edge jumps
    /// at once. A playlist's edge is known for sure only once a new segment is listed, up to a
    /// segment after the start, later on a loaded machine: a window counted from the first
    /// step instead could close before it, leaving the player most of a segment behind its
    /// target, to be caught up with at 3 % for half a minute. After a stall, the publisher may
    /// send what it held back in one burst.
    private var startedAt: Double?
    /// While the stream has run dry the clock waits for it: no picture falls due that is not
    /// there, so none that comes late is thrown away for it.
    private(set) var isWaitingForData = false

    static let minSpeed = 0.97
    static let maxSpeed = 1.03
    /// The speeds the controller steers within: ExoPlayer's 0.97…1.03, or the source's own
    /// (a low-latency DASH manifest's `PlaybackRate`).
    var speeds = LivePlayhead.minSpeed...LivePlayhead.maxSpeed
    static let gain = 0.1
    /// Seconds between two speed changes.
    static let speedInterval = 1.0
    /// What a rebuffer adds to the target.
    static let rebufferStep = 0.5
    /// The most rebuffers may add in all: a machine too slow to decode in real time runs dry
    /// over and over, and must not push a live story ever further behind.
    static let maxRebufferRaise = 2.0
    /// What rebuffers may add in all to this play's target: `maxRebufferRaise`, or none for a
    /// player that holds its target (`LiveLatency.holdsTarget`).
    private let rebufferRaise: Double
    /// How far past the target a start may be before the player jumps to the edge instead.
    static let startTolerance = 0.25
    /// How long after the first picture a start too far behind still jumps (seconds).
    static let startWindow = 2.5
    /// How far past the target the start of a new session (a source back after a gap) may be
    /// before it jumps: the viewer has just watched a frozen picture, and passing over the few
    /// pictures a new connection's opening left behind it costs nothing seen. With the start's
    /// 0.25 s, an RTMP publisher that came back on a new connection played 166 ms behind its
    /// edge, 0.1 s target, for the rest of the play.
    static let returnTolerance = 0.05
    /// The tolerance of a start window: `startTolerance`, or a player that holds its target
    /// (a recording's) `returnTolerance` at every start: nobody watches its first pictures as
    /// they come, and caught up with at 2 % the first 0.2 s past its target took ten seconds,
    /// the pictures 0.13 s further behind their sound at the start than at the end (measured
    /// at the far end of a recording, `bench/record.sh`).
    private let startsWithin: Double
    /// The tolerance of the start window now open.
    private var tolerance: Double

    init(latency: LiveLatency.Resolved, controlsSpeed: Bool) {
        rebufferRaise = latency.holdsTarget ? 0 : LivePlayhead.maxRebufferRaise
        startsWithin = latency.holdsTarget ? LivePlayhead.returnTolerance : LivePlayhead.startTolerance
        tolerance = startsWithin
        target = latency.target
        initialTarget = latency.target
        fixedMax = latency.max
        self.controlsSpeed = controlsSpeed
    }

    /// Steers towards `newTarget` from now on (the source's own suggestion, for a storyboard
    /// that gave none), keeping what rebuffers added.
    mutating func retarget(_ newTarget: Double) {
        target = newTarget + (target - initialTarget)
        initialTarget = newTarget
    }

    var maxOffset: Double { fixedMax ?? target + LiveLatency.defaultMaxAboveTarget }

    /// Moves the clock to media time `now`.
    mutating func tick(to now: Double) {
        if let last = clock, let position, !isWaitingForData { self.position = position + speed * max(0, now - last) }
        clock = now
    }

    /// Puts the clock at a picture of stream time `time` (the first one, or the first after a jump).
    mutating func anchor(at time: Double) { position = time }

    /// Forgets the position: the next picture anchors the clock again.
    mutating func unanchor() { position = nil }

    /// One step of the controller at media time `now`, given how far the position is behind the
    /// live edge and whether that edge is known for sure yet (a loose one is a lower bound: a
    /// jump it asks for never overshoots). Returns how many seconds to jump forward, when it jumps.
    mutating func control(offset: Double, at now: Double, edgeIsFirm: Bool = true) -> Double? {
        guard controlsSpeed, let position else { return nil }
        if startedAt == nil, edgeIsFirm { startedAt = now }
        let starting = startedAt.map { now - $0 < LivePlayhead.startWindow } ?? true
        if offset > maxOffset || (starting && offset > target + tolerance) {
            let jump = offset - target
            self.position = position + jump
            speed = 1
            lastSpeedChange = now
            return jump
        }
        if now - lastSpeedChange >= LivePlayhead.speedInterval {
            speed = min(max(1 + LivePlayhead.gain * (offset - target), speeds.lowerBound), speeds.upperBound)
            lastSpeedChange = now
        }
        return nil
    }

    /// The stream has ended (`#EXT-X-ENDLIST`: a finished playlist, or a publisher's last one):
    /// there is no edge left to keep up with, so what is left plays at its own pace, all of it,
    /// as the virtual clock plays it.
    mutating func playOut() {
        speed = 1
    }

    /// A rebuffer: the stream ran dry. The clock waits for it, and plays further behind from now on.
    mutating func rebuffered() {
        guard controlsSpeed else { return }
        target = min(target + LivePlayhead.rebufferStep, initialTarget + rebufferRaise)
        isWaitingForData = true
    }

    /// A new session of the source (a publisher that came back, a new connection): what the
    /// controller learned of the session before is about it, not this one. A rebuffer's raised
    /// target was the old session running dry as it went away: carried over, it held a
    /// returned RTMP publisher 0.6 s behind at 0.97 speed, falling 30 ms further behind each
    /// second for 20 s. So the target goes back to where it started, the speed to 1, and the
    /// start window opens again at the next firm edge, to jump to the new edge if the return
    /// began far behind it.
    mutating func startSession() {
        target = initialTarget
        speed = 1
        lastSpeedChange = -.infinity
        startedAt = nil
        isWaitingForData = false
        position = nil
        tolerance = LivePlayhead.returnTolerance
    }

    /// Pictures came again after a rebuffer at media time `now`: the clock goes on, and for the
    /// start window a position far behind the edge jumps, as at the start.
    mutating func dataResumed(at now: Double) {
        guard isWaitingForData else { return }
        isWaitingForData = false
        startedAt = now
        tolerance = startsWithin
    }
}
