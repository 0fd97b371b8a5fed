import Compositor
import StoryMedia
import StoryModel
import StoryPlayback

/// The text and stickers of a render's stories (`"layers"`), drawn on the faces at the time
/// the frame plan gives, so a shard draws what the whole render draws.
///
/// An item's layers run on its own time, a story's on the story's time; the story's go under
/// the item's. Each text is set once (`TextLayerRenderer`) and each sticker decoded once
/// (`StickerFrames`), when first shown; only their poses are worked out per frame. A layer whose
/// font or file cannot be read is left out, noted once. Like the libass renderer it holds, it
/// stays on the thread that draws.
final class StoryLayers {
    /// The canvas's width: layers' sizes are set against it.
    private let canvasWidth: Int
    private let limits: DecodeLimits
    private var setter: TextLayerRenderer?
    private var sprites: [Key: LayerSprite] = [:]
    private var stickers: [Key: StickerFrames] = [:]
    private var failed: Set<Key> = []
    /// Layers that could not be drawn, once each, as notices (`path: why`).
    private(set) var problems: [String] = []

    /// A layer by where the storyboard has it: its story, its item (nil: the story's own), its place.
    struct Key: Hashable {
        let story: Int
        let item: Int?
        let layer: Int
    }

    init(canvasWidth: Int, limits: DecodeLimits) {
        self.canvasWidth = canvasWidth
        self.limits = limits
    }

    /// The layers that show on an item at these times, under to over, with their keys and times.
    private func showing(_ story: Story, index: Int, item: Int, mediaTime: Double, storyTime: Double)
        -> [(key: Key, layer: StoryLayer, time: Double)] {
        var shown: [(key: Key, layer: StoryLayer, time: Double)] = []
        for (place, layer) in story.layers.enumerated() where layer.shows(at: storyTime) {
            shown.append((Key(story: index, item: nil, layer: place), layer, storyTime))
        }
        if story.items.indices.contains(item) {
            for (place, layer) in story.items[item].layers.enumerated() where layer.shows(at: mediaTime) {
                shown.append((Key(story: index, item: item, layer: place), layer, mediaTime))
            }
        }
        return shown.filter { !failed.contains($0.key) }
    }

    /// Whether any layer shows on this item at these times.
    func shows(_ story: Story, index: Int, item: Int, mediaTime: Double, storyTime: Double) -> Bool {
        !showing(story, index: index, item: item, mediaTime: mediaTime, storyTime: storyTime).isEmpty
    }

    /// Draws the layers showing on an item at these times onto its picture.
    func draw(on picture: inout RGBAImage, story: Story, index: Int, item: Int, mediaTime: Double, storyTime: Double) {
        let unit = Double(picture.width) / Double(canvasWidth)
        for (key, layer, time) in showing(story, index: index, item: item, mediaTime: mediaTime, storyTime: storyTime) {
            guard let sprite = sprite(key, layer, at: time - (layer.from ?? 0)) else { continue }
            let pose = layer.pose(at: time)
            picture.draw(sprite, at: SpritePlacement(centreX: pose.x * Double(picture.width), centreY: pose.y * Double(picture.height),
                                                     degrees: pose.rotation, scale: pose.scale * unit, opacity: pose.opacity))
        }
    }

    /// The layer's sprite `age` seconds after it appeared: its text set, or its sticker's frame.
    private func sprite(_ key: Key, _ layer: StoryLayer, at age: Double) -> LayerSprite? {
        do throws(MediaError) {
            switch layer.content {
            case .text(let style):
                if let made = sprites[key] { return made }
                if setter == nil { setter = try TextLayerRenderer() }
                let made = try setter!.sprite(for: style, canvasWidth: canvasWidth)
                sprites[key] = made
                return made
            case .sticker(let source, let width):
                if let frames = stickers[key] { return frames.sprite(at: age) }
                let frames = try StickerFrames.load(source, width: max(1, Int((width * Double(canvasWidth)).rounded())), limits: limits)
                stickers[key] = frames
                return frames.sprite(at: age)
            }
        } catch {
            failed.insert(key)
            problems.append("\(Self.path(of: key)): \(error)")
            return nil
        }
    }

    /// Where the storyboard has the layer, as its JSON path.
    static func path(of key: Key) -> String {
        "stories[\(key.story)]" + (key.item.map { ".items[\($0)]" } ?? "") + ".layers[\(key.layer)]"
    }
}
