import Compositor
import StoryModel

/// Turns a storyboard, its script and its items' lengths into a `FramePlan` per frame: the
/// viewer's navigation and the players' lifecycle, without a player.
///
/// It follows the render's own rules step by step (`StoryRender.step(to:)`): the gestures due,
/// which stories play (stopping first), a finger's hold pausing the item on screen, and an item
/// that has played its length moving the viewer on. Item lengths come from `ItemLength`, the
/// rule the players end items by, fed with what opening each source once tells
/// (`FramePlanner+Lengths`). What only playing shows cannot be planned: a live stream that stops
/// before its `duration`, a file whose data ends before its container says, a feed's next pages.
public struct FramePlanner: Sendable {
    public let storyboard: Storyboard
    private var navigator: ViewerNavigator
    /// Each item's length on the timeline, by story then item (nil: unknown, plays on).
    private let lengths: [[Double?]]
    /// The item clock of each story whose player exists, by story.
    private var clocks: [Int: ItemClock] = [:]
    /// Every play so far, in the order they began.
    public private(set) var plays: [PlannedPlay] = []
    /// The next frame `next()` plans.
    public private(set) var nextIndex = 0

    /// A planner over `lengths` (story by story, item by item, as `ItemLengths.lengths` gives).
    public init(storyboard: Storyboard, lengths: ItemLengths) {
        precondition(lengths.lengths.count == storyboard.stories.count, "a length for every story")
        self.storyboard = storyboard
        self.lengths = lengths.lengths
        navigator = ViewerNavigator(storyboard: storyboard)
    }

    // MARK: - Frames

    /// The plan of the next frame.
    public mutating func next() -> FramePlan {
        let index = nextIndex
        nextIndex += 1
        let t = Double(index) / storyboard.canvas.fps
        step(to: t)
        let playing = Set(clocks.keys)
        let shown = navigator.visibleStories.map { story, item in
            let clock = clocks[story].flatMap { $0.item == item ? $0 : nil }
            let local = clock?.mediaTime(at: t) ?? 0
            let length = lengths[story][item]
            return FramePlan.ShownItem(story: story, item: item, mediaTime: local,
                                       progress: length.map { $0 > 0 ? min(max(local / $0, 0), 1) : 0 } ?? 0,
                                       plays: playing.contains(story))
        }
        return FramePlan(index: index, time: t, pageOffset: navigator.pageOffset, settledPage: navigator.settledPage,
                         isMoving: navigator.isMoving, geometry: navigator.geometry, shown: shown,
                         overlayOpacity: navigator.overlayOpacity(at: t), isFinished: navigator.isFinished)
    }

    /// The frames a render of the storyboard writes: its `duration`'s, or, open-ended, up to the
    /// first frame at which the viewer has finished (the render stops there without drawing it),
    /// at most `limit`.
    public mutating func countFrames(limit: Int) -> Int {
        while nextIndex < limit {
            let plan = next()
            if plan.isFinished { return plan.index }
        }
        return limit
    }

    // MARK: - One step, as the render takes it

    private mutating func step(to t: Double) {
        advanceViewer(to: t)
        applyHold(at: t)
        let story = navigator.settledPage
        if navigator.endsItems, let clock = clocks[story], hasEnded(clock, at: t) {
            clocks[story]?.ended = true
            navigator.currentItemEnded(at: t)
            advanceViewer(to: t)
        }
    }

    private mutating func advanceViewer(to t: Double) {
        navigator.advance(to: t)
        syncPlays(at: t)
    }

    /// Stops the plays that should not go on, then starts those that should, by the rule the
    /// render's players follow (`ViewerNavigator.playChanges`).
    private mutating func syncPlays(at t: Double) {
        let changes = navigator.playChanges(playing: clocks.mapValues(\.item))
        for story in changes.stop {
            if let clock = clocks.removeValue(forKey: story) { plays[clock.play].end = t }
        }
        for (story, item) in changes.start {
            clocks[story] = ItemClock(item: item, startedAt: t, play: plays.count,
                                      isLive: storyboard.stories[story].items[item].isLive)
            plays.append(PlannedPlay(story: story, item: item, start: t, end: nil))
        }
    }

    /// A hold or a pull pauses the resting story's item, by the render's rule
    /// (`ViewerNavigator.holdChange`).
    private mutating func applyHold(at t: Double) {
        let story = navigator.settledPage
        guard var clock = clocks[story] else { return }
        switch navigator.holdChange(at: t, isPaused: clock.pausedAt != nil) {
        case .pause(let start)?: clock.pause(at: start)
        case .resume(let end)?: clock.resume(at: end)
        case nil: return
        }
        clocks[story] = clock
    }

    private func hasEnded(_ clock: ItemClock, at t: Double) -> Bool {
        if clock.ended { return true }
        guard let length = lengths[navigator.settledPage][clock.item] else { return false }
        return clock.mediaTime(at: t) >= length - 1e-9
    }
}

// MARK: - An item's clock

/// The time of one play of an item, as `ItemPlayer` keeps it: time since `play()`, less the
/// time it was held. A live item resumes at its live edge, so a hold costs it no time.
private struct ItemClock: Sendable {
    let item: Int
    let startedAt: Double
    /// Where its `PlannedPlay` is in `plays`.
    let play: Int
    let isLive: Bool
    var pausedAt: Double?
    var pausedTotal = 0.0
    var ended = false

    func mediaTime(at t: Double) -> Double { (pausedAt ?? t) - startedAt - pausedTotal }

    mutating func pause(at t: Double) {
        if pausedAt == nil { pausedAt = t }
    }

    mutating func resume(at t: Double) {
        guard let pausedAt else { return }
        self.pausedAt = nil
        if !isLive { pausedTotal += t - pausedAt }
    }
}
