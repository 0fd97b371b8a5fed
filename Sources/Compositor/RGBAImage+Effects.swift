import Foundation

// Picture effects for the loading state: scaling, blur, darkening, crossfades.

extension RGBAImage {
    /// The picture resampled to `width`×`height` (bilinear, texel centres aligned).
    public func scaled(width: Int, height: Int) -> RGBAImage {
        if width == self.width && height == self.height { return self }
        guard self.width >= 2, self.height >= 2 else {
            return RGBAImage(width: width, height: height, fill: self[0, 0])
        }
        var out = RGBAImage(width: width, height: height)
        let sampler = BilinearSampler(texture: self)
        pixels.withUnsafeBufferPointer { source in
            let base = UnsafeRawPointer(source.baseAddress!)
            out.pixels.withUnsafeMutableBytes { target in
                for y in 0..<height {
                    let v = (Float(y) + 0.5) / Float(height)
                    for x in 0..<width {
                        let value = sampler.sample(base, u: (Float(x) + 0.5) / Float(width), v: v)
                        target.storeBytes(of: BilinearSampler.pack(value), toByteOffset: (y * width + x) * 4, as: UInt32.self)
                    }
                }
            }
        }
        return out
    }

    /// Three passes of a box blur of `radius` pixels, horizontally and vertically: close to a
    /// Gaussian with σ ≈ radius, at a cost independent of the radius.
    public func blurred(radius: Int) -> RGBAImage {
        guard radius > 0 else { return self }
        var out = self
        for _ in 0..<3 {
            out.boxBlurRows(radius: radius)
            out = out.transposed()
            out.boxBlurRows(radius: radius)
            out = out.transposed()
        }
        return out
    }

    /// A running-sum box blur along each row, edges clamped.
    mutating func boxBlurRows(radius: Int) {
        let w = width, h = height
        let window = 2 * radius + 1
        pixels.withUnsafeMutableBufferPointer { bytes in
            var row = [Int32](repeating: 0, count: w * 4)
            for y in 0..<h {
                let start = y * w * 4
                for i in 0..<(w * 4) { row[i] = Int32(bytes[start + i]) }
                for c in 0..<3 {
                    var sum: Int32 = 0
                    for k in -radius...radius { sum += row[min(max(k, 0), w - 1) * 4 + c] }
                    for x in 0..<w {
                        bytes[start + x * 4 + c] = UInt8((sum + Int32(window / 2)) / Int32(window))
                        let leaving = row[min(max(x - radius, 0), w - 1) * 4 + c]
                        let entering = row[min(x + radius + 1, w - 1) * 4 + c]
                        sum += entering - leaving
                    }
                }
            }
        }
    }

    /// Multiplies the colour by `factor` (0…1).
    public mutating func darken(by factor: Double) {
        let scale = UInt32(max(0, min(1, factor)) * 256)
        pixels.withUnsafeMutableBufferPointer { bytes in
            for i in stride(from: 0, to: bytes.count, by: 4) {
                bytes[i] = UInt8((UInt32(bytes[i]) * scale) >> 8)
                bytes[i + 1] = UInt8((UInt32(bytes[i + 1]) * scale) >> 8)
                bytes[i + 2] = UInt8((UInt32(bytes[i + 2]) * scale) >> 8)
            }
        }
    }

    /// The largest centred square of the picture.
    public func centreSquare() -> RGBAImage {
        let side = min(width, height)
        let x0 = (width - side) / 2, y0 = (height - side) / 2
        var out = RGBAImage(width: side, height: side)
        for y in 0..<side {
            let source = ((y0 + y) * width + x0) * 4
            out.pixels.replaceSubrange((y * side * 4)..<((y + 1) * side * 4), with: pixels[source..<(source + side * 4)])
        }
        return out
    }

    /// `self` faded towards `other` by `amount` (0 keeps `self`, 1 gives `other`). Same size.
    public func crossfaded(to other: RGBAImage, amount: Double) -> RGBAImage {
        precondition(other.width == width && other.height == height, "crossfading pictures of different sizes")
        let weight = UInt32(max(0, min(1, amount)) * 256)
        var out = self
        out.pixels.withUnsafeMutableBufferPointer { target in
            other.pixels.withUnsafeBufferPointer { source in
                for i in 0..<target.count {
                    let a = UInt32(target[i]), b = UInt32(source[i])
                    target[i] = UInt8((a * (256 - weight) + b * weight) >> 8)
                }
            }
        }
        return out
    }
}
