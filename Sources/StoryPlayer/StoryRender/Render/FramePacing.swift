import Foundation
import StoryModel

/// When each frame of a render is drawn. The virtual clock draws every frame as soon as it
/// can; the realtime clock keeps timeline time equal to wall time: it waits for a frame's
/// moment, or skips the frame when the next one's moment has already passed. Time is never
/// stretched.
struct FramePacing {
    let clock: PlaybackClock
    let fps: Double
    /// Wall time of frame 0.
    private let started = ContinuousClock.now
    /// The same moment in seconds since 1970 (`clock_started_at`): with it, a frame's own wall
    /// time is known, and so is the latency of a clock-coded live picture read back from it.
    let startedAt = Date().timeIntervalSince1970
    /// Frames skipped because the realtime render fell behind: the last `listsAtMost` of them.
    private(set) var lateFrames: [Int] = []
    /// How many frames were skipped, listed or not.
    private(set) var lateFrameCount = 0
    /// A recording runs for hours and repeats each late frame as it happens: it keeps the last
    /// few only (summary.json's `late_frames`), so that neither memory nor the summary grows
    /// with the hours. A render keeps them all: its file outputs fill them in at the end.
    private let listsAtMost: Int

    /// Frames taken as late whatever the time (`RenderOptions.framesTakenAsLate`).
    private let takenAsLate: ((Int) -> Bool)?

    init(clock: PlaybackClock, fps: Double, takenAsLate: ((Int) -> Bool)? = nil, listsAtMost: Int = .max) {
        precondition(listsAtMost > 0, "a late frame is always listed")
        self.clock = clock
        self.fps = fps
        self.takenAsLate = takenAsLate
        self.listsAtMost = listsAtMost
    }

    /// Waits for frame `n`'s moment; false when it is late and must be skipped.
    mutating func waitForFrame(_ n: Int) -> Bool {
        guard clock == .realtime else { return true }
        if takenAsLate?(n) == true {
            noteLate(n)
            return false
        }
        let due = started + .nanoseconds(Int64(Double(n) / fps * 1e9))
        let now = ContinuousClock.now
        if now < due {
            Thread.sleep(forTimeInterval: (due - now).seconds)
        } else if now > due + .nanoseconds(Int64(1e9 / fps)) {
            noteLate(n)
            return false
        }
        return true
    }

    private mutating func noteLate(_ n: Int) {
        lateFrameCount += 1
        lateFrames.append(n)
        if lateFrames.count > listsAtMost { lateFrames.removeFirst(lateFrames.count - listsAtMost) }
    }

    /// Frame `n` was skipped as late but is not a frame of the render after all (the viewer
    /// finished at it): it is not listed, and no copy of the frame before stands in for it.
    mutating func forget(_ n: Int) {
        guard let index = lateFrames.lastIndex(of: n) else { return }
        lateFrames.remove(at: index)
        lateFrameCount -= 1
    }
}
