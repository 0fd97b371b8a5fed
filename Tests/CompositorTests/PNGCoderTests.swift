import CStoryPNG
import Compositor
import XCTest

/// The default PNG path's own deflate coder (`story_png_rows.c`, `story_png_code.c`): literals
/// coded 32 at a time in vector lanes, runs found 25 starts per compare, and the scalar path that
/// must write the very same bytes.
final class PNGCoderTests: XCTestCase {
    override func tearDown() {
        story_png_set_simd_enabled(1)
        super.tearDown()
    }

    /// Every width 1-13 (every tail of a 32-byte window, and rows shorter than one) and wider
    /// rows, three seeds each: both paths write the same bytes, and libpng gives back every pixel.
    func testVideoLikePicturesRoundTripOnTheVectorAndScalarPaths() throws {
        let sizes = (1...13).map { ($0, 9) } + [(61, 40), (301, 37)]
        for (width, height) in sizes {
            for seed: UInt64 in 1...3 {
                try assertBothPathsRoundTrip(TestPictures.videoLike(width: width, height: height, seed: seed))
            }
        }
    }

    /// A grey stretch of every length from 1 to 300 pixels (3-900 equal bytes), starting at
    /// every offset within a 32-byte window, the longer ones running into the row's end.
    func testRunsOfEveryLengthAtEveryOffsetRoundTrip() throws {
        let width = 300, height = 300
        var image = TestPictures.videoLike(width: width, height: height, seed: 9)
        for y in 0..<height {
            let start = y % 32, length = y + 1
            for x in start..<min(width, start + length) {
                image[x, y] = RGBAColor(red: 77, green: 77, blue: 77, alpha: 255)
            }
        }
        try assertBothPathsRoundTrip(image)
    }

    /// Runs must be found, and sent short: a flat picture is a small fraction of its
    /// Huffman-only file, on both paths. (Its first row, whose Up residuals repeat every three
    /// bytes, is literals and most of the file.)
    func testFlatPicturesAreRunsOnBothPaths() throws {
        let flat = TestPictures.solid(RGBAColor(red: 12, green: 200, blue: 12), width: 1080, height: 192)
        for simd: Int32 in [1, 0] {
            story_png_set_simd_enabled(simd)
            let rle = try flat.pngData(PNGOptions(level: 1, filter: .up, strategy: .rle))
            let huffman = try flat.pngData(PNGOptions(level: 1, filter: .up, strategy: .huffman))
            XCTAssertLessThan(rle.count * 10, huffman.count, "simd \(simd): rle \(rle.count), huffman \(huffman.count)")
            XCTAssertEqual(try RGBAImage(pngData: rle), flat)
        }
    }

    private func assertBothPathsRoundTrip(_ image: RGBAImage, file: StaticString = #filePath, line: UInt = #line) throws {
        let opaque = TestPictures.opaque(image)
        for filter in [PNGFilter.none, .sub, .up, .paeth] {
            for strategy in [PNGStrategy.rle, .huffman] {
                for keepAlpha in [false, true] {
                    let label = "\(image.width)x\(image.height) \(filter) \(strategy) alpha \(keepAlpha)"
                    let options = PNGOptions(level: 1, filter: filter, strategy: strategy, keepAlpha: keepAlpha)
                    story_png_set_simd_enabled(1)
                    let vector = try image.pngData(options)
                    story_png_set_simd_enabled(0)
                    let scalar = try image.pngData(options)
                    XCTAssertEqual(scalar, vector, label, file: file, line: line)
                    XCTAssertEqual(try RGBAImage(pngData: vector), keepAlpha ? image : opaque, label, file: file, line: line)
                }
            }
        }
    }
}
