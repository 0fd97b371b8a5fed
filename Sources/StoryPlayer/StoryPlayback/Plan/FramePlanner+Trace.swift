import StoryMedia
import StoryModel
import StoryTrace

extension FramePlanner {
    /// The lifecycle of a storyboard as the planner sees it, as `lifecycle.jsonl` lines: a `play`
    /// and a `stop` for each of its plays (a room as one play, not its participants'), with the
    /// frames a render writes. Nothing is decoded or drawn; each source is opened once for its
    /// length. What the studio draws its lanes from.
    public static func plannedTrace(_ storyboard: Storyboard, limits: DecodeLimits = DecodeLimits(),
                                    limit: Int? = nil) -> (trace: String, frames: Int) {
        var planner = FramePlanner(storyboard: storyboard, lengths: .probing(storyboard, limits: limits))
        let fps = storyboard.canvas.fps
        let frames = plannedFrames(storyboard)
            ?? planner.countFrames(limit: limit ?? Int(openEndedLimit * fps))
        // A planned-length storyboard still needs its plays up to its last frame.
        while planner.nextIndex < frames { _ = planner.next() }
        let end = Double(frames) / fps
        // Stops before plays at the same moment, as the players are stopped first.
        let moments = planner.plays.enumerated().flatMap { id, play -> [(t: Double, isStop: Bool, id: Int)] in
            [(play.start, false, id), (min(play.end ?? end, end), true, id)]
        }.sorted { ($0.t, $0.isStop ? 0 : 1, $0.id) < ($1.t, $1.isStop ? 0 : 1, $1.id) }
        let trace = LifecycleTrace()
        for moment in moments where moment.t <= end {
            let play = planner.plays[moment.id]
            trace.record(moment.isStop ? .stop : .play, t: moment.t, story: storyboard.stories[play.story].id,
                         item: play.item, player: moment.id + 1)
        }
        return (trace.jsonLines, frames)
    }
}
