import StoryModel
import StoryPlayback

/// The frames a render covers, fixed before its first: how many the storyboard plans (none for
/// an open-ended render, which ends where its viewer finishes), the most it may draw, and a
/// shard's part of them.
struct RenderFrames {
    let fps: Double
    /// The storyboard's `duration` in frames; nil for an open-ended render.
    let planned: Int?
    /// The most frames the render may step through: the planned ones, or `openEndedLimit`'s.
    let limit: Int
    /// A shard's range (`ShardPlan`); the whole render's when no range was given.
    let shard: ShardPlan
    /// The frames this render draws end before this one: where `foreseePlayEnds` ends every play.
    let lastFrame: Int

    /// `endless`: a recording, which has no limit but its duration (a signal, an empty room).
    init(storyboard: Storyboard, range: Range<Int>?, endless: Bool = false) {
        fps = storyboard.canvas.fps
        planned = FramePlanner.plannedFrames(storyboard)
        limit = planned ?? (endless ? Int(Int32.max) : Int(StoryRenderer.openEndedLimit * fps))
        shard = ShardPlan(range: range)
        lastFrame = min(limit, shard.range?.upperBound ?? limit)
    }

    /// The timeline time frame `n` shows.
    func time(_ n: Int) -> Double { Double(n) / fps }
}
