import Compositor
import Foundation
import StoryModel

/// A sticker's pictures, decoded whole when a render first shows it and kept for the render:
/// one for a PNG or WebP, every frame of a GIF, APNG or animated WebP, which loop. Each is converted at its
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

    /// Decodes `source` (`MediaDecoder`, or libwebp's animation decoder for an animated WebP,
    /// which FFmpeg 5.1 cannot read) at `width` pixels wide, its height by its shape;
    /// `firstOnly` stops after the first picture (to measure it).
    package static func load(_ source: MediaSource, width: Int, limits: DecodeLimits, firstOnly: Bool = false) throws(MediaError) -> StickerFrames {
        if !source.isRemote, let animation = try animatedWebP(at: source.location, maxPixels: limits.maxPixels) {
            return try load(animation, name: source.description, width: width, firstOnly: firstOnly)
        }
        let decoder = try MediaDecoder(source: source, limits: limits)
        defer { decoder.close() }
        var frames = Reduction(width: width, name: source.description)
        var lastGap = 0.1
        while frames.wantsMore, let picture = try decoder.nextPicture() {
            let shown = picture.shownSize
            try frames.plan(shownWidth: shown.width, shownHeight: shown.height)
            let straight = try decoder.converter.rgba(picture, width: max(1, shown.width), height: max(1, shown.height), keepsAlpha: true)
            if let previous = frames.frames.last, picture.time > previous.time { lastGap = picture.time - previous.time }
            frames.add(straight, at: picture.time)
            if decoder.isStill || firstOnly { break }
        }
        guard let first = frames.frames.first else { throw MediaError(.decode, "no picture in \(source)") }
        let start = first.time
        let timed = frames.frames.map { (time: $0.time - start, sprite: $0.sprite) }
        return StickerFrames(frames: timed, loopLength: timed.count > 1 ? timed.last!.time + lastGap : 0)
    }

    /// An animated WebP's frames, each from its start, the loop as long as the last one's end.
    static func load(_ animation: WebPAnimationDecoder, name: String, width: Int, firstOnly: Bool) throws(MediaError) -> StickerFrames {
        var frames = Reduction(width: width, name: name)
        var loopLength = 0.0
        while frames.wantsMore, let frame = try animation.next() {
            try frames.plan(shownWidth: animation.width, shownHeight: animation.height)
            frames.add(frame.picture, at: frame.start)
            loopLength = frame.end
            if firstOnly { break }
        }
        guard !frames.frames.isEmpty else { throw MediaError(.decode, "no picture in \(name)") }
        return StickerFrames(frames: frames.frames, loopLength: frames.frames.count > 1 ? max(loopLength, frames.frames.last!.time + 0.01) : 0)
    }

    /// The file at `path` opened by libwebp's animation decoder when it is an animated WebP
    /// (`WebPAnimation.isAnimated`); nil for any other file, or one that cannot be read (the
    /// media decoder then says why). A canvas over `maxPixels` is refused, as any picture is.
    static func animatedWebP(at path: String, maxPixels: Int) throws(MediaError) -> WebPAnimationDecoder? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 12), head.count == 12,
              head.prefix(4).elementsEqual("RIFF".utf8), head.suffix(4).elementsEqual("WEBP".utf8),
              let size = try? handle.seekToEnd(), size <= UInt64(maxBytes) else { return nil }
        try? handle.seek(toOffset: 0)
        guard let data = try? handle.readToEnd(), data.withUnsafeBytes({ WebPAnimation.isAnimated($0) }) else { return nil }
        return try WebPAnimationDecoder(data, name: path, maxPixels: maxPixels)
    }

    /// A sticker's frames as they are reduced to the layer's width, within the frame and
    /// memory budgets.
    struct Reduction {
        let width: Int
        let name: String
        private(set) var frames: [(time: Double, sprite: LayerSprite)] = []
        private var budget = StickerFrames.maxFrames
        private var height = 1

        init(width: Int, name: String) { (self.width, self.name) = (width, name) }

        var wantsMore: Bool { frames.count < budget }

        /// Sizes the next frame from its shown size; a sticker whose one frame would take more
        /// than `maxBytes` is refused, and an animation keeps as many frames as fit.
        mutating func plan(shownWidth: Int, shownHeight: Int) throws(MediaError) {
            let tall = Double(width) * Double(shownHeight) / Double(max(1, shownWidth))
            let bytes = Double(width) * tall * 16
            guard bytes <= Double(maxBytes) else {
                throw MediaError(.tooLarge, "the sticker \(name) would be \(width)x\(Int(min(tall, 1e9))) pixels drawn",
                                 cause: "more than \(maxBytes >> 20) MB")
            }
            budget = min(maxFrames, max(1, Int(Double(maxBytes) / bytes)))
            height = max(1, Int(tall.rounded()))
        }

        mutating func add(_ straight: RGBAImage, at time: Double) {
            frames.append((time, LayerSprite(reducing: straight, toWidth: max(1, width), height: height)))
        }
    }

    /// The frame showing `seconds` into the layer's time, looped.
    package func sprite(at seconds: Double) -> LayerSprite {
        guard loopLength > 0 else { return frames[0].sprite }
        let within = seconds - (seconds / loopLength).rounded(.down) * loopLength
        let index = frames.lastIndex { $0.time <= within + PictureTime.slack } ?? 0
        return frames[index].sprite
    }
}
