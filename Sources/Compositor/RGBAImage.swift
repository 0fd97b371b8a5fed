/// An 8-bit RGBA picture in memory, rows top to bottom, no padding between rows.
///
/// Story textures, canvases and posters are all `RGBAImage`s. It is a value type with
/// copy-on-write storage, so handing a texture to another thread copies nothing.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 4` bytes: R, G, B, A for each pixel.
    public var pixels: [UInt8]

    /// A picture filled with one colour.
    public init(width: Int, height: Int, fill: RGBAColor = .black) {
        precondition(width > 0 && height > 0, "an image needs a positive size")
        self.width = width
        self.height = height
        var row = [UInt8](repeating: 0, count: width * 4)
        for x in 0..<width {
            row[x * 4] = fill.red; row[x * 4 + 1] = fill.green
            row[x * 4 + 2] = fill.blue; row[x * 4 + 3] = fill.alpha
        }
        var all = [UInt8]()
        all.reserveCapacity(width * height * 4)
        for _ in 0..<height { all.append(contentsOf: row) }
        self.pixels = all
    }

    /// Wraps existing RGBA bytes.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "an image needs a positive size")
        precondition(pixels.count == width * height * 4, "pixel count does not match the size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    @inlinable public var bytesPerRow: Int { width * 4 }

    /// Copies `other`'s pixels into this picture's storage, which is reused when this value is
    /// its only owner (copy-on-write allocates otherwise). Both must have the same size.
    public mutating func copyPixels(from other: RGBAImage) {
        precondition(other.width == width && other.height == height, "copying pixels between different sizes")
        pixels.withUnsafeMutableBufferPointer { target in
            other.pixels.withUnsafeBufferPointer { source in
                target.baseAddress!.update(from: source.baseAddress!, count: source.count)
            }
        }
    }

    /// The bytes of the top `rows` rows, to put back with `restoreTopRows(_:)`.
    public func topRows(_ rows: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        copyTopRows(rows, into: &bytes)
        return bytes
    }

    /// `topRows(_:)` into `buffer`, whose storage is reused (a band of a 1080-wide picture is
    /// ~400 KB, which would otherwise be mapped and unmapped on every frame).
    public func copyTopRows(_ rows: Int, into buffer: inout [UInt8]) {
        precondition(rows >= 0 && rows <= height, "\(rows) rows of a picture \(height) high")
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: pixels[..<(rows * bytesPerRow)])
    }

    /// Writes back rows that `topRows(_:)` kept, in place when this value is its storage's only
    /// owner.
    public mutating func restoreTopRows(_ bytes: [UInt8]) {
        precondition(bytes.count <= pixels.count && bytes.count % bytesPerRow == 0, "not whole rows of this picture")
        pixels.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                target.baseAddress!.update(from: source.baseAddress!, count: source.count)
            }
        }
    }

    /// The colour at a pixel; for tests and probes, not for inner loops.
    public subscript(x: Int, y: Int) -> RGBAColor {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside the image")
            let i = (y * width + x) * 4
            return RGBAColor(red: pixels[i], green: pixels[i + 1], blue: pixels[i + 2], alpha: pixels[i + 3])
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside the image")
            let i = (y * width + x) * 4
            pixels[i] = newValue.red; pixels[i + 1] = newValue.green
            pixels[i + 2] = newValue.blue; pixels[i + 3] = newValue.alpha
        }
    }

    /// The same picture with rows and columns exchanged.
    public func transposed() -> RGBAImage {
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                let s = (y * width + x) * 4
                let d = (x * height + y) * 4
                out[d] = pixels[s]; out[d + 1] = pixels[s + 1]; out[d + 2] = pixels[s + 2]; out[d + 3] = pixels[s + 3]
            }
        }
        return RGBAImage(width: height, height: width, pixels: out)
    }

    /// Fills the whole picture with one colour, reusing its storage.
    public mutating func fill(_ color: RGBAColor) {
        pixels.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt32.self)
            let word = color.packed
            for i in words.indices { words[i] = word }
        }
    }

    /// Fills the rectangle of `columns` × `rows` (which must lie inside the picture) with one
    /// colour: a region put back to the background before it is drawn again.
    public mutating func fill(_ color: RGBAColor, columns: Range<Int>, rows: Range<Int>) {
        precondition(columns.lowerBound >= 0 && columns.upperBound <= width && rows.lowerBound >= 0 && rows.upperBound <= height,
                     "filling outside the picture")
        let width = self.width
        pixels.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt32.self)
            let word = color.packed
            for y in rows { for x in columns { words[y * width + x] = word } }
        }
    }
}

/// An 8-bit RGBA colour.
public struct RGBAColor: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }

    public static let black = RGBAColor(red: 0, green: 0, blue: 0)
    public static let white = RGBAColor(red: 255, green: 255, blue: 255)
    /// CSS's `transparent`: black with alpha 0.
    public static let transparent = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// Whether the colour hides what is under it (alpha 255).
    public var isOpaque: Bool { alpha == 255 }

    /// The same colour with alpha 255.
    public var opaque: RGBAColor { RGBAColor(red: red, green: green, blue: blue) }

    public var description: String {
        "rgba(\(red), \(green), \(blue), \(alpha))"
    }

    /// The four bytes as one little-endian word, in memory order R, G, B, A.
    var packed: UInt32 {
        UInt32(red) | UInt32(green) << 8 | UInt32(blue) << 16 | UInt32(alpha) << 24
    }

    /// The largest difference in any channel, for "within N levels" comparisons.
    public func distance(to other: RGBAColor) -> Int {
        max(abs(Int(red) - Int(other.red)), abs(Int(green) - Int(other.green)),
            abs(Int(blue) - Int(other.blue)), abs(Int(alpha) - Int(other.alpha)))
    }
}
