/// A drag or pull let go: what it was, how far it had gone, how fast the finger moved, and
/// whether the transition finished or went back (the trace's `gesture` event).
public struct GestureRelease: Sendable, Equatable {
    public enum Action: String, Sendable { case drag, pull }
    public enum Outcome: String, Sendable { case finish, cancel }
    /// Timeline seconds of the release.
    public var t: Double
    /// The story the gesture started on.
    public var story: Int
    public var action: Action
    public var outcome: Outcome
    /// How far the transition had gone, 0…1 (of a page, or of the screen height).
    public var progress: Double
    /// The finger's velocity in px/s at 720 wide: towards the next story for a drag, downwards
    /// for a pull.
    public var velocity: Double

    package init(t: Double, story: Int, action: Action, outcome: Outcome, progress: Double, velocity: Double) {
        self.t = t
        self.story = story
        self.action = action
        self.outcome = outcome
        self.progress = progress
        self.velocity = velocity
    }
}
