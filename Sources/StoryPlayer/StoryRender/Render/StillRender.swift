import Compositor
import StoryMedia
import StoryModel
import StoryPlayback

/// Renders the one frame a phone shows at a page offset: every visible story at the same media
/// time, with its picture decoded (never the loading state), and with the overlay a render's
/// frame has there (the progress segments at that media time) unless `overlay` is false. A live
/// room is drawn as a render draws it at that time (`StillRender+Room`). For transition stills.
/// Each story's caption at that time is drawn on its face (its first item's, else the story's:
/// the first item's media time is the story's time); `safeZones` places the captions inside that
/// platform's safe area and draws its zones over the whole picture as a guide. `ViewerState`
/// shows another item of the story (`--item`) or the story pulled down to dismiss (`--pull`).
public enum StillRender {
    /// What the viewer is doing in the still besides where its pages are: which item the story
    /// the page rests on (or turns from) shows, and how far a finger pulls it down to dismiss.
    public struct ViewerState: Sendable, Equatable {
        /// The item of the story at the page offset's floor (`still --item`); the others show
        /// their first.
        public var item: Int
        /// How far the story is pulled down, 0…1 of the screen (`still --pull`).
        public var pull: Double

        public init(item: Int = 0, pull: Double = 0) {
            self.item = item
            self.pull = pull
        }
    }

    public static func render(_ storyboard: Storyboard, pageOffset: Double, time: Double, state: ViewerState = ViewerState(),
                              limits: DecodeLimits = DecodeLimits(), overlay: Bool = true, overlayOnly: Bool = false,
                              threads: Int = Rasterizer.defaultThreadCount, safeZones: PlatformSafeZones? = nil)
        throws(StoryboardError) -> (image: RGBAImage, problems: [String], failedParticipants: [String]) {
        // Overlay-only (as `RenderOptions.overlayOnly`): nothing behind the stories, and no story picture.
        let storyboard = overlayOnly ? storyboard.withNothingBehindTheStories : storyboard
        let last = Double(storyboard.stories.count - 1)
        guard pageOffset >= 0 && pageOffset <= last else {
            throw StoryboardError(path: "--page", message: "\(pageOffset) is out of range (0 to \(ObjectReader.format(last)))")
        }
        let resting = Int(pageOffset.rounded(.down))
        let items = storyboard.stories[resting].items.count
        guard state.item >= 0 && state.item < items else {
            throw StoryboardError(path: "--item", message: "story \(storyboard.stories[resting].id) has items 0 to \(items - 1), not \(state.item)")
        }
        let canvas = storyboard.canvas
        let placements = storyboard.transition.geometry.faces(pageOffset: pageOffset, width: canvas.width, height: canvas.height)
        var problems: [String] = [], failedParticipants: [String] = []
        let captions = StoryCaptions(storyboard: storyboard, platform: safeZones)
        let layers = StoryLayers(canvasWidth: canvas.width, limits: limits)
        let faces = placements.map { placement -> TexturedFace in
            let story = storyboard.stories[placement.page]
            let item = placement.page == resting ? state.item : 0
            var texture: RGBAImage
            var drewErrorCard = false
            do {
                // Decoded in an overlay-only still too: a story whose play fails shows no layers
                // nor captions, as in the render.
                texture = try picture(of: story, item: item, at: time, storyboard: storyboard, limits: limits,
                                      failedParticipants: &failedParticipants)
            } catch {
                problems.append("story \(story.id): \(error)")
                drewErrorCard = true
                texture = ErrorCardPicture.render(width: canvas.width, height: canvas.height, backdrop: nil,
                                                  title: story.id, reason: "\(error)")
            }
            if overlayOnly { texture = RGBAImage(width: canvas.width, height: canvas.height, fill: .transparent) }
            // The story's time: its items before this one played whole, then `time` of this one.
            let before = story.items[..<item].reduce(0) { $0 + Self.length(of: $1, limits: limits) }
            if !drewErrorCard {
                layers.draw(on: &texture, story: story, index: placement.page, item: item, mediaTime: time, storyTime: before + time)
            }
            if overlay {
                // As a render draws it: into the face, so it turns with the cube.
                let length = length(of: story.items[item], limits: limits)
                StoryOverlay.drawSegments(on: &texture, count: story.items.count, current: item,
                                          progress: length > 0 ? time / length : 0, inset: storyboard.overlayInset, opacity: 1)
            }
            if !drewErrorCard {
                captions.draw(on: &texture, story: placement.page, item: item, mediaTime: time, storyTime: before + time)
            }
            return TexturedFace(texture: texture, placement: placement, isTranslucent: overlayOnly)
        }
        var image = RGBAImage(width: canvas.width, height: canvas.height, fill: canvas.background)
        Rasterizer(threads: threads).draw(faces, background: canvas.background, into: &image)
        if state.pull > 0 { image = pulled(image, by: state.pull, storyboard: storyboard, limits: limits, problems: &problems) }
        if let safeZones { image.drawSafeZoneGuides(safeZones) }
        problems += captions.problems + layers.problems
        return (image, problems, failedParticipants)
    }

    /// The frame pulled down by `progress`, as a pull draws it: over the backdrop blurred and
    /// dimmed as open as the viewer is (1 − progress), or over the canvas background.
    static func pulled(_ image: RGBAImage, by progress: Double, storyboard: Storyboard, limits: DecodeLimits,
                       problems: inout [String]) -> RGBAImage {
        let canvas = storyboard.canvas
        let transform = ViewerNavigator.pulledTransform(progress: progress, width: canvas.width, height: canvas.height,
                                                        bubbleRadius: Presentation.bubble(of: storyboard.present).r)
        let backdrop = StoryRenderer.backdropBlur(storyboard, limits: limits)
        if let warning = backdrop.warning { problems.append(warning) }
        guard let blur = backdrop.blur else { return image.presented(transform, background: canvas.background) }
        return image.presented(transform, over: blur.picture(openness: 1 - progress))
    }
}
