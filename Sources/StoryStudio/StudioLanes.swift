import Foundation
import StoryPlayer

// MARK: - The lifecycle lanes beside the player

enum StudioLanes {
    /// The lifecycle trace (`lifecycle.jsonl` lines) of `board` as it now is, for the lanes,
    /// and the number of frames: from the planner (`FramePlanner.plannedTrace`), which follows
    /// navigation and each item's length without decoding or drawing, so an edit's lanes cost
    /// an open of each source, not a pass of the render loop.
    static func trace(of board: Storyboard) throws(RenderError) -> (trace: String, frames: Int) {
        guard !board.stories.isEmpty else {
            throw RenderError(.feed, "a storyboard whose stories come from a feed cannot be previewed frame by frame")
        }
        return FramePlanner.plannedTrace(board)
    }
}
