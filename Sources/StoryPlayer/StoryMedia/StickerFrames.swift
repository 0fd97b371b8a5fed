import Compositor
import StoryModel

/// A sticker's pictures, decoded whole when a render first shows it and kept for the render:
/// one for a PNG or WebP, every frame of a GIF or APNG, which loop. Each is converted at its
/// own size, transparency kept, premultiplied (so the colour of its transparent pixels never
/// bleeds into its edges), then reduced to the size the layer draws it.
package struct StickerFrames: Sendable {
    /// The frames in time order, each from its time on.
    package let frames: [(time: Double, sprite: LayerSprite)]
    /// How long one loop lasts; 0 for a still.
    package let loopLength: Double

    /// The most frames kept of an animation (a 10 s GIF at 30 fps); later ones are left out.
    package static let maxFrames = 300
    /// The most memory a sticker's sprites may take (16 bytes a pixel): an animation keeps as
    /// many frames as fit, and a single picture larger than this is refused.
    package static let maxBytes = 256 << 20

    /// Decodes `source` (`MediaDecoder`) at `width` pixels wide, its height by its shape;
    /// `firstOnly` stops after the first picture (to measure it).
    package static func load(_ source: MediaSource, width: Int, limits: DecodeLimits, firstOnly: Bool = false) throws(MediaError) -> StickerFrames {
        let decoder = try MediaDecoder(source: source, limits: limits)
        defer { decoder.close() }
        var frames: [(time: Double, sprite: LayerSprite)] = []
        var lastGap = 0.1, budget = maxFrames
        while frames.count < budget, let picture = try decoder.nextPicture() {
            let shown = picture.shownSize
            let tall = Double(width) * Double(shown.height) / Double(max(1, shown.width))
            let bytes = Double(width) * tall * 16
            guard bytes <= Double(maxBytes) else {
                throw MediaError(.tooLarge, "the sticker \(source) would be \(width)x\(Int(min(tall, 1e9))) pixels drawn",
                                 cause: "more than \(maxBytes >> 20) MB")
            }
            budget = min(maxFrames, max(1, Int(Double(maxBytes) / bytes)))
            let height = max(1, Int(tall.rounded()))
            let straight = try decoder.converter.rgba(picture, width: max(1, shown.width), height: max(1, shown.height), keepsAlpha: true)
            if let previous = frames.last, picture.time > previous.time { lastGap = picture.time - previous.time }
            frames.append((picture.time, LayerSprite(reducing: straight, toWidth: max(1, width), height: height)))
            if decoder.isStill || firstOnly { break }
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
