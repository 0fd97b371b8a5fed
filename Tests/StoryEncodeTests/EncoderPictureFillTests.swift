internal import CFFmpeg
import Compositor
@testable import StoryEncode
@testable import StoryMedia
import XCTest

/// A canvas into an encoder's picture (`EncoderSteps.fill`): a 4:2:0 picture takes the
/// compositor's conversion, which matches swscale's bilinear one within a level; any other
/// pixel format still goes through swscale.
final class EncoderPictureFillTests: XCTestCase {
    /// A smooth picture with a sharp edge: what a room's frame is made of.
    func canvas(width: Int, height: Int) -> RGBAImage {
        var image = RGBAImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                image[x, y] = RGBAColor(red: UInt8(x * 255 / (width - 1)), green: UInt8(y * 255 / (height - 1)),
                                        blue: x < width / 3 ? 40 : 220)
            }
        }
        return image
    }

    func picture(_ format: AVPixelFormat, width: Int, height: Int) throws -> Frame {
        let frame = Frame()
        XCTAssertGreaterThanOrEqual(frame.allocatePicture(width: Int32(width), height: Int32(height), format: format), 0)
        return frame
    }

    /// Plane `plane`'s rows, `width` bytes each.
    func rows(of frame: Frame, plane: Int, width: Int, height: Int) -> [UInt8] {
        frame.withUnsafeAVFrame { frame in
            let data = withUnsafeBytes(of: frame.pointee.data) { $0.load(fromByteOffset: plane * 8, as: UnsafeMutablePointer<UInt8>.self) }
            let stride = withUnsafeBytes(of: frame.pointee.linesize) { $0.load(fromByteOffset: plane * 4, as: Int32.self) }
            return (0..<height).flatMap { y in Array(UnsafeBufferPointer(start: data + y * Int(stride), count: width)) }
        }
    }

    func testA420PictureMatchesSwscaleWithinALevel() throws {
        let (width, height) = (96, 64)
        let image = canvas(width: width, height: height)
        for colour in [ClipColour.bt709, .bt601] {
            let ours = try picture(AV_PIX_FMT_YUV420P, width: width, height: height)
            try EncoderSteps.fill(ours, from: image, index: 4, scaler: ScaleContext(), colour: colour, for: "test")
            XCTAssertEqual(ours.pts, 4)
            let theirs = try picture(AV_PIX_FMT_YUV420P, width: width, height: height)
            let lines = image.pixels.withUnsafeBufferPointer {
                ScaleContext().scale(rgba: $0.baseAddress!, width: Int32(width), height: Int32(height), into: theirs,
                                     matrix: colour.swsColorspace)
            }
            XCTAssertGreaterThan(lines, 0)
            for (plane, size) in [(0, (width, height)), (1, (width / 2, height / 2)), (2, (width / 2, height / 2))] {
                let a = rows(of: ours, plane: plane, width: size.0, height: size.1)
                let b = rows(of: theirs, plane: plane, width: size.0, height: size.1)
                let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 99
                XCTAssertLessThanOrEqual(worst, 1, "plane \(plane), \(colour)")
            }
        }
    }

    func testOtherPixelFormatsStillConvert() throws {
        // 4:4:4 (an H.264 output asked for full chroma) is not the compositor's: swscale converts it.
        let image = RGBAImage(width: 8, height: 6, fill: RGBAColor(red: 255, green: 0, blue: 0))
        let frame = try picture(AV_PIX_FMT_YUV444P, width: 8, height: 6)
        XCTAssertFalse(frame.fill(from: image, matrix: .bt709))
        try EncoderSteps.fill(frame, from: image, index: 0, scaler: ScaleContext(), colour: .bt709, for: "test")
        XCTAssertEqual(rows(of: frame, plane: 0, width: 8, height: 6), [UInt8](repeating: 63, count: 48))
        XCTAssertEqual(rows(of: frame, plane: 2, width: 8, height: 6), [UInt8](repeating: 240, count: 48))
        // An odd size is not either.
        let odd = try picture(AV_PIX_FMT_YUV420P, width: 7, height: 6)
        XCTAssertFalse(odd.fill(from: RGBAImage(width: 7, height: 6), matrix: .bt709))
    }
}
