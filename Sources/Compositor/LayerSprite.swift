import Foundation

/// A story layer's picture (a line of text, a sticker's frame) ready to be drawn at any pose:
/// premultiplied colour, so that sampling between a pixel and a transparent one blends only
/// colour that is there, and a turned or scaled edge fades instead of showing a dark fringe.
public struct LayerSprite: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// R·A, G·A, B·A, A per pixel, 0…255.
    let premultiplied: [SIMD4<Float>]

    /// From a picture in straight alpha, as PNG files and frames keep it.
    public init(_ picture: RGBAImage) {
        width = picture.width
        height = picture.height
        var pixels = [SIMD4<Float>](repeating: .zero, count: width * height)
        picture.pixels.withUnsafeBufferPointer { bytes in
            for i in pixels.indices {
                let a = Float(bytes[i * 4 + 3])
                let share = a / 255
                pixels[i] = SIMD4(Float(bytes[i * 4]) * share, Float(bytes[i * 4 + 1]) * share, Float(bytes[i * 4 + 2]) * share, a)
            }
        }
        premultiplied = pixels
    }

    /// From premultiplied pixels (`width`×`height`, rows top to bottom).
    public init(width: Int, height: Int, premultiplied: [SIMD4<Float>]) {
        precondition(width > 0 && height > 0 && premultiplied.count == width * height, "a sprite's pixels fill its size")
        (self.width, self.height, self.premultiplied) = (width, height, premultiplied)
    }

    /// The premultiplied pixel at a continuous position (pixel centres at +0.5), bilinear,
    /// transparent outside the sprite.
    @inline(__always)
    func sample(_ u: Float, _ v: Float) -> SIMD4<Float> {
        let fx = u - 0.5, fy = v - 0.5
        let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down))
        let tx = fx - Float(x0), ty = fy - Float(y0)
        func at(_ x: Int, _ y: Int) -> SIMD4<Float> {
            x >= 0 && y >= 0 && x < width && y < height ? premultiplied[y * width + x] : .zero
        }
        let top = at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx
        let bottom = at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx
        return top * (1 - ty) + bottom * ty
    }
}

/// Where a sprite goes on a picture: its centre in pixels, turned `degrees` clockwise about it,
/// scaled, at an opacity.
public struct SpritePlacement: Sendable, Equatable {
    public var centreX: Double
    public var centreY: Double
    public var degrees: Double
    public var scale: Double
    public var opacity: Double

    public init(centreX: Double, centreY: Double, degrees: Double = 0, scale: Double = 1, opacity: Double = 1) {
        (self.centreX, self.centreY, self.degrees, self.scale, self.opacity) = (centreX, centreY, degrees, scale, opacity)
    }
}

extension RGBAImage {
    /// Draws `sprite` at `placement` over this picture ("over", Porter-Duff): each covered pixel
    /// is mapped back into the sprite (the placement's inverse) and sampled bilinearly. Returns
    /// the pixels' box it may have touched (empty when none).
    @discardableResult
    public mutating func draw(_ sprite: LayerSprite, at placement: SpritePlacement) -> (x: Range<Int>, y: Range<Int>) {
        guard placement.scale > 1e-6, placement.opacity > 0 else { return (0..<0, 0..<0) }
        let radians = placement.degrees * .pi / 180
        let (c, s) = (cos(radians), sin(radians))
        let halfW = Double(sprite.width) / 2 * placement.scale, halfH = Double(sprite.height) / 2 * placement.scale
        // The turned box's half extents on the picture.
        let extentX = abs(c) * halfW + abs(s) * halfH + 1, extentY = abs(s) * halfW + abs(c) * halfH + 1
        // A layer may stand off the picture (sliding in): its box is then empty, or cut to the picture.
        guard let columns = Self.span(placement.centreX, extentX, within: width),
              let rows = Self.span(placement.centreY, extentY, within: height) else { return (0..<0, 0..<0) }
        // Picture → sprite: un-turn (clockwise on screen, y down), un-scale, from the centre.
        let inverse = Float(1 / placement.scale)
        let (ic, is_) = (Float(c) * inverse, Float(s) * inverse)
        let spriteCentre = SIMD2<Float>(Float(sprite.width) / 2, Float(sprite.height) / 2)
        let opacity = Float(placement.opacity)
        let width = self.width
        pixels.withUnsafeMutableBufferPointer { target in
            for y in rows {
                let dy = Float(Double(y) + 0.5 - placement.centreY)
                for x in columns {
                    let dx = Float(Double(x) + 0.5 - placement.centreX)
                    let u = spriteCentre.x + ic * dx + is_ * dy
                    let v = spriteCentre.y - is_ * dx + ic * dy
                    guard u > -1, v > -1, u < Float(sprite.width) + 1, v < Float(sprite.height) + 1 else { continue }
                    let source = sprite.sample(u, v) * opacity
                    guard source.w > 0.01 else { continue }
                    RGBAImage.blendOver(source, into: target.baseAddress! + (y * width + x) * 4)
                }
            }
        }
        return (columns, rows)
    }

    /// The pixels from `centre − extent` to `centre + extent` that lie in `0..<size`; nil if none.
    static func span(_ centre: Double, _ extent: Double, within size: Int) -> Range<Int>? {
        let low = (centre - extent).rounded(.down), high = (centre + extent).rounded(.up)
        guard low.isFinite, high.isFinite, high > 0, low < Double(size) else { return nil }
        let range = max(0, Int(low))..<min(size, Int(high))
        return range.isEmpty ? nil : range
    }

    /// `source` (premultiplied, 0…255) over the straight-alpha pixel at `pixel`.
    @inline(__always)
    static func blendOver(_ source: SIMD4<Float>, into pixel: UnsafeMutablePointer<UInt8>) {
        let a = source.w / 255, keep = 1 - a
        let da = Float(pixel[3]) / 255
        let outA = a + da * keep
        guard outA > 0 else { return }
        let scale = da * keep / outA, own = 1 / outA
        for channel in 0..<3 {
            let value = source[channel] * own + Float(pixel[channel]) * scale
            pixel[channel] = UInt8(min(255, max(0, value + 0.5)))
        }
        pixel[3] = UInt8(min(255, outA * 255 + 0.5))
    }
}
