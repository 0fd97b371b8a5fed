/// When a live picture is released to the player: on the cadence its stream's timestamps jitter
/// around, once that cadence is clear, else at its own timestamp.
///
/// Publishers stamp pictures unevenly: a capture source stamped as frames arrive, a live muxer
/// fed from a non-live source (GStreamer's `flvmux` with a live sound source stamped a 30 fps
/// camera 23 and 43 ms apart in turn), OBS, phones and hardware encoders. Shown at those times on
/// a 30 fps timeline, two pictures fall due in one frame and the next frame has none: 24-27
/// distinct pictures a second of a 30 fps source, one in five never seen. ExoPlayer evens this
/// out (`FixedFrameRateEstimator`: it locks after 15 frame durations that agree, and releases
/// each picture on that cadence).
///
/// This estimator fits a line through the last pictures' timestamps against their place in the
/// sequence (least squares): the slope is the frame interval, and each picture is released at
/// the line's value for its place. It locks once `lockingPictures` pictures in a row lie within
/// `tolerance` of an interval from such a line, and then lets the line follow the pictures
/// slowly (a source at 29.97 fps drifts from 30). It never reorders pictures (each release is later than the one
/// before) and never invents one: a picture the source dropped leaves its place empty. When the
/// rate really changes (a publisher that changes fps, variable frame rate), pictures stop
/// landing on the line, or leave places empty again and again: the lock is let go, pictures go
/// out at their own times, and a new cadence locks when one holds again.
struct FrameCadence {
    /// What changed with a picture, for the trace (`cadence` events).
    enum Change: Sendable, Equatable {
        /// A cadence of `interval` seconds locked, after `pictures` pictures on this time line;
        /// `jitter` is the largest distance of a picture from it.
        case locked(interval: Double, jitter: Double, pictures: Int)
        /// The lock was let go: the rate changed (`interval` is the cadence it had).
        case unlocked(interval: Double, reason: String)
    }

    /// The pictures in a row a cadence needs before it locks (ExoPlayer counts 15 durations).
    /// Odd, so that a source whose pictures alternate early and late (the commonest jitter)
    /// fits a line of its true slope: through 16 such pictures it came out at 30.11 fps.
    static let lockingPictures = 17
    /// The last places, once locked, over which empty ones are counted.
    static let placeWindow = 30
    /// How far a picture may lie from the line, in intervals, and still be on the cadence: a
    /// 30 fps source stamped 23 and 43 ms apart lies 5 ms (0.15) either side, and a publisher
    /// on a busy machine is late by 10 ms more now and then.
    static let tolerance = 0.4
    /// How late after its place a picture may come and still take it (released on it, counted
    /// as off the line): up to where a later place would take it (`skipTolerance`).
    static let lateReach = 0.75
    /// How near a later place a picture must lie to take it, leaving the places between empty
    /// (pictures the source dropped).
    static let skipTolerance = 0.25
    /// Frame intervals a cadence may have: 9 to 121 pictures a second.
    static let intervals = (1.0 / 121)...(1.0 / 9)
    /// A lock is let go after this many of the last `outlierWindow` pictures lay off the line…
    /// A publisher that stamps pictures as they arrive, on a machine as busy as a realtime render
    /// keeps it, is late now and then by 10 ms more than its usual jitter: with 3 of 8, a 12 s
    /// render lost its lock once and showed 10 fewer pictures. A new rate is off at every picture.
    static let outliersToUnlock = 5
    static let outlierWindow = 10
    /// …or this many of the last `placeWindow` places were left empty: a source that drops a
    /// picture now and then keeps its cadence, but a 25 fps source against a 30 fps line leaves
    /// a place empty every fifth picture.
    static let emptyPlacesToUnlock = 3

    /// A picture's timestamp at its place in the sequence.
    private struct Point {
        var place: Int
        var time: Double
    }

    private var points: [Point] = []
    /// A line of pictures: `time` at `place`, `interval` a place.
    private struct Line {
        var place: Int
        var time: Double
        var interval: Double

        func value(at other: Int) -> Double { time + Double(other - place) * interval }
    }

    /// The line pictures are released on, while locked.
    private var line: Line?
    /// Whether each of the last pictures lay off the line (newest last), while locked.
    private var offLine: [Bool] = []
    private var lastRelease: Double?
    /// Pictures seen on this time line.
    private var seen = 0

    /// The release time of the next picture, whose timestamp is `time`, and what changed.
    mutating func release(_ time: Double) -> (time: Double, change: Change?) {
        seen += 1
        // A timestamp that goes back is no cadence: out at once, and start over.
        if let last = points.last, time <= last.time { return startOver(at: time, reason: "a timestamp went back") }
        guard let line else { return lockIfClear(time) }
        let place = self.place(of: time, on: line)
        let isOffLine = place.map { abs(time - line.value(at: $0)) > FrameCadence.tolerance * line.interval } ?? true
        keep(time, at: place, offLine: isOffLine)
        if let reason = unlockReason { return startOver(at: time, reason: reason) }
        // A picture on no place goes out at its own time (after the last release), and one that
        // is late on its place goes out on it; neither steers the line: a hiccup, or the first
        // pictures of a new rate, which the next ones will tell.
        guard let place else { return (released(time), nil) }
        if isOffLine { return (released(line.value(at: place), interval: line.interval), nil) }
        return follow(line, to: time, at: place)
    }

    /// Where a picture at `time` belongs on `line`: the place after the last one, if it lies
    /// near it, or later (a picture the source dropped) if it lies on a later place for sure;
    /// else none.
    private func place(of time: Double, on line: Line) -> Int? {
        let next = points[points.count - 1].place + 1
        let nearest = line.place + Int(((time - line.time) / line.interval).rounded())
        let fromNext = (time - line.value(at: next)) / line.interval
        if abs(fromNext) <= FrameCadence.tolerance || (fromNext > 0 && fromNext <= FrameCadence.lateReach) {
            // A picture late by more than the tolerance but short of its successor's place is
            // still the next one, only late: a place counted from its own time left the next
            // picture a whole interval off the line, and the lock was let go five pictures on.
            return next
        }
        if nearest > next, abs(time - line.value(at: nearest)) <= FrameCadence.skipTolerance * line.interval { return nearest }
        return nil
    }

    /// Counts the picture on or off the line, and keeps its place if it has one.
    private mutating func keep(_ time: Double, at place: Int?, offLine isOffLine: Bool) {
        offLine.append(isOffLine)
        if offLine.count > FrameCadence.outlierWindow { offLine.removeFirst() }
        if let place {
            points.append(Point(place: place, time: time))
            if points.count > FrameCadence.placeWindow { points.removeFirst() }
        }
    }

    /// Why the lock goes now: too many pictures off the line, or too many places empty; nil
    /// while it holds.
    private var unlockReason: String? {
        let emptyPlaces = points.last!.place - points.first!.place + 1 - points.count
        if emptyPlaces >= FrameCadence.emptyPlacesToUnlock { return "pictures came less often than the cadence" }
        if offLine.filter({ $0 }).count >= FrameCadence.outliersToUnlock { return "pictures came off the cadence" }
        return nil
    }

    /// The line follows the pictures slowly, as a phase-locked loop does: a source at 29.97 fps
    /// drifts from a line at 30, but a line refitted at every picture moved with each one's
    /// jitter, and a cadence near a frame's edge then fell due in one frame, then the next,
    /// back and forth: four pictures of six lost in a row, twice in 12 s. Moved at this
    /// picture's place, so that a change of slope turns the line about it.
    private mutating func follow(_ line: Line, to time: Double, at place: Int) -> (time: Double, change: Change?) {
        let error = time - line.value(at: place)
        let followed = Line(place: place, time: line.value(at: place) + FrameCadence.phaseGain * error,
                            interval: line.interval + FrameCadence.rateGain * error)
        guard FrameCadence.intervals.contains(followed.interval) else { return startOver(at: time, reason: "no steady rate") }
        self.line = followed
        return (released(followed.time, interval: followed.interval), nil)
    }

    /// The lock is let go (if there was one) and a new cadence starts from this picture, which
    /// goes out at its own time.
    private mutating func startOver(at time: Double, reason: String) -> (time: Double, change: Change?) {
        let change = unlock(reason: reason)
        points = [Point(place: 0, time: time)]
        return (released(time), change)
    }

    /// How much of a picture's distance from the line moves the line (its phase), and its slope
    /// (its rate): a loop damped at about 0.8, whose jitter of ±10 ms moves the releases by
    /// less than half a millisecond.
    static let phaseGain = 0.05
    static let rateGain = 0.001

    // MARK: - Locking

    private mutating func lockIfClear(_ time: Double) -> (time: Double, change: Change?) {
        points.append(Point(place: points.count, time: time))
        if points.count > FrameCadence.lockingPictures {
            points.removeFirst()
            for index in points.indices { points[index].place = index }
        }
        guard points.count == FrameCadence.lockingPictures, let fitted = FrameCadence.fit(points),
              FrameCadence.intervals.contains(fitted.interval) else { return (released(time), nil) }
        let jitter = points.map { abs($0.time - fitted.value(at: $0.place)) }.max() ?? 0
        guard jitter <= FrameCadence.tolerance * fitted.interval else { return (released(time), nil) }
        let place = points[points.count - 1].place
        line = Line(place: place, time: fitted.value(at: place), interval: fitted.interval)
        offLine = []
        return (released(line!.time, interval: fitted.interval),
                .locked(interval: fitted.interval, jitter: jitter, pictures: seen))
    }

    private mutating func unlock(reason: String) -> Change? {
        guard let line else { return nil }
        self.line = nil
        offLine = []
        return .unlocked(interval: line.interval, reason: reason)
    }

    /// `time`, kept after the last release: by half an interval on a cadence (a line that moved
    /// cannot squeeze two pictures together), and just after it off one (never reordered).
    private mutating func released(_ time: Double, interval: Double = 0) -> Double {
        var time = time
        if let lastRelease { time = max(time, lastRelease + (interval > 0 ? interval / 2 : 1e-6)) }
        lastRelease = time
        return time
    }

    /// The least-squares line through the points (time against place); nil for fewer than two
    /// places. Places are measured from the first point, so the sums stay small.
    private static func fit(_ points: [Point]) -> Line? {
        guard points.count >= 2, let first = points.first else { return nil }
        let n = Double(points.count)
        var sumX = 0.0, sumY = 0.0, sumXX = 0.0, sumXY = 0.0
        for point in points {
            let x = Double(point.place - first.place), y = point.time - first.time
            sumX += x
            sumY += y
            sumXX += x * x
            sumXY += x * y
        }
        let spread = n * sumXX - sumX * sumX
        guard spread > 0 else { return nil }
        let slope = (n * sumXY - sumX * sumY) / spread
        let intercept = (sumY - slope * sumX) / n
        return Line(place: first.place, time: first.time + intercept, interval: slope)
    }
}
