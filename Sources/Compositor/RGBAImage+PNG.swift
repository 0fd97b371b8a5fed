import CStoryPNG
import StoryBase
#if canImport(Glibc)
import Glibc
#endif

/// The PNG row filter (`--png-filter`).
public enum PNGFilter: String, Sendable, CaseIterable {
    case none, sub, up, paeth, adaptive

    var cValue: story_png_filter {
        switch self {
        case .none: STORY_PNG_FILTER_NONE
        case .sub: STORY_PNG_FILTER_SUB
        case .up: STORY_PNG_FILTER_UP
        case .paeth: STORY_PNG_FILTER_PAETH
        case .adaptive: STORY_PNG_FILTER_ADAPTIVE
        }
    }
}

/// The deflate strategy (`--png-strategy`), with zlib's meanings: `default` searches for LZ77
/// matches (effort set by the level), `rle` matches only runs of the previous byte, `huffman`
/// matches nothing. The last two are written by `story_png_encode_fast` at every level above 0.
public enum PNGStrategy: String, Sendable, CaseIterable {
    case `default`, rle, huffman

    var cValue: story_png_strategy {
        switch self {
        case .default: STORY_PNG_STRATEGY_DEFAULT
        case .rle: STORY_PNG_STRATEGY_RLE
        case .huffman: STORY_PNG_STRATEGY_HUFFMAN
        }
    }
}

/// How frames are compressed. The defaults favour speed: level 1, the Up filter and run-length
/// matching cost a tenth of libpng's defaults for files about a fifth larger.
public struct PNGOptions: Sendable, Equatable {
    public var level: Int
    public var filter: PNGFilter
    public var strategy: PNGStrategy
    /// RGBA output, straight alpha; without it the alpha channel is dropped (a render flattens a
    /// frame with a transparent background over black first: `RGBAImage.flattenAlpha`).
    public var keepAlpha: Bool

    public init(level: Int = 1, filter: PNGFilter = .up, strategy: PNGStrategy = .rle, keepAlpha: Bool = false) {
        precondition((0...9).contains(level), "PNG level must be 0 to 9")
        self.level = level
        self.filter = filter
        self.strategy = strategy
        self.keepAlpha = keepAlpha
    }
}

// MARK: - Encoding

/// Encodes pictures as PNG into memory it keeps (`story_png_buffer`, freed by
/// `story_png_buffer_free` when the encoder goes). Reused across frames, it allocates nothing
/// per frame once its buffer has grown to a frame's size. Not `Sendable`: its buffer is reused by
/// every call, so each thread keeps an encoder of its own.
public final class PNGEncoder {
    public let options: PNGOptions
    private var buffer = story_png_buffer(bytes: nil, count: 0, capacity: 0)

    public init(options: PNGOptions = PNGOptions()) {
        self.options = options
    }

    deinit {
        story_png_buffer_free(&buffer)
    }

    /// Encodes `image` (`story_png_encode`: libpng's writer, or for the run-length and
    /// Huffman-only strategies with a fixed filter, live-stories' own deflate coder) and passes
    /// the file's bytes to `body`; they are valid only during the call.
    public func withEncoded<Result>(_ image: RGBAImage,
                                    _ body: (UnsafeRawBufferPointer) throws(CompositorError) -> Result)
        throws(CompositorError) -> Result {
        buffer.count = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { rgba in
            story_png_encode(rgba.baseAddress, Int32(image.width), Int32(image.height), image.bytesPerRow,
                             options.keepAlpha ? 1 : 0, Int32(options.level),
                             options.filter.cValue, options.strategy.cValue,
                             &buffer, &message, message.count)
        }
        guard status == 0, let bytes = buffer.bytes else {
            throw CompositorError(.pngEncode, "cannot encode PNG", cause: String(nulTerminated: message))
        }
        return try body(UnsafeRawBufferPointer(start: bytes, count: buffer.count))
    }

    /// Writes `image` as a PNG file, whole or not at all.
    public func write(_ image: RGBAImage, to path: String) throws(CompositorError) {
        try withEncoded(image) { (bytes) throws(CompositorError) in
            do throws(FileError) { try AtomicFile.write(bytes, to: path) } catch { throw CompositorError(error) }
        }
    }
}

extension RGBAImage {
    /// The picture as PNG bytes.
    public func pngData(_ options: PNGOptions = PNGOptions()) throws(CompositorError) -> [UInt8] {
        try PNGEncoder(options: options).withEncoded(self) { Array($0) }
    }

    /// Decodes PNG bytes of any colour type to RGBA, straight into the picture's own pixels
    /// (`story_png_size`, then `story_png_decode`: the direct reader for plain 8-bit RGB and
    /// RGBA files, libpng's simplified reader for the rest).
    public init(pngData: [UInt8]) throws(CompositorError) {
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let sized = pngData.withUnsafeBufferPointer { story_png_size($0.baseAddress, $0.count, &width, &height) }
        var status: Int32 = 1
        let count = sized == 1 ? Int(width) * Int(height) * 4 : 0
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            status = pngData.withUnsafeBufferPointer { png in
                // Without a size, libpng is asked for the reason (it has no buffer to fill).
                story_png_decode(png.baseAddress, png.count, sized == 1 ? buffer.baseAddress : nil, width, height,
                                 &message, message.count)
            }
            initialized = status == 0 ? count : 0
        }
        guard status == 0 else {
            throw CompositorError(.pngDecode, "cannot decode PNG", cause: String(nulTerminated: message))
        }
        self.init(width: Int(width), height: Int(height), pixels: pixels)
    }

    /// Reads a PNG file.
    public init(contentsOfPNG path: String) throws(CompositorError) {
        let bytes: [UInt8]
        do throws(FileError) { bytes = try AtomicFile.read(path) } catch { throw CompositorError(error) }
        try self.init(pngData: bytes)
    }

    /// Writes the picture as a PNG file, whole or not at all.
    public func writePNG(to path: String, options: PNGOptions = PNGOptions()) throws(CompositorError) {
        try PNGEncoder(options: options).write(self, to: path)
    }
}

extension String {
    /// Text from a NUL-terminated C buffer that C code filled in.
    init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
