import Compositor
@testable import StoryMedia
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// The frames a render writes are read by other tools; FFmpeg's PNG decoder (through the same
/// demuxer, decoder and swscale a story's photo goes through) must give back every pixel the
/// default PNG path wrote, at every width 1-13 and on wider rows, RGB and RGBA.
final class PNGDecodedByFFmpegTests: XCTestCase {
    func testFFmpegDecodesEveryPixelOfTheDefaultPNGPath() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("png-ffmpeg-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sizes = (1...13).map { ($0, 7) } + [(64, 33), (301, 20)]
        for (width, height) in sizes {
            var image = Self.residuals(width: width, height: height, seed: UInt64(width))
            for keepAlpha in [false, true] {
                if !keepAlpha {
                    for y in 0..<height { for x in 0..<width { image[x, y].alpha = 255 } }
                }
                let path = folder + "/\(width)x\(height)-\(keepAlpha).png"
                let data = try image.pngData(PNGOptions(keepAlpha: keepAlpha))
                XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(data)), path)
                let decoder = try MediaDecoder(source: MediaSource(uri: path, relativeTo: "/"), limits: DecodeLimits())
                defer { decoder.close() }
                let picture = try XCTUnwrap(try decoder.nextPicture(), path)
                let decoded = try decoder.rgba(picture, width: width, height: height)
                XCTAssertTrue(decoded == image, "\(width)x\(height) alpha \(keepAlpha)")
            }
        }
    }

    /// Each row the one above plus small steps, with grey stretches (runs) and now and then a
    /// large jump: the near and far literals and the runs of the coder.
    static func residuals(width: Int, height: Int, seed: UInt64) -> RGBAImage {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        var image = RGBAImage(width: width, height: height)
        var grey = 0
        for y in 0..<height {
            for x in 0..<width {
                if grey == 0 && next() % 13 == 0 { grey = Int(next() % 40) + 1 }
                if grey > 0 {
                    grey -= 1
                    image[x, y] = RGBAColor(red: 90, green: 90, blue: 90, alpha: 255)
                    continue
                }
                let above = y > 0 ? image[x, y - 1] : RGBAColor(red: 128, green: 128, blue: 128)
                func step(_ value: UInt8) -> UInt8 {
                    next() % 23 == 0 ? UInt8(truncatingIfNeeded: next()) : value &+ UInt8(truncatingIfNeeded: Int(next() % 13) - 6)
                }
                image[x, y] = RGBAColor(red: step(above.red), green: step(above.green), blue: step(above.blue),
                                        alpha: next() % 7 == 0 ? UInt8(truncatingIfNeeded: next()) : 255)
            }
        }
        return image
    }
}
