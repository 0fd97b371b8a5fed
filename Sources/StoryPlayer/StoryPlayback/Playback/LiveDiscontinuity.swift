/// When a live play's pictures start a new time line, on the decode thread: at the first picture
/// after a reconnect, and at a jump in the source's timestamps (`PlayTimeline.jumps(to:)`). The
/// player's clock starts again at that picture (`DecodedEvent.discontinuity`).
///
/// A pushed source back after a gap is a new session (a publisher that went away and came
/// back), told apart from a jump within one by how long no picture came.
struct LiveDiscontinuity {
    /// How far a live picture's timestamp may stray from where the last one leads before it
    /// counts as a jump: more than any frame interval or B-frame reordering.
    static let threshold = 1.0

    /// How long a pushed stream may bring no picture before a jump in its timestamps is a new
    /// session (a publisher that went away and came back) rather than a jump within one (a
    /// looped file, a segment that starts its timestamps again): far more than any frame
    /// interval or network jitter, far less than a restart takes.
    static let sessionGap = 0.5

    /// When the last live picture was decoded (monotonic seconds): how long a publisher was away.
    private var lastArrival: Double?

    /// Notes a picture decoded at monotonic `now`.
    mutating func arrived(at now: Double) {
        lastArrival = now
    }

    /// How long a pushed source was away before a picture that `arrived` and starts a new time
    /// line (`jumped`: within a connection, else on a new one), if that makes it a new session;
    /// nil otherwise. A pushed source back after a gap (a publisher that restarted), on a new
    /// connection or the same one, is a new session. A segment source is not: a playlist that
    /// stalled is read again from pictures already shown (`LiveReplay`), and the target its
    /// rebuffer raised is what keeps the next stall from being one. Nor is the first picture of
    /// a play that came only after a reconnect: that is the start.
    func returnGap(arrived: Double, jumped: Bool, isPushed: Bool) -> Double? {
        lastArrival.map { arrived - $0 }.flatMap { gap in
            isPushed && (!jumped || gap >= LiveDiscontinuity.sessionGap) ? gap : nil
        }
    }
}
