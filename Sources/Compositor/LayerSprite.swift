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

    /// A picture in straight alpha brought to `width`×`height`: premultiplied at its own size,
    /// box-reduced by the whole factor it is larger by, then resampled bilinearly, so that a
    /// transparent pixel's colour never bleeds into the edges and a large sticker does not alias.
    public init(reducing picture: RGBAImage, toWidth width: Int, height: Int) {
        var premultiplied = picture
        premultiplied.pixels.withUnsafeMutableBufferPointer { bytes in
            for i in stride(from: 0, to: bytes.count, by: 4) {
                let a = UInt16(bytes[i + 3])
                for channel in 0..<3 { bytes[i + channel] = UInt8((UInt16(bytes[i + channel]) * a + 127) / 255) }
            }
        }
        let factor = max(1, min(picture.width / width, picture.height / height))
        if factor > 1 { premultiplied = premultiplied.boxReduced(by: factor) }
        let sized = premultiplied.scaled(width: width, height: height)
        var pixels = [SIMD4<Float>](repeating: .zero, count: width * height)
        sized.pixels.withUnsafeBufferPointer { bytes in
            for i in pixels.indices {
                let r = Float(bytes[i * 4]), g = Float(bytes[i * 4 + 1]), b = Float(bytes[i * 4 + 2]), a = Float(bytes[i * 4 + 3])
                pixels[i] = SIMD4(r, g, b, a)
            }
        }
        self.init(width: width, height: height, premultiplied: pixels)
    }

    /// From premultiplied pixels (`width`×`height`, rows top to bottom).
    public init(width: Int, height: Int, premultiplied: [SIMD4<Float>]) {
        precondition(width > 0 && height > 0 && premultiplied.count == width * height, "a sprite's pixels fill its size")
        (self.width, self.height, self.premultiplied) = (width, height, premultiplied)
    }

    /// The premultiplied pixel at a continuous position (pixel centres at +0.5), bilinear,
    /// transparent outside the sprite. `pixels` is `premultiplied`'s storage.
    @inline(__always)
    static func sample(_ pixels: UnsafePointer<SIMD4<Float>>, width: Int, height: Int, _ u: Float, _ v: Float) -> SIMD4<Float> {
        let fx = u - 0.5, fy = v - 0.5
        let left = fx.rounded(.down), up = fy.rounded(.down)
        let x0 = Int(left), y0 = Int(up)
        let tx = fx - left, ty = fy - up
        if x0 >= 0 && y0 >= 0 && x0 + 1 < width && y0 + 1 < height {
            // Inside: the four neighbours without a check each.
            let at = pixels + y0 * width + x0
            let top = at[0] + (at[1] - at[0]) * tx
            let bottom = at[width] + (at[width + 1] - at[width]) * tx
            return top + (bottom - top) * ty
        }
        func at(_ x: Int, _ y: Int) -> SIMD4<Float> {
            x >= 0 && y >= 0 && x < width && y < height ? pixels[y * width + x] : .zero
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

    /// Half the width and height of the box a `width`×`height` sprite covers here, turned and
    /// scaled (about its centre).
    public func halfExtents(width: Double, height: Double) -> (x: Double, y: Double) {
        let radians = degrees * .pi / 180
        let (c, s) = (abs(cos(radians)), abs(sin(radians)))
        let halfW = width / 2 * scale, halfH = height / 2 * scale
        return (c * halfW + s * halfH, s * halfW + c * halfH)
    }
}

