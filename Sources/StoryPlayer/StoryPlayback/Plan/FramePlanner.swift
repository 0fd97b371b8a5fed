import Compositor
import StoryModel

/// Turns a storyboard, its script and its items' lengths into a `FramePlan` per frame: the
/// viewer's navigation and the players' lifecycle, decided in one place.
///
/// Each step to a frame's time applies the gestures due, then which stories play (stopping
/// first, `ViewerNavigator.playChanges`), a finger's hold pausing the item on screen
/// (`holdChange`), and an item that has played its length moving the viewer on. On its own it
/// keeps an item clock per play in place of a player, with lengths from `ItemLength` (the rule
/// the players end items by) fed by opening each source once (`ItemLengths.probing`): that is
/// how `frames` and shard planning count a storyboard without rendering it.
///
/// A render follows the same planner (`PlanFollower`): its players are the only part with side
/// effects, and they do what each step decides. Only playing can tell what a plan cannot: a live
/// stream that stops before its `duration`, a file whose data ends before its container says,
/// a feed's next pages. So a follower says when an item has ended, and brings the stories that
/// arrive.
public struct FramePlanner: Sendable {
    public let storyboard: Storyboard
    /// The viewer: page offset, gestures, which item of each story is current.
    public private(set) var navigator: ViewerNavigator
    /// The stories so far: the storyboard's, then any a follower brought.
    private var stories: [Story]
    /// Each item's length on the timeline, by story then item (nil: unknown, plays on).
    private var lengths: [[Double?]]
    /// The item clock of each story whose player exists, by story.
    private var clocks: [Int: ItemClock] = [:]
    /// How long each item played when it last ended by playing to its end, by story then item:
    /// the story's time (`FramePlan.ShownItem.storyTime`) adds up the items before the current one.
    private var playedLengths: [Int: [Int: Double]] = [:]
    /// Every play so far, in the order they began.
    public private(set) var plays: [PlannedPlay] = []
    /// The next frame `next()` plans.
    public private(set) var nextIndex = 0

    /// A planner over `lengths` (story by story, item by item, as `ItemLengths.lengths` gives).
    public init(storyboard: Storyboard, lengths: ItemLengths) {
        precondition(lengths.lengths.count == storyboard.stories.count, "a length for every story")
        self.storyboard = storyboard
        self.lengths = lengths.lengths
        stories = storyboard.stories
        navigator = ViewerNavigator(storyboard: storyboard)
    }

    // MARK: - Frames

    /// The longest open-ended render, in seconds: a safety net, since every item has a finite length.
    public static let openEndedLimit = 3600.0

    /// The frames the storyboard's duration covers (a frame for every started 1/fps), or nil
    /// when the render runs until the viewer finishes.
    package static func plannedFrames(_ storyboard: Storyboard) -> Int? {
        storyboard.duration.map { Int(($0 * storyboard.canvas.fps - 1e-9).rounded(.up)) }
    }

    /// The plan of the next frame.
    public mutating func next() -> FramePlan {
        plan(frame: nextIndex)
    }

    /// The plan of frame `index`, the step to it followed by `follower`. Frames come in order;
    /// a realtime render that falls behind may pass some over.
    package mutating func plan(frame index: Int, following follower: (any PlanFollower)? = nil) -> FramePlan {
        precondition(index >= nextIndex, "frames are planned in order")
        nextIndex = index + 1
        let t = Double(index) / storyboard.canvas.fps
        step(to: t, following: follower)
        let playing = Set(clocks.keys)
        let shown = navigator.visibleStories.map { story, item in
            let clock = clocks[story].flatMap { $0.item == item ? $0 : nil }
            let local = clock?.mediaTime(at: t) ?? 0
            let length = lengths[story][item]
            let before = (0..<item).reduce(0.0) { sum, earlier in
                sum + (playedLengths[story]?[earlier] ?? lengths[story][earlier] ?? 0)
            }
            return FramePlan.ShownItem(story: story, item: item, mediaTime: local, storyTime: before + local,
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

    /// Stories that arrived after the storyboard (a feed's pages), their lengths unknown: their
    /// items end when a follower says so.
    public mutating func appendStories(_ arrived: [Story]) {
        guard !arrived.isEmpty else { return }
        stories += arrived
        lengths += arrived.map { $0.items.map { _ in nil } }
        navigator.appendStories(itemCounts: arrived.map(\.items.count))
    }

    // MARK: - One step

    private mutating func step(to t: Double, following follower: (any PlanFollower)?) {
        advanceViewer(to: t, following: follower)
        follower?.followScript(at: t, settledPage: navigator.settledPage)
        applyHold(at: t, following: follower)
        let story = navigator.settledPage
        guard navigator.endsItems, var clock = clocks[story] else { return }
        let planned = hasPlayedItsLength(clock, story: story, at: t)
        guard follower?.itemHasEnded(story: story, planned: planned, at: t) ?? planned else { return }
        clock.ended = true
        clocks[story] = clock
        playedLengths[story, default: [:]][clock.item] = clock.mediaTime(at: t)
        follower?.followItemEnd(story: story, at: t)
        navigator.currentItemEnded(at: t)
        advanceViewer(to: t, following: follower)
    }

    /// The viewer's gestures up to `t`, then the plays that follow from where it rests.
    private mutating func advanceViewer(to t: Double, following follower: (any PlanFollower)?) {
        navigator.advance(to: t)
        if let follower {
            appendStories(follower.followViewer(navigator, at: t))
        }
        let changes = navigator.playChanges(playing: clocks.mapValues(\.item))
        for story in changes.stop {
            if let clock = clocks.removeValue(forKey: story) { plays[clock.play].end = t }
        }
        for (story, item) in changes.start {
            clocks[story] = ItemClock(item: item, startedAt: t, play: plays.count, isLive: stories[story].items[item].isLive)
            plays.append(PlannedPlay(story: story, item: item, start: t, end: nil))
        }
        follower?.followPlays(stopping: changes.stop, starting: changes.start, at: t)
    }

    /// A hold or a pull pauses the resting story's item, or resumes it.
    private mutating func applyHold(at t: Double, following follower: (any PlanFollower)?) {
        let story = navigator.settledPage
        guard var clock = clocks[story], let change = navigator.holdChange(at: t, isPaused: clock.pausedAt != nil) else {
            return
        }
        switch change {
        case .pause(let start): clock.pause(at: start)
        case .resume(let end): clock.resume(at: end)
        }
        clocks[story] = clock
        follower?.followHold(change, story: story)
    }

    private func hasPlayedItsLength(_ clock: ItemClock, story: Int, at t: Double) -> Bool {
        if clock.ended { return true }
        guard let length = lengths[story][clock.item] else { return false }
        return clock.mediaTime(at: t) >= length - 1e-9
    }
}

// MARK: - Who follows

/// What follows a planner's steps: a render's players, the only part with side effects. The
/// planner decides; a follower does, in the order the planner says, within the step. It must
/// not reach back into the planner during a call (the planner is mid-step): what it needs of the
/// viewer comes as an argument.
package protocol PlanFollower: AnyObject {
    /// The viewer moved to `t` (its gestures applied). Returns the stories that arrived (a
    /// feed's next page), which the planner appends before deciding the plays.
    func followViewer(_ navigator: ViewerNavigator, at t: Double) -> [Story]
    /// Stop these stories' players, then start these items: the plays the viewer wants at `t`.
    func followPlays(stopping: [Int], starting: [(story: Int, item: Int)], at t: Double)
    /// Once a step, after the viewer moved: the script's actions that are not gestures.
    func followScript(at t: Double, settledPage: Int)
    /// A hold paused, or the end of one resumed, the item of `story`.
    func followHold(_ change: ViewerNavigator.HoldChange, story: Int)
    /// Whether the item of the resting `story` has ended at `t`; `planned` is whether it has
    /// played its planned length.
    func itemHasEnded(story: Int, planned: Bool, at t: Double) -> Bool
    /// The item of the resting `story` ended at `t`; the viewer moves on next.
    func followItemEnd(story: Int, at t: Double)
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
