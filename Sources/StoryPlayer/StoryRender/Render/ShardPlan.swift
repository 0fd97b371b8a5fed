/// The frames a shard renders (`--frames A..B`), byte-identical to the same frames of a full
/// render. Before A the render fast-forwards: navigation and the lifecycle run, players only
/// learn their media's length, nothing is decoded or drawn; at A the players alive seek to the
/// keyframe before their media time and decode forward.
struct ShardPlan {
    /// Nil for a whole render.
    let range: Range<Int>?

    /// Whether the shard begins after frame 0, so that it fast-forwards first.
    var startsLate: Bool { (range?.lowerBound ?? 0) > 0 }

    func isPast(_ n: Int) -> Bool { range.map { n >= $0.upperBound } ?? false }

    func isFirst(_ n: Int) -> Bool { range?.lowerBound == n }

    func fastForwards(_ n: Int) -> Bool { range.map { n < $0.lowerBound } ?? false }

    /// Whether the shard's range ends before `frameLimit`, the frame at which an open-ended
    /// render stops: then a viewer still going when the shard stops was cut by the range.
    func endsBefore(_ frameLimit: Int) -> Bool { range.map { $0.upperBound < frameLimit } ?? false }

    /// The timeline time at which the players still playing are stopped: the render's end, or
    /// the shard's when it ends first.
    func finalTime(planned: Int?, lastFrameTime: Double, finished: Bool, fps: Double) -> Double {
        var time = planned.map { Double($0) / fps } ?? lastFrameTime
        if let range, let planned, range.upperBound < planned { time = Double(range.upperBound) / fps }
        if let range, planned == nil, !finished { time = Double(range.upperBound) / fps }
        return time
    }
}
