import Compositor
import Foundation
@testable import StoryMedia
import StoryModel
import StoryPlayerTestSupport
import XCTest

/// Animated WebP stickers read by libwebp's animation decoder: their frames and times, and the
/// decode limits held before libwebp allocates its canvases.
final class WebPStickerTests: XCTestCase {
    let folder = ScratchFolder()

    /// A WebP of `count` frames of 24x24 at 4 frames a second, each a grey 40 levels lighter.
    func animation(count: Int) throws -> String {
        for k in 0..<count {
            let level = UInt8(40 + 40 * k)
            try RGBAImage(width: 24, height: 24, fill: RGBAColor(red: level, green: level, blue: level)).writePNG(to: folder.file("\(k + 1).png"))
        }
        let path = folder.file("grey.webp")
        _ = try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error", "-y", "-framerate", "4", "-start_number", "1",
                                                                 "-i", folder.file("%d.png"), "-c:v", "libwebp_anim", "-lossless", "1",
                                                                 "-loop", "0", path])
        return path
    }

    func testFramesComeInOrderWithTheirTimes() throws {
        let path = try animation(count: 3)
        let frames = try StickerFrames.load(MediaSource(uri: path, relativeTo: "/"), width: 24, limits: DecodeLimits())
        XCTAssertEqual(frames.frames.map(\.time), [0, 0.25, 0.5])
        XCTAssertEqual(frames.loopLength, 0.75, accuracy: 0.001)
        let middle = RGBAImage(width: 24, height: 24, fill: .transparent)
        var drawn = middle
        drawn.draw(frames.sprite(at: 0.3), at: SpritePlacement(centreX: 12, centreY: 12))
        XCTAssertEqual(Int(drawn[12, 12].red), 80, accuracy: 2, "the second frame at 0.3 s")
        drawn = middle
        drawn.draw(frames.sprite(at: 0.8), at: SpritePlacement(centreX: 12, centreY: 12))
        XCTAssertEqual(Int(drawn[12, 12].red), 40, accuracy: 2, "looped: the first again at 0.8 s")
    }

    /// Its canvas is held to the decode limits before libwebp allocates it, as any picture is.
    func testACanvasOverTheLimitsIsRefused() throws {
        let path = try animation(count: 2)
        var limits = DecodeLimits()
        limits.maxPixels = 500
        XCTAssertThrowsError(try StickerFrames.load(MediaSource(uri: path, relativeTo: "/"), width: 24, limits: limits)) { error in
            XCTAssertTrue("\(error)".contains("24x24"), "\(error)")
            XCTAssertTrue("\(error)".contains("more than 500 pixels"), "\(error)")
        }
    }
}
