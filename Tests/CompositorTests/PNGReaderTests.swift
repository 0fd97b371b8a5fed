import CStoryPNG
import Compositor
import XCTest

/// The direct PNG reader (`story_png_decode_direct`, libdeflate): it takes every plain file
/// the writers make and gives libpng's pixels for it; a file with a chunk that changes the
/// pixels, or any damage, it leaves to libpng.
final class PNGReaderTests: XCTestCase {
    override func tearDown() {
        story_png_set_simd_enabled(1)
        super.tearDown()
    }

    /// Every filter (the adaptive one mixes all five per row, Average included), RGB and RGBA,
    /// our coder and libpng's at two levels: read directly, and the same bytes as libpng's, on
    /// the vector paths (SSE2 Up, SSSE3 RGB to RGBA) and without them.
    func testEveryFilterAndLayoutReadsAsLibpngDoes() throws {
        let image = TestPictures.videoLike(width: 61, height: 40, seed: 5)
        for simd: Int32 in [1, 0] {
            story_png_set_simd_enabled(simd)
            try assertReadAsLibpngDoes(image)
        }
        // Fewer pixels than one vector step of the RGB spread, and a single column.
        try assertReadAsLibpngDoes(TestPictures.videoLike(width: 3, height: 4, seed: 6))
        try assertReadAsLibpngDoes(TestPictures.videoLike(width: 1, height: 33, seed: 7))
    }

    private func assertReadAsLibpngDoes(_ image: RGBAImage) throws {
        for filter in [PNGFilter.none, .sub, .up, .paeth, .adaptive] {
            for (level, strategy) in [(1, PNGStrategy.rle), (1, .huffman), (6, .default), (0, .default)] {
                for keepAlpha in [false, true] {
                    let label = "\(filter) level \(level) \(strategy) alpha \(keepAlpha)"
                    let png = try image.pngData(PNGOptions(level: level, filter: filter, strategy: strategy, keepAlpha: keepAlpha))
                    let direct = try XCTUnwrap(Self.readDirectly(png), label)
                    XCTAssertEqual(direct, try Self.readWithLibpng(png), label)
                    XCTAssertEqual(direct, keepAlpha ? image : TestPictures.opaque(image), label)
                }
            }
        }
    }

    /// A file whose image data spans several IDAT chunks (libpng writes one a megabyte) is
    /// joined and read directly.
    func testImageDataInSeveralChunksIsJoined() throws {
        let image = TestPictures.noisyBands(width: 700, height: 500)
        let png = try image.pngData(PNGOptions(level: 0, filter: .none, strategy: .default, keepAlpha: true))
        XCTAssertGreaterThan(Self.chunkTypes(png).filter { $0 == "IDAT" }.count, 1)
        XCTAssertEqual(try XCTUnwrap(Self.readDirectly(png)), image)
    }

    /// Text, time and sRGB chunks change nothing and are read past; gAMA, tRNS and iCCP change
    /// what libpng gives, so those files are libpng's to read.
    func testChunksThatChangeThePixelsAreLeftToLibpng() throws {
        let image = TestPictures.videoLike(width: 20, height: 12, seed: 2)
        let png = try image.pngData()
        for (type, body) in [("tEXt", Array("Software\0live-stories".utf8)), ("sRGB", [0]), ("tIME", [7, 234, 12, 7, 13, 0, 0])] {
            let file = Self.inserting(type, body, into: png)
            XCTAssertEqual(try XCTUnwrap(Self.readDirectly(file), type), try Self.readWithLibpng(file), type)
        }
        let gamma = Self.inserting("gAMA", [0, 0, 0x3a, 0x98], into: png) // 1/1.5, far from sRGB's
        XCTAssertNil(Self.readDirectly(gamma))
        XCTAssertNotEqual(try RGBAImage(pngData: gamma), TestPictures.opaque(image), "libpng applies the gamma")
        XCTAssertNil(Self.readDirectly(Self.inserting("tRNS", [0, 1, 0, 2, 0, 3], into: png)))
        XCTAssertNil(Self.readDirectly(Self.inserting("iCCP", Array("icc\0\0".utf8), into: png)))
    }

    /// A wrong CRC, a cut file, a damaged deflate stream or an unknown row filter: the direct
    /// reader declines, and `story_png_decode` says what libpng says.
    func testDamagedFilesAreLeftToLibpng() throws {
        let image = TestPictures.videoLike(width: 33, height: 17, seed: 3)
        let png = try image.pngData()
        let idat = try XCTUnwrap(Self.chunkOffsets(png).first { $0.type == "IDAT" })

        var badCRC = png
        badCRC[idat.body + 3] ^= 0x40
        XCTAssertNil(Self.readDirectly(badCRC))
        XCTAssertThrowsError(try RGBAImage(pngData: badCRC))

        XCTAssertNil(Self.readDirectly(Array(png[..<(png.count - 20)])))
        XCTAssertThrowsError(try RGBAImage(pngData: Array(png[..<(png.count - 20)])))

        // The deflate stream damaged under a correct CRC: libdeflate refuses it.
        var badStream = png
        badStream[idat.body + 2] ^= 0xff
        Self.fixCRC(&badStream, chunk: idat)
        XCTAssertNil(Self.readDirectly(badStream))
        XCTAssertEqual(try? RGBAImage(pngData: badStream), try? Self.readWithLibpng(badStream))

        // Row filter 9 under a correct stream: level 0 stores the rows as they are.
        var stored = try image.pngData(PNGOptions(level: 0, filter: .none, strategy: .default))
        let storedIDAT = try XCTUnwrap(Self.chunkOffsets(stored).first { $0.type == "IDAT" })
        // zlib header (2) + stored block header (5): the first row's filter byte.
        XCTAssertEqual(stored[storedIDAT.body + 7], 0)
        stored[storedIDAT.body + 7] = 9
        Self.fixAdler(&stored, chunk: storedIDAT)
        Self.fixCRC(&stored, chunk: storedIDAT)
        XCTAssertNil(Self.readDirectly(stored))
        XCTAssertThrowsError(try RGBAImage(pngData: stored))
    }

    /// A header claiming more than libpng takes (a million pixels a side, 4 GiB of RGBA) is
    /// an error libpng names, not an allocation that stops the process; a second palette
    /// (which libpng refuses) is left to it.
    func testHugeHeadersAndPalettesAreLibpngs() throws {
        var png = try TestPictures.videoLike(width: 8, height: 8, seed: 1).pngData()
        let header = Self.chunkOffsets(png)[0]
        for (width, height) in [(1_000_000, 1_000_000), (40_000, 40_000), (1_000_001, 1)] {
            png.replaceSubrange(16..<20, with: Self.bigEndian(UInt32(width)))
            png.replaceSubrange(20..<24, with: Self.bigEndian(UInt32(height)))
            Self.fixCRC(&png, chunk: header)
            var w: Int32 = 0, h: Int32 = 0
            XCTAssertEqual(png.withUnsafeBufferPointer { story_png_size($0.baseAddress, $0.count, &w, &h) }, 0, "\(width)x\(height)")
            XCTAssertThrowsError(try RGBAImage(pngData: png), "\(width)x\(height)")
        }
        let plain = try TestPictures.videoLike(width: 8, height: 8, seed: 1).pngData()
        let palette = Self.inserting("PLTE", [1, 2, 3], into: plain)
        XCTAssertNil(Self.readDirectly(palette))
        XCTAssertNil(Self.readDirectly(Self.inserting("PLTE", [1, 2, 3], into: palette)))
    }

    /// Frames that are not plain (16-bit, grey, palette, interlaced) go to libpng untouched.
    func testOtherLayoutsAreLibpngs() throws {
        let png = try TestPictures.videoLike(width: 8, height: 8, seed: 1).pngData()
        for (offset, value, label) in [(24, 16, "16-bit"), (25, 0, "grey"), (25, 3, "palette"), (28, 1, "interlaced")] {
            var file = png
            file[offset] = UInt8(value)
            Self.fixCRC(&file, chunk: Self.chunkOffsets(file)[0])
            XCTAssertNil(Self.readDirectly(file), label)
        }
    }

    // MARK: - Helpers

    static func readDirectly(_ png: [UInt8]) -> RGBAImage? {
        var width: Int32 = 0, height: Int32 = 0
        guard png.withUnsafeBufferPointer({ story_png_size($0.baseAddress, $0.count, &width, &height) }) == 1 else { return nil }
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
        let taken = png.withUnsafeBufferPointer { file in
            pixels.withUnsafeMutableBufferPointer { story_png_decode_direct(file.baseAddress, file.count, $0.baseAddress, width, height) }
        }
        return taken == 1 ? RGBAImage(width: Int(width), height: Int(height), pixels: pixels) : nil
    }

    static func readWithLibpng(_ png: [UInt8]) throws -> RGBAImage {
        story_png_set_direct_read_enabled(0)
        defer { story_png_set_direct_read_enabled(1) }
        return try RGBAImage(pngData: png)
    }

    static func chunkOffsets(_ png: [UInt8]) -> [(type: String, start: Int, body: Int, length: Int)] {
        var chunks: [(String, Int, Int, Int)] = []
        var at = 8
        while at + 12 <= png.count {
            let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            chunks.append((String(decoding: png[at + 4..<at + 8], as: UTF8.self), at, at + 8, length))
            at += length + 12
        }
        return chunks
    }

    static func chunkTypes(_ png: [UInt8]) -> [String] { chunkOffsets(png).map(\.type) }

    /// `png` with a chunk of `type` and `body` after IHDR.
    static func inserting(_ type: String, _ body: [UInt8], into png: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        let crc = typed.withUnsafeBufferPointer { story_png_crc32(0, $0.baseAddress, $0.count) }
        let chunk = bigEndian(UInt32(body.count)) + typed + bigEndian(crc)
        return Array(png[..<33]) + chunk + Array(png[33...])
    }

    static func fixCRC(_ png: inout [UInt8], chunk: (type: String, start: Int, body: Int, length: Int)) {
        let crc = png[(chunk.start + 4)..<(chunk.body + chunk.length)].withUnsafeBufferPointer {
            story_png_crc32(0, $0.baseAddress, $0.count)
        }
        png.replaceSubrange((chunk.body + chunk.length)..<(chunk.body + chunk.length + 4), with: bigEndian(crc))
    }

    /// A stored (level 0) stream's Adler-32 after its bytes were changed: one stored block.
    static func fixAdler(_ png: inout [UInt8], chunk: (type: String, start: Int, body: Int, length: Int)) {
        let data = Array(png[(chunk.body + 7)..<(chunk.body + chunk.length - 4)])
        let adler = data.withUnsafeBufferPointer { story_png_adler32(1, $0.baseAddress, $0.count) }
        png.replaceSubrange((chunk.body + chunk.length - 4)..<(chunk.body + chunk.length), with: bigEndian(adler))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }
}
