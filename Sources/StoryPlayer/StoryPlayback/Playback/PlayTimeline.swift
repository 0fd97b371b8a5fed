/// Where a play's pictures lie on its media time, on the decode thread. A recorded play has one
/// connection, and its media time is its pictures' own timestamps. A live play's media time
/// keeps running across reconnects: each new connection's timestamps are rebased to follow on
/// from the last picture of the one before, so the player's clock never runs backwards.
///
/// The expressions are kept as they were written in the decode loop (the order of the sums
/// included): a rebased time that differed in its last bit would move a picture across a frame.
struct PlayTimeline {
    /// Where this connection's pictures start on the media time (0 until the first reconnect).
    private var offset = 0.0
    /// This connection's first picture passed on (its own timestamp); nil before it.
    private var connectionFirstTime: Double?
    /// The first picture decoded on this connection (a DASH picture's place in its period is
    /// counted from it); before `connectionFirstTime` when a reopen sent pictures again.
    private var connectionStart: Double?
    /// Whether the source has been opened again in this play: from then on a connection's
    /// timestamps are counted from its first picture.
    private(set) var hasReconnected = false
    /// The media time of the last picture passed on (0 before the first).
    private(set) var lastTime = 0.0
    /// The media time of the last picture passed on, for the reach (nil before the first).
    private(set) var decodedTime: Double?
    /// The interval between pictures, as the source last said.
    private(set) var frameDuration: Double

    init(frameDuration: Double) {
        self.frameDuration = frameDuration
    }

    /// Whether no picture has been passed on since a reconnect: the next one starts a new time
    /// line, and pictures before it may be ones already shown (`LiveReplay`).
    var awaitsFirstPictureAfterReconnect: Bool { hasReconnected && connectionFirstTime == nil }

    /// Where a picture decoded at `time` (its own timestamp) is on the time line its edge is
    /// measured on: a DASH manifest's period (from where its first segment starts,
    /// `periodStart`), else the timestamps as the source wrote them.
    mutating func written(_ time: Double, periodStart: Double?, videoStart: Double) -> Double {
        if connectionStart == nil { connectionStart = time }
        return periodStart.map { $0 + time - (connectionStart ?? time) } ?? time + videoStart
    }

    /// The media time of a picture whose own timestamp is `time`.
    func mediaTime(of time: Double) -> Double {
        offset + time - (hasReconnected ? connectionFirstTime ?? time : 0)
    }

    /// What moves this connection's sound, heard up to a picture at `time`, onto the media time.
    func soundShift(at time: Double) -> Double {
        offset - (hasReconnected ? connectionFirstTime ?? time : 0)
    }

    /// Whether a picture at media time `time` strays from where the last one leads by more than
    /// `LiveDiscontinuity.threshold`: a jump in the source's timestamps. Never the first of a
    /// connection, whose time is rebased to follow on.
    func jumps(to time: Double) -> Bool {
        connectionFirstTime != nil && abs(time - (lastTime + frameDuration)) > LiveDiscontinuity.threshold
    }

    /// Notes a picture passed on: `time` its own timestamp, `mediaTime` where it is.
    mutating func passed(_ time: Double, at mediaTime: Double) {
        if connectionFirstTime == nil { connectionFirstTime = time }
        lastTime = mediaTime
        decodedTime = mediaTime
    }

    /// A new connection, whose source says `frameRate` (0: unknown, the last interval is kept):
    /// its pictures follow one interval after the last one passed on.
    mutating func reconnected(frameRate: Double) {
        hasReconnected = true
        offset = lastTime + frameDuration
        connectionFirstTime = nil
        connectionStart = nil
        frameDuration = frameRate > 0 ? 1 / frameRate : frameDuration
    }
}
