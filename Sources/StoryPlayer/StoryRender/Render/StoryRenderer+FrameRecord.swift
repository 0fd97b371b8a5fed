import Compositor
import Foundation

extension StoryRenderer {
    /// What frame `n` at `t` showed on `placements` (the faces as `compose` placed them): each
    /// story's item, whether a picture of its media (and which), its poster, loading picture or
    /// error card, the bar when the overlay is drawn, and the face's corners.
    func frameRecord(_ n: Int, at t: Double, faces placements: [FacePlacement]) -> FrameRecord {
        let overlay = options.overlay && navigator.overlayOpacity(at: t) > 0
        // While the viewer opens or closes, the frame is drawn scaled about a moving centre.
        let canvas = storyboard.canvas
        let bubble = navigator.bubbleTransform(at: t, width: canvas.width, height: canvas.height)
        let middle = SIMD2(Double(canvas.width) / 2, Double(canvas.height) / 2)
        func onFrame(_ point: SIMD2<Double>) -> [Double] {
            let placed = bubble.map { $0.centre + (point - middle) * $0.scale } ?? point
            return [Self.hundredths(placed.x), Self.hundredths(placed.y)]
        }
        let faces = placements.map { placement in
            let index = placement.page
            var face = FrameRecord.Face(story: stories[index].id, item: navigator.currentItems[index], shows: "poster",
                                        mediaTime: nil, bar: nil,
                                        quad: placement.corners.map(onFrame))
            if let player = players[index].current {
                face.item = player.itemIndex
                if player.isFailed {
                    face.shows = "error"
                } else if player.stage != nil {
                    // A room's stage composes its participants afresh for the media time.
                    face.shows = "picture"
                    face.mediaTime = player.mediaTime(at: t)
                } else if let time = player.shownPictureTime {
                    face.shows = "picture"
                    face.mediaTime = time
                } else {
                    face.shows = "loading"
                }
            }
            if overlay { face.bar = barProgress(story: index, at: t) }
            return face
        }
        return FrameRecord(frame: n, t: t, page: navigator.pageOffset, open: navigator.openness(at: t), faces: faces)
    }

    private static func hundredths(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
