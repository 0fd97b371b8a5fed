import CStoryPNG
import Compositor
import Foundation
import XCTest

final class PNGTests: XCTestCase {
    func testRoundTripKeepsEveryPixelWithAlpha() throws {
        var image = TestPictures.ramp(width: 37, height: 23, blue: 99)
        image[3, 4] = RGBAColor(red: 1, green: 2, blue: 3, alpha: 128)
        for filter in PNGFilter.allCases {
            for strategy in PNGStrategy.allCases {
                for level in [0, 1, 6, 9] {
                    let data = try image.pngData(PNGOptions(level: level, filter: filter, strategy: strategy, keepAlpha: true))
                    XCTAssertEqual(try RGBAImage(pngData: data), image, "\(filter) \(strategy) \(level)")
                }
            }
        }
    }

    /// Several deflate blocks (the writer cuts one per 64 KiB of rows), runs that cross rows and
    /// blocks, and noise: every setting must give back the same pixels. The narrow picture's runs
    /// stay below deflate's longest match, so its codes leave the top length symbols unused.
    func testEveryWriterSettingKeepsEveryPixelOfLargePictures() throws {
        for (width, height) in [(301, 263), (61, 400)] {
            try assertEveryWriterSettingRoundTrips(TestPictures.noisyBands(width: width, height: height))
        }
    }

    /// The RGB row filters work four pixels at a time with a scalar tail: every width around
    /// that step, down to one pixel, must come back exact.
    func testNarrowPicturesOfEveryWidthRoundTrip() throws {
        for width in 1...13 {
            try assertEveryWriterSettingRoundTrips(TestPictures.noisyBands(width: width, height: 5))
        }
    }

    /// The scalar fallbacks (no SSSE3 filter, AVX2 Adler-32 or PCLMUL CRC-32) must write the
    /// very bytes the vector paths write, at every narrow width and on a picture with many rows.
    func testScalarPathsWriteTheSameBytesAsTheVectorPaths() throws {
        defer { story_png_set_simd_enabled(1) }
        var pictures = (1...13).map { TestPictures.noisyBands(width: $0, height: 5) }
        pictures.append(TestPictures.noisyBands(width: 301, height: 263))
        for image in pictures {
            for filter in [PNGFilter.none, .sub, .up, .paeth] {
                for keepAlpha in [false, true] {
                    let options = PNGOptions(level: 1, filter: filter, strategy: .rle, keepAlpha: keepAlpha)
                    story_png_set_simd_enabled(1)
                    let vector = try image.pngData(options)
                    story_png_set_simd_enabled(0)
                    let scalar = try image.pngData(options)
                    XCTAssertEqual(scalar, vector, "\(image.width)x\(image.height) \(filter) alpha \(keepAlpha)")
                }
            }
            story_png_set_simd_enabled(0)
            try assertEveryWriterSettingRoundTrips(image)
            story_png_set_simd_enabled(1)
        }
    }

    /// The folded CRC-32 against the bitwise definition (reflected 0xEDB88320): every length
    /// around its 16- and 64-byte steps, misaligned, chained from a non-zero value.
    func testCRC32MatchesTheDefinition() {
        func reference(_ crc: UInt32, _ bytes: ArraySlice<UInt8>) -> UInt32 {
            var c = ~crc
            for byte in bytes {
                c ^= UInt32(byte)
                for _ in 0..<8 { c = c & 1 == 1 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
            }
            return ~c
        }
        let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 11) }
        for length in Array(0...200) + [1023, 1024, 4093] {
            for offset in [0, 1, 5] where offset + length <= bytes.count {
                let slice = bytes[offset..<(offset + length)]
                for start: UInt32 in [0, 0xDEAD_BEEF] {
                    let folded = slice.withUnsafeBufferPointer { story_png_crc32(start, $0.baseAddress, $0.count) }
                    XCTAssertEqual(folded, reference(start, slice), "length \(length) offset \(offset)")
                }
            }
        }
    }

    private func assertEveryWriterSettingRoundTrips(_ image: RGBAImage, file: StaticString = #filePath, line: UInt = #line) throws {
        var opaque = image
        for y in 0..<image.height {
            for x in 0..<image.width { opaque[x, y].alpha = 255 }
        }
        for filter in PNGFilter.allCases {
            for strategy in PNGStrategy.allCases {
                for level in [0, 1, 9] {
                    let label = "\(image.width)x\(image.height) \(filter) \(strategy) \(level)"
                    let rgba = try image.pngData(PNGOptions(level: level, filter: filter, strategy: strategy, keepAlpha: true))
                    XCTAssertEqual(try RGBAImage(pngData: rgba), image, label, file: file, line: line)
                    let rgb = try image.pngData(PNGOptions(level: level, filter: filter, strategy: strategy))
                    XCTAssertEqual(try RGBAImage(pngData: rgb), opaque, label, file: file, line: line)
                }
            }
        }
    }

    /// One row wider than a stored deflate block (65535 bytes) of incompressible noise.
    func testRowsWiderThanAStoredBlockRoundTrip() throws {
        let image = TestPictures.noisyBands(width: 23_000, height: 3)
        let data = try image.pngData(PNGOptions(level: 1, filter: .none, strategy: .huffman, keepAlpha: true))
        XCTAssertEqual(try RGBAImage(pngData: data), image)
    }

    /// The run-length strategy must find runs, not just Huffman-code every byte.
    func testRunLengthStrategyCompressesFlatPicturesFarBelowHuffmanOnly() throws {
        let flat = TestPictures.solid(RGBAColor(red: 12, green: 12, blue: 12), width: 640, height: 360)
        let rle = try flat.pngData(PNGOptions(level: 1, filter: .up, strategy: .rle))
        let huffman = try flat.pngData(PNGOptions(level: 1, filter: .up, strategy: .huffman))
        XCTAssertLessThan(rle.count * 20, huffman.count, "rle \(rle.count) bytes, huffman \(huffman.count)")
        XCTAssertEqual(try RGBAImage(pngData: rle), flat)
    }

    /// A frame writer reuses one encoder's buffer for frame after frame: each file must be what
    /// a fresh encoder writes, whatever the previous frame left in the buffer.
    func testAReusedEncoderWritesWhatAFreshOneWrites() throws {
        let large = TestPictures.noisyBands(width: 120, height: 90)
        let small = TestPictures.ramp(width: 9, height: 7)
        for options in [PNGOptions(), PNGOptions(level: 6, filter: .adaptive, strategy: .default)] {
            let encoder = PNGEncoder(options: options)
            for image in [large, small, large] {
                let reused = try encoder.withEncoded(image) { Array($0) }
                XCTAssertEqual(reused, try image.pngData(options))
            }
        }
    }

    func testCopyPixelsReusesTheTargetStorage() {
        var target = TestPictures.solid(.white, width: 5, height: 4)
        let source = TestPictures.ramp(width: 5, height: 4)
        let storage = target.pixels.withUnsafeBufferPointer { $0.baseAddress }
        target.copyPixels(from: source)
        XCTAssertEqual(target, source)
        XCTAssertEqual(target.pixels.withUnsafeBufferPointer { $0.baseAddress }, storage)
    }

    func testRGBOutputDropsAlphaAndIsSmaller() throws {
        var image = TestPictures.ramp(width: 64, height: 64)
        image[0, 0] = RGBAColor(red: 9, green: 8, blue: 7, alpha: 10)
        let rgb = try image.pngData(PNGOptions(level: 0))
        let rgba = try image.pngData(PNGOptions(level: 0, keepAlpha: true))
        XCTAssertLessThan(rgb.count, rgba.count)
        // Colour type 2 (RGB) in the IHDR chunk, byte 25 of the file.
        XCTAssertEqual(rgb[25], 2)
        XCTAssertEqual(rgba[25], 6)
        let decoded = try RGBAImage(pngData: rgb)
        XCTAssertEqual(decoded[0, 0], RGBAColor(red: 9, green: 8, blue: 7, alpha: 255))
        XCTAssertEqual(decoded[5, 5], image[5, 5])
    }

    func testGarbageIsAnErrorNotACrash() {
        XCTAssertThrowsError(try RGBAImage(pngData: [0x89, 0x50, 0x4E, 0x47, 1, 2, 3]))
    }

    func testAtomicWriteLeavesNoTemporaryFileAndReplacesWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/frame.png"
        try TestPictures.ramp(width: 10, height: 10).writePNG(to: path)
        try TestPictures.solid(.white, width: 4, height: 4).writePNG(to: path)
        XCTAssertEqual(try RGBAImage(contentsOfPNG: path).width, 4)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["frame.png"])
        XCTAssertThrowsError(try TestPictures.ramp(width: 4, height: 4).writePNG(to: folder + "/missing/frame.png"))
    }
}
