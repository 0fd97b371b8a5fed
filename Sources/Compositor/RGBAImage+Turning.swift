
extension RGBAImage {
    public static func turnedSize(width w: Int, height h: Int, quarterTurns: Int) -> (width: Int, height: Int) {
        quarterTurns % 2 == 0 ? (w, h) : (h, w)
    }

    /// Copies RGBA rows out of a padded buffer (`stride` bytes apart) to `target`, turning the
    /// picture clockwise by `quarterTurns` × 90° on the way (`turnedSize` wide, no padding).
    /// `mirrored` flips it left to right first, before the turn: that is how the mirrored EXIF
    /// orientations (2, 4, 5, 7) are put upright.
    public static func turn(_ source: UnsafePointer<UInt8>, stride: Int, width w: Int, height h: Int, quarterTurns: Int,
                     mirrored: Bool = false, into target: UnsafeMutablePointer<UInt8>) {
        let turns = ((quarterTurns % 4) + 4) % 4
        let outWidth = turns % 2 == 0 ? w : h
        let raw = UnsafeMutableRawPointer(target)
        if turns == 0 && !mirrored {
            for y in 0..<h { (raw + y * w * 4).copyMemory(from: source + y * stride, byteCount: w * 4) }
            return
        }
        let words = raw.assumingMemoryBound(to: UInt32.self)
        for y in 0..<h {
            let row = UnsafeRawPointer(source + y * stride)
            for sourceX in 0..<w {
                // The column this pixel is in once flipped, then where the turn puts it.
                let x = mirrored ? w - 1 - sourceX : sourceX
                let (dx, dy): (Int, Int) = switch turns {
                case 0: (x, y)
                case 1: (h - 1 - y, x)
                case 2: (w - 1 - x, h - 1 - y)
                default: (y, w - 1 - x)
                }
                words[dy * outWidth + dx] = row.loadUnaligned(fromByteOffset: sourceX * 4, as: UInt32.self)
            }
        }
    }
}

extension RGBAImage {
    /// Bytes kept after the last row of a picture that swscale writes in place.
    public static let writerSlack = 64

    /// A picture whose rows `write` fills in place (`width * 4` bytes apart, no memset first),
    /// with `slack` bytes of storage after the last row for writers that work in blocks. The
    /// rows go into `spare`'s storage when it has this size and is free to be written over
    /// (`rewrite`), else into new storage; `write` runs once either way.
    public init(width w: Int, height h: Int, slack: Int, reusing spare: consuming RGBAImage?,
         _ write: (UnsafeMutablePointer<UInt8>) -> Void) {
        // `take()` leaves this the spare's only owner, so the rewrite copies nothing.
        if var reused = spare.take(), reused.width == w, reused.height == h, reused.rewrite(slack: slack, write) {
            self = reused
            return
        }
        let count = w * h * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: count + slack) { buffer, initialized in
            write(buffer.baseAddress!)
            initialized = count
        }
        self.init(width: w, height: h, pixels: pixels)
    }

    /// Lets `write` fill this picture's rows in place when its storage keeps `slack` bytes after
    /// the last row. Returns false, having written nothing, when it does not. Storage that
    /// another value still shares is copied first (copy-on-write); such a copy has no slack, so
    /// the caller then allocates instead.
    mutating func rewrite(slack: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Void) -> Bool {
        pixels.withUnsafeMutableBufferPointer { _ in } // from here the storage is this value's own
        guard pixels.capacity >= width * height * 4 + slack else { return false }
        pixels.withUnsafeMutableBufferPointer { write($0.baseAddress!) }
        return true
    }
}

extension RGBAImage {
    /// Makes the picture opaque, as a phone shows a transparent photo: over black.
    public mutating func flattenAlpha() {
        pixels.withUnsafeMutableBufferPointer { bytes in
            for i in stride(from: 0, to: bytes.count, by: 4) where bytes[i + 3] != 255 {
                let alpha = UInt16(bytes[i + 3])
                for c in 0..<3 { bytes[i + c] = UInt8((UInt16(bytes[i + c]) * alpha + 127) / 255) }
                bytes[i + 3] = 255
            }
        }
    }
}
