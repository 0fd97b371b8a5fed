internal import CLibass
import Compositor
import StoryModel

// MARK: - The box a caption covers, as libass draws it

extension CaptionRenderer {
    /// The rectangle every cue covers as libass draws it, after wrapping, as fractions of the
    /// canvas: each cue drawn at its start (with the cues that show with it, stacked as libass
    /// stacks them), the union of the pixels its bitmaps cover (`ass_render_frame`: the dark box
    /// behind the text, which reaches around it; a bitmap's rectangle is padded with pixels it
    /// does not cover, so those are left out). nil when no cue draws anything.
    public func drawnBox() -> CaptionLayout.Box? {
        var drawn: (left: Int, top: Int, right: Int, bottom: Int)?
        for span in spans {
            var change: Int32 = 0
            var image = ass_render_frame(renderer, track, span.lowerBound, &change)
            while let part = image?.pointee {
                image = part.next
                guard let bitmap = part.bitmap, let covered = Self.covered(bitmap, width: Int(part.w), height: Int(part.h),
                                                                           stride: Int(part.stride)) else { continue }
                let x = Int(part.dst_x), y = Int(part.dst_y)
                let box = (left: x + covered.left, top: y + covered.top, right: x + covered.right, bottom: y + covered.bottom)
                drawn = drawn.map { (min($0.left, box.left), min($0.top, box.top), max($0.right, box.right), max($0.bottom, box.bottom)) } ?? box
            }
        }
        guard let drawn else { return nil }
        let width = Double(layout.width), height = Double(layout.height)
        return (x: Double(max(0, drawn.left)) / width...min(width, Double(drawn.right)) / width,
                y: Double(max(0, drawn.top)) / height...min(height, Double(drawn.bottom)) / height)
    }

    /// The rows and columns of a coverage bitmap with any pixel covered at least `least` (end
    /// exclusive); nil when none is.
    static func covered(_ bitmap: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int,
                        atLeast least: UInt8 = 1) -> (left: Int, top: Int, right: Int, bottom: Int)? {
        var left = width, top = height, right = 0, bottom = 0
        for row in 0..<max(0, height) {
            let line = bitmap + row * stride
            guard let first = (0..<width).first(where: { line[$0] >= least }) else { continue }
            let last = (first..<width).last { line[$0] >= least } ?? first
            left = min(left, first)
            right = max(right, last + 1)
            top = min(top, row)
            bottom = row + 1
        }
        return left < right ? (left, top, right, bottom) : nil
    }

    /// The box of `captions` placed by `layout`, as libass draws it; the estimate from the
    /// file's line breaks (`CaptionLayout.box(lines:)`) when libass cannot be set up (no font).
    public static func drawnBox(of captions: CaptionTrack, layout: CaptionLayout) -> CaptionLayout.Box? {
        guard let renderer = try? CaptionRenderer(captions, layout: layout) else { return layout.box(lines: captions.mostLines) }
        return renderer.drawnBox()
    }
}

extension Storyboard {
    /// Where this storyboard's text falls against `platform`'s zones, each caption's box as
    /// libass draws it after wrapping, each layer's as it is drawn where it comes to rest (see `layoutWarnings(for:captionsPlacedFor:captionBox:)`):
    /// what `check-layout` prints, and a render with a platform `--preset` warns of.
    public func layoutWarnings(for platform: PlatformSafeZones, captionsPlacedFor placement: PlatformSafeZones? = nil) -> [LayoutWarning] {
        let setter = try? TextLayerRenderer()
        let canvasWidth = canvas.width
        // Read as a render reads them: through the storyboard's protocols, within its timeouts.
        var limits = DecodeLimits()
        limits.timeouts = timeouts
        limits.protocols = protocols
        return layoutWarnings(for: platform, captionsPlacedFor: placement, captionBox: CaptionRenderer.drawnBox(of:layout:)) { layer in
            switch layer.content {
            case .text(let style):
                return (try? setter?.sprite(for: style, canvasWidth: canvasWidth)).flatMap { $0 }.map { (Double($0.width), Double($0.height)) }
            case .sticker(let source, let width):
                let pixels = max(1, Int((width * Double(canvasWidth)).rounded()))
                return (try? StickerFrames.load(source, width: pixels, limits: limits, firstOnly: true)).map {
                    (Double($0.frames[0].sprite.width), Double($0.frames[0].sprite.height))
                }
            }
        }
    }
}
