import Foundation
import StoryPlayer

// MARK: - The lifecycle lanes beside the player

enum StudioLanes {
    /// The lifecycle trace (`lifecycle.jsonl` lines) of `board` as it now is, for the lanes.
    ///
    /// THE one place the studio gets its lanes from. There is no planner yet: this takes the
    /// cheapest existing path, the render loop fast-forwarded over the whole timeline
    /// (navigation and the lifecycle run, nothing is decoded or drawn, as before a shard's
    /// first frame). When the `FramePlan` planner lands, this body becomes a call to it;
    /// nothing else in the studio changes.
    /// Also the number of frames, which the same pass finds.
    static func trace(of board: Storyboard) throws(RenderError) -> (trace: String, frames: Int) {
        try FrameStepper.fastForwardTrace(board)
    }
}
