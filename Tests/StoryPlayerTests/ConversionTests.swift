import Compositor
@testable import StoryPlayer
import XCTest

/// swscale writing straight into a picture's own storage against the padded frame and row copy
/// it replaced: the pixels must not change.
final class ConversionTests: XCTestCase {
    func convert(_ fixture: String, width: Int, height: Int, inPlace: Bool) throws -> RGBAImage {
        let decoder = try MediaDecoder(source: MediaSource(uri: Fixture.path(fixture), relativeTo: "/"), limits: DecodeLimits())
        decoder.convertsInPlace = inPlace
        let picture = try XCTUnwrap(try decoder.nextPicture())
        return try decoder.rgba(picture, width: width, height: height)
    }

    func testConvertingInPlaceGivesTheSamePixels() throws {
        // Scaled up and down, cropped to a different aspect, and an unscaled size.
        for fixture in ["sar.mp4", "counter.mp4"] {
            for (width, height) in [(1080, 1920), (72, 128), (64, 128), (40, 200)] {
                let direct = try convert(fixture, width: width, height: height, inPlace: true)
                let padded = try convert(fixture, width: width, height: height, inPlace: false)
                XCTAssertEqual(direct.width, width)
                XCTAssertTrue(direct == padded, "\(fixture) at \(width)x\(height)")
            }
        }
    }
}
