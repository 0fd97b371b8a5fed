import Compositor

extension RGBAImage {
    /// The picture turned clockwise by `quarterTurns` × 90°.
    func turnedClockwise(_ quarterTurns: Int) -> RGBAImage {
        let turns = ((quarterTurns % 4) + 4) % 4
        guard turns != 0 else { return self }
        let w = width, h = height
        let outWidth = turns == 2 ? w : h, outHeight = turns == 2 ? h : w
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x in 0..<w {
                        let (dx, dy): (Int, Int) = switch turns {
                        case 1: (h - 1 - y, x)
                        case 2: (w - 1 - x, h - 1 - y)
                        default: (y, w - 1 - x)
                        }
                        let s = (y * w + x) * 4, d = (dy * outWidth + dx) * 4
                        dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]; dst[d + 3] = src[s + 3]
                    }
                }
            }
        }
        return RGBAImage(width: outWidth, height: outHeight, pixels: out)
    }
}

extension RGBAImage {
    /// Makes the picture opaque, as a phone shows a transparent photo: over black.
    mutating func flattenAlpha() {
        pixels.withUnsafeMutableBufferPointer { bytes in
            for i in stride(from: 0, to: bytes.count, by: 4) where bytes[i + 3] != 255 {
                let alpha = UInt16(bytes[i + 3])
                for c in 0..<3 { bytes[i + c] = UInt8((UInt16(bytes[i + c]) * alpha + 127) / 255) }
                bytes[i + 3] = 255
            }
        }
    }
}
