import Compositor
import StoryMedia
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Orientation, aspect ratio and pixel formats, through the same player a render uses.
final class MediaDecodingTests: XCTestCase {
    func firstPicture(_ fixture: String, width: Int, height: Int) throws -> RGBAImage {
        let trace = LifecycleTrace()
        let story = Story(id: "s", items: [StoryItem(source: MediaSource(uri: fixture, relativeTo: "/"))])
        let player = StoryPlaybackController(story: story, canvas: Canvas(width: width, height: height), trace: trace)
        defer { player.stop(at: 1) }
        let item = try XCTUnwrap(player.play(item: 0, at: 0))
        XCTAssertFalse(item.isFailed, "\(trace.events.of(.failed).first?.error ?? "")")
        return try XCTUnwrap(item.picture(at: 0))
    }

    func assertClose(_ color: RGBAColor, _ expected: RGBAColor, within levels: Int = 12, _ message: String = "",
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThanOrEqual(color.distance(to: expected), levels, "\(color) vs \(expected) \(message)", file: file, line: line)
    }

    /// Stored 160×90 red|blue, with a display matrix: shown upright it is blue on top, red below,
    /// exactly as the ffmpeg CLI's autorotation shows it.
    func testDisplayMatrixRotationIsHonoured() throws {
        let picture = try firstPicture(Fixture.path("rotated.mp4"), width: 90, height: 160)
        assertClose(picture[45, 20], RGBAColor(red: 0, green: 0, blue: 255), "top")
        assertClose(picture[45, 140], RGBAColor(red: 255, green: 0, blue: 0), "bottom")
        assertClose(picture[5, 20], RGBAColor(red: 0, green: 0, blue: 255), "top left")
        assertClose(picture[85, 140], RGBAColor(red: 255, green: 0, blue: 0), "bottom right")
    }

    /// Stored 64×128 with 2:1 pixels is a 128×128 square: covering a 72×128 canvas shows the
    /// middle 72 columns of it, where the red stripe is only 4 columns wide. Without the aspect
    /// ratio the red stripe would be 18 columns wide.
    func testSampleAspectRatioIsHonoured() throws {
        let picture = try firstPicture(Fixture.path("sar.mp4"), width: 72, height: 128)
        assertClose(picture[1, 64], RGBAColor(red: 255, green: 0, blue: 0), "x = 1")
        assertClose(picture[10, 64], RGBAColor(red: 0, green: 255, blue: 0), "x = 10")
        assertClose(picture[61, 64], RGBAColor(red: 0, green: 255, blue: 0), "x = 61")
        assertClose(picture[70, 64], RGBAColor(red: 0, green: 0, blue: 255), "x = 70")
    }

    func testTenBitVideoDecodes() throws {
        let picture = try firstPicture(Fixture.path("tenbit.mkv"), width: 36, height: 64)
        assertClose(picture[18, 32], RGBAColor(red: 0x30, green: 0x80, blue: 0xc0))
    }

    func testOddSizedSixteenBitPNGDecodesAndCovers() throws {
        let picture = try firstPicture(Fixture.path("odd.png"), width: 90, height: 160)
        XCTAssertEqual(picture.width, 90)
        XCTAssertEqual(picture.height, 160)
        assertClose(picture[0, 0], RGBAColor(red: 0xc0, green: 0x80, blue: 0x30), within: 2)
        assertClose(picture[89, 159], RGBAColor(red: 0xc0, green: 0x80, blue: 0x30), within: 2)
    }

    func testJPEGPhotoIsAStill() throws {
        let picture = try firstPicture(Fixture.sample("sunset.jpg"), width: 72, height: 128)
        XCTAssertEqual(picture.width, 72)
        XCTAssertNotEqual(picture[0, 0], picture[71, 127], "the gradient survives")
    }
}
