import Compositor
import StoryMedia
import StoryModel

/// Renders the one frame a phone shows at a page offset: every visible story at the same media
/// time, with its picture decoded (never the loading state), and with the overlay a render's
/// frame has there (the progress segments at that media time) unless `overlay` is false. A live
/// room is drawn as a render draws it at that time (`StillRender+Room`). For transition stills.
/// Each story's caption at that time is drawn on its face (its first item's, else the story's:
/// the first item's media time is the story's time); `safeZones` places the captions inside that
/// platform's safe area and draws its zones over the whole picture as a guide.
public enum StillRender {
    public static func render(_ storyboard: Storyboard, pageOffset: Double, time: Double,
                              limits: DecodeLimits = DecodeLimits(), overlay: Bool = true,
                              threads: Int = Rasterizer.defaultThreadCount, safeZones: PlatformSafeZones? = nil)
        throws(StoryboardError) -> (image: RGBAImage, problems: [String], failedParticipants: [String]) {
        let last = Double(storyboard.stories.count - 1)
        guard pageOffset >= 0 && pageOffset <= last else {
            throw StoryboardError(path: "--page", message: "\(pageOffset) is out of range (0 to \(ObjectReader.format(last)))")
        }
        let canvas = storyboard.canvas
        let placements = storyboard.transition.geometry.faces(pageOffset: pageOffset, width: canvas.width, height: canvas.height)
        var problems: [String] = [], failedParticipants: [String] = []
        let captions = StoryCaptions(storyboard: storyboard, platform: safeZones)
        let faces = placements.map { placement -> TexturedFace in
            let story = storyboard.stories[placement.page]
            var texture: RGBAImage
            do {
                texture = try picture(of: story, at: time, storyboard: storyboard, limits: limits,
                                      failedParticipants: &failedParticipants)
            } catch {
                problems.append("story \(story.id): \(error)")
                texture = ErrorCardPicture.render(width: canvas.width, height: canvas.height, backdrop: nil,
                                                  title: story.id, reason: "\(error)")
            }
            if overlay {
                // As a render draws it: into the face, so it turns with the cube.
                let length = length(of: story.items[0], limits: limits)
                StoryOverlay.drawSegments(on: &texture, count: story.items.count, current: 0,
                                          progress: length > 0 ? time / length : 0, inset: storyboard.overlayInset, opacity: 1)
            }
            captions.draw(on: &texture, story: placement.page, item: 0, mediaTime: time, storyTime: time)
            return TexturedFace(texture: texture, placement: placement)
        }
        var image = RGBAImage(width: canvas.width, height: canvas.height, fill: canvas.background)
        Rasterizer(threads: threads).draw(faces, background: canvas.background, into: &image)
        if let safeZones { image.drawSafeZoneGuides(safeZones) }
        problems += captions.problems
        return (image, problems, failedParticipants)
    }
}
