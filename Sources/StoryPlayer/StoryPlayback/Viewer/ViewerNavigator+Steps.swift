/// The rules of a step of the viewer that the render's players and the planner's item clocks
/// both follow (`StoryRenderer.step(to:)`, `FramePlanner`), kept here once so the two cannot
/// drift: the planner's frame count is the render's because they decide the same way.
extension ViewerNavigator {
    /// What a hold or a pull does to the resting story's item at `t`.
    public enum HoldChange: Equatable, Sendable {
        /// Pause the item from `at` (when the finger went down).
        case pause(at: Double)
        /// Resume it from `at` (when the finger lifted, or the pulled story was back in place).
        case resume(at: Double)
    }

    /// A finger held on the story, or pulling it down, pauses its item from the moment it went
    /// down; the item resumes from the moment the finger lifted or the story was back in place.
    public func holdChange(at t: Double, isPaused: Bool) -> HoldChange? {
        let spans = [hold, pullPause].compactMap { $0 }
        if let active = spans.first(where: { t >= $0.start && t < $0.end }) { return .pause(at: active.start) }
        if isPaused, let last = spans.filter({ $0.end <= t }).max(by: { $0.end < $1.end }) { return .resume(at: last.end) }
        return nil
    }

    /// The plays to stop and to start, given the item each story plays now (by story): those that
    /// should not go on are stopped first, which keeps the number alive at its bound even when a
    /// tap replaces one story by another; then the missing ones start, in story order.
    public func playChanges(playing: [Int: Int]) -> (stop: [Int], start: [(story: Int, item: Int)]) {
        let wanted = Dictionary(uniqueKeysWithValues: playingStories.map { ($0.story, $0.item) })
        let stop = playing.filter { wanted[$0.key] != $0.value }.keys.sorted()
        let start = wanted.filter { playing[$0.key] == nil || playing[$0.key] != $0.value }
            .sorted { $0.key < $1.key }.map { (story: $0.key, item: $0.value) }
        return (stop, start)
    }

    /// Whether an item that has played its length moves the viewer on now: only while a story
    /// rests on screen (a page in motion holds its items) and the viewer is open.
    public var endsItems: Bool { !isMoving && !isFinished }
}
