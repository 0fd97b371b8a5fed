import Compositor
import StoryModel

/// A sticker's pictures, decoded whole when a render first shows it and kept for the render:
/// one for a PNG or WebP, every frame of a GIF or APNG, which loop. Each is converted once at
/// the size the layer draws it, transparency kept, and made a sprite.
package struct StickerFrames: Sendable {
    /// The frames in time order, each from its time on.
    package let frames: [(time: Double, sprite: LayerSprite)]
    /// How long one loop lasts; 0 for a still.
    package let loopLength: Double

    /// The most frames kept of an animation (a 10 s GIF at 30 fps); later ones are left out.
    package static let maxFrames = 300

    /// Decodes `source` (`MediaDecoder`) at `width` pixels wide, its height by its shape.
    package static func load(_ source: MediaSource, width: Int, limits: DecodeLimits) throws(MediaError) -> StickerFrames {
        let decoder = try MediaDecoder(source: source, limits: limits)
        defer { decoder.close() }
        var frames: [(time: Double, sprite: LayerSprite)] = []
        var lastGap = 0.1
        while frames.count < maxFrames, let picture = try decoder.nextPicture() {
            let shown = picture.shownSize
            let height = max(1, Int((Double(width) * Double(shown.height) / Double(max(1, shown.width))).rounded()))
            let image = try decoder.converter.rgba(picture, width: max(1, width), height: height, keepsAlpha: true)
            if let previous = frames.last, picture.time > previous.time { lastGap = picture.time - previous.time }
            frames.append((picture.time, LayerSprite(image)))
            if decoder.isStill { break }
        }
        guard let first = frames.first else { throw MediaError(.decode, "no picture in \(source)") }
        let start = first.time
        let timed = frames.map { (time: $0.time - start, sprite: $0.sprite) }
        return StickerFrames(frames: timed, loopLength: timed.count > 1 ? timed.last!.time + lastGap : 0)
    }

    /// The frame showing `seconds` into the layer's time, looped.
    package func sprite(at seconds: Double) -> LayerSprite {
        guard loopLength > 0 else { return frames[0].sprite }
        let within = seconds - (seconds / loopLength).rounded(.down) * loopLength
        let index = frames.lastIndex { $0.time <= within + PictureTime.slack } ?? 0
        return frames[index].sprite
    }
}
