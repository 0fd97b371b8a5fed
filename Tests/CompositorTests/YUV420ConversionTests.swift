import Compositor
import XCTest

/// The canvas into an encoder's 4:2:0 picture (`RGBAImage.writeYUV420`): each sample against the
/// matrix computed in doubles, the known corners of the colour cube, and a one-pixel line's colour
/// kept in the chroma of its block.
final class YUV420ConversionTests: XCTestCase {
    struct Planes {
        var luma: [UInt8], blue: [UInt8], red: [UInt8]
        let lumaStride: Int, chromaStride: Int
    }

    /// `image` converted into planes whose rows are `padding` bytes longer than the picture's,
    /// the padding filled with 7s.
    func convert(_ image: RGBAImage, matrix: YUVMatrix, padding: Int = 0) -> Planes {
        let lumaStride = image.width + padding, chromaStride = image.width / 2 + padding
        var planes = Planes(luma: [UInt8](repeating: 7, count: lumaStride * image.height),
                            blue: [UInt8](repeating: 7, count: chromaStride * image.height / 2),
                            red: [UInt8](repeating: 7, count: chromaStride * image.height / 2),
                            lumaStride: lumaStride, chromaStride: chromaStride)
        planes.luma.withUnsafeMutableBufferPointer { luma in
            planes.blue.withUnsafeMutableBufferPointer { blue in
                planes.red.withUnsafeMutableBufferPointer { red in
                    image.writeYUV420(luma: luma.baseAddress!, lumaStride: lumaStride, blueDifference: blue.baseAddress!,
                                      redDifference: red.baseAddress!, chromaStride: chromaStride, matrix: matrix)
                }
            }
        }
        return planes
    }

    /// Y, Cb, Cr of a colour in doubles, limited range.
    func reference(_ r: Double, _ g: Double, _ b: Double, _ m: YUVMatrix) -> (y: Double, cb: Double, cr: Double) {
        let kg = 1 - m.kr - m.kb
        let y = m.kr * r + kg * g + m.kb * b
        return (16 + 219 * y / 255, 128 + 224 * (b - y) / (2 * (1 - m.kb)) / 255, 128 + 224 * (r - y) / (2 * (1 - m.kr)) / 255)
    }

    func noise(width: Int, height: Int, seed: UInt64) -> RGBAImage {
        var random = SplitMix64(seed: seed)
        return RGBAImage(width: width, height: height, pixels: (0..<(width * height * 4)).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    func testEverySampleIsTheMatrixRoundedWithinALevel() {
        // Widths below, at and past the eight-pixel vector loop, so the tail is covered too.
        for (width, height) in [(2, 2), (6, 4), (8, 2), (14, 6), (22, 10), (64, 8)] {
            for matrix in [YUVMatrix.bt709, .bt601] {
                let image = noise(width: width, height: height, seed: UInt64(width * 100 + height))
                let planes = convert(image, matrix: matrix, padding: 3)
                var off = 0
                for y in 0..<height {
                    for x in 0..<width {
                        let p = image[x, y]
                        let want = reference(Double(p.red), Double(p.green), Double(p.blue), matrix).y
                        let got = Double(planes.luma[y * planes.lumaStride + x])
                        XCTAssertLessThanOrEqual(abs(got - want), 1, "Y at \(x),\(y) of \(width)x\(height)")
                        if abs(got - want.rounded()) > 0 { off += 1 }
                    }
                }
                // Fixed point moves a sample off the double's rounding only at a half level.
                XCTAssertLessThanOrEqual(off, width * height / 50 + 1, "\(width)x\(height)")
                for y in 0..<(height / 2) {
                    for x in 0..<(width / 2) {
                        let block = [image[2 * x, 2 * y], image[2 * x + 1, 2 * y], image[2 * x, 2 * y + 1], image[2 * x + 1, 2 * y + 1]]
                        let mean = { (channel: (RGBAColor) -> UInt8) in block.map { Double(channel($0)) }.reduce(0, +) / 4 }
                        let want = reference(mean { $0.red }, mean { $0.green }, mean { $0.blue }, matrix)
                        XCTAssertLessThanOrEqual(abs(Double(planes.blue[y * planes.chromaStride + x]) - want.cb), 1, "Cb at \(x),\(y)")
                        XCTAssertLessThanOrEqual(abs(Double(planes.red[y * planes.chromaStride + x]) - want.cr), 1, "Cr at \(x),\(y)")
                    }
                    XCTAssertEqual(planes.blue[y * planes.chromaStride + width / 2], 7, "padding written")
                }
                for y in 0..<height { XCTAssertEqual(planes.luma[y * planes.lumaStride + width], 7, "padding written") }
            }
        }
    }

    func testTheCornersOfTheColourCube() {
        func yuv(_ color: RGBAColor, _ matrix: YUVMatrix) -> [UInt8] {
            let planes = convert(RGBAImage(width: 16, height: 2, fill: color), matrix: matrix)
            return [planes.luma[0], planes.blue[0], planes.red[0]]
        }
        XCTAssertEqual(yuv(.white, .bt709), [235, 128, 128])
        XCTAssertEqual(yuv(.black, .bt709), [16, 128, 128])
        // The published limited-range values of the primaries (ITU-R BT.709 and BT.601 bars).
        XCTAssertEqual(yuv(RGBAColor(red: 255, green: 0, blue: 0), .bt709), [63, 102, 240])
        XCTAssertEqual(yuv(RGBAColor(red: 0, green: 255, blue: 0), .bt709), [173, 42, 26])
        XCTAssertEqual(yuv(RGBAColor(red: 0, green: 0, blue: 255), .bt709), [32, 240, 118])
        XCTAssertEqual(yuv(RGBAColor(red: 255, green: 0, blue: 0), .bt601), [81, 90, 240])
        XCTAssertEqual(yuv(RGBAColor(red: 0, green: 0, blue: 255), .bt601), [41, 240, 110])
        // Alpha does not count: the canvas an encoder gets is opaque.
        XCTAssertEqual(yuv(RGBAColor(red: 255, green: 0, blue: 0, alpha: 0), .bt709), [63, 102, 240])
    }

    func testAOnePixelLineKeepsHalfItsColourInItsBlock() {
        // A red line on an odd row, on grey: the block it shares with the row above gets half
        // its chroma. A conversion that samples every other row (swscale's point) loses it.
        var image = RGBAImage(width: 32, height: 8, fill: RGBAColor(red: 128, green: 128, blue: 128))
        image.fill(RGBAColor(red: 255, green: 0, blue: 0), columns: 0..<32, rows: 3..<4)
        let planes = convert(image, matrix: .bt709)
        let grey = reference(128, 128, 128, .bt709), half = reference(191.5, 64, 64, .bt709)
        for x in 0..<16 {
            XCTAssertEqual(Double(planes.red[1 * planes.chromaStride + x]), half.cr, accuracy: 1)
            XCTAssertEqual(Double(planes.red[0 * planes.chromaStride + x]), grey.cr, accuracy: 1)
            XCTAssertEqual(Double(planes.red[2 * planes.chromaStride + x]), grey.cr, accuracy: 1)
        }
        XCTAssertEqual(planes.luma[3 * planes.lumaStride + 5], 63)
    }
}
