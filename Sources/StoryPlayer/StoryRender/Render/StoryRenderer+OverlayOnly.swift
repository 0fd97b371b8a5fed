import Compositor
import StoryModel

// MARK: - An overlay-only render (`--overlay-only`)

extension StoryRenderer {
    /// Each face's picture given back to its player unseen, and a transparent one in its place,
    /// for the layers, segments and captions to be drawn on as on the story: at rest they are
    /// drawn on the frame itself, mid-turn on the face, which the rasterizer then draws "over"
    /// (`TexturedFace.isTranslucent`), so they turn with the cube as in the full render.
    func leaveOnlyWhatLiesOver(_ faces: inout [TexturedFace]) {
        for slot in faces.indices {
            if let lent = lentPictures.removeValue(forKey: faces[slot].placement.page) {
                lent.player.giveBack(faces[slot].texture)
            }
            // One transparent picture for every face and frame: nothing draws on it in place
            // (`decorate` draws on a copy; at rest the rasterizer only reads it).
            let blank = transparentFace ?? RGBAImage(width: storyboard.canvas.width, height: storyboard.canvas.height, fill: .transparent)
            transparentFace = blank
            faces[slot].texture = blank
            faces[slot].isTranslucent = true
        }
    }
}

extension Storyboard {
    /// The storyboard as an overlay-only render draws it: nothing behind the stories, so that
    /// the frame's transparency is where the footage goes (the background transparent, no
    /// backdrop behind the opening bubble).
    var withNothingBehindTheStories: Storyboard {
        var copy = self
        copy.canvas.background = .transparent
        copy.backdrop = nil
        return copy
    }
}
