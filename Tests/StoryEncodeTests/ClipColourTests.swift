@testable import StoryMedia
@testable import StoryEncode
import XCTest

/// The size rule of an encoded video's colour (`ClipColour`): HD, 720p or larger in either
/// orientation, is BT.709; SD is BT.601. The clips themselves are read back in
/// `ClipColourTagTests` (RenderStoriesTests).
final class ClipColourTests: XCTestCase {
    func testHDIsTheShorterSide720OrTheLonger1280() {
        for (width, height) in [(1280, 720), (720, 1280), (1080, 1920), (1920, 1080), (720, 720), (1280, 540), (3840, 2160)] {
            XCTAssertEqual(ClipColour.of(width: width, height: height), .bt709, "\(width)x\(height)")
        }
        for (width, height) in [(360, 640), (640, 360), (576, 1024), (1024, 576), (718, 1278), (90, 160)] {
            XCTAssertEqual(ClipColour.of(width: width, height: height), .bt601, "\(width)x\(height)")
        }
    }
}
