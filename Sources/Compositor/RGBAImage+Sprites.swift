import Foundation

// MARK: - Drawing a layer's sprite at its pose

extension RGBAImage {
    /// Draws `sprite` at `placement` over this picture ("over", Porter-Duff). A sprite neither
    /// turned nor scaled is laid on whole pixels, its centre rounded to the nearest (a copy per
    /// pixel: most layers, most of the time); any other is drawn by mapping each covered pixel
    /// back into the sprite (the placement's inverse) and sampling it bilinearly. Returns the
    /// pixels' box it may have touched (empty when none).
    @discardableResult
    public mutating func draw(_ sprite: LayerSprite, at placement: SpritePlacement) -> (x: Range<Int>, y: Range<Int>) {
        guard placement.scale > 1e-6, placement.opacity > 0 else { return (0..<0, 0..<0) }
        if placement.degrees.truncatingRemainder(dividingBy: 360) == 0 && placement.scale == 1 {
            return drawUpright(sprite, at: placement)
        }
        let radians = placement.degrees * .pi / 180
        let (c, s) = (cos(radians), sin(radians))
        // The turned box's half extents on the picture, and a pixel for the bilinear edge.
        let half = placement.halfExtents(width: Double(sprite.width), height: Double(sprite.height))
        let extentX = half.x + 1, extentY = half.y + 1
        // A layer may stand off the picture (sliding in): its box is then empty, or cut to the picture.
        guard let columns = Self.span(placement.centreX, extentX, within: width),
              let rows = Self.span(placement.centreY, extentY, within: height) else { return (0..<0, 0..<0) }
        // Picture → sprite: un-turn (clockwise on screen, y down), un-scale, from the centre.
        let inverse = Float(1 / placement.scale)
        let (ic, is_) = (Float(c) * inverse, Float(s) * inverse)
        let centreU = Float(sprite.width) / 2, centreV = Float(sprite.height) / 2
        let limitU = Float(sprite.width) + 1, limitV = Float(sprite.height) + 1
        let opacity = Float(min(1, placement.opacity))
        let width = self.width, spriteWidth = sprite.width, spriteHeight = sprite.height
        sprite.premultiplied.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                for y in rows {
                    let dy = Float(Double(y) + 0.5 - placement.centreY)
                    var dx = Float(Double(columns.lowerBound) + 0.5 - placement.centreX)
                    let row = target.baseAddress! + y * width * 4
                    for x in columns {
                        defer { dx += 1 }
                        let u = centreU + ic * dx + is_ * dy, v = centreV - is_ * dx + ic * dy
                        guard u > -1, v > -1, u < limitU, v < limitV else { continue }
                        let colour = LayerSprite.sample(source.baseAddress!, width: spriteWidth, height: spriteHeight, u, v) * opacity
                        guard colour.w > 0.01 else { continue }
                        RGBAImage.blendOver(colour, into: row + x * 4)
                    }
                }
            }
        }
        return (columns, rows)
    }

    /// A sprite neither turned nor scaled: its pixels over the picture's, one to one.
    private mutating func drawUpright(_ sprite: LayerSprite, at placement: SpritePlacement) -> (x: Range<Int>, y: Range<Int>) {
        // Far off the picture (or not a number) is off it: the Int conversions need a bound.
        let bound = 1e9
        let leftEdge = placement.centreX - Double(sprite.width) / 2, topEdge = placement.centreY - Double(sprite.height) / 2
        guard abs(leftEdge) < bound, abs(topEdge) < bound else { return (0..<0, 0..<0) }
        let left = Int(leftEdge.rounded()), top = Int(topEdge.rounded())
        guard left < width, top < height, left + sprite.width > 0, top + sprite.height > 0 else { return (0..<0, 0..<0) }
        let columns = max(0, left)..<min(width, left + sprite.width), rows = max(0, top)..<min(height, top + sprite.height)
        let opacity = Float(min(1, placement.opacity)), width = self.width, spriteWidth = sprite.width
        sprite.premultiplied.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                for y in rows {
                    let from = source.baseAddress! + (y - top) * spriteWidth - left
                    let row = target.baseAddress! + y * width * 4
                    for x in columns {
                        let colour = from[x] * opacity
                        guard colour.w > 0.01 else { continue }
                        RGBAImage.blendOver(colour, into: row + x * 4)
                    }
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

    /// `source` (premultiplied, 0…255) over the straight-alpha pixel at `pixel`; over an opaque
    /// one (a story's picture, nearly always) without the division the general rule needs.
    @inline(__always)
    static func blendOver(_ source: SIMD4<Float>, into pixel: UnsafeMutablePointer<UInt8>) {
        let keep = 1 - source.w / 255
        if pixel[3] == 255 {
            for channel in 0..<3 { pixel[channel] = UInt8(min(255, max(0, source[channel] + Float(pixel[channel]) * keep + 0.5))) }
            return
        }
        let da = Float(pixel[3]) / 255
        let outA = source.w / 255 + da * keep
        guard outA > 0 else { return }
        let scale = da * keep / outA, own = 1 / outA
        for channel in 0..<3 {
            let value = source[channel] * own + Float(pixel[channel]) * scale
            pixel[channel] = UInt8(min(255, max(0, value + 0.5)))
        }
        pixel[3] = UInt8(min(255, outA * 255 + 0.5))
    }
}
