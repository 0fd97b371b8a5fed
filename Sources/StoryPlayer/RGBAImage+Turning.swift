import Compositor

extension RGBAImage {
    /// Copies RGBA rows out of a padded buffer (`stride` bytes apart), turning the picture
    /// clockwise by `quarterTurns` × 90° on the way.
    init(turning source: UnsafePointer<UInt8>, stride: Int, width w: Int, height h: Int, quarterTurns: Int) {
        let turns = ((quarterTurns % 4) + 4) % 4
        let outWidth = turns % 2 == 0 ? w : h, outHeight = turns % 2 == 0 ? h : w
        var out = [UInt8](repeating: 0, count: w * h * 4)
        out.withUnsafeMutableBufferPointer { buffer in
            let target = UnsafeMutableRawPointer(buffer.baseAddress!)
            if turns == 0 {
                for y in 0..<h { (target + y * w * 4).copyMemory(from: source + y * stride, byteCount: w * 4) }
                return
            }
            let words = target.assumingMemoryBound(to: UInt32.self)
            for y in 0..<h {
                let row = UnsafeRawPointer(source + y * stride)
                for x in 0..<w {
                    let (dx, dy): (Int, Int) = switch turns {
                    case 1: (h - 1 - y, x)
                    case 2: (w - 1 - x, h - 1 - y)
                    default: (y, w - 1 - x)
                    }
                    words[dy * outWidth + dx] = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                }
            }
        }
        self.init(width: outWidth, height: outHeight, pixels: out)
    }
}

extension RGBAImage {
    /// A picture whose rows `write` fills in place (`width * 4` bytes apart, no memset first).
    /// The storage keeps 64 bytes of slack after the last row for writers that work in blocks.
    init(writingWidth w: Int, height h: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Void) {
        let count = w * h * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: count + 64) { buffer, initialized in
            write(buffer.baseAddress!)
            initialized = count
        }
        self.init(width: w, height: h, pixels: pixels)
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
